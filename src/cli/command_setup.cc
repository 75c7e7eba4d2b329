#include "cli/command_setup.h"

#include "backend/gpu_device.h"
#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "runner/scenario_files.h"
#include "util/error_line.h"
#include "writers/payload.h"

namespace slotguard {

std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::ostream& err, int* exit_code) {
  int unused;
  if (!exit_code) exit_code = &unused;
  *exit_code = kExitBadInput;
  if ((setup.writers || setup.cuda_graph) &&
      (setup.head_bytes < kPayloadWordBytes || setup.head_bytes > kMaxHeadBytes ||
       setup.head_bytes % kPayloadWordBytes != 0)) {
    err << ErrorLine("--head-bytes " + std::to_string(setup.head_bytes) + ": expected a multiple of " +
                     std::to_string(kPayloadWordBytes) + " from " + std::to_string(kPayloadWordBytes) + " to " +
                     std::to_string(kMaxHeadBytes));
    return nullptr;
  }
  std::string why;
  std::shared_ptr<MappingProvider> provider;
  if (!setup.provider.empty()) {
    if (!setup.provider.kernel_cubin.empty() && kind == BackendKind::kHost) {
      err << ErrorLine("--kernel-cubin runs on the gpu backend; expected --backend gpu or auto");
      return nullptr;
    }
    if (!setup.provider.kernel_cubin.empty() && !GpuUsable(&why)) {
      err << ErrorLine("--kernel-cubin: " + why);
      *exit_code = kExitEnvironment;
      return nullptr;
    }
    provider = OpenProvider(setup.provider, &why);
    if (!provider) {
      err << ErrorLine(why);
      return nullptr;
    }
  }
  std::unique_ptr<Backend> backend = MakeBackend(kind, &why);
  if (!backend) {
    err << ErrorLine("--backend gpu: " + why);
    *exit_code = kExitEnvironment;
    return nullptr;
  }
  if (provider && std::string(backend->name()) == "host" && !provider->has_host()) {
    err << ErrorLine(provider->name() +
                     " has no host entry point (slotguard_plugin_launch_host); expected --backend gpu on a machine with a GPU");
    return nullptr;
  }
  const bool isolate = setup.isolate < 0 ? std::string(backend->name()) == "gpu" || provider : setup.isolate > 0;
  if (isolate) {
    if (WorkerExecutable().empty()) {
      err << ErrorLine("--isolate: no slotguard executable registered to run as the worker");
      return nullptr;
    }
    IsolationOptions isolation;
    isolation.backend_name = backend->name();
    isolation.worker_args = {"__worker", "--backend", isolation.backend_name};
    for (const std::string& arg : setup.provider.WorkerArgs()) isolation.worker_args.push_back(arg);
    isolation.timeout_seconds = setup.timeout_seconds;
    backend = MakeIsolatedBackend(isolation);
  }
  backend->set_provider(provider);  // the worker runs it; here it names the reports
  WriterOptions writers;
  writers.head_bytes = setup.writers || setup.cuda_graph ? setup.head_bytes : 0;
  writers.max_cache_bytes = setup.max_cache_mib << 20;
  backend->set_writers(writers);
  return backend;
}

bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err) {
  std::string problem;
  if (CollectScenarioFiles(paths, files, &problem)) return true;
  err << ErrorLine(problem);
  return false;
}

}  // namespace slotguard
