#include "columnar/integer_cells.h"

#include <gtest/gtest.h>

#include <limits>

namespace floe {
namespace {

template <typename T>
Column One(DataType type, T value) {
  Column c(std::move(type));
  c.AppendValue<T>(value);
  return c;
}

TEST(IntegerCellsTest, EveryWidthAndSignednessReadsAsInt64) {
  EXPECT_EQ(IntegerCell(One<int8_t>(Int8(), -128), 0), -128);
  EXPECT_EQ(IntegerCell(One<int16_t>(Int16(), -32768), 0), -32768);
  EXPECT_EQ(IntegerCell(One<int32_t>(Int32(), -7), 0), -7);
  EXPECT_EQ(IntegerCell(One<int64_t>(Int64(), std::numeric_limits<int64_t>::min()), 0),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(IntegerCell(One<uint8_t>(UInt8(), 255), 0), 255);
  EXPECT_EQ(IntegerCell(One<uint16_t>(UInt16(), 65535), 0), 65535);
  EXPECT_EQ(IntegerCell(One<uint32_t>(UInt32(), 4294967295u), 0), 4294967295);
  EXPECT_EQ(IntegerCell(One<uint64_t>(UInt64(), uint64_t{1} << 63), 0), std::nullopt);
  EXPECT_EQ(IntegerCell(One<uint64_t>(UInt64(), (uint64_t{1} << 63) - 1), 0),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IntegerCell(One<double>(Float64(), 1.0), 0), std::nullopt);
  EXPECT_TRUE(IsIntegerType(UInt64()));
  EXPECT_FALSE(IsIntegerType(Date()));
  EXPECT_FALSE(IsIntegerType(Float32()));
}

}  // namespace
}  // namespace floe
