// The GPU backend: uploads the batch once per scenario, then runs every
// group's kernel in both geometries (in dependency order: a qsa_compressed
// group reads its common group's device output) and copies the outputs back.
#include <memory>

#include "backend/backend.h"
#include "backend/cuda_check.h"
#include "backend/gpu_device.h"
#include "backend/kernel_inputs.h"
#include "kernels/launchers.h"
#include "scenario/table_extent.h"

namespace slotguard {
namespace {

class GpuBackend : public Backend {
 public:
  const char* name() const override { return "gpu"; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
           std::string* err) override {
    cudaStream_t stream;
    SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
    const bool ok = RunOnStream(scenario, stream, outputs, err);
    const cudaError_t destroyed = cudaStreamDestroy(stream);
    if (ok && destroyed != cudaSuccess) {
      *err = CudaErrorText("cudaStreamDestroy", destroyed);
      return false;
    }
    return ok;
  }

 private:
  bool RunOnStream(const Scenario& scenario, cudaStream_t stream,
                   std::vector<GroupOutputs>* outputs, std::string* err) {
    const Batch& batch = scenario.batch;
    const size_t n = static_cast<size_t>(batch.num_tokens);
    DeviceBuffer<int32_t> qsl, seq_lens, idx_mapping;
    DeviceBuffer<int64_t> positions, slot_mapping_in, default_common;
    const std::vector<int64_t> default_common_host = DefaultCommonMapping(batch);
    if (!qsl.Upload(batch.query_start_loc.data(), batch.query_start_loc.size(), stream, err) ||
        !seq_lens.Upload(batch.seq_lens.data(), batch.seq_lens.size(), stream, err) ||
        !idx_mapping.Upload(batch.idx_mapping.data(), batch.idx_mapping.size(), stream, err) ||
        !positions.Upload(batch.positions.data(), n, stream, err) ||
        !slot_mapping_in.Upload(batch.slot_mapping_in.data(), n, stream, err) ||
        !default_common.Upload(default_common_host.data(), n, stream, err))
      return false;
    MappingBatch b = HostMappingBatch(batch);
    b.query_start_loc = qsl.get();
    b.seq_lens = seq_lens.get();
    b.idx_mapping = idx_mapping.get();
    b.positions = positions.get();
    b.slot_mapping_in = slot_mapping_in.get();

    // Device outputs live until every group ran: [group][output], engine and flat.
    struct DeviceOutputs {
      DeviceBuffer<int64_t> engine[2], flat[2];
    };
    std::vector<std::unique_ptr<DeviceOutputs>> device(scenario.groups.size());
    outputs->assign(scenario.groups.size(), GroupOutputs());
    for (size_t i : RunOrder(scenario)) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      out.row_bounds_evidence = "poison block id in the output";
      out.read_past_row.assign(n, 0);
      TableLayout layout;
      const std::vector<int32_t> table = PaddedTable(batch, group, &layout.row_stride);
      DeviceBuffer<int32_t> device_table;
      if (!device_table.Upload(table.data(), table.size(), stream, err)) return false;
      layout.data = device_table.get();
      layout.width = group.table.width;
      layout.rows = group.table.rows;
      const int count = OutputCount(group);
      device[i] = std::make_unique<DeviceOutputs>();
      DeviceOutputs& d = *device[i];
      for (int o = 0; o < count; ++o) {
        if (!d.engine[o].Allocate(n, err) || !d.flat[o].Allocate(n, err)) return false;
        // Zeroed, like the engine's persistent buffers.
        SG_CUDA_TRY(cudaMemsetAsync(d.engine[o].get(), 0, n * sizeof(int64_t), stream), err);
        SG_CUDA_TRY(cudaMemsetAsync(d.flat[o].get(), 0, n * sizeof(int64_t), stream), err);
      }
      const int common = CommonGroupIndex(scenario, group);
      const int64_t* common_mapping = common >= 0 ? device[common]->engine[0].get() : default_common.get();
      const MappingOutputs engine{d.engine[0].get(), count > 1 ? d.engine[1].get() : nullptr};
      const MappingOutputs flat{d.flat[0].get(), count > 1 ? d.flat[1].get() : nullptr};
      cudaError_t launched = cudaSuccess;
      VisitFamily(group, common_mapping, [&](auto, const auto& params) {
        launched = LaunchMapping(params, b, layout, Geometry::kEngine, engine, stream);
        if (launched == cudaSuccess) launched = LaunchMapping(params, b, layout, Geometry::kFlat, flat, stream);
      });
      SG_CUDA_TRY(launched, err);
      out.engine.assign(count, std::vector<int64_t>());
      out.flat.assign(count, std::vector<int64_t>());
      for (int o = 0; o < count; ++o) {
        out.engine[o].resize(n);
        out.flat[o].resize(n);
        if (n) {
          SG_CUDA_TRY(cudaMemcpyAsync(out.engine[o].data(), d.engine[o].get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream), err);
          SG_CUDA_TRY(cudaMemcpyAsync(out.flat[o].data(), d.flat[o].get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream), err);
        }
      }
      SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
      for (int o = 0; o < count; ++o) {
        MarkPoisonReads(out.engine[o], SlotsPerEntry(group), &out.read_past_row);
        MarkPoisonReads(out.flat[o], SlotsPerEntry(group), &out.read_past_row);
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeGpuBackend(std::string* why) {
  if (!GpuUsable(why)) return nullptr;
  return std::make_unique<GpuBackend>();
}

}  // namespace slotguard
