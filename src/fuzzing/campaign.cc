#include "fuzzing/campaign.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "fuzzing/campaign_internal.h"
#include "registry/invariants.h"
#include "runner/conform_run.h"
#include "runner/scenario_run.h"
#include "util/error_line.h"
#include "util/stop_signals.h"

namespace slotguard {
namespace {

uint64_t Mix(uint64_t seed, uint64_t index) {  // splitmix64 of the pair
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

bool ParseShard(const std::string& text, int64_t* shard, int64_t* shards, std::string* err) {
  const size_t slash = text.find('/');
  // Decimal digits (leading zeros allowed), up to kMaxShards.
  auto number = [](const std::string& s, int64_t* v) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *v = 0;
    for (char c : s)
      if ((*v = *v * 10 + (c - '0')) > kMaxShards) return false;
    return true;
  };
  int64_t i = -1, n = -1;
  if (slash == std::string::npos || !number(text.substr(0, slash), &i) || !number(text.substr(slash + 1), &n) ||
      n < 1 || i >= n) {
    *err = "expected I/N with 0 <= I < N <= " + std::to_string(kMaxShards) + " (this campaign's shard of N), got " +
           QuoteName(text);
    return false;
  }
  *shard = i;
  *shards = n;
  return true;
}

Scenario CampaignScenario(const CampaignOptions& options, int64_t index, Classification* classes) {
  Scenario s;
  if (options.source) {
    s = options.source->At(index);
  } else {
    RandomChoices choices(Mix(options.settings.seed, static_cast<uint64_t>(index)));
    s = GenerateScenario(choices, options.generator, classes);
  }
  // --table-layout: whatever the generator chose, so that the reproducer
  // records the layout the campaign ran.
  if (options.generator.table_layout) s.table_layout = *options.generator.table_layout;
  if (!options.settings.variant.empty()) ForceVariant(options.settings.variant, &s);
  return s;
}

namespace campaign_internal {

FindingSignature CampaignSignatureOf(const CampaignOptions& options, const Scenario& s,
                                     const std::vector<FindingSink>& findings) {
  FindingSignature signature = SignatureOf(s, findings, options.implementation);
  // --conform: a disagreement with the engine variant is the description's; a fault stays the kernel's.
  if (options.conform && std::find(signature.invariants.begin(), signature.invariants.end(), kInvariantNoFault) ==
                             signature.invariants.end())
    signature.blames_description = true;
  return signature;
}

bool RunOne(const CampaignOptions& options, const Scenario& s, Backend& backend, ScenarioRun* run,
            std::string* err) {
  return options.conform ? RunConformance(s, options.conform_variant, backend, 1, run, err)
                         : RunScenario(s, backend, 1, run, err);
}

void AddSkipped(const std::string& why, CampaignResult* result) {
  if (why.empty()) return;
  if (result->skipped++ == 0) result->first_skip = why;
}

int SuppressedBy(const CampaignOptions& options, const Scenario& s, const FindingSignature& signature) {
  if (!options.suppressions) return -1;
  SuppressionSubject subject;
  subject.signature = &signature;
  subject.scenario = &s;
  return MatchSuppression(*options.suppressions, subject);
}

Judged Judge(const CampaignOptions& options, const Scenario& s, const ScenarioRun& run) {
  Judged j;
  const std::set<std::string> fired = FiredInvariants(run);
  if (fired.empty()) return j;
  if (options.generator.inconsistent && !BlamesKernel(fired)) {
    j.outcome = Outcome::kRunnerState;
    return j;
  }
  j.key = CampaignSignatureOf(options, s, run.findings).Key();
  if (options.crash_classes && fired.count(kInvariantNoFault)) j.crash_features = CrashFeaturesOf(s);
  j.suppressed_by = SuppressedBy(options, s, j.key);
  if (j.suppressed_by < 0) {
    j.key_text = j.key.Text();
    if (auto it = options.known_keys.find(j.key_text); it != options.known_keys.end()) {
      j.suppressed_by = it->second.entry;
      j.known = true;
    }
  }
  j.outcome = j.suppressed_by >= 0 ? Outcome::kSuppressed : Outcome::kFinding;
  return j;
}

bool Account(const CampaignOptions& options, int64_t stream_index, const Judged& judged, CampaignResult* r) {
  switch (judged.outcome) {
    case Outcome::kClean:
      return false;
    case Outcome::kRunnerState:
      if (r->runner_state_findings++ == 0 || stream_index < r->first_runner_state_finding)
        r->first_runner_state_finding = stream_index;
      return false;
    case Outcome::kSuppressed:  // RunCampaign sized suppression_matches
      if (judged.known) {  // counted as --keep-going counts it: a finding of its signature
        ++r->finding_scenarios;
        ++r->known_key_findings[judged.key_text];
        return false;
      }
      ++r->suppressed_scenarios;
      ++r->suppression_matches[static_cast<size_t>(judged.suppressed_by)];
      return false;
    case Outcome::kFinding:
      break;
  }
  ++r->finding_scenarios;
  // A crash of a known class's signature: the class recurred, and learns its features.
  if (options.crash_classes && Crashed(judged)) options.crash_classes->Observe(judged.key, judged.crash_features);
  auto it = std::find_if(r->keys.begin(), r->keys.end(),
                         [&](const CampaignResult::KeyTally& k) { return k.text == judged.key_text; });
  if (it == r->keys.end()) {
    r->keys.push_back({judged.key, judged.key_text, 0, {}, 0, {}});
    it = std::prev(r->keys.end());
  }
  ++it->count;
  // (Not a key of an active crash class: its reproducer stands for the rest.)
  if (static_cast<int>(it->first.size()) < (options.settings.keep_going ? kShrinksPerKey : 1) &&
      !(options.crash_classes && it->shrunk > 0 && options.crash_classes->Covers(it->key)))
    it->first.push_back(stream_index);
  return !options.settings.keep_going;
}

bool ShrinkDue(const CampaignOptions& options, const Budget& budget, const CampaignResult& result) {
  if (!options.shrink_as_found || budget.Stopping() || budget.ShrinkSecondsLeft() <= 0) return false;
  for (const CampaignResult::KeyTally& key : result.keys)
    if (key.shrunk < key.first.size()) return true;
  return false;
}

bool Crashed(const Judged& judged) {
  if (judged.outcome != Outcome::kFinding && judged.outcome != Outcome::kSuppressed) return false;
  const std::vector<std::string>& fired = judged.key.invariants;
  return std::find(fired.begin(), fired.end(), kInvariantNoFault) != fired.end();
}


void AddTallies(const std::vector<Classification>& classes, const std::vector<int64_t>& tokens,
                CampaignResult* result) {
  for (const Classification& c : classes)
    for (const auto& [name, count] : c) result->classes[name] += count;
  for (int64_t t : tokens) result->tokens += t;
}

void SubtractTallies(const CampaignOptions& options, const std::vector<int64_t>& positions, CampaignResult* result) {
  Classification past;
  for (int64_t k : positions) {
    const Scenario s = CampaignScenario(options, StreamIndex(options, k), &past);
    result->tokens -= s.batch.num_tokens * static_cast<int64_t>(s.groups.size());
  }
  for (const auto& [name, count] : past)
    if ((result->classes[name] -= count) == 0) result->classes.erase(name);
}

}  // namespace campaign_internal

bool PrepareReproducerDir(const std::string& dir, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (std::filesystem::is_directory(dir, ec) && access(dir.c_str(), W_OK | X_OK) == 0) return true;
  *err = "--out " + EscapeText(dir, 0) + ": cannot create or write the directory; expected a writable directory for "
         "the reproducers";
  return false;
}

bool RunCampaign(const CampaignOptions& options, Backend& backend, std::ostream& progress,
                 CampaignResult* result, std::string* err) {
  using namespace campaign_internal;
  Budget budget(options, progress);
  if (options.suppressions) result->suppression_matches.resize(options.suppressions->entries.size());
  CampaignOptions run = options;
  run.shrink_as_found = options.settings.keep_going && options.settings.shrink_share > 0;
  // Crash classes: a fuzz campaign that goes on past its findings (a
  // proof's claim is every batch of its scope: nothing is deferred there).
  CrashClasses crash_classes(options.settings.crash_sample);
  if (options.settings.keep_going && options.settings.crash_sample > 0 && !options.source)
    run.crash_classes = &crash_classes;
  for (;;) {
    result->resume_at = -1;
    const bool ran = backend.Batches() ? RunBatched(run, backend, budget, result, err)
                                       : RunOneAtATime(run, backend, budget, result, err);
    if (!ran) return false;
    if (result->resume_at >= 0) {  // paused: shrink what it found, within the share, and go on
      if (!ShrinkFindings(run, backend, budget, result, err, nullptr, /*final=*/false)) return false;
      run.start = result->resume_at;
      continue;
    }
    result->seconds = budget.Elapsed();
    budget.Note(result);
    // What it found is in the checkpoint before it is shrunk.
    budget.MaybeReport(*result, /*force_checkpoint=*/true);
    // Without keep_going there is one key, of the one finding it stopped at.
    const bool one = !options.settings.keep_going && result->keys.size() == 1;
    const int64_t stopped_at = one ? result->keys[0].first.at(0) : -1;
    const std::string key = one ? result->keys[0].text : "";
    std::vector<std::string> gave;
    if (!ShrinkFindings(run, backend, budget, result, err, &gave)) return false;
    budget.Note(result);
    if (!one || result->Found() || budget.Stopping()) break;
    // Its signature is suppressed (maybe the signature of a finding an
    // earlier round shrank, which it joined): take its key as known and go
    // on past it.
    for (const CampaignFinding& f : result->findings)
      if (f.signature.Id() == gave.at(0)) run.known_keys[key] = {f.suppressed_by, gave[0]};
    run.start = (stopped_at - options.settings.shard) / options.settings.shards + 1;
  }
  if (result->stop_signal)
    budget.Say("fuzz: stopped by " + SignalName(result->stop_signal) + " after " + std::to_string(result->scenarios) +
               " scenarios: what it found is shrunk no further, written and reported below");
  for (const auto& [key, n] : result->known_key_findings)
    for (CampaignFinding& f : result->findings)
      if (f.signature.Id() == run.known_keys.at(key).signature) f.count += n;
  result->crash_classes = crash_classes.Report();
  for (const CampaignFinding& f : result->findings)  // the signature entries' matches
    if (f.suppressed_by >= 0) result->suppression_matches[static_cast<size_t>(f.suppressed_by)] += f.count;
  budget.EndLine();
  return true;
}

}  // namespace slotguard
