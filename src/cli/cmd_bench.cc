// `slotguard bench`: speed figures as ratios measured in one run, never as
// pass/fail thresholds (the machines are shared and noisy).
//   GPU: paged mapping bytes/s over a device-to-device copy of the same bytes.
//   host: backend + reference + all invariants, token-checks per second on one core.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "backend/gpu_device.h"
#include "bench/bench_scenario.h"
#include "bench/gpu_bench.h"
#include "bench/host_bench.h"
#include "bench/reference_bench.h"
#include "cli/commands.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

template <class... Args>
std::string Format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, static_cast<double>(args)...);
  return buf;
}

/// A row's name, padded to the table's first column.
std::string Label(const std::string& name) { return name + std::string(name.size() < 16 ? 16 - name.size() : 0, ' '); }

// Wall time of the gate over scenarios/ (with the writers): the whole
// command, loading and process start-up of isolated workers included.
void TimeGate(BackendKind backend, std::ostream& out) {
  if (!std::filesystem::is_directory("scenarios")) return;
  for (bool writers : {false, true}) {
    CheckOptions check;
    check.backend = backend;
    check.quiet = true;
    check.setup.writers = writers;
    std::ostringstream sink;
    const auto start = std::chrono::steady_clock::now();
    const int code = RunCheck(check, sink, sink);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << (backend == BackendKind::kGpu ? "gpu" : "host") << ": check " << (writers ? "--writers " : "")
        << Format("scenarios/ in %.3f s (exit %.0f; goal < 1 s)\n", seconds, code);
  }
}

bool BenchHost(const BenchOptions& options, std::ostream& out, std::string* err) {
  const Scenario all = MakeBenchScenario(options.host_tokens, 7);
  out << Format("host: %.0f tokens, %.0f requests; backend (both geometries) + reference + all "
                "invariants, per CPU second (goal >= 20 M token-checks/s)",
                all.batch.num_tokens, all.batch.num_reqs())
      << "; the reference interpreted, and hand-written (without the facts, so without live_maps), "
         "alternating runs, best of 3 each\n";
  out << "  family                 interpreted reference   hand-written reference   ratio\n";
  std::unique_ptr<Backend> host = MakeHostBackend();
  for (size_t g = 0; g < all.groups.size(); ++g) {
    HostBenchRow row;
    if (!BenchHostGroup(all, g, *host, &row, err)) return false;
    char name[40];
    std::snprintf(name, sizeof name, "  %-21s", row.name.c_str());
    out << name
        << Format("%7.3f s %6.1f M/s     %7.3f s %6.1f M/s    %5.2f\n", row.seconds,
                  row.token_checks / row.seconds / 1e6, row.hand_seconds, row.token_checks / row.hand_seconds / 1e6,
                  row.hand_seconds / row.seconds);
  }
  TimeGate(BackendKind::kHost, out);
  return true;
}

}  // namespace

// --references N: every built-in kernel family's generated scenarios through
// the interpreter and the hand-written reference; they must agree.
int CompareAllReferences(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  // The campaign's figure on a sample: at most kCampaignSample scenarios per family.
  constexpr int64_t kCampaignSample = 20000;
  const int64_t every = std::max<int64_t>(1, options.references / kCampaignSample);
  std::unique_ptr<Backend> host = MakeHostBackend();
  out << "references: " << options.references << " generated scenarios per family (every other one "
      << "inconsistent), seed " << options.seed << "; the interpreter (with the invariants' facts) against the "
      << "hand-written reference, bit for bit\n"
      << "campaign: every " << every << (every == 1 ? "st" : "th")
      << " scenario generated, run on the host backend and checked by every invariant, once through each "
         "reference (the hand-written one without the facts, so without live_maps), in CPU seconds; the "
         "reference stage on the steady clock\n";
  out << "                                                           reference stage              host campaign\n"
      << "family            scenarios  token-outputs  mismatches  interpreter/s     hand/s  ratio  interpreter/s"
         "     hand/s  ratio\n";
  bool all_agree = true;
  for (const FamilyInfo& f : AllFamilies()) {
    if (!f.kernel) continue;
    ReferenceBenchRow row;
    std::string why;
    if (!CompareReferences(f.family, options.references, options.seed, host.get(), every, &row, &why)) {
      err << ErrorLine("bench: " + why);
      return kExitEnvironment;
    }
    const double interp = row.scenarios / row.interpreter_seconds, hand = row.scenarios / row.hand_seconds;
    const double c_interp = row.campaign_scenarios / row.campaign_interpreter_seconds;
    const double c_hand = row.campaign_scenarios / row.campaign_hand_seconds;
    out << Label(row.family)
        << Format("%11.0f %14.0f %11.0f %14.0f %10.0f %6.2f %14.0f %10.0f %6.2f\n", row.scenarios, row.tokens,
                  row.mismatches, interp, hand, interp / hand, c_interp, c_hand, c_interp / c_hand);
    if (row.mismatches) {
      out << "  first mismatch: " << row.first << "\n";
      all_agree = false;
    }
  }
  return all_agree ? kExitHolds : kExitFindings;
}

int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  if (options.references > 0) return CompareAllReferences(options, out, err);
  std::string why = "--backend host";
  const bool gpu = options.backend != BackendKind::kHost && GpuUsable(&why);
  if (options.backend == BackendKind::kGpu && !gpu) {
    err << ErrorLine("--backend gpu: " + why);
    return kExitEnvironment;
  }
  if (gpu) {
    std::vector<GpuBenchRow> rows;
    if (!BenchGpu(options.tokens, options.repeats, &rows, &why)) {
      err << ErrorLine("bench: " + why);
      return kExitEnvironment;
    }
    out << "gpu: " << GpuDescription() << ", median of " << options.repeats
        << " launches; ratio = kernel bytes/s over a device-to-device copy of the same bytes\n";
    out << "family              tokens  requests     MB   copy us  engine us  engine ratio   flat us  flat ratio\n";
    for (const GpuBenchRow& r : rows) {
      out << Label(r.family)
          << Format("%10.0f %9.0f %6.1f %9.1f %10.1f %13.3f %9.1f %11.3f\n", r.tokens, r.requests,
                    r.bytes / 1e6, r.copy_us, r.engine_us, r.copy_us / r.engine_us, r.flat_us,
                    r.copy_us / r.flat_us);
    }
    std::vector<WriterBenchRow> writer_rows;
    if (!BenchGpuWriters(options.tokens, options.repeats, options.head_bytes, &writer_rows, &why)) {
      err << ErrorLine("bench: " + why);
      return kExitEnvironment;
    }
    out << "writers (" << options.head_bytes << " bytes per slot, every token a distinct slot); ratio = writer "
        << "bytes/s over a device-to-device copy of the same bytes\n";
    out << "writer              tokens       MB   copy us  writer us  ratio\n";
    for (const WriterBenchRow& r : writer_rows) {
      out << Label(r.writer)
          << Format("%10.0f %8.1f %9.1f %10.1f %6.3f\n", r.tokens, r.bytes / 1e6, r.copy_us, r.writer_us,
                    r.copy_us / r.writer_us);
    }
    TimeGate(BackendKind::kGpu, out);
  } else {
    out << "gpu: skipped (" << why << ")\n";
  }
  if (!BenchHost(options, out, &why)) {
    err << ErrorLine("bench: host backend: " + why);
    return kExitEnvironment;
  }
  return kExitHolds;
}

}  // namespace slotguard
