// One bug planted per shape the shape lists add (issue 36's list), each a
// described variant of a test family (tests/prove/planted/*.json): found by
// `prove` at `small`, or at medium's shape part (the part with ahead,
// fresh_prefills and past_int32, one request a batch, which medium holds),
// and nothing found at the family's own description.
#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "backend/backend.h"
#include "prove/prove_run.h"
#include "prove/scope_file.h"
#include "registry/families.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

struct Planted {
  const char* file;     // under tests/prove/planted/
  const char* family;
  const char* variant;
  const char* scope;    // "small", or "medium_shapes": medium's shape part, one request a batch
  const char* shape;
};

const Planted kPlanted[] = {
    {"planted_store.json", "planted_store", "one_column_too_far", "medium_shapes",
     "a copy one column too far past the columns read (a block allocated ahead there)"},
    {"planted_paged.json", "planted_paged", "block_size_one_fast_path", "small", "block size 1 with context 1"},
    {"planted_paged.json", "planted_paged", "reciprocal_block_size", "medium_shapes", "a parameter not a power of two"},
    {"planted_paged.json", "planted_paged", "int32_positions", "medium_shapes",
     "a seq_len past int32 with a large block"},
    {"planted_prefill.json", "planted_prefill", "fresh_prefill_first_block", "medium_shapes",
     "a fresh prefill longer than a block"},
    {"planted_ring_tail.json", "planted_ring_tail", "int32_clamp_positions", "medium_shapes",
     "a clamp token at a position past 2^31"},
};

Family Register(const std::string& file, const std::string& name) {
  std::string err;
  Family family{};
  if (!FindFamily(name, &family, &err)) {
    EXPECT_TRUE(RegisterFamilyFile(std::string(SLOTGUARD_SOURCE_DIR) + "/tests/prove/planted/" + file, &err)) << err;
    EXPECT_TRUE(FindFamily(name, &family, &err)) << err;
  }
  return family;
}

Scope ScopeNamed(const std::string& name) {
  Scope scope;
  std::string err;
  if (name == "small") {
    EXPECT_TRUE(LoadScope("small", &scope, &err)) << err;
    return scope;
  }
  Scope medium;
  EXPECT_TRUE(LoadScope("medium", &medium, &err)) << err;
  scope = medium;
  scope.name = "medium_shapes";
  scope.parts.clear();
  for (const ScopePart& part : medium.parts)
    if (!part.ahead.empty() && !part.fresh_prefills.empty() && !part.past_int32.empty()) scope.parts.push_back(part);
  EXPECT_EQ(1u, scope.parts.size()) << "medium has one shape part";
  for (ScopePart& part : scope.parts) {
    EXPECT_TRUE(std::count(part.requests.begin(), part.requests.end(), 1)) << "medium's shape part has 1 request";
    part.requests = {1};
  }
  return scope;
}

/// The distinct findings of `prove` over `family` under `variant` ("": its description).
std::set<std::string> Findings(const Scope& scope, Family family, const std::string& variant, int64_t* batches) {
  std::unique_ptr<Backend> host = MakeHostBackend();
  ProveRunOptions o;
  o.scope = scope;
  o.enumeration.families = {family};
  o.campaign.settings.variant = variant;
  o.campaign.settings.out_dir = FreshScratchPath("planted");
  CampaignResult result;
  ScopeClaim claim;
  std::ostringstream progress;
  std::string err;
  bool bad_input = false;
  EXPECT_TRUE(ProveScope(o, *host, progress, &result, &claim, &err, &bad_input)) << err;
  *batches = claim.batches;
  std::set<std::string> out;
  for (const CampaignFinding& f : result.findings) out.insert(f.signature.Id());
  return out;
}

class PlantedShapeTest : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedShapeTest, FoundAtItsScopeAndNotAtTheDescription) {
  const Planted& p = GetParam();
  const Family family = Register(p.file, p.family);
  const Scope scope = ScopeNamed(p.scope);
  int64_t batches = 0;
  EXPECT_FALSE(Findings(scope, family, p.variant, &batches).empty())
      << p.family << "/" << p.variant << " (" << p.shape << ") is not found at " << p.scope << " (" << batches
      << " batches)";
  const std::set<std::string> fixed = Findings(scope, family, "", &batches);
  EXPECT_TRUE(fixed.empty()) << p.family << " itself: " << (fixed.empty() ? "" : *fixed.begin());
}

INSTANTIATE_TEST_SUITE_P(Shapes, PlantedShapeTest, ::testing::ValuesIn(kPlanted),
                         [](const ::testing::TestParamInfo<Planted>& info) { return std::string(info.param.variant); });

}  // namespace
}  // namespace slotguard
