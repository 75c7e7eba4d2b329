// The compiled programs (family/formula_program.h) give what Expr::Evaluate
// gives, value and error, one token at a time and over lanes: the
// divisions by a power of two that need no division included, on negative
// dividends and INT64_MIN.
#include "family/formula_program.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slotguard {
namespace {

const std::vector<std::string> kNames = {"a", "b", "c"};

const int64_t kValues[] = {0, 1, -1, 2, -2, 3, 7, -7, 15, 16, -16, -17, 17, 100, -100, 1 << 20,
                           INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};

const char* const kFormulas[] = {
    "a / 16", "a % 16", "mod(a, 16)", "a / 1", "a % 1", "mod(a, 1)", "a / 2", "a % 2", "mod(a, 2)",
    "a / 4611686018427387904", "a % 4611686018427387904", "mod(a, 4611686018427387904)",
    "a / 3", "a % 3", "mod(a, 3)", "a / b", "a % b", "mod(a, b)", "cdiv(a, b)", "cdiv(a, 16)",
    "a + b", "a - b", "a * b", "-a", "!a", "a == b", "a != b", "a < b", "a <= b", "a > b", "a >= b",
    "min(a, b)", "max(a, b)", "a / 16 * 16 + a % 16", "(a + 1) % 4 == 0", "a / b + c / 0", "a * b / c",
    "a && b", "a || b / c", "a && b / 0 || c", "!(a < b) && c >= 0", "b * c + a / (b - c)",
    // Divisions of values never negative (a mod by a constant), which skip the test of their lanes' signs.
    "mod(a, 16) / 4", "mod(a, 16) % 4", "mod(a, 7) / 3", "mod(a, 7) % 3", "mod(a, 5) / 2 % 3", "(a < b) / 3",
    "a % 7 / 3", "a % 16 / 4", "a % 5 % 3", "mod(a, b) / 3", "mod(a, b) % 16",
};

/// What Evaluate gives: the value, or the error.
std::string Evaluated(const Expr& e, const int64_t* vars) {
  int64_t value = 0;
  ExprError error = ExprError::kNone;
  if (!e.Evaluate(vars, &value, &error)) return ExprErrorText(error);
  return std::to_string(value);
}

TEST(FormulaProgramTest, RunGivesWhatEvaluateGives) {
  for (const char* text : kFormulas) {
    Expr e;
    std::string err;
    ASSERT_TRUE(e.Parse(text, kNames, &err)) << text << ": " << err;
    for (const bool bound : {false, true}) {
      // Bound: c is the constant 5, as a group's parameters are bound.
      const Expr f = bound ? e.Bind({std::nullopt, std::nullopt, 5}) : e;
      FormulaRegisters regs(3);
      FormulaProgram p;
      const int32_t dst = regs.Temporary();
      p.Assign(f, dst, 7, &regs);
      std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
      regs.Fill(r.data());
      for (int64_t a : kValues)
        for (int64_t b : kValues) {
          r[0] = a;
          r[1] = b;
          r[2] = bound ? 5 : -3;
          int32_t formula = -1;
          ExprError error = ExprError::kNone;
          const FormulaProgram::Status status = p.Run(r.data(), &formula, &error);
          ASSERT_NE(FormulaProgram::kRejected, status);
          const std::string got =
              status == FormulaProgram::kDone ? std::to_string(r[static_cast<size_t>(dst)]) : ExprErrorText(error);
          ASSERT_EQ(Evaluated(f, r.data()), got) << text << " with a = " << a << ", b = " << b;
          if (status == FormulaProgram::kFailed) EXPECT_EQ(7, formula);
        }
    }
  }
}

TEST(FormulaProgramTest, LanesGiveWhatEvaluateGivesOrRefuse) {
  // a varies per lane; b too, or it is the same in every lane (read from
  // the registers, its lanes never written); c is always the same.
  for (const bool b_varies : {true, false})
    for (const char* text : kFormulas) {
      Expr e;
      std::string err;
      ASSERT_TRUE(e.Parse(text, kNames, &err)) << text << ": " << err;
      FormulaRegisters regs(3);
      FormulaProgram p;
      const int32_t dst = regs.Temporary();
      p.Assign(e, dst, 0, &regs);
      const bool jumps = std::string(text).find("&&") != std::string::npos ||
                         std::string(text).find("||") != std::string::npos;
      ASSERT_EQ(!jumps, p.PrepareLanes(b_varies ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{0})) << text;
      if (jumps) continue;
      std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
      regs.Fill(r.data());
      r[2] = -3;
      std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
      for (int64_t b : kValues) {
        // One lane per value of a, b the same in each.
        const int n = static_cast<int>(sizeof kValues / sizeof kValues[0]);
        r[1] = b_varies ? 12345 : b;
        for (int k = 0; k < n; ++k) {
          lanes[static_cast<size_t>(k)] = kValues[k];
          lanes[FormulaProgram::kLanes + static_cast<size_t>(k)] = b_varies ? b : 12345;
        }
        p.Broadcast(r.data(), lanes.data(), n);
        uint8_t rejected[FormulaProgram::kLanes] = {};
        const bool ran = p.RunLanes(r.data(), lanes.data(), n, rejected);
        bool any_fails = false;
        for (int k = 0; k < n; ++k) {
          const int64_t vars[3] = {kValues[k], b, -3};
          const std::string want = Evaluated(e, vars);
          const bool fails = want == ExprErrorText(ExprError::kOverflow) ||
                             want == ExprErrorText(ExprError::kDivisionByZero);
          any_fails = any_fails || fails;
          if (ran) {
            ASSERT_FALSE(fails) << text << ": lanes ran where a = " << kValues[k] << ", b = " << b << " fails";
            ASSERT_EQ(want, std::to_string(lanes[static_cast<size_t>(dst) * FormulaProgram::kLanes + k]))
                << text << " with a = " << kValues[k] << ", b = " << b << (b_varies ? "" : " (uniform)");
          }
        }
        // Lanes refuse exactly when some lane fails: the caller then runs them one at a time.
        EXPECT_EQ(any_fails, !ran) << text << " with b = " << b << (b_varies ? "" : " (uniform)");
      }
    }
}

TEST(FormulaProgramTest, AConstantDivisorsMultiplierDividesEveryNonNegativeDividend) {
  // Powers of two and divisors below 3 have none (a shift, or no division).
  uint64_t magic = 0;
  uint8_t shift = 0;
  for (int64_t d : std::vector<int64_t>{-3, -1, 0, 1, 2, 4, 64, int64_t{1} << 62})
    EXPECT_FALSE(FormulaProgram::SetMagic(d, &magic, &shift)) << d;
  const int64_t divisors[] = {3, 5, 6, 7, 10, 12, 24, 100, 641, 1000003, (int64_t{1} << 31) - 1, (int64_t{1} << 31) + 1,
                              (int64_t{1} << 32) + 1, (int64_t{1} << 62) - 1, (int64_t{1} << 62) + 1, INT64_MAX - 1,
                              INT64_MAX};
  uint64_t x = 88172645463325252ull;  // xorshift: dividends spread over every magnitude
  for (int64_t d : divisors) {
    ASSERT_TRUE(FormulaProgram::SetMagic(d, &magic, &shift)) << d;
    std::vector<int64_t> dividends = {0, 1, d - 1, d, d < INT64_MAX ? d + 1 : d, 2 * (d / 2), INT64_MAX, INT64_MAX - 1,
                                      INT64_MAX / d * d, INT64_MAX / d * d - 1};
    for (int k = 0; k < 2000; ++k) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      dividends.push_back(static_cast<int64_t>(x >> (1 + k % 63)));
      dividends.push_back(static_cast<int64_t>((x >> (1 + k % 63)) / static_cast<uint64_t>(d)) * d);  // a multiple
    }
    for (int64_t n : dividends) {
      if (n < 0) continue;
      ASSERT_EQ(n / d, FormulaProgram::MagicDivide(n, magic, shift)) << n << " / " << d;
    }
  }
}

TEST(FormulaProgramTest, LanesOfNonNegativeDividendsGiveWhatEvaluateGives) {
  // Lanes whose dividends are all >= 0 divide by a constant without a
  // division (a multiplier, a shift or a mask): the same values.
  const int64_t values[] = {0, 1, 2, 3, 5, 7, 15, 16, 17, 100, 1 << 20, 4611686018427387903, 4611686018427387904,
                            INT64_MAX - 1, INT64_MAX};
  const int n = static_cast<int>(sizeof values / sizeof values[0]);
  for (const char* text : {"a / 3", "a % 3", "mod(a, 3)", "a / 7", "a % 7", "mod(a, 7)", "a / 1000003",
                           "a % 1000003", "a / 16", "a % 16", "mod(a, 16)", "a / 9223372036854775807",
                           "a % 9223372036854775807", "a / 6 * 6 + a % 6"}) {
    Expr e;
    std::string err;
    ASSERT_TRUE(e.Parse(text, kNames, &err)) << text << ": " << err;
    FormulaRegisters regs(3);
    FormulaProgram p;
    const int32_t dst = regs.Temporary();
    p.Assign(e, dst, 0, &regs);
    ASSERT_TRUE(p.PrepareLanes({0})) << text;
    std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
    regs.Fill(r.data());
    std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
    for (int k = 0; k < n; ++k) lanes[static_cast<size_t>(k)] = values[k];
    p.Broadcast(r.data(), lanes.data(), n);
    uint8_t rejected[FormulaProgram::kLanes] = {};
    ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), n, rejected)) << text;
    for (int k = 0; k < n; ++k) {
      const int64_t vars[3] = {values[k], 0, 0};
      ASSERT_EQ(Evaluated(e, vars), std::to_string(lanes[static_cast<size_t>(dst) * FormulaProgram::kLanes + k]))
          << text << " with a = " << values[k];
    }
  }
}

TEST(FormulaProgramTest, ATestStopsTheRunAndLanesMarkIt) {
  Expr keep, value;
  std::string err;
  ASSERT_TRUE(keep.Parse("a >= 0", kNames, &err)) << err;
  ASSERT_TRUE(value.Parse("a / b", kNames, &err)) << err;
  FormulaRegisters regs(3);
  FormulaProgram p;
  p.Require(keep, 1, &regs);
  p.Assign(value, 2, 2, &regs);
  std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
  regs.Fill(r.data());
  int32_t formula = -1;
  ExprError error = ExprError::kNone;
  r[0] = -4;
  r[1] = 0;  // a / b would divide by zero, but the test stops the run first
  EXPECT_EQ(FormulaProgram::kRejected, p.Run(r.data(), &formula, &error));
  r[0] = 4;
  EXPECT_EQ(FormulaProgram::kFailed, p.Run(r.data(), &formula, &error));
  EXPECT_EQ(2, formula);
  EXPECT_EQ(ExprError::kDivisionByZero, error);
  r[1] = 2;
  EXPECT_EQ(FormulaProgram::kDone, p.Run(r.data(), &formula, &error));
  EXPECT_EQ(2, r[2]);
  // Over lanes: the rejected lane is marked, the other computed.
  ASSERT_TRUE(p.PrepareLanes({0}));
  std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
  lanes[0] = -4;
  lanes[1] = 6;
  p.Broadcast(r.data(), lanes.data(), 2);
  uint8_t rejected[FormulaProgram::kLanes] = {};
  ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), 2, rejected));
  EXPECT_EQ(1, rejected[0]);
  EXPECT_EQ(0, rejected[1]);
  EXPECT_EQ(3, lanes[2 * FormulaProgram::kLanes + 1]);
}

TEST(FormulaProgramTest, ComparisonsAsTestsOverLanesRejectWhatRunRejects) {
  // A comparison that only a test reads marks the rejected lanes itself:
  // the same lanes as Run rejects, its right-hand side over lanes (b) or
  // one value (7).
  const int n = static_cast<int>(sizeof kValues / sizeof kValues[0]);
  for (const char* text : {"a == b", "a != b", "a < b", "a <= b", "a > b", "a >= b", "a == 7", "a != 7", "a < 7",
                           "a <= 7", "a > 7", "a >= 7"}) {
    Expr e;
    std::string err;
    ASSERT_TRUE(e.Parse(text, kNames, &err)) << text << ": " << err;
    FormulaRegisters regs(3);
    FormulaProgram p;
    p.Require(e, 0, &regs);
    ASSERT_TRUE(p.PrepareLanes({0, 1})) << text;
    std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
    regs.Fill(r.data());
    std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
    for (int k = 0; k < n; ++k) {
      lanes[static_cast<size_t>(k)] = kValues[k];
      lanes[FormulaProgram::kLanes + static_cast<size_t>(k)] = kValues[(k * 7 + 3) % n];
    }
    p.Broadcast(r.data(), lanes.data(), n);
    uint8_t rejected[FormulaProgram::kLanes] = {};
    ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), n, rejected)) << text;
    for (int k = 0; k < n; ++k) {
      std::vector<int64_t> one = r;
      one[0] = kValues[k];
      one[1] = kValues[(k * 7 + 3) % n];
      int32_t formula = -1;
      ExprError error = ExprError::kNone;
      EXPECT_EQ(p.Run(one.data(), &formula, &error) == FormulaProgram::kRejected, rejected[k] != 0)
          << text << " with a = " << one[0] << ", b = " << one[1];
    }
  }
}

TEST(FormulaProgramTest, ALetTestedOverLanesKeepsItsValue) {
  // c = a >= 0, then the test c: c is a variable the lanes' readers read
  // after the run, so the comparison still writes it.
  Expr let, test;
  std::string err;
  ASSERT_TRUE(let.Parse("a >= 0", kNames, &err)) << err;
  ASSERT_TRUE(test.Parse("c", kNames, &err)) << err;
  FormulaRegisters regs(3);
  FormulaProgram p;
  p.Assign(let, 2, 0, &regs);
  p.Require(test, 1, &regs);
  ASSERT_TRUE(p.PrepareLanes({0}));
  std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
  regs.Fill(r.data());
  std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, -9);
  lanes[0] = -4;
  lanes[1] = 6;
  p.Broadcast(r.data(), lanes.data(), 2);
  uint8_t rejected[FormulaProgram::kLanes] = {};
  ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), 2, rejected));
  EXPECT_EQ(1, rejected[0]);
  EXPECT_EQ(0, rejected[1]);
  EXPECT_EQ(0, lanes[2 * FormulaProgram::kLanes + 0]);
  EXPECT_EQ(1, lanes[2 * FormulaProgram::kLanes + 1]);
}

TEST(FormulaProgramTest, AffineLanesGiveWhatTheirLanesGive) {
  // a is affine (lane k holds base + k, only the base given), b and c the
  // same in every lane: the tests reject the lanes, and the kept values
  // hold the values, that the lanes written out give; a lane that overflows
  // or divides by zero refuses the run either way.
  struct Case {
    std::vector<const char*> tests, kept;  // Require'd, and assigned to registers read after the program
  };
  const std::vector<Case> cases = {
      {{"a >= b"}, {}}, {{"a > b"}, {}}, {{"a < b"}, {}}, {{"a <= b"}, {}}, {{"a == b"}, {}}, {{"a != b"}, {}},
      {{"a + b >= c"}, {}}, {{"a - b < c"}, {}}, {{"a + b + c >= 0"}, {}}, {{"a + 5 != c"}, {}},
      {{"a - c == b"}, {}}, {{"a >= 0", "a + b >= c"}, {}}, {{}, {"a >= b", "a + b < c", "a - c != b"}},
      {{}, {"a + b", "(a + b) * 2", "a + b - c >= 0"}}, {{"a * 2 > b"}, {"a / 3"}},
      {{}, {"a / 5", "a % 5", "mod(a, 5)", "a / 16", "a % 16", "mod(a, 16)"}},
      {{}, {"a / b", "a % b", "mod(a, b)", "(a + b) / 4", "mod(a - c, 7)", "(a + c) % b"}},
      {{"mod(a, b) == 0", "(a + 1) % c == 0"}, {"a / c + 1"}},
  };
  const int64_t uniforms[] = {0, 1, -1, 5, -5, 63, 64, 1000, INT64_MAX, INT64_MIN, INT64_MAX - 40, INT64_MIN + 40};
  for (const Case& c : cases) {
    FormulaRegisters regs(3);
    FormulaProgram affine;
    std::vector<int32_t> kept;
    std::string err, text;
    for (const char* t : c.tests) {
      Expr e;
      ASSERT_TRUE(e.Parse(t, kNames, &err)) << t << ": " << err;
      affine.Require(e, 0, &regs);
      text += std::string(t) + "; ";
    }
    for (const char* t : c.kept) {
      Expr e;
      ASSERT_TRUE(e.Parse(t, kNames, &err)) << t << ": " << err;
      kept.push_back(regs.Temporary());
      affine.Assign(e, kept.back(), 0, &regs);
      text += std::string("kept ") + t + "; ";
    }
    FormulaProgram lanes = affine;
    ASSERT_TRUE(affine.PrepareLanes({0}, {0}, kept)) << text;
    ASSERT_TRUE(lanes.PrepareLanes({0})) << text;
    std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
    regs.Fill(r.data());
    for (const int n : {1, 2, 7, FormulaProgram::kLanes})
      for (int64_t b : uniforms)
        for (int64_t cv : uniforms) {
          // b - 1, b - n and cv - b wrap around (any base does where its last lane fits).
          auto minus = [](int64_t x, int64_t y) {
            return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
          };
          const int64_t bases[] = {0,  -3, 5, -70, b, minus(b, 1), minus(b, n), cv, minus(cv, b), INT64_MAX - (n - 1),
                                   INT64_MIN, INT64_MIN + 10};
          for (int64_t base : bases) {
            int64_t last;
            if (__builtin_add_overflow(base, n - 1, &last)) continue;  // no such input lanes
            r[1] = b;
            r[2] = cv;
            std::vector<int64_t> want(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
            for (int k = 0; k < n; ++k) want[static_cast<size_t>(k)] = base + k;
            std::vector<int64_t> got = want;
            for (int k = 0; k < n; ++k) got[static_cast<size_t>(k)] = -999;  // a's lanes unread where affine
            uint8_t want_rejected[FormulaProgram::kLanes] = {}, got_rejected[FormulaProgram::kLanes] = {};
            lanes.Broadcast(r.data(), want.data(), n);
            affine.Broadcast(r.data(), got.data(), n);
            if (affine.ReadsLanes(0))
              for (int k = 0; k < n; ++k) got[static_cast<size_t>(k)] = base + k;
            const bool want_ran = lanes.RunLanes(r.data(), want.data(), n, want_rejected);
            const bool got_ran = affine.RunLanes(r.data(), got.data(), n, got_rejected, &base);
            const std::string where = text + "n = " + std::to_string(n) + ", base = " + std::to_string(base) +
                                      ", b = " + std::to_string(b) + ", c = " + std::to_string(cv);
            ASSERT_EQ(want_ran, got_ran) << where;
            if (!want_ran) continue;
            for (int k = 0; k < n; ++k) {
              ASSERT_EQ(want_rejected[k], got_rejected[k]) << where << ", lane " << k;
              for (int32_t reg : kept)
                ASSERT_EQ(want[static_cast<size_t>(reg) * FormulaProgram::kLanes + k],
                          got[static_cast<size_t>(reg) * FormulaProgram::kLanes + k])
                    << where << ", lane " << k << ", register " << reg;
            }
          }
        }
  }
}

TEST(FormulaProgramTest, AnAffineQuotientEndsAtInt64Max) {
  // a / b and a / 1 of lanes INT64_MAX - (n - 1) .. INT64_MAX, counted along
  // the lanes: lane k's quotient is a's value itself. The count once went
  // one past the last lane (INT64_MAX + 1, a signed overflow that
  // -fsanitize=undefined reports) though no lane reads it.
  for (const char* text : {"a / b", "a / 1"}) {
    FormulaRegisters regs(3);
    FormulaProgram p;
    Expr e;
    std::string err;
    ASSERT_TRUE(e.Parse(text, kNames, &err)) << err;
    const int32_t dst = regs.Temporary();
    p.Assign(e, dst, 0, &regs);
    ASSERT_TRUE(p.PrepareLanes({0}, {0}, {dst}));
    ASSERT_FALSE(p.ReadsLanes(0)) << text;  // counted along the lanes, a's lanes never read
    std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
    regs.Fill(r.data());
    r[1] = 1;
    for (const int n : {1, 2, FormulaProgram::kLanes}) {
      const int64_t base = INT64_MAX - (n - 1);
      std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
      uint8_t rejected[FormulaProgram::kLanes] = {};
      p.Broadcast(r.data(), lanes.data(), n);
      ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), n, rejected, &base)) << text << ", n = " << n;
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ(0, rejected[k]);
        EXPECT_EQ(base + k, lanes[static_cast<size_t>(dst) * FormulaProgram::kLanes + k]) << text << ", lane " << k;
      }
    }
  }
}

TEST(FormulaProgramTest, AnAffineInputIsReadAsLanesOnlyWhereAnOperationNeedsThem) {
  auto reads_lanes = [](std::vector<const char*> tests, std::vector<const char*> kept) {
    FormulaRegisters regs(3);
    FormulaProgram p;
    std::vector<int32_t> out;
    std::string err;
    for (const char* t : tests) {
      Expr e;
      EXPECT_TRUE(e.Parse(t, kNames, &err)) << err;
      p.Require(e, 0, &regs);
    }
    for (const char* t : kept) {
      Expr e;
      EXPECT_TRUE(e.Parse(t, kNames, &err)) << err;
      out.push_back(regs.Temporary());
      p.Assign(e, out.back(), 0, &regs);
    }
    EXPECT_TRUE(p.PrepareLanes({0}, {0}, out));
    return p.ReadsLanes(0);
  };
  EXPECT_FALSE(reads_lanes({"a >= 0", "a + b >= c"}, {}));  // qsa_ring's selects: ranges of lanes
  EXPECT_FALSE(reads_lanes({}, {"a - b < c"}));              // a comparison kept: 0s and 1s written
  EXPECT_TRUE(reads_lanes({}, {"a + b"}));                   // the sum itself is kept: its lanes written
  EXPECT_TRUE(reads_lanes({"a * 2 > b"}, {}));
  EXPECT_FALSE(reads_lanes({"(a + b) / 4 > c"}, {}));  // a division counts its way along the lanes
  EXPECT_FALSE(reads_lanes({}, {"mod(a, b)"}));
  EXPECT_TRUE(reads_lanes({"b < a"}, {}));  // a on the right: not affine
}

TEST(FormulaProgramTest, AnAffineInputTheProgramWritesIsNotKeptAsABase) {
  // a = a + 1 (a let over the input itself), then a >= b: the comparison
  // reads the new a, which its old base no longer describes. Over lanes
  // the run gives what Run gives token by token.
  Expr bump, test;
  std::string err;
  ASSERT_TRUE(bump.Parse("a + 1", kNames, &err)) << err;
  ASSERT_TRUE(test.Parse("a >= b", kNames, &err)) << err;
  FormulaRegisters regs(3);
  FormulaProgram p;
  p.Assign(bump, 0, 0, &regs);
  p.Require(test, 1, &regs);
  ASSERT_TRUE(p.PrepareLanes({0}, {0}, {0}));
  EXPECT_TRUE(p.ReadsLanes(0));
  std::vector<int64_t> r(static_cast<size_t>(regs.size()), 0);
  regs.Fill(r.data());
  r[1] = 5;
  std::vector<int64_t> lanes(static_cast<size_t>(regs.size()) * FormulaProgram::kLanes, 0);
  const int n = 8;
  const int64_t base = 0;
  for (int k = 0; k < n; ++k) lanes[static_cast<size_t>(k)] = base + k;
  p.Broadcast(r.data(), lanes.data(), n);
  uint8_t rejected[FormulaProgram::kLanes] = {};
  ASSERT_TRUE(p.RunLanes(r.data(), lanes.data(), n, rejected, &base));
  for (int k = 0; k < n; ++k) EXPECT_EQ(k + 1 < 5, rejected[k] != 0) << "lane " << k;  // a + 1 >= 5 from lane 4 on
}

}  // namespace
}  // namespace slotguard
