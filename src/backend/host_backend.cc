// The host backend: runs each family's kernel source on the CPU.
#include "backend/backend.h"
#include "backend/kernel_inputs.h"
#include "kernels/paged_host.h"

namespace slotguard {
namespace {

class HostBackend : public Backend {
 public:
  const char* name() const override { return "host"; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
           std::string* /*err*/) override {
    const Batch& batch = scenario.batch;
    const MappingBatch b = HostMappingBatch(batch);
    outputs->assign(scenario.groups.size(), GroupOutputs());
    for (size_t i = 0; i < scenario.groups.size(); ++i) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      out.row_bounds_evidence = "instrumented block-table reads";
      out.read_past_row.assign(batch.num_tokens, 0);
      TableLayout layout;
      const std::vector<int32_t> table = PaddedTable(batch, group, &layout.row_stride);
      layout.data = table.data();
      layout.width = group.table.width;
      layout.rows = group.table.rows;
      switch (group.family) {
        case Family::kPaged: {
          const PagedParams params = MakePagedParams(group);
          out.engine.resize(1);
          out.flat.resize(1);
          out.engine[0].assign(batch.num_tokens, 0);
          out.flat[0].assign(batch.num_tokens, 0);
          RunPagedHost(params, b, layout, Geometry::kEngine, out.engine[0].data(),
                       out.read_past_row.data());
          RunPagedHost(params, b, layout, Geometry::kFlat, out.flat[0].data(),
                       out.read_past_row.data());
          break;
        }
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeHostBackend() { return std::make_unique<HostBackend>(); }

}  // namespace slotguard
