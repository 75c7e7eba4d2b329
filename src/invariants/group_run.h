// Everything an invariant may look at for one group of one scenario: the
// kernel's outputs (both geometries), the reference's, the golden values and
// the group's addressing facts. Invariants never re-run a kernel.
#ifndef SLOTGUARD_INVARIANTS_GROUP_RUN_H_
#define SLOTGUARD_INVARIANTS_GROUP_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "family/family_plan.h"
#include "invariants/finding.h"
#include "family/group_model.h"
#include "scenario/scenario.h"

namespace slotguard {

struct OutputRun {
  std::string name;
  const std::vector<int64_t>* kernel = nullptr;     // engine geometry, [num_tokens]
  const std::vector<int64_t>* flat = nullptr;       // flat geometry, or nullptr
  const std::vector<int64_t>* reference = nullptr;  // [num_tokens]
  const std::vector<int64_t>* golden = nullptr;     // expect.slot_mapping, or nullptr
  // What the reference knows of each token (family/family_plan.h TokenFact
  // bits), [num_tokens]; nullptr: nothing (every bit clear).
  const std::vector<uint8_t>* facts = nullptr;
  // The writer that writes the pool through this output when the kernel
  // runs (WriterMappingOf), or nullptr: nothing writes through it.
  const WriterDesc* writer = nullptr;
  // The tokens that writer skips whatever their slot (a writer gate, a
  // dummy's tokens), as the references say, [num_tokens]; nullptr: none.
  const std::vector<uint8_t>* writer_skips = nullptr;
  // The reference's own writer (MappingOf): what write_set expects.
  const WriterDesc* reference_writer = nullptr;
};

struct GroupRun {
  const Scenario* scenario = nullptr;
  const Group* group = nullptr;
  std::vector<OutputRun> outputs;
  const std::vector<int32_t>* request_of_token = nullptr;  // [num_tokens], RequestOfToken()
  const std::vector<uint8_t>* read_past_row = nullptr;     // [num_tokens]
  std::string row_bounds_evidence;

  // Addressing (the description's): a table entry names `slots_per_entry`
  // slots; entries below `null_entries` name the null block; so the null
  // block is slots [0, page()) and the pool is [0, slot_limit).
  int64_t slots_per_entry = 1;
  int64_t null_entries = 1;
  int64_t slot_limit = 0;
  int64_t page() const { return slots_per_entry * null_entries; }
  // Tokens from tail_start hold the family's tail value (PAD,
  // slot_mapping_in, or the null slot of a sink): padding_tail judges them.
  // Tokens [0, mapped_end) are what the kernel maps, and the slot
  // invariants judge them: every token, but for a tail copied through from
  // slot_mapping_in (kpool_tail from num_actual_tokens), which may hold anything.
  int64_t tail_start = 0;
  int64_t mapped_end = 0;
  // A per-request kind (state_index, block_op): the elements per request of
  // each output (1 for a state index); 0 for a slot per token. Element e
  // then belongs to request e / ops_per_request (request_of_token says so).
  int64_t ops_per_request = 0;
  TailValue tail_value = TailValue::kPad;
  NullPage null_page = NullPage::kPristine;
  NullPageRead null_page_read = NullPageRead::kAny;  // what its readers need of block 0 (null_read)
  int64_t pad_value = -1;  // what an unmapped token holds (the description's pad_value)

  const Batch& batch() const { return scenario->batch; }
};

/// A group's KV pool after the writers (docs/memory-and-graphs.md), for the memory
/// invariants: num_blocks * page() slots of head_bytes bytes each.
struct MemoryRun {
  const std::vector<uint8_t>* cache = nullptr;
  int32_t head_bytes = 0;
  int32_t group_index = 0;   // what the writer put into each payload word
  std::string when;          // "" after the run, or e.g. "after the dummy-batch graph replay"
  // The pool before this run, when it did not start from the initial state
  // (zero in block 0, poison elsewhere): a CUDA-graph step after earlier
  // ones. A block-0 slot already dirty there is an earlier step's write,
  // judged at that step; a slot no token should write must hold its bytes.
  const std::vector<uint8_t>* before = nullptr;
  // With `before`: whether null_bytes judges a block-0 slot that was dirty
  // before and that this run's own output rewrites (the real batch: its
  // writes are its own whatever an earlier step left), or leaves it to the
  // step that dirtied it first (the protocol's dummy batches, reported once).
  bool judge_rewrites = true;
  // null_read: the step the group runs in, as a finding names it ("the
  // graph replay of the real batch"; "": the run), and, per block-0 slot,
  // the step that last changed it before this one ("" or nullptr: unknown).
  std::string step;
  const std::vector<std::string>* null_writers = nullptr;
};

/// Fills the addressing facts (and mapped_end) of `run` from its group's description.
void SetAddressing(GroupRun* run);

/// Whether request r's own row (row r, or idx_mapping[r] of a persistent
/// table; row r of a ragged CSR table) holds block id `id`; a dummy of a
/// persistent table holds none, nor does any request of a dummy run (but
/// under a request sink, whose dummies own their pages).
bool RowHolds(const GroupRun& run, int32_t r, int64_t id);

/// The state kernels of a per-request group: its variant's consumers (a
/// described variant restores an engine's), else its family's.
const std::vector<ConsumerDesc>& ConsumersOf(const Group& group);

/// The request of every token under the group's description: r for
/// qsl[r] <= t < qsl[r+1]; -1 for tokens of no request; a family whose
/// owner is the last request gives tokens in [qsl[R], its mapped end) to
/// request R-1 (kpool_tail).
std::vector<int32_t> RequestOfToken(const Batch& batch, const Group& group);

/// False for tokens a family copies through from slot_mapping_in (kpool_tail
/// from num_actual_tokens): they skip the slot invariants.
inline bool KernelMaps(const GroupRun& run, int64_t t) { return t < run.mapped_end; }

/// The first token of the tail: qsl[R] (most), num_actual_tokens
/// (kpool_tail), min(N_act, qsl[R]) (compressor_ring).
inline int64_t PaddingStart(const GroupRun& run) { return run.tail_start; }

/// What a tail token must hold: PAD, slot_mapping_in[t], or 0 (a sink).
int64_t PaddingValue(const GroupRun& run, int64_t t);

/// A fact of the reference about token t of `out` (TokenFact bits).
inline bool HasFact(const OutputRun& out, int64_t t, uint8_t fact) {
  return out.facts && ((*out.facts)[t] & fact) != 0;
}

/// True when token t of `out` owns no state, so it must be PAD
/// (null_owner_pad): its request is a dummy the family pads, reads no row,
/// or addresses a null entry the family tests.
inline bool HasNullOwner(const OutputRun& out, int64_t t) { return HasFact(out, t, kFactMustPad); }

/// True when a slot of token t in the null block is allowed: the null page
/// is a sink and the token owns no state, or there is no null page.
inline bool NullBlockAllowed(const GroupRun& run, const OutputRun& out, int64_t t) {
  return !HasNullBlock(run.null_page) || HasFact(out, t, kFactSinkOk);
}

/// True when the kernel sends token t of `out` into the null block and the
/// family's null page does not allow it: null_block's rule.
inline bool NullBlockHazard(const GroupRun& run, const OutputRun& out, int64_t t) {
  const int64_t slot = (*out.kernel)[t];
  return HasNullBlock(run.null_page) && slot >= 0 && slot < run.page() && KernelMaps(run, t) &&
         !NullBlockAllowed(run, out, t);
}

/// True when token t writes `slot` into a sink's null block, as it may (a
/// token that owns no state): no one's block, so no other slot invariant
/// judges it.
inline bool SinkWrite(const GroupRun& run, const OutputRun& out, int64_t t, int64_t slot) {
  return run.null_page == NullPage::kSink && slot >= 0 && slot < run.page() && HasFact(out, t, kFactSinkOk);
}

/// True when a slot of token t in the null block is one the kernel may give
/// it there: the token owns no state and the null page is a sink (its pad
/// value 0, or a write sent there on purpose).
inline bool SinkSlotAllowed(const GroupRun& run, const OutputRun& out, int64_t t, int64_t slot) {
  return SinkWrite(run, out, t, slot);
}

/// True when token t is a dummy's under a request sink (TensorRT-LLM's
/// padding): every padded entry is the same dummy request, so its tokens
/// share the dummy's slots by design; unique_slots leaves them to own_block.
inline bool RequestSinkToken(const GroupRun& run, const OutputRun& out, int64_t t) {
  return run.null_page == NullPage::kRequest && HasFact(out, t, kFactSinkOk);
}

/// A finding on token t of `out`, with request, position and both values.
/// When the kernel agrees with the reference on a non-differential finding,
/// the detail says the batch state routed the token there.
Finding TokenFinding(const GroupRun& run, const OutputRun& out, const char* invariant, int64_t t,
                     std::string detail);

}  // namespace slotguard

#endif  // SLOTGUARD_INVARIANTS_GROUP_RUN_H_
