#include "backend/gpu_provider_chunks.h"

#include <array>
#include <cstring>
#include <optional>

#include "backend/cuda_check.h"
#include "backend/kernel_inputs.h"
#include "backend/table_memory.h"
#include "kernels/launchers.h"
#include "plugin/mapping_call.h"
#include "plugin/provider_calls.h"

namespace slotguard {
namespace {

// Byte offsets of one scenario's arrays in the packed upload.
struct Packed {
  size_t qsl, positions, seq_lens, seq_lens_i32, idx_mapping, slot_mapping_in, request_of_token, default_common;
  ProviderArrays extra;
  std::vector<int64_t> common;            // DefaultGateMapping
  std::vector<LaidOutTable> tables;       // [group]
  std::vector<size_t> table_at;           // [group]
  std::vector<bool> provided;             // [group]
  std::vector<std::array<size_t, 4>> out; // [group]: engine 0, 1, flat 0, 1 (offsets in the output arena)
  std::string skip, fault;
  size_t culprit = SIZE_MAX;              // the group whose call failed
};

size_t Take(size_t* at, size_t bytes) {
  const size_t here = (*at + 15) & ~size_t{15};
  *at = here + bytes;
  return here;
}

}  // namespace

bool RunProviderChunk(const std::vector<const Scenario*>& scenarios, MappingProvider& provider, cudaStream_t stream,
                      ProviderChunkBuffers& buffers, std::vector<std::vector<GroupOutputs>>* outputs,
                      std::string* err) {
  PinnedBuffer<uint8_t>& host_in = buffers.host_in;
  PinnedBuffer<uint8_t>& host_out = buffers.host_out;
  DeviceBuffer<uint8_t>& device_in = buffers.device_in;
  DeviceBuffer<uint8_t>& device_out = buffers.device_out;
  std::vector<Packed> packed(scenarios.size());
  // Pass 1: where everything goes (and the tables laid out).
  size_t in_bytes = 0, out_bytes = 0;
  for (size_t k = 0; k < scenarios.size(); ++k) {
    const Scenario& s = *scenarios[k];
    const Batch& b = s.batch;
    Packed& p = packed[k];
    p.skip = ProviderSkips(provider, s);
    if (!p.skip.empty()) continue;
    bool any_provided = false;
    for (const Group& group : s.groups) any_provided |= provider.Runs(group.family, group.variant);
    if (any_provided) p.fault = ProviderCannotTake(provider, b);
    if (!p.fault.empty()) continue;
    const size_t n = static_cast<size_t>(b.num_tokens), r = b.seq_lens.size();
    p.extra = ProviderArrays(b);
    p.common = DefaultGateMapping(b);
    p.qsl = Take(&in_bytes, (r + 1) * 4);
    p.positions = Take(&in_bytes, n * 8);
    p.seq_lens = Take(&in_bytes, r * 8);
    p.seq_lens_i32 = Take(&in_bytes, r * 4);
    p.idx_mapping = Take(&in_bytes, r * 4);
    p.slot_mapping_in = Take(&in_bytes, n * 8);
    p.request_of_token = Take(&in_bytes, n * 4);
    p.default_common = Take(&in_bytes, n * 8);
    p.tables.resize(s.groups.size());
    p.table_at.resize(s.groups.size());
    p.provided.resize(s.groups.size());
    p.out.assign(s.groups.size(), {0, 0, 0, 0});
    for (size_t g = 0; g < s.groups.size(); ++g) {
      const Group& group = s.groups[g];
      p.provided[g] = provider.Runs(group.family, group.variant);
      LayOutGroupTable(s, group, p.provided[g] && GathersTable(provider, b), &p.tables[g]);
      p.table_at[g] = Take(&in_bytes, p.tables[g].memory.size() * 4);
      const int count = OutputCount(group);
      for (int o = 0; o < count; ++o) {
        p.out[g][o] = Take(&out_bytes, n * 8);
        if (!p.provided[g]) p.out[g][2 + o] = Take(&out_bytes, n * 8);
      }
    }
  }
  if (!host_in.Reserve(in_bytes, err) || !device_in.Reserve(in_bytes, err) || !host_out.Reserve(out_bytes, err) ||
      !device_out.Reserve(out_bytes, err))
    return false;
  // Pass 2: the upload.
  uint8_t* h = host_in.data();
  auto put = [&](size_t at, const void* data, size_t bytes) {
    if (bytes) std::memcpy(h + at, data, bytes);
  };
  for (size_t k = 0; k < scenarios.size(); ++k) {
    const Packed& p = packed[k];
    if (!p.skip.empty() || !p.fault.empty()) continue;
    const Batch& b = scenarios[k]->batch;
    const size_t n = static_cast<size_t>(b.num_tokens), r = b.seq_lens.size();
    put(p.qsl, b.query_start_loc.data(), (r + 1) * 4);
    put(p.positions, b.positions.data(), n * 8);
    put(p.seq_lens, b.seq_lens.data(), r * 8);
    put(p.seq_lens_i32, p.extra.seq_lens_i32.data(), r * 4);
    put(p.idx_mapping, b.idx_mapping.data(), r * 4);
    put(p.slot_mapping_in, b.slot_mapping_in.data(), n * 8);
    put(p.request_of_token, p.extra.request_of_token.data(), n * 4);
    put(p.default_common, p.common.data(), n * 8);
    for (size_t g = 0; g < p.tables.size(); ++g)
      put(p.table_at[g], p.tables[g].memory.data(), p.tables[g].memory.size() * 4);
  }
  if (in_bytes)
    SG_CUDA_TRY(cudaMemcpyAsync(device_in.get(), host_in.data(), in_bytes, cudaMemcpyHostToDevice, stream), err);
  if (out_bytes) SG_CUDA_TRY(cudaMemsetAsync(device_out.get(), 0, out_bytes, stream), err);  // zeroed, as the engine's
  // Pass 3: every call, in each scenario's run order.
  uint8_t* din = device_in.get();
  int64_t* dout = reinterpret_cast<int64_t*>(device_out.get());
  auto out_ptr = [&](size_t at) { return reinterpret_cast<int64_t*>(reinterpret_cast<uint8_t*>(dout) + at); };
  for (size_t k = 0; k < scenarios.size(); ++k) {
    Packed& p = packed[k];
    if (!p.skip.empty() || !p.fault.empty()) continue;
    const Scenario& s = *scenarios[k];
    MappingBatch b = HostMappingBatch(s.batch, &p.extra);
    b.query_start_loc = reinterpret_cast<const int32_t*>(din + p.qsl);
    b.positions = reinterpret_cast<const int64_t*>(din + p.positions);
    b.seq_lens = reinterpret_cast<const int64_t*>(din + p.seq_lens);
    b.seq_lens_i32 = reinterpret_cast<const int32_t*>(din + p.seq_lens_i32);
    b.idx_mapping = reinterpret_cast<const int32_t*>(din + p.idx_mapping);
    b.slot_mapping_in = reinterpret_cast<const int64_t*>(din + p.slot_mapping_in);
    b.request_of_token = reinterpret_cast<const int32_t*>(din + p.request_of_token);
    const int64_t* default_common = reinterpret_cast<const int64_t*>(din + p.default_common);
    ProviderCalls calls(provider, /*device=*/true);
    for (size_t g : RunOrder(s)) {
      const Group& group = s.groups[g];
      const TableLayout layout = p.tables[g].View(reinterpret_cast<const int32_t*>(din + p.table_at[g]));
      const bool two = OutputCount(group) > 1;
      const MappingOutputs engine{out_ptr(p.out[g][0]), two ? out_ptr(p.out[g][1]) : nullptr};
      const int common = GateGroupIndex(s, group);
      const int64_t* common_mapping = common >= 0 ? out_ptr(p.out[common][0]) : default_common;
      if (p.provided[g]) {
        if (!calls.Add(g, MakeMappingCall(group, p.tables[g].ReadBatch(b), layout, engine, common_mapping, stream),
                       &p.fault)) {
          p.culprit = calls.failed_group();
          break;
        }
        continue;
      }
      if (common >= 0 && calls.Pending(static_cast<size_t>(common)) && !calls.Flush(&p.fault)) {
        p.culprit = calls.failed_group();
        break;
      }
      const MappingOutputs flat{out_ptr(p.out[g][2]), two ? out_ptr(p.out[g][3]) : nullptr};
      cudaError_t launched = cudaSuccess;
      VisitFamily(group, common_mapping, [&](auto, const auto& params) {
        launched = LaunchMapping(params, b, layout, Geometry::kEngine, engine, stream);
        if (launched == cudaSuccess) launched = LaunchMapping(params, b, layout, Geometry::kFlat, flat, stream);
      });
      SG_CUDA_TRY(launched, err);
    }
    if (p.fault.empty() && !calls.Flush(&p.fault)) p.culprit = calls.failed_group();
  }
  if (out_bytes)
    SG_CUDA_TRY(cudaMemcpyAsync(host_out.data(), device_out.get(), out_bytes, cudaMemcpyDeviceToHost, stream), err);
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
  // Pass 4: the outputs.
  outputs->resize(scenarios.size());
  const uint8_t* ho = host_out.data();
  for (size_t k = 0; k < scenarios.size(); ++k) {
    const Packed& p = packed[k];
    const Scenario& s = *scenarios[k];
    std::vector<GroupOutputs>& result = (*outputs)[k];
    if (!p.skip.empty()) {
      MarkSkipped(p.skip, s.groups.size(), &result);
      continue;
    }
    if (!p.fault.empty()) {
      MarkFaulted(p.fault, s.groups.size(), &result, p.culprit);
      continue;
    }
    const size_t n = static_cast<size_t>(s.batch.num_tokens);
    result.assign(s.groups.size(), GroupOutputs());
    for (size_t g = 0; g < s.groups.size(); ++g) {
      GroupOutputs& out = result[g];
      const int count = OutputCount(s.groups[g]);
      out.engine.resize(count);
      out.flat.resize(p.provided[g] ? 0 : count);
      for (int o = 0; o < count; ++o) {
        const int64_t* e = reinterpret_cast<const int64_t*>(ho + p.out[g][o]);
        out.engine[o].assign(e, e + n);
        if (p.provided[g]) continue;
        const int64_t* f = reinterpret_cast<const int64_t*>(ho + p.out[g][2 + o]);
        out.flat[o].assign(f, f + n);
      }
      out.read_past_row.assign(n, 0);
      MarkOutputReadsPastRow(s, s.groups[g], &out);
    }
  }
  return true;
}

}  // namespace slotguard
