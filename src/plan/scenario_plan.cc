#include "plan/scenario_plan.h"

#include <algorithm>

#include "registry/families.h"
#include "family/group_model.h"
#include "writers/cache_pool.h"

namespace slotguard {
namespace {

/// Group indices in run order: the groups that read no other group's
/// output, then those that do (a gate names a group of the first kind).
std::vector<size_t> RunOrder(const Scenario& scenario) {
  std::vector<size_t> order;
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (!ReadsAnotherGroup(scenario.groups[i].family)) order.push_back(i);
  for (size_t i = 0; i < scenario.groups.size(); ++i)
    if (ReadsAnotherGroup(scenario.groups[i].family)) order.push_back(i);
  return order;
}

StepRunner RunnerOf(const Group& group, const MappingProvider* provider) {
  if (provider && provider->Runs(group.family, group.variant)) return StepRunner::kProvider;
  return GetVariant(group.variant).kernel ? StepRunner::kOwnKernel : StepRunner::kDescription;
}

/// Waves, walking the run order: the provider's steps queue up; a step of
/// slotguard's that reads a queued one starts the next wave.
int AssignWaves(std::vector<PlanStep>* steps, const std::vector<int32_t>& step_of_group) {
  int wave = 0;
  std::vector<bool> queued(step_of_group.size(), false);
  for (PlanStep& step : *steps) {
    if (step.runner != StepRunner::kProvider && step.gate_group >= 0 && queued[step.gate_group]) {
      ++wave;
      std::fill(queued.begin(), queued.end(), false);
    }
    step.wave = wave;
    if (step.runner == StepRunner::kProvider) queued[step.group] = true;
  }
  return wave + 1;
}

/// Why the provider cannot be handed this batch as it is, or "": an ABI-1
/// plugin or spec-1 kernel takes int32 seq_lens, so a seq_len past
/// INT32_MAX would reach it saturated and its right answer would look wrong.
std::string CannotTake(const MappingProvider& provider, const Batch& batch) {
  if (provider.reads_persistent_tables()) return "";  // ABI 2 / spec 2: int64 seq_lens
  const int64_t most = batch.seq_lens.empty() ? 0 : *std::max_element(batch.seq_lens.begin(), batch.seq_lens.end());
  if (most <= INT32_MAX) return "";
  return provider.name() + " takes int32 seq_lens (plugin ABI 1 or kernel spec 1) and this batch's reach " +
         std::to_string(most) + "; rebuild it against plugin ABI 2 (spec 2) to check it on such a batch";
}

void PlanTable(const Scenario& s, const PlanStep& step, bool gather, PlannedTable* table) {
  const Group& group = s.groups[step.group];
  table->gathered = gather;
  if (gather) table->gathered_table = GatheredTable(s.batch, group);
  const BlockTable& read = gather ? table->gathered_table : group.table;
  table->width = read.width;
  table->rows = read.rows;
  table->shape = ShapeTable(s.table_layout, s.batch, group, read.rows);
}

void PlanWriter(const Scenario& s, const WriterOptions& writers, PlanStep* step) {
  const Group& group = s.groups[step->group];
  step->writers.clear();
  if (KindModelOf(group).writes_cache())
    for (int o = 0; o < static_cast<int>(MappingOf(group).outputs.size()); ++o) {
      const WriterDesc& desc = MappingOf(group).outputs[o].writer;
      if (!desc.writes) continue;
      OutputWriter w;
      w.output = o;
      w.kind = WriterFor(group, o);
      w.gate_group = WriterGateGroupIndex(s, group, o);
      w.skips_dummies = desc.dummies == WriterDummies::kSkip || !desc.token_skip.empty();
      w.job = WriterJobFor(group, o, nullptr, s.batch.num_tokens, static_cast<int32_t>(step->group));
      step->writers.push_back(w);
    }
  step->cache = CacheGeometry(s, group, writers.head_bytes);
  // A per-request kind (state indices, block operations) has no KV pool:
  // its consumers' writes are judged from the indices (state_writes).
  step->writes =
      writers.head_bytes > 0 && KindModelOf(group).writes_cache() && CacheFits(step->cache, writers.max_cache_bytes);
}

void WriteAbsent(const Batch& batch, GateAbsent rule, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(batch.num_tokens));
  WriteDefaultGateMapping(batch, out->data(), rule);
}

/// The provider's reason not to take the scenario, as "group NAME: why".
std::string SkipOf(const ScenarioPlan& plan, const MappingProvider& provider) {
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    if (plan.steps[k].runner != StepRunner::kProvider) continue;
    std::string why = CannotTake(provider, plan.scenario->batch);
    if (why.empty()) why = provider.SkipReason(plan, k);
    if (!why.empty()) return "group " + plan.scenario->groups[plan.steps[k].group].name + ": " + why;
  }
  return "";
}

}  // namespace

MappingBatch ScenarioPlan::HostBatch() const {
  return HostMappingBatch(scenario->batch, provided ? &arrays : nullptr);
}

void BuildPlan(const Scenario& s, const PlanOptions& options, ScenarioPlan* plan) {
  const MappingProvider* provider = options.provider;
  plan->scenario = &s;
  plan->skip.clear();
  plan->provided = false;
  plan->host_only = false;
  const std::vector<size_t> order = RunOrder(s);
  plan->steps.resize(order.size());
  plan->step_of_group.assign(s.groups.size(), -1);
  bool absent[2] = {false, false};
  for (size_t k = 0; k < order.size(); ++k) {
    PlanStep& step = plan->steps[k];
    const Group& group = s.groups[order[k]];
    step.group = order[k];
    step.runner = RunnerOf(group, provider);
    step.outputs = OutputCount(group);
    step.output_length = std::max<int64_t>(0, OutputLength(group, s.batch));
    step.reads_group = ReadsAnotherGroup(group.family);
    const LinkDesc& gate = MappingOf(group).gate;
    step.gate_group = gate.present() ? GateGroupIndex(s, group) : -1;
    step.gate_absent = gate.present() && step.gate_group < 0 && step.runner != StepRunner::kDescription;
    step.absent_rule = gate.absent;
    if (step.gate_absent) absent[static_cast<int>(gate.absent)] = true;
    plan->step_of_group[order[k]] = static_cast<int32_t>(k);
    plan->provided |= step.runner == StepRunner::kProvider;
    plan->host_only |= step.runner == StepRunner::kDescription || !KindModelOf(group).runs_on_gpu();
    PlanWriter(s, options.writers, &step);
    for (const OutputWriter& w : step.writers) plan->host_only |= options.writers.head_bytes > 0 && w.masked();
  }
  plan->waves = AssignWaves(&plan->steps, plan->step_of_group);
  const bool gather = provider && s.batch.table_rows == TableRows::kIdxMapping && !provider->reads_persistent_tables();
  for (PlanStep& step : plan->steps) PlanTable(s, step, gather && step.runner == StepRunner::kProvider, &step.table);
  if (plan->provided) {
    plan->skip = SkipOf(*plan, *provider);
    if (!plan->skip.empty()) return;
    plan->arrays = ProviderArrays(s.batch);
  }
  for (int rule = 0; rule < 2; ++rule) {
    if (absent[rule]) WriteAbsent(s.batch, static_cast<GateAbsent>(rule), &plan->absent_gate[rule]);
    else plan->absent_gate[rule].clear();
  }
  if (!options.lay_out_tables) return;
  for (size_t k = 0; k < plan->steps.size(); ++k) {
    PlannedTable& table = plan->steps[k].table;
    table.memory.resize(static_cast<size_t>(table.shape.entries));
    LayOutStepTable(*plan, k, table.memory.data());
  }
}

bool ApplyOutcome(const StepCall& call, std::vector<GroupOutputs>* outputs) {
  const size_t groups = call.plan->scenario->groups.size();
  switch (call.outcome) {
    case StepCall::Outcome::kRan:
      return true;
    case StepCall::Outcome::kSkip:
      MarkSkipped(call.message, groups, outputs);
      return false;
    case StepCall::Outcome::kNotRun:
      MarkNotRun(call.message, groups, outputs);
      return false;
    case StepCall::Outcome::kFault:
      break;
  }
  const size_t culprit = call.culprit < call.steps.size() ? call.plan->steps[call.steps[call.culprit].step].group : SIZE_MAX;
  MarkFaulted(call.message, groups, outputs, culprit);
  return false;
}

void LayOutStepTable(const ScenarioPlan& plan, size_t step, int32_t* out, const TableShape* shape) {
  const Scenario& s = *plan.scenario;
  const PlanStep& p = plan.steps[step];
  const Group& group = s.groups[p.group];
  LayOutTable(s.table_layout, s.num_blocks, group, p.table.gathered ? p.table.gathered_table : group.table,
              shape ? *shape : p.table.shape, out);
}

}  // namespace slotguard
