// The CPU seconds this process has used, every thread's: what the host
// figures time, so that other work on a shared machine (a build beside the
// benchmark) does not count against the run.
#ifndef SLOTGUARD_BENCH_CPU_CLOCK_H_
#define SLOTGUARD_BENCH_CPU_CLOCK_H_

#include <ctime>

namespace slotguard {

inline double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace slotguard

#endif  // SLOTGUARD_BENCH_CPU_CLOCK_H_
