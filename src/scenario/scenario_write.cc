// Scenario writer: canonical, human-readable JSON. Scalar arrays stay on one
// line and a block table gets one line per row, so files diff well.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "family/group_model.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

// Bytes that are not UTF-8 (a path from the command line) become U+FFFD
// rather than an exception.
std::string Quote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <class T>
std::string Inline(const std::vector<T>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

/// Writes `"key": value` lines with commas and indentation.
class ObjectWriter {
 public:
  ObjectWriter(std::ostringstream& out, int indent) : out_(out), indent_(indent) { out_ << "{"; }
  void Field(const std::string& key, const std::string& raw_value) {
    out_ << (first_ ? "\n" : ",\n") << std::string(indent_ + 2, ' ') << Quote(key) << ": "
         << raw_value;
    first_ = false;
  }
  void Close() { out_ << "\n" << std::string(indent_, ' ') << "}"; }

 private:
  std::ostringstream& out_;
  int indent_;
  bool first_ = true;
};

std::string TableJson(const BlockTable& table, int indent) {
  if (table.rows == 0) return "[]";
  std::string out = "[";
  for (int32_t r = 0; r < table.rows; ++r) {
    // A ragged row as long as it is.
    std::vector<int32_t> row(table.entries.begin() + static_cast<size_t>(r) * table.width,
                             table.entries.begin() + static_cast<size_t>(r) * table.width + table.row_width(r));
    out += (r ? ",\n" : "\n") + std::string(indent + 2, ' ') + Inline(row);
  }
  return out + "\n" + std::string(indent, ' ') + "]";
}

std::string GroupJson(const Group& g) {
  std::ostringstream out;
  ObjectWriter w(out, 4);
  w.Field("name", Quote(g.name));
  w.Field("kernel", Quote(GetFamily(g.family).name));
  w.Field("variant", Quote(GetVariant(g.variant).name));
  // The family's parameters in table order; a nested object ("dcp") on one line.
  std::string nested_key, nested;
  auto close_nested = [&] {
    if (!nested_key.empty()) w.Field(nested_key, "{" + nested + "}");
    nested_key.clear();
    nested.clear();
  };
  const std::vector<ParamDesc>& params = FamilyModel(g.family).params();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamDesc& p = params[i];
    if (p.type == ParamType::kGroup && g.links[i].empty()) continue;
    const std::string value = p.type == ParamType::kGroup  ? Quote(g.links[i])
                              : p.type == ParamType::kBool ? (g.params[i] ? "true" : "false")
                                                           : std::to_string(g.params[i]);
    if (!p.nested()) {
      close_nested();
      w.Field(p.key, value);
      continue;
    }
    if (nested_key != p.top_key()) close_nested();
    nested_key = p.top_key();
    nested += (nested.empty() ? "" : ", ") + Quote(p.leaf_key()) + ": " + value;
  }
  close_nested();
  w.Field("block_table", TableJson(g.table, 6));
  w.Close();
  return out.str();
}

}  // namespace

std::string WriteScenarioJson(const Scenario& s) {
  std::ostringstream out;
  ObjectWriter root(out, 0);
  root.Field("slotguard", std::to_string(FormatVersion(s)));
  root.Field("name", Quote(s.name));
  if (!s.description.empty()) root.Field("description", Quote(s.description));
  root.Field("num_blocks", std::to_string(s.num_blocks));
  if (s.table_layout != TableLayoutKind::kPadded) root.Field("table_layout", Quote(TableLayoutName(s.table_layout)));
  if (s.graph != GraphOptions()) root.Field("graph", "{\"zero_null\": " + Quote(ZeroNullName(s.graph.zero_null)) + "}");
  {
    std::ostringstream batch;
    ObjectWriter b(batch, 2);
    b.Field("query_start_loc", Inline(s.batch.query_start_loc));
    b.Field("seq_lens", Inline(s.batch.seq_lens));
    b.Field("positions", Inline(s.batch.positions));
    b.Field("num_actual_tokens", std::to_string(s.batch.num_actual_tokens));
    b.Field("num_tokens", std::to_string(s.batch.num_tokens));
    b.Field("idx_mapping", Inline(s.batch.idx_mapping));
    b.Field("slot_mapping_in", Inline(s.batch.slot_mapping_in));
    if (s.batch.table_rows != TableRows::kRequest) b.Field("table_rows", Quote(TableRowsName(s.batch.table_rows)));
    if (!s.batch.inputs.empty()) {
      std::ostringstream inputs;
      ObjectWriter in(inputs, 4);
      for (const auto& [name, input] : s.batch.inputs) in.Field(name, Inline(input.values));
      in.Close();
      b.Field("inputs", inputs.str());
    }
    if (s.batch.dummy_run) b.Field("dummy_run", "true");
    b.Close();
    root.Field("batch", batch.str());
  }
  std::string groups = "[";
  for (size_t i = 0; i < s.groups.size(); ++i)
    groups += (i ? ",\n    " : "\n    ") + GroupJson(s.groups[i]);
  root.Field("groups", groups + "\n  ]");
  if (s.expect.present) {
    std::ostringstream expect;
    ObjectWriter e(expect, 2);
    e.Field("verdict", s.expect.verdict == Verdict::kPass ? "\"pass\"" : "\"finding\"");
    if (!s.expect.findings.empty()) {
      std::string names = "[";
      for (size_t i = 0; i < s.expect.findings.size(); ++i)
        names += (i ? ", " : "") + Quote(s.expect.findings[i]);
      e.Field("findings", names + "]");
    }
    if (!s.expect.absent.empty()) {
      std::string names;
      for (size_t i = 0; i < s.expect.absent.size(); ++i) names += (i ? ", " : "") + Quote(s.expect.absent[i]);
      e.Field("absent", "[" + names + "]");
    }
    if (!s.expect.slot_mapping.empty()) {
      std::ostringstream golden;
      ObjectWriter g(golden, 4);
      for (const auto& [name, slots] : s.expect.slot_mapping) g.Field(name, Inline(slots));
      g.Close();
      e.Field("slot_mapping", golden.str());
    }
    e.Close();
    root.Field("expect", expect.str());
  }
  if (s.found_by.present) {
    const FoundBy& f = s.found_by;
    std::ostringstream found;
    ObjectWriter w(found, 2);
    if (!f.backend.empty()) w.Field("backend", Quote(f.backend));
    if (!f.kernel_lib.empty()) w.Field("kernel_lib", Quote(f.kernel_lib));
    if (!f.kernel_cubin.empty()) w.Field("kernel_cubin", Quote(f.kernel_cubin));
    if (!f.kernel_spec.empty()) w.Field("kernel_spec", Quote(f.kernel_spec));
    if (!f.kernel_cmd.empty()) w.Field("kernel_cmd", Quote(f.kernel_cmd));
    if (!f.family_files.empty()) {
      std::string files;
      for (size_t i = 0; i < f.family_files.size(); ++i) files += (i ? ", " : "") + Quote(f.family_files[i]);
      w.Field("family_files", "[" + files + "]");
    }
    if (f.writers) w.Field("writers", "true");
    if (f.head_bytes > 0) w.Field("head_bytes", std::to_string(f.head_bytes));
    w.Close();
    root.Field("found_by", found.str());
  }
  root.Close();
  out << "\n";
  return out.str();
}

bool WriteScenarioFile(const std::string& path, const Scenario& scenario, std::string* err) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << WriteScenarioJson(scenario);
  out.close();
  if (!out) {
    *err = EscapeText(path, 0) + ": cannot write scenario file";
    return false;
  }
  return true;
}

}  // namespace slotguard
