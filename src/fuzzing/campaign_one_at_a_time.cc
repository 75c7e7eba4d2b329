// The campaign's scheduler for a backend that runs one scenario per call (the
// host): each worker checks one scenario at a time.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>

#include "fuzzing/campaign_internal.h"

namespace slotguard {
namespace campaign_internal {
namespace {

/// What the workers did with one chunk [base, end).
struct ChunkWork {
  std::vector<Classification> classes;
  std::vector<int64_t> tokens;
  // The indices each worker ran, to take back those past where the chunk
  // stops. They need not be consecutive: a worker may take an index, then
  // find it past a stop another worker set meanwhile, while a later index,
  // taken and checked before that stop, runs.
  std::vector<std::vector<int64_t>> ran;
  std::vector<std::vector<std::pair<int64_t, Judged>>> judged;  // (index, not clean)
  std::vector<std::vector<std::pair<int64_t, std::string>>> skips;
  // Scenarios of a known crash class (CrashClasses::Classify): those
  // deferred (index, class, token-groups), and those run as the class's
  // sample (index, class).
  struct Deferral {
    int64_t index;
    int cls;
    int64_t token_groups;
  };
  std::vector<std::vector<Deferral>> deferred;
  std::vector<std::vector<std::pair<int64_t, int>>> sampled;
  // The lowest index that stops the campaign (a finding, without
  // keep_going), and the lowest index a worker declined because the budget
  // said stop (the deadline, a signal): the chunk ends before it.
  std::atomic<int64_t> lowest{0}, declined{0};
  explicit ChunkWork(int jobs, int64_t end)
      : classes(jobs), tokens(jobs, 0), ran(jobs), judged(jobs), skips(jobs), deferred(jobs), sampled(jobs),
        lowest(end), declined(end) {}
};

void Lower(std::atomic<int64_t>* at, int64_t i) {
  int64_t seen = at->load();
  while (i < seen && !at->compare_exchange_weak(seen, i)) {}
}

/// Runs [base, end) on the workers. False with *err on an environment failure.
bool CheckChunk(const CampaignOptions& options, Backend& backend, const Budget& budget, int64_t base, int64_t end,
                ChunkWork* work, std::string* err) {
  const int jobs = std::max(1, options.settings.jobs);
  std::mutex mu;
  std::string failure;  // environment failure of any worker
  std::atomic<int64_t> next{base};
  auto worker = [&](int w) {
    ScenarioRun run;  // its buffers reused scenario after scenario
    for (int64_t i = next++; i < end && i < work->lowest && i < work->declined; i = next++) {
      if (budget.Stopping()) {
        Lower(&work->declined, i);
        return;
      }
      const Scenario s = CampaignScenario(options, StreamIndex(options, i), &work->classes[w]);
      if (options.crash_classes) {
        bool sample = false;
        const int c = options.crash_classes->Classify(s, budget.Elapsed(), &sample);
        if (c >= 0 && !sample) {  // tallied as generated; AccountChunk takes it back
          const int64_t token_groups = s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
          work->tokens[w] += token_groups;
          work->ran[w].push_back(i);
          work->deferred[w].push_back({i, c, token_groups});
          continue;
        }
        if (c >= 0) work->sampled[w].emplace_back(i, c);
      }
      std::string e;
      if (!RunOne(options, s, backend, &run, &e)) {
        std::lock_guard<std::mutex> lock(mu);
        failure = e;
        Lower(&work->lowest, i);
        return;
      }
      work->tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
      work->ran[w].push_back(i);
      if (!run.skipped.empty()) work->skips[w].emplace_back(i, run.skipped);
      Judged j = Judge(options, s, run);
      if (j.outcome == Outcome::kClean) continue;
      if (j.outcome == Outcome::kFinding && !options.settings.keep_going) Lower(&work->lowest, i);
      work->judged[w].emplace_back(i, std::move(j));
    }
  };
  std::vector<std::thread> threads;
  for (int w = 1; w < jobs; ++w) threads.emplace_back(worker, w);
  worker(0);
  for (std::thread& t : threads) t.join();
  *err = failure;
  return failure.empty();
}

/// Adds a checked chunk to the result in stream order, up to where it stops
/// (a finding without keep_going: inclusive; an index declined: exclusive).
/// True when the campaign stops there.
bool AccountChunk(const CampaignOptions& options, int64_t base, int64_t end, ChunkWork& work, CampaignResult* result) {
  AddTallies(work.classes, work.tokens, result);
  const int64_t limit = std::min({end, work.lowest < end ? work.lowest.load() + 1 : end, work.declined.load()});
  std::vector<std::pair<int64_t, std::string>> skips;
  for (auto& s : work.skips) skips.insert(skips.end(), s.begin(), s.end());
  std::sort(skips.begin(), skips.end());
  for (const auto& [i, why] : skips)
    if (i < limit) AddSkipped(why, result);
  std::vector<std::pair<int64_t, Judged>> all;
  for (auto& j : work.judged)
    for (auto& entry : j) all.push_back(std::move(entry));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  bool stopped = false;
  int64_t counted = limit;
  for (const auto& [i, j] : all) {
    if (i >= limit) break;
    if (Account(options, StreamIndex(options, i), j, result)) {
      stopped = true;
      counted = i + 1;
      break;
    }
  }
  // Every scenario before the limit was checked (workers take them in
  // order, and a stop is lowered only to an index taken); those a worker
  // ran past it are not counted.
  std::vector<int64_t> past;
  for (const std::vector<int64_t>& r : work.ran)
    for (int64_t i : r)
      if (i >= counted) past.push_back(i);
  if (!past.empty()) SubtractTallies(options, past, result);
  // Deferred scenarios are counted per class, not as checked; a sample's
  // outcome says whether its class still holds.
  int64_t deferred = 0;
  for (const auto& d : work.deferred)
    for (const ChunkWork::Deferral& x : d)
      if (x.index < counted) {
        options.crash_classes->Deferred(x.cls);
        result->tokens -= x.token_groups;
        ++deferred;
      }
  result->deferred += deferred;
  std::vector<std::pair<int64_t, int>> sampled;
  for (const auto& d : work.sampled) sampled.insert(sampled.end(), d.begin(), d.end());
  std::sort(sampled.begin(), sampled.end());
  for (const auto& [i, c] : sampled) {
    if (i >= counted) break;
    auto j = std::lower_bound(all.begin(), all.end(), i, [](const auto& a, int64_t k) { return a.first < k; });
    options.crash_classes->Sampled(c, j != all.end() && j->first == i && Crashed(j->second));
  }
  result->scenarios += counted - base - deferred;
  return stopped || counted < end;
}

}  // namespace

bool RunOneAtATime(const CampaignOptions& options, Backend& backend, Budget& budget,
                   CampaignResult* result, std::string* err) {
  const int jobs = std::max(1, options.settings.jobs);
  // Chunks of up to 2048 per worker, about a second each: a chunk ends
  // when its slowest scenario does, and a rare engine-scale batch costs a
  // thousand small ones (smaller chunks left most workers idle behind it:
  // 16 workers, 30% fewer scenarios/s at 64 per worker); the progress line,
  // the checkpoints and the accounting come between chunks.
  const int64_t most = 2048 * int64_t{jobs};
  int64_t chunk = 64 * int64_t{jobs};
  for (int64_t base = options.start;;) {
    const int64_t end = budget.ChunkEnd(base, chunk);
    if (end <= base) break;
    ChunkWork work(jobs, end);
    const auto t0 = std::chrono::steady_clock::now();
    if (!CheckChunk(options, backend, budget, base, end, &work, err)) return false;
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (AccountChunk(options, base, end, work, result)) break;
    budget.MaybeReport(*result);
    if (ShrinkDue(options, budget, *result)) {  // RunCampaign shrinks it, then goes on from `end`
      result->resume_at = end;
      break;
    }
    chunk = ChunkFor(budget, end - base, took, 1.0, 64 * int64_t{jobs}, most);
    base = end;
  }
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
