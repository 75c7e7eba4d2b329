// state_index: one state index per request (docs/state-and-block-ops.md):
// what a metadata builder hands the state kernels (Mamba, SSM, GDN, linear
// attention). Judged by pad_marker, skip_agrees, live_state, unique_state
// and state_writes (invariants.def).
#include "family/kind_per_request.h"

namespace slotguard {
namespace {

class StateIndex final : public PerRequestKind {
 public:
  FamilyKind kind() const override { return FamilyKind::kStateIndex; }
  const char* name() const override { return "state_index"; }
  uint32_t invariant_bit() const override { return kKindBitStateIndex; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {"let",        "dummy",     "column",   "range", "marker",
                                                   "null_index", "consumers", "null_page"};
    return knobs;
  }

  bool RequestElements(const FamilyDesc&, const RequestDesc&, const std::vector<int64_t>&, int64_t,
                          int64_t* elements, std::string*) const override {
    *elements = 1;
    return true;
  }
  const char* length_text() const override { return "the number of requests (a state index per request)"; }
  std::string Summary(const FamilyDesc& d) const override {
    const RequestDesc& r = d.request;
    std::string consumers;
    for (const ConsumerDesc& c : r.consumers)
      consumers += (consumers.empty() ? "" : ", ") + c.name + " skips " + c.skip.text();
    return "a state index per request: column " + r.column.text() + ", marker " + r.marker.text() + "; " + consumers;
  }
  std::string MarkerText(bool owns_none, int64_t expected) const override {
    return std::string(owns_none ? "a row that owns no state" : "a request without a state index here") +
           " must hold the producer's marker " + std::to_string(expected);
  }
  bool ReadsSourceColumns(const FamilyDesc&) const override { return false; }

  int32_t abi_kind() const override { return kAbiKindStateIndex; }
  uint32_t protocol_flag() const override { return kProtocolFlagStateIndex; }
};

}  // namespace

const KindModel& StateIndexModel() {
  static const StateIndex model;
  return model;
}

}  // namespace slotguard
