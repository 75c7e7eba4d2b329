// JsonPointerLine: the line a JSON pointer's value starts on, worked out by
// hand on small texts.
#include "util/json_pointer_line.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

const char kText[] = R"({"slotguard": 1,
  "name": "a/b~c",
  "groups": [
    {"name": "x"},
    {
      "name": "y", "table": [[1, 2],
                             [3]]
    }
  ],
  "a/b": {"~key": [true, null, "s\"]"]}
})";

TEST(JsonPointerLineTest, ObjectsArraysAndEscapedTokens) {
  EXPECT_EQ(1, JsonPointerLine(kText, ""));
  EXPECT_EQ(1, JsonPointerLine(kText, "/slotguard"));
  EXPECT_EQ(2, JsonPointerLine(kText, "/name"));
  EXPECT_EQ(3, JsonPointerLine(kText, "/groups"));
  EXPECT_EQ(4, JsonPointerLine(kText, "/groups/0"));
  EXPECT_EQ(5, JsonPointerLine(kText, "/groups/1"));
  EXPECT_EQ(6, JsonPointerLine(kText, "/groups/1/name"));
  EXPECT_EQ(6, JsonPointerLine(kText, "/groups/1/table/0"));
  EXPECT_EQ(7, JsonPointerLine(kText, "/groups/1/table/1/0"));
  EXPECT_EQ(10, JsonPointerLine(kText, "/a~1b/~0key/2"));  // "/" as ~1, "~" as ~0; a string holding "]
}

TEST(JsonPointerLineTest, WhatIsNotThereIsZero) {
  EXPECT_EQ(0, JsonPointerLine(kText, "/groups/2"));
  EXPECT_EQ(0, JsonPointerLine(kText, "/nope"));
  EXPECT_EQ(0, JsonPointerLine(kText, "/groups/x"));
  EXPECT_EQ(0, JsonPointerLine(kText, "/name/0"));
  EXPECT_EQ(0, JsonPointerLine(kText, "groups"));
  EXPECT_EQ(0, JsonPointerLine("{\"a\": [1, 2", "/b"));  // cut short
  EXPECT_EQ(0, JsonPointerLine("", ""));
}

}  // namespace
}  // namespace slotguard
