#include "fuzzing/regressions.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "runner/scenario_files.h"
#include "util/error_line.h"
#include "util/output_file.h"

namespace slotguard {

namespace fs = std::filesystem;

bool RegressionFiles(const std::string& dir, std::vector<std::string>* files, std::string* err) {
  files->clear();
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) return true;  // created when the first reproducer is added
  if (!fs::is_directory(status)) {
    *err = "--regressions " + EscapeText(dir, 0) + ": not a directory; expected a folder of reproducers (created "
           "when missing)";
    return false;
  }
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (it->path().extension() == ".json" && (!it->is_directory(entry_ec) || entry_ec))
      files->push_back(it->path().string());
  }
  if (ec) {
    *err = "--regressions " + EscapeText(dir, 0) + ": cannot list the directory: " + ec.message();
    return false;
  }
  std::sort(files->begin(), files->end());
  return true;
}

bool AddRegressions(const std::string& dir, const CampaignResult& result, std::vector<std::string>* added,
                    std::string* err) {
  std::error_code ec;
  for (const CampaignFinding& f : result.findings) {
    if (f.suppressed_by >= 0 || !f.written()) continue;
    if (!fs::is_directory(dir, ec)) fs::create_directories(dir, ec);
    const fs::path to = fs::path(dir) / fs::path(f.file).filename();
    if (fs::exists(to, ec)) continue;  // already a regression (or --out is the folder)
    std::ifstream in(f.file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::string why;
    if (!in || !WriteOutputFile(to.string(), text.str(), &why)) {
      *err = "--regressions " + EscapeText(dir, 0) + ": cannot add " + EscapeText(f.file, 0) + ": " +
             (why.empty() ? "cannot read it" : why);
      return false;
    }
    added->push_back(to.string());
  }
  return true;
}

}  // namespace slotguard
