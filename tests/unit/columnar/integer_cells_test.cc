// Integer cells widened to int64: sign extension for signed types, zero
// extension for unsigned ones, dates and timestamps as their stored integers;
// the checked IntegerCell refuses other types and uint64 values past int64.
#include "columnar/integer_cells.h"

#include <gtest/gtest.h>

#include <limits>

namespace floe {
namespace {

template <typename T>
Column OneValue(DataType type, T value) {
  Column column(type);
  column.AppendValue<T>(value);
  return column;
}

TEST(IntegerCellsTest, WidensEveryIntegerType) {
  EXPECT_EQ(IntegerCellAt(OneValue<int8_t>(Int8(), -5), 0), -5);
  EXPECT_EQ(IntegerCellAt(OneValue<int16_t>(Int16(), -300), 0), -300);
  EXPECT_EQ(IntegerCellAt(OneValue<int32_t>(Int32(), std::numeric_limits<int32_t>::min()), 0),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(IntegerCellAt(OneValue<int64_t>(Int64(), std::numeric_limits<int64_t>::max()), 0),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IntegerCellAt(OneValue<uint8_t>(UInt8(), 250), 0), 250);
  EXPECT_EQ(IntegerCellAt(OneValue<uint16_t>(UInt16(), 65535), 0), 65535);
  EXPECT_EQ(IntegerCellAt(OneValue<uint32_t>(UInt32(), 4294967295u), 0), int64_t{4294967295});
  EXPECT_EQ(IntegerCellAt(OneValue<uint64_t>(UInt64(), uint64_t{1} << 63), 0),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(IntegerCellAt(OneValue<int32_t>(Date(), -1), 0), -1);
  EXPECT_EQ(IntegerCellAt(OneValue<int64_t>(Timestamp(TimeUnit::kMicro, true), -7), 0), -7);
  Column two(Int16());
  two.AppendValue<int16_t>(1);
  two.AppendValue<int16_t>(-2);
  EXPECT_EQ(IntegerCellAt(two, 1), -2);
}

TEST(IntegerCellsTest, EveryWidthAndSignednessReadsAsInt64) {
  EXPECT_EQ(IntegerCell(OneValue<int8_t>(Int8(), -128), 0), -128);
  EXPECT_EQ(IntegerCell(OneValue<int16_t>(Int16(), -32768), 0), -32768);
  EXPECT_EQ(IntegerCell(OneValue<int32_t>(Int32(), -7), 0), -7);
  EXPECT_EQ(IntegerCell(OneValue<int64_t>(Int64(), std::numeric_limits<int64_t>::min()), 0),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(IntegerCell(OneValue<uint8_t>(UInt8(), 255), 0), 255);
  EXPECT_EQ(IntegerCell(OneValue<uint16_t>(UInt16(), 65535), 0), 65535);
  EXPECT_EQ(IntegerCell(OneValue<uint32_t>(UInt32(), 4294967295u), 0), 4294967295);
  EXPECT_EQ(IntegerCell(OneValue<uint64_t>(UInt64(), uint64_t{1} << 63), 0), std::nullopt);
  EXPECT_EQ(IntegerCell(OneValue<uint64_t>(UInt64(), (uint64_t{1} << 63) - 1), 0),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IntegerCell(OneValue<double>(Float64(), 1.0), 0), std::nullopt);
  EXPECT_TRUE(IsIntegerType(UInt64()));
  EXPECT_FALSE(IsIntegerType(Date()));
  EXPECT_FALSE(IsIntegerType(Float32()));
}

TEST(IntegerCellsTest, IntegerTypeIds) {
  for (TypeId id : {TypeId::kInt8, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64, TypeId::kUInt8,
                    TypeId::kUInt16, TypeId::kUInt32, TypeId::kUInt64}) {
    EXPECT_TRUE(IsIntegerType(id));
  }
  for (TypeId id : {TypeId::kBool, TypeId::kDate, TypeId::kTimestamp, TypeId::kDecimal, TypeId::kFloat64,
                    TypeId::kString}) {
    EXPECT_FALSE(IsIntegerType(id));
  }
}

}  // namespace
}  // namespace floe
