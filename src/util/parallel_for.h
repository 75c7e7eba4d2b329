// A minimal parallel loop for independent work items (scenario files).
#ifndef SLOTGUARD_UTIL_PARALLEL_FOR_H_
#define SLOTGUARD_UTIL_PARALLEL_FOR_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace slotguard {

/// Calls fn(i, worker) for every i in [0, n) on up to `jobs` threads, the
/// caller's included (worker 0); worker < jobs names the thread, for
/// per-thread state. Items are taken in order, a few at a time when there
/// are many (one shared counter per item costs more than a small item);
/// fn must be safe to run concurrently. An exception fn throws (a
/// std::bad_alloc), or a thread that cannot be started, stops every thread
/// after its current item and is rethrown here once all have joined.
template <class Fn>
void ParallelForWorkers(size_t n, int jobs, Fn fn) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr thrown;
  std::mutex thrown_mutex;
  auto fail = [&] {
    stop = true;  // the others stop at their next item
    std::lock_guard<std::mutex> lock(thrown_mutex);
    if (!thrown) thrown = std::current_exception();
  };
  const size_t grain = std::clamp<size_t>(n / (16 * static_cast<size_t>(std::max(jobs, 1))), 1, 64);
  auto worker = [&](int w) {
    try {
      for (size_t first = next.fetch_add(grain); first < n && !stop; first = next.fetch_add(grain))
        for (size_t i = first, end = std::min(n, first + grain); i < end && !stop; ++i) fn(i, w);
    } catch (...) {
      fail();
    }
  };
  std::vector<std::thread> threads;
  const size_t extra = std::min<size_t>(std::max(jobs, 1), std::max<size_t>(n, 1)) - 1;
  try {
    for (size_t j = 0; j < extra; ++j) threads.emplace_back(worker, static_cast<int>(j + 1));
  } catch (...) {  // std::system_error: no thread for it (low memory)
    fail();
  }
  if (!stop) worker(0);
  for (std::thread& t : threads) t.join();
  if (thrown) std::rethrow_exception(thrown);
}

/// Calls fn(i) for every i in [0, n) on up to `jobs` threads.
template <class Fn>
void ParallelFor(size_t n, int jobs, Fn fn) {
  ParallelForWorkers(n, jobs, [&](size_t i, int) { fn(i); });
}

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_PARALLEL_FOR_H_
