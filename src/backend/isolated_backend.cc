#include "backend/isolated_backend.h"

#include <algorithm>
#include <mutex>

#include "backend/worker_messages.h"
#include "backend/run_in_slices.h"
#include "util/child_process.h"
#include "util/process_pool.h"
#include "util/running_group.h"

namespace slotguard {
namespace {

/// A worker process (util/process_pool.h): its page says which group's
/// provider call it is in (util/running_group.h).
using Worker = PooledProcess;

class IsolatedBackend : public Backend {
 public:
  // Spares from the first lost worker on: a GPU worker's start is a CUDA
  // context, and most runs lose none.
  explicit IsolatedBackend(IsolationOptions options)
      : options_(std::move(options)), pool_([this](std::string* err, std::atomic<int>*) { return Spawn(err); }, 1, /*eager=*/false) {}
  const char* name() const override { return options_.backend_name.c_str(); }
  bool Batches() const override { return options_.backend_name == "gpu"; }  // the worker's backend does

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    std::vector<std::vector<GroupOutputs>> results;
    std::string fault;
    size_t culprit = SIZE_MAX;
    if (!Request(WorkerOp::kRun, {&scenario}, &results, &fault, err, 1, nullptr, &culprit)) return false;
    if (!fault.empty()) {
      MarkFaulted(fault, scenario.groups.size(), outputs, culprit);  // a culprit out of range marks none
      return true;
    }
    if (results.size() != 1) return Malformed(err);
    *outputs = std::move(results[0]);
    return true;
  }

  bool RunReplays(const GraphSequence& sequence, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    std::vector<const Scenario*> pointers;
    for (const Scenario& s : sequence.batches) pointers.push_back(&s);
    std::string fault;
    size_t culprit = SIZE_MAX;
    if (!Request(WorkerOp::kRunReplays, pointers, outputs, &fault, err, 1, nullptr, &culprit, sequence.steps))
      return false;
    if (!fault.empty()) {  // one step's worth of faulted groups: which step is not known
      outputs->assign(1, {});
      MarkFaulted(fault, sequence.batches.empty() ? 0 : sequence.batches[0].groups.size(), &(*outputs)[0], culprit);
    }
    return true;
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    // A chunk split over up to `threads` workers at once: the requests'
    // encoding, the pipes and the workers' decoding run side by side.
    constexpr size_t kMinPerWorker = 256;
    const size_t parts = std::clamp<size_t>(threads, 1, std::max<size_t>(1, scenarios.size() / kMinPerWorker));
    if (parts == 1) return RunOnOneWorker(scenarios, outputs, err, threads);
    return RunInSlices(
        scenarios, parts,
        [&](size_t, const std::vector<const Scenario*>& slice, std::vector<std::vector<GroupOutputs>>* out,
            std::string* e) { return RunOnOneWorker(slice, out, e, 1); },
        outputs, err);
  }

 private:
  bool RunOnOneWorker(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
                      std::string* err, int threads) {
    if (scenarios.size() <= 1) {
      outputs->resize(scenarios.size());
      return scenarios.empty() || Run(*scenarios[0], &(*outputs)[0], err);
    }
    std::string fault;
    bool timed_out = false;
    if (!Request(WorkerOp::kRunMany, scenarios, outputs, &fault, err, threads, &timed_out)) return false;
    if (fault.empty()) return outputs->size() == scenarios.size() || Malformed(err);
    if (timed_out) {
      // A hang: each scenario on its own, with its own --timeout, so that
      // the hang costs about one timeout more, not one per bisection level.
      outputs->assign(scenarios.size(), {});
      for (size_t i = 0; i < scenarios.size(); ++i)
        if (!Run(*scenarios[i], &(*outputs)[i], err)) return false;
      return true;
    }
    // A crash: the chunk bisected, each half in a fresh worker when the
    // last one died, down to the scenario.
    const size_t half = scenarios.size() / 2;
    const std::vector<const Scenario*> first(scenarios.begin(), scenarios.begin() + half),
        second(scenarios.begin() + half, scenarios.end());
    std::vector<std::vector<GroupOutputs>> a, b;
    if (!RunOnOneWorker(first, &a, err, threads) || !RunOnOneWorker(second, &b, err, threads)) return false;
    outputs->clear();
    for (auto& o : a) outputs->push_back(std::move(o));
    for (auto& o : b) outputs->push_back(std::move(o));
    return true;
  }

  bool Malformed(std::string* err) const {
    *err = "the worker process answered with a malformed response";
    return false;
  }

  // Sends one request to a worker and reads its answer. A fault (the
  // kernel's, or the worker dying or timing out: *timed_out) fills *fault
  // and still returns true, with *culprit the group whose provider call was
  // in flight when the worker died (SIZE_MAX: none known); false is an
  // environment error. The deadline is one --timeout for the request, a
  // chunk of a batched campaign included (it runs in far less than one
  // scenario's budget).
  bool Request(WorkerOp op, const std::vector<const Scenario*>& scenarios,
               std::vector<std::vector<GroupOutputs>>* results, std::string* fault, std::string* err,
               int threads = 1, bool* timed_out_out = nullptr, size_t* culprit = nullptr,
               const std::vector<GraphStep>& steps = {}) {
    std::unique_ptr<Worker> worker = pool_.Acquire(err);
    if (!worker) return false;
    worker->page.Clear();
    WireBuffer request;
    PutWorkerRequest(op, writers_, threads, scenarios, &request, steps);
    WireBuffer response;
    bool timed_out = false;
    const int64_t timeout_ms64 =
        options_.timeout_seconds > 0 ? static_cast<int64_t>(std::min<double>(options_.timeout_seconds * 1000.0, INT32_MAX))
                                     : -1;
    const int timeout_ms = static_cast<int>(timeout_ms64);
    if (!WriteFrame(worker->child.to, request, timeout_ms, &timed_out) ||
        !ReadFrame(worker->child.from, timeout_ms, &response, &timed_out)) {
      *fault = Ended(worker.get(), timed_out);
      if (timed_out_out) *timed_out_out = timed_out;
      const int64_t running = worker->page.Read();
      if (culprit && running >= 0) *culprit = static_cast<size_t>(running);
      return true;  // the worker is gone; the next request starts another
    }
    WorkerStatus status;
    std::string message;
    if (!GetWorkerResponse(&response, &status, &message, results)) return Malformed(err);
    if (status == WorkerStatus::kFault) {  // a device fault, seen at a synchronization after the launches
      *fault = message;
      const int64_t last = worker->page.LastStarted();
      if (culprit && last >= 0) *culprit = static_cast<size_t>(last);
      Ended(worker.get(), false);
      return true;
    }
    if (status != WorkerStatus::kOk) {
      *err = message;
      pool_.Release(std::move(worker));
      return false;
    }
    pool_.Release(std::move(worker));
    return true;
  }

  // Reaps a worker that stopped answering and says how it ended.
  std::string Ended(Worker* worker, bool timed_out) {
    const std::string how = worker->child.Ended(timed_out);
    pool_.Lost();
    if (timed_out)
      return "timed out after " + std::to_string(static_cast<int64_t>(options_.timeout_seconds)) +
             " s (--timeout); the worker process was killed";
    return "the worker process " + how;
  }

  std::unique_ptr<Worker> Spawn(std::string* err) {
    const std::string& exe = WorkerExecutable();
    if (exe.empty()) {
      *err = "fault isolation needs the slotguard executable, and none is registered";
      return nullptr;
    }
    ChildOptions child;
    child.argv = {exe};
    child.argv.insert(child.argv.end(), options_.worker_args.begin(), options_.worker_args.end());
    auto worker = std::make_unique<Worker>();
    std::string no_page;  // without it a crash is blamed on the scenario's first group
    if (worker->page.Create(&no_page)) child.shared_fd = worker->page.fd();
    if (!SpawnChild(child, &worker->child, err)) {
      *err = "could not start the worker process: " + *err;
      return nullptr;
    }
    return worker;
  }

  IsolationOptions options_;
  ProcessPool pool_;  // last: destroyed (its spare thread stopped) first
};

}  // namespace

std::unique_ptr<Backend> MakeIsolatedBackend(const IsolationOptions& options) {
  return std::make_unique<IsolatedBackend>(options);
}

}  // namespace slotguard
