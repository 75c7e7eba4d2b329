// The host backend: runs each family's kernel source on the CPU.
#include "backend/backend.h"
#include "backend/kernel_inputs.h"
#include "kernels/host_loop.h"

namespace slotguard {
namespace {

class HostBackend : public Backend {
 public:
  const char* name() const override { return "host"; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
           std::string* /*err*/) override {
    const Batch& batch = scenario.batch;
    const MappingBatch b = HostMappingBatch(batch);
    const size_t n = static_cast<size_t>(batch.num_tokens);
    std::vector<int64_t> default_common;  // built only for a qsa_compressed group without `common`
    outputs->resize(scenario.groups.size());  // reuses the buffers of an earlier run
    for (size_t i : RunOrder(scenario)) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      out.row_bounds_evidence = "instrumented block-table reads";
      out.read_past_row.assign(n, 0);
      TableLayout layout;
      const std::vector<int32_t> table = PaddedTable(batch, group, &layout.row_stride);
      layout.data = table.data();
      layout.width = group.table.width;
      layout.rows = group.table.rows;
      const int outputs_count = OutputCount(group);
      out.engine.resize(outputs_count);
      out.flat.resize(outputs_count);
      for (int o = 0; o < outputs_count; ++o) {
        out.engine[o].assign(n, 0);  // zeroed, like the engine's persistent buffers
        out.flat[o].assign(n, 0);
      }
      const int common = CommonGroupIndex(scenario, group);
      if (group.family == Family::kQsaCompressed && common < 0 && default_common.empty())
        default_common = DefaultCommonMapping(batch);
      const int64_t* common_mapping =
          common >= 0 ? (*outputs)[common].engine[0].data() : default_common.data();
      VisitFamily(group, common_mapping, [&](auto family, const auto& params) {
        using F = decltype(family);
        const MappingOutputs engine{out.engine[0].data(), outputs_count > 1 ? out.engine[1].data() : nullptr};
        const MappingOutputs flat{out.flat[0].data(), outputs_count > 1 ? out.flat[1].data() : nullptr};
        RunOnHost<F>(params, b, layout, Geometry::kEngine, engine, out.read_past_row.data());
        RunOnHost<F>(params, b, layout, Geometry::kFlat, flat, out.read_past_row.data());
      });
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeHostBackend() { return std::make_unique<HostBackend>(); }

}  // namespace slotguard
