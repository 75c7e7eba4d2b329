// The family descriptions compiled into the binary: every families/*.json
// of the source tree, in name order (a file CMake generates from them).
#ifndef SLOTGUARD_REGISTRY_BUILTIN_FAMILIES_H_
#define SLOTGUARD_REGISTRY_BUILTIN_FAMILIES_H_

namespace slotguard {

struct BuiltinFamilyFile {
  const char* path;  // "families/paged.json"
  const unsigned char* text;  // UTF-8, NUL-terminated
};

extern const BuiltinFamilyFile kBuiltinFamilyFiles[];
extern const int kBuiltinFamilyFileCount;

}  // namespace slotguard

#endif  // SLOTGUARD_REGISTRY_BUILTIN_FAMILIES_H_
