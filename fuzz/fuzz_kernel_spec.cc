// libFuzzer target: arbitrary bytes into the kernel-spec reader
// (--kernel-spec, plugin/kernel_spec.h), then what a valid spec would
// launch (plugin/spec_launch.h) on a few calls of its family: the formula
// evaluator sees every grid, value, precondition and specialization the
// fuzzer can write. Every input is a one-line error or a spec; every
// launch decision is a kernel, a one-line skip or a one-line error, never a
// crash or undefined behaviour (division by zero, overflow, a huge scratch).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "plugin/kernel_spec.h"
#include "plugin/spec_launch.h"
#include "registry/families.h"

namespace {

void OneLineOrDie(const std::string& what, const std::string& line) {
  if (line.empty() || line.find('\n') != std::string::npos || line.size() > 4096) {
    std::fprintf(stderr, "slotguard: %s is not one short line: '%s'\n", what.c_str(), line.c_str());
    std::abort();
  }
}

// One call of the family, its sizes from `shape` (0: empty batch, 1: small,
// 2: sizes at int32's edge), its parameter from `param`.
sg_mapping_call Call(const char* family, int shape, int32_t param) {
  static const int32_t qsl[4] = {0, 3, 5, 9};
  static const int64_t i64s[16] = {};
  static const int32_t i32s[16] = {};
  static int64_t out[16], tail[16];
  sg_mapping_call c{};
  c.abi_version = 2;
  c.family = family;
  c.variant = "fixed";
  c.query_start_loc = qsl;
  c.positions = c.seq_lens = c.slot_mapping_in = i64s;
  c.seq_lens_i32 = c.idx_mapping = c.request_of_token = i32s;
  c.block_table = i32s;
  c.slot_mapping = out;
  c.tail_slot_mapping = tail;
  c.num_reqs = shape == 0 ? 0 : shape == 1 ? 3 : INT32_MAX;
  c.num_actual_tokens = shape == 0 ? 0 : shape == 1 ? 9 : INT64_MAX / 2;
  c.num_real_tokens = c.num_actual_tokens;
  c.num_tokens = shape == 0 ? 0 : shape == 1 ? 16 : INT64_MAX;
  c.block_table_row_stride = shape == 2 ? INT64_MAX : 4;
  c.block_table_width = shape == 2 ? INT32_MAX : 4;
  c.block_table_rows = c.num_reqs;
  c.paged.block_size = param;
  c.paged.kernel_block_size = param;
  c.paged.dcp_world = 1;
  c.paged.enabled = 1;
  c.kpool_tail.kpool = param;
  c.qsa_ring.ring = param;
  c.qsa_compressed.block_size = param;
  c.qsa_compressed.compress_ratio = param == 0 ? 1 : param;
  c.qsa_compressed.common_slot_mapping = i64s;
  c.compressor_ring.capacity = param;
  c.compressor_ring.ring_block_size = param;
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotguard;
  const std::string text(reinterpret_cast<const char*>(data), size);
  KernelSpec spec;
  std::string err;
  if (!ParseKernelSpec(text, "spec.json", &spec, &err)) {
    OneLineOrDie("spec error", err);
    return 0;
  }
  const std::string family = GetFamily(spec.family).name;
  for (int shape = 0; shape < 3; ++shape) {
    for (int32_t param : {0, 1, 16, INT32_MAX}) {
      // One call, and (whole-scenario specs) two groups that differ.
      std::vector<sg_mapping_call> calls = {Call(family.c_str(), shape, param)};
      if (spec.whole_scenario) calls.push_back(Call(family.c_str(), shape, param == 16 ? 1 : 16));
      const SpecChoice choice = ChooseSpecKernel(spec, calls, {"a", "b"});
      if (!choice.kernel) {
        OneLineOrDie("skip or error", choice.skip.empty() ? choice.error : choice.skip);
        continue;
      }
      LaunchPlan plan;
      err.clear();
      if (!PlanLaunch(spec, *choice.kernel, calls, &plan, &err)) {
        OneLineOrDie("launch error", err);
        continue;
      }
      for (int d = 0; d < 3; ++d)
        if (plan.grid[d] < 0 || plan.grid[d] > INT32_MAX) {
          std::fprintf(stderr, "slotguard: a planned grid of %lld in dimension %d\n",
                       static_cast<long long>(plan.grid[d]), d);
          std::abort();
        }
    }
  }
  return 0;
}
