// slotguard command line: parses flags (CLI11) and calls the commands in
// cli/commands.h. Nothing else lives here.
#include <algorithm>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "util/error_line.h"

#ifndef SLOTGUARD_VERSION
#define SLOTGUARD_VERSION "unknown"
#endif

namespace {

using slotguard::BackendKind;

const std::map<std::string, BackendKind> kBackends = {
    {"auto", BackendKind::kAuto}, {"gpu", BackendKind::kGpu}, {"host", BackendKind::kHost}};

void AddBackend(CLI::App* cmd, BackendKind* backend) {
  cmd->add_option("--backend", *backend,
                  "auto (gpu when a device is usable, else host), gpu (CUDA kernels; exit 3 "
                  "without a device) or host (the same kernel source on the CPU)")
      ->transform(CLI::CheckedTransformer(kBackends, CLI::ignore_case))
      ->default_str("auto");
}

void AddLimits(CLI::App* cmd, slotguard::LoadLimits* limits) {
  cmd->add_option("--max-tokens", limits->max_tokens, "largest num_tokens a scenario may have")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-requests", limits->max_requests, "most requests a scenario may have")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-table-entries", limits->max_table_entries,
                  "most block-table entries per group, padded to the farthest column a position selects")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-file-mib", limits->max_file_mib, "largest scenario file read, in MiB")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
}

void AddRunSetup(CLI::App* cmd, slotguard::RunSetup* setup, bool graph) {
  cmd->add_flag("--writers", setup->writers,
                "run the cache writers after the mappings on a pool per group (block 0 zero, the rest "
                "poison) and check null_bytes and write_set on the memory");
  cmd->add_option("--head-bytes", setup->head_bytes, "bytes per slot in the writers' pools (multiple of 8)")
      ->capture_default_str();
  cmd->add_option("--max-cache-mib", setup->max_cache_mib,
                  "largest pool per group for the writers; a bigger group skips the writers and the memory invariants (the report says so)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  if (graph)
    cmd->add_flag("--cuda-graph", setup->cuda_graph,
                  "capture mappings + writers into a CUDA graph at the padded capture size (1, 2, 4, "
                  ".., 512 tokens), replay the real batch, then a dummy batch and an idle DP rank's "
                  "batch on the same buffers, checking null_bytes after each (implies --writers)");
  CLI::Option* isolate = cmd->add_flag_callback(
      "--isolate", [setup] { setup->isolate = 1; },
      "run the kernels in worker processes, so that a fault (illegal address, crash, timeout) is a "
      "no_fault finding for its scenario and the run goes on (default: on for the gpu backend, except "
      "in fuzz, and for --kernel-lib/--kernel-cubin)");
  cmd->add_flag_callback("--no-isolate", [setup] { setup->isolate = 0; },
                         "run the kernels in this process (a CUDA error then ends the run, exit 3)")
      ->excludes(isolate);
  cmd->add_option("--timeout", setup->timeout_seconds,
                  "seconds per scenario in an isolated run, per message to a --kernel-cmd provider (0: none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--kernel-lib", setup->provider.kernel_lib,
                  "a plugin (.so, include/slotguard/plugin.h) whose mapping kernels replace slotguard's own for "
                  "the families it implements");
  cmd->add_option("--kernel-cubin", setup->provider.kernel_cubin,
                  "a compiled kernel (cubin, fatbin or PTX, e.g. from Triton's cache) to check, launched as "
                  "--kernel-spec says (gpu backend)");
  cmd->add_option("--kernel-spec", setup->provider.kernel_spec,
                  "JSON: the --kernel-cubin kernel's family, symbol, parameters and grid (see docs/bring-your-own-kernel.md)");
  cmd->add_option("--kernel-cmd", setup->provider.kernel_cmd,
                  "\"COMMAND ARGS\": a long-lived provider process (e.g. the engine's own Triton launcher behind "
                  "python/slotguard's serve()) that runs the families it names, many scenarios per message "
                  "(docs/provider-protocol.md); --backend gpu tells it to run on CUDA");
  const std::vector<std::string>& layouts = slotguard::TableLayoutNames();
  cmd->add_option_function<std::string>(
         "--table-layout",
         [setup, &layouts](const std::string& name) {
           setup->table_layout = static_cast<slotguard::TableLayoutKind>(
               std::find(layouts.begin(), layouts.end(), name) - layouts.begin());
         },
         "lay every block table out so in memory for the kernel, instead of each scenario's table_layout (fuzz: "
         "instead of varying it): padded (poison after each row), tight (row stride = width: the next row follows "
         "directly, poison after the last) or strided (other rows' block ids after each row). A correct kernel "
         "gives the same outputs in every layout")
      ->check(CLI::IsMember(layouts));
}

// The running executable, for the worker processes of fault isolation.
std::string SelfExecutable(const char* argv0) {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return argv0;
  path[n] = 0;
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "slotguard: proves that KV-cache slot-mapping kernels never write into block 0, the "
      "null block.\nRuns the CUDA kernels (or the same source on the host) and an independent "
      "CPU reference over scenario files, compares them bit for bit and checks invariants.\n"
      "Exit codes: 0 every scenario holds, 1 at least one does not, 2 bad input or usage, "
      "3 environment (no usable GPU, CUDA error)."};
  app.set_version_flag("--version", "slotguard " SLOTGUARD_VERSION);
  app.require_subcommand(1);
  slotguard::SetWorkerExecutable(SelfExecutable(argv[0]));

  slotguard::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "CI gate: every scenario under PATHs, every group, backend vs reference, all "
               "invariants");
  check_cmd->add_option("paths", check.paths, "scenario files or directories (recursive *.json)")
      ->capture_default_str();
  AddBackend(check_cmd, &check.backend);
  AddRunSetup(check_cmd, &check.setup, true);
  check_cmd->add_option("--variant", check.variant,
                        "force a variant on every group whose family has it, or 'all' to run "
                        "each scenario once per variant (see `slotguard list`)");
  check_cmd->add_option("--junit", check.junit_path, "write a JUnit XML report");
  check_cmd->add_option("--json", check.json_path, "write a JSON report");
  check_cmd->add_option("-j,--jobs", check.jobs, "scenarios checked in parallel")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  check_cmd->add_flag("-v,--verbose", check.verbose,
                      "also print the findings of scenarios that hold (expected findings)");
  check_cmd->add_flag("-q,--quiet", check.quiet, "print only what fails, and the summary");
  AddLimits(check_cmd, &check.limits);

  slotguard::ReplayOptions replay;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay", "one scenario, verbose: per-token table and the blocks each request wrote");
  replay_cmd->add_option("file", replay.file, "the scenario file")->required();
  AddBackend(replay_cmd, &replay.backend);
  AddRunSetup(replay_cmd, &replay.setup, true);
  replay_cmd->add_option("--variant", replay.variant, "force a variant (see `slotguard list`)");
  replay_cmd->add_flag("--all-tokens", replay.all_tokens,
                       "print every token, also in scenarios over 256 tokens, and every finding");
  replay_cmd->add_option("--max-findings", replay.max_findings,
                         "findings listed per invariant and group (0: all; default 8, as check)");
  AddLimits(replay_cmd, &replay.limits);

  slotguard::MutantsOptions mutants;
  CLI::App* mutants_cmd = app.add_subcommand(
      "mutants", "control experiment: every historical variant forced over the scenarios; "
                 "exit 1 when a variant survives or a fixed kernel has findings");
  mutants_cmd->add_option("paths", mutants.paths, "scenario files or directories")->capture_default_str();
  AddBackend(mutants_cmd, &mutants.backend);
  AddRunSetup(mutants_cmd, &mutants.setup, false);
  mutants_cmd->add_option("-j,--jobs", mutants.jobs, "scenarios run in parallel")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  AddLimits(mutants_cmd, &mutants.limits);

  slotguard::FuzzOptions fuzz;
  CLI::App* fuzz_cmd = app.add_subcommand(
      "fuzz", "generate engine-consistent scenarios and check them; on a finding, write the "
              "minimized scenario (no expect) to --out and exit 1");
  fuzz_cmd->add_option("--family", fuzz.families, "fuzz only these families (repeatable)");
  fuzz_cmd->add_option("--variant", fuzz.variant,
                       "force a variant on the groups whose family has it (a mutant to find)");
  fuzz_cmd->add_option("--time", fuzz.seconds, "seconds to run (default 60, unbounded with --runs)")
      ->check(CLI::NonNegativeNumber);
  fuzz_cmd->add_option("--runs", fuzz.runs, "scenarios to check")->check(CLI::NonNegativeNumber);
  fuzz_cmd->add_option("--seed", fuzz.seed, "campaign seed: the same seed checks the same scenarios")
      ->capture_default_str();
  fuzz_cmd->add_option("--out", fuzz.out_dir, "directory for the reproducer")->capture_default_str();
  AddBackend(fuzz_cmd, &fuzz.backend);
  AddRunSetup(fuzz_cmd, &fuzz.setup, false);
  fuzz_cmd->add_option("-j,--jobs", fuzz.jobs, "threads")->capture_default_str()->check(CLI::Range(1, 1024));
  fuzz_cmd->add_option("--json", fuzz.json_path, "write a JSON summary");
  fuzz_cmd->add_option("--max-requests", fuzz.max_requests,
                       "most requests per generated batch (small batches: more scenarios per second)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  fuzz_cmd->add_flag("--inconsistent", fuzz.inconsistent,
                     "also generate runner-state faults (unmarked dummies, live requests on zero columns)");

  slotguard::ImportOptions import;
  CLI::App* import_cmd =
      app.add_subcommand("import", "turn a fuzz_mapping libFuzzer artifact into a scenario file");
  import_cmd->add_option("file", import.file, "the artifact (crash-..., or any corpus input)")->required();
  import_cmd->add_option("-o,--out", import.out, "scenario file to write (default: stdout)");
  import_cmd->add_option("--variant", import.variant,
                         "the SLOTGUARD_FUZZ_VARIANT the target ran with (NAME or FAMILY/NAME)");

  CLI::App* list_cmd =
      app.add_subcommand("list", "families (with their parameters), variants and invariants, from the registries");
  bool params_markdown = false;
  list_cmd->add_flag("--params-markdown", params_markdown,
                     "print only the families' parameter table, as Markdown (docs/families.md holds it)");

  slotguard::BenchOptions bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench", "speed: every family's GPU mapping vs a device-to-device copy of the same bytes, "
               "and host backend + reference + invariants token-checks per second");
  AddBackend(bench_cmd, &bench.backend);
  bench_cmd->add_option("--tokens", bench.tokens, "GPU batch sizes in tokens")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench_cmd->add_option("--repeats", bench.repeats, "timed launches per measurement (median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  bench_cmd->add_option("--head-bytes", bench.head_bytes, "bytes per slot for the writers' benchmark")
      ->capture_default_str()
      ->check(CLI::Range(8, 4096));
  bench_cmd->add_option("--host-tokens", bench.host_tokens,
                        "tokens of the host check benchmark scenario")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  slotguard::WorkerOptions worker;
  CLI::App* worker_cmd = app.add_subcommand("__worker", "the worker process of fault isolation")->group("");
  worker_cmd->add_option("--backend", worker.backend)
      ->transform(CLI::CheckedTransformer(kBackends, CLI::ignore_case));
  worker_cmd->add_option("--kernel-lib", worker.provider.kernel_lib);
  worker_cmd->add_option("--kernel-cubin", worker.provider.kernel_cubin);
  worker_cmd->add_option("--kernel-spec", worker.provider.kernel_spec);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << slotguard::ErrorLine(std::string(e.what()) + "; see slotguard --help");
    return slotguard::kExitBadInput;
  }
  try {
    if (*check_cmd) return slotguard::RunCheck(check, std::cout, std::cerr);
    if (*replay_cmd) return slotguard::RunReplay(replay, std::cout, std::cerr);
    if (*list_cmd) return slotguard::RunList(params_markdown, std::cout);
    if (*mutants_cmd) return slotguard::RunMutants(mutants, std::cout, std::cerr);
    if (*fuzz_cmd) return slotguard::RunFuzz(fuzz, std::cout, std::cerr);
    if (*import_cmd) return slotguard::RunImport(import, std::cout, std::cerr);
    if (*bench_cmd) return slotguard::RunBench(bench, std::cout, std::cerr);
    if (*worker_cmd) return slotguard::RunWorker(worker, std::cerr);
  } catch (const std::bad_alloc&) {
    std::cerr << slotguard::ErrorLine("out of memory; lower --max-tokens / --max-table-entries or use a "
                                      "machine with more memory");
    return slotguard::kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << slotguard::ErrorLine(std::string("internal error: ") + e.what());
    return slotguard::kExitEnvironment;
  }
  return slotguard::kExitBadInput;
}
