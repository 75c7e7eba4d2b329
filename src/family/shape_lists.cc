#include "family/shape_lists.h"

#include <algorithm>
#include <limits>

#include "family/group_model.h"

namespace slotguard {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
/// A divides-parameter of a whole past this lists only 1 and the whole.
constexpr int64_t kMaxDivisorScan = int64_t{1} << 20;
/// Large values, smallest first: 2^20 (a position of 2^31 selects column
/// 2048), then values that let a position near 2^62 still select a column.
constexpr int64_t kLargeValues[] = {int64_t{1} << 20, int64_t{1} << 28, int64_t{1} << 30, 1000000007};

/// Sizes engines use, and beside them: small ones first (small
/// reproducers), then sizes that do (64, 128, 256, 1024) and do not (100,
/// 129, 640, 1000, 1025) divide the tiles engines launch.
constexpr int64_t kEngineSizes[] = {2, 3, 4, 5, 7, 8, 16, 17, 64, 100, 128, 129, 256, 640, 1000, 1024, 1025};

void AddDivisors(int64_t whole, std::vector<ParamValue>* out) {
  if (whole < 1) return;
  if (whole > kMaxDivisorScan) {
    out->push_back({1, ParamSource::kDivisor});
    out->push_back({whole, ParamSource::kDivisor});
    return;
  }
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d * d <= whole; ++d)
    if (whole % d == 0) {
      divisors.push_back(d);
      divisors.push_back(whole / d);
    }
  std::sort(divisors.begin(), divisors.end());
  for (int64_t d : divisors) out->push_back({d, ParamSource::kDivisor});
}

bool PowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

std::vector<ParamValue> ParamValues(const Group& g, size_t p) {
  const FamilyModel model(g.family);
  const std::vector<ParamDesc>& params = model.params();
  const ParamDesc& param = params[p];
  if (param.type == ParamType::kBool) return {{0, ParamSource::kMin}, {1, ParamSource::kNext}};
  if (!param.is_int()) return {};
  const int64_t lo = param.min, hi = ParamMax(g, p);
  const int64_t whole = param.divides.empty() ? 0 : g.params[static_cast<size_t>(model.FindParam(param.divides))];
  std::vector<ParamValue> values;
  values.push_back({lo, ParamSource::kMin});
  if (lo < std::numeric_limits<int64_t>::max()) values.push_back({lo + 1, ParamSource::kNext});
  values.push_back({param.example, ParamSource::kExample});
  if (!param.default_value.empty()) {
    Group with_default = g;
    std::vector<bool> given(params.size(), false);
    for (size_t q = 0; q < p; ++q) given[q] = true;
    ApplyDefaults(&with_default, given);
    values.push_back({with_default.params[p], ParamSource::kDefault});
  }
  // Only a max the description gives (the loader puts the type's largest
  // where it gives none).
  int64_t top;
  const int64_t type_max = param.type == ParamType::kI32 ? kInt32Max : std::numeric_limits<int64_t>::max();
  const bool finite_max = !(param.max.IsConstant(&top) && top == type_max);
  if (finite_max) values.push_back({hi, ParamSource::kMax});
  if (!param.divides.empty()) AddDivisors(whole, &values);
  // Beside the boundaries: the example's neighbours (a power-of-two
  // example's are not powers of two) and one below a given max.
  if (param.example > std::numeric_limits<int64_t>::min()) values.push_back({param.example - 1, ParamSource::kBoundary});
  if (param.example < std::numeric_limits<int64_t>::max()) values.push_back({param.example + 1, ParamSource::kBoundary});
  if (finite_max && hi > std::numeric_limits<int64_t>::min()) values.push_back({hi - 1, ParamSource::kBoundary});
  // The smallest value in range that is not a power of two (and, for a
  // divides-parameter, divides its whole).
  for (int64_t v = std::max<int64_t>(lo, 3); v <= hi && v < std::max<int64_t>(lo, 3) + 64; ++v)
    if (!PowerOfTwo(v) && (whole == 0 || whole % v == 0)) {
      values.push_back({v, ParamSource::kNonPowerOfTwo});
      break;
    }
  for (int64_t v : kLargeValues) values.push_back({v, ParamSource::kLarge});
  for (int64_t v : kEngineSizes) values.push_back({v, ParamSource::kEngineSize});
  // In range, dividing its whole; a value once per source.
  std::vector<ParamValue> out;
  for (const ParamValue& v : values) {
    if (v.value < lo || v.value > hi || (whole > 0 && whole % v.value != 0)) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const ParamValue& o) { return o.value == v.value && o.source == v.source; }))
      out.push_back(v);
  }
  std::stable_sort(out.begin(), out.end(), [](const ParamValue& a, const ParamValue& b) { return a.source < b.source; });
  return out;
}

namespace {

/// Input k's range for the group: its min, and its max (the largest int64
/// where the description gives none; the min where the max does not evaluate).
void InputRange(const Group& group, size_t k, int64_t* lo, int64_t* hi) {
  const FamilyModel model(group.family);
  const InputDesc& in = model.inputs()[k];
  std::vector<int64_t> vars = model.ParamVars(group.params);
  *hi = std::numeric_limits<int64_t>::max();
  std::string why;
  if (!in.max.Evaluate(vars.data(), hi, &why)) *hi = in.min;
  *lo = in.min;
}

/// `values` in [lo, hi], each once, in order.
std::vector<int64_t> InRangeOnce(const std::vector<int64_t>& values, int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t v : values)
    if (v >= lo && v <= hi && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

}  // namespace

std::vector<int64_t> InputValueList(const Group& group, size_t k, int64_t default_value, int64_t q) {
  int64_t lo, hi;
  InputRange(group, k, &lo, &hi);
  std::vector<int64_t> values = {lo, default_value};
  if (lo < hi) values.push_back(lo + 1);
  if (hi < std::numeric_limits<int64_t>::max()) values.push_back(hi);
  // Around the request's length: a mask of the last n tokens, an index past them.
  for (int64_t v = std::max<int64_t>(lo, 0); v <= q + 1 && v <= hi && v < lo + 4096; ++v) values.push_back(v);
  return InRangeOnce(values, lo, hi);
}

std::vector<int64_t> OwnerValueList(const Group& group, size_t k, int64_t default_value, int32_t num_reqs) {
  int64_t lo, hi;
  InputRange(group, k, &lo, &hi);
  const int64_t R = num_reqs;
  std::vector<int64_t> values = {default_value, -1, 0, R - 1, default_value - 1, default_value + 1, R, R + 1, lo};
  if (hi < std::numeric_limits<int64_t>::max()) values.push_back(hi);
  return InRangeOnce(values, lo, hi);
}

std::vector<int64_t> ElementValueList(const Group& group, size_t k, int64_t default_value, const Batch& batch,
                                      int32_t r) {
  if (GroupModel(group).OwnerInput() == static_cast<int32_t>(k))
    return OwnerValueList(group, k, default_value, batch.num_reqs());
  const int64_t q = r >= 0 ? batch.query_start_loc[r + 1] - batch.query_start_loc[r] : 0;
  return InputValueList(group, k, default_value, q);
}

std::vector<int64_t> FormulaBoundaries(const Group& group) {
  std::vector<int64_t> out = GroupDivisors(group);
  // 1 divides every position: it is a boundary only of a group whose every
  // divisor is 1 (a block of one token: context 1 is its second block).
  const bool all_ones = std::all_of(out.begin(), out.end(), [](int64_t v) { return v == 1; });
  // The comparisons: a side fixed for the group (the parameters, and the
  // lets of them) is a threshold the other side crosses (its kind's
  // addressing formulas).
  const std::vector<int64_t> thresholds = GroupModel(group).Thresholds();
  out.insert(out.end(), thresholds.begin(), thresholds.end());
  const int64_t lowest = all_ones ? 1 : 2;
  out.erase(std::remove_if(out.begin(), out.end(), [&](int64_t v) { return v < lowest || v > kMaxPosition; }),
            out.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool MeetsPastInt32(const Group& group, int64_t max_width) {
  Batch b;
  b.query_start_loc = {0, 1};
  b.seq_lens = {kPastInt32Position + 1};
  b.positions = {kPastInt32Position};
  b.num_tokens = 1;
  b.num_actual_tokens = 1;
  b.idx_mapping = {0};
  b.slot_mapping_in = {kPadSlot};
  std::vector<int64_t> needed;
  if (!GroupModel(group).NeededColumns(b, int64_t{1} << 40, &needed)) return false;
  return needed[0] > 0 && needed[0] <= max_width;
}

std::vector<int32_t> FreshPrefillTokens(const Group& group, int32_t max_tokens) {
  const int64_t block = ShapeOf(group).manager_page;
  if (block < 1 || block + 1 > max_tokens) return {};
  return {static_cast<int32_t>(block + 1)};
}

std::vector<DummyRunRows> DummyRunRowsOf(const Group& group) {
  if (FamilyModel(group.family).dummies_read_rows()) return {DummyRunRows::kZero};
  return {DummyRunRows::kZero, DummyRunRows::kStale};
}

const std::vector<int64_t>& ClampPositions() {
  static const std::vector<int64_t> positions = {kPastInt32Position, (int64_t{1} << 32) + 1};
  return positions;
}

}  // namespace slotguard
