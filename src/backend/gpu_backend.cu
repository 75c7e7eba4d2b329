// The GPU backend: plans each scenario and runs the plans on the GPU
// executor (backend/gpu_packed.h); a plan only the host can run (a
// description's step, a writer test that reads another group) runs on the
// host executor; graph replays run one plan inside a capture
// (backend/gpu_graph_replays.h).
#include <algorithm>
#include <memory>
#include <mutex>

#include "backend/backend.h"
#include "backend/cuda_check.h"
#include "backend/gpu_device.h"
#include "backend/gpu_graph_replays.h"
#include "backend/gpu_packed.h"
#include "backend/host_executor.h"
#include "util/parallel_for.h"

namespace slotguard {
namespace {

// Runs body(stream) on a stream of its own, destroyed after.
template <class Body>
bool OnOwnStream(std::string* err, Body body) {
  cudaStream_t stream;
  SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
  const bool ok = body(stream);
  const cudaError_t destroyed = cudaStreamDestroy(stream);
  if (ok && destroyed != cudaSuccess) {
    *err = CudaErrorText("cudaStreamDestroy", destroyed);
    return false;
  }
  return ok;
}

class GpuBackend : public Backend {
 public:
  const char* name() const override { return "gpu"; }
  bool Batches() const override { return true; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    ScenarioPlan plan;
    Plan(scenario, &plan);
    if (plan.host_only) return RunOnHost({&plan}, {outputs}, 1, err);
    PackedBuffers buffers;
    return OnOwnStream(err, [&](cudaStream_t stream) {
      return RunPacked({PackedRun{&plan, outputs}}, Execution(1), stream, &buffers, err);
    });
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    // With the writers, one scenario at a time (each group's pool is up to
    // --max-cache-mib of device memory).
    if (writers_.head_bytes > 0) return Backend::RunMany(scenarios, outputs, err, threads);
    outputs->resize(scenarios.size());
    std::vector<ScenarioPlan> plans(scenarios.size());
    ParallelFor(scenarios.size(), threads, [&](size_t i) { Plan(*scenarios[i], &plans[i]); });
    std::vector<const ScenarioPlan*> device, host;
    std::vector<std::vector<GroupOutputs>*> device_out, host_out;
    for (size_t i = 0; i < plans.size(); ++i) {
      (plans[i].host_only ? host : device).push_back(&plans[i]);
      (plans[i].host_only ? host_out : device_out).push_back(&(*outputs)[i]);
    }
    if (!host.empty() && !RunOnHost(host, host_out, threads, err)) return false;
    if (device.empty()) return true;
    return provider_ ? RunSliced(device, device_out, threads, err) : RunOneStream(device, device_out, threads, err);
  }

  bool RunReplays(const GraphSequence& sequence, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    if (!sequence.batches.empty()) {
      ScenarioPlan plan;
      Plan(sequence.batches[0], &plan);
      if (plan.host_only) return Host().RunReplays(sequence, outputs, err);
    }
    return OnOwnStream(err, [&](cudaStream_t stream) {
      return RunGraphReplays(sequence, Options(false), provider_.get(), stream, outputs, err);
    });
  }

 private:
  // Tables laid out in the plan only for the host executor: the GPU
  // executor lays them out in its staging memory.
  void Plan(const Scenario& scenario, ScenarioPlan* plan) const {
    BuildPlan(scenario, Options(false), plan);
    if (plan->host_only) BuildPlan(scenario, Options(true), plan);
  }
  PlanOptions Options(bool lay_out) const {
    PlanOptions o;
    o.provider = provider_.get();
    o.writers = writers_;
    o.lay_out_tables = lay_out;
    return o;
  }
  PackedExecution Execution(int threads) const {
    PackedExecution how;
    how.provider = provider_.get();
    how.writers = writers_;
    how.threads = threads;
    return how;
  }

  bool RunOnHost(const std::vector<const ScenarioPlan*>& plans, const std::vector<std::vector<GroupOutputs>*>& outputs,
                 int threads, std::string* err) {
    std::vector<HostRun> runs;
    for (size_t i = 0; i < plans.size(); ++i) runs.push_back(HostRun{plans[i], outputs[i]});
    HostExecution how;
    how.provider = provider_.get();
    how.writers = writers_;
    how.threads = threads;
    return ExecuteOnHost(runs, how, err);
  }

  Backend& Host() {
    std::lock_guard<std::mutex> lock(host_mu_);
    if (!host_) host_ = MakeHostBackend();
    // Configured as this one is (set before any run: only changed when it was).
    if (host_->writers().head_bytes != writers_.head_bytes || host_->writers().max_cache_bytes != writers_.max_cache_bytes)
      host_->set_writers(writers_);
    if (host_->provider() != provider_) host_->set_provider(provider_);
    return *host_;
  }
  std::mutex host_mu_;
  std::unique_ptr<Backend> host_;

  // slotguard's own kernels only: one stream, one launch per family and wave.
  bool RunOneStream(const std::vector<const ScenarioPlan*>& plans,
                    const std::vector<std::vector<GroupOutputs>*>& outputs, int threads, std::string* err) {
    std::vector<PackedRun> runs;
    for (size_t i = 0; i < plans.size(); ++i) runs.push_back(PackedRun{plans[i], outputs[i]});
    std::lock_guard<std::mutex> lock(many_mu_);
    return OnOwnStream(err, [&](cudaStream_t stream) { return RunPacked(runs, Execution(threads), stream, &many_, err); });
  }
  std::mutex many_mu_;
  PackedBuffers many_;

  // Another implementation's calls are launched one by one from the host:
  // the plans split over up to kProviderStreams streams, each packed,
  // enqueued and synchronized on its own thread.
  bool RunSliced(const std::vector<const ScenarioPlan*>& plans, const std::vector<std::vector<GroupOutputs>*>& outputs,
                 int threads, std::string* err) {
    constexpr size_t kProviderStreams = 8;
    const size_t parts = std::clamp<size_t>(std::min<size_t>(threads, kProviderStreams), 1,
                                            std::max<size_t>(1, plans.size() / 64));
    std::lock_guard<std::mutex> lock(provider_mu_);
    while (provider_buffers_.size() < parts) provider_buffers_.push_back(std::make_unique<PackedBuffers>());
    const size_t per = (plans.size() + parts - 1) / parts;
    std::vector<std::string> errors(parts);
    std::vector<char> ok(parts, 1);
    ParallelFor(parts, static_cast<int>(parts), [&](size_t part) {
      std::vector<PackedRun> runs;
      for (size_t i = part * per; i < std::min(plans.size(), (part + 1) * per); ++i)
        runs.push_back(PackedRun{plans[i], outputs[i]});
      ok[part] = OnOwnStream(&errors[part], [&](cudaStream_t stream) {
        return RunPacked(runs, Execution(1), stream, provider_buffers_[part].get(), &errors[part]);
      });
    });
    for (size_t part = 0; part < parts; ++part)
      if (!ok[part]) {
        *err = errors[part];
        return false;
      }
    return true;
  }
  std::mutex provider_mu_;
  std::vector<std::unique_ptr<PackedBuffers>> provider_buffers_;
};

}  // namespace

std::unique_ptr<Backend> MakeGpuBackend(std::string* why) {
  if (!GpuUsable(why)) return nullptr;
  return std::make_unique<GpuBackend>();
}

}  // namespace slotguard
