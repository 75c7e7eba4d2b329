// A block table of `rows` rows of `width` entries, laid out row after row.
#ifndef SLOTGUARD_TESTS_TESTING_MAKE_TABLE_H_
#define SLOTGUARD_TESTS_TESTING_MAKE_TABLE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace slotguard {
namespace testing {

inline BlockTable MakeTable(int32_t rows, int32_t width, std::vector<int32_t> entries) {
  BlockTable t;
  t.rows = rows;
  t.width = width;
  t.entries = std::move(entries);
  return t;
}

}  // namespace testing
}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_MAKE_TABLE_H_
