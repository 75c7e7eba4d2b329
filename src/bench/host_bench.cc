#include "bench/host_bench.h"

#include <algorithm>

#include "bench/cpu_clock.h"
#include "registry/families.h"
#include "family/group_model.h"
#include "runner/scenario_run.h"

namespace slotguard {

bool BenchHostGroup(const Scenario& all, size_t group, Backend& backend, HostBenchRow* row, std::string* err) {
  const Group& g = all.groups[group];
  Scenario one = all;
  one.groups = {g};
  row->name = GetFamily(g.family).name;
  for (const Group& other : all.groups)  // with the group whose output its gate reads
    if (GateGroupIndex(all, g) >= 0 && other.name == all.groups[GateGroupIndex(all, g)].name) {
      one.groups = {other, g};
      row->name += std::string("+") + GetFamily(other.family).name;
    }
  row->token_checks = 0;
  for (const Group& each : one.groups)
    row->token_checks += static_cast<double>(all.batch.num_tokens) * OutputNames(each).size();
  ScenarioRun run;
  row->seconds = row->hand_seconds = 1e30;
  for (int i = 0; i < 6; ++i) {
    const bool hand = i % 2 == 1;
    const double start = CpuSeconds();
    if (!backend.Run(one, &run.kernel, err)) return false;
    CheckKernelOutputs(one, 8, &run, hand ? ReferenceSource::kHandWritten : ReferenceSource::kDescription);
    double& best = hand ? row->hand_seconds : row->seconds;
    best = std::min(best, CpuSeconds() - start);
  }
  return true;
}

}  // namespace slotguard
