#include "bench/reference_bench.h"

#include <chrono>

#include "bench/cpu_clock.h"
#include "fuzzing/generators.h"
#include "reference/reference.h"
#include "runner/scenario_run.h"

namespace slotguard {

bool CompareReferences(Family family, int64_t scenarios, uint64_t seed, Backend* backend, int64_t campaign_every,
                       ReferenceBenchRow* row, std::string* err) {
  if (!GetFamily(family).kernel) {
    *err = std::string("family ") + GetFamily(family).name + " has no hand-written reference";
    return false;
  }
  *row = ReferenceBenchRow();
  row->family = GetFamily(family).name;
  GeneratorOptions options;
  options.families = {family};
  GeneratorOptions inconsistent = options;
  inconsistent.inconsistent = true;
  using Clock = std::chrono::steady_clock;
  for (int64_t i = 0; i < scenarios; ++i) {
    // The campaign's work is timed in CPU seconds (a few tens of
    // microseconds a scenario, where the clock's own cost is small); the
    // reference stage, about a microsecond by hand, on the steady clock.
    const bool campaign = backend && i % campaign_every == 0;
    double cpu_start = campaign ? CpuSeconds() : 0;
    RandomChoices choices(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i));
    const Scenario s = GenerateScenario(choices, i % 2 ? inconsistent : options);
    const double generate = campaign ? CpuSeconds() - cpu_start : 0;
    ++row->scenarios;
    if (campaign) {
      // The campaign's work, once per reference, in alternating order.
      for (int k = 0; k < 2; ++k) {
        const bool hand = (k + i / campaign_every) % 2 == 1;
        ScenarioRun run;
        cpu_start = CpuSeconds();
        if (!backend->Run(s, &run.kernel, err)) return false;
        CheckKernelOutputs(s, 1, &run, hand ? ReferenceSource::kHandWritten : ReferenceSource::kDescription);
        (hand ? row->campaign_hand_seconds : row->campaign_interpreter_seconds) += generate + CpuSeconds() - cpu_start;
      }
      ++row->campaign_scenarios;
    }
    auto start = Clock::now();
    std::vector<Interpretation> interpreted;
    std::string why;
    const bool ok = ScenarioReference(s, /*facts=*/true, &interpreted, &why);
    row->interpreter_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<std::vector<std::vector<int64_t>>> hand(s.groups.size());
    start = Clock::now();
    for (size_t g = 0; g < s.groups.size(); ++g) HandReference(s, s.groups[g], &hand[g]);
    row->hand_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    for (size_t g = 0; g < s.groups.size(); ++g) {
      if (hand[g].empty()) continue;  // a family without a hand reference
      ++row->groups;
      const auto& interp = ok ? interpreted[g].slots : std::vector<std::vector<int64_t>>();
      bool same = interp.size() == hand[g].size();
      for (size_t o = 0; same && o < interp.size(); ++o) {
        row->tokens += static_cast<int64_t>(interp[o].size());
        same = interp[o] == hand[g][o];
        for (size_t t = 0; !same && row->first.empty() && t < interp[o].size(); ++t)
          if (interp[o][t] != hand[g][o][t])
            row->first = "scenario " + std::to_string(i) + " (seed " + std::to_string(seed) + ") group " +
                         s.groups[g].name + " output " + std::to_string(o) + " token " + std::to_string(t) +
                         ": interpreter " + std::to_string(interp[o][t]) + ", hand-written " +
                         std::to_string(hand[g][o][t]);
      }
      if (!same) {
        ++row->mismatches;
        if (row->first.empty())
          row->first = "scenario " + std::to_string(i) + " group " + s.groups[g].name + ": " +
                       (ok ? "a different number of outputs" : "the interpreter failed: " + why);
      }
    }
  }
  return true;
}

}  // namespace slotguard
