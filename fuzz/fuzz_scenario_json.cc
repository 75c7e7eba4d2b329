// libFuzzer target: arbitrary bytes into the scenario loader. Every input is
// an error or a valid scenario, never a crash, leak or undefined behaviour;
// a valid scenario must survive write -> load unchanged.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scenario/scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotguard;
  LoadLimits limits;
  limits.max_tokens = 1 << 16;  // keep allocations small under ASan
  limits.max_requests = 1 << 12;
  limits.max_table_entries = 1 << 18;
  Scenario s;
  std::string err;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!ParseScenario(text, "input.json", limits, &s, &err)) {
    if (err.empty() || err.find('\n') != std::string::npos) {
      std::fprintf(stderr, "slotguard: load error is not one line: '%s'\n", err.c_str());
      std::abort();
    }
    return 0;
  }
  Scenario again;
  if (!ParseScenario(WriteScenarioJson(s), "rewritten.json", limits, &again, &err) || !(again == s)) {
    std::fprintf(stderr, "slotguard: write -> load changed the scenario: %s\n", err.c_str());
    std::abort();
  }
  return 0;
}
