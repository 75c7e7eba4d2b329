#include "fuzz/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "fuzz/shrink.h"
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
  ScenarioRun run;
  if (!RunScenario(s, backend, 1, &run, err)) return false;
  fired->clear();
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired->insert(name);
  return true;
}

std::string Describe(const CampaignOptions& o, const CampaignResult& r, const Backend& backend) {
  std::string fired;
  for (const std::string& f : r.fired) fired += (fired.empty() ? "" : ", ") + f;
  std::string text = "found by slotguard fuzz --seed " + std::to_string(o.seed) +
                     (o.variant.empty() ? "" : " --variant " + o.variant) + " (scenario " +
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

bool RunCampaign(const CampaignOptions& options, Backend& backend, std::ostream& progress,
                 CampaignResult* result, std::string* err) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const int jobs = std::max(1, options.jobs);
  // The GPU checks a chunk of scenarios in one launch per family and
  // geometry; the host runs one scenario per worker at a time.
  const bool batched = std::string(backend.name()) == "gpu";
  const int64_t chunk = batched ? 4096 : 64 * jobs;
  double next_report = options.tty_progress ? 0.5 : 10;
  std::mutex mu;
  std::string failure;  // environment failure of any worker
  for (int64_t base = 0;; base += chunk) {
    int64_t end = base + chunk;
    if (options.runs >= 0) end = std::min(end, options.runs);
    if (base >= end || (options.seconds > 0 && elapsed() >= options.seconds)) break;
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
    if (batched) {
      const int64_t count = end - base;
      auto phase_start = Clock::now();
      auto phase_end = [&phase_start](double* total) {
        const auto now = Clock::now();
        *total += std::chrono::duration<double>(now - phase_start).count();
        phase_start = now;
      };
      std::vector<Scenario> scenarios(count);
      std::vector<const Scenario*> pointers(count);
      ParallelForWorkers(static_cast<size_t>(count), jobs, [&](size_t i, int w) {
        scenarios[i] = CampaignScenario(options, base + static_cast<int64_t>(i), &classes[w]);
        pointers[i] = &scenarios[i];
        tokens[w] += scenarios[i].batch.num_tokens * static_cast<int64_t>(scenarios[i].groups.size());
      });
      phase_end(&result->generate_seconds);
      std::vector<std::vector<GroupOutputs>> outputs;
      if (!backend.RunMany(pointers, &outputs, &failure, jobs)) {
        *err = failure;
        return false;
      }
      phase_end(&result->kernel_seconds);
      std::vector<uint8_t> has_finding(count, 0);
      ParallelFor(static_cast<size_t>(count), jobs, [&](size_t i) {
        ScenarioRun run;
        run.kernel = std::move(outputs[i]);
        CheckKernelOutputs(scenarios[i], 1, &run);
        for (const FindingSink& sink : run.findings) has_finding[i] |= sink.total() > 0;
      });
      phase_end(&result->check_seconds);
      checked[0] = count;
      for (int64_t i = 0; i < count; ++i)
        if (has_finding[i]) {
          lowest = base + i;
          checked[0] = i + 1;
          break;
        }
    } else {
      std::vector<std::thread> threads;
      for (int w = 1; w < jobs; ++w) threads.emplace_back(worker, w);
      worker(0);
      for (std::thread& t : threads) t.join();
    }
    if (!failure.empty()) {
      *err = failure;
      return false;
    }
    for (int w = 0; w < jobs; ++w) {
      for (const auto& [name, count] : classes[w]) result->classes[name] += count;
      result->tokens += tokens[w];
      result->scenarios += checked[w];
    }
    if (lowest < end) {
      result->found = true;
      result->finding_index = lowest;
      break;
    }
    if (elapsed() >= next_report) {
      char line[160];
      std::snprintf(line, sizeof line, "fuzz: %lld scenarios, %lld token-groups, %.0f scenarios/s, %.0f s",
                    static_cast<long long>(result->scenarios), static_cast<long long>(result->tokens),
                    result->scenarios / std::max(elapsed(), 1e-9), elapsed());
      progress << (options.tty_progress ? "\r" : "") << line << (options.tty_progress ? "" : "\n") << std::flush;
      next_report = elapsed() + (options.tty_progress ? 0.5 : 10);
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
  const std::string family = out.groups.empty() ? "none" : GetFamily(out.groups.front().family).name;
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
