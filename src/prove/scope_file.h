// Scope files (docs/prove.md, "Scope files"): strict loading, one error line
// per problem, "FILE:/json/pointer: problem; expected X, got Y", with
// did-you-mean on keys and names. The presets (small, medium, large) are
// scopes/*.json of the source tree, compiled in and loaded the same way.
#ifndef SLOTGUARD_PROVE_SCOPE_FILE_H_
#define SLOTGUARD_PROVE_SCOPE_FILE_H_

#include <string>
#include <vector>

#include "prove/scope.h"

namespace slotguard {

/// Parses scope text; `file` names it in messages. False with *err on any
/// malformed input; never throws. Lists come back sorted (numbers
/// ascending, names in enum order) without repeats: the enumeration order.
bool ParseScope(const std::string& text, const std::string& file, Scope* scope, std::string* err);

/// The presets' names, in order ("small", "medium", "large").
std::vector<std::string> ScopePresetNames();

/// `spec` is a preset's name or a scope file's path. False with one line
/// in *err: the file's own error, or, when `spec` is neither, what it may
/// be (with the closest preset).
bool LoadScope(const std::string& spec, Scope* scope, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_SCOPE_FILE_H_
