// --kernel-cubin FILE --kernel-spec SPEC.json: a compiled kernel (cubin,
// fatbin or PTX; Triton's cache holds cubins) loaded with the CUDA runtime's
// library API and launched with the arguments and grid the spec binds.
#include <cstring>
#include <fstream>
#include <mutex>

#include <cuda_runtime_api.h>

#include "backend/cuda_check.h"
#include "plugin/kernel_spec.h"
#include "plugin/mapping_provider.h"
#include "registry/families.h"

namespace slotguard {
namespace {

class CubinKernel : public MappingProvider {
 public:
  CubinKernel(std::string path, std::string spec_path, KernelSpec spec, cudaLibrary_t library, cudaKernel_t kernel)
      : path_(std::move(path)), spec_path_(std::move(spec_path)), spec_(std::move(spec)), library_(library),
        kernel_(kernel), families_{spec_.family} {}
  ~CubinKernel() override { cudaLibraryUnload(library_); }

  std::string name() const override {
    return "kernel " + spec_.symbol + " (" + path_ + ", spec " + spec_path_ + ")";
  }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return false; }
  bool reads_persistent_tables() const override { return spec_.version >= 2; }
  bool has_device() const override { return true; }

  bool Launch(const sg_mapping_call& call, bool device, std::string* err) override {
    if (!device) {
      *err = "a compiled kernel runs only on the gpu backend";
      return false;
    }
    if (spec_.version == 1 && call.block_table_rows_by_idx_mapping) {  // a safety net: the backends gather the table
      *err = spec_path_ + ": a spec-1 kernel has no persistent block tables (batch.table_rows \"idx_mapping\"); "
             "expected \"slotguard_kernel_spec\": 2 for this scenario";
      return false;
    }
    // Every argument in its own 8-byte cell; args[i] points at cell i.
    std::vector<uint64_t> cells(spec_.params.size());
    std::vector<void*> args(spec_.params.size());
    for (size_t i = 0; i < spec_.params.size(); ++i) {
      const SpecArg& a = spec_.params[i];
      int64_t value = 0;
      if (a.kind == SpecArgKind::kBuffer) {
        const void* p = CallBuffer(a.name, call);
        std::memcpy(&cells[i], &p, sizeof(p));
      } else {
        if (a.kind == SpecArgKind::kConstant) {
          value = a.constant;
        } else if (!CallVariable(a.name, call, &value)) {
          *err = spec_path_ + ":/params/" + std::to_string(i) + ": '" + a.name + "' is not a parameter of family " +
                 call.family;
          return false;
        }
        if (a.type == SpecType::kI32) {
          const int32_t v32 = static_cast<int32_t>(value);
          std::memcpy(&cells[i], &v32, sizeof(v32));
        } else {
          std::memcpy(&cells[i], &value, sizeof(value));
        }
      }
      args[i] = &cells[i];
    }
    int64_t grid[3];
    for (int d = 0; d < 3; ++d) {
      std::string why;
      if (!spec_.grid[d].Evaluate(call, &grid[d], &why)) {
        *err = spec_path_ + ":/grid/" + std::to_string(d) + ": " + why;
        return false;
      }
      if (grid[d] < 0 || grid[d] > INT32_MAX) {
        *err = spec_path_ + ":/grid/" + std::to_string(d) + ": '" + spec_.grid[d].text() + "' is " +
               std::to_string(grid[d]) + " here; expected 0 <= grid <= 2^31-1";
        return false;
      }
    }
    if (grid[0] * grid[1] * grid[2] == 0) return true;  // nothing to launch
    const dim3 g(static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]));
    const dim3 b(spec_.block[0], spec_.block[1], spec_.block[2]);
    const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), g, b, args.data(),
                                           static_cast<size_t>(spec_.shared_bytes), static_cast<cudaStream_t>(call.stream));
    if (e != cudaSuccess) {
      *err = CudaErrorText(("cudaLaunchKernel(" + spec_.symbol + ")").c_str(), e);
      return false;
    }
    return true;
  }

 private:
  std::string path_, spec_path_;
  KernelSpec spec_;
  cudaLibrary_t library_;
  cudaKernel_t kernel_;
  std::vector<Family> families_;
};

}  // namespace

std::unique_ptr<MappingProvider> OpenCubinKernel(const std::string& cubin, const std::string& spec_path,
                                                 std::string* err) {
  KernelSpec spec;
  if (!LoadKernelSpec(spec_path, &spec, err)) return nullptr;
  if (!std::ifstream(cubin)) {
    *err = "--kernel-cubin " + cubin + ": cannot open file; expected a cubin, fatbin or PTX file";
    return nullptr;
  }
  cudaLibrary_t library;
  cudaError_t e = cudaLibraryLoadFromFile(&library, cubin.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    *err = "--kernel-cubin " + cubin + ": cannot load it: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) +
           "; expected a cubin, fatbin or PTX for this GPU";
    return nullptr;
  }
  cudaKernel_t kernel;
  e = cudaLibraryGetKernel(&kernel, library, spec.symbol.c_str());
  if (e != cudaSuccess) {
    cudaLibraryUnload(library);
    *err = spec_path + ":/symbol: no kernel '" + spec.symbol + "' in " + cubin + " (" + cudaGetErrorName(e) +
           "); expected the kernel's (mangled) symbol name, e.g. from `cuobjdump -symbols`";
    return nullptr;
  }
  if (spec.shared_bytes > 48 * 1024)
    cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                         spec.shared_bytes);
  return std::make_unique<CubinKernel>(cubin, spec_path, std::move(spec), library, kernel);
}

}  // namespace slotguard
