#include "runner/scenario_run.h"

#include <algorithm>
#include <chrono>

#include "invariants/invariants.h"
#include "reference/reference.h"
#include "registry/families.h"
#include "registry/invariants.h"
#include "runner/graph_replays.h"
#include "writers/cache_pool.h"

namespace slotguard {

std::string SkippedCaches(const Scenario& scenario, const WriterOptions& writers) {
  if (writers.head_bytes <= 0) return "";
  std::string skipped;
  for (const Group& group : scenario.groups) {
    const CacheView view = CacheGeometry(scenario, group, writers.head_bytes);
    if (CacheFits(view, writers.max_cache_bytes)) continue;
    skipped += std::string(skipped.empty() ? "" : "; ") + "no writers for group " + group.name + ": its pool (" +
               std::to_string(scenario.num_blocks) + " blocks x " + std::to_string(view.page_slots) + " slots x " +
               std::to_string(writers.head_bytes) + " bytes) is over --max-cache-mib " +
               std::to_string(writers.max_cache_bytes >> 20);
  }
  return skipped;
}

bool RunScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                 ScenarioRun* run, std::string* err) {
  if (!backend.Run(scenario, &run->kernel, err)) return false;
  run->cache_before.clear();  // from the initial state
  run->step.clear();
  run->null_writers.clear();
  CheckKernelOutputs(scenario, keep_per_invariant, run);
  return true;
}

Finding NoFaultFinding(const std::string& output, const std::string& fault) {
  Finding f;
  f.invariant = kInvariantNoFault;
  f.output = output;
  f.detail = fault;
  return f;
}

namespace {

// A run that did not complete: one no_fault finding, on the group whose call
// faulted (GroupOutputs::culprit), else on the first group.
bool RecordFault(const Scenario& scenario, ScenarioRun* run) {
  for (const GroupOutputs& out : run->kernel) {
    if (out.fault.empty()) continue;
    size_t on = 0;
    for (size_t g = 0; g < run->kernel.size() && g < scenario.groups.size(); ++g)
      if (run->kernel[g].culprit) on = g;
    run->findings.assign(scenario.groups.size(), FindingSink(1));
    if (!run->findings.empty()) run->findings[on].Add(NoFaultFinding(scenario.groups[on].name, out.fault));
    run->request_of_token.assign(scenario.groups.size(), {});
    run->reference.assign(scenario.groups.size(), {});
    run->output_names.clear();
    for (const Group& group : scenario.groups) run->output_names.push_back(OutputNames(group));
    return true;
  }
  return false;
}

}  // namespace

namespace {

/// The hand-written references' outputs where a group has one (else the
/// interpreter's), with no facts.
bool HandWrittenReference(const Scenario& scenario, std::vector<Interpretation>* out, std::string* err) {
  out->assign(scenario.groups.size(), Interpretation());
  // The groups whose family reads no other group's output first: a gate's
  // linked group is one of them (the loader checks it).
  for (const bool reads : {false, true})
    for (size_t g = 0; g < scenario.groups.size(); ++g) {
      const Group& group = scenario.groups[g];
      if (ReadsAnotherGroup(group.family) != reads) continue;
      Interpretation& one = (*out)[g];
      if (!HandReference(scenario, group, &one.slots)) {
        const int gate = GateGroupIndex(scenario, group);
        if (!GroupReference(scenario, group, gate >= 0 ? (*out)[gate].slots[0].data() : nullptr, false, &one, err))
          return false;
        continue;
      }
      const MappingDesc& mapping = MappingOf(group);
      one.owner = OwnersOf(mapping, scenario.batch, MappedEnd(mapping, scenario.batch));
    }
  return true;
}

}  // namespace

GroupRun GroupRunOf(const Scenario& scenario, const ScenarioRun& run, size_t i, bool with_flat) {
  const Group& group = scenario.groups[i];
  GroupRun g;
  g.scenario = &scenario;
  g.group = &group;
  g.request_of_token = &run.request_of_token[i];
  g.read_past_row = &run.kernel[i].read_past_row;
  g.row_bounds_evidence = run.kernel[i].row_bounds_evidence;
  SetAddressing(&g);
  for (size_t o = 0; o < run.output_names[i].size(); ++o) {
    OutputRun out;
    out.name = run.output_names[i][o];
    out.kernel = &run.kernel[i].engine[o];
    out.flat = with_flat && o < run.kernel[i].flat.size() ? &run.kernel[i].flat[o] : nullptr;
    out.reference = &run.reference[i][o];
    out.facts = o < run.facts[i].size() ? &run.facts[i][o] : nullptr;
    if (KindModelOf(group).writes_cache() && o < MappingOf(group).outputs.size()) {
      out.writer = &WriterMappingOf(group).outputs[o].writer;
      out.reference_writer = &MappingOf(group).outputs[o].writer;
      const std::vector<uint8_t>* skips =
          i < run.writer_skips.size() && o < run.writer_skips[i].size() ? &run.writer_skips[i][o] : nullptr;
      out.writer_skips = skips && !skips->empty() ? skips : nullptr;
    }
    auto golden = scenario.expect.slot_mapping.find(out.name);
    out.golden = golden == scenario.expect.slot_mapping.end() ? nullptr : &golden->second;
    g.outputs.push_back(out);
  }
  return g;
}

void CheckKernelOutputs(const Scenario& scenario, size_t keep_per_invariant, ScenarioRun* run,
                        ReferenceSource source) {
  run->request_of_token.clear();
  run->reference.clear();
  run->facts.clear();
  run->writer_skips.clear();
  run->output_names.clear();
  run->findings.assign(scenario.groups.size(), FindingSink(keep_per_invariant));
  run->causes.assign(scenario.groups.size(), GroupCause());
  run->skipped.clear();
  run->reference_error.clear();
  for (const GroupOutputs& out : run->kernel)
    if (!out.skipped.empty()) {
      run->skipped = out.skipped;
      for (const Group& group : scenario.groups) run->output_names.push_back(OutputNames(group));
      run->request_of_token.assign(scenario.groups.size(), {});
      run->reference.assign(scenario.groups.size(), {});
      return;
    }
  std::vector<Interpretation> reference;
  // A run that faulted where the description itself has no value (a formula
  // that divides by zero or overflows on this scenario) is the scenario's
  // bad input, as the reference's failure is below: not the kernel's fault.
  if (std::any_of(run->kernel.begin(), run->kernel.end(), [](const GroupOutputs& o) { return !o.fault.empty(); }) &&
      !ScenarioReference(scenario, /*facts=*/false, &reference, &run->reference_error)) {
    for (const Group& group : scenario.groups) run->output_names.push_back(OutputNames(group));
    run->request_of_token.assign(scenario.groups.size(), {});
    run->reference.assign(scenario.groups.size(), {});
    return;
  }
  if (RecordFault(scenario, run)) return;
  if (!(source == ReferenceSource::kHandWritten
            ? HandWrittenReference(scenario, &reference, &run->reference_error)
            : ScenarioReference(scenario, /*facts=*/true, &reference, &run->reference_error))) {
    for (const Group& group : scenario.groups) run->output_names.push_back(OutputNames(group));
    run->request_of_token.assign(scenario.groups.size(), {});
    run->reference.assign(scenario.groups.size(), {});
    return;
  }
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    const Group& group = scenario.groups[i];
    run->reference.push_back(std::move(reference[i].slots));
    run->facts.push_back(std::move(reference[i].facts));
    run->request_of_token.push_back(std::move(reference[i].owner));
    run->output_names.push_back(OutputNames(group));
  }
  // What each output's writer skips whatever the slot (a writer gate over
  // another group's output, a dummy's tokens), as the references say: read
  // from run->reference once every group's is there (the loop above moves
  // them out of `reference`, the linked group's among them).
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    const Group& group = scenario.groups[i];
    run->writer_skips.emplace_back(run->output_names[i].size());
    const GroupModel model(group);
    if (!model.kind().writes_cache()) continue;
    const MappingDesc& mapping = WriterMappingOf(group);
    GroupPlan plan;
    std::string unused;
    if (!model.MakePlan(mapping, scenario.batch, &plan, &unused)) continue;
    for (size_t o = 0; o < run->writer_skips.back().size() && o < mapping.outputs.size(); ++o) {
      const int gate = WriterGateGroupIndex(scenario, group, static_cast<int>(o));
      run->writer_skips.back()[o] = WriterSkipMask(plan, static_cast<int>(o), scenario.batch,
                                                   gate >= 0 ? run->reference[gate][0].data() : nullptr);
    }
  }
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    const GroupRun g = GroupRunOf(scenario, *run, i, /*with_flat=*/true);
    CheckMappingInvariants(g, &run->findings[i]);
    const GroupOutputs& kernel = run->kernel[i];
    if (!kernel.cache.empty()) {
      MemoryRun memory;
      memory.cache = &kernel.cache;
      memory.head_bytes = kernel.head_bytes;
      memory.group_index = static_cast<int32_t>(i);
      if (i < run->cache_before.size() && !run->cache_before[i].empty()) memory.before = &run->cache_before[i];
      memory.step = run->step;
      if (i < run->null_writers.size()) memory.null_writers = &run->null_writers[i];
      CheckMemoryInvariants(g, memory, &run->findings[i]);
    }
    if (run->findings[i].total() > 0) run->causes[i] = FindCause(g, run->findings[i]);
  }
}

bool ForceVariant(const std::string& name, Scenario* scenario) {
  bool any = false;
  for (Group& group : scenario->groups) {
    Variant v;
    if (LookupVariant(group.family, name, &v)) {
      group.variant = v;
      any = true;
    }
  }
  return any;
}

void JudgeExpectation(const Expect& expect, ScenarioReport* report, bool memory_checked) {
  std::string fired;
  for (const std::string& name : report->fired) fired += (fired.empty() ? "" : ", ") + name;
  report->expect_finding = expect.verdict == Verdict::kFinding;
  report->expected_invariants = expect.findings;
  // An invariant the scenario says must not fire (a hazard kept out of memory).
  std::string present;
  for (const std::string& name : expect.absent)
    if (report->fired.count(name)) present += (present.empty() ? "" : ", ") + name;
  if (!present.empty()) {
    report->holds = false;
    report->verdict = "invariants expected absent fired: " + present + " (fired: " + fired + ")";
    return;
  }
  if (!report->expect_finding) {
    report->holds = report->total_findings == 0;
    report->verdict = report->holds ? "pass"
                                    : "unexpected findings (" + fired + ")" +
                                          (expect.present ? "" : "; the scenario has no expect");
    return;
  }
  std::string missing, unchecked;
  for (const std::string& name : expect.findings) {
    if (report->fired.count(name)) continue;
    if (!memory_checked && IsMemoryInvariant(name)) {
      unchecked += (unchecked.empty() ? "" : ", ") + name;
      continue;
    }
    missing += (missing.empty() ? "" : ", ") + name;
  }
  report->holds = report->total_findings > 0 && missing.empty();
  if (report->holds) {
    report->verdict = "expected finding caught (" + fired + ")" +
                      (unchecked.empty() ? "" : "; " + unchecked + " not checked (no --writers)");
  } else if (report->total_findings == 0) {
    report->verdict = "expected a finding, none fired";
  } else {
    report->verdict = "expected findings did not fire: " + missing + " (fired: " + fired + ")";
  }
}

GroupReport ReportGroup(const Scenario& scenario, const ScenarioRun& run, size_t g) {
  GroupReport report;
  report.name = scenario.groups[g].name;
  report.family = scenario.groups[g].family;
  report.variant = scenario.groups[g].variant;
  report.counts = run.findings[g].counts();
  report.findings = run.findings[g].kept();
  if (g < run.causes.size()) report.cause = run.causes[g];
  return report;
}

ScenarioReport CheckScenario(const Scenario& scenario, const std::string& file,
                             Backend& backend, size_t keep_per_invariant, bool cuda_graph) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioReport report;
  report.file = file;
  report.name = scenario.name;
  ScenarioRun run;
  std::string err;
  const bool ran = cuda_graph ? RunGraphReplayScenario(scenario, backend, keep_per_invariant, &run, &err)
                              : RunScenario(scenario, backend, keep_per_invariant, &run, &err);
  if (!ran) {
    report.status = ScenarioStatus::kEnvironmentError;
    report.error = file + ": " + scenario.name + ": " + backend.name() + " backend: " + err;
    return report;
  }
  if (!run.reference_error.empty()) {
    report.status = ScenarioStatus::kBadInput;
    report.error = file + ": " + scenario.name + ": " + run.reference_error;
    return report;
  }
  if (!run.skipped.empty()) {
    report.status = ScenarioStatus::kSkipped;
    report.verdict = "skipped: " + run.skipped;
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    GroupReport g = ReportGroup(scenario, run, i);
    g.null_block = EffectOf(g.counts, !run.kernel[i].cache.empty());
    for (const auto& [name, count] : g.counts) report.fired.insert(name);
    report.total_findings += run.findings[i].total();
    report.tokens += static_cast<int64_t>(run.kernel[i].engine.empty() ? 0 : run.kernel[i].engine[0].size()) *
                     static_cast<int64_t>(run.output_names[i].size());
    report.groups.push_back(std::move(g));
  }
  JudgeExpectation(scenario.expect, &report, backend.writers().head_bytes > 0);
  // Block 0: a hazard and a write are different facts; say which each group has.
  std::string effects;
  for (const GroupReport& g : report.groups)
    if (g.null_block != NullBlockEffect::kNone)
      effects += std::string(effects.empty() ? "" : ", ") + "group " + g.name + " " + EffectName(g.null_block);
  if (!effects.empty()) report.verdict += "; block 0: " + effects;
  if (!report.fired.empty()) report.signature = SignatureOf(scenario, run.findings, ImplementationName(backend));
  const std::string skipped = SkippedCaches(scenario, backend.writers());
  if (!skipped.empty()) report.verdict += " (" + skipped + ")";
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

std::set<std::string> FiredInvariants(const ScenarioRun& run) {
  std::set<std::string> fired;
  for (const FindingSink& sink : run.findings)
    for (const auto& [name, count] : sink.counts()) fired.insert(name);
  return fired;
}

bool ReferencePasses(const Scenario& given) {
  // Judged as its own implementation: every group its family's fixed
  // variant (a forced variant's consumers are the implementation's, not
  // the batch's).
  Scenario scenario = given;
  for (Group& group : scenario.groups) group.variant = FixedVariant(group.family);
  ScenarioRun run;
  run.kernel.resize(scenario.groups.size());
  std::vector<Interpretation> reference;
  std::string unused;
  if (!ScenarioReference(scenario, /*facts=*/false, &reference, &unused)) return false;  // it cannot compute it
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    GroupOutputs& out = run.kernel[i];
    out.engine = std::move(reference[i].slots);
    out.flat = out.engine;
    out.read_past_row.assign(scenario.batch.num_tokens, 0);
  }
  CheckKernelOutputs(scenario, 1, &run);
  for (const FindingSink& sink : run.findings)
    if (sink.total() > 0) return false;
  return true;
}

}  // namespace slotguard
