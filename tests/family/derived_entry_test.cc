// A group derived from another group's output (docs/family-format.md,
// "Derived groups"): the `entry` knob over `linked` replaces the table read.
// The loader's refusals, the interpreter's slots worked out by hand from
// vLLM HiSparse's kernel, and the scenario loader's pairing with the source.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "family/family_file.h"
#include "family/family_plan.h"
#include "family/group_model.h"
#include "scenario/scenario_json.h"
#include "registry/families.h"
#include "scenario/load_limits.h"

namespace slotguard {
namespace {

const std::string kHead =
    R"("slotguard_family": 1, "name": "x", "meaning": "m",
       "params": [{"name": "src", "type": "group", "family": "paged", "meaning": "s"},
                  {"name": "l", "meaning": "logical block", "min": 1, "example": 8},
                  {"name": "cr", "meaning": "ratio", "min": 1, "example": 4, "divides": "l"},
                  {"name": "s", "meaning": "storage block", "min": 1, "example": 2}], )";
const std::string kDerive =
    R"("dummy": "row", "gate": {"group": "src", "pad_if": "linked < 0"}, "select": ["(pos + 1) % cr == 0"],
       "entry": "linked / l", "offset": "linked % l / cr", "page": "s")";

std::string Error(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << body;
  return err;
}

FamilyDesc Load(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_TRUE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << err;
  return d;
}

TEST(DerivedEntryTest, TheLoaderRefusesAnEntryItCannotDerive) {
  EXPECT_EQ("f.json:/entry: a derived entry without a \"gate\": nothing names the group whose slot it reads; "
            "expected \"gate\": {\"group\": P} naming the group parameter of the source group",
            Error(R"("select": ["(pos + 1) % cr == 0"], "entry": "linked / l", "offset": "linked % l / cr",
                     "page": "s", "writer": {"kind": "paged", "gate": {"group": "src"}})"));
  EXPECT_EQ("f.json:/column: \"column\" beside \"entry\": a derived entry reads no table column; expected either "
            "\"entry\" (from the linked group's slot) or \"column\" and the row's knobs",
            Error(kDerive + R"(, "column": "pos / l")"));
  EXPECT_EQ("f.json:/range: \"range\" beside \"entry\": a derived entry reads no table column; expected either "
            "\"entry\" (from the linked group's slot) or \"column\" and the row's knobs",
            Error(kDerive + R"(, "range": "clamp")"));
  // `entry` reads linked, not itself.
  EXPECT_EQ("f.json:/entry: 'entry' cannot be read here (formula 'entry + linked'); expected a formula over linked, "
            "a token's variables, the parameters and the lets",
            Error(R"("gate": {"group": "src"}, "entry": "entry + linked", "offset": "0", "page": "s")"));
  // Without `entry`, a select may not read linked (the table read comes first).
  EXPECT_EQ("f.json:/select/0: 'linked' cannot be read here (formula 'linked >= 0'); expected a formula over a "
            "token's variables, the parameters and the lets (entry and linked come later)",
            Error(R"("gate": {"group": "src"}, "select": ["linked >= 0"], "column": "0", "offset": "0", "page": "s")"));
  EXPECT_EQ("f.json:/variants/0/set/entry: a variant cannot change 'entry'; expected other knobs (the outputs, the "
            "pages, the row width, the reads, the operations, the lets and a derived entry are the family's)",
            Error(kDerive + R"(, "variants": [{"name": "v", "meaning": "m", "set": {"entry": "0"}}])"));
}

TEST(DerivedEntryTest, AFamilyDerivesFromAnotherFamily) {
  // kHead's family is "x": a source of family x would read another group itself.
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription(
      R"({"slotguard_family": 1, "name": "x", "meaning": "m",
          "params": [{"name": "src", "type": "group", "family": "x", "meaning": "s"}], )" +
          std::string(R"("gate": {"group": "src"}, "entry": "linked", "offset": "0", "page": "1"})"),
      "f.json", &d, &err));
  EXPECT_EQ("f.json:/params/0/family: a group parameter names the family itself ('x'); expected another family: a "
            "group that reads another group's output is never read by one (no chain, no cycle)",
            err);
}

TEST(DerivedEntryTest, EqualsNamesAnEarlierGroupParameter) {
  const std::string head = R"("slotguard_family": 1, "name": "x", "meaning": "m", "params": [)";
  auto error = [&](const std::string& params) {
    FamilyDesc d;
    std::string err;
    EXPECT_FALSE(ParseFamilyDescription("{" + head + params + "], " + kDerive + "}", "f.json", &d, &err));
    return err;
  };
  const std::string rest = R"({"name": "cr", "meaning": "r", "min": 1}, {"name": "s", "meaning": "s", "min": 1})";
  EXPECT_EQ("f.json:/params/0/equals: no earlier group parameter 'src'; expected an earlier group parameter (there "
            "is none)",
            error(R"({"name": "l", "meaning": "l", "min": 1, "equals": "src.kernel_block_size"},
                     {"name": "src", "type": "group", "family": "paged", "meaning": "s"}, )" + rest));
  EXPECT_EQ("f.json:/params/1/equals: bad reference 'src'; expected GROUP_PARAM.NAME: a parameter of the group an "
            "earlier group parameter names",
            error(R"({"name": "src", "type": "group", "family": "paged", "meaning": "s"},
                     {"name": "l", "meaning": "l", "min": 1, "equals": "src"}, )" + rest));
  EXPECT_EQ("f.json:/params/1/equals: 'equals' applies to integer parameters only; expected no 'equals' on a bool "
            "parameter",
            error(R"({"name": "src", "type": "group", "family": "paged", "meaning": "s"},
                     {"name": "b", "type": "bool", "meaning": "b", "equals": "src.enabled"},
                     {"name": "l", "meaning": "l", "min": 1}, )" + rest));
}

// HiSparse's kernel (hisparse_runtime.py:86-93 at d10b2d53) with L = 8,
// cr = 4, S = 2, worked by hand: slot = src / 8 * 2 + src % 8 / 4 at a
// boundary ((pos + 1) % 4 == 0) with src >= 0, else -1.
TEST(DerivedEntryTest, TheSlotComesFromTheSourceNotTheTable) {
  const FamilyDesc d = Load(kDerive);
  ASSERT_TRUE(d.mapping.derived());
  Batch b;
  b.query_start_loc = {0, 2, 3};
  b.positions = {10, 11, 3, 11};
  b.seq_lens = {12, 4};
  b.num_tokens = 4;
  b.num_actual_tokens = 4;
  b.idx_mapping = {0, 1};
  b.slot_mapping_in.assign(4, -1);
  BlockTable table;
  table.rows = 2;
  table.width = 2;
  table.entries = {7, 3, 5, 6};
  GroupPlan plan;
  std::string err;
  ASSERT_TRUE(MakeGroupPlan(d, d.mapping, {0, 8, 4, 2}, b, &plan, &err)) << err;
  // The source as its table gives it: t0 = 3*8 + 2 = 26, t1 = 27, t2 = 5*8 + 3 = 43, t3 padding.
  const std::vector<int64_t> source = {26, 27, 43, -1};
  Interpretation out;
  ASSERT_TRUE(Interpret(plan, b, table, source.data(), true, &out, &err)) << err;
  // t0 at 10 is no boundary; t1 at 11: 27 / 8 * 2 + 3 / 4 = 6; t2 at 3: 43 / 8 * 2 + 3 / 4 = 10; t3: PAD source.
  EXPECT_EQ((std::vector<int64_t>{-1, 6, 10, -1}), out.slots[0]);
  EXPECT_TRUE(out.facts[0][1] & kFactLiveTarget);
  // A source that disagrees with its table (a bug upstream, a stale
  // buffer): t1's source slot 2 lies in block 0, and so does its derived
  // slot, 2 / 8 * 2 + 2 / 4 = 0, whatever the table's column 1 holds (3,
  // where a copy of the table would have sent it: slot 6). Block 0 is no
  // live target.
  const std::vector<int64_t> wrong = {26, 2, 43, -1};
  ASSERT_TRUE(Interpret(plan, b, table, wrong.data(), true, &out, &err)) << err;
  EXPECT_EQ((std::vector<int64_t>{-1, 0, 10, -1}), out.slots[0]);
  EXPECT_FALSE(out.facts[0][1] & kFactLiveTarget);
  // Without its source there is nothing to derive from: every token PAD.
  ASSERT_TRUE(Interpret(plan, b, table, nullptr, false, &out, &err)) << err;
  EXPECT_EQ((std::vector<int64_t>{-1, -1, -1, -1}), out.slots[0]);
}

TEST(DerivedEntryTest, ADerivedGroupReadsNoColumn) {
  Family family;
  std::string unused;
  ASSERT_TRUE(FindFamily("vllm_hisparse_compressed", &family, &unused)) << unused;
  const FamilyModel model(family);
  EXPECT_EQ(0, model.derived_from());
  Group g = ExampleGroup(model.family(), "hs");
  Batch b;
  b.query_start_loc = {0, 3};
  b.positions = {0, 1, 2};
  b.seq_lens = {3};
  b.num_tokens = 3;
  b.num_actual_tokens = 3;
  b.idx_mapping = {0};
  b.slot_mapping_in.assign(3, -1);
  int columns = 0;
  ASSERT_TRUE(GroupModel(g).ForEachColumn(b, 4, [&](int32_t, int64_t, bool, bool) { ++columns; }));
  EXPECT_EQ(0, columns);
}

// The scenario loader pairs a derived group with its source: the source
// named, the same table, and the logical block its source's kernel block.
class DerivedScenarioTest : public ::testing::Test {
 protected:
  std::string Error(const std::string& hs, const std::string& kv = R"("block_size": 8, "block_table": [[7, 3]])") {
    const std::string text = R"({"slotguard": 2, "name": "n", "num_blocks": 8,
        "batch": {"query_start_loc": [0, 1], "positions": [3]},
        "groups": [{"name": "kv", "kernel": "paged", )" + kv + R"(},
                   {"name": "hs", "kernel": "vllm_hisparse_compressed", )" + hs + "}]}";
    Scenario s;
    std::string err;
    EXPECT_FALSE(ParseScenario(text, "s.json", LoadLimits(), &s, &err)) << text;
    return err;
  }
};

TEST_F(DerivedScenarioTest, TheSourceIsNamedSharesItsTableAndItsBlock) {
  EXPECT_EQ("s.json:/groups/1/src: missing required key; expected the name of a paged group: a derived group's "
            "slots come from its source group's",
            Error(R"("logical_block_size": 8, "compress_ratio": 4, "block_table": [[7, 3]])"));
  EXPECT_EQ("s.json:/groups/1/block_table/0: row 0 differs from group 'kv''s; expected the source group's block "
            "table, row for row (a derived group reads its source's rows)",
            Error(R"("src": "kv", "logical_block_size": 8, "compress_ratio": 4, "block_table": [[7, 4]])"));
  EXPECT_EQ("s.json:/groups/1/logical_block_size: is 16, but group 'kv''s kernel_block_size is 8; expected 8 "
            "(logical_block_size equals src.kernel_block_size)",
            Error(R"("src": "kv", "logical_block_size": 16, "compress_ratio": 4, "block_table": [[7, 3]])"));
  // Derive from itself: the source must be a paged group.
  EXPECT_EQ("s.json:/groups/1/src: group 'hs' is not a paged group; expected the name of a paged group: kv, got a "
            "vllm_hisparse_compressed group",
            Error(R"("src": "hs", "logical_block_size": 8, "compress_ratio": 4, "block_table": [[7, 3]])"));
  EXPECT_EQ("s.json:/groups/1/src: no group named 'kw', did you mean 'kv'?; expected the name of a paged group: kv",
            Error(R"("src": "kw", "logical_block_size": 8, "compress_ratio": 4, "block_table": [[7, 3]])"));
}

// A cycle cannot be described: a group parameter names a family already
// registered, so the first of two families deriving from each other names
// one that does not exist yet. A chain can be described (a family deriving
// from a derived one), and the scenario loader refuses it: the source
// reads another group itself.
TEST_F(DerivedScenarioTest, ACycleOrAChainOfDerivedGroupsIsRefused) {
  std::string err;
  EXPECT_FALSE(RegisterFamilyText(R"({"slotguard_family": 1, "name": "cyc_a", "meaning": "m",
      "params": [{"name": "src", "type": "group", "family": "cyc_b", "meaning": "s"}],
      "gate": {"group": "src"}, "entry": "linked", "offset": "0", "page": "1"})",
                                  "cyc_a.json", &err));
  EXPECT_EQ(0u, err.find("cyc_a.json:/params/0/family: unknown family 'cyc_b'; expected one of paged, ")) << err;
  ASSERT_TRUE(RegisterFamilyText(R"({"slotguard_family": 1, "name": "chain_c", "meaning": "m",
      "params": [{"name": "src", "type": "group", "family": "vllm_hisparse_compressed", "meaning": "s"}],
      "gate": {"group": "src"}, "entry": "linked", "offset": "0", "page": "1"})",
                                 "chain_c.json", &err))
      << err;
  const std::string text = R"({"slotguard": 2, "name": "n", "num_blocks": 8,
      "batch": {"query_start_loc": [0, 1], "positions": [3]},
      "groups": [{"name": "kv", "kernel": "paged", "block_size": 8, "block_table": [[7]]},
                 {"name": "hs", "kernel": "vllm_hisparse_compressed", "src": "kv", "logical_block_size": 8,
                  "compress_ratio": 4, "block_table": [[7]]},
                 {"name": "c", "kernel": "chain_c", "src": "hs", "block_table": [[7]]}]})";
  Scenario s;
  EXPECT_FALSE(ParseScenario(text, "s.json", LoadLimits(), &s, &err));
  EXPECT_EQ("s.json:/groups/2/src: group 'hs' reads another group itself; expected a vllm_hisparse_compressed "
            "group in this scenario (there is none) (one that reads no other)",
            err);
}

}  // namespace
}  // namespace slotguard
