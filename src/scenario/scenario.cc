#include "scenario/scenario.h"

namespace slotguard {
namespace {

bool SameTable(const BlockTable& a, const BlockTable& b) {
  return a.rows == b.rows && a.width == b.width && a.entries == b.entries && a.lengths == b.lengths;
}

bool SameGroup(const Group& a, const Group& b) {
  return a.name == b.name && a.family == b.family && a.variant == b.variant && SameTable(a.table, b.table) &&
         a.params == b.params && a.links == b.links;
}

}  // namespace

int FormatVersion(const Scenario& s) {
  return s.batch.table_rows != TableRows::kRequest || s.table_layout != TableLayoutKind::kPadded ||
                 !s.expect.absent.empty() || !s.batch.inputs.empty() || s.batch.dummy_run ||
                 s.graph != GraphOptions()
             ? 2
             : 1;
}

const std::vector<std::string>& TableRowsNames() {
  static const std::vector<std::string> names = {"request", "idx_mapping"};
  return names;
}
const std::vector<std::string>& TableLayoutNames() {
  static const std::vector<std::string> names = {"padded", "tight", "strided"};
  return names;
}
const std::vector<std::string>& ZeroNullNames() {
  static const std::vector<std::string> names = {"never", "before_capture", "after_capture"};
  return names;
}
const char* ZeroNullName(ZeroNull zero) { return ZeroNullNames()[static_cast<size_t>(zero)].c_str(); }
const char* TableRowsName(TableRows rows) { return TableRowsNames()[static_cast<size_t>(rows)].c_str(); }
const char* TableLayoutName(TableLayoutKind layout) {
  return TableLayoutNames()[static_cast<size_t>(layout)].c_str();
}

bool operator==(const Scenario& a, const Scenario& b) {
  if (a.name != b.name || a.description != b.description || a.num_blocks != b.num_blocks ||
      a.table_layout != b.table_layout || a.graph != b.graph)
    return false;
  const Batch& x = a.batch;
  const Batch& y = b.batch;
  if (x.query_start_loc != y.query_start_loc || x.seq_lens != y.seq_lens ||
      x.positions != y.positions || x.num_actual_tokens != y.num_actual_tokens ||
      x.num_tokens != y.num_tokens || x.idx_mapping != y.idx_mapping ||
      x.slot_mapping_in != y.slot_mapping_in || x.table_rows != y.table_rows || x.inputs != y.inputs ||
      x.dummy_run != y.dummy_run)
    return false;
  if (a.groups.size() != b.groups.size()) return false;
  for (size_t i = 0; i < a.groups.size(); ++i)
    if (!SameGroup(a.groups[i], b.groups[i])) return false;
  return a.expect.present == b.expect.present && a.expect.verdict == b.expect.verdict &&
         a.expect.findings == b.expect.findings && a.expect.absent == b.expect.absent &&
         a.expect.slot_mapping == b.expect.slot_mapping && a.found_by == b.found_by;
}

}  // namespace slotguard
