// A group of a family with the parameters a test names, the others at
// their defaults (or their examples where the family has none), and no table.
#ifndef SLOTGUARD_TESTS_TESTING_MAKE_GROUP_H_
#define SLOTGUARD_TESTS_TESTING_MAKE_GROUP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "family/group_model.h"

namespace slotguard {
namespace testing {

/// MakeGroup(Family::kPaged, "attn", {{"block_size", 16}, {"kernel_block_size", 4}}):
/// parameters set in the description's order, so that a default that reads
/// an earlier one (kernel_block_size = block_size) sees the value given.
inline Group MakeGroup(Family family, const std::string& name,
                       const std::vector<std::pair<std::string, int64_t>>& params = {},
                       const std::vector<std::pair<std::string, std::string>>& links = {}) {
  Group g = ExampleGroup(family, name);
  const std::vector<ParamDesc>& desc_params = FamilyModel(family).params();
  std::vector<bool> given(desc_params.size(), false);
  for (size_t p = 0; p < desc_params.size(); ++p) {
    if (desc_params[p].is_int() && desc_params[p].default_value.empty()) given[p] = true;  // its example
    for (const auto& [name_given, value] : params)
      if (name_given == desc_params[p].name) {
        g.params[p] = value;
        given[p] = true;
      }
    for (const auto& [name_given, link] : links)
      if (name_given == desc_params[p].name) g.links[p] = link;
    ApplyDefaults(&g, given);
  }
  return g;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_MAKE_GROUP_H_
