// CUDA-graph replays (`check --cuda-graph`): the path where an engine
// dirtied the null block after capture. Like the engine, the graph is
// captured once over persistent buffers with its scalars baked in; every
// replay only changes what those buffers hold.
#include "backend/gpu_graph_replays.h"

#include <algorithm>
#include <memory>

#include "backend/cuda_check.h"
#include "backend/kernel_inputs.h"
#include "kernels/launchers.h"
#include "writers/cache_pool.h"
#include "writers/writer_launch.h"

namespace slotguard {
namespace {

// The graph and its executable, destroyed on scope exit.
struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// The persistent device buffers of the batch.
struct BatchBuffers {
  DeviceBuffer<int32_t> qsl, seq_lens_i32, idx_mapping, request_of_token;
  DeviceBuffer<int64_t> seq_lens, positions, slot_mapping_in, absent[2];
  MappingBatch view;  // the first replay's scalars, these buffers
};

// The persistent device buffers of one plan step.
struct StepBuffers {
  DeviceBuffer<int32_t> table;
  TableShape shape;  // covers every replay's
  DeviceBuffer<int64_t> out[2];
  DeviceBuffer<uint8_t> cache;
  CacheView view;
};

template <class T>
bool CopyIn(const DeviceBuffer<T>& to, const T* from, size_t count, cudaStream_t stream, std::string* err) {
  if (count) SG_CUDA_TRY(cudaMemcpyAsync(to.get(), from, sizeof(T) * count, cudaMemcpyHostToDevice, stream), err);
  return true;
}

template <class T>
bool CopyOut(std::vector<T>* to, const DeviceBuffer<T>& from, size_t count, cudaStream_t stream, std::string* err) {
  to->resize(count);
  if (count) SG_CUDA_TRY(cudaMemcpyAsync(to->data(), from.get(), sizeof(T) * count, cudaMemcpyDeviceToHost, stream), err);
  return true;
}

bool AllocateBatch(const ScenarioPlan& plan, BatchBuffers* b, std::string* err) {
  const Batch& sb = plan.scenario->batch;
  const size_t n = static_cast<size_t>(sb.num_tokens), reqs = sb.seq_lens.size();
  if (!b->qsl.Allocate(reqs + 1, err) || !b->seq_lens.Allocate(reqs, err) || !b->seq_lens_i32.Allocate(reqs, err) ||
      !b->idx_mapping.Allocate(reqs, err) || !b->request_of_token.Allocate(n, err) || !b->positions.Allocate(n, err) ||
      !b->slot_mapping_in.Allocate(n, err) || !b->absent[0].Allocate(n, err) || !b->absent[1].Allocate(n, err))
    return false;
  b->view = HostMappingBatch(sb);  // the scalars are baked into the graph
  b->view.query_start_loc = b->qsl.get();
  b->view.seq_lens = b->seq_lens.get();
  b->view.seq_lens_i32 = b->seq_lens_i32.get();
  b->view.request_of_token = b->request_of_token.get();
  b->view.idx_mapping = b->idx_mapping.get();
  b->view.positions = b->positions.get();
  b->view.slot_mapping_in = b->slot_mapping_in.get();
  return true;
}

// Tables covering every replay's, zeroed outputs, pools in their before-the-run state.
bool AllocateSteps(const std::vector<ScenarioPlan>& plans, const WriterOptions& writers, cudaStream_t stream,
                   std::vector<std::unique_ptr<StepBuffers>>* steps, std::string* err) {
  const ScenarioPlan& first = plans[0];
  const size_t n = static_cast<size_t>(first.scenario->batch.num_tokens);
  for (size_t k = 0; k < first.steps.size(); ++k) {
    const PlanStep& step = first.steps[k];
    auto g = std::make_unique<StepBuffers>();
    for (const ScenarioPlan& plan : plans) g->shape = CoverShapes(g->shape, plan.StepOf(step.group).table.shape);
    if (!g->table.Allocate(static_cast<size_t>(g->shape.entries), err)) return false;
    for (int o = 0; o < step.outputs; ++o) {
      if (!g->out[o].Allocate(n, err)) return false;
      SG_CUDA_TRY(cudaMemsetAsync(g->out[o].get(), 0, n * sizeof(int64_t), stream), err);
    }
    g->view = step.cache;
    if (!step.writes) g->view.slots = 0;  // no pool, no writer
    const size_t bytes = static_cast<size_t>(CacheBytes(g->view));
    if (!g->cache.Allocate(bytes, err)) return false;
    g->view.bytes = g->cache.get();
    if (writers.head_bytes > 0) SG_CUDA_TRY(InitCacheOnDevice(g->view, stream), err);
    steps->push_back(std::move(g));
  }
  return true;
}

const int64_t* Gate(const ScenarioPlan& plan, const PlanStep& step, const BatchBuffers& b,
                    const std::vector<std::unique_ptr<StepBuffers>>& steps) {
  if (step.gate_group >= 0) return steps[static_cast<size_t>(plan.step_of_group[step.gate_group])]->out[0].get();
  if (step.gate_absent) return b.absent[static_cast<int>(step.absent_rule)].get();
  return nullptr;
}

// The capture's work: the plan wave by wave, then its writer jobs. A
// provider call that fails is its scenario's fault (*failure), and ends
// the capture's work there.
bool CaptureWork(const ScenarioPlan& plan, MappingProvider* provider, const BatchBuffers& b,
                 const std::vector<std::unique_ptr<StepBuffers>>& steps, cudaStream_t stream, StepCall* failed,
                 std::string* err) {
  for (int wave = 0; wave < plan.waves; ++wave) {
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      const PlanStep& step = plan.steps[k];
      if (step.wave != wave || step.runner != StepRunner::kOwnKernel) continue;
      const MappingOutputs out{steps[k]->out[0].get(), step.outputs > 1 ? steps[k]->out[1].get() : nullptr};
      const TableLayout layout = step.table.View(steps[k]->table.get());
      cudaError_t launched = cudaSuccess;
      VisitFamily(plan.scenario->groups[step.group], Gate(plan, step, b, steps), [&](auto, const auto& params) {
        launched = LaunchMapping(params, b.view, layout, Geometry::kEngine, out, stream);
      });
      SG_CUDA_TRY(launched, err);
    }
    if (!provider || !plan.provided) continue;
    std::vector<StepCall> calls;
    AppendCalls(plan, wave, provider->takes_whole_scenarios(), b.view, stream,
                [&](size_t k) {
                  const PlanStep& step = plan.steps[k];
                  StepArgs a;
                  a.table = step.table.View(steps[k]->table.get());
                  a.out = MappingOutputs{steps[k]->out[0].get(), step.outputs > 1 ? steps[k]->out[1].get() : nullptr};
                  a.gate = Gate(plan, step, b, steps);
                  return a;
                },
                &calls);
    if (!provider->RunCalls(&calls, /*device=*/true, 1, err)) return false;
    for (StepCall& call : calls)
      if (call.outcome != StepCall::Outcome::kRan) {
        *failed = std::move(call);
        return true;
      }
  }
  for (size_t k = 0; k < plan.steps.size(); ++k)
    if (steps[k]->view.slots > 0)
      for (const OutputWriter& w : plan.steps[k].writers)
        SG_CUDA_TRY(LaunchWriter(w.kind, steps[k]->view, w.Job(steps[k]->out[w.output].get()), stream), err);
  return true;
}

// New contents in the same buffers: the replay's batch and tables.
bool CopyReplay(const ScenarioPlan& plan, const BatchBuffers& b, const std::vector<std::unique_ptr<StepBuffers>>& steps,
                cudaStream_t stream, std::vector<std::vector<int32_t>>* tables, std::string* err) {
  const Batch& rb = plan.scenario->batch;
  const size_t n = static_cast<size_t>(rb.num_tokens), reqs = rb.seq_lens.size();
  const ProviderArrays arrays(rb);
  const std::vector<int64_t> absent[2] = {DefaultGateMapping(rb, GateAbsent::kPadDummies),
                                          DefaultGateMapping(rb, GateAbsent::kPass)};
  if (!CopyIn(b.qsl, rb.query_start_loc.data(), reqs + 1, stream, err) ||
      !CopyIn(b.seq_lens, rb.seq_lens.data(), reqs, stream, err) ||
      !CopyIn(b.seq_lens_i32, arrays.seq_lens_i32.data(), reqs, stream, err) ||
      !CopyIn(b.request_of_token, arrays.request_of_token.data(), n, stream, err) ||
      !CopyIn(b.idx_mapping, rb.idx_mapping.data(), reqs, stream, err) ||
      !CopyIn(b.positions, rb.positions.data(), n, stream, err) ||
      !CopyIn(b.slot_mapping_in, rb.slot_mapping_in.data(), n, stream, err) ||
      !CopyIn(b.absent[0], absent[0].data(), n, stream, err) || !CopyIn(b.absent[1], absent[1].data(), n, stream, err))
    return false;
  // Synchronized before the host copies above go out of scope.
  tables->clear();
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    tables->emplace_back(static_cast<size_t>(steps[k]->shape.entries));
    LayOutStepTable(plan, k, tables->back().data(), &steps[k]->shape);
    if (!CopyIn(steps[k]->table, tables->back().data(), tables->back().size(), stream, err)) return false;
  }
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
  return true;
}

bool ReadReplay(const ScenarioPlan& plan, const WriterOptions& writers,
                const std::vector<std::unique_ptr<StepBuffers>>& steps, cudaStream_t stream,
                std::vector<GroupOutputs>* state, std::string* err) {
  const Scenario& s = *plan.scenario;
  const size_t n = static_cast<size_t>(s.batch.num_tokens);
  state->assign(s.groups.size(), GroupOutputs());
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    GroupOutputs& out = (*state)[plan.steps[k].group];
    out.engine.resize(plan.steps[k].outputs);
    for (int o = 0; o < plan.steps[k].outputs; ++o)
      if (!CopyOut(&out.engine[o], steps[k]->out[o], n, stream, err)) return false;
    if (!CopyOut(&out.cache, steps[k]->cache, static_cast<size_t>(CacheBytes(steps[k]->view)), stream, err))
      return false;
    out.head_bytes = writers.head_bytes;
  }
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
  for (size_t g = 0; g < s.groups.size(); ++g) {
    (*state)[g].read_past_row.assign(n, 0);
    MarkOutputReadsPastRow(s, s.groups[g], &(*state)[g]);
  }
  return true;
}

}  // namespace

bool RunGraphReplays(const GraphSequence& sequence, const PlanOptions& options, MappingProvider* provider,
                     cudaStream_t stream, std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) {
  outputs->clear();
  if (sequence.steps.empty()) return true;
  const std::string problem = sequence.Problem();
  if (!problem.empty()) {
    *err = problem;
    return false;
  }
  std::vector<ScenarioPlan> plans(sequence.batches.size());
  for (size_t k = 0; k < plans.size(); ++k) BuildPlan(sequence.batches[k], options, &plans[k]);
  const ScenarioPlan& captured = plans[static_cast<size_t>(sequence.CapturedBatch())];
  if (!captured.skip.empty()) {
    outputs->resize(1);
    MarkSkipped(captured.skip, captured.scenario->groups.size(), &(*outputs)[0]);
    return true;
  }
  BatchBuffers batch;
  std::vector<std::unique_ptr<StepBuffers>> steps;
  if (!AllocateBatch(captured, &batch, err) || !AllocateSteps(plans, options.writers, stream, &steps, err))
    return false;
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
  Graph graph;
  std::vector<std::vector<int32_t>> tables;
  const ScenarioPlan* last = &captured;  // the plan whose outputs the buffers hold
  // A provider call that failed is its batch's fault, not the environment's.
  auto faulted = [&](StepCall* failed, const char* where) {
    failed->message += where;
    outputs->emplace_back();
    ApplyOutcome(*failed, &outputs->back());
    return true;
  };
  for (const GraphStep& step : sequence.steps) {
    const ScenarioPlan& plan = plans[step.batch];
    switch (step.kind) {
      case GraphStep::Kind::kEager: {  // the capture's work launched as it is, on this batch's contents
        if (!CopyReplay(plan, batch, steps, stream, &tables, err)) return false;
        StepCall failed;
        if (!CaptureWork(plan, provider, batch, steps, stream, &failed, err)) return false;
        if (failed.outcome != StepCall::Outcome::kRan) return faulted(&failed, " (in an eager pass before the capture)");
        last = &plan;
        break;
      }
      case GraphStep::Kind::kCapture: {
        SG_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), err);
        StepCall failed;
        std::string capture_error;
        const bool recorded = CaptureWork(plan, provider, batch, steps, stream, &failed, &capture_error);
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph.graph);
        if (failed.outcome != StepCall::Outcome::kRan) return faulted(&failed, " (while capturing the CUDA graph)");
        if (!recorded) {
          *err = capture_error;
          return false;
        }
        SG_CUDA_TRY(ended, err);
        SG_CUDA_TRY(cudaGraphInstantiate(&graph.exec, graph.graph, 0), err);
        break;
      }
      case GraphStep::Kind::kZeroNull:  // between launches, as the engine's zeroing kernel runs
        for (const std::unique_ptr<StepBuffers>& g : steps)
          if (g->view.slots > 0)
            SG_CUDA_TRY(cudaMemsetAsync(g->cache.get(), 0,
                                        static_cast<size_t>(std::min(NullBlockBytes(g->view), CacheBytes(g->view))),
                                        stream),
                        err);
        break;
      case GraphStep::Kind::kReplay:
        if (!CopyReplay(plan, batch, steps, stream, &tables, err)) return false;
        SG_CUDA_TRY(cudaGraphLaunch(graph.exec, stream), err);
        last = &plan;
        break;
    }
    outputs->emplace_back();
    if (!ReadReplay(*last, options.writers, steps, stream, &outputs->back(), err)) return false;
  }
  return true;
}

}  // namespace slotguard
