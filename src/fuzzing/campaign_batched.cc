// The campaign's scheduler for a batching backend (the GPU): a chunk of
// scenarios per backend call, generating, running and checking overlapped.
#include <algorithm>
#include <chrono>
#include <thread>

#include "fuzzing/campaign_internal.h"
#include "runner/conform_run.h"
#include "runner/scenario_run.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace campaign_internal {
namespace {

/// A chunk of a batched campaign: scenarios [base, base + size), generated,
/// run in one backend call, then checked.
struct Chunk {
  int64_t base = 0;
  std::vector<Scenario> scenarios;
  std::vector<const Scenario*> pointers;
  std::vector<std::vector<GroupOutputs>> outputs;  // kept between chunks: storage reused
  std::vector<Classification> classes;             // per worker
  std::vector<int64_t> tokens;                     // per worker
  std::vector<std::pair<int64_t, Judged>> judged;  // (index in the chunk, not clean), in order
  std::vector<std::string> skipped;                // per scenario: why the implementation did not take it
  std::vector<uint8_t> not_run;                    // per scenario: 1 = the stop came before it was run
  // Crash classes (CrashClasses::Classify), per scenario: the class + 1 it
  // was deferred as (not sent to the backend), or sampled for; 0: none.
  std::vector<int> deferred, sampled;
  std::vector<int64_t> output_of;                  // per scenario: its entry of `outputs`; -1: deferred
};

/// Runs a chunk on the backend. A provider is asked the campaign's stop
/// before each message it sends: what a stop leaves unsent comes back not
/// run (GroupOutputs::not_run), so a stop waits for the messages in flight
/// rather than the chunk.
bool RunChunk(Backend& backend, const Budget& budget, Chunk& chunk, int threads, std::string* err) {
  MappingProvider* provider = backend.provider().get();
  if (provider) provider->set_stop([&budget] { return budget.Stopping(); });
  const bool ran = backend.RunMany(chunk.pointers, &chunk.outputs, err, threads);
  if (provider) provider->set_stop(nullptr);
  return ran;
}

}  // namespace

bool RunBatched(const CampaignOptions& options, Backend& backend, Budget& budget,
                CampaignResult* result, std::string* err) {
  using Clock = std::chrono::steady_clock;
  const int jobs = std::max(1, options.settings.jobs);
  // A chunk of scenarios per backend call (one launch per family
  // and geometry). The stages overlap: while the backend runs chunk k, one
  // pass of host workers checks chunk k-1 and generates chunk k+1 (one
  // pass, not two, so that the host threads do not outnumber the cores
  // more than they must).
  const int64_t kChunk = std::max<int64_t>(1, options.batch_chunk);
  std::vector<ScenarioRun> check_runs(jobs);  // one per worker, storage reused
  // The backend packs and unpacks on half the threads while the host
  // stage runs on all of them: on the 16-core H200 machine this split beat
  // both all and a quarter (507k small scenarios/s against 452k and 465k).
  const int pack_threads = std::max(1, jobs / 2);
  // Generates [base, end) into *gen and checks *chk, either may be null.
  auto host_stage = [&](Chunk* gen, int64_t base, int64_t end, Chunk* chk) {
    const size_t n_gen = gen ? static_cast<size_t>(end - base) : 0;
    const size_t n_chk = chk ? chk->scenarios.size() : 0;
    if (gen) {
      gen->base = base;
      gen->scenarios.resize(n_gen);
      gen->classes.assign(jobs, Classification());
      gen->tokens.assign(jobs, 0);
      gen->deferred.assign(n_gen, 0);
      gen->sampled.assign(n_gen, 0);
    }
    std::vector<Judged> judged(n_chk);
    if (chk) {
      chk->skipped.assign(n_chk, std::string());
      chk->not_run.assign(n_chk, 0);
    }
    std::vector<double> gen_seconds(jobs, 0), chk_seconds(jobs, 0);
    ParallelForWorkers(std::max(n_gen, n_chk), jobs, [&](size_t i, int w) {
      auto t0 = Clock::now();
      const int64_t o = i < n_chk ? chk->output_of[i] : -1;
      if (i < n_chk && o < 0) {
        // deferred: not run, nothing to check
      } else if (i < n_chk && NotRun(chk->outputs[static_cast<size_t>(o)])) {
        chk->not_run[i] = 1;  // neither checked nor counted
      } else if (i < n_chk) {
        ScenarioRun& run = check_runs[w];
        run.kernel.swap(chk->outputs[static_cast<size_t>(o)]);
        if (options.conform)
          CheckConformance(chk->scenarios[i], options.conform_variant, 1, &run);
        else
          CheckKernelOutputs(chk->scenarios[i], 1, &run);
        chk->skipped[i] = run.skipped;
        judged[i] = Judge(options, chk->scenarios[i], run);
        run.kernel.swap(chk->outputs[static_cast<size_t>(o)]);
        const auto t1 = Clock::now();
        chk_seconds[w] += std::chrono::duration<double>(t1 - t0).count();
        t0 = t1;
      }
      if (i < n_gen) {
        Scenario& s = gen->scenarios[i];
        s = CampaignScenario(options, StreamIndex(options, base + static_cast<int64_t>(i)), &gen->classes[w]);
        gen->tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
        if (options.crash_classes) {
          bool sample = false;
          const int c = options.crash_classes->Classify(s, budget.Elapsed(), &sample);
          (sample ? gen->sampled : gen->deferred)[i] = c + 1;
        }
        gen_seconds[w] += std::chrono::duration<double>(Clock::now() - t0).count();
      }
    });
    if (gen) {  // what the backend runs: every scenario not deferred
      gen->pointers.clear();
      gen->output_of.assign(n_gen, -1);
      for (size_t i = 0; i < n_gen; ++i)
        if (!gen->deferred[i]) {
          gen->output_of[i] = static_cast<int64_t>(gen->pointers.size());
          gen->pointers.push_back(&gen->scenarios[i]);
        }
    }
    for (int w = 0; w < jobs; ++w) {  // thread-seconds per worker thread
      result->generate_seconds += gen_seconds[w] / jobs;
      result->check_seconds += chk_seconds[w] / jobs;
    }
    if (chk) {
      chk->judged.clear();
      for (size_t i = 0; i < n_chk; ++i)
        if (judged[i].outcome != Outcome::kClean) chk->judged.emplace_back(static_cast<int64_t>(i), std::move(judged[i]));
    }
  };
  // Adds a checked chunk to the result in stream order; true when the
  // campaign stops in it. The scenarios counted are always a prefix of the
  // stream (a bounded proof's claim is "the first N batches"): a chunk
  // counts up to its first scenario the stop left not run (a provider's
  // messages not yet sent: those in flight may have run past it), or up to
  // a finding that stops the campaign. A finding in a scenario past that
  // point is still kept.
  auto account = [&](const Chunk& c) {
    AddTallies(c.classes, c.tokens, result);
    const int64_t size = static_cast<int64_t>(c.scenarios.size());
    int64_t counted = std::find(c.not_run.begin(), c.not_run.end(), 1) - c.not_run.begin();
    const bool cut = counted < size;
    bool stopped = false;
    for (const auto& [i, j] : c.judged)
      if (Account(options, StreamIndex(options, c.base + i), j, result)) {
        counted = std::min(counted, i + 1);
        stopped = true;
        break;
      }
    for (int64_t i = 0; i < counted && i < static_cast<int64_t>(c.skipped.size()); ++i)
      AddSkipped(c.skipped[static_cast<size_t>(i)], result);
    // Deferred scenarios are counted per class, not as checked; a sample's
    // outcome says whether its class still holds.
    int64_t deferred = 0;
    for (int64_t i = 0; i < counted; ++i) {
      const size_t k = static_cast<size_t>(i);
      if (c.deferred[k]) {
        options.crash_classes->Deferred(c.deferred[k] - 1);
        result->tokens -= c.scenarios[k].batch.num_tokens * static_cast<int64_t>(c.scenarios[k].groups.size());
        ++deferred;
      } else if (c.sampled[k]) {
        auto j = std::lower_bound(c.judged.begin(), c.judged.end(), i,
                                  [](const auto& a, int64_t x) { return a.first < x; });
        options.crash_classes->Sampled(c.sampled[k] - 1, j != c.judged.end() && j->first == i && Crashed(j->second));
      }
    }
    result->deferred += deferred;
    result->scenarios += counted - deferred;
    if (counted < size) {  // generated and tallied, not counted
      std::vector<int64_t> past;
      for (int64_t i = c.base + counted; i < c.base + size; ++i) past.push_back(i);
      SubtractTallies(options, past, result);
    }
    return stopped || cut;
  };
  Chunk next, running, checking;  // generated; on the backend; to check
  bool have_next = false, have_checking = false;
  // Chunks sized to about half a second of the backend's work (at the rate
  // of the last one, up to options.batch_chunk): a deadline or a stop
  // waits for at most the chunk on the backend.
  constexpr double kChunkSeconds = 0.5;
  // A provider's first chunk is smaller: its cost per scenario is unknown
  // (a launcher that crashes on a kind of batch pays a process start per
  // crash until its crash class is known), and the chunks double from there.
  int64_t chunk = std::min<int64_t>(kChunk, backend.provider() ? 64 : 256);
  int64_t base = options.start;
  int64_t end = budget.ChunkEnd(base, chunk);
  if (end > base) {
    host_stage(&next, base, end, nullptr);
    have_next = true;
    base = end;
  }
  while (have_next || have_checking) {
    // Stopping: a chunk generated but not run is dropped (its tallies were
    // never added); the one on the backend is checked as far as it ran (a
    // provider's messages not yet sent when the stop came are not run).
    if (have_next && budget.Stopping()) have_next = false;
    bool have_running = false;
    if (have_next) {
      std::swap(running, next);
      have_running = true;
      have_next = false;
    }
    end = budget.ChunkEnd(base, chunk);
    const bool generating = end > base && have_running;
    std::thread host([&, gen = generating ? &next : nullptr, chk = have_checking ? &checking : nullptr, b = base,
                      e = end] { host_stage(gen, b, e, chk); });
    if (generating) {
      have_next = true;
      base = end;
    }
    bool ran = true;
    if (have_running) {
      const auto t0 = Clock::now();
      ran = RunChunk(backend, budget, running, pack_threads, err);
      const double took = std::chrono::duration<double>(Clock::now() - t0).count();
      result->kernel_seconds += took;
      chunk = ChunkFor(budget, static_cast<int64_t>(running.scenarios.size()), took, kChunkSeconds, 64, kChunk);
    }
    host.join();
    if (!ran) return false;
    if (have_checking && account(checking)) break;
    if (have_checking) budget.MaybeReport(*result);
    // A new finding to shrink: RunCampaign shrinks it and goes on after the
    // chunk the backend just ran, checked here first (its run is paid: a
    // provider's crashes in it cost a process each). The chunk generated
    // next is dropped (its tallies were never added) and made again then.
    if (have_checking && ShrinkDue(options, budget, *result)) {
      if (have_running) {
        host_stage(nullptr, 0, 0, &running);
        if (account(running)) break;  // a stop came: the campaign ends
        budget.MaybeReport(*result);
      }
      const Chunk& last = have_running ? running : checking;
      result->resume_at = last.base + static_cast<int64_t>(last.scenarios.size());
      break;
    }
    std::swap(checking, running);
    have_checking = have_running;
  }
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
