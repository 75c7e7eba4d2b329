// Scope files: the presets load, a file's dimensions (and its parts')
// come back sorted with their defaults, and every mistake is one line that
// names the file, the JSON pointer and what was expected.
#include "prove/scope_file.h"

#include <fstream>

#include <gtest/gtest.h>

#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

class ScopeFileTest : public ::testing::Test {
 protected:
  /// The error of parsing `text` as s.json ("" when it loads).
  std::string Error(const std::string& text) {
    Scope s;
    std::string err;
    const bool ok = ParseScope(text, "s.json", &s, &err);
    EXPECT_EQ(ok, err.empty()) << err;
    return err;
  }
};

TEST_F(ScopeFileTest, PresetsLoadInSizeOrder) {
  EXPECT_EQ((std::vector<std::string>{"small", "medium", "large"}), ScopePresetNames());
  for (const std::string& name : ScopePresetNames()) {
    Scope s;
    std::string err;
    ASSERT_TRUE(LoadScope(name, &s, &err)) << err;
    EXPECT_EQ(name, s.name);
    EXPECT_EQ("scopes/" + name + ".json (built in)", s.file);
    EXPECT_FALSE(s.parts.empty());
    EXPECT_FALSE(s.meaning.empty());
  }
}

TEST_F(ScopeFileTest, DimensionsComeBackSortedWithTheirDefaults) {
  Scope s;
  std::string err;
  ASSERT_TRUE(ParseScope(R"({"slotguard_scope": 1, "name": "x", "requests": [2, 0, 2], "tokens": [3, 1],
                              "tables": ["persistent_permuted", "per_request"]})",
                         "s.json", &s, &err))
      << err;
  ASSERT_EQ(1u, s.parts.size());
  const ScopePart& p = s.parts[0];
  EXPECT_EQ((std::vector<int32_t>{0, 2}), p.requests);
  EXPECT_EQ((std::vector<int32_t>{1, 3}), p.tokens);
  EXPECT_EQ((std::vector<TableMode>{TableMode::kPerRequest, TableMode::kPersistentPermuted}), p.tables);
  // The defaults: the plainest batch of each dimension.
  EXPECT_EQ((std::vector<int32_t>{0}), p.padding);
  EXPECT_EQ((std::vector<int64_t>{0}), p.contexts);
  EXPECT_TRUE(p.boundary_offsets.empty());
  EXPECT_EQ((std::vector<int32_t>{1}), p.widths);
  EXPECT_EQ((std::vector<NullEntry>{NullEntry::kZero}), p.null_entries);
  EXPECT_EQ((std::vector<BlockIds>{BlockIds::kSmall}), p.block_ids);
  EXPECT_EQ((std::vector<ParamClass>{ParamClass::kExample, ParamClass::kDefault}), p.params);
  EXPECT_EQ((std::vector<LinkMode>{LinkMode::kPresent}), p.links);
  // The shape lists' dimensions: none unless named.
  EXPECT_TRUE(p.ahead.empty());
  EXPECT_TRUE(p.fresh_prefills.empty());
  EXPECT_TRUE(p.past_int32.empty());
  EXPECT_EQ((std::vector<InputMode>{InputMode::kDefaults}), p.inputs);
}

TEST_F(ScopeFileTest, InputsAndDummyRunsAreRead) {
  Scope s;
  std::string err;
  ASSERT_TRUE(ParseScope(R"({"slotguard_scope": 1, "name": "x", "requests": [1], "tokens": [1],
                              "inputs": ["sweep", "defaults"], "tables": ["dummy_run", "per_request"]})",
                         "s.json", &s, &err))
      << err;
  EXPECT_EQ((std::vector<InputMode>{InputMode::kDefaults, InputMode::kSweep}), s.parts[0].inputs);
  EXPECT_EQ((std::vector<TableMode>{TableMode::kPerRequest, TableMode::kDummyRun}), s.parts[0].tables);
  EXPECT_EQ("s.json:/inputs/0: unknown name 'all'; expected one of defaults, sweep",
            Error(R"({"slotguard_scope": 1, "name": "x", "requests": [1], "tokens": [1], "inputs": ["all"]})"));
}

TEST_F(ScopeFileTest, TheShapeListsDimensionsAreRead) {
  Scope s;
  std::string err;
  ASSERT_TRUE(ParseScope(R"({"slotguard_scope": 1, "name": "x", "requests": [1], "tokens": [1], "ahead": [2, 1],
                              "fresh_prefills": [1], "past_int32": ["clamp_tokens", "contexts"],
                              "params": ["large", "non_power_of_two", "beside", "min"]})",
                         "s.json", &s, &err))
      << err;
  const ScopePart& p = s.parts[0];
  EXPECT_EQ((std::vector<int32_t>{1, 2}), p.ahead);
  EXPECT_EQ((std::vector<int32_t>{1}), p.fresh_prefills);
  EXPECT_EQ((std::vector<PastInt32>{PastInt32::kContexts, PastInt32::kClampTokens}), p.past_int32);
  EXPECT_EQ((std::vector<ParamClass>{ParamClass::kMin, ParamClass::kBeside, ParamClass::kNonPowerOfTwo,
                                     ParamClass::kLarge}),
            p.params);
  EXPECT_EQ("s.json:/past_int32/0: unknown name 'clamp_token', did you mean 'clamp_tokens'?; expected one of "
            "contexts, clamp_tokens",
            Error(R"({"slotguard_scope": 1, "name": "x", "requests": [1], "tokens": [1], "past_int32": ["clamp_token"]})"));
  EXPECT_EQ("s.json:/fresh_prefills/0: fresh prefill block count out of range; expected 1 <= fresh prefill block "
            "count <= 64, got 0",
            Error(R"({"slotguard_scope": 1, "name": "x", "requests": [1], "tokens": [1], "fresh_prefills": [0]})"));
}

TEST_F(ScopeFileTest, PartsTakeTheTopLevelAsDefaults) {
  Scope s;
  std::string err;
  ASSERT_TRUE(ParseScope(R"({"slotguard_scope": 1, "name": "x", "tokens": [1], "widths": [0, 1],
                              "parts": [{"requests": [1, 2]}, {"requests": [256], "widths": [2]}]})",
                         "s.json", &s, &err))
      << err;
  ASSERT_EQ(2u, s.parts.size());
  EXPECT_EQ((std::vector<int32_t>{1, 2}), s.parts[0].requests);
  EXPECT_EQ((std::vector<int32_t>{0, 1}), s.parts[0].widths);
  EXPECT_EQ((std::vector<int32_t>{256}), s.parts[1].requests);
  EXPECT_EQ((std::vector<int32_t>{2}), s.parts[1].widths);
  EXPECT_EQ((std::vector<int32_t>{1}), s.parts[1].tokens);
}

TEST_F(ScopeFileTest, EveryMistakeIsOneLineWithItsPointer) {
  const std::string head = R"({"slotguard_scope": 1, "name": "x", )";
  EXPECT_EQ("s.json:/tokns: unknown key 'tokns', did you mean 'tokens'?; expected one of slotguard_scope, name, "
            "meaning, parts, requests, tokens, padding, contexts, boundary_offsets, widths, num_actual, "
            "slot_mapping_in, null_entries, tables, stale_rows, block_ids, layouts, params, tiles, links, ahead, "
            "fresh_prefills, past_int32, inputs",
            Error(head + R"("requests": [1], "tokens": [1], "tokns": [1]})"));
  EXPECT_EQ("s.json:/tokens: missing required key; expected a non-empty array of integers (token counts)",
            Error(head + R"("requests": [1]})"));
  EXPECT_EQ("s.json:/requests: empty list; expected a non-empty array of integers (request counts)",
            Error(head + R"("requests": [], "tokens": [1]})"));
  EXPECT_EQ("s.json:/tables/0: unknown name 'persistant', did you mean 'persistent'?; expected one of per_request, "
            "persistent, persistent_permuted, persistent_exact, persistent_rotated, dummy_run",
            Error(head + R"("requests": [1], "tokens": [1], "tables": ["persistant"]})"));
  EXPECT_EQ("s.json:/params: parameter class \"tiles\" without tiles; expected a non-empty \"tiles\" list beside "
            "\"tiles\" in \"params\"",
            Error(head + R"("requests": [1], "tokens": [1], "params": ["tiles"]})"));
  EXPECT_EQ("s.json:/tokens/0: token count out of range; expected 0 <= token count <= 65536, got -1",
            Error(head + R"("requests": [1], "tokens": [-1]})"));
  EXPECT_EQ("s.json:/tokens: not an array; expected a non-empty array of integers (token counts), got the string \"1\"",
            Error(head + R"("requests": [1], "tokens": "1"})"));
  EXPECT_EQ("s.json:/widths/0: table width out of range; expected 0 <= table width <= 4096, got 5000",
            Error(head + R"("requests": [1], "tokens": [1], "widths": [5000]})"));
  EXPECT_EQ("s.json:/slotguard_scope: format version out of range; expected 1 <= format version <= 1, got 2",
            Error(R"({"slotguard_scope": 2, "name": "x", "requests": [1], "tokens": [1]})"));
  // A part without a required dimension, and a key of the top level only.
  EXPECT_EQ("s.json:/parts/1/tokens: missing required key; expected a non-empty array of integers (token counts)",
            Error(head + R"("requests": [1], "parts": [{"tokens": [1]}, {"widths": [2]}]})"));
  EXPECT_EQ("s.json:/parts/0/name: unknown key 'name'; expected one of requests, tokens, padding, contexts, "
            "boundary_offsets, widths, num_actual, slot_mapping_in, null_entries, tables, stale_rows, block_ids, "
            "layouts, params, tiles, links, ahead, fresh_prefills, past_int32, inputs",
            Error(head + R"("requests": [1], "tokens": [1], "parts": [{"name": "y"}]})"));
  EXPECT_EQ("s.json:/parts: empty list; expected a non-empty array of parts (objects of dimensions)",
            Error(head + R"("requests": [1], "tokens": [1], "parts": []})"));
}

TEST_F(ScopeFileTest, ANameIsAPresetOrAFile) {
  Scope s;
  std::string err;
  EXPECT_FALSE(LoadScope("smal", &s, &err));
  EXPECT_EQ("unknown scope 'smal', did you mean 'small'?; expected a preset (small, medium, large) or a scope "
            "file's path",
            err);
  EXPECT_FALSE(LoadScope(ScratchPath("missing.json"), &s, &err));
  EXPECT_EQ(ScratchPath("missing.json") + ": no such file or directory; expected a scope file (docs/prove.md)", err);
  const std::string path = ScratchPath("mine.json");
  std::ofstream(path) << R"({"slotguard_scope": 1, "name": "mine", "requests": [1], "tokens": [1]})";
  ASSERT_TRUE(LoadScope(path, &s, &err)) << err;
  EXPECT_EQ("mine", s.name);
  EXPECT_EQ(path, s.file);
  std::ofstream(path) << R"({"slotguard_scope": 1, "name": "mine", "requests": [1], "tokens": [1], "widths": [1,]})";
  EXPECT_FALSE(LoadScope(path, &s, &err));
  EXPECT_EQ(0u, err.find(path + ":")) << err;
}

}  // namespace
}  // namespace slotguard
