// Data files written for Iceberg: Parquet layout (field ids, iceberg.schema,
// physical types), DataFile metrics against what the file holds, bound
// truncation, rolling, partition fan-out and the row-location sink.
#include "iceberg/writer/data_file_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "formats/parquet/file_reader.h"
#include "iceberg/spec/single_value.h"
#include "iceberg/writer/column_bounds.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

Schema TestSchema() {
  Schema schema;
  schema.schema_id = 1;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(3, "price", DecimalType(10, 2)),
                   MakeNestedField(4, "ts", PrimitiveType(TypeKind::kTimestampTz)),
                   MakeNestedField(5, "score", PrimitiveType(TypeKind::kDouble)),
                   MakeNestedField(6, "tags", ListType(7, PrimitiveType(TypeKind::kString), false)),
                   MakeNestedField(8, "u", PrimitiveType(TypeKind::kUuid)),
                   MakeNestedField(9, "big", DecimalType(25, 3))};
  return schema;
}

// Rows: id i, name names[i], price i*100+5 (x.05), ts 1e6*i (+ day offsets),
// score (NaN at 1, null at 2), tags with i elements, u bytes, big -i.
RecordBatch TestBatch(const Schema& schema, int rows) {
  RecordBatch batch;
  batch.schema = *ToFloeSchema(schema);
  batch.num_rows = rows;
  for (const Field& f : batch.schema) batch.columns.push_back(MakeEmptyColumn(f.type));
  const std::vector<std::string> names = {"alpha", "\xC3\xA9t\xC3\xA9 long name that exceeds sixteen",
                                          "zulu"};
  for (int i = 0; i < rows; ++i) {
    batch.columns[0].AppendValue<int64_t>(i);
    batch.columns[1].AppendBytes(names[static_cast<size_t>(i) % names.size()]);
    batch.columns[2].AppendValue<Int128>(Int128{i} * 100 + 5);
    batch.columns[3].AppendValue<int64_t>(int64_t{86400} * 1000000 * i);
    if (i == 2) {
      batch.columns[4].AppendNull();
    } else {
      batch.columns[4].AppendValue<double>(i == 1 ? std::nan("") : 0.5 * i);
    }
    Column& tags = batch.columns[5];
    for (int k = 0; k < i; ++k) tags.children[0].AppendBytes("tag" + std::to_string(k));
    tags.AppendListEnd();
    uint8_t uuid[16];
    std::memset(uuid, 0x10 + i, 16);
    batch.columns[6].AppendFixed(uuid);
    batch.columns[7].AppendValue<Int128>(-Int128{i});
  }
  return batch;
}

std::string Le64(int64_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 8);
}

TEST(ColumnBoundsTest, TruncatesStringsByCodePointsAndRoundsUpperUp) {
  const std::string twenty(20, 'a');
  EXPECT_EQ(TruncateStringLowerBound(twenty, 16), std::string(16, 'a'));
  EXPECT_EQ(TruncateStringUpperBound(twenty, 16), std::string(15, 'a') + "b");
  // 17 two-byte code points: the prefix keeps 16 of them (32 bytes).
  std::string accents;
  for (int i = 0; i < 17; ++i) accents += "\xC3\xA9";  // é
  EXPECT_EQ(TruncateStringLowerBound(accents, 16).size(), 32u);
  std::string expected_upper;
  for (int i = 0; i < 15; ++i) expected_upper += "\xC3\xA9";
  expected_upper += "\xC3\xAA";  // ê = é + 1
  EXPECT_EQ(TruncateStringUpperBound(accents, 16), expected_upper);
  // A 4-byte code point at the limit: U+10FFFF cannot grow, the one before does.
  std::string max_tail = std::string(15, 'x') + "\xF4\x8F\xBF\xBF" + "y";
  EXPECT_EQ(TruncateStringUpperBound(max_tail, 16), std::string(14, 'x') + "y");
  // U+D7FF + 1 skips the surrogates to U+E000.
  std::string before_surrogates = std::string(15, 'x') + "\xED\x9F\xBF" + "zz";
  EXPECT_EQ(TruncateStringUpperBound(before_surrogates, 16), std::string(15, 'x') + "\xEE\x80\x80");
  // Nothing incrementable: no upper bound.
  std::string all_max;
  for (int i = 0; i < 17; ++i) all_max += "\xF4\x8F\xBF\xBF";
  EXPECT_EQ(TruncateStringUpperBound(all_max, 16), std::nullopt);
  // Short values are kept whole.
  EXPECT_EQ(TruncateStringUpperBound("abc", 16), "abc");
}

TEST(ColumnBoundsTest, TruncatesBinaryAndOmitsImpossibleUpperBounds) {
  const std::string ff(20, '\xFF');
  EXPECT_EQ(TruncateBinaryLowerBound(ff, 16), std::string(16, '\xFF'));
  EXPECT_EQ(TruncateBinaryUpperBound(ff, 16), std::nullopt);
  std::string mixed = std::string(14, '\x01') + "\x02\xFF" + "tail";
  EXPECT_EQ(TruncateBinaryUpperBound(mixed, 16), std::string(14, '\x01') + "\x03");
  EXPECT_EQ(TruncateBinaryUpperBound(std::string(16, '\xFF'), 16), std::string(16, '\xFF'));
}

TEST(ColumnBoundsTest, ConvertsParquetStatisticsToSingleValues) {
  int32_t small = -5;
  EXPECT_EQ(
      *ParquetStatisticToSingleValue(std::string(reinterpret_cast<char*>(&small), 4), DecimalType(9, 2)),
      std::string("\xFB", 1));
  EXPECT_EQ(*ParquetStatisticToSingleValue(Le64(300), DecimalType(18, 2)), std::string("\x01\x2C", 2));
  // FLBA decimal with redundant sign bytes.
  EXPECT_EQ(*ParquetStatisticToSingleValue(std::string("\xFF\xFF\xFF\x80", 4), DecimalType(20, 0)),
            std::string("\x80", 1));
  EXPECT_EQ(*ParquetStatisticToSingleValue(Le64(7), PrimitiveType(TypeKind::kTimestamp)), Le64(7));
  EXPECT_EQ(ParquetStatisticToSingleValue("abc", PrimitiveType(TypeKind::kLong)).status().kind(),
            ErrorKind::kCorruption);
}

TEST(DataFileWriterTest, WritesIcebergParquetAndExactMetrics) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const Schema schema = TestSchema();
  DataFileWriterOptions options;
  options.sort_order_id = 0;
  options.parquet.row_group_max_rows = 2;  // several row groups
  const std::string path = dir.File("f.parquet");
  ASSERT_OK_AND_ASSIGN(auto writer, DataFileWriter::Open(*io, path, schema, {}, options));
  ASSERT_OK(writer->Write(TestBatch(schema, 5)));
  ASSERT_OK_AND_ASSIGN(DataFile file, writer->Close());

  EXPECT_EQ(file.file_path, path);
  EXPECT_EQ(file.file_format, "PARQUET");
  EXPECT_EQ(file.record_count, 5);
  EXPECT_EQ(file.file_size_in_bytes, static_cast<int64_t>(std::filesystem::file_size(path)));
  EXPECT_EQ(file.sort_order_id, 0);

  ASSERT_OK_AND_ASSIGN(auto input, io->OpenRead(path));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input))));
  const parquet::FileMetaData& meta = reader->metadata();
  // Field ids on every element but the root and the list's repeated group.
  for (size_t i = 1; i < meta.schema.size(); ++i) {
    const auto& element = meta.schema[i];
    if (element.name == "list") {
      EXPECT_FALSE(element.field_id.has_value());
    } else {
      EXPECT_TRUE(element.field_id.has_value()) << element.name;
    }
  }
  bool found_schema_key = false;
  for (const auto& kv : meta.key_value_metadata) {
    if (kv.key == "iceberg.schema") {
      found_schema_key = true;
      EXPECT_EQ(kv.value, SchemaToJson(schema).dump());
    }
  }
  EXPECT_TRUE(found_schema_key);
  // split_offsets: where each row group starts.
  ASSERT_EQ(meta.row_groups.size(), 3u);
  ASSERT_EQ(file.split_offsets.size(), 3u);
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const auto& first = *meta.row_groups[g].columns[0].meta_data;
    EXPECT_EQ(file.split_offsets[g], first.dictionary_page_offset.value_or(first.data_page_offset));
  }
  // Physical mapping: timestamptz INT64 micros UTC, decimal(10,2) INT64, uuid FLBA(16), decimal(25,3)
  // FLBA(11).
  const auto& leaves = reader->parquet_schema().leaves;
  ASSERT_EQ(leaves.size(), 8u);
  EXPECT_EQ(leaves[3].physical_type, parquet::Type::INT64);
  EXPECT_EQ(leaves[2].physical_type, parquet::Type::INT64);
  EXPECT_EQ(leaves[6].physical_type, parquet::Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(leaves[6].type_length, 16);
  EXPECT_EQ(leaves[7].physical_type, parquet::Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(leaves[7].type_length, 11);

  // Column sizes are the chunks' compressed sizes summed over row groups.
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    int64_t total = 0;
    for (const auto& group : meta.row_groups) total += group.columns[leaf].meta_data->total_compressed_size;
    const int32_t ids[] = {1, 2, 3, 4, 5, 7, 8, 9};
    EXPECT_EQ(file.column_sizes.at(ids[leaf]), total) << "leaf " << leaf;
  }
  // Counts: 5 rows; tags hold 0+1+2+3+4 = 10 elements plus one empty-list slot.
  EXPECT_EQ(file.value_counts.at(1), 5);
  EXPECT_EQ(file.value_counts.at(7), 11);
  EXPECT_EQ(file.null_value_counts.at(5), 1);
  EXPECT_EQ(file.nan_value_counts.at(5), 1);
  EXPECT_EQ(file.nan_value_counts.count(1), 0u);
  // Bounds: little-endian numbers, truncated strings, minimal decimals, none inside lists.
  EXPECT_EQ(file.lower_bounds.at(1), Le64(0));
  EXPECT_EQ(file.upper_bounds.at(1), Le64(4));
  EXPECT_EQ(file.lower_bounds.at(2), "alpha");
  // "été…" sorts after "zulu" (0xC3 > 'z'); 16 code points, the last rounded up.
  EXPECT_EQ(file.upper_bounds.at(2), "\xC3\xA9t\xC3\xA9 long name ti");
  EXPECT_EQ(file.lower_bounds.at(3), std::string("\x05", 1));
  EXPECT_EQ(file.upper_bounds.at(3), std::string("\x01\x95", 2));  // 405
  // Parquet orders -0.0 before +0.0 and reports a zero minimum as -0.0.
  EXPECT_EQ(file.lower_bounds.at(5),
            *SerializeSingleValue(Literal::Double(-0.0), PrimitiveType(TypeKind::kDouble)));
  EXPECT_EQ(file.upper_bounds.at(5),
            *SerializeSingleValue(Literal::Double(2), PrimitiveType(TypeKind::kDouble)));
  EXPECT_EQ(file.lower_bounds.count(7), 0u);
  EXPECT_EQ(file.upper_bounds.count(7), 0u);
  EXPECT_EQ(file.lower_bounds.at(8), std::string(16, '\x10'));
  EXPECT_EQ(file.upper_bounds.at(8), std::string(16, '\x14'));
  EXPECT_EQ(file.lower_bounds.at(9), std::string("\xFC", 1));  // -4
  EXPECT_EQ(file.upper_bounds.at(9), std::string("\x00", 1));
}

TEST(DataFileWriterTest, TruncatesLongStringBounds) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  Schema schema;
  schema.fields = {MakeNestedField(1, "s", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(2, "b", PrimitiveType(TypeKind::kBinary))};
  RecordBatch batch;
  batch.schema = *ToFloeSchema(schema);
  batch.num_rows = 2;
  batch.columns = {MakeEmptyColumn(batch.schema[0].type), MakeEmptyColumn(batch.schema[1].type)};
  std::string long_accents;
  for (int i = 0; i < 20; ++i) long_accents += "\xC3\xA9";
  batch.columns[0].AppendBytes("a");
  batch.columns[0].AppendBytes(long_accents);
  batch.columns[1].AppendBytes(std::string(3, '\x00'));
  batch.columns[1].AppendBytes(std::string(20, '\xFF'));
  ASSERT_OK_AND_ASSIGN(auto writer, DataFileWriter::Open(*io, dir.File("t.parquet"), schema, {}, {}));
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK_AND_ASSIGN(DataFile file, writer->Close());
  EXPECT_EQ(file.lower_bounds.at(1), "a");
  std::string expected_upper;
  for (int i = 0; i < 15; ++i) expected_upper += "\xC3\xA9";
  expected_upper += "\xC3\xAA";
  EXPECT_EQ(file.upper_bounds.at(1), expected_upper);
  EXPECT_EQ(file.lower_bounds.at(2), std::string(3, '\x00'));
  EXPECT_EQ(file.upper_bounds.count(2), 0u);  // 0xFF * 20 cannot be rounded up
}

TEST(PartitionedWriterTest, RollsAtTheTargetSize) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const Schema schema = TestSchema();
  RollingWriterOptions options;
  options.target_file_size = 1;  // every size check rolls
  options.rows_per_check = 2;
  options.file_prefix = "00000-test";
  ASSERT_OK_AND_ASSIGN(auto writer,
                       PartitionedWriter::MakeForPartition(*io, dir.path().string() + "/", schema,
                                                           PartitionSpec::Unpartitioned(), {}, options));
  ASSERT_OK(writer->Write(TestBatch(schema, 5)));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 3u);
  int64_t rows = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].file_path,
              dir.path().string() + "/data/00000-test-0000" + std::to_string(i) + ".parquet");
    EXPECT_EQ(files[i].file_size_in_bytes,
              static_cast<int64_t>(std::filesystem::file_size(files[i].file_path)));
    rows += files[i].record_count;
  }
  EXPECT_EQ(rows, 5);
  EXPECT_EQ(files[2].record_count, 1);
  EXPECT_EQ(files[1].lower_bounds.at(1), Le64(2));
}

// Compressible rows: a file closes on what it holds once its buffered rows
// are written (and scales buffered values by what earlier row groups
// compressed to), so files close near the target rather than at a fraction
// of it (compaction, whose small files are those under 0.75 of the target,
// rewrote its own output every time: 66 MB files at a 128 MiB target).
TEST(PartitionedWriterTest, FilesOfCompressibleRowsCloseNearTheTarget) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  Schema schema;
  schema.schema_id = 1;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "status", PrimitiveType(TypeKind::kString))};
  RecordBatch batch;
  batch.schema = *ToFloeSchema(schema);
  for (const Field& f : batch.schema) batch.columns.push_back(MakeEmptyColumn(f.type));
  const std::vector<std::string> statuses = {"open", "closed", "pending review by the claims desk"};
  batch.num_rows = 400'000;
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    batch.columns[0].AppendValue<int64_t>(i);
    batch.columns[1].AppendBytes(statuses[static_cast<size_t>(i / 7) % statuses.size()]);
  }
  RollingWriterOptions options;
  options.target_file_size = int64_t{256} << 10;
  options.file.parquet.row_group_max_bytes = int64_t{64} << 20;  // the file's target decides
  ASSERT_OK_AND_ASSIGN(auto writer,
                       PartitionedWriter::MakeForPartition(*io, dir.path().string() + "/", schema,
                                                           PartitionSpec::Unpartitioned(), {}, options));
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_GE(files.size(), 2u);
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    EXPECT_GE(files[i].file_size_in_bytes, options.target_file_size * 3 / 4) << i;
    EXPECT_LE(files[i].file_size_in_bytes, options.target_file_size * 3 / 2) << i;
  }
}

TEST(PartitionedWriterTest, RoutesRowsByTransformedValues) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const Schema schema = TestSchema();
  PartitionSpec spec;
  spec.spec_id = 1;
  spec.fields = {PartitionField{4, 1000, "ts_day", Transform::Day()},
                 PartitionField{1, 1001, "id_bucket", Transform::Bucket(2)}};
  ASSERT_OK_AND_ASSIGN(auto writer, PartitionedWriter::Make(*io, dir.path().string(), schema, spec, {}));
  RecordBatch batch = TestBatch(schema, 4);
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK(writer->Write(batch));  // the same partitions again: same writers
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 4u);  // four distinct days
  ASSERT_OK_AND_ASSIGN(auto tuples, ComputePartitionTuples(schema, spec, batch));
  for (size_t i = 0; i < files.size(); ++i) {
    const DataFile& f = files[i];
    EXPECT_EQ(f.spec_id, 1);
    EXPECT_EQ(f.record_count, 2);
    EXPECT_EQ(f.partition, tuples[i]);
    ASSERT_EQ(f.partition[0].kind, Literal::Kind::kDate);
    EXPECT_EQ(f.partition[0].int_value, static_cast<int64_t>(i));
    ASSERT_OK_AND_ASSIGN(std::string partition_path, spec.PartitionPath(f.partition));
    EXPECT_NE(f.file_path.find("/data/" + partition_path + "/"), std::string::npos) << f.file_path;
    EXPECT_EQ(f.lower_bounds.at(1), Le64(static_cast<int64_t>(i)));
    EXPECT_EQ(f.upper_bounds.at(1), Le64(static_cast<int64_t>(i)));
  }
}

// The row-location sink: each row's (file number, position) names the row
// a reader finds at that position of that file, across partitions and rolls.
TEST(PartitionedWriterTest, ReportsWhereEveryRowLanded) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const Schema schema = TestSchema();
  PartitionSpec spec;
  spec.spec_id = 3;
  spec.fields = {PartitionField{1, 1000, "id_bucket", Transform::Bucket(3)}};
  RollingWriterOptions options;
  options.target_file_size = 1;  // every size check rolls
  options.rows_per_check = 2;
  options.file_prefix = "b7-test";
  ASSERT_OK_AND_ASSIGN(auto writer, PartitionedWriter::Make(*io, dir.path().string(), schema, spec, options));
  const RecordBatch batch = TestBatch(schema, 11);
  std::vector<RowLocation> locations = {RowLocation{-1, -1}};  // entries are appended after it
  ASSERT_OK(writer->Write(batch, &locations));
  ASSERT_OK(writer->Write(batch, &locations));
  ASSERT_EQ(locations.size(), 23u);
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(static_cast<int32_t>(files.size()), writer->files_opened());
  ASSERT_OK_AND_ASSIGN(auto tuples, ComputePartitionTuples(schema, spec, batch));
  for (int32_t n = 0; n < writer->files_opened(); ++n) {
    char name[32];
    std::snprintf(name, sizeof(name), "b7-test-%05d.parquet", n);
    EXPECT_EQ(writer->path(n), files[static_cast<size_t>(n)].file_path);
    EXPECT_TRUE(writer->path(n).ends_with(name)) << writer->path(n);
  }
  // Read every file back and check each reported location holds its row's id.
  std::vector<std::vector<int64_t>> ids(files.size());
  for (size_t n = 0; n < files.size(); ++n) {
    ASSERT_OK_AND_ASSIGN(auto input, io->OpenRead(files[n].file_path));
    ASSERT_OK_AND_ASSIGN(auto reader,
                         parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input))));
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      ASSERT_OK_AND_ASSIGN(RecordBatch rows, reader->ReadRowGroup(g, {0}));
      for (int64_t r = 0; r < rows.num_rows; ++r) ids[n].push_back(rows.columns[0].Value<int64_t>(r));
    }
    EXPECT_EQ(static_cast<int64_t>(ids[n].size()), files[n].record_count);
  }
  std::vector<int> seen(files.size());
  for (size_t slot = 1; slot < locations.size(); ++slot) {
    const int64_t row = static_cast<int64_t>((slot - 1) % 11);
    const RowLocation& at = locations[slot];
    ASSERT_GE(at.file, 0);
    ASSERT_LT(at.file, writer->files_opened());
    ASSERT_LT(at.position, static_cast<int64_t>(ids[static_cast<size_t>(at.file)].size()));
    EXPECT_EQ(ids[static_cast<size_t>(at.file)][static_cast<size_t>(at.position)], row) << "slot " << slot;
    EXPECT_EQ(files[static_cast<size_t>(at.file)].partition, tuples[static_cast<size_t>(row)]);
    ++seen[static_cast<size_t>(at.file)];
  }
  for (size_t n = 0; n < files.size(); ++n) EXPECT_EQ(seen[n], files[n].record_count) << "file " << n;
  EXPECT_EQ(locations[0].file, -1);  // entries before the call are left alone
  // Numbers follow the order files were opened: the first row's partition first.
  EXPECT_EQ(locations[1].file, 0);
  EXPECT_EQ(locations[1].position, 0);
}

TEST(PartitionedWriterTest, AbortAndDeleteRemovesClosedAndOpenFiles) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const Schema schema = TestSchema();
  RollingWriterOptions options;
  options.target_file_size = 1;
  options.rows_per_check = 3;
  ASSERT_OK_AND_ASSIGN(auto writer, PartitionedWriter::Make(*io, dir.path().string(), schema,
                                                            PartitionSpec::Unpartitioned(), options));
  ASSERT_OK(writer->Write(TestBatch(schema, 7)));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 3u);
  for (const DataFile& f : files) EXPECT_TRUE(std::filesystem::exists(f.file_path)) << f.file_path;
  // The commit failed after Close: the files still belong to the writer.
  writer->AbortAndDelete();
  for (const DataFile& f : files) EXPECT_FALSE(std::filesystem::exists(f.file_path)) << f.file_path;
  EXPECT_EQ(writer->files_opened(), 0);

  ASSERT_OK_AND_ASSIGN(auto open_writer, PartitionedWriter::Make(*io, dir.path().string(), schema,
                                                                 PartitionSpec::Unpartitioned(), {}));
  ASSERT_OK(open_writer->Write(TestBatch(schema, 2)));
  open_writer->AbortAndDelete();  // never closed: nothing was published
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() / "data"));
}

TEST(PartitionedWriterTest, MakeForPartitionRefusesATupleOfAnotherSpec) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  EXPECT_EQ(PartitionedWriter::MakeForPartition(*io, dir.path().string(), TestSchema(),
                                                PartitionSpec::Unpartitioned(), {Literal::Long(1)}, {})
                .status()
                .kind(),
            ErrorKind::kInvalidArgument);
}

// A batch whose source column is narrower than the schema says (int32 where
// a long is declared) is refused instead of read past its values.
TEST(PartitionedWriterTest, RefusesASourceColumnOfTheWrongWidth) {
  const Schema schema = TestSchema();
  RecordBatch batch = TestBatch(schema, 3);
  Column narrow(Int32());
  for (int32_t i = 0; i < 3; ++i) narrow.AppendValue<int32_t>(i);
  batch.columns[0] = narrow;
  PartitionSpec spec;
  spec.fields = {PartitionField{1, 1000, "id", Transform::Identity()}};
  auto tuples = ComputePartitionTuples(schema, spec, batch);
  ASSERT_FALSE(tuples.ok());
  EXPECT_EQ(tuples.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(tuples.status().message().find("partition field 'id'"), std::string::npos)
      << tuples.status().message();
}

}  // namespace
}  // namespace floe::iceberg
