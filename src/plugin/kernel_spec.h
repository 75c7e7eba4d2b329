// --kernel-spec: how to launch a compiled kernel (cubin, fatbin or PTX) that
// slotguard did not write: its symbol, its parameters in order, each bound to
// a scenario buffer, a scalar, a family parameter, a constant or (spec 2) a
// formula, a scratch buffer or a per-group array, and its launch shape, with
// the grid as integer formulas over the call's sizes.
//
//   {"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "kpool_tail_map",
//    "params": [{"buffer": "slot_mapping"}, {"buffer": "positions"},
//               {"scalar": "num_reqs", "type": "i32"}, {"param": "kpool", "type": "i32"},
//               {"constant": 0, "type": "ptr"}],
//    "grid": ["num_reqs + cdiv(num_tokens - num_actual_tokens, 256)", "1", "1"],
//    "block": [128, 1, 1], "shared_bytes": 0}
//
// Spec 2 adds {"value": FORMULA, "type": T}, {"scratch": NAME, "elements":
// FORMULA, "element_bytes": N}, the request_of_token buffer, "launch":
// "scenario" with {"group_array": NAME, "type": T} and num_groups, launch
// preconditions and specializations (spec_launch.h decides which runs).
#ifndef SLOTGUARD_PLUGIN_KERNEL_SPEC_H_
#define SLOTGUARD_PLUGIN_KERNEL_SPEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "family/expr.h"
#include "registry/variant_ids.h"
#include "slotguard/plugin.h"

namespace slotguard {

/// An integer formula over a call's variables (family/expr.h: the one
/// formula language): numbers, the call's sizes and its family's
/// parameters, + - * / % and unary -, parentheses, cdiv, min, max and mod,
/// and the comparisons == != < <= > >=, && || and unary ! (each 0 or 1; &&
/// and || evaluate their right side only when it decides). A condition
/// holds when its value is not 0.
class GridFormula {
 public:
  /// Parses `text`; false with *err naming the problem.
  bool Parse(const std::string& text, std::string* err);
  /// Its value for one call; false with *err (an unknown variable for this
  /// family, division by zero, an overflow). `num_groups` is the groups of
  /// the launch (1 unless the spec launches whole scenarios).
  bool Evaluate(const sg_mapping_call& call, int64_t num_groups, int64_t* value, std::string* err) const;
  bool Evaluate(const sg_mapping_call& call, int64_t* value, std::string* err) const {
    return Evaluate(call, 1, value, err);
  }
  const std::string& text() const { return expr_.text(); }
  /// The variables it names, each once, in the order they first appear.
  std::vector<std::string> Variables() const { return expr_.Variables(); }

 private:
  Expr expr_;
};

enum class SpecArgKind { kBuffer, kScalar, kParam, kConstant, kValue, kScratch, kGroupArray };
/// kU64 only for a group_array of buffers (their addresses).
enum class SpecType { kI32, kI64, kPtr, kU64 };

struct SpecArg {
  SpecArgKind kind = SpecArgKind::kConstant;
  std::string name;   // buffer, scalar, parameter, scratch or group_array name
  SpecType type = SpecType::kPtr;
  int64_t constant = 0;
  GridFormula formula;        // kValue: the value; kScratch: the element count
  int64_t element_bytes = 0;  // kScratch
};

/// One launchable kernel: the spec's own, or one specialization (the spec's
/// keys with the specialization's replacements).
struct SpecKernel {
  std::string cubin;   // "": the --kernel-cubin file; else a path (a specialization's, from the spec's folder)
  std::string symbol;
  std::vector<SpecArg> params;
  GridFormula grid[3];
  int32_t block[3] = {1, 1, 1};
  int32_t shared_bytes = 0;
  // Where params and grid were read, for messages: "/params" or "/specializations/1/params".
  std::string params_pointer = "/params";
  std::string grid_pointer = "/grid";
};

/// "specializations": [{"requires": ["ring == 4"], "cubin": "ring4.cubin", ...}]
struct SpecSpecialization {
  std::vector<GridFormula> conditions;  // "requires": all must hold
  SpecKernel kernel;
};

struct KernelSpec : SpecKernel {
  /// 1 or 2. Spec 1's `seq_lens` buffer is int32 (the call's seq_lens_i32),
  /// and a spec-1 kernel is handed a persistent table (batch.table_rows)
  /// gathered per request (plan/table_memory.h GatheredTable).
  int version = 2;
  std::string file;  // the spec's path, for messages
  Family family = Family::kPaged;
  /// "launch": "scenario": one launch over every group of the family in a
  /// scenario (MappingProvider::LaunchScenario), per-group values in group arrays.
  bool whole_scenario = false;
  std::vector<GridFormula> precondition;  // all must hold, else the engine launches something else
  /// Non-empty: only these launch (the first whose conditions hold); the
  /// spec's own keys are their defaults.
  std::vector<SpecSpecialization> specializations;

  /// The symbol reports name: the spec's, else the first specialization's.
  const std::string& display_symbol() const {
    return symbol.empty() && !specializations.empty() ? specializations[0].kernel.symbol : symbol;
  }
};

/// Reads and checks a spec file. Errors are one line:
/// "FILE:/json/pointer: problem; expected X".
bool LoadKernelSpec(const std::string& path, KernelSpec* spec, std::string* err);
bool ParseKernelSpec(const std::string& text, const std::string& file, KernelSpec* spec, std::string* err);

/// The names a spec may use.
const std::vector<std::string>& SpecBufferNames();
const std::vector<std::string>& SpecScalarNames();   // sizes of the call (also formula variables)
const std::vector<std::string>& SpecParamNames();    // family parameters (also formula variables)

/// Whether a buffer or scalar name differs between the groups of one
/// scenario (the table, the outputs, the common mapping, the table's shape);
/// every family parameter does too.
bool PerGroupName(const std::string& name);

/// A variable's value in a call: a size, num_groups, or the call's family's
/// parameter.
bool CallVariable(const std::string& name, const sg_mapping_call& call, int64_t num_groups, int64_t* value);
inline bool CallVariable(const std::string& name, const sg_mapping_call& call, int64_t* value) {
  return CallVariable(name, call, 1, value);
}

/// A buffer's pointer in a call.
const void* CallBuffer(const std::string& name, const sg_mapping_call& call);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_KERNEL_SPEC_H_
