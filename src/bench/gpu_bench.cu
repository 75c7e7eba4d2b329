#include "bench/gpu_bench.h"

#include <algorithm>

#include "backend/cuda_check.h"
#include "backend/kernel_inputs.h"
#include "bench/bench_scenario.h"
#include "kernels/launchers.h"

namespace slotguard {
namespace {

/// Median of `repeats` timings of `launch` (each bracketed by events).
template <class Launch>
bool TimeMedian(int repeats, cudaStream_t stream, Launch launch, double* us, std::string* err) {
  cudaEvent_t start, stop;
  SG_CUDA_TRY(cudaEventCreate(&start), err);
  SG_CUDA_TRY(cudaEventCreate(&stop), err);
  std::vector<float> ms(repeats);
  for (int warmup = 0; warmup < 3; ++warmup) SG_CUDA_TRY(launch(), err);
  for (int i = 0; i < repeats; ++i) {
    SG_CUDA_TRY(cudaEventRecord(start, stream), err);
    SG_CUDA_TRY(launch(), err);
    SG_CUDA_TRY(cudaEventRecord(stop, stream), err);
    SG_CUDA_TRY(cudaEventSynchronize(stop), err);
    SG_CUDA_TRY(cudaEventElapsedTime(&ms[i], start, stop), err);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
  *us = ms[repeats / 2] * 1000.0;
  return true;
}

bool BenchOne(int64_t tokens, int repeats, cudaStream_t stream, GpuBenchRow* row,
              std::string* err) {
  const Scenario s = MakeBenchScenario(tokens, 42);
  const Batch& batch = s.batch;
  const Group& group = s.groups[0];
  const size_t n = static_cast<size_t>(tokens);
  DeviceBuffer<int32_t> qsl, seq_lens, idx_mapping, table;
  DeviceBuffer<int64_t> positions, slot_mapping_in, out;
  int64_t row_stride = 0;
  const std::vector<int32_t> padded = PaddedTable(batch, group, &row_stride);
  if (!qsl.Upload(batch.query_start_loc.data(), batch.query_start_loc.size(), stream, err) ||
      !seq_lens.Upload(batch.seq_lens.data(), batch.seq_lens.size(), stream, err) ||
      !idx_mapping.Upload(batch.idx_mapping.data(), batch.idx_mapping.size(), stream, err) ||
      !positions.Upload(batch.positions.data(), n, stream, err) ||
      !slot_mapping_in.Upload(batch.slot_mapping_in.data(), n, stream, err) ||
      !table.Upload(padded.data(), padded.size(), stream, err) || !out.Allocate(n, err))
    return false;
  MappingBatch b = HostMappingBatch(batch);
  b.query_start_loc = qsl.get();
  b.seq_lens = seq_lens.get();
  b.idx_mapping = idx_mapping.get();
  b.positions = positions.get();
  b.slot_mapping_in = slot_mapping_in.get();
  TableLayout layout{table.get(), row_stride, group.table.width, group.table.rows};
  const PagedParams params = MakePagedParams(group);

  row->tokens = tokens;
  row->requests = batch.num_reqs();
  // Positions in, slots out, qsl and idx_mapping once, each table entry used once.
  const double table_bytes = 4.0 * (static_cast<double>(tokens) / group.kernel_block_size + row->requests);
  row->bytes = 16.0 * tokens + 8.0 * row->requests + table_bytes;
  if (!TimeMedian(repeats, stream, [&] { return LaunchMapping(params, b, layout, Geometry::kEngine, MappingOutputs{out.get()}, stream); },
                  &row->engine_us, err) ||
      !TimeMedian(repeats, stream, [&] { return LaunchMapping(params, b, layout, Geometry::kFlat, MappingOutputs{out.get()}, stream); },
                  &row->flat_us, err))
    return false;
  const size_t copy_bytes = static_cast<size_t>(row->bytes / 2);
  DeviceBuffer<char> src, dst;
  if (!src.Allocate(copy_bytes, err) || !dst.Allocate(copy_bytes, err)) return false;
  SG_CUDA_TRY(cudaMemsetAsync(src.get(), 1, copy_bytes, stream), err);
  return TimeMedian(repeats, stream,
                    [&] { return cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream); },
                    &row->copy_us, err);
}

}  // namespace

bool BenchPagedGpu(const std::vector<int64_t>& sizes, int repeats, std::vector<GpuBenchRow>* rows,
                   std::string* err) {
  cudaStream_t stream;
  SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
  bool ok = true;
  for (int64_t tokens : sizes) {
    GpuBenchRow row;
    if (!(ok = BenchOne(tokens, repeats, stream, &row, err))) break;
    rows->push_back(row);
  }
  cudaStreamDestroy(stream);
  return ok;
}

}  // namespace slotguard
