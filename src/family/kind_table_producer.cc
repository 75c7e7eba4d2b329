// table_producer: the block table a step's kernels read, gathered per
// request from a persistent table (docs/table-producers.md): vLLM's
// _gather_block_tables_kernel. Each output holds num_reqs rows of `width`
// entries (the table's width: the persistent table's row stride):
//   - a live request r copies the first `count` entries of the row it reads
//     (row idx_mapping[r] of a persistent table, else row r); its entries
//     from `count` on are left as the buffer held them (slotguard hands
//     zeroed buffers, as the engine allocates them), and `count` past the
//     row copies the row (the engine never counts more blocks than its row
//     holds);
//   - a padded or dummy row (idx_mapping -1, a request without a row)
//     holds `pad` in every column (0: the null block, which every consumer
//     of the table then reads and writes).
// Judged by pad_marker (a padded row) and gathered_row (a live request's
// copied entries; invariants.def). Interpreted here: no other kind reads it.
#include <algorithm>

#include "family/kind_model.h"
#include "family/knob_reader.h"
#include "family/request_plan.h"

namespace slotguard {
namespace {

using nlohmann::json;

/// The formula variables with the parameters and the batch's sizes set.
std::vector<int64_t> Vars(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& batch,
                          const BlockTable* table, int64_t width) {
  std::vector<int64_t> v(d.variables.size(), 0);
  for (size_t p = 0; p < params.size() && p < d.params.size(); ++p) v[d.param_var(static_cast<int32_t>(p))] = params[p];
  v[FamilyDesc::kNumReqs] = batch.num_reqs();
  v[FamilyDesc::kNumTokens] = batch.num_tokens;
  v[FamilyDesc::kNumActualTokens] = batch.num_actual_tokens;
  v[FamilyDesc::kNumRealTokens] = batch.num_real_tokens();
  v[FamilyDesc::kWidth] = width;
  v[FamilyDesc::kRows] = table ? table->rows : 0;
  return v;
}

bool Eval(const Expr& e, const char* knob, int32_t r, const std::vector<int64_t>& v, int64_t* value,
          std::string* why) {
  ExprError error = ExprError::kNone;
  if (e.Evaluate(v.data(), value, &error)) return true;
  *why = (r >= 0 ? "request " + std::to_string(r) + ": " : std::string()) + "the description's '" + knob + "' (" +
         e.text() + "): " + ExprErrorText(error);
  return false;
}

/// Request r's lets and count (clamped at 0), its variables set in v.
bool CountOf(const RequestDesc& request, const Batch& batch, int32_t r, std::vector<int64_t>* v, int64_t* count,
             std::string* why) {
  SetRequestVars(batch, r, v->data());
  for (const LetDesc& let : request.lets)
    if (!Eval(let.value, let.name.c_str(), r, *v, &(*v)[let.var], why)) return false;
  if (!Eval(request.Own("count"), "count", r, *v, count, why)) return false;
  *count = std::max<int64_t>(*count, 0);
  return true;
}

class TableProducer final : public KindModel {
 public:
  FamilyKind kind() const override { return FamilyKind::kTableProducer; }
  const char* name() const override { return "table_producer"; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {"let", "count", "pad", "null_index", "null_page"};
    return knobs;
  }
  bool ReadKnobs(KnobReader& reader, const json& obj, const std::string& ptr, bool variant, MappingDesc*,
                 RequestDesc* r) const override {
    if (!reader.RequestKnobs(obj, ptr, variant, KnobScope::kRequest, r)) return false;
    const json* v;
    std::string unused;
    if ((v = reader.Find(obj, "count"))) {
      if (!reader.Formula(*v, JsonChild(ptr, "count"), KnobScope::kRequest, &r->own["count"])) return false;
    } else if (!variant) {
      return reader.Missing(ptr, "count", "the entries of its row a live request's table gets (num_blocks)");
    }
    if ((v = reader.Find(obj, "pad"))) {
      if (!reader.Formula(*v, JsonChild(ptr, "pad"), KnobScope::kParams, &r->own["pad"])) return false;
    } else if (!variant) {
      r->own["pad"].Parse("0", reader.desc().variables, &unused);
    }
    return true;
  }

  bool per_request() const override { return true; }
  bool RequestElements(const FamilyDesc&, const RequestDesc&, const std::vector<int64_t>&, int64_t width,
                       int64_t* elements, std::string*) const override {
    *elements = std::max<int64_t>(width, 0);  // a row of the table per request
    return true;
  }
  const char* length_text() const override { return "the number of requests times the table's width"; }
  std::string Summary(const FamilyDesc& d) const override {
    return "a block table row per request: the first " + d.request.Own("count").text() +
           " entries of the row it reads, a padded or dummy row all " + d.request.Own("pad").text();
  }
  std::string MarkerText(bool, int64_t expected) const override {
    return "a padded or dummy row must hold " + std::to_string(expected) + " in every column";
  }

  bool Interpret(const FamilyDesc& d, const MappingDesc&, const RequestDesc& request, const std::vector<int64_t>& params,
                 const Batch& batch, const BlockTable& table, const int64_t*, bool with_facts, Interpretation* out,
                 std::string* why) const override {
    const int64_t W = table.width;
    const int32_t R = batch.num_reqs();
    const size_t n = static_cast<size_t>(R) * static_cast<size_t>(W);
    std::vector<int64_t> v = Vars(d, params, batch, &table, W);
    int64_t pad;
    if (!Eval(request.Own("pad"), "pad", -1, v, &pad, why)) return false;
    out->slots.assign(1, std::vector<int64_t>(n, 0));  // the zeroed buffer
    out->facts.assign(with_facts ? 1 : 0, std::vector<uint8_t>(n, 0));
    out->owner.assign(n, -1);
    for (int32_t r = 0; r < R; ++r) {
      const size_t first = static_cast<size_t>(r) * static_cast<size_t>(W);
      std::fill(out->owner.begin() + first, out->owner.begin() + first + W, r);
      const int32_t row = batch.row_of(r);
      if (batch.is_dummy(r) || row < 0 || row >= table.rows) {
        std::fill(out->slots[0].begin() + first, out->slots[0].begin() + first + W, pad);
        if (with_facts)
          std::fill(out->facts[0].begin() + first, out->facts[0].begin() + first + W,
                    static_cast<uint8_t>(kFactNoState | kFactMarker));
        continue;
      }
      int64_t count;
      if (!CountOf(request, batch, r, &v, &count, why)) return false;
      count = std::min<int64_t>(count, table.row_width(row));
      for (int64_t c = 0; c < count; ++c) {
        out->slots[0][first + c] = table.at(row, static_cast<int32_t>(c));
        if (with_facts) out->facts[0][first + c] = kFactLiveIndex;
      }
    }
    return true;
  }

  /// A live request reads columns 0 .. count - 1; fn is called for the
  /// farthest (count - 1), which is what sizes the row (the columns before
  /// it need no row of their own: a call each would be num_blocks calls).
  bool ForEachColumn(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& batch, int64_t width,
                     const ColumnFn& fn) const override {
    std::vector<int64_t> v = Vars(d, params, batch, nullptr, width);
    std::string unused;
    for (int32_t r = 0; r < batch.num_reqs(); ++r) {
      int64_t count;
      if (batch.is_dummy(r) || !CountOf(d.request, batch, r, &v, &count, &unused)) continue;
      if (count > 0) fn(r, count - 1, false, true);
    }
    return true;
  }
  bool columns_read_width() const override { return false; }
  bool RowsGuarded(const FamilyDesc&) const override { return false; }
  bool ReadsPastRows(const MappingDesc&) const override { return false; }
  bool RaggedRows(const MappingDesc&) const override { return false; }
  bool ReadsSourceColumns(const FamilyDesc&) const override { return false; }

  bool writes_cache() const override { return false; }
  bool runs_on_gpu() const override { return false; }
  NullPage NullPageOf(const FamilyDesc& d) const override { return d.request.null_page; }

  // Plugin ABI 3's kind 3 (SG_KIND_TABLE_PRODUCER), HELLO's flag 16.
  int32_t abi_kind() const override { return 3; }
  uint32_t protocol_flag() const override { return 16; }

  std::vector<const LetDesc*> Lets(const FamilyDesc& d) const override {
    std::vector<const LetDesc*> out;
    for (const LetDesc& let : d.request.lets) out.push_back(&let);
    return out;
  }
  std::vector<const Expr*> BoundaryFormulas(const FamilyDesc& d, BoundaryKind) const override {
    std::vector<const Expr*> out;
    for (const LetDesc& let : d.request.lets) out.push_back(&let.value);
    out.push_back(&d.request.Own("count"));
    return out;
  }
};

}  // namespace

const KindModel& TableProducerModel() {
  static const TableProducer model;
  return model;
}

}  // namespace slotguard
