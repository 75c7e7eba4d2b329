// libFuzzer target: arbitrary bytes into the family description loader and
// its formula language. Every input is one error line or a description,
// never a crash, leak, undefined behaviour or unbounded memory; and every
// formula of a description that loads evaluates the same three ways, error
// for error: its compiled program, a plain reading of its tree, and its
// program with some variables bound to constants and folded (family/expr.h).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "family/family_file.h"

namespace {

using slotguard::Expr;

/// Values a formula's variables take: the edges of int64 and int32, small
/// numbers of both signs, a page.
constexpr int64_t kValues[] = {0, 1, -1, 2, 3, 7, 16, -16, 64, 4096, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN,
                               INT64_MAX / 2, 1LL << 40};

struct Stream {
  uint64_t state;
  uint64_t Next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
};

[[noreturn]] void Die(const std::string& what, const Expr& e) {
  std::fprintf(stderr, "slotguard: formula '%s': %s\n", e.text().c_str(), what.c_str());
  std::abort();
}

void CheckFormula(const Expr& e, Stream* s) {
  if (e.empty()) return;
  const size_t n = e.names().size();
  for (int round = 0; round < 3; ++round) {
    std::vector<int64_t> vars(n);
    for (int64_t& v : vars) v = kValues[s->Next() % (sizeof kValues / sizeof kValues[0])];
    int64_t compiled = 0, tree = 0, bound = 0;
    std::string err;
    const bool ok = e.Evaluate(vars.data(), &compiled, &err);
    if (ok != e.EvaluateNode(e.root(), vars.data(), &tree) || (ok && tree != compiled))
      Die("the compiled program and the tree disagree", e);
    std::vector<std::optional<int64_t>> some(n);
    for (size_t i = 0; i < n; ++i)
      if (s->Next() % 2) some[i] = vars[i];
    const Expr partly = e.Bind(some);
    if (partly.Evaluate(vars.data(), &bound, &err) != ok || (ok && bound != compiled))
      Die("binding some variables changed its value", e);
  }
}

void CheckLets(const std::vector<slotguard::LetDesc>& lets, Stream* s) {
  for (const slotguard::LetDesc& let : lets) CheckFormula(let.value, s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slotguard;
  const std::string text(reinterpret_cast<const char*>(data), size);
  FamilyDesc d;
  std::string err;
  if (!ParseFamilyDescription(text, "input.json", &d, &err)) {
    if (err.empty() || err.find('\n') != std::string::npos) {
      std::fprintf(stderr, "slotguard: load error is not one line: '%s'\n", err.c_str());
      std::abort();
    }
    return 0;
  }
  Stream s{size};
  for (size_t i = 0; i < size; ++i) s.state = (s.state ^ data[i]) * 1099511628211ULL;
  for (const ParamDesc& p : d.params) {
    CheckFormula(p.max, &s);
    CheckFormula(p.default_value, &s);
  }
  for (const ConstraintDesc& c : d.constraints) CheckFormula(c.holds, &s);
  auto mapping = [&](const MappingDesc& m) {
    CheckLets(m.lets, &s);
    for (const Expr& e : m.select) CheckFormula(e, &s);
    for (const Expr* e : {&m.column, &m.min_width, &m.pad_entry, &m.offset, &m.page, &m.manager_page})
      CheckFormula(*e, &s);
  };
  auto request = [&](const RequestDesc& r) {
    CheckLets(r.lets, &s);
    for (const Expr& e : r.select) CheckFormula(e, &s);
    for (const Expr* e : {&r.column, &r.src, &r.dst, &r.marker, &r.null_index, &r.ops}) CheckFormula(*e, &s);
    for (const ConsumerDesc& c : r.consumers) CheckFormula(c.skip, &s);
  };
  mapping(d.mapping);
  request(d.request);
  for (const VariantDesc& v : d.variants) {
    mapping(v.mapping);
    request(v.request);
  }
  return 0;
}
