// The Parquet file metadata structures (parquet-format's parquet.thrift), as
// plain C++ structs, and their Thrift compact-protocol (de)serialization.
//
// Contract: field names and numbering follow parquet.thrift. Optional thrift
// fields are std::optional; unknown fields are skipped on read. Parsing takes
// untrusted bytes: it never reads out of bounds, bounds recursion depth and
// list sizes, and returns Corruption naming the struct and field that failed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

enum class Type : int32_t {
  BOOLEAN = 0,
  INT32 = 1,
  INT64 = 2,
  INT96 = 3,
  FLOAT = 4,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
  FIXED_LEN_BYTE_ARRAY = 7,
};

enum class ConvertedType : int32_t {
  UTF8 = 0, MAP = 1, MAP_KEY_VALUE = 2, LIST = 3, ENUM = 4, DECIMAL = 5, DATE = 6,
  TIME_MILLIS = 7, TIME_MICROS = 8, TIMESTAMP_MILLIS = 9, TIMESTAMP_MICROS = 10,
  UINT_8 = 11, UINT_16 = 12, UINT_32 = 13, UINT_64 = 14,
  INT_8 = 15, INT_16 = 16, INT_32 = 17, INT_64 = 18, JSON = 19, BSON = 20, INTERVAL = 21,
};

enum class FieldRepetitionType : int32_t { REQUIRED = 0, OPTIONAL = 1, REPEATED = 2 };

enum class Encoding : int32_t {
  PLAIN = 0,
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  BIT_PACKED = 4,
  DELTA_BINARY_PACKED = 5,
  DELTA_LENGTH_BYTE_ARRAY = 6,
  DELTA_BYTE_ARRAY = 7,
  RLE_DICTIONARY = 8,
  BYTE_STREAM_SPLIT = 9,
};

enum class CompressionCodec : int32_t {
  UNCOMPRESSED = 0, SNAPPY = 1, GZIP = 2, LZO = 3, BROTLI = 4, LZ4 = 5, ZSTD = 6, LZ4_RAW = 7,
};

enum class PageType : int32_t { DATA_PAGE = 0, INDEX_PAGE = 1, DICTIONARY_PAGE = 2, DATA_PAGE_V2 = 3 };

enum class BoundaryOrder : int32_t { UNORDERED = 0, ASCENDING = 1, DESCENDING = 2 };

const char* TypeName(Type t);
const char* EncodingName(Encoding e);
const char* CodecName(CompressionCodec c);
const char* ConvertedTypeName(ConvertedType c);

struct Statistics {
  std::optional<std::string> max;  // deprecated (signed comparison)
  std::optional<std::string> min;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;

  bool operator==(const Statistics&) const = default;
};

enum class TimeUnitKind : int32_t { MILLIS = 1, MICROS = 2, NANOS = 3 };  // LogicalType TimeUnit union field ids

// LogicalType is a thrift union; `kind` is the id of the set member.
struct LogicalType {
  enum Kind : int32_t {
    NONE = 0, STRING = 1, MAP = 2, LIST = 3, ENUM = 4, DECIMAL = 5, DATE = 6, TIME = 7,
    TIMESTAMP = 8, INTEGER = 10, UNKNOWN = 11, JSON = 12, BSON = 13, UUID = 14, FLOAT16 = 15,
    VARIANT = 16, GEOMETRY = 17, GEOGRAPHY = 18,
  };
  int32_t kind = NONE;  // may hold an id this version does not know: tolerated, treated as NONE
  // DECIMAL
  int32_t decimal_scale = 0;
  int32_t decimal_precision = 0;
  // TIME / TIMESTAMP
  bool is_adjusted_to_utc = false;
  TimeUnitKind time_unit = TimeUnitKind::MILLIS;
  // INTEGER
  int8_t bit_width = 0;
  bool is_signed = true;

  bool operator==(const LogicalType&) const = default;
};

struct SchemaElement {
  std::optional<Type> type;
  std::optional<int32_t> type_length;
  std::optional<FieldRepetitionType> repetition_type;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;

  bool operator==(const SchemaElement&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  Encoding definition_level_encoding = Encoding::RLE;
  Encoding repetition_level_encoding = Encoding::RLE;
  std::optional<Statistics> statistics;

  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  std::optional<bool> is_sorted;

  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::PLAIN;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  std::optional<bool> is_compressed;  // absent means true
  std::optional<Statistics> statistics;

  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::DATA_PAGE;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;

  bool operator==(const PageHeader&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;

  bool operator==(const KeyValue&) const = default;
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;

  bool operator==(const SortingColumn&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::DATA_PAGE;
  Encoding encoding = Encoding::PLAIN;
  int32_t count = 0;

  bool operator==(const PageEncodingStats&) const = default;
};

struct ColumnMetaData {
  Type type = Type::BOOLEAN;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::UNCOMPRESSED;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;

  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool has_crypto_metadata = false;  // field 8 or 9 present: column is encrypted

  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::vector<SortingColumn> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;

  bool operator==(const RowGroup&) const = default;
};

struct PageLocation {
  int64_t offset = 0;
  int32_t compressed_page_size = 0;
  int64_t first_row_index = 0;

  bool operator==(const PageLocation&) const = default;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;

  bool operator==(const OffsetIndex&) const = default;
};

struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values;
  std::vector<std::string> max_values;
  BoundaryOrder boundary_order = BoundaryOrder::UNORDERED;
  std::vector<int64_t> null_counts;

  bool operator==(const ColumnIndex&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // One entry per leaf column when present; true = TypeDefinedOrder.
  std::vector<bool> column_orders;
  bool has_encryption_algorithm = false;  // field 8 present (plaintext-footer encrypted file)

  bool operator==(const FileMetaData&) const = default;
};

// Parses a struct from `bytes`. On success returns the number of bytes the
// struct occupied (page headers are followed by page data).
Result<size_t> DeserializeFileMetaData(std::span<const uint8_t> bytes, FileMetaData* out);
Result<size_t> DeserializePageHeader(std::span<const uint8_t> bytes, PageHeader* out);
Result<size_t> DeserializeOffsetIndex(std::span<const uint8_t> bytes, OffsetIndex* out);
Result<size_t> DeserializeColumnIndex(std::span<const uint8_t> bytes, ColumnIndex* out);

// Appends the compact-protocol encoding of the struct to `out`.
void SerializeFileMetaData(const FileMetaData& value, std::vector<uint8_t>* out);
void SerializePageHeader(const PageHeader& value, std::vector<uint8_t>* out);
void SerializeOffsetIndex(const OffsetIndex& value, std::vector<uint8_t>* out);
void SerializeColumnIndex(const ColumnIndex& value, std::vector<uint8_t>* out);

}  // namespace floe::parquet
