// slot_mapping: a slot per token (docs/family-format.md), interpreted by
// family_plan.cc. Its outputs are indexed by token, cache writers write K/V
// through them, and the slot invariants judge them.
#include "family/kind_model.h"
#include "family/knob_reader.h"

namespace slotguard {
namespace {

class SlotMapping final : public KindModel {
 public:
  FamilyKind kind() const override { return FamilyKind::kSlotMapping; }
  const char* name() const override { return "slot_mapping"; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {
        "let",  "rows", "owner", "dummy",   "select",  "column", "entry", "reads",   "range",     "min_width", "entry_map", "pad_entry",
        "offset", "page", "manager_page", "gate", "tail", "outputs", "null_page", "null_page_read", "pad_value", "writer"};
    return knobs;
  }
  bool ReadKnobs(KnobReader& reader, const nlohmann::json& obj, const std::string& ptr, bool variant,
                 MappingDesc* mapping, RequestDesc*) const override {
    return reader.MappingKnobs(obj, ptr, variant, mapping);
  }

  bool per_request() const override { return false; }
  bool RequestElements(const FamilyDesc&, const RequestDesc&, const std::vector<int64_t>&, int64_t,
                          int64_t* elements, std::string*) const override {
    *elements = 0;
    return true;
  }
  const char* length_text() const override { return "num_tokens"; }
  std::string Summary(const FamilyDesc&) const override { return ""; }
  std::string MarkerText(bool, int64_t expected) const override {
    return "a token that owns no state must hold " + std::to_string(expected);
  }

  bool Interpret(const FamilyDesc& d, const MappingDesc& mapping, const RequestDesc&, const std::vector<int64_t>& params,
                 const Batch& batch, const BlockTable& table, const int64_t* linked, bool with_facts,
                 Interpretation* out, std::string* why) const override {
    GroupPlan plan;
    return MakeGroupPlan(d, mapping, params, batch, &plan, why) &&
           slotguard::Interpret(plan, batch, table, linked, with_facts, out, why);
  }

  bool ForEachColumn(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& batch, int64_t,
                     const ColumnFn& fn) const override {
    GroupPlan plan;
    std::string unused;
    if (!MakeGroupPlan(d, d.mapping, params, batch, &plan, &unused)) return false;
    if (d.mapping.derived()) return true;  // its entries come from the linked slots: it reads no column
    ForEachAddress(plan, batch, [&](int64_t, int32_t r, bool selected, int64_t col) { fn(r, col, false, selected); });
    return true;
  }
  bool columns_read_width() const override { return false; }
  bool RowsGuarded(const FamilyDesc& d) const override { return d.mapping.range != RangeRule::kNone; }
  bool ReadsPastRows(const MappingDesc& m) const override { return m.range == RangeRule::kNone; }
  bool RaggedRows(const MappingDesc& m) const override { return m.rows == RowsRule::kCsr; }
  bool ReadsSourceColumns(const FamilyDesc&) const override { return false; }

  bool writes_cache() const override { return true; }
  bool runs_on_gpu() const override { return true; }
  NullPage NullPageOf(const FamilyDesc& d) const override { return d.mapping.null_page; }

  int32_t abi_kind() const override { return 0; }  // SG_KIND_SLOT_MAPPING
  uint32_t protocol_flag() const override { return 0; }

  std::vector<const LetDesc*> Lets(const FamilyDesc& d) const override {
    std::vector<const LetDesc*> out;
    for (const LetDesc& let : d.mapping.lets) out.push_back(&let);
    return out;
  }
  std::vector<const Expr*> BoundaryFormulas(const FamilyDesc& d, BoundaryKind which) const override {
    const MappingDesc& m = d.mapping;
    std::vector<const Expr*> out;
    for (const LetDesc& let : m.lets) out.push_back(&let.value);
    for (const Expr& e : m.select) out.push_back(&e);
    if (m.derived()) out.push_back(&m.entry);
    else out.push_back(&m.column);
    out.push_back(&m.offset);
    if (which == BoundaryKind::kDivisors && !m.pad_entry.empty()) out.push_back(&m.pad_entry);
    for (const OutputDesc& o : m.outputs)
      for (const Expr& e : o.select) out.push_back(&e);
    return out;
  }
};

}  // namespace

const KindModel& SlotMappingModel() {
  static const SlotMapping model;
  return model;
}

}  // namespace slotguard
