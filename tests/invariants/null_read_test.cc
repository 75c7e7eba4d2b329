// null_read (docs/memory-and-graphs.md, "A reader's requirement") through
// the CUDA-graph sequence on the host backend and through the isolated
// worker: a group that reads block 0 (null_page_read "zero") finds it as
// each step left it. The families are the test families of
// examples/families/null_read_*.json (no engine's); the batch is the one
// of examples/families/null_read/ (Z1, Z2, Z3), worked out by hand:
//   block_size 2 (block 0 is slots 0-1), 64 bytes a slot; one request, one
//   token at pos 0, row [3]: slot 6, its own capture size (no padding).
//   The dummy batch (row [0], idx_mapping -1) and the idle one (no request)
//   give token 0 pad_value 0 under the sink family: its payload lands in
//   slot 0. Payload word 0 of token 0, group 0 is 0x50000000: bytes
//   00 00 00 50 ..., so the first non-zero byte of block 0 is byte 3.
//   The pristine family gives them PAD, which the writer skips.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/isolated_backend.h"
#include "family/family_file.h"
#include "invariants/invariants.h"
#include "registry/families.h"
#include "report/registry_listing.h"
#include "runner/graph_replays.h"
#include "runner/scenario_run.h"
#include "testing/scenario_fixtures.h"
#include "util/worker_executable.h"

namespace slotguard {
namespace {

const char* const kFamilies[] = {"null_read_sink", "null_read_sink_any", "null_read_pristine"};

std::string FamilyPath(const std::string& name) {
  return std::string(SLOTGUARD_SOURCE_DIR) + "/examples/families/" + name + ".json";
}

// Registers the example families once per process (the registry refuses a name twice).
void RegisterExamples() {
  for (const char* name : kFamilies) {
    Family f;
    std::string err;
    if (FindFamily(name, &f, &err)) continue;
    std::ifstream in(FamilyPath(name));
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_TRUE(RegisterFamilyText(text.str(), FamilyPath(name), &err)) << err;
  }
}

Scenario Batch(const std::string& family, ZeroNull zero) {
  Scenario s = ParseTestScenario(R"({"slotguard": 2, "name": "z", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 1], "positions": [0]},
    "groups": [{"name": "m", "kernel": ")" + family + R"(", "block_size": 2, "block_table": [[3]]}],
    "expect": {"slot_mapping": {"m": [6]}}})");
  s.graph.zero_null = zero;
  return s;
}

struct Verdict {
  std::map<std::string, int64_t> counts;  // every finding, by invariant
  std::vector<std::string> null_read;     // the null_read findings' details, in order
};

Verdict Judge(const Scenario& s, Backend& backend, bool cuda_graph = true) {
  ScenarioRun run;
  std::string err;
  EXPECT_TRUE(cuda_graph ? RunGraphReplayScenario(s, backend, 16, &run, &err) : RunScenario(s, backend, 16, &run, &err))
      << err;
  Verdict v;
  for (const FindingSink& sink : run.findings) {
    for (const auto& [name, count] : sink.counts()) v.counts[name] += count;
    for (const Finding& f : sink.kept())
      if (f.invariant == "null_read") v.null_read.push_back(f.detail);
  }
  return v;
}

std::unique_ptr<Backend> Host() {
  std::unique_ptr<Backend> host = MakeHostBackend();
  host->set_writers(WriterOptions{64});
  return host;
}

const char kRealStep[] = "byte 3 of block 0 (slot 0, word 0) is not zero when the graph replay of the real batch runs";
const char kDummyStep[] =
    "byte 3 of block 0 (slot 0, word 0) is not zero when the graph replay of a dummy batch (all-zero tables, every "
    "request a dummy) runs";
const char kIdleStep[] =
    "byte 3 of block 0 (slot 0, word 0) is not zero when the graph replay of an idle DP rank's batch (no tokens, "
    "all-zero tables) runs";
const char kByWarmUp[] =
    ": it holds token 0's payload, written there by the eager warm-up pass on a dummy batch (before the capture); the "
    "group reads block 0 (null_page_read \"zero\") and needs it all zero";
const char kByDummy[] =
    ": it holds token 0's payload, written there by the graph replay of a dummy batch (all-zero tables, every request "
    "a dummy); the group reads block 0 (null_page_read \"zero\") and needs it all zero";

TEST(NullReadTest, V1OrderFiresAtTheFirstRealReplay) {
  RegisterExamples();
  // zero -> eager warm-up (finds zero; writes slot 0) -> capture -> real
  // (finds the warm-up's bytes) -> dummy (the same) -> idle (the same).
  const Verdict v = Judge(Batch("null_read_sink", ZeroNull::kBeforeCapture), *Host());
  EXPECT_EQ((std::vector<std::string>{std::string(kRealStep) + kByWarmUp, std::string(kDummyStep) + kByWarmUp,
                                      std::string(kIdleStep) + kByWarmUp}),
            v.null_read);
  EXPECT_EQ((std::map<std::string, int64_t>{{"null_read", 3}}), v.counts) << "a sink's writes: no null_bytes";
}

TEST(NullReadTest, V2OrderDoesNotFireAtTheFirstRealReplay) {
  RegisterExamples();
  // eager warm-up (writes slot 0) -> capture -> zero -> real (finds zero)
  // -> dummy (finds zero; writes slot 0) -> idle (finds the dummy's bytes).
  const Verdict v = Judge(Batch("null_read_sink", ZeroNull::kAfterCapture), *Host());
  EXPECT_EQ((std::vector<std::string>{std::string(kIdleStep) + kByDummy}), v.null_read);
  EXPECT_EQ((std::map<std::string, int64_t>{{"null_read", 1}}), v.counts);
  // Without a zeroing and a warm-up, the same: the pool starts zero.
  const Verdict never = Judge(Batch("null_read_sink", ZeroNull::kNever), *Host());
  EXPECT_EQ((std::vector<std::string>{std::string(kIdleStep) + kByDummy}), never.null_read);
}

TEST(NullReadTest, ReadersThatNeedNothingNeverFire) {
  RegisterExamples();
  for (ZeroNull zero : {ZeroNull::kNever, ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture}) {
    const Verdict v = Judge(Batch("null_read_sink_any", zero), *Host());
    EXPECT_TRUE(v.counts.empty()) << ZeroNullName(zero);
  }
}

TEST(NullReadTest, AZeroReaderInAPristinePoolNeverFires) {
  RegisterExamples();
  for (ZeroNull zero : {ZeroNull::kNever, ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture}) {
    const Verdict v = Judge(Batch("null_read_pristine", zero), *Host());
    EXPECT_TRUE(v.counts.empty()) << ZeroNullName(zero);
  }
}

TEST(NullReadTest, APlainRunStartsFromAZeroBlockAndHolds) {
  RegisterExamples();
  // One step from the initial pool: the sink family's real batch writes slot 6 only.
  const Verdict v = Judge(Batch("null_read_sink", ZeroNull::kBeforeCapture), *Host(), /*cuda_graph=*/false);
  EXPECT_TRUE(v.counts.empty());
}

TEST(NullReadTest, TheInvariantJudgesWhatTheStepFound) {
  RegisterExamples();
  const Scenario s = Batch("null_read_sink", ZeroNull::kNever);
  ScenarioRun run;
  std::string err;
  ASSERT_TRUE(RunScenario(s, *Host(), 16, &run, &err)) << err;
  GroupRun g;
  g.scenario = &s;
  g.group = &s.groups[0];
  g.request_of_token = &run.request_of_token[0];
  SetAddressing(&g);
  ASSERT_EQ(NullPageRead::kZero, g.null_page_read);
  std::vector<uint8_t> before = run.kernel[0].cache;  // block 0 zero, slot 6 written
  MemoryRun memory;
  memory.cache = &run.kernel[0].cache;
  memory.head_bytes = 64;
  memory.before = &before;
  FindingSink sink;
  CheckNullRead(g, memory, &sink);
  EXPECT_EQ(0, sink.total());
  before[64 + 17] = 1;  // slot 1, word 2, byte 1: found dirty, whatever the step then does
  memory.step = "the step";
  const std::vector<std::string> writers = {"", "a hand"};
  memory.null_writers = &writers;
  CheckNullRead(g, memory, &sink);
  ASSERT_EQ(1u, sink.kept().size());
  EXPECT_EQ("byte 81 of block 0 (slot 1, word 2) is not zero when the step runs: it holds 0x0000000000000100, "
            "written there by a hand; the group reads block 0 (null_page_read \"zero\") and needs it all zero",
            sink.kept()[0].detail);
  memory.before = nullptr;  // the initial state: block 0 zero
  CheckNullRead(g, memory, &sink);
  EXPECT_EQ(1, sink.total());
}

TEST(NullReadTest, ListJsonSaysWhatEachFamilysReadersNeed) {
  RegisterExamples();
  std::ostringstream out;
  WriteRegistryJson(out);
  std::map<std::string, std::string> read;
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  for (const auto& f : doc["families"]) read[f["name"].get<std::string>()] = f["null_page_read"].get<std::string>();
  EXPECT_EQ("zero", read.at("null_read_sink"));
  EXPECT_EQ("zero", read.at("null_read_pristine"));
  EXPECT_EQ("any", read.at("null_read_sink_any"));
  EXPECT_EQ("any", read.at("vllm_mamba"));  // said, with the engine's lines
  EXPECT_EQ("any", read.at("paged"));       // the default
}

TEST(NullReadTest, TheWorkerSendsBackWhatNullReadJudges) {
  RegisterExamples();
  SetWorkerExecutable(SLOTGUARD_BINARY);
  IsolationOptions o;
  o.backend_name = "host";
  o.worker_args = {"__worker", "--backend", "host"};
  for (const char* name : kFamilies) o.worker_args.insert(o.worker_args.end(), {"--family-file", FamilyPath(name)});
  o.timeout_seconds = 60;
  std::unique_ptr<Backend> isolated = MakeIsolatedBackend(o);
  isolated->set_writers(WriterOptions{64});
  for (ZeroNull zero : {ZeroNull::kBeforeCapture, ZeroNull::kAfterCapture}) {
    const Scenario s = Batch("null_read_sink", zero);
    EXPECT_EQ(Judge(s, *Host()).null_read, Judge(s, *isolated).null_read) << ZeroNullName(zero);
  }
  EXPECT_EQ(3u, Judge(Batch("null_read_sink", ZeroNull::kBeforeCapture), *isolated).null_read.size());
}

}  // namespace
}  // namespace slotguard
