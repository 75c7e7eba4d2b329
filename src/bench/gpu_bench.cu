#include "bench/gpu_bench.h"

#include <algorithm>
#include <memory>

#include "backend/cuda_check.h"
#include "backend/device_batch.h"
#include "family/group_model.h"
#include "backend/kernel_inputs.h"
#include "bench/bench_scenario.h"
#include "plan/scenario_plan.h"
#include "kernels/launchers.h"
#include "registry/families.h"
#include "writers/writer_launch.h"

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

/// The fewest bytes a family's mapping must move: each per-token input read
/// once, each output written once, one table entry per table block used,
/// per-request metadata (qsl and idx_mapping or seq_lens) once.
double MappingBytes(const Group& g, const Batch& b) {
  const double n = static_cast<double>(b.num_tokens), requests = b.num_reqs();
  const double meta = 8.0 * requests;
  const MappingDesc& m = MappingOf(g);
  const double in = (ReadsPositions(g.family) ? 8.0 : 0.0) + (m.gate.present() ? 8.0 : 0.0);
  const double out = 8.0 * OutputCount(g);
  return (in + out) * n + meta + 4.0 * (n / static_cast<double>(SlotsPerEntry(g)) + requests);
}

bool BenchSize(int64_t tokens, int repeats, cudaStream_t stream, std::vector<GpuBenchRow>* rows,
               std::string* err) {
  const Scenario s = MakeBenchScenario(tokens, 42);
  const Batch& batch = s.batch;
  const size_t n = static_cast<size_t>(tokens);
  DeviceBatch device;
  if (!device.Upload(batch, stream, err)) return false;
  const MappingBatch& b = device.view;
  // Outputs stay alive: qsa_compressed reads the paged group's as its common mapping.
  std::vector<std::unique_ptr<DeviceBuffer<int64_t>>> slots(s.groups.size());
  ScenarioPlan plan;
  BuildPlan(s, PlanOptions(), &plan);
  for (const PlanStep& step : plan.steps) {
    const size_t i = step.group;
    const Group& group = s.groups[i];
    DeviceBuffer<int32_t> table;
    DeviceBuffer<int64_t> tail;
    slots[i] = std::make_unique<DeviceBuffer<int64_t>>();
    if (!table.Upload(step.table.memory.data(), step.table.memory.size(), stream, err) || !slots[i]->Allocate(n, err) ||
        !tail.Allocate(n, err))
      return false;
    const TableLayout layout = step.table.View(table.get());
    const MappingOutputs out{slots[i]->get(), tail.get()};
    const int64_t* common_mapping = step.gate_group >= 0 ? slots[static_cast<size_t>(step.gate_group)]->get() : nullptr;
    GpuBenchRow row;
    row.family = GetFamily(group.family).name;
    row.tokens = tokens;
    row.requests = batch.num_reqs();
    row.bytes = MappingBytes(group, batch);
    bool ok = true;
    VisitFamily(group, common_mapping, [&](auto, const auto& params) {
      ok = TimeMedian(repeats, stream,
                      [&] { return LaunchMapping(params, b, layout, Geometry::kEngine, out, stream); },
                      &row.engine_us, err) &&
           TimeMedian(repeats, stream,
                      [&] { return LaunchMapping(params, b, layout, Geometry::kFlat, out, stream); },
                      &row.flat_us, err);
    });
    if (!ok) return false;
    const size_t copy_bytes = static_cast<size_t>(row.bytes / 2);
    DeviceBuffer<char> src, dst;
    if (!src.Allocate(copy_bytes, err) || !dst.Allocate(copy_bytes, err)) return false;
    SG_CUDA_TRY(cudaMemsetAsync(src.get(), 1, copy_bytes, stream), err);
    if (!TimeMedian(repeats, stream,
                    [&] { return cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream); },
                    &row.copy_us, err))
      return false;
    rows->push_back(row);
  }
  return true;
}

bool BenchWriters(int64_t tokens, int repeats, int32_t head_bytes, cudaStream_t stream,
                  std::vector<WriterBenchRow>* rows, std::string* err) {
  constexpr int64_t kPage = 16;
  const size_t n = static_cast<size_t>(tokens);
  // Token t writes slot kPage + t: every slot distinct, block 0 untouched.
  std::vector<int64_t> mapping(n);
  for (size_t t = 0; t < n; ++t) mapping[t] = kPage + static_cast<int64_t>(t);
  DeviceBuffer<int64_t> slots;
  DeviceBuffer<uint8_t> cache;
  CacheView view;
  view.slots = kPage + tokens;
  view.page_slots = kPage;
  view.head_bytes = head_bytes;
  if (!slots.Upload(mapping.data(), n, stream, err) || !cache.Allocate(static_cast<size_t>(view.slots) * head_bytes, err))
    return false;
  view.bytes = cache.get();
  const WriterJob job{slots.get(), tokens, 0};
  const double bytes = 8.0 * tokens + static_cast<double>(tokens) * head_bytes;
  const size_t copy_bytes = static_cast<size_t>(bytes / 2);
  DeviceBuffer<char> src, dst;
  if (!src.Allocate(copy_bytes, err) || !dst.Allocate(copy_bytes, err)) return false;
  SG_CUDA_TRY(cudaMemsetAsync(src.get(), 1, copy_bytes, stream), err);
  double copy_us = 0;
  if (!TimeMedian(repeats, stream,
                  [&] { return cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream); },
                  &copy_us, err))
    return false;
  for (WriterKind kind : {WriterKind::kPaged, WriterKind::kRing}) {
    WriterBenchRow row;
    row.writer = kind == WriterKind::kPaged ? "paged_writer" : "ring_writer";
    row.tokens = tokens;
    row.head_bytes = head_bytes;
    row.bytes = bytes;
    row.copy_us = copy_us;
    if (!TimeMedian(repeats, stream, [&] { return LaunchWriter(kind, view, job, stream); }, &row.writer_us, err))
      return false;
    rows->push_back(row);
  }
  return true;
}

}  // namespace

bool BenchGpuWriters(const std::vector<int64_t>& sizes, int repeats, int32_t head_bytes,
                     std::vector<WriterBenchRow>* rows, std::string* err) {
  cudaStream_t stream;
  SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
  bool ok = true;
  for (int64_t tokens : sizes)
    if (!(ok = BenchWriters(tokens, repeats, head_bytes, stream, rows, err))) break;
  cudaStreamDestroy(stream);
  return ok;
}

bool BenchGpu(const std::vector<int64_t>& sizes, int repeats, std::vector<GpuBenchRow>* rows,
              std::string* err) {
  cudaStream_t stream;
  SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
  bool ok = true;
  for (int64_t tokens : sizes)
    if (!(ok = BenchSize(tokens, repeats, stream, rows, err))) break;
  cudaStreamDestroy(stream);
  return ok;
}

}  // namespace slotguard
