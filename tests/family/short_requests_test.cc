// Requests too short for lanes of their own (fewer than four tokens) share
// one chunk of lanes in the interpreter (family/family_plan.cc), each lane
// reading its own request's variables and row, the short requests on either
// side of a longer one included: the slots, facts and the first failure are
// what each request alone gives, worked out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "family/family_file.h"
#include "family/family_plan.h"

namespace slotguard {
namespace {

/// Three requests of 2, 1 and 3 tokens, rows {5, 6, 7}, {2, 9, 9}, {4, 4, 11}.
Batch ShortRequests(const std::vector<int64_t>& seq_lens) {
  Batch b;
  b.query_start_loc = {0, 2, 3, 6};
  b.seq_lens = seq_lens;
  b.positions = {8, 9, 3, 16, 17, 18};
  b.num_tokens = b.num_actual_tokens = 6;
  b.idx_mapping = {0, 1, 2};
  b.slot_mapping_in.assign(6, -1);
  return b;
}

/// Requests of 2, 5 and 1 tokens: the long one between the short ones.
Batch AroundALongRequest(const std::vector<int64_t>& seq_lens) {
  Batch b;
  b.query_start_loc = {0, 2, 7, 8};
  b.seq_lens = seq_lens;
  b.positions = {8, 9, 0, 1, 2, 3, 4, 16};
  b.num_tokens = b.num_actual_tokens = 8;
  b.idx_mapping = {0, 1, 2};
  b.slot_mapping_in.assign(8, -1);
  return b;
}

bool Interpreted(const std::string& offset, const Batch& b, Interpretation* out, std::string* err) {
  FamilyDesc d;
  EXPECT_TRUE(ParseFamilyDescription(R"({"slotguard_family": 1, "name": "x", "meaning": "m", "column": "pos / 8",
          "params": [{"name": "unused", "meaning": "u", "min": 1, "example": 1}],
          "offset": ")" + offset + R"(", "page": "8"})",
                                     "f.json", &d, err))
      << *err;
  BlockTable table;
  table.rows = 3;
  table.width = 3;
  table.entries = {5, 6, 7, 2, 9, 9, 4, 4, 11};
  GroupPlan plan;
  EXPECT_TRUE(MakeGroupPlan(d, d.mapping, {1}, b, &plan, err)) << *err;
  return Interpret(plan, b, table, nullptr, /*with_facts=*/true, out, err);
}

TEST(ShortRequestsTest, EachLaneReadsItsOwnRequest) {
  // slot = row[pos / 8] * 8 + pos % 8 + q: request 0 (q 2) reads column 1
  // (6), request 1 (q 1) column 0 (2), request 2 (q 3) column 2 (11).
  Interpretation out;
  std::string err;
  ASSERT_TRUE(Interpreted("pos % 8 + q", ShortRequests({10, 4, 19}), &out, &err)) << err;
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{6 * 8 + 0 + 2, 6 * 8 + 1 + 2, 2 * 8 + 3 + 1, 11 * 8 + 0 + 3, 11 * 8 + 1 + 3,
                                  11 * 8 + 2 + 3}),
            out.slots[0]);
  EXPECT_EQ((std::vector<int32_t>{0, 0, 1, 2, 2, 2}), out.owner);
  // Every offset is inside its page, every entry a live block.
  EXPECT_EQ(std::vector<uint8_t>(6, kFactLiveTarget), out.facts[0]);
}

TEST(ShortRequestsTest, TheFirstFailureIsTheFirstTokensOwn) {
  // seq_len - 4 is 0 for request 1 alone (token 2); request 2's tokens come after it.
  Interpretation out;
  std::string err;
  EXPECT_FALSE(Interpreted("pos % 8 / (seq_len - 4)", ShortRequests({10, 4, 4}), &out, &err));
  EXPECT_EQ("token 2 (request 1): the description's 'offset' (pos % 8 / (seq_len - 4)): division by zero", err);
}

TEST(ShortRequestsTest, ShortRequestsAroundALongOneReadTheirOwn) {
  // slot = row[pos / 8] * 8 + pos % 8 + q: request 0 (q 2) reads column 1
  // of row 0 (6), request 1 (q 5, its own lanes) column 0 of row 1 (2),
  // request 2 (q 1) column 2 of row 2 (11).
  Interpretation out;
  std::string err;
  ASSERT_TRUE(Interpreted("pos % 8 + q", AroundALongRequest({10, 12, 19}), &out, &err)) << err;
  ASSERT_EQ(1u, out.slots.size());
  EXPECT_EQ((std::vector<int64_t>{6 * 8 + 0 + 2, 6 * 8 + 1 + 2, 2 * 8 + 0 + 5, 2 * 8 + 1 + 5, 2 * 8 + 2 + 5,
                                  2 * 8 + 3 + 5, 2 * 8 + 4 + 5, 11 * 8 + 0 + 1}),
            out.slots[0]);
  EXPECT_EQ((std::vector<int32_t>{0, 0, 1, 1, 1, 1, 1, 2}), out.owner);
  // Request 1's offsets 8 and 9 are past its page: no live target there.
  const uint8_t live = kFactLiveTarget;
  EXPECT_EQ((std::vector<uint8_t>{live, live, live, live, live, 0, 0, live}), out.facts[0]);
}

TEST(ShortRequestsTest, AShortRequestsFailureComesBeforeTheLongOnesAfterIt) {
  // seq_len % 4 is 0 for requests 0 (token 0) and 1 (tokens 2 to 6): the
  // short request's failure is the first, though the long one runs first.
  Interpretation out;
  std::string err;
  EXPECT_FALSE(Interpreted("pos % 8 / (seq_len % 4)", AroundALongRequest({4, 8, 9}), &out, &err));
  EXPECT_EQ("token 0 (request 0): the description's 'offset' (pos % 8 / (seq_len % 4)): division by zero", err);
}

}  // namespace
}  // namespace slotguard
