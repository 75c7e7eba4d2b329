// The GPU backend: uploads the batch once per scenario, then runs every
// group's kernel in both geometries (in dependency order: a qsa_compressed
// group reads its common group's device output) and copies the outputs back.
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>

#include "backend/backend.h"
#include "backend/cuda_check.h"
#include "backend/described_kernel.h"
#include "backend/device_batch.h"
#include "backend/gpu_device.h"
#include "backend/gpu_graph_replays.h"
#include "backend/gpu_provider_chunks.h"
#include "backend/kernel_inputs.h"
#include "backend/run_in_slices.h"
#include "backend/table_memory.h"
#include "kernels/launchers.h"
#include "plugin/mapping_call.h"
#include "plugin/provider_calls.h"
#include "util/parallel_for.h"
#include "writers/cache_pool.h"

namespace slotguard {
namespace {

/// The family whose jobs carry parameter block P.
template <class P>
constexpr Family MappingJobFamily() {
#define SG_FAMILY(id, name) \
  if constexpr (std::is_same_v<P, id##Params>) return Family::k##id;
#include "registry/families.def"
#undef SG_FAMILY
}

class GpuBackend : public Backend {
 public:
  const char* name() const override { return "gpu"; }
  bool Batches() const override { return true; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs,
           std::string* err) override {
    if (OnHost(scenario)) return Host().Run(scenario, outputs, err);
    return OnOwnStream(err, [&](cudaStream_t stream) { return RunOnStream(scenario, stream, outputs, err); });
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios,
               std::vector<std::vector<GroupOutputs>>* outputs, std::string* err, int threads) override {
    // The packed launch runs slotguard's own kernels, mappings only; with the
    // writers, one scenario at a time; with another implementation, chunks
    // of calls enqueued on a few streams, one synchronization each.
    if (writers_.head_bytes > 0) return Backend::RunMany(scenarios, outputs, err, threads);
    for (const Scenario* s : scenarios)
      if (OnHost(*s)) return Backend::RunMany(scenarios, outputs, err, threads);  // each Run decides
    if (provider_) return RunWithProvider(scenarios, outputs, err, threads);
    return OnOwnStream(err, [&](cudaStream_t stream) {
      return RunManyOnStream(scenarios, stream, threads, outputs, err);
    });
  }

  bool RunReplays(const std::vector<Scenario>& replays, std::vector<std::vector<GroupOutputs>>* outputs,
                  std::string* err) override {
    if (!replays.empty() && OnHost(replays[0])) return Host().RunReplays(replays, outputs, err);
    return OnOwnStream(err, [&](cudaStream_t stream) {
      return RunGraphReplays(replays, writers_, provider_.get(), stream, outputs, err);
    });
  }

 private:
  // A scenario with a group no kernel of slotguard's (nor the provider)
  // runs, which the description's interpretation then runs, a group of a
  // per-request kind, or one whose
  // writers skip by another group's output (a writer gate, a formula the
  // host evaluates): the whole scenario runs on the host backend.
  bool OnHost(const Scenario& scenario) const {
    if (AnyRunsDescription(scenario, provider_.get())) return true;
    for (const Group& group : scenario.groups)
      if (PerRequest(group)) return true;  // a state index or block operations per request: no kernel here
    if (writers_.head_bytes <= 0) return false;
    for (const Group& group : scenario.groups)
      if (MappingOf(group).writer_gate.present()) return true;
    return false;
  }
  Backend& Host() {
    std::lock_guard<std::mutex> lock(host_mu_);
    if (!host_) host_ = MakeHostBackend();
    // Configured as this one is (set before any run: only changed when it was).
    if (host_->writers().head_bytes != writers_.head_bytes || host_->writers().max_cache_bytes != writers_.max_cache_bytes)
      host_->set_writers(writers_);
    if (host_->provider() != provider_) host_->set_provider(provider_);
    return *host_;
  }
  std::mutex host_mu_;
  std::unique_ptr<Backend> host_;

  // Another implementation's chunk: split over up to kProviderStreams
  // streams, each packed, enqueued and synchronized on its own thread.
  bool RunWithProvider(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
                       std::string* err, int threads) {
    constexpr size_t kProviderStreams = 8;
    const size_t parts = std::clamp<size_t>(std::min<size_t>(threads, kProviderStreams), 1,
                                            std::max<size_t>(1, scenarios.size() / 64));
    std::lock_guard<std::mutex> lock(provider_mu_);
    while (provider_buffers_.size() < parts) provider_buffers_.push_back(std::make_unique<ProviderChunkBuffers>());
    return RunInSlices(
        scenarios, parts,
        [&](size_t i, const std::vector<const Scenario*>& slice, std::vector<std::vector<GroupOutputs>>* out,
            std::string* e) {
          return OnOwnStream(e, [&](cudaStream_t stream) {
            return RunProviderChunk(slice, *provider_, stream, *provider_buffers_[i], out, e);
          });
        },
        outputs, err);
  }

  std::mutex provider_mu_;
  std::vector<std::unique_ptr<ProviderChunkBuffers>> provider_buffers_;

  // Runs body(stream) on a stream of its own, destroyed after.
  template <class Body>
  static bool OnOwnStream(std::string* err, Body body) {
    cudaStream_t stream;
    SG_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), err);
    const bool ok = body(stream);
    const cudaError_t destroyed = cudaStreamDestroy(stream);
    if (ok && destroyed != cudaSuccess) {
      *err = CudaErrorText("cudaStreamDestroy", destroyed);
      return false;
    }
    return ok;
  }

  // Where one group of one packed scenario lives in the packed buffers.
  struct GroupPlace {
    size_t table = 0;
    TableShape shape;
    size_t out[2] = {0, 0};  // int64 offsets into the engine (and flat) buffer
  };

  template <class P>
  struct FamilyJobs {
    std::vector<MappingJob<P>> jobs;
    DeviceBuffer<MappingJob<P>> device;  // kept between calls, like the other buffers
    // Launches over jobs of similar size: the grid is (the segment's most
    // programs, or flat tiles) x (its jobs), and blocks past a job's own programs return at
    // once, so one engine-scale job must not size the grid of thousands of
    // small ones.
    struct Segment {
      size_t first = 0, count = 0;
      int64_t max_programs = 0, max_tokens = 0;
    };
    std::vector<Segment> segments;

    /// Room for this family's share of `counts` (indexed by Family).
    void Resize(const std::array<size_t, kKernelFamilyCount>& counts) {
      jobs.resize(counts[static_cast<int>(MappingJobFamily<P>())]);
    }
    /// The launch geometry once every job is written: jobs by size,
    /// largest first (each carries its own output pointers: order is free),
    /// cut where the programs halve (or at 65535 jobs, gridDim.y).
    void Measure() {
      constexpr size_t kMaxJobsPerLaunch = 65535;
      constexpr int64_t kSmall = 16;  // below this many programs one launch is cheap anyway
      // A job's size: the larger of its engine programs and its flat tiles.
      auto size = [](const MappingJob<P>& job) {
        return std::max(job.engine_programs, CeilDiv(job.batch.num_tokens, kFlatTile));
      };
      std::sort(jobs.begin(), jobs.end(),
                [&](const MappingJob<P>& a, const MappingJob<P>& b) { return size(a) > size(b); });
      segments.clear();
      int64_t segment_size = 0;
      for (size_t i = 0; i < jobs.size(); ++i) {
        const MappingJob<P>& job = jobs[i];
        if (segments.empty() || segments.back().count == kMaxJobsPerLaunch ||
            (segment_size > kSmall && size(job) * 2 < segment_size)) {
          segments.push_back(Segment{i, 0, 0, 0});
          segment_size = size(job);
        }
        Segment& seg = segments.back();
        seg.count++;
        seg.max_programs = std::max(seg.max_programs, job.engine_programs);
        seg.max_tokens = std::max(seg.max_tokens, job.batch.num_tokens);
      }
    }
  };

  template <class P>
  static Family JobsFamily(const FamilyJobs<P>&) {
    return MappingJobFamily<P>();
  }

  template <class P>
  static bool LaunchJobs(FamilyJobs<P>& family, cudaStream_t stream, std::string* err) {
    if (family.jobs.empty()) return true;
    if (!family.device.Reserve(family.jobs.size(), err)) return false;
    SG_CUDA_TRY(cudaMemcpyAsync(family.device.get(), family.jobs.data(), sizeof(MappingJob<P>) * family.jobs.size(),
                                cudaMemcpyHostToDevice, stream),
                err);
    for (const auto& seg : family.segments)
      SG_CUDA_TRY(LaunchMappingBatch(family.device.get() + seg.first, static_cast<int>(seg.count), seg.max_programs,
                                     seg.max_tokens, stream),
                  err);
    return true;
  }

  // RunMany's buffers, kept between calls (a campaign calls it per chunk):
  // pinned host staging and device memory, grown as needed.
  struct ManyBuffers {
    PinnedBuffer<int32_t> qsl, idx_mapping, tables;
    PinnedBuffer<int64_t> seq_lens, positions, slot_mapping_in, default_common, engine, flat;
    DeviceBuffer<int32_t> d_qsl, d_idx, d_tables;
    DeviceBuffer<int64_t> d_seq, d_pos, d_in, d_common, d_engine, d_flat;
    std::vector<GroupPlace> places;
    // One job list per built-in kernel family (registry/families.def).
#define SG_FAMILY(id, name) std::tuple<FamilyJobs<id##Params>>(),
    decltype(std::tuple_cat(
#include "registry/families.def"
        std::tuple<>())) families;
#undef SG_FAMILY
  };
  std::mutex many_mu_;
  ManyBuffers many_;

  // Copies staged host data into its device buffer, already reserved (the
  // jobs need the device addresses before the copy).
  template <class T>
  static bool Stage(const PinnedBuffer<T>& host, const DeviceBuffer<T>& device, cudaStream_t stream, std::string* err) {
    if (host.size())
      SG_CUDA_TRY(cudaMemcpyAsync(device.get(), host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice, stream),
                  err);
    return true;
  }

  bool RunManyOnStream(const std::vector<const Scenario*>& scenarios, cudaStream_t stream, int threads,
                       std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) {
    std::lock_guard<std::mutex> lock(many_mu_);
    ManyBuffers& m = many_;
    const size_t n = scenarios.size();
    // 1. Placement: each scenario's sizes (in parallel: the table shapes scan
    //    positions), then offsets by a prefix sum, then each scenario packs
    //    itself into pinned staging buffers, in parallel.
    std::vector<size_t> qsl_at(n + 1, 0), req_at(n + 1, 0), tok_at(n + 1, 0), table_at(n + 1, 0), out_at(n + 1, 0);
    // Every group's place, scenario after scenario: scenario i's from group_at[i].
    std::vector<size_t> group_at(n + 1, 0);
    for (size_t i = 0; i < n; ++i) group_at[i + 1] = group_at[i] + scenarios[i]->groups.size();
    std::vector<GroupPlace>& all_places = m.places;
    all_places.resize(group_at[n]);
    auto places = [&](size_t i) { return all_places.data() + group_at[i]; };
    // Jobs per family: each scenario's count, then its first index by a
    // prefix sum, so that scenarios fill their jobs in parallel.
    std::vector<std::array<size_t, kKernelFamilyCount>> job_at(n + 1, std::array<size_t, kKernelFamilyCount>{});
    ParallelFor(n, threads, [&](size_t i) {
      const Scenario& s = *scenarios[i];
      const Batch& b = s.batch;
      size_t table = 0, out = 0;
      for (size_t g = 0; g < s.groups.size(); ++g) {
        const Group& group = s.groups[g];
        GroupPlace& place = places(i)[g];
        place = GroupPlace();
        place.table = table;
        place.shape = ShapeTable(s.table_layout, b, group, group.table.rows);
        table += static_cast<size_t>(place.shape.entries);
        for (int o = 0; o < OutputCount(group); ++o) {
          place.out[o] = out;
          out += static_cast<size_t>(b.num_tokens);
        }
        job_at[i + 1][static_cast<int>(group.family)]++;
      }
      qsl_at[i + 1] = b.query_start_loc.size();
      req_at[i + 1] = b.seq_lens.size();
      tok_at[i + 1] = b.positions.size();
      table_at[i + 1] = table;
      out_at[i + 1] = out;
    });
    for (size_t i = 0; i < n; ++i) {
      qsl_at[i + 1] += qsl_at[i];
      req_at[i + 1] += req_at[i];
      tok_at[i + 1] += tok_at[i];
      table_at[i + 1] += table_at[i];
      out_at[i + 1] += out_at[i];
      for (int f = 0; f < kKernelFamilyCount; ++f) job_at[i + 1][f] += job_at[i][f];
    }
    const size_t out_total = out_at[n];
    if (!m.qsl.Reserve(qsl_at[n], err) || !m.seq_lens.Reserve(req_at[n], err) ||
        !m.idx_mapping.Reserve(req_at[n], err) || !m.tables.Reserve(table_at[n], err) ||
        !m.positions.Reserve(tok_at[n], err) || !m.slot_mapping_in.Reserve(tok_at[n], err) ||
        !m.default_common.Reserve(tok_at[n], err) || !m.engine.Reserve(out_total, err) ||
        !m.flat.Reserve(out_total, err) || !m.d_qsl.Reserve(qsl_at[n], err) || !m.d_seq.Reserve(req_at[n], err) ||
        !m.d_idx.Reserve(req_at[n], err) || !m.d_tables.Reserve(table_at[n], err) ||
        !m.d_pos.Reserve(tok_at[n], err) || !m.d_in.Reserve(tok_at[n], err) ||
        !m.d_common.Reserve(tok_at[n], err) || !m.d_engine.Reserve(out_total, err) ||
        !m.d_flat.Reserve(out_total, err))
      return false;
    // 2. Each scenario packs itself into the pinned staging buffers and
    //    writes its groups' jobs (device addresses are known now), in parallel.
    auto& families = m.families;
    std::apply([&](auto&... f) { (f.Resize(job_at[n]), ...); }, families);
    ParallelFor(n, threads, [&](size_t i) {
      const Scenario& s = *scenarios[i];
      const Batch& batch = s.batch;
      std::copy(batch.query_start_loc.begin(), batch.query_start_loc.end(), m.qsl.data() + qsl_at[i]);
      std::copy(batch.seq_lens.begin(), batch.seq_lens.end(), m.seq_lens.data() + req_at[i]);
      std::copy(batch.idx_mapping.begin(), batch.idx_mapping.end(), m.idx_mapping.data() + req_at[i]);
      std::copy(batch.positions.begin(), batch.positions.end(), m.positions.data() + tok_at[i]);
      std::copy(batch.slot_mapping_in.begin(), batch.slot_mapping_in.end(), m.slot_mapping_in.data() + tok_at[i]);
      WriteDefaultGateMapping(batch, m.default_common.data() + tok_at[i]);
      MappingBatch b = HostMappingBatch(batch);
      b.query_start_loc = m.d_qsl.get() + qsl_at[i];
      b.seq_lens = m.d_seq.get() + req_at[i];
      b.idx_mapping = m.d_idx.get() + req_at[i];
      b.positions = m.d_pos.get() + tok_at[i];
      b.slot_mapping_in = m.d_in.get() + tok_at[i];
      std::array<size_t, kKernelFamilyCount> next_job = job_at[i];
      for (size_t g = 0; g < s.groups.size(); ++g) {
        const Group& group = s.groups[g];
        GroupPlace& place = places(i)[g];
        place.table += table_at[i];
        place.out[0] += out_at[i];
        place.out[1] += out_at[i];
        LayOutTable(s.table_layout, s.num_blocks, group, group.table, place.shape, m.tables.data() + place.table);
      }
      for (size_t g = 0; g < s.groups.size(); ++g) {  // places are final: a group may name its common group's
        const Group& group = s.groups[g];
        const GroupPlace& place = places(i)[g];
        const int common = GateGroupIndex(s, group);
        const int64_t* common_mapping =
            common >= 0 ? m.d_engine.get() + places(i)[common].out[0] : m.d_common.get() + tok_at[i];
        VisitFamily(group, common_mapping, [&](auto family, const auto& params) {
          using F = decltype(family);
          using P = typename F::Params;
          MappingJob<P>& job = std::get<FamilyJobs<P>>(families).jobs[next_job[static_cast<int>(group.family)]++];
          job.params = params;
          job.batch = b;
          job.table = ViewOf(m.d_tables.get() + place.table, place.shape, group.table.width, group.table.rows);
          const bool two = OutputCount(group) > 1;
          job.engine = MappingOutputs{m.d_engine.get() + place.out[0], two ? m.d_engine.get() + place.out[1] : nullptr};
          job.flat = MappingOutputs{m.d_flat.get() + place.out[0], two ? m.d_flat.get() + place.out[1] : nullptr};
          job.engine_programs = F::EnginePrograms(params, b);
        });
      }
    });
    std::apply([](auto&... f) { (f.Measure(), ...); }, families);
    if (!Stage(m.qsl, m.d_qsl, stream, err) || !Stage(m.seq_lens, m.d_seq, stream, err) ||
        !Stage(m.idx_mapping, m.d_idx, stream, err) || !Stage(m.tables, m.d_tables, stream, err) ||
        !Stage(m.positions, m.d_pos, stream, err) || !Stage(m.slot_mapping_in, m.d_in, stream, err) ||
        !Stage(m.default_common, m.d_common, stream, err))
      return false;
    if (out_total) {
      // Zeroed, like the engine's persistent buffers.
      SG_CUDA_TRY(cudaMemsetAsync(m.d_engine.get(), 0, out_total * sizeof(int64_t), stream), err);
      SG_CUDA_TRY(cudaMemsetAsync(m.d_flat.get(), 0, out_total * sizeof(int64_t), stream), err);
    }
    // 3. Launch: the families that read another group's output (a gate)
    //    after the others, whose outputs they read.
    bool launched = true;
    for (const bool reads : {false, true})
      std::apply(
          [&](auto&... f) {
            ((launched = launched && (ReadsAnotherGroup(JobsFamily(f)) != reads || LaunchJobs(f, stream, err))), ...);
          },
          families);
    if (!launched) return false;
    // 4. One download into pinned memory, then split per scenario, group and output.
    const int64_t* engine = m.engine.data();
    const int64_t* flat = m.flat.data();
    if (out_total) {
      SG_CUDA_TRY(cudaMemcpyAsync(m.engine.data(), m.d_engine.get(), out_total * sizeof(int64_t), cudaMemcpyDeviceToHost, stream), err);
      SG_CUDA_TRY(cudaMemcpyAsync(m.flat.data(), m.d_flat.get(), out_total * sizeof(int64_t), cudaMemcpyDeviceToHost, stream), err);
    }
    SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
    outputs->resize(n);  // the caller may hand back an earlier chunk's vectors: their storage is reused
    ParallelFor(n, threads, [&](size_t i) {
      const Scenario& s = *scenarios[i];
      const size_t tokens = static_cast<size_t>(s.batch.num_tokens);
      (*outputs)[i].resize(s.groups.size());
      for (size_t g = 0; g < s.groups.size(); ++g) {
        GroupOutputs& out = (*outputs)[i][g];
        out.fault.clear();
        out.cache.clear();
        out.head_bytes = 0;
        out.read_past_row.assign(tokens, 0);
        const int count = OutputCount(s.groups[g]);
        out.engine.resize(count);
        out.flat.resize(count);
        for (int o = 0; o < count; ++o) {
          const size_t at = places(i)[g].out[o];
          out.engine[o].assign(engine + at, engine + at + tokens);
          out.flat[o].assign(flat + at, flat + at + tokens);
        }
        MarkOutputReadsPastRow(s, s.groups[g], &out);
      }
    });
    return true;
  }

  bool RunOnStream(const Scenario& scenario, cudaStream_t stream,
                   std::vector<GroupOutputs>* outputs, std::string* err) {
    const std::string skip = provider_ ? ProviderSkips(*provider_, scenario) : std::string();
    if (!skip.empty()) {
      MarkSkipped(skip, scenario.groups.size(), outputs);
      return true;
    }
    const Batch& batch = scenario.batch;
    const size_t n = static_cast<size_t>(batch.num_tokens);
    DeviceBatch device_batch;
    DeviceBuffer<int64_t> default_common;
    const std::vector<int64_t> default_common_host = DefaultGateMapping(batch);
    if (!device_batch.Upload(batch, stream, err) || !default_common.Upload(default_common_host.data(), n, stream, err))
      return false;
    const MappingBatch& b = device_batch.view;

    // Device buffers live until the stream is done: [group], engine and flat outputs, the table.
    struct DeviceGroup {
      DeviceBuffer<int64_t> engine[2], flat[2];
      DeviceBuffer<int32_t> table;
      DeviceBuffer<uint8_t> cache;
    };
    std::vector<std::unique_ptr<DeviceGroup>> device(scenario.groups.size());
    const std::string cannot_take = provider_ ? ProviderCannotTake(*provider_, batch) : std::string();
    outputs->assign(scenario.groups.size(), GroupOutputs());
    std::optional<ProviderCalls> calls;
    if (provider_) calls.emplace(*provider_, /*device=*/true);
    // The provider's own error: a finding for this scenario, unless it broke the context.
    auto provider_failed = [&](const std::string& failure, size_t culprit) {
      const cudaError_t sticky = cudaStreamSynchronize(stream);
      if (sticky != cudaSuccess) {
        *err = failure + "; then " + CudaErrorText("cudaStreamSynchronize", sticky);
        return false;
      }
      MarkFaulted(failure, scenario.groups.size(), outputs, culprit);
      return true;
    };
    std::vector<bool> provided(scenario.groups.size(), false);
    // Pass 1, in run order: tables and zeroed outputs, then each mapping
    // (a provider's calls queued, and run before a group that reads them).
    for (size_t i : RunOrder(scenario)) {
      const Group& group = scenario.groups[i];
      provided[i] = provider_ && provider_->Runs(group.family, group.variant);
      LaidOutTable table;
      LayOutGroupTable(scenario, group, provided[i] && GathersTable(*provider_, batch), &table);
      device[i] = std::make_unique<DeviceGroup>();
      DeviceGroup& d = *device[i];
      if (!d.table.Upload(table.memory.data(), table.memory.size(), stream, err)) return false;
      const TableLayout layout = table.View(d.table.get());
      const int count = OutputCount(group);
      for (int o = 0; o < count; ++o) {
        if (!d.engine[o].Allocate(n, err) || !d.flat[o].Allocate(n, err)) return false;
        // Zeroed, like the engine's persistent buffers.
        SG_CUDA_TRY(cudaMemsetAsync(d.engine[o].get(), 0, n * sizeof(int64_t), stream), err);
        SG_CUDA_TRY(cudaMemsetAsync(d.flat[o].get(), 0, n * sizeof(int64_t), stream), err);
      }
      const int common = GateGroupIndex(scenario, group);
      const int64_t* common_mapping = common >= 0 ? device[common]->engine[0].get() : default_common.get();
      const MappingOutputs engine{d.engine[0].get(), count > 1 ? d.engine[1].get() : nullptr};
      const MappingOutputs flat{d.flat[0].get(), count > 1 ? d.flat[1].get() : nullptr};
      std::string failure;
      if (provided[i]) {
        // Someone else's implementation, on our stream: engine output only.
        if (!cannot_take.empty()) return provider_failed(cannot_take, i);
        if (!calls->Add(i, MakeMappingCall(group, table.ReadBatch(b), layout, engine, common_mapping, stream),
                        &failure))
          return provider_failed(failure, calls->failed_group());
        continue;
      }
      if (calls && common >= 0 && calls->Pending(static_cast<size_t>(common)) && !calls->Flush(&failure))
        return provider_failed(failure, calls->failed_group());
      cudaError_t launched = cudaSuccess;
      VisitFamily(group, common_mapping, [&](auto, const auto& params) {
        launched = LaunchMapping(params, b, layout, Geometry::kEngine, engine, stream);
        if (launched == cudaSuccess) launched = LaunchMapping(params, b, layout, Geometry::kFlat, flat, stream);
      });
      SG_CUDA_TRY(launched, err);
    }
    std::string failure;
    if (calls && !calls->Flush(&failure)) return provider_failed(failure, calls->failed_group());
    // Pass 2: the outputs back, the writers from the engine outputs, one synchronization.
    for (size_t i = 0; i < scenario.groups.size(); ++i) {
      const Group& group = scenario.groups[i];
      GroupOutputs& out = (*outputs)[i];
      DeviceGroup& d = *device[i];
      out.read_past_row.assign(n, 0);
      const int count = OutputCount(group);
      out.engine.assign(count, std::vector<int64_t>());
      out.flat.assign(provided[i] ? 0 : count, std::vector<int64_t>());
      for (int o = 0; o < count; ++o) {
        out.engine[o].resize(n);
        if (n)
          SG_CUDA_TRY(cudaMemcpyAsync(out.engine[o].data(), d.engine[o].get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream), err);
        if (provided[i]) continue;
        out.flat[o].resize(n);
        if (n)
          SG_CUDA_TRY(cudaMemcpyAsync(out.flat[o].data(), d.flat[o].get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream), err);
      }
      out.head_bytes = writers_.head_bytes;
      CacheView view = CacheGeometry(scenario, group, writers_.head_bytes);
      if (writers_.head_bytes > 0 && CacheFits(view, writers_.max_cache_bytes)) {
        // The pool before the run (block 0 zero, the rest poison), the
        // writer from the engine output, then the whole pool back.
        const size_t bytes = static_cast<size_t>(CacheBytes(view));
        if (!d.cache.Allocate(bytes, err)) return false;
        view.bytes = d.cache.get();
        SG_CUDA_TRY(InitCacheOnDevice(view, stream), err);
        SG_CUDA_TRY(LaunchWriter(WriterFor(group), view,
                                 WriterJobFor(group, d.engine[0].get(), batch.num_tokens, static_cast<int32_t>(i)),
                                 stream),
                    err);
        out.cache.resize(bytes);
        if (bytes)
          SG_CUDA_TRY(cudaMemcpyAsync(out.cache.data(), view.bytes, bytes, cudaMemcpyDeviceToHost, stream), err);
      }
    }
    SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
    for (size_t i = 0; i < scenario.groups.size(); ++i)
      MarkOutputReadsPastRow(scenario, scenario.groups[i], &(*outputs)[i]);
    return true;
  }
};

}  // namespace

std::unique_ptr<Backend> MakeGpuBackend(std::string* why) {
  if (!GpuUsable(why)) return nullptr;
  return std::make_unique<GpuBackend>();
}

}  // namespace slotguard
