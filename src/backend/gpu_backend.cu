// The GPU backend: uploads the batch once per scenario, then runs every
// group's kernel in both geometries and copies the outputs back.
#include "backend/backend.h"
#include "backend/cuda_check.h"
#include "backend/gpu_device.h"
#include "backend/kernel_inputs.h"
#include "kernels/paged_kernels.h"

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
    DeviceBuffer<int64_t> positions, slot_mapping_in;
    if (!qsl.Upload(batch.query_start_loc.data(), batch.query_start_loc.size(), stream, err) ||
        !seq_lens.Upload(batch.seq_lens.data(), batch.seq_lens.size(), stream, err) ||
        !idx_mapping.Upload(batch.idx_mapping.data(), batch.idx_mapping.size(), stream, err) ||
        !positions.Upload(batch.positions.data(), n, stream, err) ||
        !slot_mapping_in.Upload(batch.slot_mapping_in.data(), n, stream, err))
      return false;
    MappingBatch b = HostMappingBatch(batch);
    b.query_start_loc = qsl.get();
    b.seq_lens = seq_lens.get();
    b.idx_mapping = idx_mapping.get();
    b.positions = positions.get();
    b.slot_mapping_in = slot_mapping_in.get();

    outputs->assign(scenario.groups.size(), GroupOutputs());
    for (size_t i = 0; i < scenario.groups.size(); ++i) {
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
      switch (group.family) {
        case Family::kPaged: {
          const PagedParams params = MakePagedParams(group);
          out.engine.resize(1);
          out.flat.resize(1);
          out.engine[0].resize(n);
          out.flat[0].resize(n);
          DeviceBuffer<int64_t> engine, flat;
          if (!engine.Allocate(n, err) || !flat.Allocate(n, err)) return false;
          SG_CUDA_TRY(cudaMemsetAsync(engine.get(), 0, n * sizeof(int64_t), stream), err);
          SG_CUDA_TRY(cudaMemsetAsync(flat.get(), 0, n * sizeof(int64_t), stream), err);
          SG_CUDA_TRY(LaunchPaged(params, b, layout, Geometry::kEngine, engine.get(), stream), err);
          SG_CUDA_TRY(LaunchPaged(params, b, layout, Geometry::kFlat, flat.get(), stream), err);
          if (n) {
            SG_CUDA_TRY(cudaMemcpyAsync(out.engine[0].data(), engine.get(), n * sizeof(int64_t),
                                        cudaMemcpyDeviceToHost, stream), err);
            SG_CUDA_TRY(cudaMemcpyAsync(out.flat[0].data(), flat.get(), n * sizeof(int64_t),
                                        cudaMemcpyDeviceToHost, stream), err);
          }
          SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
          MarkPoisonReads(out.engine[0], group.kernel_block_size, &out.read_past_row);
          MarkPoisonReads(out.flat[0], group.kernel_block_size, &out.read_past_row);
          break;
        }
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
