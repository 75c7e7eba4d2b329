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
#include <optional>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "backend/isolated_backend.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "fuzzing/campaign.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/invoked_as.h"

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

// A number from 0 to 1 (a share).
CLI::Validator Fraction() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string got = "expected a number from 0 to 1, got " + slotguard::QuoteName(value);
        if (value.empty() || !(std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '.')) return got;
        char* end = nullptr;
        errno = 0;
        const double d = std::strtod(value.c_str(), &end);
        if (errno != 0 || *end != 0 || !std::isfinite(d) || d < 0 || d > 1) return got;
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

// No check on a flag's value (the flags table's CHECK).
std::optional<CLI::Validator> NoCheck() { return std::nullopt; }

// --shard I/N.
CLI::Validator ShardCheck() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        int64_t i, n;
        std::string problem;
        return slotguard::ParseShard(value, &i, &n, &problem) ? "" : problem;
      },
      "");
}

using slotguard::FlagKind;

// One row of the flags table (cli/flags.def), registered by its kind.
template <FlagKind kKind, typename T>
void AddFlag(CLI::App* cmd, T* field, const char* names, const char* help, const std::optional<CLI::Validator>& check) {
  CLI::Option* opt = nullptr;
  if constexpr (kKind == FlagKind::kFlag) {
    opt = cmd->add_flag(names, *field, help);
  } else if constexpr (kKind == FlagKind::kBackend) {
    std::string shown;  // the field's default by name: auto (the commands), host (the worker)
    for (const auto& [name, kind] : kBackends)
      if (kind == *field) shown = name;
    opt = AddBackendOption(cmd, field, help)->default_str(shown);
  } else if constexpr (kKind == FlagKind::kIsolate) {
    opt = cmd->add_flag_callback(names, [field] { *field = 1; }, help);
  } else if constexpr (kKind == FlagKind::kNoIsolate) {
    opt = cmd->add_flag_callback(names, [field] { *field = 0; }, help)->excludes(cmd->get_option("--isolate"));
  } else if constexpr (kKind == FlagKind::kTableLayout) {
    const std::vector<std::string>& layouts = slotguard::TableLayoutNames();
    opt = cmd->add_option_function<std::string>(
                 names,
                 [field, &layouts](const std::string& name) {
                   *field = static_cast<slotguard::TableLayoutKind>(
                       std::find(layouts.begin(), layouts.end(), name) - layouts.begin());
                 },
                 help)
              ->check(OneOf(layouts, false));
  } else if constexpr (kKind == FlagKind::kZeroNull) {
    const std::vector<std::string>& orders = slotguard::ZeroNullNames();
    opt = cmd->add_option_function<std::string>(
                 names,
                 [field, &orders](const std::string& name) {
                   *field = static_cast<slotguard::ZeroNull>(std::find(orders.begin(), orders.end(), name) -
                                                             orders.begin());
                 },
                 help)
              ->check(OneOf(orders, false));
  } else {
    opt = cmd->add_option(names, *field, help);
    if constexpr (kKind == FlagKind::kShown || kKind == FlagKind::kPositional) opt->capture_default_str();
    if constexpr (kKind == FlagKind::kRequired) opt->required();
    if constexpr (kKind == FlagKind::kFamilyFile)
      opt->expected(1)
          ->allow_extra_args(false)  // one file per --family-file: the scenarios after it stay positional
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  if (check) opt->check(*check);
}

// Whether a row of OPTIONS fills a field of O: its own struct, or
// AnyCommand for every command struct (the ones with a --backend).
template <typename Options, typename O>
constexpr bool kFills = std::is_same_v<Options, O> ||
                        (std::is_same_v<Options, slotguard::AnyCommand> &&
                         (std::is_same_v<O, slotguard::CheckOptions> || std::is_same_v<O, slotguard::ReplayOptions> ||
                          std::is_same_v<O, slotguard::MutantsOptions> || std::is_same_v<O, slotguard::FuzzOptions> ||
                          std::is_same_v<O, slotguard::ProveOptions> || std::is_same_v<O, slotguard::BenchOptions>));

// Whether a row of OPTIONS fills a field of O's campaign settings
// (O::settings): the rows of CampaignSettings, for the commands that run a
// campaign. They register with O's own rows, in the table's order, so that
// --help lists a command's campaign flags among its others.
template <typename Options, typename O>
constexpr bool kFillsSettings =
    std::is_same_v<Options, slotguard::CampaignSettings> &&
    (std::is_same_v<O, slotguard::FuzzOptions> || std::is_same_v<O, slotguard::ProveOptions>);

// Registers on `cmd` the rows of the flags table that fill *o (and its
// campaign settings) and that `cmd` has, in the table's order.
template <typename O>
void AddFlags(CLI::App* cmd, O* o) {
  using namespace slotguard;  // the table names the structs unqualified
  const std::string command = cmd->get_name();
#define SG_FLAG(OPTIONS, FIELD, TYPE, INIT, COMMANDS, NAMES, KIND, CHECK, SECTION, DOC_FLAG, DOC_DEFAULT, HELP, DOC) \
  if constexpr (kFills<OPTIONS, O> || kFillsSettings<OPTIONS, O>) {                                 \
    static const FlagRow row = {#OPTIONS, #FIELD, COMMANDS, NAMES, FlagKind::KIND, FlagDoc::SECTION, \
                                DOC_FLAG, DOC_DEFAULT, HELP, DOC};                                   \
    if constexpr (kFillsSettings<OPTIONS, O>) {                                                     \
      if (FlagOfCommand(row, command)) AddFlag<FlagKind::KIND>(cmd, &o->settings.FIELD, NAMES, HELP, CHECK); \
    } else {                                                                                        \
      if (FlagOfCommand(row, command)) AddFlag<FlagKind::KIND>(cmd, &o->FIELD, NAMES, HELP, CHECK); \
    }                                                                                               \
  }
#include "cli/flags.def"
#undef SG_FLAG
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
      "slotguard: checks that KV-cache slot-mapping kernels never write into block 0, the "
      "null block.\nRuns the CUDA kernels (or the same source on the host) and an independent "
      "CPU reference over scenario files, compares them bit for bit and checks invariants.\n"
      "Exit codes: 0 every scenario holds, 1 at least one does not, 2 bad input or usage, "
      "3 environment (no usable GPU, CUDA error)."};
  app.set_version_flag("--version", "slotguard " SLOTGUARD_VERSION);
  app.require_subcommand(1);
  slotguard::SetWorkerExecutable(SelfExecutable(argv[0]));
  slotguard::SetInvokedAs(argv[0]);  // the printed replay commands name the path it was run by

  slotguard::CommonOptions common;  // --family-file, any command that reads families
  slotguard::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "CI gate: every scenario under PATHs, every group, backend vs reference, all "
               "invariants");
  check_cmd->footer(Footer("  slotguard check                                   # scenarios/, gpu when usable\n"
"  slotguard check --backend host --writers -q scenarios/\n"
"  slotguard check --variant unguarded --junit report.xml --suppressions known.json scenarios/paged/\n",
                         "0 every scenario holds (those a --suppressions entry covers hold as suppressed); 1 a scenario does not hold (also when another file is bad input: every problem is printed); 2 bad input or usage (a file that does not load, a bad --suppressions file, a --variant that no group under the paths has); 3 environment (no usable GPU, a CUDA error, a report that cannot be written)"));
  AddFlags(check_cmd, &check);
  AddFlags(check_cmd, &check.setup);
  AddFlags(check_cmd, &common);
  AddFlags(check_cmd, &check.limits);

  slotguard::ReplayOptions replay;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay", "one scenario, verbose: per-token table and the blocks each request wrote");
  replay_cmd->footer(Footer("  slotguard replay scenarios/paged/decode.json\n"
"  slotguard replay --backend host --variant dummy_reads_row scenarios/paged/mutants/dummy-reads-row.json\n"
"  slotguard replay --html map.html scenarios/rings/mutants/kpool-prefix.json\n",
                         "0 the scenario holds; 1 it does not; 2 bad input or usage (the file, a --variant no group has); 3 environment (no usable GPU, a CUDA error, an --html page that cannot be written)"));
  AddFlags(replay_cmd, &replay);
  AddFlags(replay_cmd, &replay.setup);
  AddFlags(replay_cmd, &common);
  AddFlags(replay_cmd, &replay.limits);

  slotguard::MutantsOptions mutants;
  CLI::App* mutants_cmd = app.add_subcommand(
      "mutants", "control experiment: every historical variant forced over the scenarios; "
                 "exit 1 when a variant survives or a fixed kernel has findings");
  mutants_cmd->footer(Footer("  slotguard mutants --backend host               # scenarios/\n"
"  slotguard mutants -j 8 scenarios/paged/\n",
                         "0 every variant is caught and fixed is clean; 1 a variant survives or fixed has findings; 2 bad input or usage (every bad file is printed, no matrix); 3 environment"));
  AddFlags(mutants_cmd, &mutants);
  AddFlags(mutants_cmd, &mutants.setup);
  AddFlags(mutants_cmd, &common);
  AddFlags(mutants_cmd, &mutants.limits);

  slotguard::FuzzOptions fuzz;
  CLI::App* fuzz_cmd = app.add_subcommand(
      "fuzz", "generate engine-consistent scenarios and check them; on a finding, write the "
              "minimized scenario (no expect) to --out and exit 1 (with --keep-going: every distinct "
              "finding of the budget, one reproducer each)");
  fuzz_cmd->footer(Footer("  slotguard fuzz --time 300 --seed 7 -j 8\n"
"  slotguard fuzz --backend host --family paged --variant unguarded --runs 2000\n"
"  slotguard fuzz --time 600 --keep-going --suppressions known.json --json fuzz.json --out findings/\n",
                         "0 no finding (or only suppressed ones); 1 a finding no suppression covers (its minimized reproducer is in --out); 2 usage or a bad --suppressions file (a flag, family or variant); 3 environment (no usable GPU, a CUDA error, an --out that cannot be created, a --json or --sarif that cannot be written: after the summary, a reproducer that cannot be written: its finding still reported); 130, 143 stopped by SIGINT or SIGTERM before the budget was spent, without a finding (with one: 1), everything written as at a normal end; a second signal ends it at once with 128 + that signal"));
  AddFlags(fuzz_cmd, &fuzz);
  AddFlags(fuzz_cmd, &fuzz.generator);
  AddFlags(fuzz_cmd, &fuzz.setup);
  AddFlags(fuzz_cmd, &common);

  slotguard::ProveOptions prove;
  CLI::App* prove_cmd = app.add_subcommand(
      "prove", "check every batch within a scope (a bounded proof): the summary states the scope as a claim; on a "
               "finding, every distinct one is minimized and written to --out, exit 1");
  prove_cmd->footer(Footer("  slotguard prove --scope small                    # the PR gate's scope, seconds on the host\n"
"  slotguard prove --scope medium --backend gpu -j 16 --json prove.json\n"
"  slotguard prove --scope large --shard 3/8 --time 3600 --sarif prove-3.sarif\n"
"  slotguard prove --scope my-scope.json --family kpool_tail --variant prefix\n",
                          "0 no finding (or only suppressed ones) in what was checked (a run cut short by --time says which part); 1 a finding no suppression covers (its minimized reproducer is in --out); 2 usage, a bad scope file, a scope too large to count, a bad --suppressions file; 3 environment (no usable GPU, a CUDA error, an --out that cannot be created, a --json or --sarif that cannot be written)"));
  AddFlags(prove_cmd, &prove);
  AddFlags(prove_cmd, &prove.setup);
  AddFlags(prove_cmd, &common);

  slotguard::MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "merge the --json reports of fuzz and prove campaigns (the shards of a night, several nights) into "
               "one list of distinct findings by signature: first and last seen, counts, reproducers, suppressions, "
               "one SARIF log");
  merge_cmd->footer(Footer("  slotguard merge fuzz-0.json fuzz-1.json fuzz-2.json fuzz-3.json\n"
"  slotguard merge --suppressions .slotguard/suppressions.json --json merged.json --sarif merged.sarif nights/*/fuzz-*.json\n",
                           "0 no unsuppressed finding in any report; 1 a finding no suppression covers; 2 bad input or usage (a report that cannot be read, is not JSON or not a fuzz or prove report, or misses a key: one line with its JSON pointer, or a bad --suppressions file); 3 environment (a --json or --sarif that cannot be written)"));
  AddFlags(merge_cmd, &merge);

  slotguard::ImportOptions import;
  CLI::App* import_cmd =
      app.add_subcommand("import", "turn a fuzz_mapping libFuzzer artifact into a scenario file");
  import_cmd->footer(Footer("  slotguard import crash-0123abcd                  # the scenario to stdout\n"
"  slotguard import --variant paged/unguarded -o crash.json crash-0123abcd\n",
                         "0 the scenario is written; 2 bad input or usage (an artifact that cannot be read, an unknown variant, an -o that cannot be a file: a directory, FIFO, device or missing folder); 3 environment (writing -o failed)"));
  AddFlags(import_cmd, &import);

  CLI::App* list_cmd =
      app.add_subcommand("list", "families (with their parameters), variants and invariants, from the registries");
  list_cmd->footer(Footer("  slotguard list\n"
"  slotguard list --params-markdown > params.md\n"
"  slotguard list --json --family-file examples/families/sliding_window.json\n",
                         "0 listed; 2 usage"));
  slotguard::ListOptions list;
  AddFlags(list_cmd, &list);
  list_cmd->get_option("--json")->excludes(list_cmd->get_option("--params-markdown"));
  AddFlags(list_cmd, &common);

  slotguard::BenchOptions bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench", "speed: every family's GPU mapping vs a device-to-device copy of the same bytes, "
               "and host backend + reference + invariants token-checks per second");
  bench_cmd->footer(Footer("  slotguard bench                                  # GPU figures when a device is usable, host always\n"
"  slotguard bench --backend host --host-tokens 1048576\n"
"  slotguard bench --references 1000000             # the interpreter against the hand-written references\n",
                         "0 the figures are printed (bench gives no verdict but --references': 1 when the references differ); 2 usage; 3 environment (--backend gpu without a device, a CUDA call or a host run that fails)"));
  AddFlags(bench_cmd, &bench);

  slotguard::WorkerOptions worker;
  CLI::App* worker_cmd = app.add_subcommand("__worker", "the worker process of fault isolation")->group("");
  AddFlags(worker_cmd, &worker);
  AddFlags(worker_cmd, &worker.provider);
  AddFlags(worker_cmd, &common);

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
        !slotguard::RegisterFamilyFiles(common.family_files, &problem)) {
      std::cerr << slotguard::ErrorLine(problem);
      return slotguard::kExitBadInput;
    }
  }
  try {
    if (*check_cmd) return slotguard::RunCheck(check, std::cout, std::cerr);
    if (*replay_cmd) return slotguard::RunReplay(replay, std::cout, std::cerr);
    if (*list_cmd) return slotguard::RunList(list.params_markdown, list.json, std::cout);
    if (*mutants_cmd) return slotguard::RunMutants(mutants, std::cout, std::cerr);
    if (*fuzz_cmd) return slotguard::RunFuzz(fuzz, std::cout, std::cerr);
    if (*prove_cmd) return slotguard::RunProve(prove, std::cout, std::cerr);
    if (*merge_cmd) return slotguard::RunMerge(merge, std::cout, std::cerr);
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
    } else if (*import_cmd || *merge_cmd) {
      what = *import_cmd ? "import" : "merge";
    }
    std::cerr << slotguard::ErrorLine(slotguard::OutOfMemoryText(what, advice));
    return slotguard::kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << slotguard::ErrorLine(std::string("internal error: ") + e.what());
    return slotguard::kExitEnvironment;
  }
  return slotguard::kExitBadInput;
}
