// The scenario plan: the one place that decides a group's pass. Built once
// per scenario, it says for each group, in run order, what every executor
// then only carries out (the host loop, the GPU packer of many plans, a
// CUDA-graph capture, and through them a plugin, a compiled kernel or a
// provider process):
//
//   - the run order: a group after the group whose output its gate reads;
//   - who computes it: slotguard's own kernel, its family description's
//     interpretation (no kernel of slotguard's for the variant), or the
//     implementation under test (MappingProvider::Runs);
//   - its output count: the family's (never whether a buffer is there: a
//     scenario of no tokens has empty ones);
//   - its table: the group's own or gathered per request, its shape in the
//     scenario's layout, and (on the host) the table laid out;
//   - the common source its gate reads: another group's output 0, or the
//     description's absent rule;
//   - its wave: the executors run slotguard's steps of wave w, then hand the
//     implementation its steps of wave w in one batch; a step of
//     slotguard's that reads one of the implementation's starts the next;
//   - its writer job: whether its pool exists, its geometry and writer, and
//     the group whose output the writers' skip test reads.
//
// The plan also says whether the implementation takes the scenario at all
// (a skip) and whether only the host executor can run it.
#ifndef SLOTGUARD_PLAN_SCENARIO_PLAN_H_
#define SLOTGUARD_PLAN_SCENARIO_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "family/family_desc.h"
#include "kernels/mapping_batch.h"
#include "plan/batch_arrays.h"
#include "plan/group_outputs.h"
#include "plan/mapping_provider.h"
#include "plan/table_memory.h"
#include "scenario/scenario.h"
#include "writers/writer_launch.h"

namespace slotguard {

/// Who computes a step.
enum class StepRunner : uint8_t {
  kOwnKernel,    // slotguard's kernel of the family's variant
  kDescription,  // the description's interpretation (host only)
  kProvider,     // the implementation under test
};

/// A step's table: which one, and where its entries go.
struct PlannedTable {
  bool gathered = false;        // GatheredTable(), read by request (a provider that cannot read persistent tables)
  BlockTable gathered_table;    // with `gathered`
  TableShape shape;
  int32_t width = 0, rows = 0;  // of the table the kernel reads
  std::vector<int32_t> memory;  // [shape.entries], when the plan laid it out (PlanOptions::lay_out_tables)
  /// The kernel's view of `memory`, or of its copy at `data`.
  TableLayout View(const int32_t* data) const { return ViewOf(data, shape, width, rows); }
  TableLayout View() const { return View(memory.data()); }
};

/// One output's writer: it writes the group's pool from output `output`,
/// skipping the tokens the description's writer skips whatever their slot:
/// a writer gate over group gate_group's output 0, and (skips_dummies) a
/// dummy request's tokens or those its own token test skips.
struct OutputWriter {
  int output = 0;
  WriterKind kind = WriterKind::kPaged;
  int32_t gate_group = -1;
  bool skips_dummies = false;
  WriterJob job;  // its tokens, group, skip rule and negative landing; slot_mapping unset (Job())
  /// True when the writer needs a per-token skip mask (WriterSkips).
  bool masked() const { return gate_group >= 0 || skips_dummies; }
  /// The job over `slots` (the step's output `output` wherever it lives).
  WriterJob Job(const int64_t* slots) const {
    WriterJob j = job;
    j.slot_mapping = slots;
    return j;
  }
};

struct PlanStep {
  size_t group = 0;             // its index in scenario.groups
  StepRunner runner = StepRunner::kOwnKernel;
  int outputs = 1;              // the family's output count
  // Elements of each output (OutputLength): num_tokens for a slot mapping,
  // per request for a state index or block operations; never inferred from
  // a buffer being set (a scenario of no tokens has outputs of none).
  int64_t output_length = 0;
  int wave = 0;
  bool reads_group = false;     // its family reads another group's output (launched after those that do not)
  // The common source of its gate: group gate_group's output 0; else, with
  // gate_absent, ScenarioPlan::AbsentGate(absent_rule); else none (no gate,
  // or a description, which applies its absent rule itself).
  int32_t gate_group = -1;
  bool gate_absent = false;
  GateAbsent absent_rule = GateAbsent::kPadDummies;
  PlannedTable table;
  // The writer jobs: with `writes`, the group's pool (`cache`, bytes unset)
  // is written by each output's writer that writes (OutputWriter).
  bool writes = false;
  CacheView cache;
  std::vector<OutputWriter> writers;  // in output order; an output nothing writes through has none
};

struct ScenarioPlan {
  const Scenario* scenario = nullptr;
  std::vector<PlanStep> steps;          // run order
  std::vector<int32_t> step_of_group;   // [group] -> its index in steps
  int waves = 1;
  // Non-empty when the implementation does not take the scenario ("group
  // NAME: why"): nothing runs, the scenario is reported as skipped.
  std::string skip;
  bool provided = false;                // a step runs on the implementation
  // A step runs its description or is of a per-request kind (a state
  // index, block operations: no kernel of slotguard's), or (writers on) a
  // writer test reads another group: only the host executor runs such a plan.
  bool host_only = false;
  ProviderArrays arrays;                // when provided: seq_lens_i32, request_of_token
  // The absent rules' mappings (num_tokens each), when a step reads one.
  std::vector<int64_t> absent_gate[2];

  const PlanStep& StepOf(size_t group) const { return steps[static_cast<size_t>(step_of_group[group])]; }
  const std::vector<int64_t>& AbsentGate(GateAbsent rule) const { return absent_gate[static_cast<int>(rule)]; }
  /// The batch with host pointers (the provider's arrays included when provided).
  MappingBatch HostBatch() const;
};

struct PlanOptions {
  const MappingProvider* provider = nullptr;  // the implementation under test, or nullptr
  WriterOptions writers;
  bool lay_out_tables = true;  // fill PlannedTable::memory (the host executor); else shapes only
};

/// Plans `scenario` (which must outlive the plan). Reuses plan's storage.
void BuildPlan(const Scenario& scenario, const PlanOptions& options, ScenarioPlan* plan);

/// Writes step `step`'s table (plan.steps[step]) laid out at `out`
/// (shape.entries entries): for an executor that lays tables out in memory
/// of its own (pinned staging, a graph's persistent buffer). With `shape`,
/// into that shape instead of the step's own (a covering one).
void LayOutStepTable(const ScenarioPlan& plan, size_t step, int32_t* out, const TableShape* shape = nullptr);

/// A call's outcome on its scenario's outputs: a fault (on the failing
/// step's group) or a skip replaces them. True when the call ran.
bool ApplyOutcome(const StepCall& call, std::vector<GroupOutputs>* outputs);

/// The provider's steps of wave `wave` as calls: one per step, or one per
/// scenario for a provider that takes whole scenarios. `args(step)` gives
/// a step's table, outputs and gate in the executor's memory; the batch is
/// `batch` (the executor's), read as the step's table is.
template <class Args>
void AppendCalls(const ScenarioPlan& plan, int wave, bool whole, const MappingBatch& batch, void* stream, Args args,
                 std::vector<StepCall>* calls) {
  bool opened = false;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& step = plan.steps[k];
    if (step.runner != StepRunner::kProvider || step.wave != wave) continue;
    if (!whole || !opened) {
      calls->emplace_back();
      StepCall& call = calls->back();
      call.plan = &plan;
      call.batch = TableReadBatch(batch, step.table.gathered);
      call.stream = stream;
      opened = true;
    }
    StepArgs a = args(k);
    a.step = k;
    // The gate reads a step of this batch: the provider's own, same wave.
    if (step.gate_group >= 0) {
      const PlanStep& source = plan.StepOf(static_cast<size_t>(step.gate_group));
      if (source.runner == StepRunner::kProvider && source.wave == wave) a.gate_group = step.gate_group;
    }
    calls->back().steps.push_back(a);
  }
}

}  // namespace slotguard

#endif  // SLOTGUARD_PLAN_SCENARIO_PLAN_H_
