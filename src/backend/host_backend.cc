// The host backend: plans each scenario and runs the plans on the host
// executor (backend/host_executor.h).
#include "backend/backend.h"
#include "backend/host_executor.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

class HostBackend : public Backend {
 public:
  explicit HostBackend(const char* name) : name_(name) {}
  const char* name() const override { return name_; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    thread_local ScenarioPlan plan;  // its storage reused: a campaign calls Run from several threads
    BuildPlan(scenario, Options(), &plan);
    return ExecuteOnHost({HostRun{&plan, outputs}}, Execution(/*threads=*/1), err);
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    outputs->resize(scenarios.size());  // storage of an earlier chunk reused; every run rewrites its own
    std::vector<ScenarioPlan> plans(scenarios.size());
    std::vector<HostRun> runs(scenarios.size());
    ParallelFor(scenarios.size(), threads, [&](size_t i) {
      BuildPlan(*scenarios[i], Options(), &plans[i]);
      runs[i] = HostRun{&plans[i], &(*outputs)[i]};
    });
    return ExecuteOnHost(runs, Execution(threads), err);
  }

  // The graph's sequence run eagerly: one plan per batch run on the same
  // buffers, the engine geometry only; the outputs and pools persist. The
  // capture records nothing here; a zeroing writes block 0's bytes.
  bool RunReplays(const GraphSequence& sequence, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    outputs->clear();
    if (sequence.steps.empty()) return true;
    const std::string problem = sequence.Problem();
    if (!problem.empty()) {
      *err = problem;
      return false;
    }
    std::vector<GroupOutputs> state;
    HostExecution how = Execution(1);
    how.flat = false;
    bool started = false;  // the state holds the buffers
    std::vector<ScenarioPlan> plans(sequence.batches.size());
    for (size_t k = 0; k < plans.size(); ++k) BuildPlan(sequence.batches[k], Options(), &plans[k]);
    for (const GraphStep& step : sequence.steps) {
      ScenarioPlan& plan = plans[step.batch];
      if (step.kind == GraphStep::Kind::kCapture || step.kind == GraphStep::Kind::kZeroNull) {
        if (!plan.skip.empty()) {
          MarkSkipped(plan.skip, sequence.batches[step.batch].groups.size(), &state);
          outputs->push_back(state);
          break;
        }
        if (!started) ResetOnHost(plan, how, &state);
        started = true;
        if (step.kind == GraphStep::Kind::kZeroNull) ZeroNullBlocksOnHost(plan, &state);
        outputs->push_back(state);
        continue;
      }
      how.reset = !started;
      if (!ExecuteOnHost({HostRun{&plan, &state}}, how, err)) return false;
      started = true;
      outputs->push_back(state);
      if (!state.empty() && (!state[0].fault.empty() || !state[0].skipped.empty())) break;
    }
    return true;
  }

 private:
  PlanOptions Options() const {
    PlanOptions o;
    o.provider = provider_.get();
    o.writers = writers_;
    return o;
  }
  HostExecution Execution(int threads) const {
    HostExecution how;
    how.provider = provider_.get();
    how.writers = writers_;
    how.threads = threads;
    return how;
  }

  const char* name_;
};

}  // namespace

std::unique_ptr<Backend> MakeHostBackend(const char* name) { return std::make_unique<HostBackend>(name); }

}  // namespace slotguard
