// Shared text helpers: ASCII case folding (never touches UTF-8 bytes),
// hex digits and encoding, UUID text, percent-encoding and decoding.
#include "common/strings.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(StringsTest, AsciiCaseFoldingLeavesOtherBytesAlone) {
  EXPECT_EQ(AsciiLower("Hello, World_42"), "hello, world_42");
  // 'É' is C3 89 in UTF-8: neither byte is an ASCII letter, both stay.
  EXPECT_EQ(AsciiLower("\xC3\x89T\xC3\x89"), "\xC3\x89t\xC3\x89");
  EXPECT_EQ(AsciiLower('Z'), 'z');
  EXPECT_EQ(AsciiLower('['), '[');  // the byte after 'Z'
  EXPECT_EQ(AsciiLower('@'), '@');  // the byte before 'A'
  EXPECT_EQ(AsciiUpper('a'), 'A');
  EXPECT_EQ(AsciiUpper('{'), '{');
  EXPECT_TRUE(EqualsIgnoreAsciiCase("GWCBI___Operation", "gwcbi___operation"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("id", "ids"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("\xC3\xA9", "\xC3\x89"));  // é and É differ: not ASCII
  EXPECT_TRUE(EqualsIgnoreAsciiCase("", ""));
}

TEST(StringsTest, HexDigitsAndEncoding) {
  for (int v = 0; v < 16; ++v) {
    EXPECT_EQ(HexDigitValue(kLowerHexDigits[v]), v);
    EXPECT_EQ(HexDigitValue(kUpperHexDigits[v]), v);
  }
  for (char c : std::string("gG/:@`x \x80")) EXPECT_EQ(HexDigitValue(c), -1) << c;
  EXPECT_EQ(HexEncode(std::string("\x00\x7f\xff\xab", 4)), "007fffab");
  EXPECT_EQ(HexEncode(std::string("\x00\x7f\xff\xab", 4), HexCase::kUpper), "007FFFAB");
  std::string out = "0x";
  AppendHex("\x01", &out);
  EXPECT_EQ(out, "0x01");
  std::string uuid;
  AppendUuid("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", &uuid);
  EXPECT_EQ(uuid, "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(StringsTest, PercentEncodingRoundTrips) {
  EXPECT_EQ(PercentEncode("a b/c~d.e_f-g"), "a%20b%2Fc~d.e_f-g");
  EXPECT_EQ(PercentEncode("a b/c", "/"), "a%20b/c");
  EXPECT_EQ(PercentEncode("\x1f\xc3\xa9"), "%1F%C3%A9");
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(PercentDecode(PercentEncode(all)), all);
  EXPECT_EQ(PercentDecode("a%20b%2fc+%1F"), "a b/c+\x1f");
  EXPECT_EQ(PercentDecode("a+b", /*plus_is_space=*/true), "a b");
  size_t offset = 99;
  EXPECT_EQ(PercentDecode("abc%2", false, &offset), std::nullopt);
  EXPECT_EQ(offset, 3u);
  EXPECT_EQ(PercentDecode("%", false, &offset), std::nullopt);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(PercentDecode("ok%zz", false, &offset), std::nullopt);
  EXPECT_EQ(offset, 2u);
  EXPECT_EQ(PercentDecode(""), "");
}

}  // namespace
}  // namespace floe
