// Slot-mapping implementations slotguard did not write (issue: bring your own
// kernel): a plugin library (--kernel-lib, include/slotguard/plugin.h), a
// compiled kernel with a launch spec (--kernel-cubin, --kernel-spec) or a
// provider process (--kernel-cmd). All three are this one interface over the
// steps of scenario plans (plan/scenario_plan.h): the planner asks which
// groups it runs and whether it takes a scenario; an executor (the host
// loop, the GPU packer, a graph capture) hands it the plan steps it runs,
// many scenarios' at once, with the plan's own buffers, and it writes its
// outputs there.
#ifndef SLOTGUARD_PLAN_MAPPING_PROVIDER_H_
#define SLOTGUARD_PLAN_MAPPING_PROVIDER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/mapping_batch.h"
#include "kernels/table_view.h"
#include "registry/families.h"
#include "scenario/scenario.h"

namespace slotguard {

struct ScenarioPlan;

/// One plan step's arguments as the executor holds them: host pointers on
/// the host backend, device pointers on the GPU.
struct StepArgs {
  size_t step = 0;           // index in plan->steps
  TableLayout table;         // the step's table, laid out as the plan says
  MappingOutputs out;        // the plan's output buffers, [num_tokens] each (tail: the second of two)
  const int64_t* gate = nullptr;  // the mapping the family's gate reads, or nullptr (no gate)
  // When that mapping is the output of an earlier step of the same batch of
  // calls (a step the provider runs, in the same wave): that step's group.
  // A provider that runs calls in the order given may read `gate`; one that
  // answers them together (a provider process) resolves it itself.
  int32_t gate_group = -1;
};

/// One call: one step, or for a provider that takes whole scenarios, every
/// step it runs of one wave of one scenario, in run order.
struct StepCall {
  const ScenarioPlan* plan = nullptr;
  MappingBatch batch;        // inputs: seq_lens_i32 and request_of_token set; rows_by_idx_mapping as its tables are read
  std::vector<StepArgs> steps;
  void* stream = nullptr;    // a device call's stream (the executor's); nullptr on the host

  // What the provider made of it.
  // kNotRun: never handed to the implementation, because the stop
  // (MappingProvider::set_stop) was asked first.
  enum class Outcome : uint8_t { kRan, kFault, kSkip, kNotRun };
  Outcome outcome = Outcome::kRan;
  std::string message;       // kFault, kSkip, kNotRun: one line, naming the group
  size_t culprit = 0;        // kFault: the index in `steps` of the step that failed
};

class MappingProvider {
 public:
  virtual ~MappingProvider() = default;
  /// For reports: "plugin example-rings (build/examples/libx.so)".
  virtual std::string name() const = 0;
  virtual const std::vector<Family>& families() const = 0;
  bool Implements(Family family) const {
    for (Family f : families())
      if (f == family) return true;
    return false;
  }
  /// Whether it runs this group: it replaces slotguard's `fixed` kernel of
  /// its families. A group forcing a historical variant still runs
  /// slotguard's variant: those scenarios test the oracle, not the kernel.
  bool Runs(Family family, Variant variant) const { return Implements(family) && variant == FixedVariant(family); }
  /// Whether it can read a persistent block table (format 2's
  /// batch.table_rows "idx_mapping") and int64 seq_lens: plugin ABI 2 and
  /// spec 2 can. One that cannot is handed the table gathered per request,
  /// as the v1 runner built it (plan/table_memory.h GatheredTable), and a
  /// batch whose seq_lens pass INT32_MAX is skipped.
  virtual bool reads_persistent_tables() const { return true; }
  virtual bool has_host() const = 0;
  virtual bool has_device() const = 0;
  /// Whether it takes all its steps of a scenario's wave in one call (a
  /// kernel launched over every KV-cache group at once, as vLLM v2's is).
  virtual bool takes_whole_scenarios() const { return false; }
  /// Whether it is much faster given many scenarios' calls at once (a
  /// provider process: one message for many): a campaign then hands the
  /// backend chunks of scenarios.
  virtual bool prefers_batches() const { return false; }

  /// Why it does not take step `step` of this scenario's plan (one it
  /// runs), or "" when it does: a compiled kernel specialized for another
  /// ring size, a launch precondition (`num_reqs >= 1`) under which the
  /// engine's launcher would route the batch elsewhere. The plan's steps
  /// and tables are decided (not laid out); a whole-scenario provider may
  /// look at all its steps. Such a scenario is reported as skipped ("group
  /// NAME: why"), never as a finding.
  virtual std::string SkipReason(const ScenarioPlan& plan, size_t step) const {
    (void)plan;
    (void)step;
    return "";
  }

  /// Runs `calls` (many scenarios' steps of one wave; a scenario's calls in
  /// run order) and fills each call's outcome: its own failure is a fault
  /// of its scenario, never of the run. `device`: device pointers, each
  /// call's stream; calls may be enqueued before the executor synchronizes,
  /// so device memory a call needs must stay valid until the stream's work
  /// is done. `threads`: how many calls may run side by side. False with
  /// *err only on an environment failure (a provider process that cannot
  /// be started again).
  virtual bool RunCalls(std::vector<StepCall>* calls, bool device, int threads, std::string* err) = 0;

  /// A campaign's stop (its deadline, SIGINT, SIGTERM), asked while
  /// RunCalls hands work out: once it says true, calls not yet handed to
  /// the implementation are left kNotRun, so a stop waits for the messages
  /// in flight, not for a whole chunk. Only an implementation whose calls
  /// are slow to come back (a provider process) asks it; nullptr: none.
  void set_stop(std::function<bool()> stop) { stop_ = std::move(stop); }

 protected:
  bool StopAsked() const { return stop_ && stop_(); }

 private:
  std::function<bool()> stop_;
};

}  // namespace slotguard

#endif  // SLOTGUARD_PLAN_MAPPING_PROVIDER_H_
