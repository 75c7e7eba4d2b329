// The end of a campaign that found something: each finding shrunk, grouped
// by signature, and each unsuppressed signature's smallest reproducer
// written as a scenario file before anything is reported.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "fuzzing/campaign_internal.h"
#include "family/group_model.h"
#include "fuzzing/shrink.h"
#include "registry/families.h"
#include "registry/invariants.h"
#include "runner/conform_run.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_json.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"
#include "util/invoked_as.h"
#include "util/output_file.h"
#include "util/stop_signals.h"

namespace slotguard {
namespace campaign_internal {
namespace {

/// The reference's outputs as expect.slot_mapping's JSON ({"tail": [-1, 20]}),
/// or "" when they hold more than `max_values` values in all.
std::string ReferencePin(const ScenarioRun& run, size_t max_values) {
  size_t values = 0;
  std::string text;
  for (size_t g = 0; g < run.reference.size(); ++g)
    for (size_t o = 0; o < run.reference[g].size() && o < run.output_names[g].size(); ++o) {
      values += run.reference[g][o].size();
      std::string list;
      for (int64_t v : run.reference[g][o]) list += (list.empty() ? "" : ", ") + std::to_string(v);
      text += (text.empty() ? "" : ", ") + std::string("\"") + run.output_names[g][o] + "\": [" + list + "]";
    }
  return values > max_values ? "" : "{" + text + "}";
}

/// How to keep the reproducer as a regression scenario. A historical
/// variant forced on purpose must keep being caught: an expected finding.
/// A bug in the kernel checked must stay fixed: the file as it is (no
/// expect: it fails while the bug is there and holds once it is fixed), or
/// the reference's output pinned; an expected finding would turn the fixed
/// kernel's gate red.
std::string Advice(const CampaignOptions& o, const CampaignFinding& f, const ScenarioRun& run) {
  const bool faulted = std::find(f.fired.begin(), f.fired.end(), kInvariantNoFault) != f.fired.end();
  if (o.conform && !faulted) {  // the engine's kernel is the judge: the description answers to it
    std::string variants;
    for (const GroupReport& g : f.groups)
      variants += (variants.empty() ? "" : ", ") + std::string(GetFamily(g.family).name) + "'s " +
                  GetVariant(ConformVariantOf(g.family, o.conform_variant)).name;
    return "A bug of the description, not of the kernel: on this scenario the engine's own kernel (" +
           o.implementation + ") and the description's engine variant (" +
           (variants.empty() ? std::string("its engine variant") : variants) +
           ") disagree element by element (the replay command prints the kernel's output; `slotguard replay FILE "
           "--variant V`, without the implementation, prints the variant's). Fix "
           "the description's knobs (its engine variant, or the description itself where the engine runs it) "
           "until `fuzz --conform` finds no disagreement; then `fuzz --kernel-cmd` without --conform reports "
           "the engine's own hazards as kernel findings.";
  }
  if (!o.settings.variant.empty())
    return "To keep it as a regression scenario of the forced variant " + o.settings.variant +
           ", add \"expect\": {\"verdict\": \"finding\", \"findings\": [\"" + f.invariant +
           "\"]}: the file then holds while the variant is caught.";
  const std::string pin = ReferencePin(run, 64);
  if (f.signature.blames_description)
    return "A bug in the description of " + JoinNames(f.signature.families) +
           ": slotguard ran the description itself (no implementation was given) and its own interpretation breaks " +
           f.invariant + " on this batch. Fix the description (docs/family-format.md), then keep this file among "
           "the family's curated scenarios: with no expect it holds once the description is right.";
  return "A bug in the kernel checked (" + o.implementation +
         "): keep this file as it is among the regression scenarios (fuzz --regressions DIR replays them before each "
         "campaign, check DIR gates on them): with no expect it fails while the bug is there and holds once the "
         "kernel is fixed. Do not add \"verdict\": \"finding\": the file would then fail once the kernel is fixed. "
         "To also pin the exact output, add the reference's as " +
         (pin.empty() ? std::string("expect.slot_mapping (replay prints it, the reference column).")
                      : "\"expect\": {\"slot_mapping\": " + pin + "}.");
}

std::string Describe(const CampaignOptions& o, const CampaignFinding& f, const Backend& backend, const ScenarioRun& run) {
  const std::string what = "signature " + f.signature.Id() + " (" + f.signature.Text() + "); invariants fired: " +
                           JoinNames(f.fired) + "; minimized to keep " + f.invariant + " firing. " + Advice(o, f, run);
  // A proof's finding: the scope and batch it enumerated (prove/).
  if (o.source) return "found by " + o.source->FoundBy(f.finding_index) + ", backend " + backend.Describe() + "; " + what;
  std::string command = InvokedAsWord() + " fuzz --seed " + std::to_string(o.settings.seed);
  for (Family family : o.generator.families) command += std::string(" --family ") + GetFamily(family).name;
  if (!o.settings.variant.empty()) command += " --variant " + o.settings.variant;
  if (o.conform) command += " --conform" + (o.conform_variant.empty() ? "" : " --variant " + o.conform_variant);
  if (o.generator.inconsistent) command += " --inconsistent";
  if (o.generator.table_layout) command += std::string(" --table-layout ") + TableLayoutName(*o.generator.table_layout);
  if (o.generator.max_requests != GeneratorOptions().max_requests)
    command += " --max-requests " + std::to_string(o.generator.max_requests);
  const std::string flags = ImplementationFlags(o.found_by);
  if (!flags.empty()) command += " " + flags;
  std::string text = "found by " + command + " (scenario " + std::to_string(f.finding_index) + ", backend " +
                     backend.Describe() + "); signature " + f.signature.Id() + " (" + f.signature.Text() +
                     "); invariants fired: " + JoinNames(f.fired) + "; minimized to keep " + f.invariant +
                     " firing. " + Advice(o, f, run);
  if (!f.original.description.empty()) text += " The generator made an " + f.original.description + ".";
  return text;
}

/// Smaller first: what a reader of the reproducer has to look at.
bool Smaller(const CampaignFinding& a, const CampaignFinding& b) {
  auto size = [](const CampaignFinding& f) {
    int64_t entries = 0;
    for (const Group& g : f.minimized.groups) entries += static_cast<int64_t>(g.table.entries.size());
    return std::make_tuple(f.minimized.batch.num_tokens * static_cast<int64_t>(f.minimized.groups.size()),
                           f.minimized.batch.num_reqs(), entries, f.finding_index);
  };
  return size(a) < size(b);
}

/// The suppression entry that covers this run of `s`, or -1.
int Suppressed(const CampaignOptions& options, const Scenario& s, const ScenarioRun& run, bool shape_known) {
  if (!options.suppressions) return -1;  // every shrink candidate asks: no signature to build
  const FindingSignature sig = CampaignSignatureOf(options, s, run.findings);
  return SuppressedBy(options, s, shape_known ? sig : sig.Key());
}

}  // namespace

bool MinimizeFinding(const CampaignOptions& options, Backend& backend, Budget& budget, int64_t stream_index,
                     const FindingSignature& key, CampaignFinding* finding, std::string* err, const std::string& what) {
  finding->finding_index = stream_index;
  finding->original = CampaignScenario(options, stream_index, nullptr);
  // A finding that does not recur (a fault of the implementation's
  // history: an earlier call's crash or device fault) is kept as generated,
  // with what the campaign saw, and said: nothing to shrink towards (every
  // candidate would "hold", thousands of runs for no reproducer).
  auto not_recurred = [&](const std::string& when) {
    finding->recurred = false;
    finding->minimized = finding->original;
    finding->fired = key.invariants;
    finding->invariant = MostSpecificInvariant(std::set<std::string>(key.invariants.begin(), key.invariants.end()));
    finding->signature = key;
    finding->signature.shape = ScenarioShape(finding->original);
    finding->suppressed_by = SuppressedBy(options, finding->original, finding->signature);
    budget.Say("fuzz: the finding of scenario " + std::to_string(stream_index) + " (" + key.Text() +
               ") did not recur when " + when + ": a fault of the implementation's history (an earlier call's "
               "crash or device fault), not of this scenario alone; its reproducer is the scenario as generated, "
               "unshrunk");
    return true;
  };
  ScenarioRun run;
  if (!RunOne(options, finding->original, backend, &run, err)) return false;
  std::set<std::string> fired = FiredInvariants(run);
  if (fired.empty()) return not_recurred("its scenario ran again");
  // The reproducer must blame the kernel as the finding did. On a batch a
  // correct kernel passes (the reference's own output raises nothing), every
  // candidate must be such a batch too: then the reproducer holds once the
  // kernel is fixed. On a batch the runner got wrong (--inconsistent), the
  // reproducer keeps an invariant that blames the kernel firing.
  const bool sound = ReferencePasses(finding->original);
  std::set<std::string> blaming;
  for (const std::string& name : fired)
    if (BlamesKernel({name})) blaming.insert(name);
  // (A finding nothing blames on a batch a correct kernel fails too, from a
  // consistent campaign, keeps its most specific invariant: a generator bug.)
  const bool blame = !sound && !blaming.empty();
  finding->invariant = MostSpecificInvariant(blame ? blaming : fired);  // what the reproducer must keep firing
  std::string shrink_error;
  const std::string target = finding->invariant;
  const std::optional<TableLayoutKind> fixed_layout = options.generator.table_layout;
  ScenarioRun candidate_run;
  ShrinkOptions shrink;
  shrink.on_attempt = [&](const Scenario& smallest, int attempts) {
    budget.MaybeReportShrink(what.empty() ? "scenario " + std::to_string(stream_index) : what, smallest, attempts);
  };
  shrink.stop = [&] { return budget.ShrinkStopping(); };
  finding->minimized = Shrink(finding->original, [&](const Scenario& candidate) {
    // --table-layout fixed the layout: the reproducer keeps it.
    if (fixed_layout && candidate.table_layout != *fixed_layout) return false;
    if (!RunOne(options, candidate, backend, &candidate_run, &shrink_error)) return false;
    bool fires = false;
    for (const FindingSink& sink : candidate_run.findings) fires |= sink.counts().count(target) > 0;
    // Never into a known difference: a finding that shrinks into a
    // suppressed class would hide the bug it was found by.
    return fires && Suppressed(options, candidate, candidate_run, false) < 0 &&
           (!sound || ReferencePasses(candidate));
  }, shrink, &finding->shrink_cut_short);
  if (finding->shrink_cut_short)
    budget.Say(std::string(options.source ? "prove" : "fuzz") + ": shrinking the finding of scenario " +
               std::to_string(stream_index) + " was cut short by " +
               (options.stop && options.stop->load() ? SignalName(options.stop->load())
                : budget.ShareSpent()                 ? std::string("its share of --time (--shrink-share)")
                                                      : std::string("--time")) +
               ": its reproducer is the smallest found until then (" + ScenarioShape(finding->minimized) + ")");
  if (!RunOne(options, finding->minimized, backend, &run, err)) return false;
  fired = FiredInvariants(run);
  // Each candidate kept fired the target when it ran; a reproducer that
  // then fires nothing came from faults that recur only now and then.
  if (!fired.count(target)) return not_recurred("its minimized reproducer ran again");
  finding->fired.assign(fired.begin(), fired.end());
  finding->signature = CampaignSignatureOf(options, finding->minimized, run.findings);
  finding->suppressed_by = Suppressed(options, finding->minimized, run, true);
  return true;
}

bool ShrinkFindings(const CampaignOptions& options, Backend& backend, Budget& budget, CampaignResult* result,
                    std::string* err, std::vector<std::string>* gave_all, bool final) {
  std::map<std::string, size_t> by_id;  // signature id -> result->findings (those shrunk earlier too)
  for (size_t i = 0; i < result->findings.size(); ++i) by_id[result->findings[i].signature.Id()] = i;
  size_t to_shrink = 0, shrinking = 0;
  for (const CampaignResult::KeyTally& key : result->keys) to_shrink += key.first.size() - key.shrunk;
  // Shrinks the key's next finding into result->findings.
  auto shrink_next = [&](CampaignResult::KeyTally& key) {
    const int64_t index = key.first[key.shrunk];
    CampaignFinding f;
    const std::string what = "finding " + std::to_string(++shrinking) + " of " + std::to_string(to_shrink) +
                             " (scenario " + std::to_string(index) + ")";
    if (!final) budget.StartShrink();
    const bool ok = MinimizeFinding(options, backend, budget, index, key.key, &f, err, what);
    if (!final) budget.EndShrink();
    if (!ok) return false;
    if (options.crash_classes)
      options.crash_classes->Learn(f.signature, f.fired, f.recurred, f.original, f.minimized);
    const auto [it, fresh] = by_id.emplace(f.signature.Id(), result->findings.size());
    if (fresh) {
      result->findings.push_back(std::move(f));
    } else if (Smaller(f, result->findings[it->second])) {
      CampaignFinding& kept = result->findings[it->second];
      f.count = kept.count;
      f.shrunk = kept.shrunk;
      kept = std::move(f);
    }
    CampaignFinding& kept = result->findings[it->second];
    ++kept.count;
    ++kept.shrunk;
    ++key.shrunk;
    key.gave.insert(it->first);
    if (gave_all) gave_all->push_back(it->first);
    return true;
  };
  // While the campaign goes on (not final), within the budget's share: each
  // key's first finding before any key's further ones, so that a new
  // signature is not kept waiting behind a known one's.
  auto may = [&] { return final || (!budget.Stopping() && budget.ShrinkSecondsLeft() > 0); };
  // A key of an active crash class shrinks no further: the class's
  // reproducer stands for its findings, counted with it (crash_classes.h).
  for (CampaignResult::KeyTally& key : result->keys)
    if (key.shrunk > 0 && options.crash_classes && options.crash_classes->Covers(key.key)) {
      to_shrink -= key.first.size() - key.shrunk;
      key.first.resize(key.shrunk);
    }
  for (CampaignResult::KeyTally& key : result->keys)
    if (key.shrunk == 0 && !key.first.empty() && may() && !shrink_next(key)) return false;
  for (CampaignResult::KeyTally& key : result->keys)
    while (key.shrunk < key.first.size() && may())
      if (!shrink_next(key)) return false;
  std::stable_sort(result->findings.begin(), result->findings.end(),
                   [](const CampaignFinding& a, const CampaignFinding& b) { return a.finding_index < b.finding_index; });
  if (!final) return true;
  by_id.clear();
  for (size_t i = 0; i < result->findings.size(); ++i) by_id[result->findings[i].signature.Id()] = i;
  for (const CampaignResult::KeyTally& key : result->keys) {
    // The key's findings that were not shrunk: its signature's, when all
    // the shrunk ones agree on one.
    const int64_t rest = key.count - static_cast<int64_t>(key.first.size());
    if (key.gave.size() == 1)
      result->findings[by_id.at(*key.gave.begin())].count += rest;
    else
      result->unattributed += rest;
  }
  result->keys.clear();  // shrunk
  // Each unsuppressed signature's smallest reproducer, once every finding
  // that may give it a smaller one is shrunk (an earlier round's were
  // written, or suppressed).
  for (CampaignFinding& f : result->findings)
    if (f.suppressed_by < 0 && f.file.empty() && !WriteReproducer(options, backend, &f, err)) return false;
  return true;
}

bool WriteReproducer(const CampaignOptions& options, Backend& backend, CampaignFinding* finding,
                     std::string* err) {
  Scenario out = finding->minimized;
  // Named by what the finding is, not where the stream met it: another
  // seed, night or shard that finds the same bug writes the same file, and
  // its code-scanning alert (keyed by file and fingerprint) stays one. The
  // seed and the scenario index are in the description.
  out.name = "fuzz-" + (options.settings.variant.empty() ? std::string("fixed") : options.settings.variant) + "-" +
             finding->invariant + "-" + finding->signature.Id();
  out.expect = Expect();
  // How it was found, so that it reproduces: the implementation, and the
  // descriptions of its families that are not built in.
  out.found_by = options.found_by;
  out.found_by.present = true;
  out.found_by.family_files.clear();
  for (const Group& g : out.groups) {
    const FamilyInfo& family = GetFamily(g.family);
    if (family.builtin) continue;
    const std::string& file = FamilyModel(g.family).file();
    if (std::find(out.found_by.family_files.begin(), out.found_by.family_files.end(), file) ==
        out.found_by.family_files.end())
      out.found_by.family_files.push_back(file);
  }
  // The reproducer's own findings, per group, as `check` reports them (and
  // the reference's outputs, for the advice).
  ScenarioRun run;
  if (!(options.conform ? RunConformance(out, options.conform_variant, backend, 2, &run, err)
                        : RunScenario(out, backend, 2, &run, err)))
    return false;
  for (size_t g = 0; g < out.groups.size(); ++g) {
    if (run.findings[g].total() == 0) continue;
    finding->groups.push_back(ReportGroup(out, run, g));
  }
  out.description = Describe(options, *finding, backend, run);
  std::error_code ec;
  std::filesystem::create_directories(options.settings.out_dir, ec);
  finding->file = (std::filesystem::path(options.settings.out_dir) / (out.name + ".json")).string();
  finding->replay_command = ReplayCommand(out.found_by, finding->file);
  // A reproducer that cannot be written (a full disk) loses nothing else:
  // the finding is still reported, marked, and nothing stays at `file`.
  std::string why;
  if (!WriteOutputFile(finding->file, WriteScenarioJson(out), &why))
    finding->reproducer_error = "reproducer not written: " + EscapeText(finding->file, 0) + ": " + why;
  finding->minimized = out;
  return true;
}

}  // namespace campaign_internal
}  // namespace slotguard
