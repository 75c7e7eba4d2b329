// The scope presets compiled into the binary: every scopes/*.json of the
// source tree, in name order (a file CMake generates from them,
// cmake/builtin_scopes.cmake).
#ifndef SLOTGUARD_PROVE_BUILTIN_SCOPES_H_
#define SLOTGUARD_PROVE_BUILTIN_SCOPES_H_

namespace slotguard {

struct BuiltinScopeFile {
  const char* path;           // "scopes/small.json"
  const unsigned char* text;  // UTF-8, NUL-terminated
};

extern const BuiltinScopeFile kBuiltinScopeFiles[];
extern const int kBuiltinScopeFileCount;

}  // namespace slotguard

#endif  // SLOTGUARD_PROVE_BUILTIN_SCOPES_H_
