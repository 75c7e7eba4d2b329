// The messages of the kernel-provider protocol (--kernel-cmd), version 2:
// docs/provider-protocol.md is the byte layout; this is the one place that
// writes and reads it on slotguard's side. Frames are util/wire.h's (the
// worker processes' too), little-endian.
#ifndef SLOTGUARD_PLUGIN_PROVIDER_PROTOCOL_H_
#define SLOTGUARD_PLUGIN_PROVIDER_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "registry/variant_ids.h"
#include "scenario/scenario.h"
#include "util/wire.h"

namespace slotguard {

constexpr uint32_t kProviderProtocolVersion = 2;
/// The longest WELCOME slotguard reads, and the longest message of one
/// record in RESULTS (longer ones are malformed): a provider cannot make
/// slotguard allocate more than a RESULTS for its request can hold.
constexpr uint64_t kMaxWelcomeBytes = uint64_t{1} << 20;
constexpr uint32_t kMaxReplyMessageBytes = 1u << 16;
/// The longest provider name a WELCOME may carry.
constexpr uint32_t kMaxProviderNameBytes = 1u << 16;

/// RUN's flags.
constexpr uint32_t kRunSyncEachCall = 1;  // synchronize the device after each call (a fault is then its call's)
/// RESULTS' flags.
constexpr uint32_t kResultsExiting = 1;   // the provider exits after this reply (its device context is lost)

enum class ProviderMessage : uint32_t { kHello = 1, kRun = 2, kBye = 3, kWelcome = 101, kResults = 102 };
enum class ProviderStatus : uint32_t {
  kOk = 0,
  kError = 1,   // the call failed (an exception, a device fault): the scenario's no_fault
  kSkip = 2,    // the provider does not take the scenario
  kNotRun = 3,  // not run: an earlier call broke the process (a dead CUDA context); run it again elsewhere
};

/// HELLO: the device ("cpu" or "cuda") and every family with its code,
/// output names, parameter names and flags (from its description).
void PutHello(const std::string& device, WireBuffer* out);
void PutBye(WireBuffer* out);

struct ProviderWelcome {
  std::string name;
  bool whole_scenarios = false;  // mode 1
  std::vector<Family> families;
};
/// False with *problem ("protocol version 2; expected 1", "unknown family
/// \"pagd\"", "a provider name of 70000 bytes; expected at most 65536", "a
/// truncated WELCOME").
bool GetWelcome(WireBuffer* in, ProviderWelcome* welcome, std::string* problem);

/// One group of a record, as laid out for the provider.
struct ProviderGroupInput {
  size_t group = 0;                         // index in the scenario
  const int32_t* table = nullptr;           // the laid-out table memory
  uint64_t table_entries = 0;
  int32_t table_rows = 0, table_width = 0;
  int64_t table_row_stride = 0;
  int32_t common_group = -1;                // the gate's linked group, when the provider runs it too
  const int64_t* common = nullptr;          // or the gate's mapping inline, [num_tokens] (nullptr: none)
  int64_t* outputs[2] = {nullptr, nullptr}; // where an answer's outputs go ([output_length] each, the family's count)
  // Elements of each output: the plan's (PlanStep::output_length); -1:
  // OutputLength of the group over the record's batch.
  int64_t output_length = -1;
};

/// One record: one call (mode 0) or a scenario's calls (mode 1).
struct ProviderRecord {
  uint32_t scenario = 0;                    // ordinal in the message
  const Scenario* s = nullptr;
  const std::vector<int32_t>* seq_lens_i32 = nullptr;
  const std::vector<int32_t>* request_of_token = nullptr;
  std::vector<ProviderGroupInput> groups;
};

/// RUN number `sequence` (RESULTS must echo it), with `flags` (kRunSyncEachCall).
void PutRun(uint32_t sequence, uint32_t flags, const std::vector<ProviderRecord>& records, WireBuffer* out);

/// A record's answer. With kOk its outputs went straight to its groups'
/// ProviderGroupInput::outputs.
struct ProviderReply {
  ProviderStatus status = ProviderStatus::kOk;
  uint32_t group = 0;       // kError: the failing group's index in the scenario
  std::string message;      // kError, kSkip, kNotRun
};

/// The largest RESULTS that answers `records`.
uint64_t MaxResultsBytes(const std::vector<ProviderRecord>& records);

/// Reads RESULTS, writing each answered record's outputs to its groups'
/// destinations. False with *problem when RESULTS does not answer RUN
/// `sequence` and its `records` exactly (destinations may then hold part of
/// an answer) (an answer to another RUN: "the answer to RUN 6; expected
/// RUN 7's").
bool GetResults(WireBuffer* in, uint32_t sequence, const std::vector<ProviderRecord>& records,
                std::vector<ProviderReply>* replies, std::string* problem, uint32_t* flags = nullptr);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_PROVIDER_PROTOCOL_H_
