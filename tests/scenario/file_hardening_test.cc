// No scenario file can hang slotguard, exhaust memory while reading, or forge
// its console output: non-regular files, size caps, trailing bytes, many
// groups, escaped names, ambiguous output names. Each case through the
// loader and, where reasonable, through the real binary (exit code and first
// line).
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "plugin/kernel_spec.h"
#include "report/report.h"
#include "runner/scenario_files.h"
#include "scenario/scenario_json.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {
namespace {

namespace fs = std::filesystem;

const char kScenario[] = R"({"slotguard": 1, "name": "tiny", "num_blocks": 8,
  "batch": {"query_start_loc": [0, 1], "seq_lens": [1]},
  "groups": [{"name": "g", "kernel": "paged", "block_size": 16, "block_table": [[1]]}]})";

/// Runs the slotguard binary; its exit code, *first the first line of its
/// stdout and stderr together.
int RunBinary(const std::string& args, std::string* first, std::string* all = nullptr) {
  const std::string cmd = "timeout 60 " + std::string(SLOTGUARD_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  *first = out.substr(0, out.find('\n'));
  if (all) *all = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class FileHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("slotguard-files-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  std::string Fifo(const std::string& name) const {
    EXPECT_EQ(0, mkfifo(Path(name).c_str(), 0600));
    return Path(name);
  }
  fs::path dir_;
};

std::string LoadError(const std::string& path, const LoadLimits& limits = LoadLimits()) {
  Scenario s;
  std::string err;
  EXPECT_FALSE(LoadScenarioFile(path, limits, &s, &err));
  return err;
}

std::string ParseError(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_FALSE(ParseScenario(text, "x.json", LoadLimits(), &s, &err));
  return err;
}

// 1. Regular files only.

TEST_F(FileHardening, AFifoIsNotReadNorWaitedOn) {
  const std::string fifo = Fifo("f.json");
  EXPECT_EQ(fifo + ": not a regular file (a FIFO); expected a scenario file", LoadError(fifo));
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host " + fifo, &first));
  EXPECT_EQ("slotguard: error: " + fifo + ": not a regular file (a FIFO); expected a scenario file", first);
  EXPECT_EQ(2, RunBinary("import " + fifo, &first));
  EXPECT_EQ("slotguard: error: " + fifo + ": not a regular file (a FIFO); expected a libFuzzer artifact", first);
  EXPECT_EQ(2, RunBinary("mutants --backend host " + fifo, &first));
  EXPECT_NE(std::string::npos, first.find(fifo + ": not a regular file (a FIFO)")) << first;
}

TEST_F(FileHardening, ADeviceIsNotRead) {
  EXPECT_EQ("/dev/zero: not a regular file (a character device); expected a scenario file", LoadError("/dev/zero"));
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host /dev/zero", &first));
  EXPECT_EQ("slotguard: error: /dev/zero: not a regular file (a character device); expected a scenario file", first);
  EXPECT_EQ(2, RunBinary("import /dev/zero", &first));
  EXPECT_EQ("slotguard: error: /dev/zero: not a regular file (a character device); expected a libFuzzer artifact",
            first);
  EXPECT_EQ(2, RunBinary("check --backend host /dev/zero", &first));
  EXPECT_EQ("ERROR /dev/zero: not a regular file (a character device); expected a scenario file", first);
}

TEST_F(FileHardening, ADirectoryWhereAFileIsExpected) {
  const std::string dir = dir_.string();
  EXPECT_EQ(dir + ": is a directory; expected a scenario file", LoadError(dir));
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host " + dir, &first));
  EXPECT_EQ("slotguard: error: " + dir + ": is a directory; expected a scenario file", first);
  EXPECT_EQ(2, RunBinary("import " + dir, &first));
  EXPECT_EQ("slotguard: error: " + dir + ": is a directory; expected a libFuzzer artifact", first);
}

TEST_F(FileHardening, SymlinkLoopMissingAndUnreadableAreToldApart) {
  fs::create_symlink(Path("loop.json"), Path("loop.json"));
  const std::string loop = Path("loop.json"), missing = Path("missing.json");
  EXPECT_EQ(loop + ": too many levels of symbolic links (a symlink loop); expected a scenario file", LoadError(loop));
  EXPECT_EQ(missing + ": no such file or directory; expected a scenario file", LoadError(missing));
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host " + loop, &first));
  EXPECT_EQ("slotguard: error: " + loop + ": too many levels of symbolic links (a symlink loop); expected a scenario file",
            first);
  EXPECT_EQ(2, RunBinary("check --backend host " + loop, &first));
  EXPECT_EQ("slotguard: error: " + loop +
                ": too many levels of symbolic links (a symlink loop); expected a scenario file or a directory of them",
            first);
  EXPECT_EQ(2, RunBinary("import " + missing, &first));
  EXPECT_EQ("slotguard: error: " + missing + ": no such file or directory; expected a libFuzzer artifact", first);
  const std::string locked = Write("locked.json", kScenario);
  chmod(locked.c_str(), 0);
  if (geteuid() != 0) {  // root reads it anyway
    EXPECT_EQ(locked + ": permission denied; expected a scenario file", LoadError(locked));
    EXPECT_EQ(2, RunBinary("replay --backend host " + locked, &first));
    EXPECT_EQ("slotguard: error: " + locked + ": permission denied; expected a scenario file", first);
  }
}

TEST_F(FileHardening, TheDirectoryWalkReportsAFifoOrLoopNamedJson) {
  Write("a.json", kScenario);
  const std::string fifo = Fifo("b.json");
  std::vector<std::string> files;
  std::string err;
  ASSERT_TRUE(CollectScenarioFiles({dir_.string()}, &files, &err)) << err;
  EXPECT_EQ((std::vector<std::string>{Path("a.json"), fifo}), files);
  std::string first, all;
  EXPECT_EQ(2, RunBinary("check --backend host " + dir_.string(), &first, &all));
  EXPECT_NE(std::string::npos, all.find("ERROR " + fifo + ": not a regular file (a FIFO); expected a scenario file"))
      << all;
  fs::remove(fifo);
  fs::create_symlink(Path("c.json"), Path("c.json"));
  EXPECT_EQ(2, RunBinary("check --backend host " + dir_.string(), &first, &all));
  EXPECT_NE(std::string::npos, all.find("ERROR " + Path("c.json") + ": too many levels of symbolic links")) << all;
}

TEST_F(FileHardening, TheKernelSpecReaderTakesRegularFilesOnly) {
  KernelSpec spec;
  std::string err;
  EXPECT_FALSE(LoadKernelSpec(Fifo("k.json"), &spec, &err));
  EXPECT_EQ(Path("k.json") + ": not a regular file (a FIFO); expected a readable kernel spec (--kernel-spec)", err);
  EXPECT_FALSE(LoadKernelSpec(dir_.string(), &spec, &err));
  EXPECT_EQ(dir_.string() + ": is a directory; expected a readable kernel spec (--kernel-spec)", err);
}

// 2. A size cap before parsing.

TEST_F(FileHardening, AFileOverTheCapIsNotParsed) {
  const std::string big = Write("big.json", std::string(kScenario) + std::string(2 << 20, ' '));
  LoadLimits limits;
  limits.max_file_mib = 1;
  const std::string size = std::to_string(fs::file_size(big));
  EXPECT_EQ(big + ": file too large (" + size + " bytes); expected at most 1 MiB (raise with --max-file-mib)",
            LoadError(big, limits));
  Scenario s;
  std::string err;
  EXPECT_TRUE(LoadScenarioFile(big, LoadLimits(), &s, &err)) << err;  // under the default
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host --max-file-mib 1 " + big, &first));
  EXPECT_EQ("slotguard: error: " + big + ": file too large (" + size +
                " bytes); expected at most 1 MiB (raise with --max-file-mib)",
            first);
  EXPECT_EQ(2, RunBinary("check --backend host --max-file-mib 1 " + big, &first));
  EXPECT_EQ("ERROR " + big + ": file too large (" + size + " bytes); expected at most 1 MiB (raise with --max-file-mib)",
            first);
  EXPECT_EQ(0, RunBinary("check --backend host --quiet --max-file-mib 3 " + big, &first)) << first;
}

// 3. Nothing after the document.

TEST_F(FileHardening, TrailingBytesAfterTheDocumentNameTheirOffset) {
  const std::string doc = kScenario;
  const std::string at = std::to_string(doc.size() + 1);
  EXPECT_EQ("x.json: trailing bytes after the JSON document at byte offset " + at +
                " ('\\x00garbage', 8 bytes); expected a scenario object and nothing after it but whitespace",
            ParseError(doc + "\n" + std::string(1, '\0') + "garbage"));
  EXPECT_EQ("x.json: trailing bytes after the JSON document at byte offset " + std::to_string(doc.size()) +
                " ('\\x00', 1 byte); expected a scenario object and nothing after it but whitespace",
            ParseError(doc + std::string(1, '\0')));
  EXPECT_EQ("x.json: trailing bytes after the JSON document at byte offset " + at +
                " ('{}', 2 bytes); expected a scenario object and nothing after it but whitespace",
            ParseError(doc + " {}"));
  EXPECT_EQ("x.json: trailing bytes after the JSON document at byte offset " + at +
                " ('xxxxxxxx' ..., 20 bytes); expected a scenario object and nothing after it but whitespace",
            ParseError(doc + " " + std::string(20, 'x')));
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(doc + " \n\t\r\n", "x.json", LoadLimits(), &s, &err)) << err;
  const std::string file = Write("nul.json", doc + std::string(1, '\0'));
  std::string first;
  EXPECT_EQ(2, RunBinary("replay --backend host " + file, &first));
  EXPECT_EQ("slotguard: error: " + file + ": trailing bytes after the JSON document at byte offset " +
                std::to_string(doc.size()) +
                " ('\\x00', 1 byte); expected a scenario object and nothing after it but whitespace",
            first);
}

// 4. Loading is linear in the number of groups.

std::string ManyGroups(size_t n, const std::string& last_name) {
  std::string text = R"({"slotguard": 1, "name": "many", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 1], "seq_lens": [1]}, "groups": [)";
  for (size_t i = 0; i < n; ++i) {
    const std::string name = i + 1 == n ? last_name : "g" + std::to_string(i);
    text += std::string(i ? "," : "") + R"({"name": ")" + name +
            R"(", "kernel": "paged", "block_size": 16, "block_table": [[1]]})";
  }
  return text + R"(], "expect": {"slot_mapping": {"g49998": [16]}}})";
}

TEST(ManyGroups, FiftyThousandGroupsLoadAndADuplicateIsFound) {
  Scenario s;
  std::string err;
  ASSERT_TRUE(ParseScenario(ManyGroups(50000, "last"), "x.json", LoadLimits(), &s, &err)) << err;
  ASSERT_EQ(50000u, s.groups.size());
  EXPECT_EQ("g0", s.groups[0].name);
  EXPECT_EQ("g49998", s.groups[49998].name);
  EXPECT_EQ("last", s.groups[49999].name);
  EXPECT_EQ(1u, s.expect.slot_mapping.count("g49998"));
  EXPECT_FALSE(ParseScenario(ManyGroups(50000, "g7"), "x.json", LoadLimits(), &s, &err));
  EXPECT_EQ("x.json:/groups/49999/name: duplicate group name 'g7'; expected a name not used by /groups/7", err);
}

// 5. Names and keys escaped, quoted and elided.

TEST(EscapeText, ControlCharactersEscapesAndLongText) {
  EXPECT_EQ("plain name", EscapeText("plain name"));
  EXPECT_EQ("a\\nb\\tc\\rd\\\\e", EscapeText("a\nb\tc\rd\\e"));
  EXPECT_EQ("\\x1b[31mred\\x1b[0m", EscapeText("\x1b[31mred\x1b[0m"));
  EXPECT_EQ("\\x00\\x7f", EscapeText(std::string("\0\x7f", 2)));
  EXPECT_EQ("\\u009b2J", EscapeText("\xc2\x9b" "2J"));       // C1 CSI
  EXPECT_EQ("caf\xc3\xa9", EscapeText("caf\xc3\xa9"));        // UTF-8 kept
  EXPECT_EQ("\\xff\\xc3", EscapeText("\xff\xc3"));            // not UTF-8
  EXPECT_EQ(std::string(80, 'a'), EscapeText(std::string(80, 'a')));
  EXPECT_EQ(std::string(80, 'a') + "...(1048576 bytes)", EscapeText(std::string(1 << 20, 'a')));
  EXPECT_EQ("'it\\'s'", QuoteName("it's"));
  EXPECT_EQ("\"say \\\"x\\\"\"", QuoteName("say \"x\"", kEscapeLimit, '"'));
}

TEST(EscapedMessages, AHugeOrMultiLineUnknownKeyMakesOneShortLine) {
  const std::string huge(1 << 20, 'k');
  const std::string doc = kScenario;
  const std::string with_huge = "{\"" + huge + "\": 1, " + doc.substr(1);
  std::string err = ParseError(with_huge);
  EXPECT_LT(err.size(), 1000u) << err.substr(0, 300);
  EXPECT_EQ(0u, err.find("x.json:/" + std::string(159, 'k') + "...(1048577 bytes): unknown key '" +
                         std::string(80, 'k') + "...(1048576 bytes)'"))
      << err.substr(0, 400);
  err = ParseError("{\"a\\nb\\u001b[2J\": 1, " + doc.substr(1));
  EXPECT_EQ(std::string::npos, err.find('\n'));
  EXPECT_EQ(std::string::npos, err.find('\x1b'));
  EXPECT_EQ(0u, err.find("x.json:/a\\nb\\x1b[2J: unknown key 'a\\nb\\x1b[2J'; expected one of slotguard, name"))
      << err;
  // The same through the binary: one line on stderr.
  const std::string path = (fs::temp_directory_path() / ("slotguard-key-" + std::to_string(getpid()) + ".json")).string();
  std::ofstream(path) << "{\"a\\nERROR forged\": 1, " << doc.substr(1);
  std::string first, all;
  EXPECT_EQ(2, RunBinary("replay --backend host " + path, &first, &all));
  EXPECT_EQ("slotguard: error: " + path + ":/a\\nERROR forged: unknown key 'a\\nERROR forged'", first.substr(0, first.find(';')));
  EXPECT_EQ(first + "\n", all);
  fs::remove(path);
}

TEST(EscapedMessages, GroupNamesAndValuesInLoaderMessages) {
  std::string text = kScenario;
  text.replace(text.find("\"paged\""), 7, "\"pa\\u001bged\"");
  std::string err = ParseError(text);
  EXPECT_NE(std::string::npos, err.find("unknown kernel family 'pa\\x1bged'")) << err;
  text = kScenario;
  text.replace(text.find("[[1]]"), 5, "[[\"x\\ny\"]]");
  err = ParseError(text);
  EXPECT_NE(std::string::npos, err.find("got the string \"x\\ny\"")) << err;
  EXPECT_EQ(std::string::npos, err.find('\n'));
}

TEST(EscapedConsole, ScenarioAndGroupNamesNeverReachTheConsoleRaw) {
  ScenarioReport r;
  r.file = "evil\n.json";
  r.name = "name\x1b[2J\nok    forged.json (x): holds";
  r.status = ScenarioStatus::kChecked;
  r.holds = true;
  r.verdict = "holds";
  const std::string line = ScenarioLine(r);
  EXPECT_EQ("ok    evil\\n.json (name\\x1b[2J\\nok    forged.json (x): holds): holds", line);
  Finding f;
  f.invariant = "no_null_write";
  f.output = "out\r";
  const std::string finding = FindingLine(r, std::string(200, 'g') + "\n", f);
  EXPECT_EQ(std::string::npos, finding.find('\n'));
  EXPECT_EQ(std::string::npos, finding.find('\r'));
  EXPECT_NE(std::string::npos, finding.find(": group " + std::string(80, 'g') + "...(201 bytes) output out\\r: "))
      << finding;
}

// replay's header and group lines, too.
TEST_F(FileHardening, ReplayNeverPrintsANameRaw) {
  std::string text = kScenario;
  const size_t name = text.find("\"name\"");
  ASSERT_NE(std::string::npos, name);
  text.insert(text.find('{') + 1, "\"description\": \"line\\u001b[2J\\nFAIL  forged\",");
  const std::string path = Path("evil.json");
  std::ofstream(path) << text;
  std::string first, all;
  RunBinary("replay --backend host " + path, &first, &all);
  EXPECT_EQ(std::string::npos, all.find('\x1b')) << all;
  EXPECT_EQ(std::string::npos, all.find("\nFAIL  forged")) << all;
  EXPECT_NE(std::string::npos, all.find("line\\x1b[2J\\nFAIL  forged")) << all;
}

// 6. Output names name one group each.

TEST(AmbiguousOutputs, APagedGroupNamedLikeARingTailIsRejected) {
  const std::string text = R"({"slotguard": 1, "name": "amb", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 1], "seq_lens": [1]},
    "groups": [
      {"name": "c128", "kernel": "compressor_ring", "capacity": 4, "ring_block_size": 4, "block_table": [[1]]},
      {"name": "c128.tail", "kernel": "paged", "block_size": 16, "block_table": [[1]]}]})";
  EXPECT_EQ("x.json:/groups/1/name: output name 'c128.tail' is both an output of group 'c128' (/groups/0, "
            "compressor_ring) and of group 'c128.tail' (/groups/1, paged); expected group names whose outputs "
            "(a group c of a family with a second output 'tail' has c and c.tail) name one group each",
            ParseError(text));
}

}  // namespace
}  // namespace slotguard
