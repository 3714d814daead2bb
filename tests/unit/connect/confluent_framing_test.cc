#include "formats/connect/confluent_framing.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::connect {
namespace {

TEST(ConfluentFramingTest, ReadsTheSchemaIdAndTheDatum) {
  // Schema id 258 = 0x00000102, datum "\x02\x06abc".
  const std::string bytes(
      "\x00\x00\x00\x01\x02\x02\x06"
      "abc",
      10);
  ASSERT_OK_AND_ASSIGN(ConfluentFrame frame, ParseConfluentFrame(bytes));
  EXPECT_EQ(frame.schema_id, 258);
  EXPECT_EQ(frame.datum, std::string_view("\x02\x06"
                                          "abc",
                                          5));
  EXPECT_EQ(frame.datum.data(), bytes.data() + 5);  // a view, no copy

  ASSERT_OK_AND_ASSIGN(frame, ParseConfluentFrame(ConfluentHeader(2147483647)));
  EXPECT_EQ(frame.schema_id, 2147483647);
  EXPECT_TRUE(frame.datum.empty());
  EXPECT_EQ(ConfluentHeader(258), std::string("\x00\x00\x00\x01\x02", 5));
}

TEST(ConfluentFramingTest, RejectsWhatIsNotTheWireFormat) {
  struct Case {
    std::string bytes;
    const char* expected;
  };
  const Case cases[] = {
      {"", "0 bytes, fewer than the 5-byte header"},
      {std::string("\x00\x00\x00\x01", 4), "4 bytes"},
      {R"({"id": 1})", "magic byte 123, expected 0"},
      {std::string("\x00\xff\xff\xff\xfe", 5), "negative schema id -2"},
  };
  for (const Case& c : cases) {
    auto frame = ParseConfluentFrame(c.bytes);
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(frame.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(frame.status().message().find(c.expected), std::string::npos) << frame.status().ToString();
  }
}

}  // namespace
}  // namespace floe::connect
