// The campaign's scheduler for a backend that runs one scenario per call (the
// host): each worker checks one scenario at a time.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

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
  for (int64_t base = 0;; base += chunk) {
    const int64_t end = budget.ChunkEnd(base, chunk);
    if (end <= base) break;
    // Workers take indices in order; the lowest failing index wins.
    std::atomic<int64_t> next{base};
    std::atomic<int64_t> lowest{end};
    std::vector<Classification> classes(jobs);
    std::vector<int64_t> tokens(jobs, 0), checked(jobs, 0);
    std::vector<std::vector<int64_t>> runner_state(jobs);  // indices, counted below the finding
    std::vector<CampaignResult> skips(jobs);                // skipped scenarios per worker
    auto worker = [&](int w) {
      for (int64_t i = next++; i < end && i < lowest; i = next++) {
        const Scenario s = CampaignScenario(options, StreamIndex(options, i), &classes[w]);
        std::set<std::string> fired;
        std::string e, skipped;
        if (!Fired(s, backend, &fired, &e, &skipped)) {
          std::lock_guard<std::mutex> lock(mu);
          failure = e;
          lowest = std::min<int64_t>(lowest, i);
          return;
        }
        tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
        checked[w]++;
        AddSkipped(skipped, &skips[w]);
        const Outcome outcome = Classify(options, fired);
        if (outcome == Outcome::kRunnerState) runner_state[w].push_back(StreamIndex(options, i));
        if (outcome == Outcome::kFinding) {
          int64_t seen = lowest.load();
          while (i < seen && !lowest.compare_exchange_weak(seen, i)) {}
        }
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
    for (int64_t n : checked) result->scenarios += n;
    for (const CampaignResult& s : skips) {
      if (s.skipped && !result->skipped) result->first_skip = s.first_skip;
      result->skipped += s.skipped;
    }
    for (std::vector<int64_t>& indices : runner_state) {
      const int64_t last = StreamIndex(options, lowest);
      indices.erase(std::remove_if(indices.begin(), indices.end(), [&](int64_t i) { return i > last; }),
                    indices.end());
      AddRunnerState(indices, result);
    }
    if (lowest < end) {
      result->found = true;
      result->finding_index = StreamIndex(options, lowest);
      break;
    }
    budget.MaybeReport(*result);
  }
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
