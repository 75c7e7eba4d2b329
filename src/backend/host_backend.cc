// The host backend: runs each family's kernel source, and the writers' source,
// on the CPU.
#include <optional>

#include "backend/backend.h"
#include "backend/described_kernel.h"
#include "backend/kernel_inputs.h"
#include "backend/table_memory.h"
#include "kernels/host_loop.h"
#include "plugin/mapping_call.h"
#include "plugin/provider_calls.h"
#include "writers/cache_pool.h"

namespace slotguard {
namespace {

class HostBackend : public Backend {
 public:
  const char* name() const override { return "host"; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
           std::string* /*err*/) override {
    outputs->resize(scenario.groups.size());  // reuses the buffers of an earlier run
    const std::string skip = provider_ ? ProviderSkips(*provider_, scenario) : std::string();
    if (!skip.empty()) {
      MarkSkipped(skip, scenario.groups.size(), outputs);
      return true;
    }
    Reset(scenario, outputs);
    size_t culprit = SIZE_MAX;
    const std::string fault = RunPass(scenario, /*flat=*/true, outputs, &culprit);
    if (!fault.empty()) MarkFaulted(fault, scenario.groups.size(), outputs, culprit);
    return true;
  }

  bool RunReplays(const std::vector<Scenario>& replays, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* /*err*/) override {
    outputs->clear();
    if (replays.empty()) return true;
    const std::string skip = provider_ ? ProviderSkips(*provider_, replays[0]) : std::string();
    if (!skip.empty()) {
      outputs->resize(1);
      MarkSkipped(skip, replays[0].groups.size(), &(*outputs)[0]);
      return true;
    }
    std::vector<GroupOutputs> state(replays[0].groups.size());
    Reset(replays[0], &state);
    for (const Scenario& replay : replays) {
      size_t culprit = SIZE_MAX;
      const std::string fault = RunPass(replay, /*flat=*/false, &state, &culprit);  // the buffers persist, like a graph's
      outputs->push_back(state);
      if (!fault.empty()) {
        MarkFaulted(fault, replay.groups.size(), &outputs->back(), culprit);
        break;
      }
    }
    return true;
  }

 private:
  // Output buffers zeroed, like the engine's persistent buffers; caches in
  // their before-the-run state.
  void Reset(const Scenario& scenario, std::vector<GroupOutputs>* outputs) const {
    for (size_t i = 0; i < scenario.groups.size(); ++i) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      // A slot per token, or per request (a state index, block operations).
      const size_t n = static_cast<size_t>(std::max<int64_t>(0, OutputLength(group, scenario.batch)));
      const int count = OutputCount(group);
      out.engine.resize(count);
      out.flat.resize(count);
      for (int o = 0; o < count; ++o) {
        out.engine[o].assign(n, 0);
        out.flat[o].assign(n, 0);
      }
      out.fault.clear();
      out.skipped.clear();
      out.head_bytes = writers_.head_bytes;
      const CacheView view = CacheGeometry(scenario, group, writers_.head_bytes);
      // A per-request kind (state indices, block operations) has no KV pool:
      // its consumers' writes are judged from the indices (state_writes).
      if (writers_.head_bytes > 0 && !PerRequest(group) && CacheFits(view, writers_.max_cache_bytes)) {
        FillInitialCache(view, &out.cache);
      } else {
        out.cache.clear();
      }
    }
  }

  // Every group's mapping (engine geometry, and flat when asked), then the
  // writers from the engine output. Returns the provider's failure, if any,
  // and in *culprit the group whose call failed.
  std::string RunPass(const Scenario& scenario, bool flat, std::vector<GroupOutputs>* outputs,
                      size_t* culprit) const {
    const Batch& batch = scenario.batch;
    const ProviderArrays extra = provider_ ? ProviderArrays(batch) : ProviderArrays();
    const MappingBatch b = HostMappingBatch(batch, provider_ ? &extra : nullptr);
    const std::string cannot_take = provider_ ? ProviderCannotTake(*provider_, batch) : std::string();
    std::vector<int64_t> default_gate;  // built only for a gated kernel group whose scenario names no linked group
    thread_local std::vector<LaidOutTable> tables;  // reused: a campaign calls Run from several threads
    if (tables.size() < scenario.groups.size()) tables.resize(scenario.groups.size());
    std::optional<ProviderCalls> calls;
    if (provider_) calls.emplace(*provider_, /*device=*/false);
    std::string failure;
    // A provided group's outputs are final once its call ran.
    auto finish_provided = [&] {
      for (size_t g : calls->ran()) {
        (*outputs)[g].flat.clear();
        MarkOutputReadsPastRow(scenario, scenario.groups[g], &(*outputs)[g]);
      }
    };
    for (size_t i : RunOrder(scenario)) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      out.row_bounds_evidence = "instrumented block-table reads";
      out.read_past_row.assign(static_cast<size_t>(batch.num_tokens), 0);
      const bool provided = provider_ && provider_->Runs(group.family, group.variant);
      LaidOutTable& table = tables[i];
      LayOutGroupTable(scenario, group, provided && GathersTable(*provider_, batch), &table);
      const TableLayout layout = table.View();
      const bool two = OutputCount(group) > 1;
      const int common = GateGroupIndex(scenario, group);
      if (common < 0 && MappingOf(group).gate.present() && default_gate.empty())
        default_gate = DefaultGateMapping(batch, MappingOf(group).gate.absent);
      const int64_t* common_mapping = common >= 0 ? (*outputs)[common].engine[0].data() : default_gate.data();
      if (provided) {
        // Someone else's implementation: engine output only; in the padded
        // layout reads past a row show as the poison id in the output.
        const MappingOutputs engine{out.engine[0].data(), two ? out.engine[1].data() : nullptr};
        if (!cannot_take.empty()) {
          *culprit = i;
          return cannot_take;
        }
        if (!calls->Add(i, MakeMappingCall(group, table.ReadBatch(b), layout, engine, common_mapping, nullptr),
                        &failure)) {
          *culprit = calls->failed_group();
          return failure;
        }
        continue;
      }
      if (calls && common >= 0 && calls->Pending(static_cast<size_t>(common)) && !calls->Flush(&failure)) {
        *culprit = calls->failed_group();
        return failure;
      }
      if (RunsDescription(group, provider_.get())) {
        // No kernel of slotguard's: the description's own interpretation.
        if (!RunDescribedGroup(scenario, group, common >= 0 ? common_mapping : nullptr, &out, &failure)) {
          *culprit = i;
          return failure;
        }
        continue;
      }
      VisitFamily(group, common_mapping, [&](auto family, const auto& params) {
        using F = decltype(family);
        const MappingOutputs engine{out.engine[0].data(), two ? out.engine[1].data() : nullptr};
        RunOnHost<F>(params, b, layout, Geometry::kEngine, engine, out.read_past_row.data());
        if (flat) {
          const MappingOutputs flat_out{out.flat[0].data(), two ? out.flat[1].data() : nullptr};
          RunOnHost<F>(params, b, layout, Geometry::kFlat, flat_out, out.read_past_row.data());
        }
      });
    }
    if (calls) {
      if (!calls->Flush(&failure)) {
        *culprit = calls->failed_group();
        return failure;
      }
      finish_provided();
    }
    if (!flat)
      for (GroupOutputs& out : *outputs) out.flat.clear();
    if (writers_.head_bytes <= 0) return "";
    for (size_t i = 0; i < scenario.groups.size(); ++i) {
      GroupOutputs& out = (*outputs)[i];
      if (out.cache.empty()) continue;  // over max_cache_bytes
      const Group& group = scenario.groups[i];
      CacheView cache = CacheGeometry(scenario, group, writers_.head_bytes);
      cache.bytes = out.cache.data();
      const int gate = WriterGateGroupIndex(scenario, group);
      const std::vector<uint8_t> skips =
          WriterSkips(scenario, group, gate >= 0 ? (*outputs)[gate].engine[0].data() : nullptr);
      WriterJob job = WriterJobFor(group, out.engine[0].data(), batch.num_tokens, static_cast<int32_t>(i));
      job.skip = skips.empty() ? nullptr : skips.data();
      RunWriterOnHost(WriterFor(group), cache, job);
    }
    return "";
  }
};

}  // namespace

std::unique_ptr<Backend> MakeHostBackend() { return std::make_unique<HostBackend>(); }

}  // namespace slotguard
