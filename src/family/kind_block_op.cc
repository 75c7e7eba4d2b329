// block_op: a fixed number of block operations per request (copies, loads,
// stores, zeroing; docs/state-and-block-ops.md): each output holds num_reqs *
// ops elements, ops a formula over the parameters and the row's width.
// Judged by pad_marker, op_null_src, op_null_dst and op_foreign_dst
// (invariants.def).
#include <algorithm>

#include "family/kind_per_request.h"
#include "family/knob_reader.h"

namespace slotguard {
namespace {

using nlohmann::json;

const std::vector<std::string> kOpNames = {"copy", "load", "store", "zero"};

const char* OpName(BlockOpKind op) {
  switch (op) {
    case BlockOpKind::kLoad:
      return "load";
    case BlockOpKind::kStore:
      return "store";
    case BlockOpKind::kZero:
      return "zero";
    case BlockOpKind::kCopy:
      break;
  }
  return "copy";
}

class BlockOp final : public PerRequestKind {
 public:
  FamilyKind kind() const override { return FamilyKind::kBlockOp; }
  const char* name() const override { return "block_op"; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {"let", "dummy", "select", "op", "ops", "src", "dst", "range",
                                                   "null_index", "skip_null_src", "skip_null_at",
                                                   "null_page"};
    return knobs;
  }
  bool ReadKnobs(KnobReader& reader, const json& obj, const std::string& ptr, bool variant, MappingDesc*,
                 RequestDesc* r) const override {
    const KnobScope scope = KnobScope::kOperation;
    if (!reader.RequestKnobs(obj, ptr, variant, scope, r)) return false;
    const json* v;
    std::string text;
    auto at = [&](const char* key) { return JsonChild(ptr, key); };
    if ((v = reader.Find(obj, "op"))) {
      if (!reader.Name(*v, at("op"), "block operation", kOpNames, &text)) return false;
      r->op = static_cast<BlockOpKind>(std::find(kOpNames.begin(), kOpNames.end(), text) - kOpNames.begin());
    } else if (!variant) {
      return reader.Missing(ptr, "op", "what the operation does: copy, load, store or zero");
    }
    if ((v = reader.Find(obj, "ops"))) {
      if (!reader.Formula(*v, at("ops"), KnobScope::kParamsWidth, &r->ops)) return false;
    } else if (!variant) {
      r->ops.Parse("1", reader.desc().variables, &text);
    }
    if ((v = reader.Find(obj, "select")) && !reader.Formulas(*v, at("select"), scope, &r->select)) return false;
    const bool reads = r->op == BlockOpKind::kCopy || r->op == BlockOpKind::kStore;
    const bool writes = r->op != BlockOpKind::kStore;
    if ((v = reader.Find(obj, "src"))) {
      if (!reads)
        return reader.Fail(at("src"), std::string("a source column for a ") + OpName(r->op) + " operation",
                           "\"src\" only beside \"op\": \"copy\" or \"store\"");
      if (!reader.Formula(*v, at("src"), scope, &r->src)) return false;
    } else if (!variant && reads) {
      return reader.Missing(ptr, "src", "the column of the block the operation reads");
    }
    if ((v = reader.Find(obj, "dst"))) {
      if (!writes)
        return reader.Fail(at("dst"), "a destination column for a store operation",
                           "\"dst\" only beside \"op\": \"copy\", \"load\" or \"zero\"");
      if (!reader.Formula(*v, at("dst"), scope, &r->dst)) return false;
    } else if (!variant && writes) {
      return reader.Missing(ptr, "dst", "the column of the block the operation writes");
    }
    if ((v = reader.Find(obj, "skip_null_src")) && !reader.Bool(*v, at("skip_null_src"), &r->skip_null_src))
      return false;
    if ((v = reader.Find(obj, "skip_null_at"))) {
      if (v->is_boolean() && !v->get<bool>()) {
        r->skip_null_at = Expr();  // false: no such test (a variant drops the family's)
      } else if (!reader.Formula(*v, at("skip_null_at"), scope, &r->skip_null_at)) {
        return false;
      }
    }
    return true;
  }

  bool RequestElements(const FamilyDesc& d, const RequestDesc& request, const std::vector<int64_t>& params,
                          int64_t width, int64_t* elements, std::string* why) const override {
    return OpsPerRequest(d, request, params, width, elements, why);
  }
  const char* length_text() const override { return "the number of requests times the operations per request"; }
  std::string Summary(const FamilyDesc& d) const override {
    const RequestDesc& r = d.request;
    return std::string("block operations per request: ") + r.ops.text() + " " + OpName(r.op) +
           (r.src.empty() ? "" : ", src column " + r.src.text()) + (r.dst.empty() ? "" : ", dst column " + r.dst.text());
  }
  std::string MarkerText(bool owns_none, int64_t) const override {
    return std::string(owns_none ? "a request that owns no state" : "a request") + " has no operation here: expected -1";
  }
  bool ReadsSourceColumns(const FamilyDesc& d) const override {
    return !d.request.src.nodes().empty() || !d.request.skip_null_at.nodes().empty();
  }

  int32_t abi_kind() const override { return 2; }        // SG_KIND_BLOCK_OP
  uint32_t protocol_flag() const override { return 8; }  // FLAG_BLOCK_OP
};

}  // namespace

const KindModel& BlockOpModel() {
  static const BlockOp model;
  return model;
}

}  // namespace slotguard
