// The host backend in every table layout (plan/table_memory.h): the fixed
// kernels give the padded layout's outputs on the curated scenarios, and the
// unguarded paged kernel's read past its row is caught in each layout.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "registry/families.h"
#include "registry/invariants.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

const TableLayoutKind kLayouts[] = {TableLayoutKind::kPadded, TableLayoutKind::kTight, TableLayoutKind::kStrided};

std::vector<GroupOutputs> RunOn(Backend& backend, const Scenario& s) {
  std::vector<GroupOutputs> out;
  std::string err;
  EXPECT_TRUE(backend.Run(s, &out, &err)) << err;
  return out;
}

TEST(HostLayoutsTest, FixedKernelsGiveThePaddedOutputsInEveryLayout) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  int checked = 0;
  for (Scenario s : CuratedScenarios()) {
    for (Group& g : s.groups) g.variant = FixedVariant(g.family);
    s.table_layout = TableLayoutKind::kPadded;
    const std::vector<GroupOutputs> padded = RunOn(*host, s);
    for (TableLayoutKind kind : kLayouts) {
      Scenario laid = s;
      laid.table_layout = kind;
      const std::vector<GroupOutputs> out = RunOn(*host, laid);
      ASSERT_EQ(padded.size(), out.size());
      for (size_t g = 0; g < out.size(); ++g) {
        const std::string where = s.name + " group " + s.groups[g].name + " " + TableLayoutName(kind);
        EXPECT_EQ(padded[g].engine, out[g].engine) << where;
        EXPECT_EQ(padded[g].flat, out[g].flat) << where;
        EXPECT_EQ(padded[g].read_past_row, out[g].read_past_row) << where;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 3 * 20);  // scenarios/paged and scenarios/rings
}

TEST(HostLayoutsTest, CuratedScenariosHoldInEveryLayout) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (const Scenario& s : CuratedScenarios()) {
    // Reads past a row differ between layouts: only the fixed kernels' files.
    bool fixed = true;
    for (const Group& g : s.groups) fixed &= g.variant == FixedVariant(g.family);
    if (!fixed) continue;
    for (TableLayoutKind kind : kLayouts) {
      Scenario laid = s;
      laid.table_layout = kind;
      const ScenarioReport report = CheckScenario(laid, s.name, *host, 1);
      EXPECT_TRUE(report.holds) << s.name << " " << TableLayoutName(kind) << ": " << report.verdict;
    }
  }
}

TEST(HostLayoutsTest, TheUnguardedReadPastTheRowIsCaughtInEveryLayout) {
  // Request 0 reads col 2 of its 2-column row [3, 5]; request 1 owns [6, 2].
  const Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "t", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 4, 6], "positions": [6, 7, 8, 9, 4, 5]},
    "groups": [{"name": "attn", "kernel": "paged", "variant": "unguarded", "block_size": 4,
                "block_table": [[3, 5], [6, 2]]}]})");
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (TableLayoutKind kind : kLayouts) {
    Scenario laid = s;
    laid.table_layout = kind;
    const ScenarioReport report = CheckScenario(laid, "t.json", *host, 1);
    ASSERT_EQ(1u, report.groups.size());
    const std::map<std::string, int64_t>& counts = report.groups[0].counts;
    auto fired = [&](const char* name) { return counts.count(name) ? counts.at(name) : 0; };
    // The host instruments every read: tokens 2 and 3, in every layout.
    EXPECT_EQ(2, fired(kInvariantRowBounds)) << TableLayoutName(kind);
    EXPECT_GT(fired(kInvariantDifferential), 0) << TableLayoutName(kind);
    // What the read returned is a block request 0 does not own: poison
    // (padded), request 1's block 6 (tight) or a filler (strided).
    EXPECT_GT(fired(kInvariantOwnBlock), 0) << TableLayoutName(kind);
    std::vector<GroupOutputs> out = RunOn(*host, laid);
    if (kind == TableLayoutKind::kTight) {
      EXPECT_EQ(24, out[0].engine[0][2]);  // block 6, offset 0
      EXPECT_EQ(25, out[0].engine[0][3]);
    }
  }
}

}  // namespace
}  // namespace slotguard
