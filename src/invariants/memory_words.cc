#include "invariants/memory_words.h"

#include <cstdio>

namespace slotguard {

std::string DescribeWord(const MemoryRun& memory, uint64_t word, int64_t* token) {
  *token = -1;
  int64_t t;
  int32_t group, w;
  if (DecodePayloadWord(word, &t, &group, &w)) {
    if (group == memory.group_index) {
      *token = t;
      return "token " + std::to_string(t) + "'s payload";
    }
    return "group " + std::to_string(group) + "'s payload (token " + std::to_string(t) + ")";
  }
  if (word == 0) return "zero";
  uint64_t poison;
  std::memset(&poison, kPoisonByte, sizeof(poison));
  if (word == poison) return "poison";
  char hex[32];
  std::snprintf(hex, sizeof(hex), "0x%016llx", static_cast<unsigned long long>(word));
  return hex;
}

std::string WithWhen(const MemoryRun& memory, std::string detail) {
  if (!memory.when.empty()) detail += ", " + memory.when;
  return detail;
}

Finding SlotFinding(const GroupRun& run, const MemoryRun& memory, const char* invariant, int64_t slot,
                    int64_t token, std::string detail) {
  Finding f;
  f.invariant = invariant;
  f.output = run.outputs.empty() ? run.group->name : run.outputs[0].name;
  const int64_t page = run.page();
  detail = "slot " + std::to_string(slot) + " (block " + std::to_string(slot / page) + "): " + detail;
  if (token >= 0 && token < static_cast<int64_t>(run.request_of_token->size())) {
    f.token = token;
    f.request = (*run.request_of_token)[token];
    f.position = run.batch().positions[token];
    f.has_values = true;
    f.kernel = (*run.outputs[0].kernel)[token];
    f.reference = (*run.outputs[0].reference)[token];
  }
  f.detail = WithWhen(memory, std::move(detail));
  return f;
}

}  // namespace slotguard
