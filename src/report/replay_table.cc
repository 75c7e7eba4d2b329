#include "report/replay_table.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include "invariants/group_run.h"
#include "registry/families.h"
#include "report/cause_lines.h"
#include "report/report.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

std::string Cell(int64_t v) { return v == kPadSlot ? "PAD" : std::to_string(v); }

/// Right-aligned in `width`; a value as wide or wider (positions past 10^9,
/// ids near 2^31) still gets one space, so columns never run together.
std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? " " + s : std::string(width - s.size(), ' ') + s;
}

/// The first `limit` findings per invariant (all with limit 0), in order.
std::vector<const Finding*> Listed(const std::vector<Finding>& findings, size_t limit) {
  std::vector<const Finding*> listed;
  std::map<std::string, size_t> shown;
  for (const Finding& f : findings)
    if (limit == 0 || shown[f.invariant]++ < limit) listed.push_back(&f);
  return listed;
}

}  // namespace

std::string BlockRanges(const std::map<int64_t, int64_t>& written, int64_t null_entries, size_t max_ranges) {
  std::string text;
  size_t ranges = 0;
  auto block = [&](int64_t entry) { return std::to_string(entry) + (entry < null_entries ? "!" : ""); };
  for (auto it = written.begin(); it != written.end();) {
    auto last = it;
    // Extend over the next block ids while they follow on, with the same
    // count and on the same side of the null block.
    for (auto next = std::next(last); next != written.end() && next->first == last->first + 1 &&
                                      next->second == it->second &&
                                      (next->first < null_entries) == (it->first < null_entries);
         ++next)
      last = next;
    if (max_ranges == 0 || ranges < max_ranges) {
      text += " " + block(it->first);
      if (last != it) text += "-" + block(last->first);
      text += ":" + std::to_string(it->second);
    }
    ++ranges;
    it = std::next(last);
  }
  if (max_ranges != 0 && ranges > max_ranges)
    text += " ... (" + std::to_string(ranges - max_ranges) + " more ranges; --all-tokens lists them)";
  return text;
}

void PrintReplayGroup(const Scenario& s, size_t gi, const ScenarioRun& run, bool all_tokens, std::ostream& out,
                      size_t max_findings) {
  const Group& group = s.groups[gi];
  if (!run.kernel[gi].fault.empty()) {
    out << "\ngroup " << EscapeText(group.name) << ": no outputs: " << EscapeText(run.kernel[gi].fault, 4096) << "\n";
    return;
  }
  GroupRun facts;
  facts.scenario = &s;
  facts.group = &group;
  facts.request_of_token = &run.request_of_token[gi];
  SetAddressing(&facts);
  out << "\ngroup " << EscapeText(group.name) << ": " << GetFamily(group.family).name << ", variant "
      << GetVariant(group.variant).name << ", " << group.table.rows << "x" << group.table.width
      << (s.batch.table_rows == TableRows::kIdxMapping ? " persistent table (request r reads row idx_mapping[r])"
                                                       : " table")
      << ", null block = slots [0, " << facts.page() << ")\n";
  const std::vector<const Finding*> listed = Listed(run.findings[gi].kept(), all_tokens ? 0 : max_findings);
  // token -> invariants hit, per output; and the tokens of the listed findings
  for (size_t o = 0; o < run.output_names[gi].size(); ++o) {
    const std::string& name = run.output_names[gi][o];
    std::map<int64_t, std::set<std::string>> hits;
    for (const Finding& f : run.findings[gi].kept())
      if (f.output == name && f.token >= 0) hits[f.token].insert(f.invariant);
    std::set<int64_t> shown_hits;
    for (const Finding* f : listed)
      if (f->output == name && f->token >= 0) shown_hits.insert(f->token);
    const std::vector<int64_t>& kernel = run.kernel[gi].engine[o];
    const std::vector<int64_t>& reference = run.reference[gi][o];
    if (run.output_names[gi].size() > 1) out << " output " << name << ":\n";
    // A per-token output has a row per token; a per-request kind's, a row
    // per element (num_reqs * ops of them, as many as the batch has tokens
    // or not), which has no position.
    const bool per_request = facts.ops_per_request > 0;
    const int64_t n = static_cast<int64_t>(
        std::min({kernel.size(), reference.size(), run.request_of_token[gi].size()}));
    out << (per_request ? "  elem    req       pos   block     kernel  reference  invariants\n"
                        : "  token   req       pos   block     kernel  reference  invariants\n");
    const bool every = all_tokens || n <= kReplayEveryToken;
    int64_t skipped = 0, skipped_hits = 0;
    for (int64_t t = 0; t < n; ++t) {
      if (!every && !shown_hits.count(t)) {
        ++(hits.count(t) ? skipped_hits : skipped);
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
          << Pad(per_request || t >= static_cast<int64_t>(s.batch.positions.size()) ? "-"
                                                                                     : std::to_string(s.batch.positions[t]),
                 10)
          << Pad(block, 8)
          << Pad(Cell(kernel[t]), 11) << Pad(Cell(reference[t]), 11)
          << (kernel[t] != reference[t] ? " *" : "  ") << inv << "\n";
    }
    if (skipped)
      out << "  (" << skipped << " tokens without findings not shown; --all-tokens shows them)\n";
    if (skipped_hits)
      out << "  (" << skipped_hits
          << " more tokens with findings not shown: past the first findings per invariant; "
             "--max-findings or --all-tokens shows them)\n";
    // Blocks written, per request: "!" marks the null block.
    out << "  blocks written by the kernel (block:tokens, ! = null block):\n";
    std::map<int32_t, std::map<int64_t, int64_t>> written;
    for (int64_t t = 0; t < n; ++t)
      if (kernel[t] >= 0 && (per_request || KernelMaps(facts, t)))
        written[run.request_of_token[gi][t]][kernel[t] / facts.slots_per_entry]++;
    // A request is plain when it is live and wrote no null-block entry:
    // past kReplayFoldRequests of them in a row, the run is one line.
    auto plain = [&](int32_t r) {
      if (r < 0 || s.batch.idx_mapping[r] == -1) return false;
      auto it = written.find(r);
      return it == written.end() || it->second.empty() || it->second.begin()->first >= facts.null_entries;
    };
    for (int32_t r = -1; r < s.batch.num_reqs(); ++r) {
      auto it = written.find(r);
      if (r < 0 && it == written.end()) continue;
      if (!all_tokens && plain(r)) {
        int32_t last = r;
        while (last + 1 < s.batch.num_reqs() && plain(last + 1)) ++last;
        if (last - r + 1 >= kReplayFoldRequests) {
          out << "    requests " << r << "-" << last << ": " << (last - r + 1)
              << " live requests, none in the null block (--all-tokens lists them)\n";
          r = last;
          continue;
        }
      }
      out << "    " << (r < 0 ? std::string("no request") : "request " + std::to_string(r));
      if (r >= 0 && s.batch.idx_mapping[r] == -1) out << " (dummy)";
      else if (r >= 0 && s.batch.table_rows == TableRows::kIdxMapping) out << " (row " << s.batch.row_of(r) << ")";
      out << ":";
      if (it == written.end()) out << " nothing";
      else out << BlockRanges(it->second, facts.null_entries, all_tokens ? 0 : kReplayMaxRanges);
      out << "\n";
    }
  }
}

ScenarioReport ReplayReport(const Scenario& scenario, const std::string& file, const ScenarioRun& run) {
  ScenarioReport report;
  report.file = file;
  report.name = scenario.name;
  if (!run.skipped.empty()) {
    report.status = ScenarioStatus::kSkipped;
    report.verdict = "skipped: " + run.skipped;
    report.holds = true;
    return report;
  }
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi) {
    for (const auto& [name, count] : run.findings[gi].counts()) report.fired.insert(name);
    report.total_findings += run.findings[gi].total();
    report.groups.push_back(ReportGroup(scenario, run, gi));
  }
  bool memory_checked = false;
  for (const GroupOutputs& g : run.kernel) memory_checked = memory_checked || !g.cache.empty();
  JudgeExpectation(scenario.expect, &report, memory_checked);
  return report;
}

bool PrintReplay(const Scenario& scenario, const std::string& file, const std::string& backend,
                 const ScenarioRun& run, bool all_tokens, std::ostream& out, size_t max_findings) {
  const Batch& b = scenario.batch;
  out << "scenario " << EscapeText(scenario.name) << " (" << EscapeText(file, 4096) << "), backend " << backend << "\n";
  if (!scenario.description.empty()) out << "  " << EscapeText(scenario.description, 4096) << "\n";
  out << "  " << b.num_reqs() << " requests, " << b.num_real_tokens() << " real tokens, "
      << "num_actual_tokens " << b.num_actual_tokens << ", num_tokens " << b.num_tokens
      << ", num_blocks " << scenario.num_blocks << "\n";
  const ScenarioReport report = ReplayReport(scenario, file, run);
  if (report.status == ScenarioStatus::kSkipped) {  // the implementation did not take it: nothing to show
    out << "\n" << ScenarioLine(report) << "\n";
    return true;
  }
  for (size_t gi = 0; gi < scenario.groups.size(); ++gi)
    PrintReplayGroup(scenario, gi, run, all_tokens, out, max_findings);

  // Per group with findings: its headline, then its findings one line per
  // token (the first max_findings per invariant, as check), the rest counted.
  out << "\n";
  for (const GroupReport& g : report.groups) {
    if (g.counts.empty()) continue;
    GroupReport listed = g;
    listed.findings.clear();
    for (const Finding* f : Listed(g.findings, all_tokens ? 0 : max_findings)) listed.findings.push_back(*f);
    out << GroupHeadline(g) << "\n";
    for (const std::string& line : TokenLines(g.name, listed.findings)) out << "  " << line << "\n";
    int64_t total = 0;
    for (const auto& [name, count] : g.counts) total += count;
    if (total > static_cast<int64_t>(listed.findings.size()))
      out << "  (" << total - static_cast<int64_t>(listed.findings.size())
          << " more findings not shown: past the first " << max_findings
          << " per invariant; --max-findings 0 or --all-tokens lists them)\n";
  }
  out << ScenarioLine(report) << "\n";
  return report.holds;
}

}  // namespace slotguard
