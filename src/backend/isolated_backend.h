// Fault isolation: a backend whose kernels run in a worker process
// (`slotguard __worker`). An illegal memory access poisons a CUDA context
// for the rest of its process, and a crashing or hanging kernel takes its
// process down; here either ends one worker, the scenario it was running
// gets a `no_fault` finding (GroupOutputs::fault), and the next scenario
// starts a fresh worker. Workers are kept between scenarios, one per
// thread that runs scenarios concurrently, in the process pool that also
// keeps the provider processes (util/process_pool.h).
#ifndef SLOTGUARD_BACKEND_ISOLATED_BACKEND_H_
#define SLOTGUARD_BACKEND_ISOLATED_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "util/worker_executable.h"  // the worker is WorkerExecutable()

namespace slotguard {

struct IsolationOptions {
  std::string backend_name;               // "gpu" or "host": what the worker runs, and name()
  std::vector<std::string> worker_args;   // after the executable, e.g. {"__worker", "--backend", "gpu"}
  double timeout_seconds = 120;           // per request; 0: none
};

std::unique_ptr<Backend> MakeIsolatedBackend(const IsolationOptions& options);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_ISOLATED_BACKEND_H_
