#include "backend/gpu_packed.h"

#include <cstring>

#include "backend/gpu_family_jobs.h"
#include "backend/kernel_inputs.h"
#include "util/parallel_for.h"
#include "writers/cache_pool.h"
#include "writers/writer_launch.h"

namespace slotguard {

struct PackedBuffers::Jobs {
  AllFamilyJobs families;
};
PackedBuffers::PackedBuffers() : jobs(std::make_unique<Jobs>()) {}
PackedBuffers::~PackedBuffers() = default;

namespace {

using JobCounts = std::array<size_t, kKernelFamilyCount>;

size_t Take(size_t* at, size_t bytes) {
  const size_t here = (*at + 15) & ~size_t{15};
  *at = here + bytes;
  return here;
}

// Where everything of one plan goes, relative to its own block of each
// arena; its own kernels' jobs counted per family.
void PlaceRun(const ScenarioPlan& plan, PackedPlace* p, JobCounts* jobs) {
  const Batch& b = plan.scenario->batch;
  const size_t n = static_cast<size_t>(b.num_tokens), r = b.seq_lens.size();
  size_t in = 0, out = 0;
  p->failed = !plan.skip.empty();
  p->qsl = Take(&in, (r + 1) * 4);
  p->positions = Take(&in, n * 8);
  p->seq_lens = Take(&in, r * 8);
  p->idx = Take(&in, r * 4);
  p->slot_in = Take(&in, n * 8);
  p->seq_i32 = plan.provided ? Take(&in, r * 4) : 0;
  p->owner = plan.provided ? Take(&in, n * 4) : 0;
  for (int rule = 0; rule < 2; ++rule) p->absent[rule] = plan.absent_gate[rule].empty() ? 0 : Take(&in, n * 8);
  const size_t steps = plan.steps.size();
  p->table.assign(steps, 0);
  p->out.assign(steps, {0, 0, 0, 0});
  p->cache.assign(steps, 0);
  for (size_t k = 0; k < steps && !p->failed; ++k) {
    const PlanStep& step = plan.steps[k];
    p->table[k] = Take(&in, static_cast<size_t>(step.table.shape.entries) * 4);
    const bool own = step.runner == StepRunner::kOwnKernel;
    for (int o = 0; o < step.outputs; ++o) {
      p->out[k][o] = Take(&out, n * 8);
      if (own) p->out[k][2 + o] = Take(&out, n * 8);
    }
    if (step.writes) p->cache[k] = Take(&out, static_cast<size_t>(CacheBytes(step.cache)));
    if (own) (*jobs)[static_cast<int>(plan.scenario->groups[step.group].family)]++;
  }
  p->in_bytes = p->failed ? 0 : in;
  p->out_bytes = p->failed ? 0 : out;
}

// The device memory of one plan's block of each arena.
struct DeviceBlock {
  uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  int64_t* Out(size_t at) const { return reinterpret_cast<int64_t*>(out + at); }
  template <class T>
  const T* In(size_t at) const {
    return reinterpret_cast<const T*>(in + at);
  }
};

// The plan's inputs in its staging block; its batch pointed at the device copy.
void StageRun(const ScenarioPlan& plan, uint8_t* host, const DeviceBlock& dev, PackedPlace* p) {
  const Batch& b = plan.scenario->batch;
  const size_t n = static_cast<size_t>(b.num_tokens), r = b.seq_lens.size();
  auto put = [&](size_t at, const void* data, size_t bytes) {
    if (bytes) std::memcpy(host + at, data, bytes);
  };
  put(p->qsl, b.query_start_loc.data(), (r + 1) * 4);
  put(p->positions, b.positions.data(), n * 8);
  put(p->seq_lens, b.seq_lens.data(), r * 8);
  put(p->idx, b.idx_mapping.data(), r * 4);
  put(p->slot_in, b.slot_mapping_in.data(), n * 8);
  for (int rule = 0; rule < 2; ++rule) put(p->absent[rule], plan.absent_gate[rule].data(), 8 * plan.absent_gate[rule].size());
  for (size_t k = 0; k < plan.steps.size(); ++k)
    LayOutStepTable(plan, k, reinterpret_cast<int32_t*>(host + p->table[k]));
  MappingBatch batch = HostMappingBatch(b);
  batch.query_start_loc = dev.In<int32_t>(p->qsl);
  batch.positions = dev.In<int64_t>(p->positions);
  batch.seq_lens = dev.In<int64_t>(p->seq_lens);
  batch.idx_mapping = dev.In<int32_t>(p->idx);
  batch.slot_mapping_in = dev.In<int64_t>(p->slot_in);
  if (plan.provided) {
    put(p->seq_i32, plan.arrays.seq_lens_i32.data(), r * 4);
    put(p->owner, plan.arrays.request_of_token.data(), n * 4);
    batch.seq_lens_i32 = dev.In<int32_t>(p->seq_i32);
    batch.request_of_token = dev.In<int32_t>(p->owner);
  }
  p->batch = batch;
}

// The device output a step's gate reads, or nullptr.
const int64_t* DeviceGate(const ScenarioPlan& plan, const PlanStep& step, const PackedPlace& p, const DeviceBlock& dev) {
  if (step.gate_group >= 0) return dev.Out(p.out[static_cast<size_t>(plan.step_of_group[step.gate_group])][0]);
  if (step.gate_absent) return dev.In<int64_t>(p.absent[static_cast<int>(step.absent_rule)]);
  return nullptr;
}

// The plan's own kernels as jobs, from next[family] on.
void WriteJobs(const ScenarioPlan& plan, const PackedPlace& p, const DeviceBlock& dev, AllFamilyJobs* families,
               JobCounts next) {
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& step = plan.steps[k];
    if (step.runner != StepRunner::kOwnKernel) continue;
    const Group& group = plan.scenario->groups[step.group];
    const bool two = step.outputs > 1;
    VisitFamily(group, DeviceGate(plan, step, p, dev), [&](auto family, const auto& params) {
      using P = typename decltype(family)::Params;
      FamilyJobs<P>& jobs = std::get<FamilyJobs<P>>(*families);
      const size_t j = next[static_cast<int>(group.family)]++;
      MappingJob<P>& job = jobs.jobs[j];
      jobs.waves[j] = step.wave;
      job.params = params;
      job.batch = p.batch;
      job.table = step.table.View(dev.In<int32_t>(p.table[k]));
      job.engine = MappingOutputs{dev.Out(p.out[k][0]), two ? dev.Out(p.out[k][1]) : nullptr};
      job.flat = MappingOutputs{dev.Out(p.out[k][2]), two ? dev.Out(p.out[k][3]) : nullptr};
      job.engine_programs = decltype(family)::EnginePrograms(params, p.batch);
    });
  }
}

// The implementation's steps of wave `wave`, every plan's, on the stream.
bool CallProvider(const std::vector<PackedRun>& runs, const PackedExecution& how, int wave, cudaStream_t stream,
                  std::vector<PackedPlace>& places, const std::vector<DeviceBlock>& blocks, std::string* err) {
  std::vector<StepCall> calls;
  std::vector<size_t> run_of_call;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ScenarioPlan& plan = *runs[i].plan;
    const PackedPlace& p = places[i];
    if (p.failed || !plan.provided || wave >= plan.waves) continue;
    AppendCalls(plan, wave, how.provider->takes_whole_scenarios(), p.batch, stream,
                [&](size_t k) {
                  const PlanStep& step = plan.steps[k];
                  StepArgs a;
                  a.table = step.table.View(blocks[i].In<int32_t>(p.table[k]));
                  a.out = MappingOutputs{blocks[i].Out(p.out[k][0]), step.outputs > 1 ? blocks[i].Out(p.out[k][1]) : nullptr};
                  a.gate = DeviceGate(plan, step, p, blocks[i]);
                  return a;
                },
                &calls);
    run_of_call.resize(calls.size(), i);
  }
  if (calls.empty()) return true;
  if (!how.provider->RunCalls(&calls, /*device=*/true, 1, err)) return false;
  for (size_t c = 0; c < calls.size(); ++c) {
    PackedPlace& p = places[run_of_call[c]];
    if (!p.failed && !ApplyOutcome(calls[c], runs[run_of_call[c]].outputs)) p.failed = true;
  }
  return true;
}

// Pools in their before-the-run state, or (after the mappings) the writers.
bool CacheWork(const std::vector<PackedRun>& runs, const std::vector<PackedPlace>& places,
               const std::vector<DeviceBlock>& blocks, bool write, cudaStream_t stream, std::string* err) {
  for (size_t i = 0; i < runs.size(); ++i) {
    const ScenarioPlan& plan = *runs[i].plan;
    if (places[i].failed) continue;
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      const PlanStep& step = plan.steps[k];
      if (!step.writes) continue;
      CacheView view = step.cache;
      view.bytes = blocks[i].out + places[i].cache[k];
      if (!write) {
        SG_CUDA_TRY(InitCacheOnDevice(view, stream), err);
        continue;
      }
      for (const OutputWriter& w : step.writers) {
        const WriterJob job = w.Job(blocks[i].Out(places[i].out[k][w.output]));
        SG_CUDA_TRY(LaunchWriter(w.kind, view, job, stream), err);
      }
    }
  }
  return true;
}

// One plan's outputs from the downloaded arena.
void Unpack(const ScenarioPlan& plan, const PackedPlace& p, const uint8_t* host, const WriterOptions& writers,
            std::vector<GroupOutputs>* outputs) {
  const Scenario& s = *plan.scenario;
  const size_t n = static_cast<size_t>(s.batch.num_tokens);
  outputs->resize(s.groups.size());  // the caller may hand back an earlier chunk's vectors: their storage is reused
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& step = plan.steps[k];
    GroupOutputs& out = (*outputs)[step.group];
    out.fault.clear();
    out.culprit = false;
    out.skipped.clear();
    out.not_run = false;
    out.head_bytes = writers.head_bytes;
    const bool own = step.runner == StepRunner::kOwnKernel;
    out.engine.resize(step.outputs);
    out.flat.resize(own ? step.outputs : 0);
    for (int o = 0; o < step.outputs; ++o) {
      const int64_t* e = reinterpret_cast<const int64_t*>(host + p.out[k][o]);
      out.engine[o].assign(e, e + n);
      if (!own) continue;
      const int64_t* f = reinterpret_cast<const int64_t*>(host + p.out[k][2 + o]);
      out.flat[o].assign(f, f + n);
    }
    if (step.writes) {
      const uint8_t* c = host + p.cache[k];
      out.cache.assign(c, c + CacheBytes(step.cache));
    } else {
      out.cache.clear();
    }
    out.read_past_row.assign(n, 0);
    MarkOutputReadsPastRow(s, s.groups[step.group], &out);
  }
}

// Offsets by prefix sums; the buffers reserved; per-run job starts.
bool Reserve(const std::vector<PackedRun>& runs, PackedBuffers* b, std::vector<JobCounts>* job_at, size_t* in,
             size_t* out, std::string* err) {
  std::vector<PackedPlace>& places = b->places;
  *in = *out = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    places[i].in_at = Take(in, places[i].in_bytes);
    places[i].out_at = Take(out, places[i].out_bytes);
    for (int f = 0; f < kKernelFamilyCount; ++f) (*job_at)[i + 1][f] += (*job_at)[i][f];
  }
  std::apply([&](auto&... f) { (f.Resize(job_at->back()), ...); }, b->jobs->families);
  return b->host_in.Reserve(*in, err) && b->device_in.Reserve(*in, err) && b->host_out.Reserve(*out, err) &&
         b->device_out.Reserve(*out, err);
}

}  // namespace

bool RunPacked(const std::vector<PackedRun>& runs, const PackedExecution& how, cudaStream_t stream,
               PackedBuffers* buffers, std::string* err) {
  const size_t n = runs.size();
  std::vector<PackedPlace>& places = buffers->places;
  places.resize(n);
  // 1. Placement: each plan's sizes (in parallel), then offsets.
  std::vector<JobCounts> job_at(n + 1, JobCounts{});
  ParallelFor(n, how.threads, [&](size_t i) { PlaceRun(*runs[i].plan, &places[i], &job_at[i + 1]); });
  size_t in_bytes, out_bytes;
  if (!Reserve(runs, buffers, &job_at, &in_bytes, &out_bytes, err)) return false;
  std::vector<DeviceBlock> blocks(n);
  for (size_t i = 0; i < n; ++i)
    blocks[i] = DeviceBlock{buffers->device_in.get() + places[i].in_at, buffers->device_out.get() + places[i].out_at};
  // 2. Each plan stages itself and writes its jobs (device addresses are known now), in parallel.
  AllFamilyJobs& families = buffers->jobs->families;
  ParallelFor(n, how.threads, [&](size_t i) {
    if (places[i].failed) return MarkSkipped(runs[i].plan->skip, runs[i].plan->scenario->groups.size(), runs[i].outputs);
    StageRun(*runs[i].plan, buffers->host_in.data() + places[i].in_at, blocks[i], &places[i]);
    WriteJobs(*runs[i].plan, places[i], blocks[i], &families, job_at[i]);
  });
  std::apply([](auto&... f) { (f.Measure(), ...); }, families);
  // 3. The upload, zeroed outputs (as the engine's persistent buffers), the pools.
  bool uploaded = true;
  std::apply([&](auto&... f) { ((uploaded = uploaded && f.Upload(stream, err)), ...); }, families);
  if (!uploaded) return false;
  if (in_bytes)
    SG_CUDA_TRY(cudaMemcpyAsync(buffers->device_in.get(), buffers->host_in.data(), in_bytes, cudaMemcpyHostToDevice,
                                stream), err);
  if (out_bytes) SG_CUDA_TRY(cudaMemsetAsync(buffers->device_out.get(), 0, out_bytes, stream), err);
  if (!CacheWork(runs, places, blocks, /*write=*/false, stream, err)) return false;
  // 4. Wave by wave: slotguard's kernels, then the implementation's calls.
  int waves = 0;
  for (const PackedRun& run : runs) waves = std::max(waves, run.plan->waves);
  for (int wave = 0; wave < waves; ++wave)
    if (!LaunchWave(families, wave, stream, err) ||
        (how.provider && !CallProvider(runs, how, wave, stream, places, blocks, err)))
      return false;
  if (!CacheWork(runs, places, blocks, /*write=*/true, stream, err)) return false;
  // 5. One download, one synchronization, then split per plan.
  if (out_bytes)
    SG_CUDA_TRY(cudaMemcpyAsync(buffers->host_out.data(), buffers->device_out.get(), out_bytes, cudaMemcpyDeviceToHost,
                                stream), err);
  SG_CUDA_TRY(cudaStreamSynchronize(stream), err);
  ParallelFor(n, how.threads, [&](size_t i) {
    if (!places[i].failed) Unpack(*runs[i].plan, places[i], buffers->host_out.data() + places[i].out_at, how.writers,
                                  runs[i].outputs);
  });
  return true;
}

}  // namespace slotguard
