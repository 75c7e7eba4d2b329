#include "report/replay_table.h"

#include <map>
#include <set>

#include "invariants/group_run.h"
#include "registry/families.h"
#include "report/report.h"

namespace slotguard {
namespace {

std::string Cell(int64_t v) { return v == kPadSlot ? "PAD" : std::to_string(v); }

/// Right-aligned in `width`; a value as wide or wider (positions past 10^9,
/// ids near 2^31) still gets one space, so columns never run together.
std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? " " + s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

void PrintReplayGroup(const Scenario& s, size_t gi, const ScenarioRun& run, bool all_tokens, std::ostream& out) {
  const Group& group = s.groups[gi];
  if (!run.kernel[gi].fault.empty()) {
    out << "\ngroup " << group.name << ": no outputs: " << run.kernel[gi].fault << "\n";
    return;
  }
  GroupRun facts;
  facts.scenario = &s;
  facts.group = &group;
  facts.request_of_token = &run.request_of_token[gi];
  SetAddressing(&facts);
  out << "\ngroup " << group.name << ": " << GetFamily(group.family).name << ", variant "
      << GetVariant(group.variant).name << ", " << group.table.rows << "x" << group.table.width
      << (s.batch.table_rows == TableRows::kIdxMapping ? " persistent table (request r reads row idx_mapping[r])"
                                                       : " table")
      << ", null block = slots [0, " << facts.page() << ")\n";
  // token -> invariants hit, per output
  for (size_t o = 0; o < run.output_names[gi].size(); ++o) {
    const std::string& name = run.output_names[gi][o];
    std::map<int64_t, std::set<std::string>> hits;
    for (const Finding& f : run.findings[gi].kept())
      if (f.output == name && f.token >= 0) hits[f.token].insert(f.invariant);
    const std::vector<int64_t>& kernel = run.kernel[gi].engine[o];
    const std::vector<int64_t>& reference = run.reference[gi][o];
    if (run.output_names[gi].size() > 1) out << " output " << name << ":\n";
    out << "  token   req       pos   block     kernel  reference  invariants\n";
    const bool every = all_tokens || s.batch.num_tokens <= kReplayEveryToken;
    int64_t skipped = 0;
    for (int64_t t = 0; t < s.batch.num_tokens; ++t) {
      if (!every && !hits.count(t)) {
        ++skipped;
        continue;
      }
      const int32_t r = run.request_of_token[gi][t];
      std::string block = "-";
      if (kernel[t] >= 0) {
        const int64_t entry = kernel[t] / facts.slots_per_entry;
        block = std::to_string(entry) + (entry < facts.null_entries ? "!" : "");
      }
      std::string inv;
      for (const std::string& i : hits[t]) inv += (inv.empty() ? "" : ",") + i;
      out << Pad(std::to_string(t), 7) << Pad(r >= 0 ? std::to_string(r) : "-", 6)
          << Pad(std::to_string(s.batch.positions[t]), 10) << Pad(block, 8)
          << Pad(Cell(kernel[t]), 11) << Pad(Cell(reference[t]), 11)
          << (kernel[t] != reference[t] ? " *" : "  ") << inv << "\n";
    }
    if (skipped)
      out << "  (" << skipped << " tokens without findings not shown; --all-tokens shows them)\n";
    // Blocks written, per request: "!" marks the null block.
    out << "  blocks written by the kernel (block:tokens, ! = null block):\n";
    std::map<int32_t, std::map<int64_t, int64_t>> written;
    for (int64_t t = 0; t < s.batch.num_tokens; ++t)
      if (kernel[t] >= 0 && KernelMaps(facts, t))
        written[run.request_of_token[gi][t]][kernel[t] / facts.slots_per_entry]++;
    for (int32_t r = -1; r < s.batch.num_reqs(); ++r) {
      auto it = written.find(r);
      if (r < 0 && it == written.end()) continue;
      out << "    " << (r < 0 ? std::string("no request") : "request " + std::to_string(r));
      if (r >= 0 && s.batch.idx_mapping[r] == -1) out << " (dummy)";
      else if (r >= 0 && s.batch.table_rows == TableRows::kIdxMapping) out << " (row " << s.batch.row_of(r) << ")";
      out << ":";
      if (it == written.end()) out << " nothing";
      else
        for (const auto& [entry, count] : it->second)
          out << " " << entry << (entry < facts.null_entries ? "!" : "") << ":" << count;
      out << "\n";
    }
  }
}

bool PrintReplay(const Scenario& scenario, const std::string& file, const std::string& backend,
                 const ScenarioRun& run, bool all_tokens, std::ostream& out) {
  const Batch& b = scenario.batch;
  out << "scenario " << scenario.name << " (" << file << "), backend " << backend << "\n";
  if (!scenario.description.empty()) out << "  " << scenario.description << "\n";
  out << "  " << b.num_reqs() << " requests, " << b.num_real_tokens() << " real tokens, "
      << "num_actual_tokens " << b.num_actual_tokens << ", num_tokens " << b.num_tokens
      << ", num_blocks " << scenario.num_blocks << "\n";
  ScenarioReport report;
  report.file = file;
  report.name = scenario.name;
  if (!run.skipped.empty()) {  // the implementation did not take it: nothing to show
    report.status = ScenarioStatus::kSkipped;
    report.verdict = "skipped: " + run.skipped;
    out << "\n" << ScenarioLine(report) << "\n";
    return true;
  }
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi) PrintReplayGroup(scenario, gi, run, all_tokens, out);

  out << "\n";
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi) {
    for (const auto& [name, count] : run.findings[gi].counts()) report.fired.insert(name);
    report.total_findings += run.findings[gi].total();
    for (const Finding& f : run.findings[gi].kept())
      out << FindingLine(report, scenario.groups[gi].name, f) << "\n";
  }
  JudgeExpectation(scenario.expect, &report);
  out << ScenarioLine(report) << "\n";
  return report.holds;
}

}  // namespace slotguard
