// A chunk of scenarios run as consecutive slices side by side (the GPU
// backend's streams for another implementation, the isolated backend's
// workers), the outputs back in the chunk's order.
#ifndef SLOTGUARD_BACKEND_RUN_IN_SLICES_H_
#define SLOTGUARD_BACKEND_RUN_IN_SLICES_H_

#include <algorithm>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "util/parallel_for.h"

namespace slotguard {

/// run(i, slice, &slice_outputs, &slice_error) for slice i of `parts`, each
/// on its own thread. False with the first failing slice's *err.
template <class RunSlice>
bool RunInSlices(const std::vector<const Scenario*>& scenarios, size_t parts, RunSlice run,
                 std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) {
  parts = std::max<size_t>(parts, 1);
  const size_t per = (scenarios.size() + parts - 1) / parts;
  std::vector<std::vector<std::vector<GroupOutputs>>> part_outputs(parts);
  std::vector<std::string> part_errors(parts);
  std::vector<char> ok(parts, 1);
  ParallelFor(parts, static_cast<int>(parts), [&](size_t i) {
    const size_t begin = std::min(scenarios.size(), i * per), end = std::min(scenarios.size(), begin + per);
    const std::vector<const Scenario*> slice(scenarios.begin() + begin, scenarios.begin() + end);
    ok[i] = run(i, slice, &part_outputs[i], &part_errors[i]);
  });
  outputs->clear();
  for (size_t i = 0; i < parts; ++i) {
    if (!ok[i]) {
      *err = part_errors[i];
      return false;
    }
    for (auto& o : part_outputs[i]) outputs->push_back(std::move(o));
  }
  return true;
}

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_RUN_IN_SLICES_H_
