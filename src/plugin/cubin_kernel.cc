// --kernel-cubin FILE --kernel-spec SPEC.json: a compiled kernel (cubin,
// fatbin or PTX; Triton's cache holds cubins) loaded with the CUDA runtime's
// library API and launched with the arguments and grid the spec binds
// (spec_launch.h works them out). Spec 2's device memory (scratch buffers,
// group arrays) is stream-ordered: allocated, filled and freed on the call's
// stream around the launch, so many calls may be queued before slotguard
// synchronizes, and a CUDA-graph capture records it as graph memory nodes.
#include <algorithm>
#include <cstring>
#include <map>

#include <cuda_runtime_api.h>

#include "backend/cuda_check.h"
#include "plan/scenario_plan.h"
#include "plugin/abi_provider.h"
#include "plugin/kernel_spec.h"
#include "plugin/mapping_call.h"
#include "plugin/open_provider.h"
#include "plugin/spec_launch.h"
#include "registry/families.h"
#include "scenario/table_extent.h"
#include "util/error_line.h"
#include "util/output_file.h"

namespace slotguard {
namespace {

// Group arrays reach the device through this kernel: their words travel as
// its by-value parameter, so no host buffer has to outlive the launch (a
// captured graph keeps the values). The PTX nvcc 13 emits (with .version
// lowered to 7.0, which it needs at most) for
//   struct SgFillWords { unsigned long long w[480]; };
//   extern "C" __global__ void slotguard_fill_words(unsigned long long* dst, unsigned int count,
//                                                   SgFillWords words) {
//     for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) dst[i] = words.w[i];
//   }
constexpr unsigned kFillWords = 480;
struct FillWords {
  uint64_t w[kFillWords];
};
const char kFillWordsPtx[] = R"PTX(.version 7.0
.target sm_75
.address_size 64

  // .globl  slotguard_fill_words

.visible .entry slotguard_fill_words(
  .param .u64 slotguard_fill_words_param_0,
  .param .u32 slotguard_fill_words_param_1,
  .param .align 8 .b8 slotguard_fill_words_param_2[3840]
)
{
  .reg .pred   %p<3>;
  .reg .b32   %r<7>;
  .reg .b64   %rd<9>;


  ld.param.u64   %rd3, [slotguard_fill_words_param_0];
  ld.param.u32   %r5, [slotguard_fill_words_param_1];
  mov.b64   %rd4, slotguard_fill_words_param_2;
  mov.u32   %r6, %tid.x;
  setp.ge.u32   %p1, %r6, %r5;
  @%p1 bra   $L__BB0_3;

  mov.u32   %r2, %ntid.x;
  cvta.to.global.u64   %rd1, %rd3;

$L__BB0_2:
  mul.wide.u32   %rd5, %r6, 8;
  add.s64   %rd6, %rd4, %rd5;
  ld.param.u64   %rd7, [%rd6];
  add.s64   %rd8, %rd1, %rd5;
  st.global.u64   [%rd8], %rd7;
  add.s32   %r6, %r6, %r2;
  setp.lt.u32   %p2, %r6, %r5;
  @%p2 bra   $L__BB0_2;

$L__BB0_3:
  ret;

}
)PTX";

/// What SkipReason evaluates: the call an executor would make for a plan
/// step, with its sizes and parameters but no device memory.
sg_mapping_call SizesCall(const ScenarioPlan& plan, const PlanStep& step) {
  const Scenario& s = *plan.scenario;
  return MakeMappingCall(s.groups[step.group], TableReadBatch(HostMappingBatch(s.batch), step.table.gathered),
                         step.table.View(nullptr), MappingOutputs{}, nullptr, nullptr);
}

class CubinKernel : public AbiProvider {
 public:
  /// `kernels`: the spec's own, or one per specialization; `fill` when it has group arrays.
  CubinKernel(std::string path, std::string spec_path, KernelSpec spec, std::vector<cudaLibrary_t> libraries,
              std::vector<cudaKernel_t> kernels, cudaKernel_t fill)
      : path_(std::move(path)), spec_path_(std::move(spec_path)), spec_(std::move(spec)),
        libraries_(std::move(libraries)), kernels_(std::move(kernels)), fill_(fill), families_{spec_.family} {}
  ~CubinKernel() override {
    for (cudaLibrary_t library : libraries_) cudaLibraryUnload(library);
  }

  std::string name() const override {
    return "kernel " + EscapeText(spec_.display_symbol()) + " (" + EscapeText(path_, 0) + ", spec " +
           EscapeText(spec_path_, 0) + ")";
  }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return false; }
  bool reads_persistent_tables() const override { return spec_.version >= 2; }
  bool has_device() const override { return true; }
  bool takes_whole_scenarios() const override { return spec_.whole_scenario; }

  bool Launch(const sg_mapping_call& call, bool device, std::string* err) override {
    return LaunchCalls({call}, device, err);
  }
  bool LaunchScenario(const std::vector<sg_mapping_call>& calls, bool device, std::string* err) override {
    if (!spec_.whole_scenario) return AbiProvider::LaunchScenario(calls, device, err);
    return LaunchCalls(calls, device, err);
  }

  // The call it would be made for the step (or, for a whole-scenario
  // spec, the one call over every step it runs, in run order) must have a
  // kernel.
  std::string SkipReason(const ScenarioPlan& plan, size_t step) const override {
    const PlanStep& own = plan.steps[step];
    if (!spec_.whole_scenario)
      return ChooseSpecKernel(spec_, {SizesCall(plan, own)}, {plan.scenario->groups[own.group].name}).skip;
    std::vector<sg_mapping_call> calls;
    std::vector<std::string> names;
    for (const PlanStep& s : plan.steps) {
      if (s.runner != StepRunner::kProvider) continue;
      calls.push_back(SizesCall(plan, s));
      names.push_back(plan.scenario->groups[s.group].name);
    }
    return ChooseSpecKernel(spec_, calls, names).skip;
  }

 private:
  /// One launch over `calls` (one group's, or every group's of a whole-scenario spec).
  bool LaunchCalls(const std::vector<sg_mapping_call>& calls, bool device, std::string* err) {
    if (calls.empty()) return true;
    if (!device) {
      *err = "a compiled kernel runs only on the gpu backend";
      return false;
    }
    if (spec_.version == 1 && calls[0].block_table_rows_by_idx_mapping) {  // a safety net: the backends gather the table
      *err = spec_path_ + ": a spec-1 kernel has no persistent block tables (batch.table_rows \"idx_mapping\"); "
             "expected \"slotguard_kernel_spec\": 2 for this scenario";
      return false;
    }
    const SpecChoice choice = ChooseSpecKernel(spec_, calls);
    if (!choice.error.empty()) {
      *err = choice.error;
      return false;
    }
    if (!choice.kernel) {  // the backends ask SkipReason first; this is the safety net
      *err = "not launched: " + choice.skip;
      return false;
    }
    LaunchPlan plan;
    if (!PlanLaunch(spec_, *choice.kernel, calls, &plan, err)) return false;
    const SpecKernel& k = *choice.kernel;
    const cudaKernel_t kernel = kernels_[choice.specialization < 0 ? 0 : choice.specialization];
    const cudaStream_t stream = static_cast<cudaStream_t>(calls[0].stream);
    std::vector<void*> memory;  // freed on the stream after the launch
    const bool launched = LaunchPlanned(k, kernel, plan, stream, &memory, err);
    for (void* p : memory) {
      const cudaError_t e = cudaFreeAsync(p, stream);
      if (e != cudaSuccess && launched) {
        *err = CudaErrorText("cudaFreeAsync", e);
        return false;
      }
    }
    return launched;
  }

  bool LaunchPlanned(const SpecKernel& k, cudaKernel_t kernel, const LaunchPlan& plan, cudaStream_t stream,
                     std::vector<void*>* memory, std::string* err) {
    // Every argument in its own 8-byte cell; args[i] points at cell i.
    std::vector<uint64_t> cells(plan.args.size());
    std::vector<void*> args(plan.args.size());
    for (size_t i = 0; i < plan.args.size(); ++i) {
      const PlannedArg& a = plan.args[i];
      cells[i] = a.cell;
      args[i] = &cells[i];
      if (a.kind == PlannedArg::Kind::kCell || a.bytes == 0) continue;  // a cell, or a null pointer
      void* p = nullptr;
      const size_t bytes = static_cast<size_t>((a.bytes + 7) / 8 * 8);
      SG_CUDA_TRY(cudaMallocAsync(&p, bytes, stream), err);
      memory->push_back(p);
      std::memcpy(&cells[i], &p, sizeof(p));
      if (a.kind == PlannedArg::Kind::kScratch) {
        // 0xFF bytes: a kernel reading scratch it never wrote sees -1s, not zeros.
        SG_CUDA_TRY(cudaMemsetAsync(p, 0xFF, bytes, stream), err);
      } else if (!FillArray(p, a.data, stream, err)) {
        return false;
      }
    }
    // An empty grid launches nothing (PlanLaunch checked each dimension: no product to wrap).
    if (plan.grid[0] == 0 || plan.grid[1] == 0 || plan.grid[2] == 0) return true;
    const dim3 g(static_cast<unsigned>(plan.grid[0]), static_cast<unsigned>(plan.grid[1]),
                 static_cast<unsigned>(plan.grid[2]));
    const dim3 b(k.block[0], k.block[1], k.block[2]);
    const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(kernel), g, b, args.data(),
                                           static_cast<size_t>(k.shared_bytes), stream);
    if (e != cudaSuccess) {
      *err = CudaErrorText(("cudaLaunchKernel(" + k.symbol + ")").c_str(), e);
      return false;
    }
    return true;
  }

  /// Writes `data` to `device` (room for it rounded up to 8 bytes) on the stream.
  bool FillArray(void* device, const std::vector<uint8_t>& data, cudaStream_t stream, std::string* err) {
    const size_t words = (data.size() + 7) / 8;
    for (size_t at = 0; at < words; at += kFillWords) {
      FillWords w{};
      const size_t bytes = std::min(data.size() - at * 8, size_t{kFillWords} * 8);
      std::memcpy(w.w, data.data() + at * 8, bytes);
      void* dst = static_cast<uint64_t*>(device) + at;
      unsigned count = static_cast<unsigned>(std::min<size_t>(words - at, kFillWords));
      void* args[] = {&dst, &count, &w};
      SG_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(fill_), dim3(1), dim3(256), args, 0, stream), err);
    }
    return true;
  }

  std::string path_, spec_path_;
  KernelSpec spec_;
  std::vector<cudaLibrary_t> libraries_;
  std::vector<cudaKernel_t> kernels_;
  cudaKernel_t fill_ = nullptr;
  std::vector<Family> families_;
};

/// Loads the libraries the spec's kernels live in, each once.
class Libraries {
 public:
  ~Libraries() {
    for (auto& [path, library] : loaded_) cudaLibraryUnload(library);
  }
  /// The library of `file`, loaded once; `pointer` names the spec key in errors ("" for --kernel-cubin).
  bool Get(const std::string& file, const std::string& spec_path, const std::string& pointer, cudaLibrary_t* out,
           std::string* err) {
    auto it = loaded_.find(file);
    if (it != loaded_.end()) {
      *out = it->second;
      return true;
    }
    const std::string where = pointer.empty() ? "--kernel-cubin " + EscapeText(file, 0)
                                              : EscapeText(spec_path, 0) + ":" + pointer + ": " + EscapeText(file, 0);
    // Never opened before it is known to be a regular file: a FIFO would block.
    if (const std::string problem = NotARegularFile(file); !problem.empty()) {
      *err = where + ": " + problem + "; expected a cubin, fatbin or PTX file" +
             (pointer.empty() ? "" : " (a relative path is from the spec's folder)");
      return false;
    }
    const cudaError_t e = cudaLibraryLoadFromFile(out, file.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
      *err = where + ": cannot load it: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
             "; expected a cubin, fatbin or PTX for this GPU";
      return false;
    }
    loaded_[file] = *out;
    return true;
  }
  /// Hands the libraries over (the provider unloads them).
  std::vector<cudaLibrary_t> Release() {
    std::vector<cudaLibrary_t> out;
    for (auto& [path, library] : loaded_) out.push_back(library);
    loaded_.clear();
    return out;
  }

 private:
  std::map<std::string, cudaLibrary_t> loaded_;
};

}  // namespace

std::unique_ptr<MappingProvider> OpenCubinKernel(const std::string& cubin, const std::string& spec_path,
                                                 std::string* err) {
  KernelSpec spec;
  if (!LoadKernelSpec(spec_path, &spec, err) || !CheckConstantGrids(spec, err)) return nullptr;
  if (const std::string problem = NotARegularFile(cubin); !problem.empty()) {
    *err = "--kernel-cubin " + EscapeText(cubin, 0) + ": " + problem + "; expected a cubin, fatbin or PTX file";
    return nullptr;
  }
  // The kernels that launch: the spec's own, or each specialization's.
  std::vector<const SpecKernel*> launchable;
  std::vector<std::string> pointers;  // where each one is in the spec
  if (spec.specializations.empty()) {
    launchable.push_back(&spec);
    pointers.push_back("");
  }
  for (size_t i = 0; i < spec.specializations.size(); ++i) {
    launchable.push_back(&spec.specializations[i].kernel);
    pointers.push_back("/specializations/" + std::to_string(i));
  }
  Libraries libraries;
  std::vector<cudaKernel_t> kernels;
  bool group_arrays = false;
  for (size_t i = 0; i < launchable.size(); ++i) {
    const SpecKernel& k = *launchable[i];
    const std::string file = k.cubin.empty() ? cubin : k.cubin;
    cudaLibrary_t library;
    if (!libraries.Get(file, spec_path, k.cubin.empty() ? "" : pointers[i] + "/cubin", &library, err)) return nullptr;
    cudaKernel_t kernel;
    const cudaError_t e = cudaLibraryGetKernel(&kernel, library, k.symbol.c_str());
    if (e != cudaSuccess) {
      const std::string key = pointers[i].empty() || k.symbol == spec.symbol ? "/symbol" : pointers[i] + "/symbol";
      *err = spec_path + ":" + key + ": no kernel '" + k.symbol + "' in " + file + " (" + cudaGetErrorName(e) +
             "); expected the kernel's (mangled) symbol name, e.g. from `cuobjdump -symbols`";
      return nullptr;
    }
    if (k.shared_bytes > 48 * 1024)
      cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           k.shared_bytes);
    kernels.push_back(kernel);
    for (const SpecArg& a : k.params) group_arrays = group_arrays || a.kind == SpecArgKind::kGroupArray;
  }
  cudaKernel_t fill = nullptr;
  if (group_arrays) {
    cudaLibrary_t library;
    cudaError_t e = cudaLibraryLoadData(&library, kFillWordsPtx, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e == cudaSuccess) {
      e = cudaLibraryGetKernel(&fill, library, "slotguard_fill_words");
      cudaFuncAttributes attributes;  // compiles the PTX now, not inside a first launch
      if (e == cudaSuccess) e = cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(fill));
      if (e != cudaSuccess) cudaLibraryUnload(library);
    }
    if (e != cudaSuccess) {
      *err = spec_path + ": cannot load slotguard's group-array copy kernel (PTX): " + cudaGetErrorName(e) + ": " +
             cudaGetErrorString(e) + "; expected a driver that compiles PTX 7.0";
      return nullptr;
    }
    std::vector<cudaLibrary_t> loaded = libraries.Release();
    loaded.push_back(library);
    return std::make_unique<CubinKernel>(cubin, spec_path, std::move(spec), std::move(loaded), std::move(kernels), fill);
  }
  return std::make_unique<CubinKernel>(cubin, spec_path, std::move(spec), libraries.Release(), std::move(kernels),
                                       nullptr);
}

}  // namespace slotguard
