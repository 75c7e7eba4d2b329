// The campaign's scheduler for a backend that runs one scenario per call (the
// host): each worker checks one scenario at a time.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <utility>

#include "fuzzing/campaign_internal.h"

namespace slotguard {
namespace campaign_internal {

bool RunOneAtATime(const CampaignOptions& options, Backend& backend, Budget& budget,
                   CampaignResult* result, std::string* err) {
  const int jobs = std::max(1, options.jobs);
  // Chunks of 2048 per worker: a chunk ends when its slowest scenario does,
  // and a rare engine-scale batch costs a thousand small ones; smaller
  // chunks left most workers idle behind it (16 workers: 30% fewer
  // scenarios/s at 64 per worker).
  const int64_t chunk = 2048 * jobs;
  std::mutex mu;
  std::string failure;  // environment failure of any worker
  for (int64_t base = options.start;; base += chunk) {
    const int64_t end = budget.ChunkEnd(base, chunk);
    if (end <= base) break;
    // Workers take indices in order. Without keep_going, the lowest index
    // that stops the campaign (a finding) ends the chunk: no worker starts
    // one past it.
    std::atomic<int64_t> next{base};
    std::atomic<int64_t> lowest{end};
    std::vector<Classification> classes(jobs);
    std::vector<int64_t> tokens(jobs, 0), checked(jobs, 0);
    // Without keep_going: the indices each worker ran, to take back those
    // past the stop. They need not be consecutive: a worker may take an
    // index, then find it past a stop another worker set meanwhile, while
    // a later index, taken and checked before that stop, runs.
    std::vector<std::vector<int64_t>> ran(jobs);
    std::vector<std::vector<std::pair<int64_t, Judged>>> judged(jobs);  // (index, not clean)
    std::vector<std::vector<std::pair<int64_t, std::string>>> skips(jobs);
    auto worker = [&](int w) {
      ScenarioRun run;  // its buffers reused scenario after scenario
      for (int64_t i = next++; i < end && i < lowest; i = next++) {
        const Scenario s = CampaignScenario(options, StreamIndex(options, i), &classes[w]);
        std::string e;
        if (!RunOne(s, backend, &run, &e)) {
          std::lock_guard<std::mutex> lock(mu);
          failure = e;
          lowest = std::min<int64_t>(lowest, i);
          return;
        }
        tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
        checked[w]++;
        if (!options.keep_going) ran[w].push_back(i);
        if (!run.skipped.empty()) skips[w].emplace_back(i, run.skipped);
        Judged j = Judge(options, s, run);
        if (j.outcome == Outcome::kClean) continue;
        if (j.outcome == Outcome::kFinding && !options.keep_going) {
          int64_t seen = lowest.load();
          while (i < seen && !lowest.compare_exchange_weak(seen, i)) {}
        }
        judged[w].emplace_back(i, std::move(j));
      }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < jobs; ++w) threads.emplace_back(worker, w);
    worker(0);
    for (std::thread& t : threads) t.join();
    if (!failure.empty()) {
      *err = failure;
      return false;
    }
    AddTallies(classes, tokens, result);
    // In stream order, up to where the campaign stops.
    std::vector<std::pair<int64_t, std::string>> all_skips;
    for (auto& s : skips) all_skips.insert(all_skips.end(), s.begin(), s.end());
    std::sort(all_skips.begin(), all_skips.end());
    std::vector<std::pair<int64_t, Judged>> all;
    for (auto& j : judged)
      for (auto& entry : j) all.push_back(std::move(entry));
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const int64_t stop = lowest;  // == end unless a finding stopped the campaign
    for (const auto& [i, why] : all_skips)
      if (i <= stop) AddSkipped(why, result);
    bool stopped = false;
    for (const auto& [i, j] : all) {
      if (i > stop) break;
      if (Account(options, StreamIndex(options, i), j, result)) {
        stopped = true;
        break;
      }
    }
    // Every scenario up to the stop was checked (workers take them in
    // order, and a stop is lowered only to an index checked); those a
    // worker ran past it are not counted.
    if (stopped) {
      std::vector<int64_t> past;
      for (const std::vector<int64_t>& r : ran)
        for (int64_t i : r)
          if (i > stop) past.push_back(i);
      SubtractTallies(options, past, result);
      result->scenarios += stop - base + 1;
      break;
    }
    for (int64_t n : checked) result->scenarios += n;
    budget.MaybeReport(*result);
  }
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
