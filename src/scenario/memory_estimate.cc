#include "scenario/memory_estimate.h"

#include <limits>

namespace slotguard {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) { return a > kMax - b ? kMax : a + b; }

}  // namespace

MemoryCosts CostsOf(const RunFootprint& footprint) {
  // Host, measured (docs/limits.md): 16 bytes per token per copy of the
  // scenario (positions, slot_mapping_in), two copies (the loaded scenario
  // and the run's own); ~30 bytes per output token (engine, reference, the
  // invariants' scratch).
  int64_t scenario_copies = 2, run_copies = 1;
  if (footprint.isolated) {  // the worker's copy of the scenario; its outputs, their reply frame, slotguard's copy
    scenario_copies += 1;
    run_copies += 2;
  }
  if (footprint.graph_replays) {  // the padded scenario and three replays of it, each with its outputs
    scenario_copies += 4;
    run_copies *= 3;
  }
  const int64_t replays = footprint.graph_replays ? 3 : 1;
  MemoryCosts c;
  c.per_token = 16 * scenario_copies;
  // The writers: each group's payload (head_bytes per token) and the
  // memory invariants' view of what it wrote, both measured.
  c.per_output_token = (32 + 2 * int64_t{footprint.head_bytes}) * run_copies;
  c.per_request = 40 * scenario_copies;
  c.per_table_entry = 12 * scenario_copies;
  // A pool is filled and written in place (measured: one copy); through a
  // worker it crosses the pipe: the worker's pool, its reply frame and the
  // outputs slotguard reads from it (measured: three).
  c.pool_copies = (footprint.isolated ? 3 : 1) * replays;
  c.per_expect_slot = 8 * scenario_copies;
  c.fixed = int64_t{footprint.isolated || footprint.provider_process ? 32 : 16} << 20;  // each process's code, data and stacks (~10 MiB measured)
  if (footprint.provider_process) {
    // The request message (positions, slot_mapping_in, request_of_token:
    // 20 bytes a token) in slotguard and in the provider; per output of a
    // provided group, the reply in both and slotguard's parsed answer.
    // Measured (docs/limits.md): 16M tokens, one provided kpool_tail group,
    // 1480 MiB for both processes against 982 for slotguard alone.
    c.per_provided_token = 40;
    c.per_provided_output_token = 24;
  }
  if (footprint.device) {
    // On the device (measured on an H200, docs/limits.md): the batch's
    // arrays with request_of_token and seq_lens_i32, each output in both
    // geometries with its staging, the pool, and the CUDA context itself.
    // With the writers, their payload and the memory invariants' buffers
    // there too (measured: ~450 bytes per token at 64 head bytes).
    c.per_token += 48;
    c.per_output_token += (64 + 8 * int64_t{footprint.head_bytes}) * replays;
    c.per_request += 24;
    c.per_table_entry += 8;
    c.pool_copies += 1;
    c.fixed += int64_t{640} << 20;
  }
  return c;
}

void MemoryEstimate::AddFixed(int64_t bytes) { bytes_ = SaturatingAdd(bytes_, bytes); }

void MemoryEstimate::Add(int64_t bytes, const std::string& pointer, const std::string& what) {
  if (bytes < 0) bytes = kMax;
  bytes_ = SaturatingAdd(bytes_, bytes);
  if (bytes > largest_bytes_) {
    largest_bytes_ = bytes;
    largest_pointer_ = pointer;
    largest_what_ = what;
  }
}

}  // namespace slotguard
