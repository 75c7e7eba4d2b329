// `slotguard bench`: speed figures as ratios measured in one run, never as
// pass/fail thresholds (the machines are shared and noisy).
//   GPU: paged mapping bytes/s over a device-to-device copy of the same bytes.
//   host: backend + reference + all invariants, token-checks per second on one core.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "backend/gpu_device.h"
#include "bench/bench_scenario.h"
#include "bench/gpu_bench.h"
#include "cli/commands.h"
#include "runner/scenario_run.h"

namespace slotguard {
namespace {

template <class... Args>
std::string Format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, static_cast<double>(args)...);
  return buf;
}

void BenchHost(const BenchOptions& options, std::ostream& out) {
  const Scenario s = MakeBenchScenario(options.host_tokens, 7);
  std::unique_ptr<Backend> host = MakeHostBackend();
  ScenarioRun run;
  std::string err;
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    RunScenario(s, *host, 8, &run, &err);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double tokens = static_cast<double>(s.batch.num_tokens);
  out << Format("host: %.0f tokens, %.0f requests: backend (both geometries) + reference + all "
                "invariants in %.3f s = %.1f M token-checks/s on one core (goal >= 20)\n",
                tokens, s.batch.num_reqs(), best, tokens / best / 1e6);
  if (std::filesystem::is_directory("scenarios")) {
    CheckOptions check;
    check.backend = BackendKind::kHost;
    check.quiet = true;
    std::ostringstream sink;
    const auto start = std::chrono::steady_clock::now();
    const int code = RunCheck(check, sink, sink);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << Format("host: check scenarios/ in %.3f s (exit %.0f; goal < 1 s)\n", seconds, code);
  }
}

}  // namespace

int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  std::string why = "--backend host";
  const bool gpu = options.backend != BackendKind::kHost && GpuUsable(&why);
  if (options.backend == BackendKind::kGpu && !gpu) {
    err << "slotguard: error: --backend gpu: " << why << "\n";
    return kExitEnvironment;
  }
  if (gpu) {
    std::vector<GpuBenchRow> rows;
    if (!BenchPagedGpu(options.tokens, options.repeats, &rows, &why)) {
      err << "slotguard: error: bench: " << why << "\n";
      return kExitEnvironment;
    }
    out << "gpu: " << GpuDescription() << ", paged mapping, median of " << options.repeats
        << " launches; ratio = kernel bytes/s over a device-to-device copy of the same bytes\n";
    out << "   tokens  requests     MB   copy us  engine us  engine ratio   flat us  flat ratio\n";
    for (const GpuBenchRow& r : rows)
      out << Format("%9.0f %9.0f %6.1f %9.1f %10.1f %13.3f %9.1f %11.3f\n", r.tokens, r.requests,
                    r.bytes / 1e6, r.copy_us, r.engine_us, r.copy_us / r.engine_us, r.flat_us,
                    r.copy_us / r.flat_us);
  } else {
    out << "gpu: skipped (" << why << ")\n";
  }
  BenchHost(options, out);
  return kExitHolds;
}

}  // namespace slotguard
