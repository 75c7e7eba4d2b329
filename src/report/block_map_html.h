// `replay --html`: one scenario run as a self-contained HTML page (inline
// CSS and JS, no network): per group and output, the block pool as a grid,
// each block coloured by the requests the kernel wrote into it, the null
// block marked, the blocks of findings outlined and the findings listed, and
// each block's tokens (request, position, kernel and reference slot) shown
// on hover or click.
#ifndef SLOTGUARD_REPORT_BLOCK_MAP_HTML_H_
#define SLOTGUARD_REPORT_BLOCK_MAP_HTML_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "runner/scenario_run.h"

namespace slotguard {

/// A run of at least this many consecutive blocks that nothing wrote and no
/// finding touches is one "range" cell ("17–99 999 unwritten"); shorter runs
/// are a cell per block. So a pool of a million blocks is a handful of cells.
constexpr int64_t kBlockMapMinRange = 8;

/// Tokens listed per block in its details; the rest are counted.
constexpr size_t kBlockMapTokensPerBlock = 64;

/// Tokens listed in the whole page; past them blocks show only counts.
constexpr int64_t kBlockMapPageTokens = 50000;

/// Cells one grid shows at most. Past it, consecutive blocks written by the
/// same requests without findings are one range cell too; what is still
/// past it is counted, not drawn.
constexpr size_t kBlockMapMaxCells = 4096;

/// Cells the whole page shows at most (16 full grids), so that a scenario
/// of a thousand groups is a page a browser opens, not a gigabyte: the
/// grids past it are counted, not drawn.
constexpr size_t kBlockMapPageCells = 65536;

/// The page. `backend` is how the head names it, as PrintReplay's head.
/// Every text from the scenario or the run is escaped; the per-token data
/// is a JSON blob in a <script type="application/json"> with '<', '>' and
/// '&' written as \u escapes, so nothing in it can end the element.
std::string BlockMapHtml(const Scenario& scenario, const std::string& file, const std::string& backend,
                         const ScenarioRun& run);

/// Writes BlockMapHtml to `path`; false with "PATH: cannot write the HTML
/// report: REASON" (WriteReportFile).
bool WriteBlockMapHtml(const std::string& path, const Scenario& scenario, const std::string& file,
                       const std::string& backend, const ScenarioRun& run, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_REPORT_BLOCK_MAP_HTML_H_
