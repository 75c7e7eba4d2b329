// --kernel-spec: how to launch a compiled kernel (cubin, fatbin or PTX) that
// slotguard did not write: its symbol, its parameters in order, each bound to
// a scenario buffer, a scalar, a family parameter or a constant, and its
// launch shape, with the grid as integer formulas over the call's sizes.
//
//   {"slotguard_kernel_spec": 1, "family": "kpool_tail", "symbol": "kpool_tail_map",
//    "params": [{"buffer": "slot_mapping"}, {"buffer": "positions"},
//               {"scalar": "num_reqs", "type": "i32"}, {"param": "kpool", "type": "i32"},
//               {"constant": 0, "type": "ptr"}],
//    "grid": ["num_reqs + cdiv(num_tokens - num_actual_tokens, 256)", "1", "1"],
//    "block": [128, 1, 1], "shared_bytes": 0}
#ifndef SLOTGUARD_PLUGIN_KERNEL_SPEC_H_
#define SLOTGUARD_PLUGIN_KERNEL_SPEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "registry/variant_ids.h"
#include "slotguard/plugin.h"

namespace slotguard {

/// An integer formula: numbers, the call's variables, + - * / % and
/// unary -, parentheses, cdiv(a, b), min(a, b), max(a, b).
class GridFormula {
 public:
  struct Node;
  /// Parses `text`; false with *err naming the problem.
  bool Parse(const std::string& text, std::string* err);
  /// Its value for one call; false with *err (an unknown variable for this
  /// family, division by zero).
  bool Evaluate(const sg_mapping_call& call, int64_t* value, std::string* err) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

enum class SpecArgKind { kBuffer, kScalar, kParam, kConstant };
enum class SpecType { kI32, kI64, kPtr };

struct SpecArg {
  SpecArgKind kind = SpecArgKind::kConstant;
  std::string name;   // buffer, scalar or parameter name
  SpecType type = SpecType::kPtr;
  int64_t constant = 0;
};

struct KernelSpec {
  /// 1 or 2. Spec 1's `seq_lens` buffer is int32 (the call's seq_lens_i32),
  /// and a spec-1 kernel is handed a persistent table (batch.table_rows)
  /// gathered per request (backend/table_memory.h GatheredTable).
  int version = 2;
  Family family = Family::kPaged;
  std::string symbol;
  std::vector<SpecArg> params;
  GridFormula grid[3];
  int32_t block[3] = {1, 1, 1};
  int32_t shared_bytes = 0;
};

/// Reads and checks a spec file. Errors are one line:
/// "FILE:/json/pointer: problem; expected X".
bool LoadKernelSpec(const std::string& path, KernelSpec* spec, std::string* err);
bool ParseKernelSpec(const std::string& text, const std::string& file, KernelSpec* spec, std::string* err);

/// The names a spec may use.
const std::vector<std::string>& SpecBufferNames();
const std::vector<std::string>& SpecScalarNames();   // sizes of the call (also grid variables)
const std::vector<std::string>& SpecParamNames();    // family parameters (also grid variables)

/// A variable's value in a call: a size or the call's family's parameter.
bool CallVariable(const std::string& name, const sg_mapping_call& call, int64_t* value);

/// A buffer's pointer in a call.
const void* CallBuffer(const std::string& name, const sg_mapping_call& call);

}  // namespace slotguard

#endif  // SLOTGUARD_PLUGIN_KERNEL_SPEC_H_
