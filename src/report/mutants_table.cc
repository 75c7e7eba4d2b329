#include "report/mutants_table.h"

#include <cstdio>

#include "registry/families.h"

namespace slotguard {
namespace {

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void PrintMutantsTable(const MutantsResult& result, const std::string& backend, double seconds, std::ostream& out) {
  const VariantTally none;
  auto tally = [&](Variant v) -> const VariantTally& {
    auto it = result.variants.find(v);
    return it == result.variants.end() ? none : it->second;
  };
  auto count = [](const std::map<Family, int>& counts, Family f) {
    auto it = counts.find(f);
    return it == counts.end() ? 0 : it->second;
  };
  out << "mutants: every variant forced over " << result.files.size() << " scenario files, backend " << backend
      << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-16s %-10s %s\n", "family", "variant", "caught by",
                "invariants fired beyond fixed");
  out << line;
  for (const FamilyInfo& family : AllFamilies()) {
    if (!result.family_scenarios.count(family.family)) continue;
    const int scenarios = count(result.family_scenarios, family.family);
    const int expected = count(result.family_expected, family.family);
    for (Variant v : VariantsOf(family.family)) {
      const VariantTally& t = tally(v);
      std::string caught, fired;
      if (v == FixedVariant(family.family)) {
        caught = "-";
        fired = "clean in " + std::to_string(scenarios - expected) + " scenarios";
        if (expected) fired += " (+" + std::to_string(expected) + " expected batch-state findings)";
      } else {
        caught = std::to_string(t.caught_by.size()) + "/" + std::to_string(t.scenarios);
        fired = t.caught_by.empty() ? "SURVIVED" : Join(t.fired);
      }
      std::snprintf(line, sizeof line, "%-16s %-16s %-10s %s\n", family.name, GetVariant(v).name,
                    caught.c_str(), fired.c_str());
      out << line;
    }
  }
  for (const VariantInfo& v : AllVariants()) {
    const VariantTally& t = tally(v.variant);
    if (t.caught_by.empty()) continue;
    out << "  " << GetFamily(v.family).name << "/" << v.name << " caught by:";
    for (size_t i = 0; i < t.caught_by.size() && i < 4; ++i) out << " " << t.caught_by[i];
    if (t.caught_by.size() > 4) out << " (+" << t.caught_by.size() - 4 << " more)";
    out << "\n";
  }
  for (const std::string& f : result.fixed_failures) out << "FAIL  fixed: " << f << "\n";
  for (const std::string& s : result.survivors) out << "FAIL  mutant " << s << " survived: no scenario catches it\n";
  std::snprintf(line, sizeof line, "%.3f", seconds);
  out << "slotguard: mutants: " << result.survivors.size() << " survivors, " << result.fixed_failures.size()
      << " fixed-variant failures, " << result.files.size() << " scenario files, backend " << backend << ", "
      << line << " s\n";
}

}  // namespace slotguard
