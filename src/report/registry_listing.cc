#include "report/registry_listing.h"

#include <nlohmann/json.hpp>

#include "registry/families.h"
#include "report/report.h"
#include "registry/invariants.h"
#include "family/group_model.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

const char* TypeName(ParamType type) {
  switch (type) {
    case ParamType::kI32:
      return "i32";
    case ParamType::kI64:
      return "i64";
    case ParamType::kBool:
      return "bool";
    case ParamType::kGroup:
      return "group name";
  }
  return "";
}

std::string RangeText(const FamilyModel& model, const ParamDesc& p) {
  if (p.type == ParamType::kGroup) return "a " + p.family + " group of the scenario";
  if (p.type == ParamType::kBool) return "true, false";
  std::string range = std::to_string(p.min) + " .. " + p.max.text();
  if (!p.divides.empty()) range += ", divides " + p.divides;
  if (p.equals_link >= 0) range += ", equals " + model.params()[static_cast<size_t>(p.equals_link)].name + "." + p.equals_param;
  return range;
}

std::string DefaultCell(const FamilyModel& model, const ParamDesc& p) {
  // A derived group's source must be named: its slots come from it.
  if (p.type == ParamType::kGroup && model.derived_from() >= 0 &&
      &model.params()[static_cast<size_t>(model.derived_from())] == &p)
    return "required";
  if (p.type == ParamType::kGroup) return "absent";
  if (p.default_value.empty()) return "required";
  if (p.type == ParamType::kBool) return p.default_value.text() == "1" ? "true" : "false";
  return p.default_value.text();
}

const char* WriterKindName(const WriterDesc& w) { return w.style == WriterStyle::kPaged ? "paged" : "ring"; }
const char* WriterSkipName(const WriterDesc& w) {
  return w.skip == WriterSkip::kNegative ? "slot < 0" : w.skip == WriterSkip::kMinusOne ? "slot == -1" : "none";
}
const char* WriterNegativeName(const WriterDesc& w) {
  return w.negative == WriterNegative::kIndex ? "index" : w.negative == WriterNegative::kPointer ? "pointer" : "clamp0";
}
const char* NullPageName(NullPage p) {
  return p == NullPage::kPristine ? "pristine"
         : p == NullPage::kSink    ? "sink"
         : p == NullPage::kNone    ? "none"
         : p == NullPage::kNoCache ? "no_cache"
                                   : "request";
}
const char* DummyName(DummyRule d) { return d == DummyRule::kPad ? "pad" : "row"; }

/// An output's writer, in words: "paged, skips slot < 0", "none".
std::string WriterLine(const WriterDesc& w) {
  if (!w.writes) return "none (nothing writes the cache through it)";
  std::string text = std::string(WriterKindName(w)) + ", skips " + WriterSkipName(w);
  if (w.skip != WriterSkip::kNegative) text += std::string(", a negative slot lands as ") + WriterNegativeName(w);
  if (w.dummies == WriterDummies::kSkip) text += ", not run for dummies";
  return text;
}

}  // namespace

void WriteRegistryListing(std::ostream& out) {
  out << "families, their parameters and variants (fixed is the default and the only correct one):\n";
  // What a description file says (its meanings, its path) is escaped: one
  // line each, whatever bytes the file holds.
  for (const FamilyInfo& family : AllFamilies()) {
    out << "  " << family.name << ": " << EscapeText(family.description, 0) << "\n";
    const FamilyModel model(family.family);
    out << "    from " << EscapeText(model.file(), 0)
        << (family.kernel ? "; runs slotguard's own kernel"
                          : "; runs its description (an implementation given with --kernel-cmd, --kernel-lib or "
                            "--kernel-cubin runs instead)")
        << "\n";
    const EngineRef& e = model.engine();
    if (!e.repo.empty()) {
      out << "    engine " << EscapeText(e.repo, 0) << " " << EscapeText(e.path, 0)
          << (e.commit.empty() ? "" : " @ " + EscapeText(e.commit.substr(0, 12), 0)) << ": "
          << EscapeText(e.function, 0) << "\n";
      if (!e.note.empty()) out << "      " << EscapeText(e.note, 0) << "\n";
    }
    if (model.kind().writes_cache())
      for (const OutputDesc& o : model.mapping().outputs)
        out << "    output " << (o.name.empty() ? "(the group's)" : EscapeText(o.name, 0)) << ": dummy " << DummyName(o.dummy)
            << ", writer " << WriterLine(o.writer) << "\n";
    if (!model.Summary().empty()) {
      out << "    " << model.Summary() << "\n";
    } else if (ReadsColumn0Only(family.family)) {
      out << "    reads column 0 of its row only\n";
    }
    for (const ParamDesc& p : model.params())
      out << "    param " << p.key << " (" << TypeName(p.type) << ", " << RangeText(model, p) << "; default "
          << DefaultCell(model, p) << "): " << EscapeText(p.meaning, 0) << "\n";
    for (const ConstraintDesc& c : model.constraints()) out << "    requires " << c.holds.text() << "\n";
    for (Variant v : VariantsOf(family.family))
      out << "    " << GetVariant(v).name << ": " << EscapeText(GetVariant(v).description, 0) << "\n";
  }
  out << "invariants:\n";
  for (const InvariantInfo& inv : AllInvariants())
    out << "  " << inv.name << ": " << inv.description
        << (inv.stage == InvariantStage::kMemory ? " [with --writers]" : "") << "\n";
}

void WriteRegistryJson(std::ostream& out) {
  using json = nlohmann::ordered_json;
  json root;
  root["slotguard_list"] = 1;
  root["version"] = std::string(kSlotguardVersion);
  json families = json::array();
  for (const FamilyInfo& f : AllFamilies()) {
    const FamilyModel model(f.family);
    json family;
    family["name"] = f.name;
    family["meaning"] = model.meaning();
    family["file"] = model.file();
    family["builtin"] = f.builtin;
    family["kernel"] = f.kernel;
    json engine = json::object();
    if (!model.engine().repo.empty()) engine["repo"] = model.engine().repo;
    if (!model.engine().path.empty()) engine["path"] = model.engine().path;
    if (!model.engine().function.empty()) engine["function"] = model.engine().function;
    if (!model.engine().commit.empty()) engine["commit"] = model.engine().commit;
    if (!model.engine().note.empty()) engine["note"] = model.engine().note;
    family["engine"] = engine;
    family["kind"] = model.kind().name();
    family["rows"] = model.ragged_rows() ? "csr" : "table";
    family["one_token_per_request"] = model.one_token_per_request();
    family["null_page"] = NullPageName(model.null_page());
    family["null_page_read"] = model.mapping().null_page_read == NullPageRead::kZero ? "zero" : "any";
    json params = json::array();
    for (const ParamDesc& p : model.params()) {
      json param;
      param["name"] = p.name;
      param["key"] = p.key;
      param["type"] = TypeName(p.type);
      if (p.is_int()) {
        param["min"] = p.min;
        param["max"] = p.max.text();
      }
      if (p.type == ParamType::kGroup) param["family"] = p.family;
      param["default"] = p.type == ParamType::kGroup ? json() : p.default_value.empty() ? json() : json(p.default_value.text());
      param["required"] = p.type != ParamType::kGroup && p.default_value.empty();
      if (!p.divides.empty()) param["divides"] = p.divides;
      if (p.equals_link >= 0) param["equals"] = model.params()[static_cast<size_t>(p.equals_link)].name + "." + p.equals_param;
      param["meaning"] = p.meaning;
      params.push_back(param);
    }
    family["params"] = params;
    json outputs = json::array();
    for (const OutputDesc& o : model.mapping().outputs) outputs.push_back(o.name);
    family["outputs"] = outputs;
    family["min_width"] = model.mapping().min_width.text();
    // A block_op group has `ops` operations per request (a formula over the
    // parameters and width); its outputs hold num_reqs * ops elements.
    family["ops"] = model.request().ops.empty() ? json() : json(model.request().ops.text());  // block_op only
    family["gate"] = model.mapping().gate.present() ? json(model.params()[model.mapping().gate.param].name) : json();
    // Each output's writer (writer.gate: the group parameter it reads, or null).
    json writers = json::array();
    for (const OutputDesc& o : model.mapping().outputs)
      writers.push_back(!model.kind().writes_cache() || !o.writer.writes
                            ? json()
                            : json{{"output", o.name},
                                   {"kind", WriterKindName(o.writer)},
                                   {"skip", WriterSkipName(o.writer)},
                                   {"negative", WriterNegativeName(o.writer)},
                                   {"dummies", o.writer.dummies == WriterDummies::kSkip ? "skip" : "write"},
                                   {"gate", o.writer.gate.present() ? json(model.params()[o.writer.gate.param].name) : json()}});
    family["writers"] = writers;
    family["pad_value"] = model.mapping().pad_value;
    family["runs"] = f.kernel ? "slotguard's own kernel" : "its description, unless an implementation is given";
    json variants = json::array();
    for (Variant v : VariantsOf(f.family)) {
      std::string fix;
      for (const VariantDesc& vd : model.variants())
        if (vd.name == GetVariant(v).name) fix = vd.fix;
      variants.push_back({{"name", GetVariant(v).name}, {"meaning", GetVariant(v).description},
                          {"kernel", GetVariant(v).kernel}, {"fix", fix.empty() ? json() : json(fix)}});
    }
    json cite = json::object();
    for (const auto& [knob, text] : model.engine().cite) cite[knob] = text;
    if (!model.engine().cite.empty()) family["engine"]["cite"] = cite;
    family["variants"] = variants;
    families.push_back(family);
  }
  root["families"] = families;
  json invariants = json::array();
  for (const InvariantInfo& inv : AllInvariants())
    invariants.push_back({{"name", inv.name},
                          {"stage", inv.stage == InvariantStage::kMemory ? "memory"
                                    : inv.stage == InvariantStage::kRun  ? "run"
                                                                         : "mapping"},
                          {"description", inv.description}});
  root["invariants"] = invariants;
  // A path or meaning that is not UTF-8 (a family file's) is escaped, never an unwritable listing.
  out << ReportJsonText(std::move(root));
}

std::string FamilyParameterMarkdown() {
  std::string md =
      "| family | key | name | type | range | default | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const FamilyInfo& f : AllFamilies()) {
    if (!f.builtin) continue;
    const FamilyModel model(f.family);
    for (const ParamDesc& p : model.params())
      md += std::string("| ") + f.name + " | `" + p.key + "` | `" + p.name + "` | " + TypeName(p.type) + " | " +
            RangeText(model, p) + " | " + DefaultCell(model, p) + " | " + p.meaning + " |\n";
  }
  return md;
}

}  // namespace slotguard
