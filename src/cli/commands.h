// The commands behind the CLI. main.cc only parses flags into these option
// structs; every command runs in-process, so tests drive it directly. Each
// struct's flag members are generated from the flags table (cli/flags.def):
// a flag's type, default and --help text are its row.
#ifndef SLOTGUARD_CLI_COMMANDS_H_
#define SLOTGUARD_CLI_COMMANDS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "cli/flag_members.h"
#include "setup/backend_setup.h"
#include "fuzzing/campaign_settings.h"
#include "fuzzing/generators.h"
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
  // The flags table's rows of CheckOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_CheckOptions
#define SG_MEMBER_CheckOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_CheckOptions
#define SG_MEMBER_CheckOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
  RunSetup setup;
  LoadLimits limits;
};
int RunCheck(const CheckOptions& options, std::ostream& out, std::ostream& err);

struct ReplayOptions {
  // The flags table's rows of ReplayOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_ReplayOptions
#define SG_MEMBER_ReplayOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_ReplayOptions
#define SG_MEMBER_ReplayOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
  RunSetup setup;
  LoadLimits limits;
};
int RunReplay(const ReplayOptions& options, std::ostream& out, std::ostream& err);

/// `slotguard list`: the registries in words; --params-markdown the
/// parameter table; --json all of it as JSON (report/registry_listing.h).
int RunList(bool params_markdown, bool json, std::ostream& out);

struct MutantsOptions {
  // The flags table's rows of MutantsOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_MutantsOptions
#define SG_MEMBER_MutantsOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_MutantsOptions
#define SG_MEMBER_MutantsOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
  RunSetup setup;
  LoadLimits limits;
};
/// Exit 0 when every non-fixed variant is caught by some scenario and the
/// fixed variants are clean; 1 naming each survivor.
int RunMutants(const MutantsOptions& options, std::ostream& out, std::ostream& err);

struct BenchOptions {
  // The flags table's rows of BenchOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_BenchOptions
#define SG_MEMBER_BenchOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_BenchOptions
#define SG_MEMBER_BenchOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
};
int RunBench(const BenchOptions& options, std::ostream& out, std::ostream& err);

struct FuzzOptions {
  // The flags table's rows of FuzzOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_FuzzOptions
#define SG_MEMBER_FuzzOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_FuzzOptions
#define SG_MEMBER_FuzzOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
  RunSetup setup;
  /// The generator's flags (--inconsistent, --huge-batches, --max-requests)
  /// fill the campaign's generator options themselves; RunFuzz adds the
  /// families (--family, the implementation's) and --table-layout.
  GeneratorOptions generator;
  /// The campaign's settings, as their flags fill them (--variant, --time,
  /// --runs, --seed, --keep-going, --out, -j); RunFuzz adds --shard's
  /// numbers. --time unset is -1: RunFuzz makes it 60 s, or no limit with
  /// --runs.
  CampaignSettings settings = CampaignSettingsWith(-1, "fuzz-findings");
};
int RunFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);

struct ProveOptions {
  // The flags table's rows of ProveOptions and AnyCommand (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_ProveOptions
#define SG_MEMBER_ProveOptions SG_MEMBER_ON
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_ProveOptions
#define SG_MEMBER_ProveOptions SG_MEMBER_OFF
#undef SG_MEMBER_AnyCommand
#define SG_MEMBER_AnyCommand SG_MEMBER_OFF
  RunSetup setup;
  /// The proof's campaign settings, as their flags fill them (--variant,
  /// --time, --out, -j); RunProve adds --shard's numbers.
  CampaignSettings settings = CampaignSettingsWith(0, "prove-findings");
};
/// `slotguard prove`: every batch of a scope (docs/prove.md). Exit 0 when
/// no unsuppressed finding, 1 on one (its reproducer written), 2 bad input
/// (a scope file, a flag), 3 environment.
int RunProve(const ProveOptions& options, std::ostream& out, std::ostream& err);

struct MergeOptions {
  // The flags table's rows of MergeOptions (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_MergeOptions
#define SG_MEMBER_MergeOptions SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_MergeOptions
#define SG_MEMBER_MergeOptions SG_MEMBER_OFF
};
/// `slotguard merge`: the --json reports of campaigns' shards and nights
/// into one list of distinct signatures (report/merge_report.h). Exit 0
/// when no unsuppressed finding remains, 1 when one does, 2 bad input (a
/// report, the suppressions file, a flag), 3 a report that cannot be
/// written.
int RunMerge(const MergeOptions& options, std::ostream& out, std::ostream& err);

struct ImportOptions {
  // The flags table's rows of ImportOptions (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_ImportOptions
#define SG_MEMBER_ImportOptions SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_ImportOptions
#define SG_MEMBER_ImportOptions SG_MEMBER_OFF
};
int RunImport(const ImportOptions& options, std::ostream& out, std::ostream& err);

/// `slotguard __worker` (hidden): the worker process of fault isolation.
/// --describe: load --kernel-lib, answer what it is, exit
/// (plugin/plugin_probe.h).
struct WorkerOptions {
  // The flags table's rows of WorkerOptions (cli/flags.def, cli/flag_members.h).
#undef SG_MEMBER_WorkerOptions
#define SG_MEMBER_WorkerOptions SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_WorkerOptions
#define SG_MEMBER_WorkerOptions SG_MEMBER_OFF
  ProviderSource provider;  // --kernel-lib, --kernel-cubin, --kernel-spec
};
int RunWorker(const WorkerOptions& options, std::ostream& err);

}  // namespace slotguard

#endif  // SLOTGUARD_CLI_COMMANDS_H_
