// A family description (docs/family-format.md): one data file that says what
// a cache kernel's mapping computes. The loader (family_file.h) reads and
// checks it; the interpreter (family_plan.h) turns it into the reference
// outputs and the addressing the invariants judge by; the generator derives
// shapes from it. Plain data: every formula is already parsed.
#ifndef SLOTGUARD_FAMILY_FAMILY_DESC_H_
#define SLOTGUARD_FAMILY_FAMILY_DESC_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "family/expr.h"

namespace slotguard {

/// The format version of a description file ("slotguard_family": 1).
constexpr int kFamilyFormatVersion = 1;

enum class ParamType : uint8_t {
  kI32,    // an integer that fits int32 (what the engines' kernels take)
  kI64,    // an integer that fits int64
  kBool,   // true or false (0 or 1 in formulas)
  kGroup,  // the name of another group of the scenario (a link: gate, writer gate)
};

/// One parameter of a family: a key of the scenario's group objects.
struct ParamDesc {
  std::string name;     // in formulas, the provider protocol, plugin ABI 3, kernel specs
  std::string key;      // the JSON key under a group: name, or "dcp/world" (key "world" of object "dcp")
  std::string meaning;
  ParamType type = ParamType::kI32;
  int64_t min = 0;
  Expr max;             // over the earlier parameters; empty: the type's largest
  Expr default_value;   // over the earlier parameters; empty: required (a group link: may be absent)
  std::string divides;  // the name of an earlier parameter it must divide, or ""
  int64_t example = 1;  // a typical value (docs, the bench scenario)
  bool shrinks = false;  // the minimizer halves it towards min while the finding fires
  std::string family;   // kGroup: the family of the group it names
  // "equals": "P.NAME": the value of parameter NAME of the group that group
  // parameter P names (a derived group's logical block is its source's page);
  // equals_link < 0: none.
  int32_t equals_link = -1;
  std::string equals_param;
  std::string pointer;  // "/params/2", for messages

  std::string top_key() const { return key.substr(0, key.find('/')); }
  std::string leaf_key() const { return key.substr(key.rfind('/') + 1); }
  bool nested() const { return key.find('/') != std::string::npos; }
  bool is_int() const { return type == ParamType::kI32 || type == ParamType::kI64; }
};

/// Whose array an extra input is: one value per request, or per token.
enum class InputPer : uint8_t { kRequest, kToken };

/// "inputs": [{"name", "per", "meaning", "min", "max", "default"}]: an
/// array of the batch beside the table that the kernel reads (vLLM's
/// num_rejected_tokens, FlashInfer's batch_indices). A scenario gives it in
/// batch.inputs; one it leaves out takes the default. Formulas read it by
/// name, as a request's (per request) or a token's (per token) variable.
struct InputDesc {
  std::string name;
  std::string meaning;
  InputPer per = InputPer::kRequest;
  int64_t min = 0;
  Expr max;            // over the parameters; empty: int64's largest
  Expr default_value;  // over the parameters and the request's (per token: and the token's) variables
  std::string pointer;  // "/inputs/0", for messages
  bool per_token() const { return per == InputPer::kToken; }
};

/// "constraints": [{"holds": F, "at": "param", "expected": "..."}]: a
/// condition over the parameters every group must meet.
struct ConstraintDesc {
  Expr holds;
  int32_t at = 0;  // the parameter the error points at
  std::string expected;
  std::string pointer;
};

enum class OwnerRule : uint8_t {
  kRequest,      // r with qsl[r] <= t < qsl[r+1]; tokens from qsl[R] have none
  kLastRequest,  // the same, and tokens in [qsl[R], mapped end) belong to request R-1
  kInput,        // a per-token input's value (MappingDesc::owner_input); outside [0, R): none
};
enum class RowsRule : uint8_t {
  kTable,  // request r reads row r, or row idx_mapping[r] of a persistent table (batch.table_rows)
  kCsr,    // request r reads its own row of a ragged table, handed over as CSR (indptr, indices)
};
enum class DummyRule : uint8_t {
  kPad,  // a dummy request's (idx_mapping -1) tokens are PAD
  kRow,  // a dummy reads its row like any request (a persistent table gives it none: PAD)
};
enum class RangeRule : uint8_t {
  kPad,    // a column past the row is PAD
  kClamp,  // a column past the row reads the row's last column (an empty row: PAD)
  kNone,   // the kernel reads past the row (min_width columns must be there; past them: row_bounds)
};
enum class TailFrom : uint8_t {
  kRealTokens,     // qsl[R]
  kActualTokens,   // num_actual_tokens
  kMinActualReal,  // min(num_actual_tokens, qsl[R])
  kNumTokens,      // num_tokens: no tail, every token is its owner's (a kernel over all nnz entries)
};
enum class TailValue : uint8_t {
  kPad,            // -1
  kSlotMappingIn,  // slot_mapping_in[t], unchanged
  kNullSlot,       // 0: the null block as a write sink (null_page sink)
};
enum class NullPage : uint8_t {
  kPristine,  // no token may write the null block
  kSink,      // only tokens that own no state (padding, dummies) may write it; a live token never
  kNone,      // there is no null block: block 0 is a block like any other
  kRequest,   // no null block; the engine pads with a real dummy request that owns real pages
              // (TensorRT-LLM): a dummy's tokens write its own pages, shared by every padded
              // entry, and a live token never writes a page a dummy row holds
  kNoCache,   // no cache behind the group (vLLM's encoder-only layers): its slots address nothing,
              // no writer writes through them, and only the output itself is judged
};
/// Whether the policy has a null block (block 0 reserved): pristine or sink.
inline bool HasNullBlock(NullPage p) { return p == NullPage::kPristine || p == NullPage::kSink; }
/// What the group's readers need of its null block when they run
/// ("null_page_read"; null_read judges it).
enum class NullPageRead : uint8_t {
  kAny,   // nothing: a reader masks block 0 or never loads it
  kZero,  // a reader loads block 0 of the group's pool and needs it all zero
};
enum class WriterStyle : uint8_t { kPaged, kRing };
enum class WriterSkip : uint8_t {
  kNegative,  // the writer skips slot < 0
  kMinusOne,  // the writer skips slot == -1 only (another negative slot lands where `negative` says)
  kNone,      // the writer skips no slot (a negative slot lands where `negative` says)
};
/// Where a negative slot the writer does not skip lands.
enum class WriterNegative : uint8_t {
  kIndex,    // a tensor index (torch `cache[slot]`): counts from the pool's end
  kPointer,  // pointer arithmetic (a C or Triton kernel): before the pool, out of bounds
  kClamp0,   // the caller clamps it first (clamp_min(0)): slot 0
};
/// Whether the writer runs for a dummy request's tokens.
enum class WriterDummies : uint8_t {
  kWrite,  // it writes them like any token's
  kSkip,   // the engine does not run this writer for a dummy's tokens (DFlash's context K/V in dummy runs)
};
enum class GateAbsent : uint8_t {
  kPadDummies,  // no linked group: PAD for tokens past qsl[R] and every token of a dummy request
  kPass,        // no linked group: no gate
};

/// A link to another group's output 0 ("gate", "writer.gate").
struct LinkDesc {
  int32_t param = -1;  // the group parameter that names it; -1: none
  Expr test;           // over `linked`, the other group's slot: true -> PAD (gate) or skip (writer)
  GateAbsent absent = GateAbsent::kPadDummies;
  bool present() const { return param >= 0; }
};

/// The cache writer that writes K/V through one output's slots.
struct WriterDesc {
  bool writes = true;  // false: nothing writes the cache through this output ("writer": "none")
  WriterStyle style = WriterStyle::kPaged;
  WriterSkip skip = WriterSkip::kNegative;
  WriterNegative negative = WriterNegative::kIndex;
  WriterDummies dummies = WriterDummies::kWrite;
  LinkDesc gate;  // the writer also skips a token whose linked group's slot makes gate.test hold
  Expr token_skip;  // over a token's variables and the parameters: true -> the writer skips it; empty: none
};

/// One output of a per-token group: its slots, and the rules that are its
/// own (docs/family-format.md, "Outputs"). What it does not set is the
/// family's (the loader copies it in), so each output is whole.
struct OutputDesc {
  std::string name;  // "" for the group's own name, else "<group>.<name>"
  std::vector<Expr> select;  // beside the mapping's own
  DummyRule dummy = DummyRule::kPad;
  WriterDesc writer;
  // Whether the description set them for this output (else the family's).
  bool own_dummy = false, own_writer = false;
};

struct LetDesc {
  std::string name;
  Expr value;
  int32_t var = 0;  // its index among the formula variables
};

/// The knobs of a mapping (each has one formula: docs/family-format.md). A
/// variant overrides some of them.
struct MappingDesc {
  RowsRule rows = RowsRule::kTable;
  OwnerRule owner = OwnerRule::kRequest;
  // kInput: the per-token input whose value is a token's request (FlashInfer's
  // batch_indices); its default is the query_start_loc owner, "r".
  std::string owner_input;
  DummyRule dummy = DummyRule::kPad;
  std::vector<LetDesc> lets;  // in an order where each reads only earlier ones
  std::vector<Expr> select;
  Expr column;
  // `entry`: per token, the entry the token maps through, computed from the
  // gate's linked group's slot (`linked`) instead of read from the table (a
  // group derived from another group's output: vLLM's HiSparse compressed
  // slots). Empty: the table read at `column`.
  Expr entry;
  bool derived() const { return !entry.empty(); }
  // `reads`: per token, the columns [from, to] of its row that its attention
  // reads unmasked, which must hold real blocks (window_reads); empty: none.
  Expr reads_from, reads_to;
  RangeRule range = RangeRule::kPad;
  Expr min_width;          // over the parameters
  Expr entry_map;          // over `entry`: the caller's transform of the entry read (a clamp); empty: none
  Expr pad_entry;          // over `entry`; empty: no test
  Expr offset;
  Expr page;               // over the parameters: slots one table entry names
  Expr manager_page;       // over the parameters: slots of the null block (a multiple of page)
  LinkDesc gate;
  TailFrom tail_from = TailFrom::kRealTokens;
  TailValue tail_value = TailValue::kPad;
  std::vector<OutputDesc> outputs;  // at least one; each has its dummy rule and writer resolved
  NullPage null_page = NullPage::kPristine;
  NullPageRead null_page_read = NullPageRead::kAny;
  int64_t pad_value = -1;  // what an unmapped token holds: -1 (PAD), or 0 (a zeroed buffer: a sink's slot 0)
  WriterDesc writer;       // the family's writer: an output's unless it sets its own
};

/// What a family computes (its kind's model, family/kind_model.h): one line
/// of family/kinds.def each (a slot per token, a state index per request,
/// block operations per request, a gathered block table, ...).
enum class FamilyKind : uint8_t {
#define SG_KIND(id) k##id,
#include "family/kinds.def"
#undef SG_KIND
};
/// How many kinds kinds.def lists.
constexpr int kFamilyKindCount = 0
#define SG_KIND(id) +1
#include "family/kinds.def"
#undef SG_KIND
    ;
/// A kind's bit in invariants.def's kinds column: 1 << its position in kinds.def.
constexpr uint32_t KindBit(FamilyKind kind) { return uint32_t{1} << static_cast<int>(kind); }
/// What a block operation does with its blocks.
enum class BlockOpKind : uint8_t {
  kCopy,   // reads src, writes dst (vLLM's Mamba prefix-cache copies)
  kLoad,   // writes dst from outside the pool (a connector's load)
  kStore,  // reads src out of the pool (a connector's store, an offload)
  kZero,   // writes zeros over dst (KVBlockZeroer)
};

/// A kernel that reads a state index and skips the rows its test names.
struct ConsumerDesc {
  std::string name;
  Expr skip;         // over `index` and the parameters: true -> the row is skipped
  bool writes_sink = false;  // it writes a row that owns no state into the null state on purpose (a sink)
  std::string note;  // where it is (file:line), what it does
};

/// The knobs of the per-request kinds (state_index, block_op), as MappingDesc
/// is the per-token kind's. docs/state-and-block-ops.md.
struct RequestDesc {
  std::vector<LetDesc> lets;       // per request (block_op: per operation, `op` set)
  DummyRule dummy = DummyRule::kPad;  // kPad: a dummy gets the marker (state) or no operation (block_op)
  std::vector<Expr> select;        // block_op: whether operation `op` of request r exists
  Expr column;                     // state_index: the column of the request's state index
  Expr src, dst;                   // block_op: the columns of the source and destination blocks
  RangeRule range = RangeRule::kPad;  // a column outside the row: the marker / no operation, or clamped
  Expr marker;                     // state_index: the pad marker, over the parameters
  Expr null_index;                 // over `index`: true for an id that names the null block (or state)
  Expr ops;                        // block_op: operations per request, over the parameters and `width`
  BlockOpKind op = BlockOpKind::kCopy;
  bool skip_null_src = true;       // block_op: an operation whose source is a null id is not done
  Expr skip_null_at;               // block_op: a column of the row whose entry, a null id or outside the
                                   // row, cancels the operation (a chunk's last block); empty: none
  std::vector<ConsumerDesc> consumers;  // state_index: the kernels that read the index
  NullPage null_page = NullPage::kPristine;
  NullPageRead null_page_read = NullPageRead::kAny;
  /// A kind's own formula knobs beside these, by knob name: what a kind
  /// whose knobs are not above reads and interprets in its own file
  /// (kind_table_producer.cc's "count" and "pad").
  std::map<std::string, Expr> own;
  /// own's formula `knob`, or an empty one.
  const Expr& Own(const std::string& knob) const {
    static const Expr none;
    const auto it = own.find(knob);
    return it == own.end() ? none : it->second;
  }
};

struct VariantDesc {
  std::string name;
  std::string meaning;
  std::string fix;      // "fix": the upstream change that fixed this behaviour (a commit or PR), if any
  MappingDesc mapping;  // the family's, with the variant's "set" applied
  RequestDesc request;  // the same, for a per-request kind
  std::string pointer;  // "/variants/0"
};

struct EngineRef {
  std::string repo, path, function, commit, note;
  /// "cite": {knob: "path:line what the engine's code does there"}: where
  /// each knob of the description comes from, in the order given.
  std::vector<std::pair<std::string, std::string>> cite;
};

struct FamilyDesc {
  std::string file;     // where it was read: a path, or "families/NAME.json (built in)"
  std::string name;
  std::string meaning;
  EngineRef engine;
  std::vector<ParamDesc> params;
  std::vector<ConstraintDesc> constraints;
  /// The extra inputs (InputDesc), in order: variables after the parameters.
  std::vector<InputDesc> inputs;
  /// "one_token_per_request": every request of a batch has exactly one
  /// token (a decode-only step, as EAGLE's draft steps are): a scenario
  /// with a group of the family holds no other batch.
  bool one_token_per_request = false;
  FamilyKind kind = FamilyKind::kSlotMapping;
  MappingDesc mapping;                // kSlotMapping's knobs
  RequestDesc request;                // kStateIndex's and kBlockOp's
  std::vector<VariantDesc> variants;  // described variants (the built-in kernels' are in families.def)

  /// C strings of the parameter and output names, for plugin ABI 3 (filled
  /// once the description has its place in the registry).
  std::vector<const char*> param_name_ptrs;
  std::vector<const char*> output_name_ptrs;

  /// The formula variables: kFormulaVars, then the parameters, then the
  /// inputs, then the lets.
  std::vector<std::string> variables;
  int32_t param_var(int32_t p) const { return kFixedVars + p; }
  int32_t input_var(size_t k) const { return kFixedVars + static_cast<int32_t>(params.size() + k); }
  /// The input variable `var` is, or -1 when it is none.
  int32_t InputOf(int32_t var) const {
    const int32_t k = var - kFixedVars - static_cast<int32_t>(params.size());
    return k >= 0 && k < static_cast<int32_t>(inputs.size()) ? k : -1;
  }
  /// Index of an input by name, or -1.
  int32_t FindInput(const std::string& name) const {
    for (size_t k = 0; k < inputs.size(); ++k)
      if (inputs[k].name == name) return static_cast<int32_t>(k);
    return -1;
  }

  /// Index of a parameter by name, or -1.
  int32_t FindParam(const std::string& name) const;

  // The fixed formula variables, by index.
  enum Var : int32_t {
    kT, kR, kQ, kQslBegin, kQslEnd, kI, kPos, kLp, kSeqLen, kWidth, kRows,
    kNumReqs, kNumTokens, kNumActualTokens, kNumRealTokens, kEntry, kLinked, kIndex, kOp, kFixedVars
  };
};

/// The fixed variables' names, in Var order.
const std::vector<std::string>& FixedVariableNames();

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_FAMILY_DESC_H_
