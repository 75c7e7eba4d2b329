// `slotguard __worker` (hidden): the worker process of fault isolation,
// setup/worker_main.h. Exit 0 when slotguard is done with it or after a
// kernel fault, 2 on a malformed request.
// With --describe: the child that loads a plugin before slotguard does
// (plugin/plugin_probe.h); exit 0 once it answered.
#include "setup/worker_main.h"
#include "cli/commands.h"
#include "plugin/plugin_probe.h"

namespace slotguard {

int RunWorker(const WorkerOptions& options, std::ostream& err) {
  if (options.describe) return AnswerPluginProbe(options.provider.kernel_lib);
  return ServeWorker(options.backend, options.provider, err) ? kExitHolds : kExitBadInput;
}

}  // namespace slotguard
