#include "family/formula_program.h"

#include <algorithm>

namespace slotguard {
namespace {

/// n / d for 0 <= n < 2^63, by the multiplier of SetMagic.
inline int64_t MagicDiv(int64_t n, uint64_t magic, int shift) {
  const uint64_t high = static_cast<uint64_t>((static_cast<unsigned __int128>(static_cast<uint64_t>(n)) * magic) >> 64);
  return static_cast<int64_t>(high >> shift);
}

/// Whether every one of n values is >= 0 (one pass, no branch per value).
inline bool NonNegative(const int64_t* a, int n) {
  uint64_t any = 0;
  for (int i = 0; i < n; ++i) any |= static_cast<uint64_t>(a[i]);
  return static_cast<int64_t>(any) >= 0;
}

}  // namespace

bool FormulaProgram::SetMagic(int64_t d, uint64_t* magic, uint8_t* shift) {
  // Granlund and Montgomery (1994), theorem 4.2, with N = 63: for
  // l = ceil(log2 d) and m = ceil(2^(63 + l) / d), m * d - 2^(63 + l) < d
  // <= 2^l, so n / d = floor(m * n / 2^(63 + l)) for every 0 <= n < 2^63;
  // d > 2^(l - 1) keeps m below 2^64.
  if (d < 3 || (d & (d - 1)) == 0) return false;
  const int l = 64 - __builtin_clzll(static_cast<uint64_t>(d - 1));
  const unsigned __int128 power = static_cast<unsigned __int128>(1) << (63 + l);
  *magic = static_cast<uint64_t>((power + static_cast<uint64_t>(d) - 1) / static_cast<uint64_t>(d));
  *shift = static_cast<uint8_t>(l - 1);  // 63 + l bits: the high word's l - 1
  return true;
}

int64_t FormulaProgram::MagicDivide(int64_t n, uint64_t magic, uint8_t shift) { return MagicDiv(n, magic, shift); }

int32_t FormulaRegisters::Constant(int64_t value) {
  for (const auto& [reg, v] : constants_)
    if (v == value) return reg;
  constants_.emplace_back(size_, value);
  return size_++;
}

void FormulaProgram::Emit(uint8_t op, int32_t dst, int32_t a, int32_t b, int32_t formula) {
  Instr in;
  in.op = op;
  in.dst = dst;
  in.a = a;
  in.b = b;
  in.formula = formula;
  code_.push_back(in);
}

int32_t FormulaProgram::Node(const Expr& e, int32_t i, int32_t formula, FormulaRegisters* regs) {
  const Expr::Node& n = e.nodes()[i];
  switch (n.op) {
    case Expr::kNumber:
      return regs->Constant(n.value);
    case Expr::kVariable:
      return n.var;
    case Expr::kNeg:
    case Expr::kNot: {
      const int32_t a = Node(e, n.args[0], formula, regs);
      const int32_t dst = regs->Temporary();
      Emit(n.op == Expr::kNeg ? kNeg : kNot, dst, a, 0, formula);
      return dst;
    }
    case Expr::kAnd:
    case Expr::kOr: {
      // dst = left != 0; where that decides (0 for &&, 1 for ||) skip the
      // right side; else dst = right != 0. The right side runs only then.
      const int32_t a = Node(e, n.args[0], formula, regs);
      const int32_t dst = regs->Temporary();
      Emit(kBool, dst, a, 0, formula);
      const size_t jump = code_.size();
      Emit(n.op == Expr::kAnd ? kJumpIfZero : kJumpIfNonZero, 0, dst, 0, formula);
      const int32_t b = Node(e, n.args[1], formula, regs);
      Emit(kBool, dst, b, 0, formula);
      code_[jump].target = static_cast<int32_t>(code_.size());
      return dst;
    }
    default: {
      // Left before right, as Evaluate runs them (the first failure is the one reported).
      const int32_t a = Node(e, n.args[0], formula, regs);
      const int32_t b = Node(e, n.args[1], formula, regs);
      const int32_t dst = regs->Temporary();
      int64_t divisor = 0;
      uint8_t op = n.op;
      if ((op == Expr::kDiv || op == Expr::kRem || op == Expr::kMod) && regs->IsConstant(b, &divisor) &&
          divisor > 0 && (divisor & (divisor - 1)) == 0)
        op = op == Expr::kDiv ? kDivPow2 : op == Expr::kRem ? kRemPow2 : kModPow2;
      Emit(op, dst, a, b, formula);
      if ((op == Expr::kDiv || op == Expr::kRem || op == Expr::kMod) && regs->IsConstant(b, &divisor))
        SetMagic(divisor, &code_.back().magic, &code_.back().magic_shift);
      return dst;
    }
  }
}

int32_t FormulaProgram::Value(const Expr& e, int32_t formula, FormulaRegisters* regs) {
  return Node(e, e.root(), formula, regs);
}

void FormulaProgram::Assign(const Expr& e, int32_t dst, int32_t formula, FormulaRegisters* regs) {
  const size_t before = code_.size();
  const int32_t value = Value(e, formula, regs);
  // The last operation writes the destination itself, unless it is one of
  // the two writes of a && or || (kBool), or the formula was a leaf.
  if (code_.size() > before && code_.back().dst == value && code_.back().op != kBool) {
    code_.back().dst = dst;
    return;
  }
  Emit(kCopy, dst, value, 0, formula);
}

void FormulaProgram::Require(const Expr& e, int32_t formula, FormulaRegisters* regs) {
  const size_t before = code_.size();
  const int32_t value = Value(e, formula, regs);
  // Not a leaf: the value is a temporary of this formula's alone.
  const bool temporary = code_.size() > before && code_.back().dst == value;
  Emit(kRequire, 0, value, 0, formula);
  code_.back().a_temporary = temporary;
}

FormulaProgram::Status FormulaProgram::Run(int64_t* r, int32_t* formula, ExprError* error) const {
  const Instr* const code = code_.data();
  const Instr* const end = code + code_.size();
  for (const Instr* in = code; in < end; ++in) {
    const int64_t a = r[in->a], b = r[in->b];
    int64_t& v = r[in->dst];
    switch (in->op) {
      case Expr::kAdd:
        if (__builtin_add_overflow(a, b, &v)) goto overflow;
        break;
      case Expr::kSub:
        if (__builtin_sub_overflow(a, b, &v)) goto overflow;
        break;
      case Expr::kMul:
        if (__builtin_mul_overflow(a, b, &v)) goto overflow;
        break;
      case Expr::kEq: v = a == b; break;
      case Expr::kNe: v = a != b; break;
      case Expr::kLt: v = a < b; break;
      case Expr::kLe: v = a <= b; break;
      case Expr::kGt: v = a > b; break;
      case Expr::kGe: v = a >= b; break;
      case Expr::kMin: v = a < b ? a : b; break;
      case Expr::kMax: v = a > b ? a : b; break;
      case Expr::kDiv:
        if (in->magic && a >= 0) {
          v = MagicDiv(a, in->magic, in->magic_shift);
          break;
        }
        if (b == 0) goto by_zero;
        if (a == INT64_MIN && b == -1) goto overflow;
        v = a / b;
        break;
      case Expr::kRem:
        if (in->magic && a >= 0) {
          v = a - MagicDiv(a, in->magic, in->magic_shift) * b;
          break;
        }
        if (b == 0) goto by_zero;
        v = b == -1 ? 0 : a % b;
        break;
      case Expr::kMod: {
        if (in->magic && a >= 0) {  // b > 0: the floor modulo is the remainder
          v = a - MagicDiv(a, in->magic, in->magic_shift) * b;
          break;
        }
        if (b == 0) goto by_zero;
        int64_t m = b == -1 ? 0 : a % b;
        if (m != 0 && ((m < 0) != (b < 0))) m += b;  // floor modulo
        v = m;
        break;
      }
      case Expr::kCdiv: {
        if (b == 0) goto by_zero;
        int64_t sum, below;  // a + (b - 1), each step checked (b - 1 overflows for b = INT64_MIN)
        if (__builtin_sub_overflow(b, 1, &below) || __builtin_add_overflow(a, below, &sum)) goto overflow;
        if (sum == INT64_MIN && b == -1) goto overflow;
        v = sum / b;
        break;
      }
      case kDivPow2:  // toward zero: a negative dividend rounds up
        v = (a + ((a >> 63) & (b - 1))) >> __builtin_ctzll(static_cast<uint64_t>(b));
        break;
      case kRemPow2: {  // the sign of a
        const int64_t m = a & (b - 1);
        v = a < 0 && m != 0 ? m - b : m;
        break;
      }
      case kModPow2:  // the sign of b: never negative
        v = a & (b - 1);
        break;
      case kNeg:
        if (a == INT64_MIN) goto overflow;
        v = -a;
        break;
      case kNot: v = a == 0; break;
      case kBool: v = a != 0; break;
      case kCopy: v = a; break;
      case kJumpIfZero:
        if (a == 0) in = code + in->target - 1;
        break;
      case kJumpIfNonZero:
        if (a != 0) in = code + in->target - 1;
        break;
      case kRequire:
        if (a == 0) return kRejected;
        break;
    }
    continue;
  overflow:
    *formula = in->formula;
    *error = ExprError::kOverflow;
    return kFailed;
  by_zero:
    *formula = in->formula;
    *error = ExprError::kDivisionByZero;
    return kFailed;
  }
  return kDone;
}

bool FormulaProgram::InstrAsRange(size_t i, int32_t a, int32_t dst, const int64_t* r, int64_t* lo, int64_t* hi,
                                  bool* invert) const {
  if (i >= code_.size() || !lanes_ok_) return false;
  const Instr& in = code_[i];
  if (in.a != a || in.dst != dst || !in.b_uniform) return false;
  const int64_t c = r[in.b];
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  *invert = false;
  switch (in.op) {
    case Expr::kEq: *lo = *hi = c; return true;
    case Expr::kNe: *lo = *hi = c; *invert = true; return true;
    case Expr::kLe: *hi = c; return true;
    case Expr::kGe: *lo = c; return true;
    case Expr::kLt:  // x < c: x <= c - 1, or never
      if (c == INT64_MIN) *lo = 1, *hi = 0; else *hi = c - 1;
      return true;
    case Expr::kGt:
      if (c == INT64_MAX) *lo = 1, *hi = 0; else *lo = c + 1;
      return true;
    default:
      return false;
  }
}

bool FormulaProgram::PrepareLanes(const std::vector<int32_t>& varying, const std::vector<int32_t>& affine,
                                  const std::vector<int32_t>& kept) {
  lanes_ok_ = false;
  uniform_inputs_.clear();
  broadcast_.clear();
  affine_inputs_.clear();
  affine_bases_ = 0;
  for (Instr& in : code_) {
    in.affine = Instr::kNotAffine;
    in.a_base = in.dst_base = -1;
  }
  std::vector<int32_t> written = varying;
  auto contains = [](const std::vector<int32_t>& regs, int32_t reg) {
    return std::find(regs.begin(), regs.end(), reg) != regs.end();
  };
  auto read = [&](int32_t reg) {
    if (!contains(written, reg) && !contains(uniform_inputs_, reg)) uniform_inputs_.push_back(reg);
  };
  for (Instr& in : code_) {
    in.b_uniform = false;
    switch (in.op) {
      case kJumpIfZero:
      case kJumpIfNonZero:
        uniform_inputs_.clear();
        return false;
      case kRequire:
        read(in.a);
        continue;
      case kNeg:
      case kNot:
      case kBool:
      case kCopy:
        read(in.a);
        break;
      default:
        read(in.a);
        read(in.b);
    }
    written.push_back(in.dst);
  }
  // A uniform input no instruction writes may be read as one value; the
  // right-hand side of a binary operation is (RunLanes reads it from the
  // registers), anything else is copied into its lanes.
  const std::vector<int32_t> writes = Writes();
  auto uniform = [&](int32_t reg) { return contains(uniform_inputs_, reg) && !contains(writes, reg); };
  for (Instr& in : code_) {
    const bool binary = in.op != kNeg && in.op != kNot && in.op != kBool && in.op != kCopy && in.op != kRequire;
    in.b_uniform = binary && uniform(in.b);
    if (!contains(broadcast_, in.a) && contains(uniform_inputs_, in.a)) broadcast_.push_back(in.a);
    if (binary && !in.b_uniform && !contains(broadcast_, in.b) && contains(uniform_inputs_, in.b))
      broadcast_.push_back(in.b);
  }
  // A comparison into a register that only the test after it reads (a
  // select's, as Require compiles it) marks the rejected lanes itself.
  for (size_t k = 1; k < code_.size(); ++k) {
    Instr& cmp = code_[k - 1];
    Instr& test = code_[k];
    test.lanes_skip = cmp.lanes_rejects = false;
    if (test.op != kRequire || test.a != cmp.dst || cmp.op < Expr::kEq || cmp.op > Expr::kGe) continue;
    bool read_elsewhere = false;
    for (size_t j = 0; j < code_.size(); ++j)
      if (j != k && (code_[j].a == cmp.dst || code_[j].b == cmp.dst)) read_elsewhere = true;
    if (read_elsewhere || !test.a_temporary) continue;
    test.lanes_skip = cmp.lanes_rejects = true;
  }
  PrepareAffine(varying, affine, kept);
  // The registers never negative where an instruction reads them (its
  // division by a constant then needs no test of the lanes' signs).
  std::vector<int32_t> non_negative;
  for (Instr& in : code_) {
    in.a_non_negative = contains(non_negative, in.a);
    if (in.op == kRequire || in.op == kJumpIfZero || in.op == kJumpIfNonZero) continue;
    const bool comparison = in.op >= Expr::kEq && in.op <= Expr::kGe;
    const bool by_constant = in.op == kDivPow2 || in.op == kRemPow2 || in.magic != 0;  // by a constant > 0
    const bool mod_by_constant = in.op == kModPow2 || (in.op == Expr::kMod && in.magic != 0);
    const bool writes_non_negative = comparison || in.op == kNot || in.op == kBool || mod_by_constant ||
                                     (by_constant && in.a_non_negative) || (in.op == kCopy && in.a_non_negative);
    non_negative.erase(std::remove(non_negative.begin(), non_negative.end(), in.dst), non_negative.end());
    if (writes_non_negative) non_negative.push_back(in.dst);
  }
  lanes_ok_ = true;
  return true;
}

void FormulaProgram::PrepareAffine(const std::vector<int32_t>& varying, const std::vector<int32_t>& affine,
                                   const std::vector<int32_t>& kept) {
  if (affine.empty() || affine.size() > static_cast<size_t>(kAffineInputs)) return;
  auto contains = [](const std::vector<int32_t>& regs, int32_t reg) {
    return std::find(regs.begin(), regs.end(), reg) != regs.end();
  };
  // An input the program itself writes is base + k only until then: none is kept as a base.
  for (const Instr& in : code_)
    if (in.op != kRequire && in.op != kJumpIfZero && in.op != kJumpIfNonZero && contains(affine, in.dst)) return;
  auto comparison = [](uint8_t op) { return op >= Expr::kEq && op <= Expr::kGe; };
  auto plus_minus = [](uint8_t op) { return op == Expr::kAdd || op == Expr::kSub; };
  auto division = [](uint8_t op) {
    return op == Expr::kDiv || op == Expr::kRem || op == Expr::kMod || op == kDivPow2 || op == kRemPow2 ||
           op == kModPow2;
  };
  auto binary = [](uint8_t op) {
    return op != kNeg && op != kNot && op != kBool && op != kCopy && op != kRequire;
  };
  // Backward: the + and - whose value may stay a base: written once, after
  // any read of it, and read only as the left-hand side of a comparison
  // with a uniform value, or of such a + or - itself.
  std::vector<bool> base_only(code_.size(), false);
  for (size_t i = code_.size(); i-- > 0;) {
    const Instr& in = code_[i];
    if (!plus_minus(in.op) || !in.b_uniform || contains(kept, in.dst) || contains(varying, in.dst) ||
        contains(uniform_inputs_, in.dst))
      continue;
    bool read = false, ok = true;
    for (size_t j = 0; j < code_.size(); ++j) {
      if (j == i) continue;
      const Instr& other = code_[j];
      const bool writes = other.op != kRequire && other.dst == in.dst;
      const bool reads_a = other.a == in.dst;
      const bool reads_b = binary(other.op) && other.b == in.dst;
      if (!writes && !reads_a && !reads_b) continue;
      read = read || reads_a || reads_b;
      ok = ok && !writes && j > i && !reads_b && other.b_uniform &&
           (comparison(other.op) || division(other.op) || (plus_minus(other.op) && base_only[j]));
    }
    base_only[i] = read && ok;
  }
  // Forward: the affine values (the inputs, then those + and -) and their bases.
  affine_inputs_ = affine;
  std::vector<std::pair<int32_t, int8_t>> bases;
  for (int32_t reg : affine_inputs_) bases.emplace_back(reg, static_cast<int8_t>(affine_bases_++));
  auto base_of = [&](int32_t reg) -> int8_t {
    for (const auto& [r, b] : bases)
      if (r == reg) return b;
    return -1;
  };
  for (size_t i = 0; i < code_.size(); ++i) {
    Instr& in = code_[i];
    if (!binary(in.op) || !in.b_uniform || in.lanes_skip) continue;
    const int8_t a = base_of(in.a);
    if (a < 0) continue;
    if (comparison(in.op)) {
      in.affine = in.lanes_rejects ? Instr::kAffineReject : Instr::kAffineCompare;
      in.a_base = a;
    } else if (division(in.op)) {
      in.affine = Instr::kAffineDivMod;
      in.a_base = a;
    } else if (base_only[i]) {
      if (affine_bases_ == kMaxAffine) {  // no base left for it, which its readers count on: none affine
        for (Instr& each : code_) {
          each.affine = Instr::kNotAffine;
          each.a_base = each.dst_base = -1;
        }
        affine_inputs_.clear();
        affine_bases_ = 0;
        return;
      }
      in.affine = in.op == Expr::kAdd ? Instr::kAffineAdd : Instr::kAffineSub;
      in.a_base = a;
      in.dst_base = static_cast<int8_t>(affine_bases_++);
      bases.emplace_back(in.dst, in.dst_base);
    }
  }
}

bool FormulaProgram::ReadsLanes(int32_t reg) const {
  for (const Instr& in : code_) {
    if (in.lanes_skip) continue;  // its comparison marked the lanes
    const bool binary = in.op != kNeg && in.op != kNot && in.op != kBool && in.op != kCopy && in.op != kRequire;
    if (in.a == reg && in.affine == Instr::kNotAffine) return true;
    if (binary && in.b == reg && !in.b_uniform) return true;
  }
  return false;
}

namespace {

// One operation over n lanes, its right-hand side either lanes (B) or one
// value (b): OP(a, b, d) computes lane i's d from a and b. Written so that
// the compiler can vectorize the loops that have no division.
#define SG_LANES(...)                                    \
  do {                                                   \
    if (uniform_b) {                                     \
      const int64_t b = r[in.b];                         \
      for (int i = 0; i < n; ++i) {                      \
        const int64_t a = A[i];                          \
        int64_t& d = D[i];                               \
        __VA_ARGS__;                                     \
      }                                                  \
    } else {                                             \
      for (int i = 0; i < n; ++i) {                      \
        const int64_t a = A[i], b = B[i];                \
        int64_t& d = D[i];                               \
        __VA_ARGS__;                                     \
      }                                                  \
    }                                                    \
  } while (0)

// A test over n lanes: rejected[i] |= 1 where TEST(a, b) is false.
#define SG_REJECT(TEST)                                            \
  do {                                                             \
    if (uniform_b) {                                               \
      const int64_t b = r[in.b];                                   \
      for (int i = 0; i < n; ++i) {                                \
        const int64_t a = A[i];                                    \
        rejected[i] |= static_cast<uint8_t>(!(TEST));              \
      }                                                            \
    } else {                                                       \
      for (int i = 0; i < n; ++i) {                                \
        const int64_t a = A[i], b = B[i];                          \
        rejected[i] |= static_cast<uint8_t>(!(TEST));              \
      }                                                            \
    }                                                              \
  } while (0)

}  // namespace

FormulaProgram::AffineEnd FormulaProgram::AffineStep(const Instr& in, int64_t b, int n, int64_t* base, int64_t* d,
                                                     uint8_t* rejected) {
  const int64_t a0 = base[in.a_base];  // lane k holds a0 + k
  if (in.affine == Instr::kAffineAdd || in.affine == Instr::kAffineSub) {
    // Lane 0 and lane n - 1 bound every lane: none overflows where neither does.
    int64_t d0, last;
    const bool over = in.affine == Instr::kAffineAdd ? __builtin_add_overflow(a0, b, &d0)
                                                     : __builtin_sub_overflow(a0, b, &d0);
    if (over || __builtin_add_overflow(d0, n - 1, &last)) return kAffineFailed;
    base[in.dst_base] = d0;
    return kAffineDone;
  }
  if (in.affine == Instr::kAffineDivMod) {
    // By b > 0: the remainder counts up to b - 1 and starts again, the
    // quotient grows by one each time it does. Floor mod from any a0;
    // / and % (toward zero) from a0 >= 0, else a's lanes written out.
    const bool floor_mod = in.op == Expr::kMod || in.op == kModPow2;
    if (b <= 0 || (!floor_mod && a0 < 0)) return kAffineWriteOut;
    int64_t r = a0 % b;
    if (r < 0) r += b;  // floor mod of a negative a0
    if (in.op == Expr::kDiv || in.op == kDivPow2) {
      // Unsigned: past the last lane (a0 + n - 1 = INT64_MAX, b = 1) it
      // counts on to INT64_MAX + 1, a value never read.
      uint64_t q = static_cast<uint64_t>(a0 / b);
      for (int k = 0; k < n; ++k) {
        d[k] = static_cast<int64_t>(q);
        if (++r == b) r = 0, ++q;
      }
    } else {
      for (int k = 0; k < n; ++k) {
        d[k] = r;
        if (++r == b) r = 0;
      }
    }
    return kAffineDone;
  }
  // The comparison holds on lanes [from, to), or (!=) on every lane but `at`.
  const __int128 at = static_cast<__int128>(b) - a0;  // the lane whose value is b
  auto lane = [n](__int128 k) { return static_cast<int>(k < 0 ? 0 : k > n ? n : k); };
  int from = 0, to = n;
  switch (in.op) {
    case Expr::kEq: from = lane(at), to = lane(at + 1); break;
    case Expr::kLt: to = lane(at); break;
    case Expr::kLe: to = lane(at + 1); break;
    case Expr::kGt: from = lane(at + 1); break;
    case Expr::kGe: from = lane(at); break;
    default: break;  // kNe
  }
  if (in.op == Expr::kNe) {
    const bool in_range = at >= 0 && at < n;
    if (in.affine == Instr::kAffineReject) {
      if (in_range) rejected[static_cast<int>(at)] = 1;
    } else {
      std::fill(d, d + n, 1);
      if (in_range) d[static_cast<int>(at)] = 0;
    }
    return kAffineDone;
  }
  if (from > to) from = to;
  if (in.affine == Instr::kAffineReject) {
    std::fill(rejected, rejected + from, 1);
    std::fill(rejected + to, rejected + n, 1);
  } else {
    std::fill(d, d + from, 0);
    std::fill(d + from, d + to, 1);
    std::fill(d + to, d + n, 0);
  }
  return kAffineDone;
}

bool FormulaProgram::RunLanes(const int64_t* r, int64_t* lanes, int n, uint8_t* rejected,
                              const int64_t* affine_base) const {
  // The bases of the affine values: lane k of one is its base + k.
  int64_t base[kMaxAffine];
  if (!affine_inputs_.empty()) {
    if (!affine_base) return false;  // no bases: the caller runs the tokens one at a time
    for (size_t j = 0; j < affine_inputs_.size(); ++j) base[j] = affine_base[j];
  }
  // Each operation over every lane; a failure of any lane marks `bad`, or
  // the sign bit of `over` (an overflow of + or -, found without a branch).
  for (const Instr& in : code_) {
    const int64_t* const A = lanes + static_cast<size_t>(in.a) * kLanes;
    const int64_t* const B = lanes + static_cast<size_t>(in.b) * kLanes;
    int64_t* const D = lanes + static_cast<size_t>(in.dst) * kLanes;
    const bool uniform_b = in.b_uniform;
    if (in.lanes_skip) continue;  // the comparison before it marked the rejected lanes
    if (in.affine != Instr::kNotAffine) {
      const AffineEnd end = AffineStep(in, r[in.b], n, base, D, rejected);
      if (end == kAffineFailed) return false;
      if (end == kAffineDone) continue;
      int64_t* const a = lanes + static_cast<size_t>(in.a) * kLanes;  // written out: the operation below reads them
      for (int k = 0; k < n; ++k) a[k] = base[in.a_base] + k;
    }
    if (in.lanes_rejects) {
      switch (in.op) {
        case Expr::kEq: SG_REJECT(a == b); break;
        case Expr::kNe: SG_REJECT(a != b); break;
        case Expr::kLt: SG_REJECT(a < b); break;
        case Expr::kLe: SG_REJECT(a <= b); break;
        case Expr::kGt: SG_REJECT(a > b); break;
        default: SG_REJECT(a >= b); break;  // kGe
      }
      continue;
    }
    bool bad = false;
    uint64_t over = 0;
    switch (in.op) {
      case Expr::kAdd:
        SG_LANES({
          const uint64_t s = static_cast<uint64_t>(a) + static_cast<uint64_t>(b);
          over |= (static_cast<uint64_t>(a) ^ s) & (static_cast<uint64_t>(b) ^ s);
          d = static_cast<int64_t>(s);
        });
        break;
      case Expr::kSub:
        SG_LANES({
          const uint64_t s = static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
          over |= (static_cast<uint64_t>(a) ^ static_cast<uint64_t>(b)) & (static_cast<uint64_t>(a) ^ s);
          d = static_cast<int64_t>(s);
        });
        break;
      case Expr::kMul:
        SG_LANES(bad |= __builtin_mul_overflow(a, b, &d));
        break;
      case Expr::kEq: SG_LANES(d = a == b); break;
      case Expr::kNe: SG_LANES(d = a != b); break;
      case Expr::kLt: SG_LANES(d = a < b); break;
      case Expr::kLe: SG_LANES(d = a <= b); break;
      case Expr::kGt: SG_LANES(d = a > b); break;
      case Expr::kGe: SG_LANES(d = a >= b); break;
      case Expr::kMin: SG_LANES(d = a < b ? a : b); break;
      case Expr::kMax: SG_LANES(d = a > b ? a : b); break;
      case kDivPow2:
        if (uniform_b) {
          const int64_t b = r[in.b];
          const int shift = __builtin_ctzll(static_cast<uint64_t>(b));
          if (in.a_non_negative || NonNegative(A, n)) {  // a shift alone
            for (int i = 0; i < n; ++i) D[i] = static_cast<int64_t>(static_cast<uint64_t>(A[i]) >> shift);
            break;
          }
          for (int i = 0; i < n; ++i) D[i] = (A[i] + ((A[i] >> 63) & (b - 1))) >> shift;
        } else {
          for (int i = 0; i < n; ++i)
            D[i] = (A[i] + ((A[i] >> 63) & (B[i] - 1))) >> __builtin_ctzll(static_cast<uint64_t>(B[i]));
        }
        break;
      case kRemPow2:
        if (uniform_b && (in.a_non_negative || NonNegative(A, n))) {  // a mask alone
          const int64_t mask = r[in.b] - 1;
          for (int i = 0; i < n; ++i) D[i] = A[i] & mask;
          break;
        }
        SG_LANES({
          const int64_t m = a & (b - 1);
          d = a < 0 && m != 0 ? m - b : m;
        });
        break;
      case kModPow2: SG_LANES(d = a & (b - 1)); break;
      case kNot: for (int i = 0; i < n; ++i) D[i] = A[i] == 0; break;
      case kBool: for (int i = 0; i < n; ++i) D[i] = A[i] != 0; break;
      case kCopy: for (int i = 0; i < n; ++i) D[i] = A[i]; break;
      case kRequire:
        for (int i = 0; i < n; ++i) rejected[i] |= A[i] == 0;
        break;
      case Expr::kDiv:
        if (in.magic && (in.a_non_negative || NonNegative(A, n))) {  // b a constant: no division
          const uint64_t magic = in.magic;
          const int shift = in.magic_shift;
          for (int i = 0; i < n; ++i) D[i] = MagicDiv(A[i], magic, shift);
          break;
        }
        if (uniform_b && r[in.b] != 0 && r[in.b] != -1) {
          const int64_t b = r[in.b];
          for (int i = 0; i < n; ++i) D[i] = A[i] / b;
          break;
        }
        SG_LANES({
          const bool fails = b == 0 || (a == INT64_MIN && b == -1);
          bad |= fails;
          d = fails ? 0 : a / b;
        });
        break;
      case Expr::kRem:
      case Expr::kMod: {
        const bool floor = in.op == Expr::kMod;
        if (in.magic && (in.a_non_negative || NonNegative(A, n))) {  // b a constant > 0: no division, and mod is %
          const uint64_t magic = in.magic;
          const int shift = in.magic_shift;
          const int64_t b = r[in.b];
          for (int i = 0; i < n; ++i) D[i] = A[i] - MagicDiv(A[i], magic, shift) * b;
          break;
        }
        if (uniform_b && r[in.b] != 0 && r[in.b] != -1) {  // cannot fail
          const int64_t b = r[in.b];
          if (floor) {
            for (int i = 0; i < n; ++i) {
              const int64_t m = A[i] % b;
              D[i] = m + (m != 0 && (m < 0) != (b < 0) ? b : 0);
            }
          } else {
            for (int i = 0; i < n; ++i) D[i] = A[i] % b;
          }
          break;
        }
        SG_LANES({
          if (b == 0) {
            bad = true;
            d = 0;
          } else {
            int64_t m = b == -1 ? 0 : a % b;
            if (floor && m != 0 && ((m < 0) != (b < 0))) m += b;
            d = m;
          }
        });
        break;
      }
      case Expr::kCdiv:
        SG_LANES({
          int64_t sum, below;
          const bool fails = b == 0 || __builtin_sub_overflow(b, 1, &below) || __builtin_add_overflow(a, below, &sum) ||
                             (sum == INT64_MIN && b == -1);
          bad |= fails;
          d = fails ? 0 : sum / b;
        });
        break;
      case kNeg:
        for (int i = 0; i < n; ++i) {
          bad |= A[i] == INT64_MIN;
          D[i] = A[i] == INT64_MIN ? 0 : -A[i];
        }
        break;
      default:  // a jump: PrepareLanes refused the program
        return false;
    }
    if (bad || static_cast<int64_t>(over) < 0) return false;
  }
  return true;
}

#undef SG_LANES
#undef SG_REJECT

}  // namespace slotguard
