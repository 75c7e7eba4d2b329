// `slotguard __worker` (hidden): the worker process of fault isolation,
// backend/worker_main.h. Exit 0 when slotguard is done with it or after a
// kernel fault, 2 on a malformed request.
#include "backend/worker_main.h"
#include "cli/commands.h"

namespace slotguard {

int RunWorker(const WorkerOptions& options, std::ostream& err) {
  return ServeWorker(options.backend, options.provider, err) ? kExitHolds : kExitBadInput;
}

}  // namespace slotguard
