// The flags table (src/cli/flags.def) against what users read: docs/cli.md's
// flag tables hold exactly its rows, in its order, and each command's
// --help lists exactly its flags with its help texts. A flag added, renamed
// or reworded in one place and not the other fails here.
#include "cli/flags.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace slotguard {
namespace {

const std::string kSource = SLOTGUARD_SOURCE_DIR;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The rows (past the header and its rule) of the `index`-th table of the
// docs/cli.md section that starts with the line `heading`.
std::vector<std::string> DocTable(const std::string& heading, int index) {
  std::istringstream in(ReadFile(kSource + "/docs/cli.md"));
  std::vector<std::vector<std::string>> tables;
  bool in_section = false, in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (in_section) break;
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    const bool row = line.rfind("|", 0) == 0;
    if (row && !in_table) tables.emplace_back();
    in_table = row;
    if (row) tables.back().push_back(line);
  }
  if (index >= static_cast<int>(tables.size()) || tables[index].size() < 2) return {};
  return std::vector<std::string>(tables[index].begin() + 2, tables[index].end());
}

struct Section {
  FlagDoc doc;
  const char* heading;
  int index;
};
const Section kSections[] = {
    {FlagDoc::kDocShared, "## Options shared by check, replay, mutants, fuzz and prove", 0},
    {FlagDoc::kDocLimits, "## Options shared by check, replay, mutants, fuzz and prove", 1},
    {FlagDoc::kDocCheck, "## check", 0},
    {FlagDoc::kDocFuzz, "## fuzz", 0},
    {FlagDoc::kDocProve, "## prove", 0},
    {FlagDoc::kDocMerge, "## merge", 0},
    {FlagDoc::kDocBench, "## bench", 0},
};

std::string Lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

TEST(FlagsTableTest, TheDocsFlagTablesAreTheTablesRows) {
  for (const Section& s : kSections) {
    const std::vector<std::string> expected = FlagDocRows(s.doc);
    ASSERT_FALSE(expected.empty()) << s.heading;
    EXPECT_EQ(Lines(expected), Lines(DocTable(s.heading, s.index)))
        << "docs/cli.md's table " << s.index << " under '" << s.heading
        << "' is not src/cli/flags.def's rows; they are (paste them in):\n"
        << Lines(expected);
  }
}

// Whether `text` holds the flag `name` as a word ("--kernel-spec" in
// "`--kernel-cubin FILE --kernel-spec SPEC.json`", not "--json" in "--json-x").
bool Names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const char next = at + name.size() < text.size() ? text[at + name.size()] : ' ';
    if (!(std::isalnum(static_cast<unsigned char>(next)) || next == '-' || next == '_')) return true;
  }
  return false;
}

// A documented row names its flags in its cell, and a row without a cell
// of its own is named in another's cell of its table (--no-isolate in
// "`--isolate` / `--no-isolate`").
TEST(FlagsTableTest, EveryDocumentedFlagIsNamedInItsTable) {
  for (const Section& s : kSections) {
    std::string cells;
    for (const FlagRow& row : FlagRows())
      if (row.doc == s.doc) cells += std::string(row.doc_flag) + "\n";
    for (const FlagRow& row : FlagRows()) {
      if (row.doc != s.doc) continue;
      for (const std::string& name : FlagLongNames(row)) {
        const std::string where = std::string(row.doc_flag).empty() ? cells : row.doc_flag;
        EXPECT_TRUE(Names(where, name)) << name << " in " << where;
      }
    }
  }
}

// The "--x" flags (and positionals) a command's --help lists, with the
// help text after each.
std::map<std::string, std::string> HelpFlags(const std::string& command) {
  const std::string cmd = std::string(SLOTGUARD_BINARY) + " " + command + " --help";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  for (size_t n; pipe && (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  if (pipe) pclose(pipe);
  // CLI11 2.x: "  NAMES TYPE    HELP", or the help alone on the next line
  // (from column 31) when the names are long.
  std::map<std::string, std::string> flags;
  std::istringstream in(out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  bool listing = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line == "Positionals:" || line == "Options:") {
      listing = true;
      continue;
    }
    if (line.empty() || line.rfind("Examples:", 0) == 0) {
      listing = line.empty() && listing;
      if (line.rfind("Examples:", 0) == 0) break;
      continue;
    }
    if (!listing || line.size() < 3 || line[2] == ' ') continue;
    const std::string names = line.substr(2, line.find(' ', 2) - 2);
    const bool next_line = i + 1 < lines.size() && lines[i + 1].rfind(std::string(30, ' '), 0) == 0;
    const std::string help = next_line ? lines[i + 1].substr(30) : line.size() > 30 ? line.substr(30) : "";
    std::istringstream parts(names);
    for (std::string n; std::getline(parts, n, ',');)
      if (n.rfind("--", 0) == 0 || n[0] != '-') flags[n] = help;
  }
  return flags;
}

TEST(FlagsTableTest, EachCommandsHelpListsExactlyTheTablesFlags) {
  for (const char* command : {"check", "replay", "mutants", "fuzz", "prove", "merge", "import", "list", "bench"}) {
    std::map<std::string, std::string> help = HelpFlags(command);
    ASSERT_TRUE(help.count("--help")) << command << ": no --help line parsed";
    help.erase("--help");
    std::set<std::string> table;
    for (const FlagRow& row : FlagRows()) {
      if (!FlagOfCommand(row, command)) continue;
      for (const std::string& name : FlagLongNames(row)) {
        table.insert(name);
        auto it = help.find(name);
        if (it == help.end()) {
          ADD_FAILURE() << command << " --help does not list " << name;
          continue;
        }
        EXPECT_EQ(row.help, it->second) << command << " " << name;
      }
    }
    for (const auto& [name, text] : help)
      EXPECT_TRUE(table.count(name)) << command << " --help lists " << name << ", which src/cli/flags.def has not";
  }
}

}  // namespace
}  // namespace slotguard
