// The command line's flags table (cli/flags.def) as data: for main.cc's
// registration, and docs/cli.md's flag rows.
#ifndef SLOTGUARD_CLI_FLAGS_H_
#define SLOTGUARD_CLI_FLAGS_H_

#include <string>
#include <vector>

#include "cli/flag_members.h"

namespace slotguard {

/// The rows of a flags table row that apply to every command struct with
/// the row's field (--backend).
struct AnyCommand {};
/// What every command that reads families takes (--family-file), from
/// the flags table (cli/flags.def).
struct CommonOptions {
#undef SG_MEMBER_CommonOptions
#define SG_MEMBER_CommonOptions SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_CommonOptions
#define SG_MEMBER_CommonOptions SG_MEMBER_OFF
};
/// `slotguard list`'s flags (--params-markdown, --json), from the table.
struct ListOptions {
#undef SG_MEMBER_ListOptions
#define SG_MEMBER_ListOptions SG_MEMBER_ON
#define SG_FLAG SG_FLAG_MEMBER
#include "cli/flags.def"
#undef SG_FLAG
#undef SG_MEMBER_ListOptions
#define SG_MEMBER_ListOptions SG_MEMBER_OFF
};

/// How a row is registered with CLI11 (main.cc's AddFlag).
enum class FlagKind {
  kOption,       // a value
  kShown,        // a value whose default --help shows
  kFlag,         // a switch (bool)
  kPositional,   // positional values, default shown
  kRequired,     // one required positional value
  kBackend,      // auto|gpu|host, by name in any case
  kIsolate,      // --isolate: sets the int field to 1
  kNoIsolate,    // --no-isolate: 0; excludes --isolate
  kTableLayout,  // one of the table layouts, by name
  kZeroNull,     // one of graph.zero_null's values, by name
  kFamilyFile,   // a file per flag, repeatable
};

/// The docs/cli.md table that lists a row.
enum class FlagDoc { kDocNone, kDocShared, kDocLimits, kDocCheck, kDocFuzz, kDocProve, kDocMerge, kDocBench };

struct FlagRow {
  const char* options;   // the struct's name, as the table writes it
  const char* field;
  const char* commands;  // space-separated
  const char* names;     // CLI11's
  FlagKind kind;
  FlagDoc doc;
  const char* doc_flag;
  const char* doc_default;
  const char* help;
  const char* doc_meaning;
};

/// Every row of cli/flags.def, in its order.
const std::vector<FlagRow>& FlagRows();

/// Whether `command` is one of the row's commands.
bool FlagOfCommand(const FlagRow& row, const std::string& command);

/// The long names of a row ("--jobs" of "-j,--jobs"); a positional's name.
std::vector<std::string> FlagLongNames(const FlagRow& row);

/// docs/cli.md's rows of one table, one Markdown line each: "| flag |
/// default | meaning |" (kDocLimits: "| flag | default |"), an empty cell
/// as "| |".
std::vector<std::string> FlagDocRows(FlagDoc section);

}  // namespace slotguard

#endif  // SLOTGUARD_CLI_FLAGS_H_
