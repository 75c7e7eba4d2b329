// The family description loader: JSON text -> FamilyDesc, with every check
// of docs/family-format.md. Each failure is one line:
//   FILE:/json/pointer: problem; expected X[, got Y]
// with did-you-mean on keys and names.
#ifndef SLOTGUARD_FAMILY_FAMILY_FILE_H_
#define SLOTGUARD_FAMILY_FAMILY_FILE_H_

#include <string>

#include "family/family_desc.h"

namespace slotguard {

/// Reads and checks one description. `file` names it in messages and is
/// kept in desc->file. The families a group parameter names are checked
/// later, when the description is registered (family_registry.h).
bool ParseFamilyDescription(const std::string& text, const std::string& file, FamilyDesc* desc, std::string* err);
bool LoadFamilyFile(const std::string& path, FamilyDesc* desc, std::string* err);

/// The largest description file read.
constexpr int64_t kMaxFamilyFileBytes = int64_t{1} << 20;

}  // namespace slotguard

#endif  // SLOTGUARD_FAMILY_FAMILY_FILE_H_
