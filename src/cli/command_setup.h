// What every command that runs scenarios sets up first, with its one-line
// errors and exit codes in one place: the library calls, printed.
#ifndef SLOTGUARD_CLI_COMMAND_SETUP_H_
#define SLOTGUARD_CLI_COMMAND_SETUP_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "fuzzing/campaign_settings.h"
#include "setup/backend_setup.h"
#include "scenario/load_limits.h"
#include "suppressions/suppressions.h"

namespace slotguard {

/// OpenBackend (setup/backend_setup.h), or nullptr after printing why
/// (exit 3 when the GPU is not usable, 2 for bad setup flags: *exit_code
/// says which).
std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::ostream& err,
                                     int* exit_code = nullptr);

/// `limits` with the memory footprint of runs on `backend`, so the memory
/// budget (--max-memory-mib) counts what this backend holds of a scenario.
LoadLimits LimitsFor(const LoadLimits& limits, const Backend& backend, const RunSetup& setup);

/// A file a flag names: the flag ("--json") and the path.
struct NamedFile {
  std::string flag;
  std::string path;
};

/// No output names the same file as another output or as an input (a
/// report written over the suppressions file, or over another report);
/// false after printing which two (exit 2). Empty paths are left out.
bool DistinctFiles(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs, std::ostream& err);

/// The files a run loads or executes to run another implementation:
/// --kernel-lib, --kernel-cubin, --kernel-spec, and each word of
/// --kernel-cmd that names an existing file (its script, and its program
/// as PATH finds it).
std::vector<NamedFile> ImplementationFiles(const ProviderSource& source);

/// Before anything runs: every output can be written (a regular file or a
/// new name in an existing folder, never a directory, FIFO, device or
/// socket: util/output_file.h) and is a file of its own (DistinctFiles),
/// none of `inputs` nor a family description the run loaded (--family-file,
/// SLOTGUARD_FAMILY_PATH); a symbolic link counts as its target. False
/// after printing the first problem in one line (exit 2).
bool CheckOutputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs, std::ostream& err);

/// --family NAME...: each a family slotguard knows; false after printing
/// the first unknown one with the command line's suggestion ("kpool" for
/// kpool_tail) and the known names (exit 2).
bool CheckFamilyNames(const std::vector<std::string>& names, std::ostream& err);

/// A campaign's files (fuzz, prove), before it runs: --json and --sarif
/// written as CheckOutputs says, distinct from the implementation's files
/// and the suppressions file; --out a directory or a creatable one; the
/// --suppressions file (when given) loaded into *suppressions; the
/// command's other inputs (prove's --scope file, fuzz's regression
/// reproducers) in `more_inputs`. False after printing the first problem in
/// one line (exit 2).
bool CheckCampaignFiles(const ProviderSource& provider, const std::string& suppressions_path,
                        const std::string& json_path, const std::string& sarif_path, const std::string& out_dir,
                        Suppressions* suppressions, std::ostream& err,
                        const std::vector<NamedFile>& more_inputs = {});

/// --shard I/N (fuzz, prove): its numbers into *settings (shard, shards);
/// "" (the flag not given: the whole stream) leaves them as they are.
/// False after printing why (exit 2).
bool ParseShardFlag(const std::string& text, CampaignSettings* settings, std::ostream& err);

/// --sarif-root: "" (the default) or an existing directory; false after
/// printing why (exit 2).
bool CheckSarifRoot(const std::string& root, std::ostream& err);

/// The scenario files under `paths`; false after printing why (exit 2).
bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err);

}  // namespace slotguard

#endif  // SLOTGUARD_CLI_COMMAND_SETUP_H_
