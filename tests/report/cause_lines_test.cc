// One line per cause: a group's headline from its GroupCause, and its
// findings folded per token. Expected lines written from the rules in
// report/cause_lines.h.
#include "report/cause_lines.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

IdSet Ids(std::initializer_list<int64_t> ids) {
  IdSet set;
  for (int64_t id : ids) set.Add(id);
  return set;
}

TEST(IdRangesTest, RunsJoinPadStandsAloneAndTheRestIsCounted) {
  EXPECT_EQ("3", IdRanges(Ids({3})));
  EXPECT_EQ("3-4", IdRanges(Ids({4, 3})));
  EXPECT_EQ("0-1, 5, 9-12", IdRanges(Ids({12, 0, 9, 5, 1, 10, 11})));
  EXPECT_EQ("PAD, 0-1", IdRanges(Ids({-1, 0, 1})));
  EXPECT_EQ("1, 3 and 2 more", IdRanges(Ids({1, 3, 5, 7}), 2));
  IdSet many;
  for (int64_t t = 0; t < 100; ++t) many.Add(t * 2);  // 100 ids, the first kCauseIds kept
  EXPECT_EQ(100, many.count);
  EXPECT_EQ(kCauseIds, many.ids.size());
  EXPECT_EQ("0, 2, 4, 6 and 96 more", IdRanges(many));
}

GroupReport Group(const std::string& name) {
  GroupReport g;
  g.name = name;
  g.counts = {{"null_block", 3}, {"differential", 3}};
  return g;
}

CauseTokens Tokens(const std::string& output, int32_t request, bool dummy, std::initializer_list<int64_t> tokens,
                   std::initializer_list<int64_t> kernel, std::initializer_list<int64_t> reference) {
  CauseTokens c;
  c.output = output;
  c.request = request;
  c.dummy = dummy;
  c.tokens = Ids(tokens);
  c.kernel = Ids(kernel);
  c.reference = Ids(reference);
  c.reference_agrees = false;
  return c;
}

TEST(CauseTextTest, WhoWroteBlockZero) {
  GroupReport g = Group("tail");
  g.cause.invariant = "null_block";
  g.cause.tokens = {Tokens("tail", 1, true, {3, 4}, {0, 1}, {-1})};
  EXPECT_EQ("group tail: request 1 (dummy) wrote slots 0-1 of block 0 (tokens 3-4); reference PAD", GroupHeadline(g));
  EXPECT_TRUE(WroteNullBlock(g));
  // Two requests, padding, a second output; the reference not all PAD.
  g.cause.tokens = {Tokens("tail", 0, false, {1}, {2}, {-1}), Tokens("tail", -1, false, {7, 8}, {0}, {-1}),
                    Tokens("tail.x", 0, false, {1}, {2}, {42})};
  EXPECT_EQ("request 0 wrote slot 2 of block 0 (token 1), padding wrote slot 0 of block 0 (tokens 7-8); "
            "output tail.x: request 0 wrote slot 2 of block 0 (token 1); reference PAD, 42",
            CauseText(g));
  // The reference maps them there too: the batch state did it.
  g.cause.tokens = {Tokens("tail", 0, false, {1}, {2}, {2})};
  g.cause.tokens[0].reference_agrees = true;
  EXPECT_EQ("request 0 wrote slot 2 of block 0 (token 1); the reference maps them there too (the batch state routes "
            "them to block 0)",
            CauseText(g));
}

TEST(CauseTextTest, WhereTheKernelDiffersAndOtherwiseTheMostSpecificFinding) {
  GroupReport g = Group("attn");
  g.cause.invariant = "differential";
  g.cause.tokens = {Tokens("attn", 2, false, {5, 6, 7}, {40, 41, 42}, {-1})};
  EXPECT_EQ("the kernel differs from the reference: request 2 (tokens 5-7: kernel 40-42, reference PAD)", CauseText(g));
  // Neither: the most specific kept finding, its count and the others.
  GroupReport w;
  w.name = "c";
  w.counts = {{"write_set", 2}, {"null_bytes", 1}};
  Finding bytes;
  bytes.invariant = "null_bytes";
  bytes.output = "c";
  bytes.detail = "block 0 word 3 changed";
  Finding set;
  set.invariant = "write_set";
  set.output = "c";
  set.token = 4;
  set.request = 0;
  w.findings = {set, bytes};
  EXPECT_EQ("null_bytes: block 0 word 3 changed; also write_set", CauseText(w));
}

// A per-request output's elements are requests and operations, not tokens:
// with 2 operations per request, elements 2 and 3 are request 1's ops 0
// and 1, element 5 request 2's op 1.
TEST(CauseTextTest, APerRequestOutputNamesRequestsAndOperations) {
  GroupReport g = Group("copy");
  g.cause.invariant = "differential";
  g.cause.ops_per_request = 2;
  g.cause.tokens = {Tokens("copy", 1, false, {2, 3}, {0, 5}, {-1}), Tokens("copy.dst", 2, false, {5}, {14}, {-1})};
  EXPECT_EQ("group copy: the kernel differs from the reference: request 1 (ops 0-1: kernel 0, 5, reference PAD); "
            "output copy.dst: request 2 (op 1: kernel 14, reference PAD)",
            GroupHeadline(g));
  // One element per request (a state index): no operation named.
  g.cause.ops_per_request = 1;
  g.cause.tokens = {Tokens("mamba", 0, false, {0}, {0}, {21}), Tokens("mamba", 2, false, {2}, {6}, {14})};
  g.name = "mamba";
  EXPECT_EQ("the kernel differs from the reference: request 0 (kernel 0, reference 21), request 2 (kernel 6, reference 14)",
            CauseText(g));
  g.cause.invariant = "null_block";
  g.cause.tokens = {Tokens("mamba", 2, false, {2}, {0}, {7})};
  EXPECT_EQ("request 2 (kernel 0) names the null block; reference 7", CauseText(g));
}

// Findings about a per-request output's element (no token) fold per
// output, request and operation, in (request, operation) order across the
// outputs, as token lines are in token order.
TEST(TokenLinesTest, PerRequestElementsFoldByRequestAndOperation) {
  auto finding = [](const char* invariant, const char* output, int32_t request, int64_t op, int64_t kernel) {
    Finding f;
    f.invariant = invariant;
    f.output = output;
    f.request = request;
    f.op = op;
    f.has_values = true;
    f.kernel = kernel;
    f.reference = -1;
    f.detail = "a request has no operation here: expected -1";
    return f;
  };
  const std::vector<Finding> findings = {
      finding("differential", "copy", 0, 1, 3), finding("differential", "copy", 0, 0, 0),
      finding("op_null_src", "copy", 0, 0, 0), finding("pad_marker", "copy", 0, 0, 0),
      finding("differential", "copy.dst", 0, 0, 14)};
  EXPECT_EQ((std::vector<std::string>{
                "request 0 op 0: kernel 0, reference PAD: pad_marker, op_null_src, differential: a request has no "
                "operation here: expected -1",
                "output copy.dst: request 0 op 0: kernel 14, reference PAD: differential: a request has no operation "
                "here: expected -1",
                "request 0 op 1: kernel 3, reference PAD: differential: a request has no operation here: expected -1"}),
            TokenLines("copy", findings));
}

TEST(TokenLinesTest, OneLinePerTokenTheMostSpecificFirst) {
  auto finding = [](const char* invariant, int64_t token, const char* detail) {
    Finding f;
    f.invariant = invariant;
    f.output = "attn";
    f.token = token;
    f.request = 1;
    f.position = token - 3;
    f.has_values = true;
    f.kernel = token - 3;
    f.reference = -1;
    f.detail = detail;
    return f;
  };
  const std::vector<Finding> findings = {finding("differential", 3, "the kernel differs"),
                                         finding("differential", 4, "the kernel differs"),
                                         finding("null_block", 3, "slot 0 is in block 0 (slots 0..15)"),
                                         finding("own_block", 3, "block entry 0 is the null block")};
  EXPECT_EQ((std::vector<std::string>{
                "token 3 (request 1, pos 0): kernel 0, reference PAD: null_block, own_block, differential: slot 0 is in "
                "block 0 (slots 0..15)",
                "token 4 (request 1, pos 1): kernel 1, reference PAD: differential: the kernel differs"}),
            TokenLines("attn", findings));
}

}  // namespace
}  // namespace slotguard
