// libFuzzer target: arbitrary bytes into the scope file loader (prove's
// --scope FILE). Every input is one error line or a scope, never a crash,
// leak, undefined behaviour or unbounded memory; a scope that loads has
// parts whose lists are sorted without repeats (the enumeration's order),
// and loads again to the same lists.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "prove/scope_file.h"

namespace {

template <class T>
bool SortedUnique(const std::vector<T>& v) {
  return std::is_sorted(v.begin(), v.end()) && std::adjacent_find(v.begin(), v.end()) == v.end();
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "slotguard: a loaded scope: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotguard;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Scope scope;
  std::string err;
  if (!ParseScope(text, "input.json", &scope, &err)) {
    if (err.empty() || err.find('\n') != std::string::npos) {
      std::fprintf(stderr, "slotguard: load error is not one line: '%s'\n", err.c_str());
      std::abort();
    }
    return 0;
  }
  if (scope.parts.empty()) Die("no part");
  for (const ScopePart& p : scope.parts) {
    if (p.requests.empty() || p.tokens.empty()) Die("a part without requests or tokens");
    if (!SortedUnique(p.requests) || !SortedUnique(p.tokens) || !SortedUnique(p.padding) ||
        !SortedUnique(p.contexts) || !SortedUnique(p.widths) || !SortedUnique(p.boundary_offsets) ||
        !SortedUnique(p.tiles) || !SortedUnique(p.tables) || !SortedUnique(p.params) || !SortedUnique(p.layouts))
      Die("a list that is not sorted without repeats");
  }
  Scope again;
  if (!ParseScope(text, "input.json", &again, &err) || again.parts.size() != scope.parts.size() ||
      again.name != scope.name)
    Die("loading it twice gave two scopes");
  return 0;
}
