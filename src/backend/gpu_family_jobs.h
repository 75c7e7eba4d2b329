// The GPU packer's launches of slotguard's own kernels: every plan step of
// one built-in family, from many scenarios, as jobs of one batched launch
// per wave (kernels/launchers.h LaunchMappingBatch, both geometries). CUDA
// code: included by .cu files only.
#ifndef SLOTGUARD_BACKEND_GPU_FAMILY_JOBS_H_
#define SLOTGUARD_BACKEND_GPU_FAMILY_JOBS_H_

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backend/cuda_check.h"
#include "kernels/launchers.h"
#include "registry/families.h"
#include "family/group_model.h"  // ReadsAnotherGroup

namespace slotguard {

/// The family whose jobs carry parameter block P.
template <class P>
constexpr Family MappingJobFamily() {
#define SG_FAMILY(id, name) \
  if constexpr (std::is_same_v<P, id##Params>) return Family::k##id;
#include "registry/families.def"
#undef SG_FAMILY
}

template <class P>
struct FamilyJobs {
  std::vector<MappingJob<P>> jobs;  // after Measure: wave by wave, each wave's largest first
  std::vector<int> waves;           // [job] its plan step's wave
  DeviceBuffer<MappingJob<P>> device;  // kept between calls, like the other buffers
  // Launches over jobs of one wave and similar size: the grid is (the
  // segment's most programs, or flat tiles) x (its jobs), and blocks past a
  // job's own programs return at once, so one engine-scale job must not
  // size the grid of thousands of small ones.
  struct Segment {
    size_t first = 0, count = 0;
    int64_t max_programs = 0, max_tokens = 0;
    int wave = 0;
  };
  std::vector<Segment> segments;

  static Family family() { return MappingJobFamily<P>(); }

  /// Room for this family's share of `counts` (indexed by Family).
  void Resize(const std::array<size_t, kKernelFamilyCount>& counts) {
    jobs.resize(counts[static_cast<int>(family())]);
    waves.assign(jobs.size(), 0);
  }

  /// The launch geometry once every job is written: jobs by wave, then by
  /// size, largest first (each carries its own output pointers: order is
  /// free), cut at each wave, where the programs halve, or at 65535 jobs
  /// (gridDim.y).
  void Measure() {
    constexpr size_t kMaxJobsPerLaunch = 65535;
    constexpr int64_t kSmall = 16;  // below this many programs one launch is cheap anyway
    // A job's size: the larger of its engine programs and its flat tiles.
    auto size = [](const MappingJob<P>& job) {
      return std::max(job.engine_programs, CeilDiv(job.batch.num_tokens, kFlatTile));
    };
    std::vector<size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return waves[a] != waves[b] ? waves[a] < waves[b] : size(jobs[a]) > size(jobs[b]);
    });
    std::vector<MappingJob<P>> sorted(jobs.size());
    std::vector<int> sorted_waves(jobs.size());
    for (size_t i = 0; i < order.size(); ++i) {
      sorted[i] = jobs[order[i]];
      sorted_waves[i] = waves[order[i]];
    }
    jobs.swap(sorted);
    waves.swap(sorted_waves);
    segments.clear();
    int64_t segment_size = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const MappingJob<P>& job = jobs[i];
      if (segments.empty() || segments.back().count == kMaxJobsPerLaunch || segments.back().wave != waves[i] ||
          (segment_size > kSmall && size(job) * 2 < segment_size)) {
        segments.push_back(Segment{i, 0, 0, 0, waves[i]});
        segment_size = size(job);
      }
      Segment& seg = segments.back();
      seg.count++;
      seg.max_programs = std::max(seg.max_programs, job.engine_programs);
      seg.max_tokens = std::max(seg.max_tokens, job.batch.num_tokens);
    }
  }

  /// Copies the jobs to the device (before any launch of them).
  bool Upload(cudaStream_t stream, std::string* err) {
    if (jobs.empty()) return true;
    if (!device.Reserve(jobs.size(), err)) return false;
    SG_CUDA_TRY(cudaMemcpyAsync(device.get(), jobs.data(), sizeof(MappingJob<P>) * jobs.size(),
                                cudaMemcpyHostToDevice, stream),
                err);
    return true;
  }

  /// Launches the jobs of wave `wave`.
  bool Launch(int wave, cudaStream_t stream, std::string* err) const {
    for (const Segment& seg : segments)
      if (seg.wave == wave)
        SG_CUDA_TRY(LaunchMappingBatch(device.get() + seg.first, static_cast<int>(seg.count), seg.max_programs,
                                       seg.max_tokens, stream),
                    err);
    return true;
  }
};

/// One job list per built-in kernel family (registry/families.def).
#define SG_FAMILY(id, name) std::tuple<FamilyJobs<id##Params>>(),
using AllFamilyJobs = decltype(std::tuple_cat(
#include "registry/families.def"
    std::tuple<>()));
#undef SG_FAMILY

/// Wave `wave` of every family: those that read no other group's output
/// first, then those that do (they read the first ones' outputs).
inline bool LaunchWave(const AllFamilyJobs& families, int wave, cudaStream_t stream, std::string* err) {
  bool launched = true;
  for (const bool reads : {false, true})
    std::apply(
        [&](const auto&... f) {
          ((launched = launched && (ReadsAnotherGroup(f.family()) != reads || f.Launch(wave, stream, err))), ...);
        },
        families);
  return launched;
}

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_FAMILY_JOBS_H_
