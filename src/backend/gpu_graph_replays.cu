// CUDA-graph replays (`check --cuda-graph`): the path where an engine
// dirtied the null block after capture. Like the engine, the graph is
// captured once over persistent buffers with its scalars baked in; every
// replay only changes what those buffers hold.
#include "backend/gpu_graph_replays.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "backend/cuda_check.h"
#include "backend/kernel_inputs.h"
#include "backend/table_memory.h"
#include "scenario/table_extent.h"
#include "kernels/launchers.h"
#include "plugin/mapping_call.h"
#include "plugin/provider_calls.h"
#include "writers/cache_pool.h"

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

// The persistent device buffers of one group.
struct GroupBuffers {
  DeviceBuffer<int32_t> table;
  TableShape shape;  // covers every replay's
  bool gather = false;  // another implementation that reads GatheredTable()
  int32_t rows = 0;     // of the table the kernel reads
  DeviceBuffer<int64_t> out[2];
  DeviceBuffer<uint8_t> cache;
  CacheView view;
};

// Copies `count` elements to a device buffer that already has room.
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

}  // namespace

bool RunGraphReplays(const std::vector<Scenario>& replays, const WriterOptions& writers, MappingProvider* provider,
                     cudaStream_t stream, std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) {
  outputs->clear();
  if (replays.empty()) return true;
  const Scenario& shape = replays[0];
  const std::string skip = provider ? ProviderSkips(*provider, shape) : std::string();
  if (!skip.empty()) {
    outputs->resize(1);
    MarkSkipped(skip, shape.groups.size(), &(*outputs)[0]);
    return true;
  }
  const Batch& sb = shape.batch;
  const size_t n = static_cast<size_t>(sb.num_tokens);
  const size_t reqs = sb.seq_lens.size();
  DeviceBuffer<int32_t> qsl, seq_lens_i32, idx_mapping, request_of_token;
  DeviceBuffer<int64_t> seq_lens, positions, slot_mapping_in, default_common;
  if (!qsl.Allocate(reqs + 1, err) || !seq_lens.Allocate(reqs, err) || !seq_lens_i32.Allocate(reqs, err) ||
      !idx_mapping.Allocate(reqs, err) || !request_of_token.Allocate(n, err) ||
      !positions.Allocate(n, err) || !slot_mapping_in.Allocate(n, err) || !default_common.Allocate(n, err))
    return false;
  MappingBatch b = HostMappingBatch(sb);  // the scalars are baked into the graph
  b.query_start_loc = qsl.get();
  b.seq_lens = seq_lens.get();
  b.seq_lens_i32 = seq_lens_i32.get();
  b.request_of_token = request_of_token.get();
  b.idx_mapping = idx_mapping.get();
  b.positions = positions.get();
  b.slot_mapping_in = slot_mapping_in.get();

  std::vector<std::unique_ptr<GroupBuffers>> groups;
  for (size_t i = 0; i < shape.groups.size(); ++i) {
    const Group& group = shape.groups[i];
    auto g = std::make_unique<GroupBuffers>();
    g->gather = provider && provider->Runs(group.family, group.variant) && GathersTable(*provider, sb);
    g->rows = g->gather ? sb.num_reqs() : group.table.rows;
    for (const Scenario& replay : replays)
      g->shape = CoverShapes(g->shape, ShapeTable(shape.table_layout, replay.batch, replay.groups[i], g->rows));
    if (!g->table.Allocate(static_cast<size_t>(g->shape.entries), err)) return false;
    for (int o = 0; o < OutputCount(group); ++o) {
      if (!g->out[o].Allocate(n, err)) return false;
      SG_CUDA_TRY(cudaMemsetAsync(g->out[o].get(), 0, n * sizeof(int64_t), stream), err);
    }
    g->view = CacheGeometry(shape, group, writers.head_bytes);
    if (!CacheFits(g->view, writers.max_cache_bytes)) g->view.slots = 0;  // no pool, no writer
    const size_t bytes = static_cast<size_t>(CacheBytes(g->view));
    if (!g->cache.Allocate(bytes, err)) return false;
    g->view.bytes = g->cache.get();
    SG_CUDA_TRY(InitCacheOnDevice(g->view, stream), err);
    groups.push_back(std::move(g));
  }
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);

  // Capture: every group's mapping (dependency order), then the writers.
  Graph graph;
  SG_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), err);
  cudaError_t launched = cudaSuccess;
  std::string failure;  // the provider's own error
  const std::string cannot_take = provider ? ProviderCannotTake(*provider, sb) : std::string();
  std::optional<ProviderCalls> calls;
  if (provider) calls.emplace(*provider, /*device=*/true);
  for (size_t i : RunOrder(shape)) {
    const Group& group = shape.groups[i];
    GroupBuffers& g = *groups[i];
    const TableLayout layout = ViewOf(g.table.get(), g.shape, g.gather ? LaidOutWidth(group) : group.table.width, g.rows);
    const int common = GateGroupIndex(shape, group);
    const int64_t* common_mapping = common >= 0 ? groups[common]->out[0].get() : default_common.get();
    const MappingOutputs out{g.out[0].get(), OutputCount(group) > 1 ? g.out[1].get() : nullptr};
    if (provider && provider->Runs(group.family, group.variant)) {
      if (launched == cudaSuccess) failure = cannot_take;
      if (!failure.empty()) launched = cudaErrorLaunchFailure;
      if (launched == cudaSuccess &&
          !calls->Add(i, MakeMappingCall(group, TableReadBatch(b, g.gather), layout, out, common_mapping, stream),
                      &failure))
        launched = cudaErrorLaunchFailure;  // ends the capture; reported as the provider's failure
      continue;
    }
    if (calls && common >= 0 && calls->Pending(static_cast<size_t>(common)) && launched == cudaSuccess &&
        !calls->Flush(&failure))
      launched = cudaErrorLaunchFailure;
    VisitFamily(group, common_mapping, [&](auto, const auto& params) {
      if (launched == cudaSuccess) launched = LaunchMapping(params, b, layout, Geometry::kEngine, out, stream);
    });
  }
  if (calls && launched == cudaSuccess && !calls->Flush(&failure)) launched = cudaErrorLaunchFailure;
  for (size_t i = 0; i < shape.groups.size() && launched == cudaSuccess; ++i)
    if (groups[i]->view.slots > 0 && writers.head_bytes > 0)  // writers off: no pool to write
      launched = LaunchWriter(WriterFor(shape.groups[i]), groups[i]->view,
                            WriterJobFor(shape.groups[i], groups[i]->out[0].get(), sb.num_tokens, static_cast<int32_t>(i)),
                            stream);
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph.graph);
  if (!failure.empty()) {  // a fault of this scenario, not of the environment
    outputs->assign(1, {});
    MarkFaulted(failure + " (while capturing the CUDA graph)", shape.groups.size(), &(*outputs)[0]);
    return true;
  }
  SG_CUDA_TRY(launched, err);
  SG_CUDA_TRY(ended, err);
  SG_CUDA_TRY(cudaGraphInstantiate(&graph.exec, graph.graph, 0), err);

  // Replays: new contents in the same buffers, then the graph.
  for (const Scenario& replay : replays) {
    const Batch& rb = replay.batch;
    const std::vector<int64_t> common_host = DefaultGateMapping(rb);
    if (!CopyIn(qsl, rb.query_start_loc.data(), reqs + 1, stream, err) ||
        !CopyIn(seq_lens, rb.seq_lens.data(), reqs, stream, err) ||
        !CopyIn(seq_lens_i32, SaturatedSeqLens(rb).data(), reqs, stream, err) ||
        !CopyIn(request_of_token, TokenRequests(rb).data(), n, stream, err) ||
        !CopyIn(idx_mapping, rb.idx_mapping.data(), reqs, stream, err) ||
        !CopyIn(positions, rb.positions.data(), n, stream, err) ||
        !CopyIn(slot_mapping_in, rb.slot_mapping_in.data(), n, stream, err) ||
        !CopyIn(default_common, common_host.data(), n, stream, err))
      return false;
    std::vector<std::vector<int32_t>> tables;  // alive until the copies are done
    for (size_t i = 0; i < replay.groups.size(); ++i) {
      const GroupBuffers& g = *groups[i];
      const Group& group = replay.groups[i];
      const BlockTable gathered = g.gather ? GatheredTable(rb, group) : BlockTable();
      tables.emplace_back(static_cast<size_t>(g.shape.entries));
      LayOutTable(shape.table_layout, replay.num_blocks, group, g.gather ? gathered : group.table, g.shape,
                  tables.back().data());
      if (!CopyIn(g.table, tables.back().data(), tables.back().size(), stream, err)) return false;
    }
    SG_CUDA_TRY(cudaGraphLaunch(graph.exec, stream), err);
    std::vector<GroupOutputs> state(replay.groups.size());
    for (size_t i = 0; i < replay.groups.size(); ++i) {
      GroupOutputs& out = state[i];
      const int count = OutputCount(replay.groups[i]);
      out.engine.resize(count);
      for (int o = 0; o < count; ++o)
        if (!CopyOut(&out.engine[o], groups[i]->out[o], n, stream, err)) return false;
      if (!CopyOut(&out.cache, groups[i]->cache, static_cast<size_t>(CacheBytes(groups[i]->view)), stream, err))
        return false;
      out.head_bytes = writers.head_bytes;
    }
    SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
    for (size_t i = 0; i < replay.groups.size(); ++i) {
      GroupOutputs& out = state[i];
      out.read_past_row.assign(n, 0);
      MarkOutputReadsPastRow(replay, replay.groups[i], &out);
    }
    outputs->push_back(std::move(state));
  }
  return true;
}

}  // namespace slotguard
