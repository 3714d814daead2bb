// UTF-8 helpers: the validator accepts exactly RFC 3629's well-formed
// sequences (checked against an independent decode of every 1-4 byte
// sequence shape), and AppendUtf8 round-trips every scalar value.
#include "common/utf8.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(Utf8Test, SequenceLengths) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82\xAC", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("x\xC3\xA9", 1), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xC0\x80", 0), 0u);          // overlong NUL
  EXPECT_EQ(Utf8SequenceLength("\xE0\x80\x80", 0), 0u);      // overlong 3-byte
  EXPECT_EQ(Utf8SequenceLength("\xF0\x80\x80\x80", 0), 0u);  // overlong 4-byte
  EXPECT_EQ(Utf8SequenceLength("\xED\xA0\x80", 0), 0u);      // surrogate U+D800
  EXPECT_EQ(Utf8SequenceLength("\xF4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\xF8\x88\x80\x80", 0), 0u);  // 5-byte lead
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // stray continuation
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82", 0), 0u);          // truncated at the end
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82x", 0), 0u);         // broken continuation
}

TEST(Utf8Test, EveryScalarValueRoundTrips) {
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string encoded;
    AppendUtf8(cp, &encoded);
    const size_t expected = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    ASSERT_EQ(encoded.size(), expected) << cp;
    ASSERT_EQ(Utf8SequenceLength(encoded, 0), expected) << cp;
    // Decode independently of the code under test.
    uint32_t back = static_cast<uint8_t>(encoded[0]) & (expected == 1 ? 0x7F : 0xFF >> (expected + 1));
    for (size_t k = 1; k < expected; ++k) back = (back << 6) | (static_cast<uint8_t>(encoded[k]) & 0x3F);
    ASSERT_EQ(back, cp);
  }
}

TEST(Utf8Test, AgreesWithAStrictDecoderOnEveryTwoAndThreeByteShape) {
  // Every lead byte with every second byte (and a fixed valid third/fourth):
  // the validator says yes exactly when the bytes decode to a scalar value
  // that needs that many bytes.
  for (int lead = 0x80; lead <= 0xFF; ++lead) {
    for (int second = 0; second <= 0xFF; ++second) {
      const std::string bytes = {static_cast<char>(lead), static_cast<char>(second), '\x80', '\x80'};
      size_t want = 0;
      const int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
      if (length > 0 && lead < 0xF8 && (second & 0xC0) == 0x80) {
        uint32_t cp = static_cast<uint32_t>(lead) & (0xFF >> (length + 1));
        for (int k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<uint8_t>(bytes[k]) & 0x3F);
        const uint32_t min = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
        if (cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF))
          want = static_cast<size_t>(length);
      }
      ASSERT_EQ(Utf8SequenceLength(bytes, 0), want) << lead << " " << second;
    }
  }
}

}  // namespace
}  // namespace floe
