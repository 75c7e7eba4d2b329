// How a group's block table is laid out in memory for its kernel, in the
// scenario's table_layout (format 2; --table-layout overrides it). The
// scenario plan (plan/scenario_plan.h) decides each step's table from
// these, and every executor lays it out with them: the host backend, the
// GPU packer and the CUDA-graph replays. The entries a correct kernel reads are the same in every layout;
// what lies past a row differs:
//
//   padded   row stride PaddedRowStride() (past the farthest column a
//            position can select); columns [width, stride) hold kPoisonBlock.
//   tight    row stride == width, so the next row follows directly; after
//            the last row, poison up to the same reach. Width 0: stride 1
//            (a zero stride would put every row at one address), the one
//            column poison.
//   strided  row stride PaddedRowStride(); columns [width, stride) hold
//            real-looking block ids that no row of the table holds (free
//            blocks: past its largest id, else below its smallest, else
//            found by a search, always from the group's own table);
//            poison only when the table holds every real id (num_blocks 1).
//
// So a read past its row, up to the farthest column a position selects,
// stays inside the allocation in every layout, and what it reads is
// recognisable in the kernel's output (the GPU's row_bounds evidence): the
// poison id (padded, and past the last row of a tight table) or a filler
// id no row holds (strided). Only a read past a tight table's other rows
// reads a neighbour's block, which the slot invariants see (own_block). The
// host backend's CheckedTableView sees every such read, in every layout.
#ifndef SLOTGUARD_PLAN_TABLE_MEMORY_H_
#define SLOTGUARD_PLAN_TABLE_MEMORY_H_

#include <cstdint>
#include <vector>

#include "kernels/mapping_batch.h"
#include "kernels/table_view.h"
#include "plan/group_outputs.h"
#include "scenario/scenario.h"

namespace slotguard {

/// Where a laid-out table's entries go: the row stride and the allocation.
struct TableShape {
  int64_t row_stride = 0;
  int64_t entries = 0;  // >= rows * row_stride (tight: the poison after the last row)
};

/// The shape of a `rows`-row table of `group`'s width laid out as `kind`,
/// for `group`'s kernel on `batch`.
TableShape ShapeTable(TableLayoutKind kind, const Batch& batch, const Group& group, int32_t rows);

/// A shape that holds both (one buffer for several batches: graph replays).
TableShape CoverShapes(const TableShape& a, const TableShape& b);

/// Writes `table` (group's own, or GatheredTable()) laid out as `kind` into
/// the shape.entries entries at `out`. Deterministic: the strided fillers
/// depend only on the table, the group and num_blocks.
void LayOutTable(TableLayoutKind kind, int32_t num_blocks, const Group& group, const BlockTable& table,
                 const TableShape& shape, int32_t* out);

/// The table the v1 runner built from a persistent one, for an
/// implementation that cannot read persistent tables (plugin ABI 1,
/// compiled-kernel spec 1): row r is persistent row idx_mapping[r]; a dummy
/// request's row is all -1 (every family maps it to PAD).
BlockTable GatheredTable(const Batch& batch, const Group& group);

/// The kernel's view of a table laid out with `shape` at `data` (host or
/// device memory).
TableLayout ViewOf(const int32_t* data, const TableShape& shape, int32_t width, int32_t rows);

/// The batch as a kernel reads a table: by request (rows_by_idx_mapping 0)
/// when it is the gathered one, else as given.
MappingBatch TableReadBatch(const MappingBatch& batch, bool gathered);

/// The row_bounds evidence of a backend that only sees the outputs (the GPU,
/// another implementation): names it in out->row_bounds_evidence and marks
/// in out->read_past_row (already num_tokens long) each token of an engine
/// or flat output whose slot decodes to what only a read past its row can
/// give: the poison block (MarkPoisonReads), or in the strided layout one
/// of its fillers (tokens before num_actual_tokens: the rest copy
/// slot_mapping_in). So a scenario's verdict is the same on the GPU as on
/// the host backend, whose reads are instrumented, in every layout but for
/// a read into the next row of a tight table.
void MarkOutputReadsPastRow(const Scenario& scenario, const Group& group, GroupOutputs* out);

}  // namespace slotguard

#endif  // SLOTGUARD_PLAN_TABLE_MEMORY_H_
