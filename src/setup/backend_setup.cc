#include "setup/backend_setup.h"

#include <cstdlib>

#include "backend/cuda_device_select.h"
#include "backend/gpu_device.h"
#include "backend/isolated_backend.h"
#include "plugin/open_provider.h"
#include "plugin/provider_processes.h"
#include "registry/families.h"
#include "util/error_line.h"
#include "writers/payload.h"

namespace slotguard {
namespace {

WriterOptions Writers(const RunSetup& setup) {
  WriterOptions writers;
  writers.head_bytes = setup.writers || setup.cuda_graph ? setup.head_bytes : 0;
  writers.max_cache_bytes = setup.max_cache_mib << 20;
  return writers;
}

/// Fault isolation: asked for, or by default on the gpu backend and for
/// another implementation.
bool Isolates(const RunSetup& setup, const std::string& backend_name, bool provider) {
  return setup.isolate < 0 ? backend_name == "gpu" || provider : setup.isolate > 0;
}

// --kernel-cmd: the provider processes run their families on the device
// they are told; the host backend runs the plans (the rest on slotguard's
// host kernels), named after that device.
std::unique_ptr<Backend> OpenProviderBackend(BackendKind kind, const RunSetup& setup, std::string* problem) {
  const ProviderSource& source = setup.provider;
  if (!source.kernel_lib.empty() || !source.kernel_cubin.empty() || !source.kernel_spec.empty()) {
    *problem = "--kernel-cmd and --kernel-lib/--kernel-cubin: expected one of them, not both";
    return nullptr;
  }
  if (setup.cuda_graph) {
    *problem = "--cuda-graph with --kernel-cmd: a provider's launches happen in its own process; expected "
               "--kernel-lib or --kernel-cubin for graph replays";
    return nullptr;
  }
  ProviderCommand command;
  command.command = source.kernel_cmd;
  std::string why;
  command.device = kind == BackendKind::kGpu || (kind == BackendKind::kAuto && GpuUsable(&why)) ? "cuda" : "cpu";
  command.timeout_seconds = setup.timeout_seconds;
  std::shared_ptr<MappingProvider> processes = OpenProviderProcesses(command, problem);
  if (!processes) return nullptr;
  std::unique_ptr<Backend> backend = MakeHostBackend(command.device == "cuda" ? "gpu" : "host");
  backend->set_provider(processes);
  backend->set_writers(Writers(setup));  // no --cuda-graph here (refused above)
  return backend;
}

}  // namespace

std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::string* problem,
                                     bool* environment) {
  *environment = false;
  if (setup.device >= 0 && !SelectCudaDevice(setup.device, problem)) return nullptr;
  if ((setup.writers || setup.cuda_graph) &&
      (setup.head_bytes < kPayloadWordBytes || setup.head_bytes > kMaxHeadBytes ||
       setup.head_bytes % kPayloadWordBytes != 0)) {
    *problem = "--head-bytes " + std::to_string(setup.head_bytes) + ": expected a multiple of " +
               std::to_string(kPayloadWordBytes) + " from " + std::to_string(kPayloadWordBytes) + " to " +
               std::to_string(kMaxHeadBytes);
    return nullptr;
  }
  std::string why;
  if (!setup.provider.kernel_cmd.empty()) return OpenProviderBackend(kind, setup, problem);
  std::shared_ptr<MappingProvider> provider;
  if (!setup.provider.empty()) {
    if (!setup.provider.kernel_cubin.empty() && kind == BackendKind::kHost) {
      *problem = "--kernel-cubin runs on the gpu backend; expected --backend gpu or auto";
      return nullptr;
    }
    if (!setup.provider.kernel_cubin.empty() && !GpuUsable(&why)) {
      *problem = "--kernel-cubin: " + why;
      *environment = true;
      return nullptr;
    }
    // Isolated (the default with another implementation) nothing of a
    // plugin runs here: a child process loads it and describes it.
    provider = OpenProviderForSlotguard(setup.provider, /*in_process=*/setup.isolate == 0, setup.timeout_seconds, &why);
    if (!provider) {
      *problem = why;
      return nullptr;
    }
  }
  std::unique_ptr<Backend> backend = MakeBackend(kind, &why);
  if (!backend) {
    *problem = "--backend gpu: " + why;
    if (setup.device >= 0)
      *problem += " (--device " + std::to_string(setup.device) + ": CUDA_VISIBLE_DEVICES=" +
                  EscapeText(std::getenv("CUDA_VISIBLE_DEVICES"), 0) + ")";
    *environment = true;
    return nullptr;
  }
  if (provider && std::string(backend->name()) == "host" && !provider->has_host()) {
    *problem = provider->name() +
               " has no host entry point (slotguard_plugin_launch_host); expected --backend gpu on a machine with a GPU";
    return nullptr;
  }
  if (Isolates(setup, backend->name(), provider != nullptr)) {
    if (WorkerExecutable().empty()) {
      *problem = "--isolate: no slotguard executable registered to run as the worker";
      return nullptr;
    }
    IsolationOptions isolation;
    isolation.backend_name = backend->name();
    isolation.worker_args = {"__worker", "--backend", isolation.backend_name};
    // The worker registers the same family files, in order: the same ids.
    for (const std::string& file : UserFamilyFiles()) isolation.worker_args.insert(isolation.worker_args.end(), {"--family-file", file});
    for (const std::string& arg : setup.provider.WorkerArgs()) isolation.worker_args.push_back(arg);
    isolation.timeout_seconds = setup.timeout_seconds;
    backend = MakeIsolatedBackend(isolation);
  }
  backend->set_provider(provider);  // the worker runs it; here it names the reports
  backend->set_writers(Writers(setup));
  return backend;
}

RunFootprint FootprintOf(const Backend& backend, const RunSetup& setup) {
  RunFootprint f;
  // A --kernel-cmd provider process is not a worker: it holds the message
  // and the answers of the groups it runs only (memory_estimate.h).
  f.provider_process = !setup.provider.kernel_cmd.empty();
  f.isolated = !f.provider_process && Isolates(setup, backend.name(), backend.provider() != nullptr);
  if (f.provider_process && backend.provider())
    for (Family family : backend.provider()->families()) f.provided_families |= 1u << static_cast<int>(family);
  f.device = std::string(backend.name()) == "gpu";
  const WriterOptions writers = Writers(setup);
  f.head_bytes = writers.head_bytes;
  f.max_cache_bytes = writers.max_cache_bytes;
  f.graph_replays = setup.cuda_graph;
  return f;
}

FoundBy FoundByOf(const Backend& backend, const RunSetup& setup) {
  FoundBy found;
  found.present = true;
  found.backend = backend.name();
  found.kernel_lib = setup.provider.kernel_lib;
  found.kernel_cubin = setup.provider.kernel_cubin;
  found.kernel_spec = setup.provider.kernel_spec;
  found.kernel_cmd = setup.provider.kernel_cmd;
  found.writers = setup.writers;
  if (setup.writers && setup.head_bytes != RunSetup().head_bytes) found.head_bytes = setup.head_bytes;
  return found;
}

}  // namespace slotguard
