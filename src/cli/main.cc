// slotguard command line: parses flags (CLI11) and calls the commands in
// cli/commands.h. Nothing else lives here.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"

#ifndef SLOTGUARD_VERSION
#define SLOTGUARD_VERSION "unknown"
#endif

namespace {

using slotguard::BackendKind;

// --- Words for the values a flag takes. CLI11's own messages name a type
// and a range ("Value abc not in range 0 to 9223372036854775807"); these say
// what is expected and what was given, and never accept an enum by number.

// An integer from lo to hi (hi: the field's largest value unless the flag
// has its own), a multiple of `multiple`. `words` overrides the description.
CLI::Validator Integer(int64_t lo, uint64_t hi, uint64_t type_max, std::string words = "",
                       uint64_t multiple = 1) {
  const bool open_top = hi == type_max;
  if (words.empty()) {
    if (open_top && lo == 0) words = "a non-negative integer";
    else if (open_top && lo == 1) words = "a positive integer";
    else words = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  }
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        const std::string got = "expected " + words + ", got " + slotguard::QuoteName(value);
        const bool negative = !value.empty() && value[0] == '-';
        const char* first = value.data() + (negative ? 1 : 0);
        const char* last = value.data() + value.size();
        if (first == last || !std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; })) return got;
        uint64_t magnitude = 0;
        const auto [end, ec] = std::from_chars(first, last, magnitude);
        const std::string beyond =
            open_top ? "expected " + words + " up to " + std::to_string(hi) + ", got " + slotguard::QuoteName(value) : got;
        if (ec != std::errc() || end != last) return beyond;
        if (negative && magnitude != 0) return got;  // no flag takes a negative number
        if (lo > 0 && magnitude < static_cast<uint64_t>(lo)) return got;
        if (magnitude > hi) return beyond;
        if (magnitude % multiple != 0) return got;
        return "";
      },
      "");
}

template <typename T>
CLI::Validator Integer(int64_t lo, std::string words = "", uint64_t multiple = 1) {
  const uint64_t max = static_cast<uint64_t>(std::numeric_limits<T>::max());
  return Integer(lo, max, max, words, multiple);
}
template <typename T>
CLI::Validator IntegerTo(int64_t lo, uint64_t hi) {
  return Integer(lo, hi, static_cast<uint64_t>(std::numeric_limits<T>::max()));
}

// A finite number >= 0 (seconds).
CLI::Validator NonNegativeNumber() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string got = "expected a non-negative number, got " + slotguard::QuoteName(value);
        if (value.empty() || !(std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '.')) return got;
        char* end = nullptr;
        errno = 0;
        const double d = std::strtod(value.c_str(), &end);
        if (errno != 0 || *end != 0 || !std::isfinite(d) || d < 0) return got;
        return "";
      },
      "");
}

// An empty value is most often an unset variable in a CI script
// (--suppressions "$KNOWN"): taken as "none" it would turn the suppressions
// or the report off and let the job pass.
constexpr char kGotEmpty[] = ", got '' (an empty value: an unset variable?)";

// A path or command: not empty.
CLI::Validator Path(const std::string& what = "a path") {
  return CLI::Validator(
      [what](std::string& value) -> std::string { return value.empty() ? "expected " + what + kGotEmpty : ""; }, "");
}

// One of `names`, by name only (never by number), with did-you-mean.
CLI::Validator OneOf(const std::vector<std::string>& names, bool ignore_case) {
  std::string desc;
  for (const std::string& n : names) desc += (desc.empty() ? "" : ",") + n;
  return CLI::Validator(
      [names, ignore_case](std::string& value) -> std::string {
        std::string key = value;
        if (ignore_case)
          std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
        if (std::find(names.begin(), names.end(), key) != names.end()) return "";
        const std::string match = slotguard::ClosestCommandLineName(key, names);
        return "expected one of " + slotguard::JoinNames(names) + ", got " + slotguard::QuoteName(value) +
               (match.empty() ? "" : "; did you mean '" + match + "'?");
      },
      "{" + desc + "}");
}

const std::map<std::string, BackendKind> kBackends = {
    {"auto", BackendKind::kAuto}, {"gpu", BackendKind::kGpu}, {"host", BackendKind::kHost}};
const std::vector<std::string> kBackendNames = {"auto", "gpu", "host"};

// --backend NAME (any case), never a number: "2" was gpu through CLI11's enum
// conversion.
CLI::Option* AddBackendOption(CLI::App* cmd, BackendKind* backend, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          "--backend",
          [backend](const std::string& name) {
            std::string key = name;
            std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
            *backend = kBackends.at(key);
          },
          help)
      ->check(OneOf(kBackendNames, true));
}

void AddBackend(CLI::App* cmd, BackendKind* backend) {
  AddBackendOption(cmd, backend,
                   "auto (gpu when a device is usable, else host), gpu (CUDA kernels; exit 3 "
                   "without a device) or host (the same kernel source on the CPU)")
      ->default_str("auto");
}

void AddLimits(CLI::App* cmd, slotguard::LoadLimits* limits) {
  cmd->add_option("--max-tokens", limits->max_tokens, "largest num_tokens a scenario may have")
      ->capture_default_str()
      ->check(Integer<int64_t>(1));
  cmd->add_option("--max-requests", limits->max_requests, "most requests a scenario may have")
      ->capture_default_str()
      ->check(Integer<int64_t>(1));
  cmd->add_option("--max-table-entries", limits->max_table_entries,
                  "most block-table entries per group, padded to the farthest column a position selects")
      ->capture_default_str()
      ->check(Integer<int64_t>(1));
  cmd->add_option("--max-file-mib", limits->max_file_mib, "largest scenario file read, in MiB")
      ->capture_default_str()
      ->check(IntegerTo<int64_t>(1, uint64_t{1} << 30));
  cmd->add_option("--max-memory-mib", limits->max_memory_mib,
                  "most memory parsing or checking one scenario may take, estimated from its sizes before "
                  "allocating (-j N checks N at once); over it the file is an error")
      ->capture_default_str()
      ->check(IntegerTo<int64_t>(1, uint64_t{1} << 40));
}

// --family-file, on every command that reads scenarios or families.
void AddFamilyFiles(CLI::App* cmd, std::vector<std::string>* files) {
  cmd->add_option("--family-file", *files,
                  "a family description (JSON, docs/family-format.md) to register before anything runs, so that "
                  "scenarios, --family and implementations may name its family; repeatable. Every *.json of the "
                  "directories in SLOTGUARD_FAMILY_PATH (colon-separated) is registered too")
      ->check(Path("a family description file"))
      ->expected(1)
      ->allow_extra_args(false)  // one file per --family-file: the scenarios after it stay positional
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void AddRunSetup(CLI::App* cmd, slotguard::RunSetup* setup, bool graph) {
  cmd->add_flag("--writers", setup->writers,
                "run the cache writers after the mappings on a pool per group (block 0 zero, the rest "
                "poison) and check null_bytes and write_set on the memory");
  cmd->add_option("--head-bytes", setup->head_bytes, "bytes per slot in the writers' pools (multiple of 8)")
      ->capture_default_str()
      ->check(Integer(8, 4096, std::numeric_limits<int32_t>::max(), "a multiple of 8 from 8 to 4096", 8));
  cmd->add_option("--max-cache-mib", setup->max_cache_mib,
                  "largest pool per group for the writers; a bigger group skips the writers and the memory invariants (the report says so)")
      ->capture_default_str()
      ->check(IntegerTo<int64_t>(1, uint64_t{1} << 30));
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
  cmd->add_option("--device", setup->device,
                  "K: run on CUDA device K only (an index into CUDA_VISIBLE_DEVICES when it is set), for this "
                  "process, its workers and a --kernel-cmd provider: one process per GPU")
      ->check(IntegerTo<int>(0, 1023));
  cmd->add_option("--timeout", setup->timeout_seconds,
                  "seconds per scenario in an isolated run, per message to a --kernel-cmd provider, for loading a --kernel-lib "
                  "plugin in its child process (0: none)")
      ->capture_default_str()
      ->check(NonNegativeNumber());
  cmd->add_option("--kernel-lib", setup->provider.kernel_lib,
                  "a plugin (.so, include/slotguard/plugin.h) whose mapping kernels replace slotguard's own for "
                  "the families it implements")
      ->check(Path());
  cmd->add_option("--kernel-cubin", setup->provider.kernel_cubin,
                  "a compiled kernel (cubin, fatbin or PTX, e.g. from Triton's cache) to check, launched as "
                  "--kernel-spec says (gpu backend)")
      ->check(Path());
  cmd->add_option("--kernel-spec", setup->provider.kernel_spec,
                  "JSON: the --kernel-cubin kernel's family, symbol, parameters and grid (see docs/bring-your-own-kernel.md)")
      ->check(Path());
  cmd->add_option("--kernel-cmd", setup->provider.kernel_cmd,
                  "\"COMMAND ARGS\": a long-lived provider process (e.g. the engine's own Triton launcher behind "
                  "python/slotguard's serve()) that runs the families it names, many scenarios per message "
                  "(docs/provider-protocol.md); --backend gpu tells it to run on CUDA")
      ->check(Path("a command"));
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
      ->check(OneOf(layouts, false));
}

// What every subcommand's --help ends with.
// `exit_codes`: "0 ...; 1 ...", one line each in the help.
std::string Footer(const std::string& examples, const std::string& exit_codes) {
  std::string codes;
  for (size_t start = 0; start < exit_codes.size();) {
    size_t end = exit_codes.find("; ", start);
    if (end == std::string::npos) end = exit_codes.size();
    codes += "  " + exit_codes.substr(start, end - start) + "\n";
    start = end + 2;
  }
  return "\nExamples:\n" + examples + "\nExit codes:\n" + codes;
}

// Before CLI11 parses: the command and the long flags, by name, with
// did-you-mean. CLI11 itself reads `slotguard chek` as "A subcommand is
// required" and `check --junt` as an unexpected argument. Returns false
// after printing the one error line.
bool CheckNames(int argc, char** argv, const std::vector<CLI::App*>& commands, std::ostream& err) {
  std::vector<std::string> names;
  for (CLI::App* c : commands)
    if (!c->get_group().empty()) names.push_back(c->get_name());
  int i = 1;
  while (i < argc && argv[i][0] == '-') {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help" || a == "--version") return true;  // CLI11's
    ++i;
  }
  if (i == argc) {
    if (i > 1) return true;  // only flags: CLI11 names the unknown one
    err << slotguard::ErrorLine("expected a command: one of " + slotguard::JoinNames(names) +
                                "; see slotguard --help");
    return false;
  }
  const std::string word = argv[i];
  CLI::App* cmd = nullptr;
  for (CLI::App* c : commands)
    if (c->get_name() == word) cmd = c;
  if (!cmd) {
    const std::string match = slotguard::ClosestCommandLineName(word, names);
    err << slotguard::ErrorLine("unknown command " + slotguard::QuoteName(word) +
                                (match.empty() ? "; expected one of " + slotguard::JoinNames(names)
                                               : "; did you mean '" + match + "'?"));
    return false;
  }
  std::vector<std::string> flags;
  for (const CLI::Option* opt : cmd->get_options())
    for (const std::string& l : opt->get_lnames()) flags.push_back("--" + l);
  for (int j = i + 1; j < argc; ++j) {
    const std::string a = argv[j];
    if (a == "--") break;  // the rest is positional
    if (a.size() <= 2 || a.compare(0, 2, "--") != 0) continue;
    const std::string flag = a.substr(0, a.find('='));
    if (std::find(flags.begin(), flags.end(), flag) != flags.end()) {
      // CLI11 takes "--json=" as no value and the next argument as the
      // value: --json="$UNSET" would write the report over a scenario.
      if (a.size() == flag.size() + 1) {
        err << slotguard::ErrorLine(flag + ": expected a value after '='" + kGotEmpty);
        return false;
      }
      continue;
    }
    const std::string match = slotguard::ClosestCommandLineName(flag, flags);
    err << slotguard::ErrorLine(word + ": unknown option " + slotguard::QuoteName(flag) +
                                (match.empty() ? "; see slotguard " + word + " --help"
                                               : "; did you mean '" + match + "'?"));
    return false;
  }
  return true;
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

  std::vector<std::string> family_files;  // --family-file, any command
  slotguard::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "CI gate: every scenario under PATHs, every group, backend vs reference, all "
               "invariants");
  check_cmd->footer(Footer("  slotguard check                                   # scenarios/, gpu when usable\n"
"  slotguard check --backend host --writers -q scenarios/\n"
"  slotguard check --variant unguarded --junit report.xml --suppressions known.json scenarios/paged/\n",
                         "0 every scenario holds (those a --suppressions entry covers hold as suppressed); 1 a scenario does not hold (also when another file is bad input: every problem is printed); 2 bad input or usage (a file that does not load, a bad --suppressions file, a --variant that no group under the paths has); 3 environment (no usable GPU, a CUDA error, a report that cannot be written)"));
  check_cmd->add_option("paths", check.paths, "scenario files or directories (recursive *.json)")
      ->capture_default_str()
      ->check(Path());
  AddBackend(check_cmd, &check.backend);
  AddRunSetup(check_cmd, &check.setup, true);
  AddFamilyFiles(check_cmd, &family_files);
  check_cmd->add_option("--variant", check.variant,
                        "force a variant on every group whose family has it, or 'all' to run "
                        "each scenario once per variant (see `slotguard list`)");
  check_cmd->add_option("--junit", check.junit_path, "write a JUnit XML report")
      ->check(Path());
  check_cmd->add_option("--json", check.json_path, "write a JSON report")
      ->check(Path());
  check_cmd->add_option("--sarif", check.sarif_path,
                        "write a SARIF 2.1.0 report for code scanning (a result per unexpected finding)")
      ->check(Path());
  check_cmd->add_option("--suppressions", check.suppressions_path,
                        "a suppressions file (docs/suppressions.md): a scenario whose unexpected findings an "
                        "entry covers is counted as suppressed, not failed; entries that match nothing are "
                        "reported stale")
      ->check(Path());
  check_cmd->add_option("-j,--jobs", check.jobs, "scenarios checked in parallel")
      ->capture_default_str()
      ->check(IntegerTo<int>(1, 1024));
  check_cmd->add_flag("-v,--verbose", check.verbose,
                      "also print the findings of scenarios that hold (expected findings)");
  check_cmd->add_flag("-q,--quiet", check.quiet, "print only what fails, and the summary");
  AddLimits(check_cmd, &check.limits);

  slotguard::ReplayOptions replay;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay", "one scenario, verbose: per-token table and the blocks each request wrote");
  replay_cmd->footer(Footer("  slotguard replay scenarios/paged/decode.json\n"
"  slotguard replay --backend host --variant dummy_reads_row scenarios/paged/mutants/dummy-reads-row.json\n"
"  slotguard replay --html map.html scenarios/rings/mutants/kpool-prefix.json\n",
                         "0 the scenario holds; 1 it does not; 2 bad input or usage (the file, a --variant no group has); 3 environment (no usable GPU, a CUDA error, an --html page that cannot be written)"));
  replay_cmd->add_option("file", replay.file, "the scenario file")->required()
      ->check(Path());
  AddBackend(replay_cmd, &replay.backend);
  AddRunSetup(replay_cmd, &replay.setup, true);
  AddFamilyFiles(replay_cmd, &family_files);
  replay_cmd->add_option("--variant", replay.variant, "force a variant (see `slotguard list`)");
  replay_cmd->add_flag("--all-tokens", replay.all_tokens,
                       "print every token, also in scenarios over 256 tokens, every finding, and every block "
                       "range a request wrote (past 64)");
  replay_cmd->add_option("--max-findings", replay.max_findings,
                         "findings listed per invariant and group (0: all; default 8, as check)");
  replay_cmd->add_option("--html", replay.html_path,
                         "also write the run to this path as one self-contained HTML page (no network): per group, the block "
                         "pool as a grid coloured by the requests that wrote each block, the null block and the "
                         "findings marked, and each block's tokens on hover or click; long runs of unwritten "
                         "blocks are one range cell, and a zoom control sizes the cells")
      ->check(Path());
  AddLimits(replay_cmd, &replay.limits);

  slotguard::MutantsOptions mutants;
  CLI::App* mutants_cmd = app.add_subcommand(
      "mutants", "control experiment: every historical variant forced over the scenarios; "
                 "exit 1 when a variant survives or a fixed kernel has findings");
  mutants_cmd->footer(Footer("  slotguard mutants --backend host               # scenarios/\n"
"  slotguard mutants -j 8 scenarios/paged/\n",
                         "0 every variant is caught and fixed is clean; 1 a variant survives or fixed has findings; 2 bad input or usage (every bad file is printed, no matrix); 3 environment"));
  mutants_cmd->add_option("paths", mutants.paths, "scenario files or directories")->capture_default_str()
      ->check(Path());
  AddBackend(mutants_cmd, &mutants.backend);
  AddRunSetup(mutants_cmd, &mutants.setup, false);
  AddFamilyFiles(mutants_cmd, &family_files);
  mutants_cmd->add_option("-j,--jobs", mutants.jobs, "scenarios run in parallel")
      ->capture_default_str()
      ->check(IntegerTo<int>(1, 1024));
  AddLimits(mutants_cmd, &mutants.limits);

  slotguard::FuzzOptions fuzz;
  CLI::App* fuzz_cmd = app.add_subcommand(
      "fuzz", "generate engine-consistent scenarios and check them; on a finding, write the "
              "minimized scenario (no expect) to --out and exit 1 (with --keep-going: every distinct "
              "finding of the budget, one reproducer each)");
  fuzz_cmd->footer(Footer("  slotguard fuzz --time 300 --seed 7 -j 8\n"
"  slotguard fuzz --backend host --family paged --variant unguarded --runs 2000\n"
"  slotguard fuzz --time 600 --keep-going --suppressions known.json --json fuzz.json --out findings/\n",
                         "0 no finding (or only suppressed ones); 1 a finding no suppression covers (its minimized reproducer is in --out); 2 usage or a bad --suppressions file (a flag, family or variant); 3 environment (no usable GPU, a CUDA error, an --out that cannot be created, a --json or --sarif that cannot be written: after the summary, a reproducer that cannot be written: its finding still reported); 130, 143 stopped by SIGINT or SIGTERM before the budget was spent, without a finding (with one: 1), everything written as at a normal end; a second signal ends it at once with 128 + that signal"));
  fuzz_cmd->add_option("--family", fuzz.families, "fuzz only these families (repeatable)");
  fuzz_cmd->add_option("--variant", fuzz.variant,
                       "force a variant on the groups whose family has it (a mutant to find)");
  fuzz_cmd->add_option("--time", fuzz.seconds, "seconds to run (default 60, unbounded with --runs; 0: no time limit, as libFuzzer's -max_total_time=0)")
      ->check(NonNegativeNumber());
  fuzz_cmd->add_option("--runs", fuzz.runs, "scenarios to check")->check(Integer<int64_t>(0));
  fuzz_cmd->add_option("--seed", fuzz.seed, "campaign seed: the same seed checks the same scenarios")
      ->capture_default_str()
      ->check(Integer<uint64_t>(0));
  fuzz_cmd->add_option("--shard", fuzz.shard,
                       "I/N: check only scenarios I, I+N, I+2N, ... of the seed's stream, so N jobs or GPUs "
                       "split one campaign (--runs and --time are per shard)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            int64_t i, n;
            std::string problem;
            return slotguard::ParseShard(value, &i, &n, &problem) ? "" : problem;
          },
          ""));
  fuzz_cmd->add_option("--out", fuzz.out_dir, "directory for the reproducer")->capture_default_str()
      ->check(Path());
  AddBackend(fuzz_cmd, &fuzz.backend);
  AddRunSetup(fuzz_cmd, &fuzz.setup, false);
  AddFamilyFiles(fuzz_cmd, &family_files);
  fuzz_cmd->add_option("-j,--jobs", fuzz.jobs, "threads")->capture_default_str()->check(IntegerTo<int>(1, 1024));
  fuzz_cmd->add_option("--json", fuzz.json_path, "write a JSON summary")
      ->check(Path());
  fuzz_cmd->add_option("--sarif", fuzz.sarif_path,
                       "write a SARIF 2.1.0 log: each distinct finding at its reproducer, fingerprinted by its "
                       "signature")
      ->check(Path());
  fuzz_cmd->add_flag("--keep-going", fuzz.keep_going,
                     "do not stop at the first finding: check the whole budget and report every distinct "
                     "finding (by signature: implementation, families, variants, invariants, kernel or batch, "
                     "minimized shape), the smallest reproducer and a count each");
  fuzz_cmd->add_option("--suppressions", fuzz.suppressions_path,
                       "a suppressions file (docs/suppressions.md): the known differences it covers are counted "
                       "and listed, not failures; entries that match nothing are reported stale")
      ->check(Path());
  fuzz_cmd->add_option("--max-requests", fuzz.max_requests,
                       "most requests per generated batch (small batches: more scenarios per second)")
      ->capture_default_str()
      ->check(IntegerTo<int32_t>(1, 4096));
  fuzz_cmd->add_flag("--inconsistent", fuzz.inconsistent,
                     "also generate runner-state faults (unmarked dummies, live requests on zero columns)");
  fuzz_cmd->add_flag("--huge-batches", fuzz.huge_batches,
                     "also generate, about once in 10,000 scenarios, a batch past 2^24 tokens (about a gigabyte "
                     "to check each)");

  slotguard::ProveOptions prove;
  CLI::App* prove_cmd = app.add_subcommand(
      "prove", "check every batch within a scope (a bounded proof): the summary states the scope as a claim; on a "
               "finding, every distinct one is minimized and written to --out, exit 1");
  prove_cmd->footer(Footer("  slotguard prove --scope small                    # the PR gate's scope, seconds on the host\n"
"  slotguard prove --scope medium --backend gpu -j 16 --json prove.json\n"
"  slotguard prove --scope large --shard 3/8 --time 3600 --sarif prove-3.sarif\n"
"  slotguard prove --scope my-scope.json --family kpool_tail --variant prefix\n",
                          "0 no finding (or only suppressed ones) in what was checked (a run cut short by --time says which part); 1 a finding no suppression covers (its minimized reproducer is in --out); 2 usage, a bad scope file, a scope too large to count, a bad --suppressions file; 3 environment (no usable GPU, a CUDA error, an --out that cannot be created, a --json or --sarif that cannot be written)"));
  prove_cmd->add_option("--scope", prove.scope,
                        "a preset (small: a PR gate, seconds on the host; medium: minutes on a GPU; large: a nightly "
                        "shard) or a scope file (docs/prove.md)")
      ->capture_default_str()
      ->check(Path("a preset or a scope file"));
  prove_cmd->add_option("--family", prove.families,
                        "prove only these families (repeatable; default: every family with a kernel, or the "
                        "implementation's)");
  prove_cmd->add_option("--variant", prove.variant,
                        "force a variant on the groups whose family has it (a mutant the scope must catch)");
  prove_cmd->add_flag("--inconsistent", prove.inconsistent,
                      "every batch, not only consistent ones: any entry from the null entries and real blocks, any "
                      "request marked a dummy or not (findings the batch state explains are counted apart)");
  prove_cmd->add_flag("--no-reduction", prove.no_reduction,
                      "check the full space: every order of the requests and every naming of the real blocks (small "
                      "scopes only; what the reduction is tested against)");
  prove_cmd->add_flag("--count", prove.count,
                      "only count: print the scope, its batches after and before reduction and each configuration's "
                      "share (of this --shard), and check nothing");
  prove_cmd->add_option("--time", prove.seconds,
                        "stop after this many seconds (default 0: the whole scope); the claim then covers exactly the "
                        "batches checked, which the report names")
      ->check(NonNegativeNumber());
  prove_cmd->add_option("--shard", prove.shard,
                        "I/N: check only batches I, I+N, I+2N, ... of the scope, so N jobs or GPUs split it exactly")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            int64_t i, n;
            std::string problem;
            return slotguard::ParseShard(value, &i, &n, &problem) ? "" : problem;
          },
          ""));
  prove_cmd->add_option("--out", prove.out_dir, "directory for the reproducers")->capture_default_str()
      ->check(Path());
  AddBackend(prove_cmd, &prove.backend);
  AddRunSetup(prove_cmd, &prove.setup, false);
  AddFamilyFiles(prove_cmd, &family_files);
  prove_cmd->add_option("-j,--jobs", prove.jobs, "threads")->capture_default_str()->check(IntegerTo<int>(1, 1024));
  prove_cmd->add_option("--json", prove.json_path,
                        "write a JSON report: the scope as a claim (\"scope\"), the batches checked, the findings by "
                        "signature, the suppressions")
      ->check(Path());
  prove_cmd->add_option("--sarif", prove.sarif_path,
                        "write a SARIF 2.1.0 log: each distinct finding at its reproducer, fingerprinted by its "
                        "signature; the scope in the run's properties")
      ->check(Path());
  prove_cmd->add_option("--suppressions", prove.suppressions_path,
                        "a suppressions file (docs/suppressions.md): the known differences it covers are counted and "
                        "listed, not failures")
      ->check(Path());

  slotguard::ImportOptions import;
  CLI::App* import_cmd =
      app.add_subcommand("import", "turn a fuzz_mapping libFuzzer artifact into a scenario file");
  import_cmd->footer(Footer("  slotguard import crash-0123abcd                  # the scenario to stdout\n"
"  slotguard import --variant paged/unguarded -o crash.json crash-0123abcd\n",
                         "0 the scenario is written; 2 bad input or usage (an artifact that cannot be read, an unknown variant, an -o that cannot be a file: a directory, FIFO, device or missing folder); 3 environment (writing -o failed)"));
  import_cmd->add_option("file", import.file, "the artifact (crash-..., or any corpus input)")->required()
      ->check(Path());
  import_cmd->add_option("-o,--out", import.out, "scenario file to write (default: stdout)")
      ->check(Path());
  import_cmd->add_option("--variant", import.variant,
                         "the SLOTGUARD_FUZZ_VARIANT the target ran with (NAME or FAMILY/NAME)");

  CLI::App* list_cmd =
      app.add_subcommand("list", "families (with their parameters), variants and invariants, from the registries");
  list_cmd->footer(Footer("  slotguard list\n"
"  slotguard list --params-markdown > params.md\n"
"  slotguard list --json --family-file examples/families/sliding_window.json\n",
                         "0 listed; 2 usage"));
  bool params_markdown = false, list_json = false;
  CLI::Option* markdown_flag =
      list_cmd->add_flag("--params-markdown", params_markdown,
                         "print only the built-in families' parameter table, as Markdown (docs/families.md holds it)");
  list_cmd->add_flag("--json", list_json,
                     "print the registries as JSON: every family with its source file, parameters, outputs and "
                     "variants, and the invariants (what python/slotguard reads)")
      ->excludes(markdown_flag);
  AddFamilyFiles(list_cmd, &family_files);

  slotguard::BenchOptions bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench", "speed: every family's GPU mapping vs a device-to-device copy of the same bytes, "
               "and host backend + reference + invariants token-checks per second");
  bench_cmd->footer(Footer("  slotguard bench                                  # GPU figures when a device is usable, host always\n"
"  slotguard bench --backend host --host-tokens 1048576\n"
"  slotguard bench --references 1000000             # the interpreter against the hand-written references\n",
                         "0 the figures are printed (bench gives no verdict but --references': 1 when the references differ); 2 usage; 3 environment (--backend gpu without a device, a CUDA call or a host run that fails)"));
  AddBackend(bench_cmd, &bench.backend);
  bench_cmd->add_option("--tokens", bench.tokens, "GPU batch sizes in tokens")
      ->capture_default_str()
      ->check(Integer<int64_t>(1));
  bench_cmd->add_option("--repeats", bench.repeats, "timed launches per measurement (median)")
      ->capture_default_str()
      ->check(IntegerTo<int>(1, 100000));
  bench_cmd->add_option("--head-bytes", bench.head_bytes, "bytes per slot for the writers' benchmark")
      ->capture_default_str()
      ->check(IntegerTo<int32_t>(8, 4096));
  bench_cmd->add_option("--host-tokens", bench.host_tokens,
                        "tokens of the host check benchmark scenario")
      ->capture_default_str()
      ->check(Integer<int64_t>(1));
  bench_cmd->add_option("--references", bench.references,
                        "instead: N generated scenarios per built-in family through the interpreter and the "
                        "hand-written reference, compared bit for bit (exit 1 when they differ), with their speed")
      ->check(Integer<int64_t>(1));
  bench_cmd->add_option("--seed", bench.seed, "the generator's seed for --references")->capture_default_str();

  slotguard::WorkerOptions worker;
  CLI::App* worker_cmd = app.add_subcommand("__worker", "the worker process of fault isolation")->group("");
  AddBackendOption(worker_cmd, &worker.backend, "");
  worker_cmd->add_option("--family-file", family_files)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  worker_cmd->add_option("--kernel-lib", worker.provider.kernel_lib);
  worker_cmd->add_option("--kernel-cubin", worker.provider.kernel_cubin);
  worker_cmd->add_option("--kernel-spec", worker.provider.kernel_spec);
  worker_cmd->add_flag("--describe", worker.describe);

  if (!CheckNames(argc, argv, app.get_subcommands([](CLI::App*) { return true; }), std::cerr))
    return slotguard::kExitBadInput;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ValidationError& e) {
    // Our validators' words: "--runs: expected a non-negative integer, got 'abc'".
    std::cerr << slotguard::ErrorLine(e.what());
    return slotguard::kExitBadInput;
  } catch (const CLI::ParseError& e) {
    std::cerr << slotguard::ErrorLine(std::string(e.what()) + "; see slotguard --help");
    return slotguard::kExitBadInput;
  }
  {
    // The families the command may meet, before anything reads the registry.
    // A worker is handed its parent's files, SLOTGUARD_FAMILY_PATH's among them.
    std::string problem;
    if ((!*worker_cmd && !slotguard::RegisterFamilySearchPath(&problem)) ||
        !slotguard::RegisterFamilyFiles(family_files, &problem)) {
      std::cerr << slotguard::ErrorLine(problem);
      return slotguard::kExitBadInput;
    }
  }
  try {
    if (*check_cmd) return slotguard::RunCheck(check, std::cout, std::cerr);
    if (*replay_cmd) return slotguard::RunReplay(replay, std::cout, std::cerr);
    if (*list_cmd) return slotguard::RunList(params_markdown, list_json, std::cout);
    if (*mutants_cmd) return slotguard::RunMutants(mutants, std::cout, std::cerr);
    if (*fuzz_cmd) return slotguard::RunFuzz(fuzz, std::cout, std::cerr);
    if (*prove_cmd) return slotguard::RunProve(prove, std::cout, std::cerr);
    if (*import_cmd) return slotguard::RunImport(import, std::cout, std::cerr);
    if (*bench_cmd) return slotguard::RunBench(bench, std::cout, std::cerr);
    if (*worker_cmd) return slotguard::RunWorker(worker, std::cerr);
  } catch (const std::bad_alloc&) {
    // What ran out, with the remedy the command has (bench has no -j and
    // no --max-memory-mib).
    std::string what = "slotguard", advice;
    if (*check_cmd || *replay_cmd || *mutants_cmd) {
      what = *check_cmd ? "check" : *replay_cmd ? "replay" : "mutants";
      advice = *replay_cmd ? "lower --max-memory-mib so that such a scenario is refused before it runs"
                           : "check fewer scenarios at once with -j, or lower --max-memory-mib so that such a "
                             "scenario is refused before it runs";
    } else if (*fuzz_cmd) {
      what = "fuzz";
      advice = "fewer threads with -j, or smaller batches with --max-requests";
    } else if (*prove_cmd) {
      what = "prove";
      advice = "fewer threads with -j, or a smaller scope";
    } else if (*bench_cmd) {
      what = "bench";
      advice = "smaller batches with --tokens and --host-tokens";
    } else if (*import_cmd) {
      what = "import";
    }
    std::cerr << slotguard::ErrorLine(slotguard::OutOfMemoryText(what, advice));
    return slotguard::kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << slotguard::ErrorLine(std::string("internal error: ") + e.what());
    return slotguard::kExitEnvironment;
  }
  return slotguard::kExitBadInput;
}
