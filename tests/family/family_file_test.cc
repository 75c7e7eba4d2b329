// Loading a description of a per-request kind (family/family_file.h): every
// mistake is one line naming the file, the JSON pointer and what was
// expected, with did-you-mean for a misspelt name.
#include <gtest/gtest.h>

#include "family/family_file.h"

namespace slotguard {
namespace {

const std::string kHead =
    R"("slotguard_family": 1, "name": "x", "meaning": "m",
       "params": [{"name": "block_size", "meaning": "b", "min": 1, "example": 16}], )";
const std::string kState =
    R"("kind": "state_index", "dummy": "pad", "range": "pad", "null_index": "index == 0", "null_page": "pristine", )";
const std::string kConsumers = R"("consumers": [{"name": "c", "skip": "index == 0"}])";

std::string Error(const std::string& body) {
  FamilyDesc d;
  std::string err;
  EXPECT_FALSE(ParseFamilyDescription("{" + kHead + body + "}", "f.json", &d, &err)) << body;
  return err;
}

TEST(FamilyFileTest, AStateIndexDescriptionLoads) {
  FamilyDesc d;
  std::string err;
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + kState + R"("column": "0", "marker": -1, )" + kConsumers + "}",
                                     "f.json", &d, &err))
      << err;
  EXPECT_EQ(FamilyKind::kStateIndex, d.kind);
  ASSERT_EQ(1u, d.request.consumers.size());
  EXPECT_EQ("c", d.request.consumers[0].name);
}

TEST(FamilyFileTest, KindsAndStateKnobs) {
  EXPECT_EQ("f.json:/kind: unknown family kind 'state_indices', did you mean 'state_index'?; expected one of "
            "slot_mapping, state_index, block_op, table_producer",
            Error(R"("kind": "state_indices")"));
  EXPECT_EQ("f.json:/: missing required key; expected \"column\": the table column that holds the request's state "
            "index, got no key 'column'",
            Error(kState + R"("marker": 0, )" + kConsumers));
  EXPECT_EQ("f.json:/: missing required key; expected \"marker\": the index the producer writes for a padded or "
            "dummy row (0, -1, ...), got no key 'marker'",
            Error(kState + R"("column": "0", )" + kConsumers));
  EXPECT_EQ("f.json:/consumers: no consumer; expected at least one kernel that reads the index",
            Error(kState + R"("column": "0", "marker": 0, "consumers": [])"));
  EXPECT_EQ("f.json:/consumers/0/skp: unknown key 'skp', did you mean 'skip'?; expected one of name, skip, "
            "writes_sink, note",
            Error(kState + R"("column": "0", "marker": 0, "consumers": [{"name": "c", "skp": "index == 0"}])"));
  // A skip test sees the index and the parameters only; a column, no index.
  EXPECT_EQ("f.json:/consumers/0/skip: 't' cannot be read here (formula 't == 0'); expected a formula over index and "
            "the parameters",
            Error(kState + R"("column": "0", "marker": 0, "consumers": [{"name": "c", "skip": "t == 0"}])"));
  EXPECT_EQ("f.json:/column: 'index' cannot be read here (formula 'index'); expected a formula over a request's "
            "variables, the parameters and the lets (no token's)",
            Error(kState + R"("column": "index", "marker": 0, )" + kConsumers));
  EXPECT_EQ("f.json:/dummy: unknown dummy rule 'padd', did you mean 'pad'?; expected one of pad, row",
            Error(R"("kind": "state_index", "dummy": "padd", "column": "0", "marker": 0, )" + kConsumers));
}

TEST(FamilyFileTest, BlockOperationKnobs) {
  const std::string op = R"("kind": "block_op", )";
  EXPECT_EQ("f.json:/op: unknown block operation 'move'; expected one of copy, load, store, zero",
            Error(op + R"("op": "move", "dst": "0")"));
  EXPECT_EQ("f.json:/src: a source column for a load operation; expected \"src\" only beside \"op\": \"copy\" or "
            "\"store\"",
            Error(op + R"("op": "load", "src": "0", "dst": "0")"));
  EXPECT_EQ("f.json:/dst: a destination column for a store operation; expected \"dst\" only beside \"op\": "
            "\"copy\", \"load\" or \"zero\"",
            Error(op + R"("op": "store", "src": "0", "dst": "0")"));
  EXPECT_EQ("f.json:/: missing required key; expected \"dst\": the column of the block the operation writes, got no "
            "key 'dst'",
            Error(op + R"("op": "copy", "src": "0")"));
  EXPECT_EQ("f.json:/ops: 'seq_len' cannot be read here (formula 'seq_len'); expected a formula over width and the "
            "parameters",
            Error(op + R"("op": "copy", "ops": "seq_len", "src": "0", "dst": "1")"));
  EXPECT_EQ("f.json:/variants/0/set/op: a variant cannot change 'op'; expected other knobs (the outputs, the pages, "
            "the row width, the reads, the operations, the lets and a derived entry are the family's)",
            Error(op + R"("op": "copy", "src": "0", "dst": "1",
                         "variants": [{"name": "v", "meaning": "m", "set": {"op": "zero"}}])"));
}

// A group with no cache behind it (vLLM's encoder-only layers) has nothing
// to write through: a writer that writes is refused, "none" loads, and a
// slot 0 for its padding (a zeroed mapping) is no write into a null block.
TEST(FamilyFileTest, ANoCacheGroupHasNoWriter) {
  const std::string mapping = R"("column": "0", "entry_map": "0", "offset": "0", "page": "block_size", )";
  EXPECT_EQ("f.json:/writer: a writer writes through a group that has no cache (\"null_page\": \"no_cache\"); "
            "expected \"writer\": \"none\"",
            Error(mapping + R"("null_page": "no_cache")"));
  EXPECT_EQ("f.json:/outputs/1/writer: a writer writes through a group that has no cache (\"null_page\": "
            "\"no_cache\"); expected \"writer\": \"none\"",
            Error(mapping + R"("null_page": "no_cache", "writer": "none",
                  "outputs": [{"name": ""}, {"name": "q", "writer": {"kind": "paged"}}])"));
  FamilyDesc d;
  std::string err;
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + mapping +
                                         R"("null_page": "no_cache", "writer": "none",
                                            "tail": {"from": "num_real_tokens", "value": "null_slot"}})",
                                     "f.json", &d, &err))
      << err;
  EXPECT_EQ(NullPage::kNoCache, d.mapping.null_page);
  EXPECT_FALSE(d.mapping.outputs[0].writer.writes);
  EXPECT_EQ("f.json:/null_page: a per-request kind has a cache (\"no_cache\" is a slot mapping's); expected "
            "pristine, sink, none or request",
            Error(R"("kind": "state_index", "dummy": "pad", "range": "pad", "null_index": "index == 0", )"
                  R"("null_page": "no_cache", "column": "0", "marker": 0, )" + kConsumers));
  EXPECT_EQ("f.json:/tail: padding tokens write the null block, but the null page is not a sink; expected "
            "\"null_page\": \"sink\" beside a \"null_slot\" tail, or another tail value",
            Error(mapping + R"("null_page": "none", "writer": "none",
                  "tail": {"from": "num_real_tokens", "value": "null_slot"})"));
}

// null_page_read (docs/family-format.md): what the group's readers need of
// block 0. "any" is the default; "zero" needs a null block, and a
// per-request kind (no pool) can only say "any".
TEST(FamilyFileTest, NullPageRead) {
  const std::string mapping = R"("column": "0", "offset": "0", "page": "block_size", )";
  FamilyDesc d;
  std::string err;
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + mapping + R"("null_page": "sink"})", "f.json", &d, &err)) << err;
  EXPECT_EQ(NullPageRead::kAny, d.mapping.null_page_read);
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + mapping + R"("null_page": "sink", "null_page_read": "zero"})", "f.json",
                                     &d, &err))
      << err;
  EXPECT_EQ(NullPageRead::kZero, d.mapping.null_page_read);
  EXPECT_EQ("f.json:/null_page_read: bad null page read requirement; expected \"zero\" or \"any\", got the string \"zeros\"",
            Error(mapping + R"("null_page_read": "zeros")"));
  EXPECT_EQ("f.json:/null_page_read: bad null page read requirement; expected \"zero\" or \"any\", got 0",
            Error(mapping + R"("null_page_read": 0)"));
  EXPECT_EQ("f.json:/null_page_read: a reader of a null block the family does not have; expected \"any\", or "
            "\"zero\" beside \"null_page\": \"pristine\" or \"sink\"",
            Error(mapping + R"("null_page": "none", "null_page_read": "zero")"));
  EXPECT_EQ("f.json:/variants/0/set/null_page_read: bad null page read requirement; expected \"zero\" or "
            "\"any\", got the string \"none\"",
            Error(mapping + R"("variants": [{"name": "v", "meaning": "m", "set": {"null_page_read": "none"}}])"));
  // A state index: "any" loads (and reaches the mapping shape), "zero" is refused.
  ASSERT_TRUE(ParseFamilyDescription("{" + kHead + kState + R"("null_page_read": "any", "column": "0", "marker": 0, )" +
                                         kConsumers + "}",
                                     "f.json", &d, &err))
      << err;
  EXPECT_EQ(NullPageRead::kAny, d.request.null_page_read);
  EXPECT_EQ("f.json:/null_page_read: a per-request kind has no pool in the memory model (null_read judges a slot "
            "mapping's); expected \"any\"",
            Error(kState + R"("null_page_read": "zero", "column": "0", "marker": 0, )" + kConsumers));
}

}  // namespace
}  // namespace slotguard
