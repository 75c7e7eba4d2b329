// A group's formulas compiled once into flat register programs: what the
// interpreters run per request and per token instead of evaluating each
// formula on its own.
//
// The registers are one array: a description's variables first (a
// variable's index is its register), then the constants and the
// intermediate values its programs need. A program is a list of
// three-address instructions over them (`r5 = r6 / r9`), each checked as
// Expr::Evaluate checks it, with jumps for && and || and tests that stop
// the program: a let writes its variable's register, a select stops the
// run when it is 0. An operation that fails stops the run with the same
// error Evaluate gives, and says which formula it came from, so the
// messages ("the description's 'column' (...): division by zero") are the
// same as when each formula was evaluated alone.
#ifndef SLOTGUARD_FAMILY_FORMULA_PROGRAM_H_
#define SLOTGUARD_FAMILY_FORMULA_PROGRAM_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "family/expr.h"

namespace slotguard {

/// The registers of a group's programs: allocated while compiling them.
class FormulaRegisters {
 public:
  explicit FormulaRegisters(int32_t variables) : size_(variables) {}
  /// Whether register `reg` is a constant, with its value.
  bool IsConstant(int32_t reg, int64_t* value) const {
    for (const auto& [r, v] : constants_)
      if (r == reg) return *value = v, true;
    return false;
  }
  /// The register holding `value` (one per distinct constant).
  int32_t Constant(int64_t value);
  /// A fresh register for an intermediate value.
  int32_t Temporary() { return size_++; }
  int32_t size() const { return size_; }
  /// Writes the constants into `registers` (size() of them): once per run.
  void Fill(int64_t* registers) const {
    for (const auto& [reg, value] : constants_) registers[reg] = value;
  }

 private:
  int32_t size_;
  std::vector<std::pair<int32_t, int64_t>> constants_;
};

class FormulaProgram {
 public:
  /// How a run ends: every instruction done, a test that was 0, or an
  /// operation that failed (its formula's index and the error given).
  enum Status : uint8_t { kDone, kRejected, kFailed };

  /// Appends `e` (parsed or bound against the registers' variables), its
  /// value into register `dst`. `formula` is what a failure names.
  void Assign(const Expr& e, int32_t dst, int32_t formula, FormulaRegisters* regs);
  /// Appends `e` as a test: where it is 0 the run stops (kRejected).
  void Require(const Expr& e, int32_t formula, FormulaRegisters* regs);
  /// Appends the register holding `e`'s value (a variable's own, a
  /// constant's, or a fresh one written by the instructions appended).
  int32_t Value(const Expr& e, int32_t formula, FormulaRegisters* regs);

  bool empty() const { return code_.empty(); }

  /// Lanes: the program run over up to kLanes tokens at once, each register
  /// an array (lanes[reg * kLanes + lane]), so that the cost of reading an
  /// instruction is paid once per kLanes tokens. A program with && or ||
  /// does not run over lanes.
  static constexpr int kLanes = 64;
  /// Readies the program for lanes: `varying` are the registers the caller
  /// sets per lane; every other register it reads before writing it is the
  /// same in every lane (Broadcast copies it). False when it cannot run
  /// over lanes.
  ///
  /// `affine` (at most kAffineInputs of `varying`) are inputs whose lane k
  /// holds base + k, a base RunLanes is given: a sum or difference of such
  /// a value and a uniform one is kept as its base alone, and a comparison
  /// of one with a uniform value marks a range of lanes, where every reader
  /// of the value allows it. `kept` are the registers read after the
  /// program, which it leaves as lanes.
  static constexpr int kAffineInputs = 3;
  bool PrepareLanes(const std::vector<int32_t>& varying, const std::vector<int32_t>& affine = {},
                    const std::vector<int32_t>& kept = {});
  /// Whether an instruction reads register `reg` from its lanes (not as
  /// one of the `affine` inputs kept as a base).
  bool ReadsLanes(int32_t reg) const;
  bool lanes_ok() const { return lanes_ok_; }
  /// Whether an instruction reads register `reg`.
  bool Reads(int32_t reg) const {
    for (const Instr& in : code_)
      if (in.a == reg || (in.b == reg && in.op != kNeg && in.op != kNot && in.op != kBool && in.op != kCopy &&
                          in.op != kRequire && in.op != kJumpIfZero && in.op != kJumpIfNonZero))
        return true;
    return false;
  }
  /// The registers its instructions write.
  std::vector<int32_t> Writes() const {
    std::vector<int32_t> out;
    for (const Instr& in : code_)
      if (in.op != kRequire && in.op != kJumpIfZero && in.op != kJumpIfNonZero) out.push_back(in.dst);
    return out;
  }
  /// Copies the lane-invariant inputs it reads as lanes from `r` (the
  /// registers) into n lanes. An operation's right-hand input that is the
  /// same in every lane (a constant, a parameter, a request's variable) and
  /// that the program never writes is read from `r` itself by RunLanes.
  void Broadcast(const int64_t* r, int64_t* lanes, int n) const {
    for (int32_t reg : broadcast_) {
      int64_t* lane = lanes + static_cast<size_t>(reg) * kLanes;
      const int64_t value = r[reg];
      for (int i = 0; i < n; ++i) lane[i] = value;
    }
  }
  /// Runs over n lanes: rejected[lane] |= 1 where a test is 0. False when
  /// an operation fails on any lane, rejected or not (the caller then runs
  /// those tokens one at a time, which says which failure comes first).
  /// `r` are the registers Broadcast read, as they were then.
  /// `affine_base`: the bases of PrepareLanes' `affine` inputs, in order
  /// (lane k of input j is affine_base[j] + k); their lanes are read only
  /// where ReadsLanes says so.
  bool RunLanes(const int64_t* r, int64_t* lanes, int n, uint8_t* rejected,
                const int64_t* affine_base = nullptr) const;

  /// Whether the program is one comparison of register `a` with a value
  /// the same in every lane (read from `r`), into register `dst`: then that
  /// value is ((x >= *lo) & (x <= *hi)) ^ *invert for x in register a. What
  /// a caller that reads register a itself evaluates inline (pad_entry's
  /// `entry <= 0`) instead of running the program over lanes.
  bool AsRange(int32_t a, int32_t dst, const int64_t* r, int64_t* lo, int64_t* hi, bool* invert) const {
    return code_.size() == 1 && InstrAsRange(0, a, dst, r, lo, hi, invert);
  }
  /// The same of its instruction i alone (a program of such comparisons, each
  /// into a register of its own, is evaluated one comparison at a time).
  bool InstrAsRange(size_t i, int32_t a, int32_t dst, const int64_t* r, int64_t* lo, int64_t* hi,
                    bool* invert) const;
  size_t size() const { return code_.size(); }

  /// Runs the program over `r` (every register, constants filled). On
  /// kFailed, *formula and *error say which formula failed and how.
  Status Run(int64_t* r, int32_t* formula, ExprError* error) const;

  /// The multiplier that divides a dividend n >= 0 by the constant d
  /// without a division (d >= 3, not a power of two; false for others), and
  /// the quotient by it: MagicDivide(n, magic, shift) == n / d for every
  /// 0 <= n <= INT64_MAX.
  static bool SetMagic(int64_t d, uint64_t* magic, uint8_t* shift);
  static int64_t MagicDivide(int64_t n, uint64_t magic, uint8_t shift);

 private:
  enum Op : uint8_t {
    // Expr's binary operations keep their numbers (Expr::kAdd .. Expr::kMod).
    kNeg = 64, kNot, kBool, kCopy,
    kJumpIfZero,     // a == 0: go to target
    kJumpIfNonZero,  // a != 0: go to target
    kRequire,        // a == 0: stop, rejected
    // Specialized by shape: / % and mod by a constant power of two (b's
    // register holds it), which need no division and cannot fail.
    kDivPow2, kRemPow2, kModPow2,
  };
  struct Instr {
    uint8_t op = 0;
    bool b_uniform = false;  // over lanes: b is read from the registers, not from its lanes
    /// Over lanes: a comparison whose value only the next instruction, a
    /// test, reads marks the rejected lanes itself (lanes_rejects), and the
    /// test is skipped (lanes_skip); its register is not written.
    bool lanes_rejects = false, lanes_skip = false;
    bool a_temporary = false;  // a test's: a is a register its formula alone writes and reads
    bool a_non_negative = false;  // over lanes: a is never negative there (a mod by a constant, a comparison...)
    /// Over lanes, where a is affine (PrepareLanes): + or - of a uniform b
    /// gives dst's base; a comparison with a uniform b marks a range of
    /// lanes (rejected, or 0 and 1 into dst); / % and mod by a uniform b
    /// count their way along the lanes (or write a's lanes out first).
    enum Affine : uint8_t { kNotAffine, kAffineAdd, kAffineSub, kAffineReject, kAffineCompare, kAffineDivMod };
    uint8_t affine = kNotAffine;
    int8_t a_base = -1, dst_base = -1;  // their bases' indices
    uint8_t magic_shift = 0;
    int32_t formula = 0;
    int32_t dst = 0;
    int32_t a = 0;
    int32_t b = 0;
    int32_t target = 0;  // a jump's instruction
    /// / % and mod by a constant d >= 3 that is not a power of two: a
    /// dividend n >= 0 gives n / d = mulhi(n, magic) >> magic_shift (no
    /// division); 0 when b is no such constant.
    uint64_t magic = 0;
  };
  int32_t Node(const Expr& e, int32_t node, int32_t formula, FormulaRegisters* regs);
  void PrepareAffine(const std::vector<int32_t>& varying, const std::vector<int32_t>& affine,
                     const std::vector<int32_t>& kept);
  /// An affine instruction over n lanes (`base`: the affine values' bases;
  /// `d`: its register's lanes): done, failed on a lane (an overflow, a
  /// division by zero), or a's lanes to be written out and the operation
  /// run on them.
  enum AffineEnd : uint8_t { kAffineDone, kAffineFailed, kAffineWriteOut };
  static AffineEnd AffineStep(const Instr& in, int64_t b, int n, int64_t* base, int64_t* d, uint8_t* rejected);
  void Emit(uint8_t op, int32_t dst, int32_t a, int32_t b, int32_t formula);

  std::vector<Instr> code_;
  bool lanes_ok_ = false;
  std::vector<int32_t> uniform_inputs_;
  std::vector<int32_t> broadcast_;  // the uniform inputs read as lanes
  std::vector<int32_t> affine_inputs_;
  int affine_bases_ = 0;  // the affine inputs' bases, then the values kept as bases
  static constexpr int kMaxAffine = 8;
};

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_FORMULA_PROGRAM_H_
