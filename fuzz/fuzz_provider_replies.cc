// libFuzzer target: arbitrary bytes as a kernel provider's reply
// (--kernel-cmd, plugin/provider_protocol.h): a WELCOME, or the RESULTS for
// one of a few fixed requests. Every reply is accepted or refused with a
// one-line problem, never a crash, an allocation the request cannot explain
// or undefined behaviour; an accepted reply answers every record with the
// right number of outputs, and its texts are printable UTF-8 that the JSON
// report writer takes; its outputs are written exactly into each group's
// buffers (the family's count, num_tokens each). Only an answer to the RUN
// in flight (sequence 7) is accepted: a stale or extra reply is refused,
// never taken as another's.
//
// Input: byte 0 picks what is read (bit 7: WELCOME, else RESULTS), the
// request's scenarios (bits 0-2) and its mode (bit 3: whole scenarios, one
// record per scenario; else one record per group). The rest is the reply.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzzing/generators.h"
#include "plugin/provider_protocol.h"
#include "family/group_model.h"

namespace {

using namespace slotguard;

/// The RUN every RESULTS is read as the answer to.
constexpr uint32_t kSequence = 7;

// Eight fixed scenarios from the shared generator, a few tokens each.
const std::vector<Scenario>& Scenarios() {
  static const std::vector<Scenario> scenarios = [] {
    std::vector<Scenario> out;
    GeneratorOptions options;
    options.max_requests = 4;
    for (uint64_t seed = 1; out.size() < 8; ++seed) {
      RandomChoices choices(seed);
      Scenario s = GenerateScenario(choices, options);
      if (s.batch.num_tokens <= 64) out.push_back(std::move(s));
    }
    return out;
  }();
  return scenarios;
}

// Scenarios `pick` and `pick + 1` (mod 8) as a request of `whole` records,
// each group's outputs going to a buffer of its own in *outputs, exactly as
// long as the family's outputs (ASan sees a write past one).
std::vector<ProviderRecord> Request(int pick, bool whole, std::vector<std::vector<int64_t>>* outputs) {
  std::vector<ProviderRecord> records;
  outputs->clear();
  for (int k = 0; k < 2; ++k) {
    const Scenario& s = Scenarios()[(pick + k) % 8];
    ProviderRecord r;
    r.scenario = static_cast<uint32_t>(k);
    r.s = &s;
    std::vector<ProviderGroupInput> groups;
    for (size_t g = 0; g < s.groups.size(); ++g) {
      ProviderGroupInput in;
      in.group = g;
      for (int o = 0; o < OutputCount(s.groups[g]); ++o) {
        outputs->emplace_back(static_cast<size_t>(s.batch.num_tokens));
        in.outputs[o] = outputs->back().data();
      }
      groups.push_back(in);
    }
    if (whole) {
      r.groups = groups;
      records.push_back(r);
    } else {
      for (const ProviderGroupInput& in : groups) {
        r.groups = {in};
        records.push_back(r);
      }
    }
  }
  return records;
}

void Die(const std::string& what) {
  std::fprintf(stderr, "slotguard: %s\n", what.c_str());
  std::abort();
}

void CheckText(const std::string& what, const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) Die(what + " holds control byte " + std::to_string(c) + ": '" + text + "'");
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0)
      Die(what + " holds a C1 control character: '" + text + "'");
  }
  try {
    (void)nlohmann::json(text).dump();
  } catch (const std::exception& e) {
    Die(what + " is not UTF-8 the JSON writer takes: " + e.what());
  }
}

void CheckProblem(const std::string& problem) {
  if (problem.empty() || problem.size() > 4096) Die("a refused reply's problem is empty or long");
  CheckText("a refused reply's problem", problem);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  WireBuffer in;
  in.bytes.assign(data + 1, data + size);
  std::string problem;
  if (data[0] & 0x80) {
    ProviderWelcome welcome;
    if (!GetWelcome(&in, &welcome, &problem)) {
      CheckProblem(problem);
      return 0;
    }
    CheckText("the provider's name", welcome.name);
    if (welcome.families.empty()) Die("a WELCOME with no family was accepted");
    return 0;
  }
  std::vector<std::vector<int64_t>> outputs;
  const std::vector<ProviderRecord> records = Request(data[0] & 7, (data[0] & 8) != 0, &outputs);
  if (size - 1 > MaxResultsBytes(records)) return 0;  // the frame reader refuses these before they are read
  std::vector<ProviderReply> replies;
  if (!GetResults(&in, kSequence, records, &replies, &problem)) {
    CheckProblem(problem);
    return 0;
  }
  if (replies.size() != records.size()) Die("RESULTS accepted with the wrong number of replies");
  // Only the answer to the RUN in flight is accepted: never another RUN's.
  uint32_t answered;
  std::memcpy(&answered, in.bytes.data() + 4, sizeof answered);
  if (answered != kSequence) Die("the answer to another RUN was accepted");
  for (const ProviderReply& reply : replies) CheckText("a reply's message", reply.message);
  return 0;
}
