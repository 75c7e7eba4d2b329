#include "cli/flags.h"

#include <sstream>

namespace slotguard {

const std::vector<FlagRow>& FlagRows() {
  static const std::vector<FlagRow> rows = {
#define SG_FLAG(OPTIONS, FIELD, TYPE, INIT, COMMANDS, NAMES, KIND, CHECK, SECTION, DOC_FLAG, DOC_DEFAULT, HELP, DOC) \
  {#OPTIONS, #FIELD, COMMANDS, NAMES, FlagKind::KIND, FlagDoc::SECTION, DOC_FLAG, DOC_DEFAULT, HELP, DOC},
#include "cli/flags.def"
#undef SG_FLAG
  };
  return rows;
}

bool FlagOfCommand(const FlagRow& row, const std::string& command) {
  std::istringstream words(row.commands);
  for (std::string w; words >> w;)
    if (w == command) return true;
  return false;
}

std::vector<std::string> FlagLongNames(const FlagRow& row) {
  std::vector<std::string> names;
  std::istringstream parts(row.names);
  for (std::string n; std::getline(parts, n, ',');)
    if (n.rfind("--", 0) == 0 || n[0] != '-') names.push_back(n);
  return names;
}

std::vector<std::string> FlagDocRows(FlagDoc section) {
  std::vector<std::string> lines;
  for (const FlagRow& row : FlagRows()) {
    if (row.doc != section || std::string(row.doc_flag).empty()) continue;
    std::vector<std::string> cells = {row.doc_flag, row.doc_default};
    if (section != FlagDoc::kDocLimits) cells.push_back(row.doc_meaning);
    std::string line = "|";
    for (const std::string& c : cells) line += c.empty() ? " |" : " " + c + " |";
    lines.push_back(line);
  }
  return lines;
}

}  // namespace slotguard
