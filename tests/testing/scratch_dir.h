// A directory of the running test's own, for the files it writes.
//
// ctest runs each discovered test in its own process and several at once
// (make test passes -j), and two checkouts may test on one machine: a path
// under ::testing::TempDir() named only by the test's purpose is shared, and
// one test's remove_all can delete the file another is writing. The directory
// is named by the process id and the running test's suite and name, so no two
// tests running at once share it.
#ifndef SLOTGUARD_TESTS_TESTING_SCRATCH_DIR_H_
#define SLOTGUARD_TESTS_TESTING_SCRATCH_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace slotguard {

/// The running test's directory, created on first use (and kept, for a look
/// after a failure). Outside a test it is named by the process alone.
inline std::filesystem::path ScratchDir() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "slotguard-" + std::to_string(getpid());
  if (test != nullptr) name += std::string("-") + test->test_suite_name() + "." + test->name();
  for (char& c : name)
    if (c == '/') c = '_';  // parameterized tests: "Suite/Param.Name/0"
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::create_directories(dir);
  return dir;
}

/// A path in the running test's directory.
inline std::string ScratchPath(const std::string& name) { return (ScratchDir() / name).string(); }

/// A path in the running test's directory with nothing there (what an
/// earlier repeat of the test left is removed), e.g. a campaign's --out.
inline std::string FreshScratchPath(const std::string& name) {
  const std::string path = ScratchPath(name);
  std::filesystem::remove_all(path);
  return path;
}

}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_SCRATCH_DIR_H_
