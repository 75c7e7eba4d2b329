#include "runner/scenario_run.h"

#include <chrono>

#include "invariants/invariants.h"
#include "reference/reference.h"
#include "registry/families.h"

namespace slotguard {

std::vector<std::string> OutputNames(const Group& group) {
  switch (group.family) {
    case Family::kCompressorRing:
      return {group.name, group.name + ".tail"};
    default:
      return {group.name};
  }
}

bool RunScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                 ScenarioRun* run, std::string* err) {
  if (!backend.Run(scenario, &run->kernel, err)) return false;
  CheckKernelOutputs(scenario, keep_per_invariant, run);
  return true;
}

void CheckKernelOutputs(const Scenario& scenario, size_t keep_per_invariant, ScenarioRun* run) {
  run->request_of_token.clear();
  run->reference.clear();
  run->output_names.clear();
  run->findings.assign(scenario.groups.size(), FindingSink(keep_per_invariant));
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    const Group& group = scenario.groups[i];
    run->reference.push_back(ReferenceOutputs(scenario, group));
    run->request_of_token.push_back(RequestOfToken(scenario.batch, group));
    run->output_names.push_back(OutputNames(group));
    GroupRun g;
    g.scenario = &scenario;
    g.group = &group;
    g.request_of_token = &run->request_of_token[i];
    g.read_past_row = &run->kernel[i].read_past_row;
    g.row_bounds_evidence = run->kernel[i].row_bounds_evidence;
    SetAddressing(&g);
    for (size_t o = 0; o < run->output_names[i].size(); ++o) {
      OutputRun out;
      out.name = run->output_names[i][o];
      out.kernel = &run->kernel[i].engine[o];
      out.flat = o < run->kernel[i].flat.size() ? &run->kernel[i].flat[o] : nullptr;
      out.reference = &run->reference[i][o];
      auto golden = scenario.expect.slot_mapping.find(out.name);
      out.golden = golden == scenario.expect.slot_mapping.end() ? nullptr : &golden->second;
      g.outputs.push_back(out);
    }
    CheckMappingInvariants(g, &run->findings[i]);
  }
}

bool ForceVariant(const std::string& name, Scenario* scenario) {
  bool any = false;
  for (Group& group : scenario->groups) {
    Variant v;
    std::string unused;
    if (FindVariant(group.family, name, &v, &unused)) {
      group.variant = v;
      any = true;
    }
  }
  return any;
}

void JudgeExpectation(const Expect& expect, ScenarioReport* report) {
  std::string fired;
  for (const std::string& name : report->fired) fired += (fired.empty() ? "" : ", ") + name;
  report->expect_finding = expect.verdict == Verdict::kFinding;
  report->expected_invariants = expect.findings;
  if (!report->expect_finding) {
    report->holds = report->total_findings == 0;
    report->verdict = report->holds ? "pass"
                                    : "unexpected findings (" + fired + ")" +
                                          (expect.present ? "" : "; the scenario has no expect");
    return;
  }
  std::string missing;
  for (const std::string& name : expect.findings)
    if (!report->fired.count(name)) missing += (missing.empty() ? "" : ", ") + name;
  report->holds = report->total_findings > 0 && missing.empty();
  if (report->holds) {
    report->verdict = "expected finding caught (" + fired + ")";
  } else if (report->total_findings == 0) {
    report->verdict = "expected a finding, none fired";
  } else {
    report->verdict = "expected findings did not fire: " + missing + " (fired: " + fired + ")";
  }
}

ScenarioReport CheckScenario(const Scenario& scenario, const std::string& file,
                             Backend& backend, size_t keep_per_invariant) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioReport report;
  report.file = file;
  report.name = scenario.name;
  ScenarioRun run;
  std::string err;
  if (!RunScenario(scenario, backend, keep_per_invariant, &run, &err)) {
    report.status = ScenarioStatus::kEnvironmentError;
    report.error = file + ": " + scenario.name + ": " + backend.name() + " backend: " + err;
    return report;
  }
  for (size_t i = 0; i < scenario.groups.size(); ++i) {
    const Group& group = scenario.groups[i];
    GroupReport g;
    g.name = group.name;
    g.family = group.family;
    g.variant = group.variant;
    g.counts = run.findings[i].counts();
    g.findings = run.findings[i].kept();
    for (const auto& [name, count] : g.counts) report.fired.insert(name);
    report.total_findings += run.findings[i].total();
    report.tokens += scenario.batch.num_tokens * static_cast<int64_t>(run.output_names[i].size());
    report.groups.push_back(std::move(g));
  }
  JudgeExpectation(scenario.expect, &report);
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace slotguard
