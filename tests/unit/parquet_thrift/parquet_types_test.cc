// Round trips of fully populated parquet.thrift structs, and the handling of
// unknown, missing and mistyped fields.
#include "formats/parquet/thrift/parquet_types.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/parquet/thrift/compact_protocol.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

using Bytes = std::vector<uint8_t>;
using thrift::CompactType;
using thrift::CompactWriter;

Statistics FullStatistics(int seed) {
  Statistics s;
  s.max = "max" + std::to_string(seed);
  s.min = std::string("\0min", 4);
  s.null_count = 3 + seed;
  s.distinct_count = 1LL << 40;
  s.max_value = "MAX";
  s.min_value = "";
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

FileMetaData FullFileMetaData() {
  FileMetaData m;
  m.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 5;
  m.schema.push_back(root);

  SchemaElement decimal;
  decimal.type = Type::FIXED_LEN_BYTE_ARRAY;
  decimal.type_length = 16;
  decimal.repetition_type = FieldRepetitionType::OPTIONAL;
  decimal.name = "amount";
  decimal.converted_type = ConvertedType::DECIMAL;
  decimal.scale = 4;
  decimal.precision = 38;
  decimal.field_id = 7;
  decimal.logical_type = LogicalType{};
  decimal.logical_type->kind = LogicalType::DECIMAL;
  decimal.logical_type->decimal_scale = 4;
  decimal.logical_type->decimal_precision = 38;
  m.schema.push_back(decimal);

  SchemaElement ts;
  ts.type = Type::INT64;
  ts.repetition_type = FieldRepetitionType::REQUIRED;
  ts.name = "ts";
  ts.logical_type = LogicalType{};
  ts.logical_type->kind = LogicalType::TIMESTAMP;
  ts.logical_type->is_adjusted_to_utc = true;
  ts.logical_type->time_unit = TimeUnitKind::NANOS;
  m.schema.push_back(ts);

  SchemaElement time;
  time.type = Type::INT32;
  time.name = "t";
  time.logical_type = LogicalType{};
  time.logical_type->kind = LogicalType::TIME;
  time.logical_type->is_adjusted_to_utc = false;
  time.logical_type->time_unit = TimeUnitKind::MILLIS;
  m.schema.push_back(time);

  SchemaElement small;
  small.type = Type::INT32;
  small.name = "u8";
  small.logical_type = LogicalType{};
  small.logical_type->kind = LogicalType::INTEGER;
  small.logical_type->bit_width = 8;
  small.logical_type->is_signed = false;
  m.schema.push_back(small);

  SchemaElement text;
  text.type = Type::BYTE_ARRAY;
  text.repetition_type = FieldRepetitionType::REPEATED;
  text.name = "s\xC3\xA9";
  text.converted_type = ConvertedType::UTF8;
  text.logical_type = LogicalType{};
  text.logical_type->kind = LogicalType::STRING;
  m.schema.push_back(text);

  m.num_rows = 1LL << 33;
  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    rg.total_byte_size = 1000 + g;
    rg.num_rows = 1LL << 32;
    rg.sorting_columns.push_back({1, true, false});
    rg.sorting_columns.push_back({0, false, true});
    rg.file_offset = 4;
    rg.total_compressed_size = 900;
    rg.ordinal = static_cast<int16_t>(g);
    for (int c = 0; c < 20; ++c) {  // more than 14: long list size form
      ColumnChunk chunk;
      if (c == 3) chunk.file_path = "other.parquet";
      chunk.file_offset = 100 * c;
      ColumnMetaData md;
      md.type = Type::INT64;
      md.encodings = {Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY};
      md.path_in_schema = {"a", "b" + std::to_string(c)};
      md.codec = CompressionCodec::ZSTD;
      md.num_values = -1;
      md.total_uncompressed_size = 1LL << 50;
      md.total_compressed_size = 12345;
      md.key_value_metadata.push_back({"k", std::string("v")});
      md.key_value_metadata.push_back({"no value", std::nullopt});
      md.data_page_offset = 4 + c;
      md.index_page_offset = 77;
      md.dictionary_page_offset = 3;
      md.statistics = FullStatistics(c);
      md.encoding_stats.push_back({PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1});
      md.encoding_stats.push_back({PageType::DATA_PAGE_V2, Encoding::RLE_DICTIONARY, 40});
      md.bloom_filter_offset = 999;
      md.bloom_filter_length = 64;
      chunk.meta_data = md;
      chunk.offset_index_offset = 5000;
      chunk.offset_index_length = 50;
      chunk.column_index_offset = 6000;
      chunk.column_index_length = 60;
      rg.columns.push_back(chunk);
    }
    m.row_groups.push_back(rg);
  }
  m.key_value_metadata.push_back({"ARROW:schema", std::string(300, 'x')});
  m.created_by = "floe version 0.1.0";
  m.column_orders = {true, true, true, true, true};
  return m;
}

template <typename T>
T RoundTrip(const T& value, void (*serialize)(const T&, Bytes*),
            Result<size_t> (*deserialize)(std::span<const uint8_t>, T*)) {
  Bytes bytes;
  serialize(value, &bytes);
  bytes.push_back(0xEE);  // trailing data (page bytes) is not consumed
  T parsed;
  auto consumed = deserialize(bytes, &parsed);
  EXPECT_TRUE(consumed.ok()) << consumed.status().ToString();
  if (consumed.ok()) {
    EXPECT_EQ(*consumed, bytes.size() - 1);
  }
  return parsed;
}

TEST(ParquetTypesTest, FileMetaDataRoundTrip) {
  const FileMetaData original = FullFileMetaData();
  const FileMetaData parsed = RoundTrip(original, SerializeFileMetaData, DeserializeFileMetaData);
  ASSERT_EQ(parsed.schema.size(), original.schema.size());
  for (size_t i = 0; i < parsed.schema.size(); ++i) EXPECT_EQ(parsed.schema[i], original.schema[i]) << i;
  ASSERT_EQ(parsed.row_groups.size(), 2u);
  ASSERT_EQ(parsed.row_groups[1].columns.size(), 20u);
  EXPECT_EQ(parsed.row_groups[1].columns[19].meta_data, original.row_groups[1].columns[19].meta_data);
  EXPECT_EQ(parsed.row_groups[0].columns[3].file_path, "other.parquet");
  EXPECT_EQ(parsed.row_groups[1].sorting_columns, original.row_groups[1].sorting_columns);
  EXPECT_EQ(parsed.key_value_metadata, original.key_value_metadata);
  EXPECT_EQ(parsed.column_orders, original.column_orders);
  EXPECT_EQ(parsed.created_by, original.created_by);
  EXPECT_EQ(parsed.num_rows, original.num_rows);
  EXPECT_EQ(parsed.version, 2);
  EXPECT_FALSE(parsed.has_encryption_algorithm);
  EXPECT_EQ(parsed, original);
}

TEST(ParquetTypesTest, MinimalFileMetaDataRoundTrip) {
  FileMetaData empty;  // no schema, no row groups, no optionals
  Bytes bytes;
  SerializeFileMetaData(empty, &bytes);
  // version=1, schema=[], num_rows=0, row_groups=[], stop.
  EXPECT_EQ(bytes, (Bytes{0x15, 0x02, 0x19, 0x0C, 0x16, 0x00, 0x19, 0x0C, 0x00}));
  EXPECT_EQ(RoundTrip(empty, SerializeFileMetaData, DeserializeFileMetaData), empty);
}

TEST(ParquetTypesTest, PageHeaderRoundTrips) {
  PageHeader v1;
  v1.type = PageType::DATA_PAGE;
  v1.uncompressed_page_size = 1 << 20;
  v1.compressed_page_size = 4321;
  v1.crc = -123456;
  v1.data_page_header =
      DataPageHeader{100, Encoding::RLE_DICTIONARY, Encoding::RLE, Encoding::BIT_PACKED, FullStatistics(1)};
  EXPECT_EQ(RoundTrip(v1, SerializePageHeader, DeserializePageHeader), v1);

  PageHeader dict;
  dict.type = PageType::DICTIONARY_PAGE;
  dict.uncompressed_page_size = 10;
  dict.compressed_page_size = 10;
  dict.dictionary_page_header = DictionaryPageHeader{5, Encoding::PLAIN_DICTIONARY, true};
  EXPECT_EQ(RoundTrip(dict, SerializePageHeader, DeserializePageHeader), dict);

  PageHeader v2;
  v2.type = PageType::DATA_PAGE_V2;
  v2.uncompressed_page_size = 0;
  v2.compressed_page_size = 0;
  v2.data_page_header_v2 =
      DataPageHeaderV2{10, 2, 8, Encoding::DELTA_BINARY_PACKED, 3, 4, false, Statistics{}};
  EXPECT_EQ(RoundTrip(v2, SerializePageHeader, DeserializePageHeader), v2);
}

TEST(ParquetTypesTest, ColumnIndexAndOffsetIndexRoundTrip) {
  ColumnIndex ci;
  for (int i = 0; i < 17; ++i) {
    ci.null_pages.push_back(i % 3 == 0);
    ci.min_values.push_back(std::string(i, 'a'));
    ci.max_values.push_back(std::string(i, 'z'));
    ci.null_counts.push_back(i * 1000);
  }
  ci.boundary_order = BoundaryOrder::ASCENDING;
  EXPECT_EQ(RoundTrip(ci, SerializeColumnIndex, DeserializeColumnIndex), ci);

  OffsetIndex oi;
  for (int i = 0; i < 40; ++i) oi.page_locations.push_back({4 + 1000LL * i, 1000, 100LL * i});
  EXPECT_EQ(RoundTrip(oi, SerializeOffsetIndex, DeserializeOffsetIndex), oi);
}

TEST(ParquetTypesTest, UnknownEnumValuesAreKept) {
  PageHeader h;
  h.type = static_cast<PageType>(42);
  h.data_page_header = DataPageHeader{};
  h.data_page_header->encoding = static_cast<Encoding>(77);
  const PageHeader parsed = RoundTrip(h, SerializePageHeader, DeserializePageHeader);
  EXPECT_EQ(static_cast<int32_t>(parsed.type), 42);
  EXPECT_EQ(static_cast<int32_t>(parsed.data_page_header->encoding), 77);
  EXPECT_STREQ(EncodingName(parsed.data_page_header->encoding), "UNKNOWN_ENCODING");
}

TEST(ParquetTypesTest, UnknownLogicalTypeMembersKeepTheirId) {
  FileMetaData m;
  SchemaElement e;
  e.name = "x";
  e.logical_type = LogicalType{};
  e.logical_type->kind = 99;  // written as an empty struct member 99
  m.schema.push_back(e);
  e.logical_type->kind = LogicalType::UUID;
  m.schema.push_back(e);
  const FileMetaData parsed = RoundTrip(m, SerializeFileMetaData, DeserializeFileMetaData);
  EXPECT_EQ(parsed.schema[0].logical_type->kind, 99);
  EXPECT_EQ(parsed.schema[1].logical_type->kind, LogicalType::UUID);
}

// Hand-built FileMetaData with fields floe skips: an unknown field of each
// kind, ColumnChunk crypto metadata and an encryption algorithm.
TEST(ParquetTypesTest, SkipsUnknownFieldsAndFlagsEncryption) {
  Bytes bytes;
  CompactWriter w(&bytes);
  w.BeginStruct();
  w.WriteI32Field(1, 1);
  w.WriteFieldHeader(2, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();
  w.WriteBinaryField(4, "root");
  w.WriteFieldHeader(30, CompactType::kMap);  // unknown field
  w.WriteMapHeader(CompactType::kBinary, CompactType::kDouble, 1);
  w.WriteBinary("k");
  w.WriteDouble(1.0);
  w.EndStruct();
  w.WriteI64Field(3, 0);
  w.WriteFieldHeader(4, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();  // RowGroup
  w.WriteFieldHeader(1, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();  // ColumnChunk
  w.WriteI64Field(2, 4);
  w.WriteFieldHeader(8, CompactType::kStruct);  // crypto_metadata
  w.BeginStruct();
  w.WriteFieldHeader(1, CompactType::kStruct);
  w.BeginStruct();
  w.EndStruct();
  w.EndStruct();
  w.WriteBinaryField(9, "encrypted");
  w.EndStruct();
  w.WriteI64Field(2, 0);
  w.WriteI64Field(3, 0);
  w.WriteFieldHeader(20, CompactType::kSet);  // unknown field
  w.WriteListHeader(CompactType::kI16, 2);
  w.WriteI16(1);
  w.WriteI16(2);
  w.EndStruct();
  w.WriteFieldHeader(8, CompactType::kStruct);  // encryption_algorithm
  w.BeginStruct();
  w.WriteFieldHeader(1, CompactType::kStruct);
  w.BeginStruct();
  w.WriteBinaryField(1, "aad prefix");
  w.EndStruct();
  w.EndStruct();
  w.WriteBinaryField(9, "key metadata");
  w.WriteBoolField(1000, true);  // unknown bool field, long-form id
  w.EndStruct();

  FileMetaData parsed;
  ASSERT_OK_AND_ASSIGN(size_t consumed, DeserializeFileMetaData(bytes, &parsed));
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_TRUE(parsed.has_encryption_algorithm);
  ASSERT_EQ(parsed.schema.size(), 1u);
  EXPECT_EQ(parsed.schema[0].name, "root");
  ASSERT_EQ(parsed.row_groups.size(), 1u);
  ASSERT_EQ(parsed.row_groups[0].columns.size(), 1u);
  EXPECT_TRUE(parsed.row_groups[0].columns[0].has_crypto_metadata);
  EXPECT_EQ(parsed.row_groups[0].columns[0].file_offset, 4);
  EXPECT_FALSE(parsed.row_groups[0].columns[0].meta_data.has_value());
}

TEST(ParquetTypesTest, MissingRequiredFieldNamesStructAndField) {
  Bytes bytes;
  CompactWriter w(&bytes);
  w.BeginStruct();
  w.WriteI32Field(1, 1);   // type
  w.WriteI32Field(2, 10);  // uncompressed_page_size; compressed_page_size missing
  w.EndStruct();
  PageHeader h;
  Status s = DeserializePageHeader(bytes, &h).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  EXPECT_NE(s.message().find("required field 3 (compressed_page_size) of PageHeader is missing"),
            std::string::npos)
      << s.message();
}

// Like Apache Thrift's generated readers, a known field id with an unexpected
// wire type is skipped; a required one is then missing.
TEST(ParquetTypesTest, MistypedFieldsAreSkipped) {
  Bytes bytes;
  CompactWriter w(&bytes);
  w.BeginStruct();
  w.WriteBinaryField(1, "not an i32");
  w.EndStruct();
  PageHeader h;
  Status s = DeserializePageHeader(bytes, &h).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  EXPECT_EQ(s.message(), "thrift: required field 1 (type) of PageHeader is missing (offset 13)");

  bytes.clear();
  w.BeginStruct();
  w.WriteI32Field(1, 0);
  w.WriteI32Field(2, 10);
  w.WriteI32Field(3, 10);
  w.WriteBinaryField(4, "crc as binary");    // optional field, wrong type: stays unset
  w.WriteFieldHeader(5, CompactType::kI64);  // data_page_header as an i64
  w.WriteI64(5);
  w.EndStruct();
  ASSERT_OK(DeserializePageHeader(bytes, &h));
  EXPECT_FALSE(h.crc.has_value());
  EXPECT_FALSE(h.data_page_header.has_value());
}

TEST(ParquetTypesTest, TruncationErrorNamesInnermostStructAndPath) {
  FileMetaData m = FullFileMetaData();
  m.row_groups.resize(1);
  m.row_groups[0].columns.resize(1);
  Bytes bytes;
  SerializeFileMetaData(m, &bytes);
  // Cut inside the first ColumnMetaData's path_in_schema strings.
  const std::string needle = "b0";
  auto it = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
  ASSERT_NE(it, bytes.end());
  bytes.resize(it - bytes.begin() + 1);
  FileMetaData parsed;
  Status s = DeserializeFileMetaData(bytes, &parsed).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  const size_t offset = bytes.size() - 2;  // the string's length byte
  EXPECT_EQ(s.message(),
            "thrift: binary length 2 exceeds the 1 bytes left reading field 3 of ColumnMetaData (offset " +
                std::to_string(offset + 1) +
                "), in field 3 of ColumnChunk, in field 1 of RowGroup, in field 4 of FileMetaData");
}

TEST(ParquetTypesTest, TimeUnitWithoutMemberIsCorruption) {
  Bytes bytes;
  CompactWriter w(&bytes);
  w.BeginStruct();  // SchemaElement
  w.WriteBinaryField(4, "t");
  w.WriteFieldHeader(10, CompactType::kStruct);
  w.BeginStruct();  // LogicalType
  w.WriteFieldHeader(LogicalType::TIME, CompactType::kStruct);
  w.BeginStruct();  // TimeType
  w.WriteBoolField(1, true);
  w.WriteFieldHeader(2, CompactType::kStruct);
  w.BeginStruct();  // TimeUnit with no member
  w.EndStruct();
  w.EndStruct();
  w.EndStruct();
  w.EndStruct();
  Bytes file;
  CompactWriter fw(&file);
  fw.BeginStruct();
  fw.WriteI32Field(1, 1);
  fw.WriteFieldHeader(2, CompactType::kList);
  fw.WriteListHeader(CompactType::kStruct, 1);
  file.insert(file.end(), bytes.begin(), bytes.end());
  FileMetaData parsed;
  Status s = DeserializeFileMetaData(file, &parsed).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  EXPECT_NE(s.message().find("TimeUnit union has no member set"), std::string::npos) << s.message();
}

TEST(ParquetTypesTest, EnumNames) {
  EXPECT_STREQ(TypeName(Type::FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
  EXPECT_STREQ(TypeName(static_cast<Type>(8)), "UNKNOWN_TYPE");
  EXPECT_STREQ(EncodingName(Encoding::BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT");
  EXPECT_STREQ(CodecName(CompressionCodec::LZ4_RAW), "LZ4_RAW");
  EXPECT_STREQ(CodecName(static_cast<CompressionCodec>(-1)), "UNKNOWN_CODEC");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::INTERVAL), "INTERVAL");
  EXPECT_STREQ(ConvertedTypeName(ConvertedType::UTF8), "UTF8");
}

}  // namespace
}  // namespace floe::parquet
