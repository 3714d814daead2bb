// Statistics written by ParquetFileWriter follow each type's sort order:
// unsigned integers, NaN exclusion, signed zeros, FLBA decimals, bytes >= 0x80.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::ChunkMeta;
using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::Plain;
using testing::WriteFile;

// Writes one column and returns the file's result.
template <typename T>
WrittenParquetFile WriteOne(const DataType& type, const std::vector<std::optional<T>>& values,
                            ParquetWriterOptions options = {}) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("c", type)};
  auto written =
      WriteFile(dir.File("s.parquet"), schema, {MakeBatch(schema, {MakeColumn<T>(type, values)})}, options);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  return written.ok() ? std::move(written).value() : WrittenParquetFile{};
}

void ExpectChunkStats(const WrittenParquetFile& f, const std::optional<std::string>& min,
                      const std::optional<std::string>& max) {
  ASSERT_EQ(f.columns.size(), 1u);
  EXPECT_EQ(f.columns[0].min, min);
  EXPECT_EQ(f.columns[0].max, max);
  const Statistics& s = *ChunkMeta(f.metadata, 0, 0).statistics;
  EXPECT_EQ(s.min_value, min);
  EXPECT_EQ(s.max_value, max);
}

TEST(ParquetWriterStatistics, SignedAndUnsignedIntegers) {
  ExpectChunkStats(WriteOne<int32_t>(Int32(), {5, -7, std::nullopt, 3}), Plain<int32_t>(-7),
                   Plain<int32_t>(5));
  ExpectChunkStats(WriteOne<uint32_t>(UInt32(), {1, 0xFFFFFFFFu, 5}), Plain<uint32_t>(1),
                   Plain<uint32_t>(0xFFFFFFFFu));
  ExpectChunkStats(WriteOne<uint8_t>(UInt8(), {200, 3, 128}), Plain<int32_t>(3), Plain<int32_t>(200));
  ExpectChunkStats(WriteOne<int8_t>(Int8(), {-128, 3, 127}), Plain<int32_t>(-128), Plain<int32_t>(127));
  ExpectChunkStats(WriteOne<uint64_t>(UInt64(), {2, 1ULL << 63, 7}), Plain<uint64_t>(2),
                   Plain<uint64_t>(1ULL << 63));
  ExpectChunkStats(WriteOne<int64_t>(Int64(), {2, std::numeric_limits<int64_t>::min(), 7}),
                   Plain<int64_t>(std::numeric_limits<int64_t>::min()), Plain<int64_t>(7));
}

TEST(ParquetWriterStatistics, NullCountsAndAllNull) {
  WrittenParquetFile f = WriteOne<int32_t>(Int32(), {std::nullopt, 4, std::nullopt});
  EXPECT_EQ(f.columns[0].null_count, 2);
  EXPECT_EQ(f.columns[0].num_values, 3);
  EXPECT_EQ(ChunkMeta(f.metadata, 0, 0).statistics->null_count, 2);
  WrittenParquetFile all_null = WriteOne<int32_t>(Int32(), {std::nullopt, std::nullopt});
  ExpectChunkStats(all_null, std::nullopt, std::nullopt);
  EXPECT_EQ(all_null.columns[0].null_count, 2);
}

TEST(ParquetWriterStatistics, FloatsExcludeNaNAndOrderSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  WrittenParquetFile f = WriteOne<float>(Float32(), {nan, 1.5f, -2.0f, std::nullopt});
  ExpectChunkStats(f, Plain<float>(-2.0f), Plain<float>(1.5f));
  EXPECT_EQ(f.columns[0].nan_count, 1);

  WrittenParquetFile all_nan = WriteOne<double>(Float64(), {std::nan(""), std::nan("")});
  ExpectChunkStats(all_nan, std::nullopt, std::nullopt);
  EXPECT_EQ(all_nan.columns[0].nan_count, 2);

  // A zero minimum is written as -0.0, a zero maximum as +0.0.
  ExpectChunkStats(WriteOne<double>(Float64(), {0.0, 1.0}), Plain<double>(-0.0), Plain<double>(1.0));
  ExpectChunkStats(WriteOne<double>(Float64(), {-1.0, -0.0}), Plain<double>(-1.0), Plain<double>(0.0));
  ExpectChunkStats(WriteOne<float>(Float32(), {0.0f, -0.0f}), Plain<float>(-0.0f), Plain<float>(0.0f));
  ExpectChunkStats(WriteOne<double>(Float64(), {-INFINITY, INFINITY}), Plain<double>(-INFINITY),
                   Plain<double>(INFINITY));
}

TEST(ParquetWriterStatistics, Float16OrdersNumericallyWithSignedZeros) {
  // 0xC000 = -2.0, 0x3C00 = 1.0, 0x7E00 = NaN, 0x0000 = +0.0, 0x8000 = -0.0
  WrittenParquetFile f = WriteOne<uint16_t>(Float16(), {0x3C00, 0xC000, 0x7E00});
  ExpectChunkStats(f, Plain<uint16_t>(0xC000), Plain<uint16_t>(0x3C00));
  EXPECT_EQ(f.columns[0].nan_count, 1);
  ExpectChunkStats(WriteOne<uint16_t>(Float16(), {0x0000, 0x3C00}), Plain<uint16_t>(0x8000),
                   Plain<uint16_t>(0x3C00));
  ExpectChunkStats(WriteOne<uint16_t>(Float16(), {0x8000, 0xC000}), Plain<uint16_t>(0xC000),
                   Plain<uint16_t>(0x0000));
}

TEST(ParquetWriterStatistics, DecimalsCompareByValue) {
  // INT32 / INT64 physical: numeric.
  ExpectChunkStats(WriteOne<__int128>(Decimal(9, 2), {-5, 3, -100}), Plain<int32_t>(-100), Plain<int32_t>(3));
  ExpectChunkStats(WriteOne<__int128>(Decimal(18, 2), {-5, 3}), Plain<int64_t>(-5), Plain<int64_t>(3));
  // FLBA physical: signed big-endian two's complement, 9 bytes for precision 20.
  EXPECT_EQ(DecimalByteWidth(20), 9);
  EXPECT_EQ(DecimalByteWidth(38), 16);
  EXPECT_EQ(DecimalByteWidth(9), 4);
  EXPECT_EQ(DecimalByteWidth(2), 1);
  EXPECT_EQ(DecimalByteWidth(3), 2);
  WrittenParquetFile f = WriteOne<__int128>(Decimal(20, 0), {-5, 3, -100, 0});
  std::string minus_100(9, '\xFF');
  minus_100[8] = static_cast<char>(0x9C);  // -100 = ...FF9C
  std::string three(9, '\0');
  three[8] = 3;
  ExpectChunkStats(f, minus_100, three);
  EXPECT_EQ(f.metadata.schema[1].type_length, 9);
}

TEST(ParquetWriterStatistics, StringsAndBinaryAreUnsignedBytes) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("s", String())};
  Column c = MakeStrings(String(), {"a", "\xff", std::nullopt, "\x80z", "b", ""});
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(dir.File("s.parquet"), schema, {MakeBatch(schema, {c})}));
  ExpectChunkStats(f, std::string(""), std::string("\xff"));
  EXPECT_EQ(f.columns[0].null_count, 1);
}

TEST(ParquetWriterStatistics, BooleansAndInt96) {
  ExpectChunkStats(WriteOne<uint8_t>(Bool(), {1, 0, 1}), std::string("\0", 1), std::string("\1", 1));
  ExpectChunkStats(WriteOne<uint8_t>(Bool(), {1, 1}), std::string("\1", 1), std::string("\1", 1));
  DataType int96 = Timestamp(TimeUnit::kNano, false);
  int96.annotation = DataType::Annotation::kInt96;
  WrittenParquetFile f = WriteOne<int64_t>(int96, {1, 2});
  ExpectChunkStats(f, std::nullopt, std::nullopt);
}

TEST(ParquetWriterStatistics, StatisticsCanBeTurnedOff) {
  ParquetWriterOptions options;
  options.write_statistics = false;
  WrittenParquetFile f = WriteOne<int32_t>(Int32(), {1, 2}, options);
  EXPECT_FALSE(ChunkMeta(f.metadata, 0, 0).statistics.has_value());
  // The writer's own per-leaf statistics (for Iceberg) are still exact.
  EXPECT_EQ(f.columns[0].min, Plain<int32_t>(1));
}

TEST(ParquetWriterStatistics, WholeFileStatisticsMergeRowGroups) {
  ParquetWriterOptions options;
  options.row_group_max_rows = 2;
  WrittenParquetFile f = WriteOne<int64_t>(Int64(), {5, std::nullopt, -3, 9, std::nullopt}, options);
  ASSERT_EQ(f.metadata.row_groups.size(), 3u);
  EXPECT_EQ(f.columns[0].min, Plain<int64_t>(-3));
  EXPECT_EQ(f.columns[0].max, Plain<int64_t>(9));
  EXPECT_EQ(f.columns[0].null_count, 2);
  EXPECT_EQ(f.columns[0].num_values, 5);
  int64_t compressed = 0;
  for (const RowGroup& g : f.metadata.row_groups) compressed += g.columns[0].meta_data->total_compressed_size;
  EXPECT_EQ(f.columns[0].compressed_bytes, compressed);
}

TEST(ParquetWriterStatistics, NestedLeavesCountNullsAndEmptyLists) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("l", List(MakeField("element", Int32())))};
  Column l = MakeEmptyColumn(schema[0].type);
  l.children[0].AppendValue<int32_t>(4);
  l.children[0].AppendNull();
  l.AppendListEnd();  // [4, null]
  l.AppendListEnd();  // []
  l.AppendNull();     // null
  l.children[0].AppendValue<int32_t>(-1);
  l.AppendListEnd();  // [-1]
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(dir.File("n.parquet"), schema, {MakeBatch(schema, {l})}));
  EXPECT_EQ(f.columns[0].num_values, 5);  // 4, null, [], null list, -1
  EXPECT_EQ(f.columns[0].null_count, 3);
  EXPECT_EQ(f.columns[0].min, Plain<int32_t>(-1));
  EXPECT_EQ(f.columns[0].max, Plain<int32_t>(4));
}

}  // namespace
}  // namespace floe::parquet
