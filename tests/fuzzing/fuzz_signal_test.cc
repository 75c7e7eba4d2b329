// `slotguard fuzz` stopped from outside, through the binary: SIGTERM stops
// it at the next scenario and everything it found is written (the JSON
// summary, SARIF, a reproducer per finding, the summary line), exit 1 with
// a finding and 128 + the signal without; a second signal exits at once.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/scratch_dir.h"

extern char** environ;

namespace slotguard {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The binary with `args`, its output in files of the test's directory.
struct Fuzz {
  pid_t pid = -1;
  std::string out, err;
  explicit Fuzz(const std::vector<std::string>& args) {
    out = ScratchPath("stdout");
    err = ScratchPath("stderr");
    std::vector<std::string> all = {SLOTGUARD_BINARY, "fuzz"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
  }
  /// Waits until `what` shows in its standard error (at most 60 s).
  bool WaitFor(const std::string& what) {
    for (int i = 0; i < 600; ++i) {
      if (Read(err).find(what) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  /// Its exit status (128 + signal when killed), at most 60 s after now.
  int Wait() {
    int status = 0;
    for (int i = 0; i < 600; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
};

// A mutant found all the time: keep going until stopped, then everything
// found so far is written, unshrunk.
TEST(FuzzSignalTest, SigtermWritesEveryFindingSoFar) {
  const std::string dir = FreshScratchPath("findings"), json = ScratchPath("fuzz.json"),
                    sarif = ScratchPath("fuzz.sarif");
  Fuzz fuzz({"--backend", "host", "--family", "kpool_tail", "--variant", "prefix", "--keep-going", "--time", "600",
             "--seed", "3", "--out", dir, "--json", json, "--sarif", sarif});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // many findings by then
  kill(fuzz.pid, SIGTERM);
  EXPECT_EQ(1, fuzz.Wait()) << Read(fuzz.err);
  const std::string err = Read(fuzz.err), out = Read(fuzz.out);
  EXPECT_NE(std::string::npos, err.find("slotguard: stopping at the next scenario")) << err;
  EXPECT_NE(std::string::npos, err.find("fuzz: stopped by SIGTERM after")) << err;
  EXPECT_NE(std::string::npos, out.find("slotguard: fuzz: ")) << "the summary line: " << out;
  const nlohmann::json report = nlohmann::json::parse(Read(json));
  ASSERT_TRUE(report.contains("findings")) << report.dump();
  ASSERT_GE(report["findings"].size(), 1u) << report.dump();
  size_t reproducers = 0;
  for (const auto& entry : fs::directory_iterator(dir)) reproducers += entry.path().extension() == ".json";
  EXPECT_EQ(report["findings"].size(), reproducers) << "a reproducer per distinct finding";
  EXPECT_NE(std::string::npos, Read(sarif).find("\"results\"")) << "the SARIF is written";
}

TEST(FuzzSignalTest, AStopWithoutAFindingExits128PlusTheSignal) {
  const std::string json = ScratchPath("fuzz.json");
  Fuzz fuzz({"--backend", "host", "--time", "600", "--out", FreshScratchPath("out"), "--json", json});
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(fuzz.pid, SIGINT);
  EXPECT_EQ(128 + SIGINT, fuzz.Wait()) << Read(fuzz.err);
  EXPECT_NE(std::string::npos, Read(fuzz.out).find("no finding")) << Read(fuzz.out);
  const nlohmann::json report = nlohmann::json::parse(Read(json));
  EXPECT_GT(report["scenarios"].get<int64_t>(), 0) << report.dump();
}

// A provider that takes two seconds a message: the first SIGTERM waits for
// the message, the second ends the process at once.
TEST(FuzzSignalTest, ASecondSignalExitsAtOnce) {
  const std::string provider = std::string(SLOTGUARD_FIXTURE_PROVIDER) + " slow 2000";
  Fuzz fuzz({"--backend", "host", "--kernel-cmd", provider, "--time", "600", "--out", FreshScratchPath("out")});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(fuzz.pid, SIGTERM);
  ASSERT_TRUE(fuzz.WaitFor("slotguard: stopping at the next scenario")) << Read(fuzz.err);
  const auto t0 = std::chrono::steady_clock::now();
  kill(fuzz.pid, SIGTERM);
  EXPECT_EQ(128 + SIGTERM, fuzz.Wait()) << Read(fuzz.err);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5);
  EXPECT_EQ(std::string::npos, Read(fuzz.out).find("slotguard: fuzz: ")) << "nothing more written";
}

}  // namespace
}  // namespace slotguard
