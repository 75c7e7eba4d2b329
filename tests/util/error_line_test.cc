#include "util/error_line.h"

#include <gtest/gtest.h>

namespace slotguard {
namespace {

TEST(ErrorLineTest, OneLineWithThePrefix) {
  EXPECT_EQ("slotguard: error: --backend gpu: no device\n", ErrorLine("--backend gpu: no device"));
}

// Every byte that does not start a valid UTF-8 sequence is one '?': a lead
// byte past 0xf4 (0xff here, which a lax decoder reads as a 3-byte lead),
// an overlong, a surrogate, a truncated sequence. Controls, C1 included,
// are spaces; valid characters stay.
TEST(ErrorLineTest, PrintableTextIsOneLineOfValidUtf8) {
  EXPECT_EQ("a b c", PrintableText("a\nb\x1b" "c"));
  EXPECT_EQ("a  b", PrintableText("a\n\tb"));
  EXPECT_EQ("x y", PrintableText("x\xc2\x9by"));                        // C1 CSI
  EXPECT_EQ("??? ok", PrintableText("\xff\xab\xab ok"));               // not a lead byte, then two continuations
  EXPECT_EQ("???", PrintableText("\xe0\x80\x80"));                     // overlong
  EXPECT_EQ("???", PrintableText("\xed\xa0\x80"));                     // surrogate U+D800
  EXPECT_EQ("????", PrintableText("\xf4\x90\x80\x80"));               // past U+10FFFF
  EXPECT_EQ("??", PrintableText("\xe2\x82"));                           // truncated: the lead, then the continuation
  EXPECT_EQ("\xe2\x82\xac \xc3\xa9", PrintableText("\xe2\x82\xac \xc3\xa9"));  // euro sign, e-acute
  EXPECT_EQ("a b c", PrintableText("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c"));       // U+2028, U+2029
  EXPECT_EQ("?\xef\xbf\xbd?", PrintableText("\xef\xbf\xbe\xef\xbf\xbd\xef\xbf\xbf"));  // U+FFFE, U+FFFD kept, U+FFFF
  EXPECT_EQ("a b c d", PrintableText("a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\xaa" "d"));  // U+202E, U+2066, U+202A
  EXPECT_EQ("\xe2\x80\xa7\xe2\x80\xaf", PrintableText("\xe2\x80\xa7\xe2\x80\xaf"));  // U+2027, U+202F: just outside
}

// Console lines: the bidirectional controls and line separators are shown
// by their code point, so a name cannot reorder or break the line after it.
TEST(ErrorLineTest, EscapeTextShowsLayoutControlsByCodePoint) {
  EXPECT_EQ("evil\\u202eexe.json", EscapeText("evil\xe2\x80\xae" "exe.json"));
  EXPECT_EQ("a\\u2028b\\u2069c", EscapeText("a\xe2\x80\xa8" "b\xe2\x81\xa9" "c"));
  EXPECT_EQ("\\u200f\\u200e\\u061c", EscapeText("\xe2\x80\x8f\xe2\x80\x8e\xd8\x9c"));  // the marks
  EXPECT_EQ("\xc3\xa9\xe2\x82\xac", EscapeText("\xc3\xa9\xe2\x82\xac"));  // other characters kept
}

// A length limit in characters, as a user counts them, not bytes.
TEST(ErrorLineTest, CountCharsCountsCharactersNotBytes) {
  EXPECT_EQ(0u, CountChars(""));
  EXPECT_EQ(3u, CountChars("abc"));
  EXPECT_EQ(2u, CountChars("\xc3\xa9\xe4\xb8\xad"));  // e-acute (2 bytes), a CJK character (3)
  EXPECT_EQ(1u, CountChars("\xf0\x9f\x98\x80"));   // an emoji (4)
  EXPECT_EQ(3u, CountChars("\xff\xe2\x82"));       // invalid bytes: one each
}

}  // namespace
}  // namespace slotguard
