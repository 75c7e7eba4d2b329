// What the per-request kinds (kind_state_index.cc, kind_block_op.cc) share:
// request_plan.cc interprets them; their outputs are indexed by request (and
// operation); no cache writer writes through them; they run on the host.
#ifndef SLOTGUARD_FAMILY_KIND_PER_REQUEST_H_
#define SLOTGUARD_FAMILY_KIND_PER_REQUEST_H_

#include <string>
#include <vector>

#include "family/kind_model.h"
#include "family/request_plan.h"

namespace slotguard {

class PerRequestKind : public KindModel {
 public:
  bool per_request() const override { return true; }

  bool Interpret(const FamilyDesc& d, const MappingDesc&, const RequestDesc& request, const std::vector<int64_t>& params,
                 const Batch& batch, const BlockTable& table, const int64_t*, bool with_facts, Interpretation* out,
                 std::string* why) const override {
    return InterpretRequests(d, request, params, batch, table, with_facts, out, why);
  }

  bool ForEachColumn(const FamilyDesc& d, const std::vector<int64_t>& params, const Batch& batch, int64_t width,
                     const ColumnFn& fn) const override {
    ForEachRequestColumn(d, d.request, params, batch, width,
                         [&](int32_t r, int64_t col, bool source) { fn(r, col, source, true); });
    return true;
  }
  bool columns_read_width() const override { return true; }
  bool RowsGuarded(const FamilyDesc&) const override { return false; }
  bool ReadsPastRows(const MappingDesc&) const override { return false; }
  bool RaggedRows(const MappingDesc&) const override { return false; }

  bool writes_cache() const override { return false; }
  bool runs_on_gpu() const override { return false; }
  NullPage NullPageOf(const FamilyDesc& d) const override { return d.request.null_page; }

  std::vector<const LetDesc*> Lets(const FamilyDesc& d) const override {
    std::vector<const LetDesc*> out;
    for (const LetDesc& let : d.request.lets) out.push_back(&let);
    return out;
  }
  std::vector<const Expr*> BoundaryFormulas(const FamilyDesc& d, BoundaryKind which) const override {
    const RequestDesc& r = d.request;
    std::vector<const Expr*> out;
    for (const LetDesc& let : r.lets) out.push_back(&let.value);
    for (const Expr& e : r.select) out.push_back(&e);
    for (const Expr* e : {&r.column, &r.src, &r.dst, &r.skip_null_at})
      if (!e->empty()) out.push_back(e);
    if (which == BoundaryKind::kThresholds && !r.ops.empty()) out.push_back(&r.ops);
    return out;
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_KIND_PER_REQUEST_H_
