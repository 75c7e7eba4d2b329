// The commands behind the CLI. main.cc only parses flags into these option
// structs; every command runs in-process, so tests drive it directly.
#ifndef SLOTGUARD_CLI_COMMANDS_H_
#define SLOTGUARD_CLI_COMMANDS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "setup/backend_setup.h"
#include "scenario/load_limits.h"

namespace slotguard {

/// Exit codes (docs/cli.md).
enum ExitCode {
  kExitHolds = 0,        // every scenario holds
  kExitFindings = 1,     // at least one does not (or fuzz found something)
  kExitBadInput = 2,     // bad input or usage
  kExitEnvironment = 3,  // GPU asked for but not usable, CUDA error, a report that cannot be written
};

struct CheckOptions {
  std::vector<std::string> paths = {"scenarios/"};
  BackendKind backend = BackendKind::kAuto;
  RunSetup setup;
  std::string variant;  // "" each group's own; a variant name; or "all"
  std::string junit_path;
  std::string json_path;
  std::string sarif_path;
  std::string suppressions_path;  // --suppressions FILE
  int jobs = 1;
  bool verbose = false;  // also print the findings of scenarios that hold
  bool quiet = false;    // print only what fails and the summary
  LoadLimits limits;
};
int RunCheck(const CheckOptions& options, std::ostream& out, std::ostream& err);

struct ReplayOptions {
  std::string file;
  BackendKind backend = BackendKind::kAuto;
  RunSetup setup;
  std::string variant;
  bool all_tokens = false;  // print every token and every finding, even in long scenarios
  size_t max_findings = 8;  // findings listed per invariant and group (0: all), as check
  std::string html_path;    // --html: also write the block map page (report/block_map_html.h)
  LoadLimits limits;
};
int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err);

/// `slotguard list`: the registries in words; --params-markdown the
/// parameter table; --json all of it as JSON (report/registry_listing.h).
int RunList(bool params_markdown, bool json, std::ostream& out);

struct MutantsOptions {
  std::vector<std::string> paths = {"scenarios/"};
  BackendKind backend = BackendKind::kAuto;
  RunSetup setup;
  int jobs = 1;
  LoadLimits limits;
};
/// Exit 0 when every non-fixed variant is caught by some scenario and the
/// fixed variants are clean; 1 naming each survivor.
int RunMutants(const MutantsOptions& options, std::ostream& out, std::ostream& err);

struct BenchOptions {
  BackendKind backend = BackendKind::kAuto;
  std::vector<int64_t> tokens = {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 22,
                                 int64_t{1} << 24};
  int repeats = 50;
  int64_t host_tokens = int64_t{1} << 22;
  int32_t head_bytes = 64;  // the writers' bytes per slot
  int64_t references = 0;   // --references N: the interpreter against the hand-written references only
  uint64_t seed = 1;
};
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

struct FuzzOptions {
  std::vector<std::string> families;  // --family, repeatable; empty: every family
  std::string variant;                // forced on the groups of families that have it
  double seconds = -1;                // --time; unset: 60 s, or unbounded with --runs
  int64_t runs = -1;
  uint64_t seed = 1;
  std::string shard;                  // --shard I/N; "" for the whole stream
  std::string sarif_path;             // --sarif
  bool keep_going = false;            // --keep-going: every distinct finding of the whole budget
  std::string suppressions_path;      // --suppressions FILE
  std::string out_dir = "fuzz-findings";
  BackendKind backend = BackendKind::kAuto;
  RunSetup setup;
  int jobs = 1;
  std::string json_path;
  bool inconsistent = false;
  bool huge_batches = false;
  int32_t max_requests = 1024;        // --max-requests: the generator's batch size bound
};
int RunFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);

struct ProveOptions {
  std::string scope = "small";        // --scope: a preset's name or a scope file
  std::vector<std::string> families;  // --family, repeatable; empty: every family with a kernel (or the implementation's)
  std::string variant;                // forced on the groups of families that have it
  bool inconsistent = false;          // every batch, not only consistent ones
  bool no_reduction = false;          // the full space (every request order, every labeling): small scopes
  bool count = false;                 // --count: the scope's size per configuration, nothing checked
  double seconds = 0;                 // --time; 0: the whole scope
  std::string shard;                  // --shard I/N; "" for the whole scope
  std::string sarif_path;
  std::string json_path;
  std::string suppressions_path;
  std::string out_dir = "prove-findings";
  BackendKind backend = BackendKind::kAuto;
  RunSetup setup;
  int jobs = 1;
};
/// `slotguard prove`: every batch of a scope (docs/prove.md). Exit 0 when
/// no unsuppressed finding, 1 on one (its reproducer written), 2 bad input
/// (a scope file, a flag), 3 environment.
int RunProve(const ProveOptions& options, std::ostream& out, std::ostream& err);

struct ImportOptions {
  std::string file;     // a libFuzzer artifact of fuzz_mapping
  std::string out;      // "" or "-": stdout
  std::string variant;  // as SLOTGUARD_FUZZ_VARIANT was for the target
};
int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err);

/// `slotguard __worker` (hidden): the worker process of fault isolation.
struct WorkerOptions {
  BackendKind backend = BackendKind::kHost;
  ProviderSource provider;
  bool describe = false;  // --describe: load --kernel-lib, answer what it is, exit (plugin/plugin_probe.h)
};
int RunWorker(const WorkerOptions& options, std::ostream& err);

}  // namespace slotguard

#endif  // SLOTGUARD_CLI_COMMANDS_H_
