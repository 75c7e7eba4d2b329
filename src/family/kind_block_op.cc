// block_op: a fixed number of block operations per request (copies, loads,
// stores, zeroing; docs/state-and-block-ops.md): each output holds num_reqs *
// ops elements, ops a formula over the parameters and the row's width.
// Judged by pad_marker, op_null_src, op_null_dst and op_foreign_dst
// (invariants.def).
#include "family/kind_per_request.h"

namespace slotguard {
namespace {

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
  uint32_t invariant_bit() const override { return kKindBitBlockOp; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {"let", "dummy", "select", "op", "ops", "src", "dst", "range",
                                                   "null_index", "skip_null_src", "null_page"};
    return knobs;
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
  bool ReadsSourceColumns(const FamilyDesc& d) const override { return !d.request.src.nodes().empty(); }

  int32_t abi_kind() const override { return kAbiKindBlockOp; }
  uint32_t protocol_flag() const override { return kProtocolFlagBlockOp; }
};

}  // namespace

const KindModel& BlockOpModel() {
  static const BlockOp model;
  return model;
}

}  // namespace slotguard
