#include "cli/command_setup.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "setup/backend_setup.h"
#include "cli/commands.h"
#include "fuzzing/campaign.h"
#include "registry/families.h"
#include "runner/scenario_files.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/output_file.h"

namespace slotguard {

std::unique_ptr<Backend> OpenBackend(BackendKind kind, const RunSetup& setup, std::ostream& err, int* exit_code) {
  std::string problem;
  bool environment;
  std::unique_ptr<Backend> backend = OpenBackend(kind, setup, &problem, &environment);
  if (!backend) err << ErrorLine(problem);
  if (exit_code) *exit_code = environment ? kExitEnvironment : kExitBadInput;
  return backend;
}

LoadLimits LimitsFor(const LoadLimits& limits, const Backend& backend, const RunSetup& setup) {
  LoadLimits out = limits;
  out.footprint = FootprintOf(backend, setup);
  return out;
}

namespace {

/// Do a and b name one file: the same file when both exist, none when one
/// does, else the same normalized absolute path (two reports not written yet).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool has_a = std::filesystem::exists(a, ec), has_b = std::filesystem::exists(b, ec);
  if (has_a && has_b) return std::filesystem::equivalent(a, b, ec) && !ec;
  if (has_a || has_b) return false;
  // absolute first: weakly_canonical leaves a relative path whose first
  // part does not exist as it is ("r.json" against "./r.json").
  const std::filesystem::path pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ec), ec);
  if (ec) return false;
  const std::filesystem::path pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, ec), ec);
  return !ec && pa == pb;
}

}  // namespace

bool DistinctFiles(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs, std::ostream& err) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    auto clash = [&](const NamedFile& other, const char* what) {
      if (other.path.empty() || !SameFile(outputs[i].path, other.path)) return false;
      err << ErrorLine(outputs[i].flag + " " + EscapeText(outputs[i].path, 0) + ": the same file as " + other.flag +
                       " " + EscapeText(other.path, 0) + "; expected a path of its own (writing it would overwrite " +
                       what + ")");
      return true;
    };
    for (size_t j = 0; j < i; ++j)
      if (clash(outputs[j], "that report")) return false;
    for (const NamedFile& in : inputs)
      if (clash(in, "that input")) return false;
  }
  return true;
}

std::vector<NamedFile> ImplementationFiles(const ProviderSource& source) {
  std::vector<NamedFile> files = {{"--kernel-lib", source.kernel_lib},
                                  {"--kernel-cubin", source.kernel_cubin},
                                  {"--kernel-spec", source.kernel_spec}};
  if (source.kernel_cmd.empty()) return files;
  // The command's words as the shell splits plain words (quotes dropped):
  // those that name a file are what it runs.
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool in_word = false;
  for (char c : source.kernel_cmd) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  std::error_code ec;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string path = words[i];
    if (i == 0 && path.find('/') == std::string::npos) {  // the program, as PATH finds it
      const char* env = std::getenv("PATH");
      std::istringstream dirs(env ? env : "");
      std::string dir;
      path.clear();
      while (std::getline(dirs, dir, ':'))
        if (std::filesystem::is_regular_file(std::filesystem::path(dir.empty() ? "." : dir) / words[0], ec)) {
          path = (std::filesystem::path(dir.empty() ? "." : dir) / words[0]).string();
          break;
        }
    }
    if (!path.empty() && std::filesystem::is_regular_file(path, ec)) files.push_back({"--kernel-cmd's", path});
  }
  return files;
}

bool CheckFamilyNames(const std::vector<std::string>& names, std::ostream& err) {
  std::string problem;
  for (const std::string& name : names) {
    Family family;
    if (FindFamily(name, &family, &problem)) continue;
    std::vector<std::string> known;
    for (const FamilyInfo& info : AllFamilies()) known.push_back(info.name);
    const std::string match = ClosestCommandLineName(name, known);
    err << ErrorLine("--family: unknown kernel family " + QuoteName(name) +
                     (match.empty() ? "" : ", did you mean '" + match + "'?") + "; expected one of " + JoinNames(known));
    return false;
  }
  return true;
}

bool CheckCampaignFiles(const ProviderSource& provider, const std::string& suppressions_path,
                        const std::string& json_path, const std::string& sarif_path, const std::string& out_dir,
                        Suppressions* suppressions, std::ostream& err, const std::vector<NamedFile>& more_inputs) {
  std::vector<NamedFile> inputs = ImplementationFiles(provider);
  inputs.push_back({"--suppressions", suppressions_path});
  inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
  if (!CheckOutputs({{"--json", json_path}, {"--sarif", sarif_path}}, inputs, err)) return false;
  if (const std::string why = OutputDirProblem(out_dir); !why.empty()) {
    err << ErrorLine("--out " + EscapeText(out_dir, 0) + ": " + why +
                     "; expected a directory for the reproducers (created when missing)");
    return false;
  }
  std::string problem;
  if (!suppressions_path.empty() && !LoadSuppressions(suppressions_path, suppressions, &problem)) {
    err << ErrorLine(problem);
    return false;
  }
  return true;
}

bool CheckOutputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& given_inputs,
                  std::ostream& err) {
  // Every command's inputs include the family descriptions it loaded
  // (--family-file, SLOTGUARD_FAMILY_PATH's files).
  std::vector<NamedFile> inputs = given_inputs;
  for (const std::string& file : UserFamilyFiles()) inputs.push_back({"the family file", file});
  for (const NamedFile& o : outputs) {
    if (o.path.empty()) continue;
    const std::string problem = OutputPathProblem(o.path);
    if (problem.empty()) continue;
    err << ErrorLine(o.flag + " " + EscapeText(o.path, 0) + ": " + problem +
                     "; expected a regular file or a new file in an existing folder");
    return false;
  }
  return DistinctFiles(outputs, inputs, err);
}

bool OpenScenarioFiles(const std::vector<std::string>& paths, std::vector<std::string>* files,
                       std::ostream& err) {
  std::string problem;
  if (CollectScenarioFiles(paths, files, &problem)) return true;
  err << ErrorLine(problem);
  return false;
}

bool ParseShardFlag(const std::string& text, CampaignSettings* settings, std::ostream& err) {
  std::string problem;
  if (text.empty() || ParseShard(text, &settings->shard, &settings->shards, &problem)) return true;
  err << ErrorLine("--shard: " + problem);
  return false;
}

bool CheckSarifRoot(const std::string& root, std::ostream& err) {
  std::error_code ec;
  if (root.empty() || std::filesystem::is_directory(root, ec)) return true;
  err << ErrorLine("--sarif-root " + EscapeText(root, 0) + ": " +
                   (std::filesystem::exists(root, ec) ? "not a directory" : "no such directory") +
                   "; expected the folder the SARIF log's file URIs are relative to");
  return false;
}

}  // namespace slotguard
