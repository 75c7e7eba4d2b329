// A scenario's verdict does not depend on the backend, on the GPU itself
// (ctest label `gpu`; skipped without a device): every curated scenario in
// every table layout gets the same verdict from the GPU backend (reads past
// a row seen in its outputs) as from the host backend (every read
// instrumented). `check --backend gpu --table-layout strided scenarios/`
// failed paged/mutants/unguarded-past-row.json while the host held it.
#include <gtest/gtest.h>

#include "testing/layout_verdicts.h"

namespace slotguard {
namespace {

TEST(LayoutVerdictsGpuTest, TheGpuGivesTheHostsVerdictInEveryLayout) {
  std::string why;
  std::unique_ptr<Backend> gpu = MakeGpuBackend(&why);
  if (!gpu) GTEST_SKIP() << why;
  std::unique_ptr<Backend> host = MakeHostBackend();
  std::map<std::string, std::string> host_verdicts, gpu_verdicts;
  const std::map<std::string, bool> on_host = testing::LayoutVerdicts(*host, &host_verdicts);
  const std::map<std::string, bool> on_gpu = testing::LayoutVerdicts(*gpu, &gpu_verdicts);
  ASSERT_EQ(on_host.size(), on_gpu.size());
  for (const auto& [key, holds] : on_host)
    EXPECT_EQ(holds, on_gpu.at(key)) << key << "\n  host: " << host_verdicts[key] << "\n  gpu:  " << gpu_verdicts[key];
}

}  // namespace
}  // namespace slotguard
