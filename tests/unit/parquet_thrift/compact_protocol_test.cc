// Byte-level tests of the Thrift compact protocol reader and writer. Expected
// bytes are worked out by hand from the compact protocol specification.
#include "formats/parquet/thrift/compact_protocol.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "test_util.h"

namespace floe::parquet::thrift {
namespace {

using Bytes = std::vector<uint8_t>;

TEST(CompactProtocolTest, VarintAndZigZagEncoding) {
  Bytes out;
  CompactWriter w(&out);
  w.WriteI32(0);
  w.WriteI32(-1);
  w.WriteI32(1);
  w.WriteI32(-64);
  w.WriteI32(64);
  EXPECT_EQ(out, (Bytes{0x00, 0x01, 0x02, 0x7F, 0x80, 0x01}));

  out.clear();
  w.WriteI32(std::numeric_limits<int32_t>::min());
  EXPECT_EQ(out, (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}));
  out.clear();
  w.WriteI64(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(out, (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

TEST(CompactProtocolTest, IntegersRoundTripAtTheirLimits) {
  Bytes out;
  CompactWriter w(&out);
  w.WriteI16(std::numeric_limits<int16_t>::min());
  w.WriteI16(std::numeric_limits<int16_t>::max());
  w.WriteI32(std::numeric_limits<int32_t>::min());
  w.WriteI32(std::numeric_limits<int32_t>::max());
  w.WriteI64(std::numeric_limits<int64_t>::min());
  w.WriteI64(std::numeric_limits<int64_t>::max());
  w.WriteByte(-5);
  w.WriteDouble(-2.5);
  w.WriteBinary("hello");
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);

  CompactReader r(out);
  EXPECT_EQ(r.ReadI16().ValueOr(0), std::numeric_limits<int16_t>::min());
  EXPECT_EQ(r.ReadI16().ValueOr(0), std::numeric_limits<int16_t>::max());
  EXPECT_EQ(r.ReadI32().ValueOr(0), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(r.ReadI32().ValueOr(0), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(r.ReadI64().ValueOr(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(r.ReadI64().ValueOr(0), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.ReadByte().ValueOr(0), -5);
  EXPECT_EQ(r.ReadDouble().ValueOr(0), -2.5);
  EXPECT_EQ(r.ReadBinary().ValueOr(""), "hello");
  EXPECT_TRUE(r.ReadBoolElement().ValueOr(false));
  EXPECT_FALSE(r.ReadBoolElement().ValueOr(true));
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactProtocolTest, RejectsOverflowingVarints) {
  // Six bytes for an i32; a fifth byte with bits above 32.
  Bytes too_long{0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  EXPECT_EQ(CompactReader(too_long).ReadI32().status().kind(), ErrorKind::kCorruption);
  Bytes high_bits{0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
  EXPECT_EQ(CompactReader(high_bits).ReadI32().status().kind(), ErrorKind::kCorruption);
  // 11 bytes for an i64, and a tenth byte above 64 bits.
  Bytes i64_long(10, 0x80);
  i64_long.push_back(0x01);
  EXPECT_EQ(CompactReader(i64_long).ReadI64().status().kind(), ErrorKind::kCorruption);
  Bytes i64_high{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  EXPECT_EQ(CompactReader(i64_high).ReadI64().status().kind(), ErrorKind::kCorruption);
  // An i16 whose value does not fit 16 bits (zigzag 65536 = 32768).
  Bytes i16_big{0x80, 0x80, 0x04};
  EXPECT_EQ(CompactReader(i16_big).ReadI16().status().kind(), ErrorKind::kCorruption);
  // Truncated: continuation bit set on the last byte.
  Bytes truncated{0x80, 0x80};
  auto r = CompactReader(truncated).ReadI64();
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().message();
}

TEST(CompactProtocolTest, FieldHeadersShortAndLongForm) {
  Bytes out;
  CompactWriter w(&out);
  w.BeginStruct();
  w.WriteI32Field(1, 7);      // delta 1
  w.WriteI32Field(16, 7);     // delta 15: still short
  w.WriteI32Field(32, 7);     // delta 16: long form
  w.WriteI32Field(3, 7);      // decreasing: long form
  w.WriteBoolField(4, true);  // bool in the header, delta 1
  w.WriteBoolField(5, false);
  w.WriteI32Field(-2, 7);  // negative id: long form
  w.EndStruct();
  EXPECT_EQ(out, (Bytes{0x15, 0x0E, 0xF5, 0x0E, 0x05, 0x40, 0x0E, 0x05, 0x06, 0x0E, 0x11, 0x12, 0x05, 0x03,
                        0x0E, 0x00}));

  CompactReader r(out);
  ASSERT_OK(r.BeginStruct());
  std::vector<std::pair<int, CompactType>> fields;
  std::vector<bool> bools;
  while (true) {
    ASSERT_OK_AND_ASSIGN(FieldHeader h, r.ReadFieldHeader());
    if (h.type == CompactType::kStop) break;
    fields.emplace_back(h.id, h.type);
    if (IsBoolType(h.type)) {
      bools.push_back(h.bool_value);
    } else {
      ASSERT_EQ(r.ReadI32().ValueOr(0), 7);
    }
  }
  r.EndStruct();
  EXPECT_EQ(fields, (std::vector<std::pair<int, CompactType>>{{1, CompactType::kI32},
                                                              {16, CompactType::kI32},
                                                              {32, CompactType::kI32},
                                                              {3, CompactType::kI32},
                                                              {4, CompactType::kBoolTrue},
                                                              {5, CompactType::kBoolFalse},
                                                              {-2, CompactType::kI32}}));
  EXPECT_EQ(bools, (std::vector<bool>{true, false}));
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactProtocolTest, FieldIdsAreTrackedPerNestedStruct) {
  Bytes out;
  CompactWriter w(&out);
  w.BeginStruct();
  w.WriteFieldHeader(5, CompactType::kStruct);
  w.BeginStruct();
  w.WriteI32Field(1, 1);
  w.EndStruct();
  w.WriteI32Field(6, 2);  // delta from 5, not from the inner 1
  w.EndStruct();
  EXPECT_EQ(out, (Bytes{0x5C, 0x15, 0x02, 0x00, 0x15, 0x04, 0x00}));

  CompactReader r(out);
  ASSERT_OK(r.BeginStruct());
  ASSERT_OK_AND_ASSIGN(FieldHeader outer, r.ReadFieldHeader());
  EXPECT_EQ(outer.id, 5);
  ASSERT_OK(r.SkipFieldValue(outer.type));
  ASSERT_OK_AND_ASSIGN(FieldHeader next, r.ReadFieldHeader());
  EXPECT_EQ(next.id, 6);
  EXPECT_EQ(r.ReadI32().ValueOr(0), 2);
}

TEST(CompactProtocolTest, ListHeadersShortAndLongSize) {
  Bytes out;
  CompactWriter w(&out);
  w.WriteListHeader(CompactType::kI32, 3);
  EXPECT_EQ(out, (Bytes{0x35}));
  out.clear();
  w.WriteListHeader(CompactType::kBinary, 15);
  EXPECT_EQ(out, (Bytes{0xF8, 0x0F}));
  out.clear();
  w.WriteListHeader(CompactType::kStruct, 300);
  EXPECT_EQ(out, (Bytes{0xFC, 0xAC, 0x02}));

  // A list of 20 i32 zeros (long size form) reads back.
  Bytes list{0xF5, 20};
  list.resize(list.size() + 20, 0);
  CompactReader r(list);
  ASSERT_OK_AND_ASSIGN(ListHeader h, r.ReadListHeader());
  EXPECT_EQ(h.element_type, CompactType::kI32);
  EXPECT_EQ(h.size, 20u);
}

TEST(CompactProtocolTest, ContainerSizesAreCheckedAgainstRemainingInput) {
  // 14 i32 elements promised, 3 bytes present.
  Bytes short_list{0xE5, 0, 0, 0};
  EXPECT_EQ(CompactReader(short_list).ReadListHeader().status().kind(), ErrorKind::kCorruption);
  // A long-form size of 2^31-1 with nothing behind it.
  Bytes huge_list{0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};
  EXPECT_EQ(CompactReader(huge_list).ReadListHeader().status().kind(), ErrorKind::kCorruption);
  // A negative size (as Java would read it).
  Bytes negative_list{0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  EXPECT_EQ(CompactReader(negative_list).ReadListHeader().status().kind(), ErrorKind::kCorruption);
  // Doubles take 8 bytes each: 2 doubles need 16 bytes.
  Bytes doubles{0x27, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(CompactReader(doubles).ReadListHeader().status().kind(), ErrorKind::kCorruption);
  // Map of 3 entries of (i32, i32) needs at least 6 bytes.
  Bytes map{0x03, 0x55, 0, 0, 0};
  EXPECT_EQ(CompactReader(map).ReadMapHeader().status().kind(), ErrorKind::kCorruption);
  // Binary longer than the input.
  Bytes binary{0x05, 'a', 'b'};
  auto s = CompactReader(binary).ReadBinary();
  EXPECT_EQ(s.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(s.status().message().find("binary length 5"), std::string::npos) << s.status().message();
}

TEST(CompactProtocolTest, InvalidTypesAreRejected) {
  Bytes field{0x1D};  // type nibble 13
  CompactReader r(field);
  ASSERT_OK(r.BeginStruct());
  EXPECT_EQ(r.ReadFieldHeader().status().kind(), ErrorKind::kCorruption);
  Bytes list{0x1E, 0x00};  // element type 14
  EXPECT_EQ(CompactReader(list).ReadListHeader().status().kind(), ErrorKind::kCorruption);
  Bytes map{0x01, 0x0D, 0x00, 0x00};  // value type 13
  EXPECT_EQ(CompactReader(map).ReadMapHeader().status().kind(), ErrorKind::kCorruption);
  Bytes empty_map{0x00};
  ASSERT_OK_AND_ASSIGN(MapHeader h, CompactReader(empty_map).ReadMapHeader());
  EXPECT_EQ(h.size, 0u);
}

// Builds a struct holding one field of every type, then skips it whole.
TEST(CompactProtocolTest, SkipsEveryTypeRecursively) {
  Bytes out;
  CompactWriter w(&out);
  w.BeginStruct();
  w.WriteBoolField(1, true);
  w.WriteFieldHeader(2, CompactType::kByte);
  w.WriteByte(9);
  w.WriteFieldHeader(3, CompactType::kI16);
  w.WriteI16(-300);
  w.WriteI32Field(4, 123456);
  w.WriteI64Field(5, -1234567890123);
  w.WriteFieldHeader(6, CompactType::kDouble);
  w.WriteDouble(1.5);
  w.WriteBinaryField(7, "bytes");
  w.WriteFieldHeader(8, CompactType::kList);
  w.WriteListHeader(CompactType::kBoolTrue, 2);
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);
  w.WriteFieldHeader(9, CompactType::kSet);
  w.WriteListHeader(CompactType::kList, 1);
  w.WriteListHeader(CompactType::kDouble, 1);
  w.WriteDouble(3.0);
  w.WriteFieldHeader(10, CompactType::kMap);
  w.WriteMapHeader(CompactType::kBinary, CompactType::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteBinary("k");
    w.BeginStruct();
    w.WriteI32Field(100, i);
    w.EndStruct();
  }
  w.WriteFieldHeader(11, CompactType::kMap);
  w.WriteMapHeader(CompactType::kI32, CompactType::kI32, 0);
  w.WriteFieldHeader(12, CompactType::kStruct);
  w.BeginStruct();
  w.EndStruct();
  w.EndStruct();
  out.push_back(0xAB);  // a byte after the struct

  CompactReader r(out);
  ASSERT_OK(r.SkipFieldValue(CompactType::kStruct));
  EXPECT_EQ(r.remaining(), 1u);

  // Every strict prefix fails cleanly.
  for (size_t n = 0; n + 1 < out.size(); ++n) {
    CompactReader prefix(std::span<const uint8_t>(out.data(), n));
    EXPECT_EQ(prefix.SkipFieldValue(CompactType::kStruct).kind(), ErrorKind::kCorruption) << n;
  }
}

TEST(CompactProtocolTest, NestingDepthIsLimited) {
  // 63 nested single-element lists of lists and then an empty list fit.
  auto nested_lists = [](int depth) {
    Bytes bytes;
    for (int i = 0; i < depth - 1; ++i) bytes.push_back(0x19);  // list of 1 list
    bytes.push_back(0x09);                                      // empty list
    return bytes;
  };
  {
    Bytes ok = nested_lists(kMaxNestingDepth);
    CompactReader r(ok);
    ASSERT_OK(r.SkipFieldValue(CompactType::kList));
    EXPECT_EQ(r.remaining(), 0u);
  }
  {
    Bytes deep = nested_lists(kMaxNestingDepth + 1);
    CompactReader r(deep);
    Status s = r.SkipFieldValue(CompactType::kList);
    EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
    EXPECT_NE(s.message().find("nesting"), std::string::npos) << s.message();
  }
  {
    // Structs nested 100000 deep: field 1 of type struct, again and again.
    Bytes structs(100000, 0x1C);
    CompactReader r(structs);
    EXPECT_EQ(r.SkipFieldValue(CompactType::kStruct).kind(), ErrorKind::kCorruption);
  }
}

TEST(CompactProtocolTest, WriterUsesLongFormForOutOfRangeDelta) {
  // A field id that goes down to 0 after a positive one must not produce a
  // zero delta (which would mean "long form follows").
  Bytes out;
  CompactWriter w(&out);
  w.BeginStruct();
  w.WriteI32Field(2, 1);
  w.WriteI32Field(2, 1);  // same id again: delta 0 is not allowed in short form
  w.EndStruct();
  CompactReader r(out);
  ASSERT_OK(r.BeginStruct());
  ASSERT_OK_AND_ASSIGN(FieldHeader first, r.ReadFieldHeader());
  ASSERT_OK(r.SkipFieldValue(first.type));
  ASSERT_OK_AND_ASSIGN(FieldHeader second, r.ReadFieldHeader());
  EXPECT_EQ(second.id, 2);
}

}  // namespace
}  // namespace floe::parquet::thrift
