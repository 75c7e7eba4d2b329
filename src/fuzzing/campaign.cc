#include "fuzzing/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "fuzzing/shrink.h"
#include "registry/families.h"
#include "report/report.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

uint64_t Mix(uint64_t seed, uint64_t index) {  // splitmix64 of the pair
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The invariant a reproducer must keep firing: the most specific one.
std::string TargetInvariant(const std::set<std::string>& fired) {
  for (const char* name : {"null_block", "null_owner_pad", "row_bounds", "pad_exact", "padding_tail",
                           "in_range", "own_block", "unique_slots", "differential", "golden"})
    if (fired.count(name)) return name;
  return fired.empty() ? "" : *fired.begin();
}

/// Checks one scenario: the invariants that fired (empty: none). False on an
/// environment failure.
bool Fired(const Scenario& s, Backend& backend, std::set<std::string>* fired, std::string* err) {
  thread_local ScenarioRun run;  // its buffers reused scenario after scenario
  if (!RunScenario(s, backend, 1, &run, err)) return false;
  fired->clear();
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired->insert(name);
  return true;
}

std::string Describe(const CampaignOptions& o, const CampaignResult& r, const Backend& backend) {
  std::string fired;
  for (const std::string& f : r.fired) fired += (fired.empty() ? "" : ", ") + f;
  std::string command = "slotguard fuzz --seed " + std::to_string(o.seed);
  for (Family f : o.generator.families) command += std::string(" --family ") + GetFamily(f).name;
  if (!o.variant.empty()) command += " --variant " + o.variant;
  if (o.generator.inconsistent) command += " --inconsistent";
  if (o.generator.max_requests != GeneratorOptions().max_requests)
    command += " --max-requests " + std::to_string(o.generator.max_requests);
  std::string text = "found by " + command + " (scenario " +
                     std::to_string(r.finding_index) + ", backend " + backend.Describe() +
                     "); invariants fired: " + fired + "; minimized to keep " + r.invariant +
                     " firing. Add \"expect\": {\"verdict\": \"finding\", \"findings\": [\"" + r.invariant +
                     "\"]} to keep it as a regression scenario.";
  if (!r.original.description.empty()) text += " The generator made an " + r.original.description + ".";
  return text;
}

}  // namespace

Scenario CampaignScenario(const CampaignOptions& options, int64_t index, Classification* classes) {
  RandomChoices choices(Mix(options.seed, static_cast<uint64_t>(index)));
  Scenario s = GenerateScenario(choices, options.generator, classes);
  if (!options.variant.empty()) ForceVariant(options.variant, &s);
  return s;
}

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
  int64_t first_finding = -1;                      // index in the chunk
};

/// Adds the workers' operator counts and token-groups to the result.
void AddTallies(const std::vector<Classification>& classes, const std::vector<int64_t>& tokens,
                CampaignResult* result) {
  for (const Classification& c : classes)
    for (const auto& [name, count] : c) result->classes[name] += count;
  for (int64_t t : tokens) result->tokens += t;
}

/// The campaign's progress line.
void Report(const CampaignResult& r, double seconds, bool tty, std::ostream& progress) {
  char line[160];
  std::snprintf(line, sizeof line, "fuzz: %lld scenarios, %lld token-groups, %.0f scenarios/s, %.0f s",
                static_cast<long long>(r.scenarios), static_cast<long long>(r.tokens),
                r.scenarios / std::max(seconds, 1e-9), seconds);
  progress << (tty ? "\r" : "") << line << (tty ? "" : "\n") << std::flush;
}

}  // namespace

bool RunCampaign(const CampaignOptions& options, Backend& backend, std::ostream& progress,
                 CampaignResult* result, std::string* err) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const int jobs = std::max(1, options.jobs);
  double next_report = options.tty_progress ? 0.5 : 10;
  auto maybe_report = [&] {
    if (elapsed() < next_report) return;
    Report(*result, elapsed(), options.tty_progress, progress);
    next_report = elapsed() + (options.tty_progress ? 0.5 : 10);
  };
  // The end of the next chunk starting at `base`, or `base` when the budget is spent.
  auto chunk_end = [&](int64_t base, int64_t chunk) {
    if (options.seconds > 0 && elapsed() >= options.seconds) return base;
    return options.runs >= 0 ? std::min(base + chunk, options.runs) : base + chunk;
  };

  if (backend.Batches()) {
    // Batched: a chunk of scenarios per backend call (one launch per family
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
        gen->first_finding = -1;
        gen->scenarios.resize(n_gen);
        gen->pointers.resize(n_gen);
        gen->classes.assign(jobs, Classification());
        gen->tokens.assign(jobs, 0);
      }
      std::vector<uint8_t> has_finding(n_chk, 0);
      std::vector<double> gen_seconds(jobs, 0), chk_seconds(jobs, 0);
      ParallelForWorkers(std::max(n_gen, n_chk), jobs, [&](size_t i, int w) {
        auto t0 = Clock::now();
        if (i < n_chk) {
          ScenarioRun& run = check_runs[w];
          run.kernel.swap(chk->outputs[i]);
          CheckKernelOutputs(chk->scenarios[i], 1, &run);
          for (const FindingSink& sink : run.findings) has_finding[i] |= sink.total() > 0;
          run.kernel.swap(chk->outputs[i]);
          const auto t1 = Clock::now();
          chk_seconds[w] += std::chrono::duration<double>(t1 - t0).count();
          t0 = t1;
        }
        if (i < n_gen) {
          Scenario& s = gen->scenarios[i];
          s = CampaignScenario(options, base + static_cast<int64_t>(i), &gen->classes[w]);
          gen->pointers[i] = &s;
          gen->tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
          gen_seconds[w] += std::chrono::duration<double>(Clock::now() - t0).count();
        }
      });
      for (int w = 0; w < jobs; ++w) {  // thread-seconds per worker thread
        result->generate_seconds += gen_seconds[w] / jobs;
        result->check_seconds += chk_seconds[w] / jobs;
      }
      for (size_t i = 0; i < n_chk; ++i)
        if (has_finding[i]) {
          chk->first_finding = static_cast<int64_t>(i);
          break;
        }
    };
    // Adds a checked chunk to the result; true when it holds the finding.
    auto account = [&](const Chunk& c) {
      AddTallies(c.classes, c.tokens, result);
      if (c.first_finding >= 0) {
        result->scenarios += c.first_finding + 1;
        result->found = true;
        result->finding_index = c.base + c.first_finding;
        return true;
      }
      result->scenarios += static_cast<int64_t>(c.scenarios.size());
      return false;
    };
    Chunk next, running, checking;  // generated; on the backend; to check
    bool have_next = false, have_checking = false;
    int64_t base = 0;
    int64_t end = chunk_end(base, kChunk);
    if (end > base) {
      host_stage(&next, base, end, nullptr);
      have_next = true;
      base = end;
    }
    while (have_next || have_checking) {
      bool have_running = false;
      if (have_next) {
        std::swap(running, next);
        have_running = true;
        have_next = false;
      }
      end = chunk_end(base, kChunk);
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
        ran = backend.RunMany(running.pointers, &running.outputs, err, pack_threads);
        result->kernel_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      }
      host.join();
      if (!ran) return false;
      if (have_checking && account(checking)) break;
      if (have_checking) maybe_report();
      std::swap(checking, running);
      have_checking = have_running;
    }
  } else {
    // The host runs one scenario per worker at a time.
    const int64_t chunk = 64 * jobs;
    std::mutex mu;
    std::string failure;  // environment failure of any worker
    for (int64_t base = 0;; base += chunk) {
      const int64_t end = chunk_end(base, chunk);
      if (end <= base) break;
      // Workers take indices in order; the lowest failing index wins.
      std::atomic<int64_t> next{base};
      std::atomic<int64_t> lowest{end};
      std::vector<Classification> classes(jobs);
      std::vector<int64_t> tokens(jobs, 0), checked(jobs, 0);
      auto worker = [&](int w) {
        for (int64_t i = next++; i < end && i < lowest; i = next++) {
          const Scenario s = CampaignScenario(options, i, &classes[w]);
          std::set<std::string> fired;
          std::string e;
          if (!Fired(s, backend, &fired, &e)) {
            std::lock_guard<std::mutex> lock(mu);
            failure = e;
            lowest = std::min<int64_t>(lowest, i);
            return;
          }
          tokens[w] += s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
          checked[w]++;
          if (!fired.empty()) {
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
      if (lowest < end) {
        result->found = true;
        result->finding_index = lowest;
        break;
      }
      maybe_report();
    }
  }
  if (options.tty_progress) progress << "\n";
  result->seconds = elapsed();
  if (!result->found) return true;

  // Minimize, keeping the most specific invariant firing.
  result->original = CampaignScenario(options, result->finding_index, nullptr);
  std::set<std::string> fired;
  if (!Fired(result->original, backend, &fired, err)) return false;
  result->invariant = TargetInvariant(fired);
  std::string shrink_error;
  const std::string target = result->invariant;
  result->minimized = Shrink(result->original, [&](const Scenario& candidate) {
    std::set<std::string> f;
    return Fired(candidate, backend, &f, &shrink_error) && f.count(target) > 0;
  });
  if (!Fired(result->minimized, backend, &fired, err)) return false;
  result->fired.assign(fired.begin(), fired.end());

  // Write the reproducer before anything is reported.
  Scenario out = result->minimized;
  out.name = "fuzz-" + (options.variant.empty() ? std::string("fixed") : options.variant) + "-" + target +
             "-seed" + std::to_string(options.seed) + "-" + std::to_string(result->finding_index);
  out.description = Describe(options, *result, backend);
  out.expect = Expect();
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  result->file = (std::filesystem::path(options.out_dir) / (out.name + ".json")).string();
  if (!WriteScenarioFile(result->file, out, err)) return false;
  result->minimized = out;
  // The reproducer's own finding lines, as `check` prints them.
  ScenarioRun run;
  if (!RunScenario(out, backend, 2, &run, err)) return false;
  ScenarioReport report;
  report.file = result->file;
  report.name = out.name;
  for (size_t g = 0; g < out.groups.size(); ++g)
    for (const Finding& f : run.findings[g].kept())
      result->finding_lines.push_back(FindingLine(report, out.groups[g].name, f));
  return true;
}

}  // namespace slotguard
