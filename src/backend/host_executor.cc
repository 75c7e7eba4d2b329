#include "backend/host_executor.h"

#include "backend/described_kernel.h"
#include "backend/kernel_inputs.h"
#include "kernels/host_loop.h"
#include "util/parallel_for.h"
#include "writers/cache_pool.h"

namespace slotguard {
namespace {

constexpr char kInstrumented[] = "instrumented block-table reads";

// Output buffers zeroed, like the engine's persistent buffers; pools in
// their before-the-run state.
void Reset(const ScenarioPlan& plan, const HostExecution& how, std::vector<GroupOutputs>* outputs) {
  outputs->resize(plan.scenario->groups.size());  // reuses the buffers of an earlier run
  for (const PlanStep& step : plan.steps) {
    const size_t n = static_cast<size_t>(step.output_length);  // a slot per token, or per request
    GroupOutputs& out = (*outputs)[step.group];
    out.engine.resize(step.outputs);
    out.flat.resize(how.flat && step.runner == StepRunner::kOwnKernel ? step.outputs : 0);
    for (std::vector<int64_t>& o : out.engine) o.assign(n, 0);
    for (std::vector<int64_t>& o : out.flat) o.assign(n, 0);
    out.fault.clear();
    out.culprit = false;
    out.skipped.clear();
    out.not_run = false;
    out.head_bytes = how.writers.head_bytes;
    if (step.writes) {
      FillInitialCache(step.cache, &out.cache);
    } else {
      out.cache.clear();
    }
  }
}

// The output a step's gate reads, or nullptr.
const int64_t* GateOf(const ScenarioPlan& plan, const PlanStep& step, const std::vector<GroupOutputs>& outputs) {
  if (step.gate_group >= 0) return outputs[static_cast<size_t>(step.gate_group)].engine[0].data();
  if (step.gate_absent) return plan.AbsentGate(step.absent_rule).data();
  return nullptr;
}

// One step of slotguard's (its kernel, or its description). Returns the
// description's failure, if any.
std::string RunOwnStep(const ScenarioPlan& plan, const PlanStep& step, bool flat, std::vector<GroupOutputs>* outputs) {
  const Scenario& s = *plan.scenario;
  const Group& group = s.groups[step.group];
  GroupOutputs& out = (*outputs)[step.group];
  const int64_t* gate = GateOf(plan, step, *outputs);
  if (step.runner == StepRunner::kDescription) {
    std::string failure;
    RunDescribedGroup(s, group, gate, &out, &failure);
    return failure;
  }
  const MappingBatch b = plan.HostBatch();
  const TableLayout layout = step.table.View();
  VisitFamily(group, gate, [&](auto family, const auto& params) {
    using F = decltype(family);
    auto buffers = [&](std::vector<std::vector<int64_t>>& o) {
      return MappingOutputs{o[0].data(), step.outputs > 1 ? o[1].data() : nullptr};
    };
    RunOnHost<F>(params, b, layout, Geometry::kEngine, buffers(out.engine), out.read_past_row.data());
    if (flat) RunOnHost<F>(params, b, layout, Geometry::kFlat, buffers(out.flat), out.read_past_row.data());
  });
  return "";
}

// Whether the run is still going (not skipped, not faulted).
bool Going(const std::vector<GroupOutputs>& outputs) {
  return outputs.empty() || (outputs[0].fault.empty() && outputs[0].skipped.empty());
}

// Wave `wave` of every run: slotguard's steps, then the provider's in one batch.
bool RunWave(const std::vector<HostRun>& runs, const HostExecution& how, int wave, std::string* err) {
  ParallelFor(runs.size(), how.threads, [&](size_t i) {
    const ScenarioPlan& plan = *runs[i].plan;
    std::vector<GroupOutputs>& outputs = *runs[i].outputs;
    for (const PlanStep& step : plan.steps) {
      if (step.wave != wave || step.runner == StepRunner::kProvider || !Going(outputs)) continue;
      const std::string failure = RunOwnStep(plan, step, how.flat, &outputs);
      if (!failure.empty()) MarkFaulted(failure, plan.scenario->groups.size(), &outputs, step.group);
    }
  });
  if (!how.provider) return true;
  std::vector<StepCall> calls;
  std::vector<size_t> run_of_call;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ScenarioPlan& plan = *runs[i].plan;
    std::vector<GroupOutputs>& outputs = *runs[i].outputs;
    if (!plan.provided || wave >= plan.waves || !Going(outputs)) continue;
    AppendCalls(plan, wave, how.provider->takes_whole_scenarios(), plan.HostBatch(), nullptr,
                [&](size_t k) {
                  const PlanStep& step = plan.steps[k];
                  std::vector<std::vector<int64_t>>& engine = outputs[step.group].engine;
                  StepArgs a;
                  a.table = step.table.View();
                  a.out = MappingOutputs{engine[0].data(), step.outputs > 1 ? engine[1].data() : nullptr};
                  a.gate = GateOf(plan, step, outputs);
                  return a;
                },
                &calls);
    run_of_call.resize(calls.size(), i);
  }
  if (calls.empty()) return true;
  if (!how.provider->RunCalls(&calls, /*device=*/false, how.threads, err)) return false;
  for (size_t c = 0; c < calls.size(); ++c) {
    std::vector<GroupOutputs>& outputs = *runs[run_of_call[c]].outputs;
    if (Going(outputs)) ApplyOutcome(calls[c], &outputs);
  }
  return true;
}

// The writers from the engine outputs, then what the outputs say of reads past a row.
void Finish(const ScenarioPlan& plan, std::vector<GroupOutputs>* outputs) {
  const Scenario& s = *plan.scenario;
  for (const PlanStep& step : plan.steps) {
    GroupOutputs& out = (*outputs)[step.group];
    if (step.runner == StepRunner::kProvider) MarkOutputReadsPastRow(s, s.groups[step.group], &out);
    if (!step.writes || out.cache.empty()) continue;
    CacheView cache = step.cache;
    cache.bytes = out.cache.data();
    for (const OutputWriter& w : step.writers) {
      const int gate = w.gate_group;
      const std::vector<uint8_t> skips =
          WriterSkips(s, s.groups[step.group], w.output,
                      gate >= 0 ? (*outputs)[static_cast<size_t>(gate)].engine[0].data() : nullptr);
      WriterJob job = w.Job(out.engine[w.output].data());
      job.skip = skips.empty() ? nullptr : skips.data();
      RunWriterOnHost(w.kind, cache, job);
    }
  }
}

void Start(const ScenarioPlan& plan, const HostExecution& how, std::vector<GroupOutputs>* outputs) {
  const size_t groups = plan.scenario->groups.size();
  if (!plan.skip.empty()) {
    MarkSkipped(plan.skip, groups, outputs);
    return;
  }
  if (how.reset || outputs->size() != groups) Reset(plan, how, outputs);
  for (GroupOutputs& out : *outputs) {
    out.row_bounds_evidence = kInstrumented;
    out.read_past_row.assign(static_cast<size_t>(plan.scenario->batch.num_tokens), 0);
  }
}

}  // namespace

bool ExecuteOnHost(const std::vector<HostRun>& runs, const HostExecution& how, std::string* err) {
  int waves = 0;
  for (const HostRun& run : runs) {
    Start(*run.plan, how, run.outputs);
    waves = std::max(waves, run.plan->waves);
  }
  for (int wave = 0; wave < waves; ++wave)
    if (!RunWave(runs, how, wave, err)) return false;
  ParallelFor(runs.size(), how.threads, [&](size_t i) {
    if (Going(*runs[i].outputs)) Finish(*runs[i].plan, runs[i].outputs);
  });
  return true;
}

void ResetOnHost(const ScenarioPlan& plan, const HostExecution& how, std::vector<GroupOutputs>* outputs) {
  Reset(plan, how, outputs);
}

void ZeroNullBlocksOnHost(const ScenarioPlan& plan, std::vector<GroupOutputs>* outputs) {
  for (const PlanStep& step : plan.steps) {
    if (step.group >= outputs->size()) continue;
    std::vector<uint8_t>& cache = (*outputs)[step.group].cache;
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(0, NullBlockBytes(step.cache)));
    std::fill_n(cache.begin(), std::min(bytes, cache.size()), uint8_t{0});
  }
}

}  // namespace slotguard
