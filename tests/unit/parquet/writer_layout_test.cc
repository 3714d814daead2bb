// File layout written by ParquetFileWriter: dictionary fallback, page and
// row group cutting, exact offsets and sizes, CRCs, page index, field ids,
// key-value metadata and column orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "compression/codec.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::ChunkMeta;
using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::Plain;
using testing::ReadFile;
using testing::RenderRows;
using testing::WriteFile;

std::vector<uint8_t> FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

bool HasEncoding(const ColumnMetaData& m, Encoding e) {
  return std::find(m.encodings.begin(), m.encodings.end(), e) != m.encodings.end();
}

int32_t PagesWith(const ColumnMetaData& m, PageType type, Encoding e) {
  int32_t n = 0;
  for (const auto& s : m.encoding_stats) {
    if (s.page_type == type && s.encoding == e) n += s.count;
  }
  return n;
}

RecordBatch UniqueStrings(int n) {
  Schema schema = {MakeField("s", String())};
  std::vector<std::optional<std::string>> values;
  // Repeats first (so the dictionary pays off on the first page), then distinct values.
  for (int i = 0; i < n; ++i) {
    values.push_back(i < 1000 ? "repeated-" + std::to_string(i % 10)
                              : "value-" + std::to_string(i * 7919 % n));
  }
  return MakeBatch(schema, {MakeStrings(String(), values)});
}

RecordBatch Sequence(int64_t n, int64_t start = 0) {
  Schema schema = {MakeField("v", Int64(), false)};
  Column c = MakeEmptyColumn(Int64());
  for (int64_t i = 0; i < n; ++i) c.AppendValue<int64_t>(start + i);
  return MakeBatch(schema, {c});
}

OffsetIndex ReadOffsetIndex(const std::vector<uint8_t>& bytes, const ColumnChunk& chunk) {
  OffsetIndex index;
  auto parsed = DeserializeOffsetIndex(
      std::span<const uint8_t>(bytes.data() + *chunk.offset_index_offset, *chunk.offset_index_length),
      &index);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return index;
}

TEST(ParquetWriterLayout, DictionaryFallsBackToPlainOnceTooLarge) {
  floe::testing::TempDir dir;
  RecordBatch batch = UniqueStrings(5000);
  ParquetWriterOptions options;
  options.dictionary_max_bytes = 2000;
  options.page_max_rows = 100;
  std::string path = dir.File("fallback.parquet");
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, batch.schema, {batch}, options));
  const ColumnMetaData& m = ChunkMeta(f.metadata, 0, 0);
  EXPECT_TRUE(HasEncoding(m, Encoding::RLE_DICTIONARY));
  EXPECT_TRUE(HasEncoding(m, Encoding::PLAIN));
  ASSERT_TRUE(m.dictionary_page_offset.has_value());
  EXPECT_EQ(PagesWith(m, PageType::DICTIONARY_PAGE, Encoding::PLAIN), 1);
  EXPECT_GE(PagesWith(m, PageType::DATA_PAGE, Encoding::RLE_DICTIONARY), 1);
  EXPECT_GE(PagesWith(m, PageType::DATA_PAGE, Encoding::PLAIN), 30);
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, RenderRows(batch));

  options.delta_encodings = true;
  options.data_page_version = 2;
  ASSERT_OK_AND_ASSIGN(auto g, WriteFile(dir.File("delta.parquet"), batch.schema, {batch}, options));
  const ColumnMetaData& md = ChunkMeta(g.metadata, 0, 0);
  EXPECT_GE(PagesWith(md, PageType::DATA_PAGE_V2, Encoding::DELTA_BYTE_ARRAY), 30);
  EXPECT_TRUE(HasEncoding(md, Encoding::DELTA_BYTE_ARRAY));
  ASSERT_OK_AND_ASSIGN(auto back_delta, ReadFile(dir.File("delta.parquet")));
  EXPECT_EQ(back_delta.rows, RenderRows(batch));
}

TEST(ParquetWriterLayout, SmallDictionaryStaysDictionaryEncoded) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("v", Int32())};
  std::vector<std::optional<int32_t>> values;
  for (int i = 0; i < 10000; ++i) values.push_back(i % 10);
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(dir.File("d.parquet"), schema,
                                         {MakeBatch(schema, {MakeColumn<int32_t>(Int32(), values)})}));
  const ColumnMetaData& m = ChunkMeta(f.metadata, 0, 0);
  EXPECT_EQ(PagesWith(m, PageType::DATA_PAGE, Encoding::PLAIN), 0);
  EXPECT_EQ(PagesWith(m, PageType::DATA_PAGE, Encoding::RLE_DICTIONARY), 1);
  EXPECT_LT(m.total_compressed_size, 1000);  // PLAIN would take 40000 bytes
}

TEST(ParquetWriterLayout, DictionaryIsDroppedWhenItDoesNotPayOff) {
  floe::testing::TempDir dir;
  RecordBatch batch = Sequence(50000);  // all distinct: dictionary + indices > PLAIN
  std::string path = dir.File("distinct.parquet");
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, batch.schema, {batch}));
  const ColumnMetaData& m = ChunkMeta(f.metadata, 0, 0);
  EXPECT_FALSE(m.dictionary_page_offset.has_value());
  EXPECT_EQ(m.encodings, std::vector<Encoding>{Encoding::PLAIN});
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, RenderRows(batch));
}

TEST(ParquetWriterLayout, NoDictionaryWhenDisabled) {
  floe::testing::TempDir dir;
  RecordBatch batch = Sequence(100);
  ParquetWriterOptions options;
  options.dictionary_enabled = false;
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(dir.File("p.parquet"), batch.schema, {batch}, options));
  const ColumnMetaData& m = ChunkMeta(f.metadata, 0, 0);
  EXPECT_FALSE(m.dictionary_page_offset.has_value());
  EXPECT_EQ(m.encodings, std::vector<Encoding>{Encoding::PLAIN});  // required column: no levels
  EXPECT_EQ(m.data_page_offset, 4);
}

TEST(ParquetWriterLayout, PagesAreCutByRowsAndBytes) {
  floe::testing::TempDir dir;
  RecordBatch batch = Sequence(1000);
  ParquetWriterOptions options;
  options.dictionary_enabled = false;
  options.page_max_rows = 100;
  std::string path = dir.File("rows.parquet");
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, batch.schema, {batch}, options));
  OffsetIndex index = ReadOffsetIndex(FileBytes(path), f.metadata.row_groups[0].columns[0]);
  ASSERT_EQ(index.page_locations.size(), 10u);
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(index.page_locations[i].first_row_index, static_cast<int64_t>(i) * 100);

  options.page_max_rows = 20000;
  options.page_max_bytes = 400;  // 50 int64 values
  path = dir.File("bytes.parquet");
  ASSERT_OK_AND_ASSIGN(f, WriteFile(path, batch.schema, {batch}, options));
  std::vector<uint8_t> bytes = FileBytes(path);
  index = ReadOffsetIndex(bytes, f.metadata.row_groups[0].columns[0]);
  ASSERT_EQ(index.page_locations.size(), 20u);
  for (const PageLocation& page : index.page_locations) {
    PageHeader header;
    ASSERT_OK(DeserializePageHeader(
        std::span<const uint8_t>(bytes.data() + page.offset, bytes.size() - page.offset), &header));
    EXPECT_LE(header.uncompressed_page_size, 400);
    EXPECT_EQ(header.data_page_header->num_values, 50);
  }
}

TEST(ParquetWriterLayout, RepeatedColumnPagesStartAtRows) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("l", List(MakeField("element", Int32())))};
  Column l = MakeEmptyColumn(schema[0].type);
  for (int r = 0; r < 500; ++r) {
    for (int k = 0; k < r % 5; ++k) l.children[0].AppendValue<int32_t>(r + k);
    l.AppendListEnd();
  }
  RecordBatch batch = MakeBatch(schema, {l});
  ParquetWriterOptions options;
  options.page_max_rows = 7;
  std::string path = dir.File("rep.parquet");
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, schema, {batch}, options));
  OffsetIndex index = ReadOffsetIndex(FileBytes(path), f.metadata.row_groups[0].columns[0]);
  ASSERT_EQ(index.page_locations.size(), 72u);  // ceil(500 / 7)
  EXPECT_EQ(index.page_locations[3].first_row_index, 21);
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, RenderRows(batch));
}

TEST(ParquetWriterLayout, RowGroupsAreCutByRowsAndBytes) {
  floe::testing::TempDir dir;
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 10; ++i) batches.push_back(Sequence(1000, i * 1000));
  ParquetWriterOptions options;
  options.row_group_max_bytes = 16000;  // two batches of 8000 bytes
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(dir.File("rg.parquet"), batches[0].schema, batches, options));
  ASSERT_EQ(f.metadata.row_groups.size(), 5u);
  for (const RowGroup& g : f.metadata.row_groups) EXPECT_EQ(g.num_rows, 2000);

  options = {};
  options.row_group_max_rows = 300;
  ASSERT_OK_AND_ASSIGN(f, WriteFile(dir.File("rows.parquet"), batches[0].schema, {batches[0]}, options));
  ASSERT_EQ(f.metadata.row_groups.size(), 4u);
  EXPECT_EQ(f.metadata.row_groups[3].num_rows, 100);
}

TEST(ParquetWriterLayout, OffsetsSizesAndCrcsAreExact) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("a", Int64(), true, 1), MakeField("s", String(), true, 2)};
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<std::string>> strings;
  for (int i = 0; i < 3000; ++i) {
    ints.push_back(i % 17 == 0 ? std::nullopt : std::optional<int64_t>(i * 31 % 1000));
    strings.push_back("s" + std::to_string(i % 300));
  }
  RecordBatch batch = MakeBatch(schema, {MakeColumn<int64_t>(Int64(), ints), MakeStrings(String(), strings)});
  for (int version : {1, 2}) {
    ParquetWriterOptions options;
    options.data_page_version = version;
    options.page_max_rows = 500;
    options.row_group_max_rows = 1000;
    std::string path = dir.File("exact" + std::to_string(version) + ".parquet");
    ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, schema, {batch}, options));
    std::vector<uint8_t> bytes = FileBytes(path);
    ASSERT_EQ(f.file_size, static_cast<int64_t>(bytes.size()));
    int64_t expected_offset = 4;
    for (const RowGroup& g : f.metadata.row_groups) {
      EXPECT_EQ(g.file_offset, expected_offset);
      int64_t group_bytes = 0;
      for (const ColumnChunk& chunk : g.columns) {
        const ColumnMetaData& m = *chunk.meta_data;
        EXPECT_EQ(chunk.file_offset, expected_offset);
        EXPECT_EQ(m.dictionary_page_offset.value_or(m.data_page_offset), expected_offset);
        // Walk the pages: their headers and bodies add up to the chunk size; CRCs match.
        int64_t pos = expected_offset;
        int64_t values = 0;
        while (pos < expected_offset + m.total_compressed_size) {
          PageHeader header;
          ASSERT_OK_AND_ASSIGN(
              size_t header_size,
              DeserializePageHeader(std::span<const uint8_t>(bytes.data() + pos, bytes.size() - pos),
                                    &header));
          const uint8_t* body = bytes.data() + pos + header_size;
          ASSERT_TRUE(header.crc.has_value());
          EXPECT_EQ(static_cast<uint32_t>(*header.crc),
                    Crc32(std::span<const uint8_t>(body, static_cast<size_t>(header.compressed_page_size))));
          if (header.data_page_header) values += header.data_page_header->num_values;
          if (header.data_page_header_v2) values += header.data_page_header_v2->num_values;
          pos += static_cast<int64_t>(header_size) + header.compressed_page_size;
        }
        EXPECT_EQ(pos, expected_offset + m.total_compressed_size);
        EXPECT_EQ(values, m.num_values);
        expected_offset = pos;
        group_bytes += m.total_compressed_size;
      }
      EXPECT_EQ(g.total_compressed_size, group_bytes);
    }
    std::vector<int64_t> offsets;
    for (const RowGroup& g : f.metadata.row_groups) offsets.push_back(*g.file_offset);
    EXPECT_EQ(f.row_group_offsets, offsets);
    // Footer: length + magic at the end, the metadata parses back.
    ASSERT_GE(bytes.size(), 12u);
    EXPECT_EQ(std::string(bytes.end() - 4, bytes.end()), "PAR1");
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "PAR1");
    ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
    EXPECT_EQ(back.rows, RenderRows(batch));
  }
}

TEST(ParquetWriterLayout, ColumnIndexHoldsPageStatistics) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("v", Int64())};
  std::vector<std::optional<int64_t>> values;
  for (int i = 0; i < 300; ++i)
    values.push_back(i >= 100 && i < 200 ? std::nullopt : std::optional<int64_t>(i));
  ParquetWriterOptions options;
  options.page_max_rows = 100;
  std::string path = dir.File("ci.parquet");
  ASSERT_OK_AND_ASSIGN(
      auto f, WriteFile(path, schema, {MakeBatch(schema, {MakeColumn<int64_t>(Int64(), values)})}, options));
  const ColumnChunk& chunk = f.metadata.row_groups[0].columns[0];
  ASSERT_TRUE(chunk.column_index_offset.has_value());
  std::vector<uint8_t> bytes = FileBytes(path);
  ColumnIndex index;
  ASSERT_OK(DeserializeColumnIndex(
      std::span<const uint8_t>(bytes.data() + *chunk.column_index_offset, *chunk.column_index_length),
      &index));
  EXPECT_EQ(index.null_pages, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(index.null_counts, (std::vector<int64_t>{0, 100, 0}));
  EXPECT_EQ(index.min_values[0], Plain<int64_t>(0));
  EXPECT_EQ(index.max_values[2], Plain<int64_t>(299));
  EXPECT_EQ(index.boundary_order, BoundaryOrder::ASCENDING);

  options.write_page_index = false;
  ASSERT_OK_AND_ASSIGN(f, WriteFile(dir.File("noci.parquet"), schema,
                                    {MakeBatch(schema, {MakeColumn<int64_t>(Int64(), values)})}, options));
  EXPECT_FALSE(f.metadata.row_groups[0].columns[0].column_index_offset.has_value());
  EXPECT_FALSE(f.metadata.row_groups[0].columns[0].offset_index_offset.has_value());
}

TEST(ParquetWriterLayout, SchemaCarriesFieldIdsTypesAndMetadata) {
  floe::testing::TempDir dir;
  Schema schema = {MakeField("id", Int64(), false, 1),
                   MakeField("tags", List(MakeField("element", String(), true, 3)), true, 2),
                   MakeField("ts", Timestamp(TimeUnit::kMicro, true), true, 4),
                   MakeField("local", Timestamp(TimeUnit::kMilli, false), true, 5),
                   MakeField("u16", UInt16(), true, 6)};
  std::vector<Column> columns;
  for (const Field& field : schema) columns.push_back(MakeEmptyColumn(field.type));
  columns[0].AppendValue<int64_t>(1);
  columns[1].children[0].AppendBytes("x");
  columns[1].AppendListEnd();
  columns[2].AppendValue<int64_t>(5);
  columns[3].AppendNull();
  columns[4].AppendValue<uint16_t>(65535);
  ParquetWriterOptions options;
  options.key_value_metadata = {{"iceberg.schema", std::string("{}")}, {"no-value", std::nullopt}};
  std::string path = dir.File("schema.parquet");
  ASSERT_OK_AND_ASSIGN(auto f, WriteFile(path, schema, {MakeBatch(schema, std::move(columns))}, options));
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  const std::vector<SchemaElement>& e = back.metadata.schema;
  ASSERT_EQ(e.size(), 8u);  // root, id, tags, list, element, ts, local, u16
  EXPECT_EQ(e[0].name, "schema");
  EXPECT_EQ(e[1].field_id, 1);
  EXPECT_EQ(e[1].repetition_type, FieldRepetitionType::REQUIRED);
  EXPECT_EQ(e[2].field_id, 2);
  EXPECT_EQ(e[2].converted_type, ConvertedType::LIST);
  EXPECT_EQ(e[3].name, "list");
  EXPECT_EQ(e[3].repetition_type, FieldRepetitionType::REPEATED);
  EXPECT_EQ(e[4].field_id, 3);
  EXPECT_EQ(e[5].converted_type, ConvertedType::TIMESTAMP_MICROS);
  EXPECT_TRUE(e[5].logical_type->is_adjusted_to_utc);
  EXPECT_FALSE(e[6].converted_type.has_value());  // local timestamps carry no converted type
  EXPECT_EQ(e[6].logical_type->time_unit, TimeUnitKind::MILLIS);
  EXPECT_EQ(e[7].converted_type, ConvertedType::UINT_16);
  EXPECT_FALSE(e[7].logical_type->is_signed);
  EXPECT_EQ(back.metadata.key_value_metadata.size(), 2u);
  EXPECT_EQ(back.metadata.key_value_metadata[0].value, std::optional<std::string>("{}"));
  EXPECT_EQ(back.metadata.created_by, std::optional<std::string>("floe version 0.1.0"));
  EXPECT_EQ(back.metadata.column_orders, std::vector<bool>(5, true));  // one per leaf
  EXPECT_EQ(back.schema, schema);
}

TEST(ParquetWriterLayout, UnsupportedOptionsAreRejected) {
  floe::testing::TempDir dir;
  auto io = MakeLocalFileIO();
  Schema schema = {MakeField("v", Int32())};
  ParquetWriterOptions options;
  options.codec = Codec::kLz4Frame;
  ASSERT_OK_AND_ASSIGN(auto out, io->Create(dir.File("x.parquet")));
  auto writer = ParquetFileWriter::Open(std::move(out), schema, options);
  EXPECT_EQ(writer.status().kind(), ErrorKind::kInvalidArgument);
  options = {};
  options.data_page_version = 3;
  ASSERT_OK_AND_ASSIGN(out, io->Create(dir.File("y.parquet")));
  EXPECT_FALSE(ParquetFileWriter::Open(std::move(out), schema, options).ok());
  ASSERT_OK_AND_ASSIGN(out, io->Create(dir.File("z.parquet")));
  EXPECT_FALSE(ParquetFileWriter::Open(std::move(out), {MakeField("d", Decimal(40, 2))}, {}).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("x.parquet")));
}

}  // namespace
}  // namespace floe::parquet
