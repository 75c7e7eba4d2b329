// What a kind's model reads its knobs with (KindModel::ReadKnobs): the
// description loader's own reads and checks (family_file.cc), so a kind's
// knobs, their defaults and their errors live in the kind's file while every
// message keeps the loader's one shape, FILE:/json/pointer: problem;
// expected X.
#ifndef SLOTGUARD_FAMILY_KNOB_READER_H_
#define SLOTGUARD_FAMILY_KNOB_READER_H_

#include <string>
#include <vector>

#include "family/family_desc.h"
#include "util/error_line.h"
#include "util/json_reader.h"

namespace slotguard {

/// Which variables a knob's formula may read.
enum class KnobScope {
  kParams,       // the parameters (and, for a parameter's max or default, only the earlier ones)
  kToken,        // a token's variables, the parameters and the lets
  kEntry,        // kToken and `entry`
  kDerived,      // kToken and `linked`: a derived mapping's per-token knobs (`entry`)
  kLinked,       // `linked` and the parameters
  kRequest,      // a request's variables (no token's), the parameters and the lets
  kOperation,    // kRequest and `op`
  kIndex,        // `index` and the parameters
  kParamsWidth,  // the parameters and `width`
  kWriterToken,  // a token's and its request's variables and the parameters (no lets, no entry)
  kInputRequest,  // an input's default per request: a request's fixed variables and the parameters
  kInputToken,    // an input's default per token: kInputRequest and the token's t, i, pos, lp
};

/// A name of the description's own (a family, a parameter, a consumer):
/// lower-case letters, digits and '_', starting with a letter, at most 64.
bool IsIdentifier(const std::string& s);

class KnobReader : public JsonReader {
 public:
  using JsonReader::JsonReader;
  virtual ~KnobReader() = default;

  /// The description being read: its parameters and variables so far.
  virtual const FamilyDesc& desc() const = 0;
  /// A formula at ptr, parsed against every variable and limited to `scope`.
  virtual bool Formula(const json& v, const std::string& ptr, KnobScope scope, Expr* out) = 0;
  virtual bool Formulas(const json& v, const std::string& ptr, KnobScope scope, std::vector<Expr>* out) = 0;
  /// A name among `names` (`what`: "block operation").
  virtual bool Name(const json& v, const std::string& ptr, const std::string& what, std::vector<std::string> names,
                    std::string* out) = 0;
  /// A boolean.
  bool Bool(const json& v, const std::string& ptr, bool* out) const {
    if (!v.is_boolean()) return Fail(ptr, "wrong type", "true or false", DescribeJson(v));
    *out = v.get<bool>();
    return true;
  }
  /// "missing required key" for `key` of the object at ptr.
  bool Missing(const std::string& ptr, const std::string& key, const std::string& what) const {
    return Fail(ptr, "missing required key", "\"" + key + "\": " + what, "no key '" + key + "'");
  }

  // The knobs more than one kind shares.
  /// A slot mapping's knobs (docs/family-format.md) into *m, and their checks.
  virtual bool MappingKnobs(const json& obj, const std::string& ptr, bool variant, MappingDesc* m) = 0;
  /// What the per-request kinds share (docs/state-and-block-ops.md): "let"
  /// (formulas of `scope`), "dummy", "range", "null_index" (default index
  /// == 0), "null_page".
  virtual bool RequestKnobs(const json& obj, const std::string& ptr, bool variant, KnobScope scope,
                            RequestDesc* r) = 0;
};

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_KNOB_READER_H_
