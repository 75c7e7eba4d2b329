#include "plugin/provider_processes.h"

#include <algorithm>
#include <iostream>
#include <mutex>
#include <thread>

#include "plan/scenario_plan.h"
#include "util/error_line.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

constexpr size_t kMaxPerMessage = 256;  // scenarios per message
constexpr int kMaxStalls = 3;           // messages in a row of which nothing was answered

/// Threads that start spare providers side by side: a quarter of the
/// cores (a start is mostly one core's work: Python imports, a CUDA
/// context), at least 1. A provider without its package's fork server (on
/// cuda, one that touched CUDA at import) dies with each crash; one
/// starter would make every other job wait its turn.
int SpareStarters() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 4); }

/// The calls of one scenario in a batch (consecutive): what a message
/// carries together, never split (a record may read an earlier one's output).
struct Unit {
  StepCall* calls = nullptr;
  size_t count = 0;
};

/// What a message did: the units it must send again, and how many of its
/// scenarios a process death was pinned on.
struct MessageResult {
  std::vector<Unit> again;
  // again[0, split) and again[split, ...) go in messages of their own: the
  // scenarios before a call that broke its process (they ran in it, their
  // answers lost with it) and those after it. 0: one message.
  size_t split = 0;
  std::string again_why;  // why they are sent again: "answered \"not run\" (status 3)", "exited ... before ..."
  int deaths = 0;
};

class ProviderProcesses : public MappingProvider {
 public:
  ProviderProcesses(ProviderCommand command, ProviderWelcome welcome)
      : command_(std::move(command)),
        welcome_(std::move(welcome)),
        // The provider's own name: one printable line of at most 200
        // characters; the command as typed, escaped (neither forges a line).
        name_("provider " + ForeignText(welcome_.name) + " (" + EscapeText(command_.command, 0) + ")"),
        pool_([this](std::string* err, std::atomic<int>* pid) { return Restart(err, pid); }, 1, /*eager=*/true,
              SpareStarters()) {}

  std::string name() const override { return name_; }
  const std::vector<Family>& families() const override { return welcome_.families; }
  bool has_host() const override { return true; }
  bool has_device() const override { return false; }
  bool takes_whole_scenarios() const override { return welcome_.whole_scenarios; }
  bool prefers_batches() const override { return true; }
  void Adopt(std::unique_ptr<ProviderProcess> first) { pool_.Add(std::move(first)); }

  bool RunCalls(std::vector<StepCall>* calls, bool device, int threads, std::string* err) override {
    if (device) {
      *err = name_ + " runs in its own process: it is handed host memory, never device pointers";
      return false;
    }
    std::vector<Unit> units;
    for (StepCall& call : *calls) {
      if (units.empty() || units.back().calls->plan != call.plan) units.push_back(Unit{&call, 0});
      units.back().count++;
    }
    // Messages of up to kMaxPerMessage scenarios, at least one per thread.
    const size_t jobs = static_cast<size_t>(std::max(1, threads));
    const size_t per = std::clamp<size_t>((units.size() + jobs - 1) / jobs, 1, kMaxPerMessage);
    const size_t messages = (units.size() + per - 1) / per;
    std::mutex mu;
    std::string failure;
    ParallelFor(messages, static_cast<int>(jobs), [&](size_t m) {
      const std::vector<Unit> part(units.begin() + m * per, units.begin() + std::min(units.size(), (m + 1) * per));
      std::string e;
      if (!Send(part, 0, &e)) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.empty()) failure = e;
      }
    });
    *err = failure;
    return failure.empty();
  }

 private:
  std::unique_ptr<PooledProcess> Restart(std::string* err, std::atomic<int>* pid) {
    ProviderWelcome welcome;
    std::unique_ptr<ProviderProcess> p = ProviderProcess::Start(command_, &welcome, err, pid);
    if (!p) {
      *err = "could not restart the provider: " + *err;
      return nullptr;
    }
    if (welcome.whole_scenarios != welcome_.whole_scenarios || welcome.families != welcome_.families) {
      *err = "--kernel-cmd " + QuoteName(command_.command, 0, '"') +
             ": the restarted provider's WELCOME names other families or another mode than its first";
      return nullptr;
    }
    return p;
  }

  /// Sends `units` in one message and whatever a failure sends again. False
  /// on an environment failure (no process can be started).
  bool Send(const std::vector<Unit>& units, uint32_t flags, std::string* err, int stalls = 0) {
    if (units.empty() || LeftForTheStop(units)) return true;
    MessageResult result;
    if (!Message(units, flags, &result, err)) return false;
    // A provider that answers "not run" for every record, every time.
    stalls = result.again.size() == units.size() ? stalls + 1 : 0;
    if (stalls == kMaxStalls) {
      for (const Unit& unit : result.again)
        Fault(unit, result.again_why + ", " + std::to_string(kMaxStalls) + " times in a row");
      return true;
    }
    // Sent again after a loss: a synchronization after each call, so that a
    // device fault is raised by the call that caused it.
    if (result.split > 0 && result.split < result.again.size())
      return Send(std::vector<Unit>(result.again.begin(), result.again.begin() + result.split),
                  flags | kRunSyncEachCall, err) &&
             Send(std::vector<Unit>(result.again.begin() + result.split, result.again.end()), flags | kRunSyncEachCall,
                  err);
    return Send(result.again, flags | kRunSyncEachCall, err, stalls);
  }

  /// When the stop was asked (set_stop): marks `units` not run, and true.
  bool LeftForTheStop(const std::vector<Unit>& units) const {
    if (!StopAsked()) return false;
    for (const Unit& unit : units)
      for (size_t c = 0; c < unit.count; ++c) {
        unit.calls[c].outcome = StepCall::Outcome::kNotRun;
        unit.calls[c].message = "not run: the campaign stopped before " + name_ + " was handed it";
      }
    return true;
  }

  bool Message(const std::vector<Unit>& units, uint32_t flags, MessageResult* result, std::string* err);
  void Answered(const std::vector<Unit>& units, const std::vector<ProviderRecord>& records,
                const std::vector<std::pair<size_t, size_t>>& record_call, const std::vector<ProviderReply>& replies,
                MessageResult* result);
  bool Lost(const std::vector<Unit>& units, const std::vector<std::pair<size_t, size_t>>& record_call,
            const ProviderLoss& loss, uint32_t flags, MessageResult* result, std::string* err);
  void Fault(const Unit& unit, const std::string& how) const;

  ProviderCommand command_;
  ProviderWelcome welcome_;
  std::string name_;
  std::mutex warn_mu_;
  ProcessPool pool_;  // last: destroyed (its spare thread stopped) first
};

/// The records of `units`, and for each record its (unit, call).
std::vector<ProviderRecord> Records(const std::vector<Unit>& units, std::vector<std::pair<size_t, size_t>>* record_call) {
  std::vector<ProviderRecord> records;
  for (size_t u = 0; u < units.size(); ++u)
    for (size_t c = 0; c < units[u].count; ++c) {
      const StepCall& call = units[u].calls[c];
      const ScenarioPlan& plan = *call.plan;
      ProviderRecord r;
      r.scenario = static_cast<uint32_t>(u);
      r.s = plan.scenario;
      r.seq_lens_i32 = &plan.arrays.seq_lens_i32;
      r.request_of_token = &plan.arrays.request_of_token;
      for (const StepArgs& a : call.steps) {
        ProviderGroupInput in;
        in.group = plan.steps[a.step].group;
        in.table = a.table.data;
        in.table_entries = static_cast<uint64_t>(a.table.entries);
        in.table_rows = a.table.rows;
        in.table_width = a.table.width;
        in.table_row_stride = a.table.row_stride;
        in.common_group = a.gate_group;
        in.common = a.gate_group < 0 ? a.gate : nullptr;
        in.outputs[0] = a.out.slot;
        in.outputs[1] = a.out.tail;
        in.output_length = plan.steps[a.step].output_length;
        r.groups.push_back(in);
      }
      records.push_back(std::move(r));
      record_call->emplace_back(u, c);
    }
  return records;
}

bool ProviderProcesses::Message(const std::vector<Unit>& units, uint32_t flags, MessageResult* result,
                                std::string* err) {
  std::vector<std::pair<size_t, size_t>> record_call;
  const std::vector<ProviderRecord> records = Records(units, &record_call);
  std::unique_ptr<PooledProcess> pooled = pool_.Acquire(err);
  if (!pooled) return false;
  ProviderProcess& process = static_cast<ProviderProcess&>(*pooled);
  std::vector<ProviderReply> replies;
  ProviderLoss loss;
  if (process.Run(records, flags, &replies, &loss)) {
    if (process.exiting()) {  // it answered, and goes: a spare takes its place
      pooled.reset();
      pool_.Lost();
    } else {
      pool_.Release(std::move(pooled));
    }
    Answered(units, records, record_call, replies, result);
    return true;
  }
  pooled.reset();  // reaped already
  pool_.Lost();
  return Lost(units, record_call, loss, flags, result, err);
}

void ProviderProcesses::Answered(const std::vector<Unit>& units, const std::vector<ProviderRecord>& records,
                                 const std::vector<std::pair<size_t, size_t>>& record_call,
                                 const std::vector<ProviderReply>& replies, MessageResult* result) {
  std::vector<bool> again(units.size(), false), failed(units.size(), false);
  for (size_t k = 0; k < replies.size(); ++k) {
    const ProviderReply& r = replies[k];
    const auto [u, c] = record_call[k];
    StepCall& call = units[u].calls[c];
    switch (r.status) {
      case ProviderStatus::kOk:
        break;
      case ProviderStatus::kNotRun:
        again[u] = true;
        break;
      case ProviderStatus::kSkip:
        call.outcome = StepCall::Outcome::kSkip;
        call.message = name_ + " skips it: " + ForeignText(r.message);
        failed[u] = true;
        break;
      case ProviderStatus::kError: {
        const Group& g = records[k].s->groups[r.group];
        call.outcome = StepCall::Outcome::kFault;
        call.message = name_ + ": group " + g.name + " (" + GetFamily(g.family).name + ") failed: " + ForeignText(r.message);
        for (size_t s = 0; s < call.steps.size(); ++s)
          if (call.plan->steps[call.steps[s].step].group == r.group) call.culprit = s;
        failed[u] = true;
        break;
      }
    }
  }
  // A provider that answers for a call that broke its process (its fork
  // server, its device context lost) says "not run" for the rest: those
  // before that call go again apart from those after it.
  bool after_failure = false;
  for (size_t u = 0; u < units.size(); ++u) {
    if (failed[u] && !result->again.empty() && result->split == 0) after_failure = true;
    if (again[u] && !failed[u]) {
      if (after_failure && result->split == 0) result->split = result->again.size();
      result->again.push_back(units[u]);
    }
  }
  result->again_why = "answered \"not run\" (status 3)";
}

bool ProviderProcesses::Lost(const std::vector<Unit>& units, const std::vector<std::pair<size_t, size_t>>& record_call,
                             const ProviderLoss& loss, uint32_t flags, MessageResult* result, std::string* err) {
  const uint32_t sync = flags | kRunSyncEachCall;
  if (loss.before_any_call) {  // it died before any call of the message: none is to blame
    result->again = units;
    result->again_why = loss.how + " before running any call";
    return true;
  }
  if (loss.running >= 0 && static_cast<size_t>(loss.running) < record_call.size()) {
    // Its page says whose call killed it: that scenario's fault; the rest again.
    const auto [u, c] = record_call[static_cast<size_t>(loss.running)];
    Fault(Unit{&units[u].calls[c], 1}, loss.how);
    result->deaths = 1;
    // The scenarios before it ran in the dead process, their answers lost
    // with it: sent again in a message of their own, the rest in another.
    // So a provider that dies on its Nth call (whatever the scenario) costs
    // a message one scenario per death, not one per scenario left.
    if (!Send(std::vector<Unit>(units.begin(), units.begin() + u), flags, err)) return false;
    result->again.assign(units.begin() + u + 1, units.end());
    result->again_why = loss.how;
    return true;
  }
  if (units.size() == 1) {
    Fault(units[0], loss.how);
    result->deaths = 1;
    return true;
  }
  // It cannot say: each scenario alone after a hang (one more timeout, not
  // one per level), else halves, each in a fresh process.
  std::vector<std::vector<Unit>> parts;
  if (loss.timed_out) {
    for (const Unit& unit : units) parts.push_back({unit});
  } else {
    const size_t half = units.size() / 2;
    parts = {std::vector<Unit>(units.begin(), units.begin() + half), std::vector<Unit>(units.begin() + half, units.end())};
  }
  int deaths = 0;
  bool left = false;  // parts the stop left unsent: the fault may be in one of them
  for (const std::vector<Unit>& part : parts) {
    if (LeftForTheStop(part)) {
      left = true;
      continue;
    }
    MessageResult sub;
    if (!Message(part, sync, &sub, err) || !Send(sub.again, sync, err)) return false;
    deaths += sub.deaths;
  }
  result->deaths = deaths;
  if (deaths == 0 && !left) {
    std::lock_guard<std::mutex> lock(warn_mu_);
    std::cerr << "slotguard: warning: " << name_ << " " << loss.how << " while running a message of " << units.size()
              << " scenarios; sent again in parts, none of them failed: the fault did not recur\n";
  }
  return true;
}

// The unit's fault, on its first call: "killed by ... while running group
// NAME (family)", every group of its calls named.
void ProviderProcesses::Fault(const Unit& unit, const std::string& how) const {
  std::vector<size_t> groups;
  for (size_t c = 0; c < unit.count; ++c)
    for (const StepArgs& a : unit.calls[c].steps) groups.push_back(unit.calls[c].plan->steps[a.step].group);
  const Scenario& s = *unit.calls[0].plan->scenario;
  std::string text = groups.size() > 1 ? "groups " : "group ";
  for (size_t i = 0; i < groups.size(); ++i)
    text += (i ? ", " : "") + s.groups[groups[i]].name + " (" + GetFamily(s.groups[groups[i]].family).name + ")";
  if (groups.size() > 1 && welcome_.whole_scenarios) text += " (one call)";
  StepCall& call = unit.calls[0];
  call.outcome = StepCall::Outcome::kFault;
  call.message = name_ + " " + how + " while running " + text;
  call.culprit = 0;
}

}  // namespace

std::unique_ptr<MappingProvider> OpenProviderProcesses(const ProviderCommand& command, std::string* err) {
  ProviderWelcome welcome;
  std::unique_ptr<ProviderProcess> first = ProviderProcess::Start(command, &welcome, err);
  if (!first) return nullptr;
  auto processes = std::make_unique<ProviderProcesses>(command, welcome);
  processes->Adopt(std::move(first));
  return processes;
}

}  // namespace slotguard
