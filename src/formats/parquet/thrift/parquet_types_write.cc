// Serialization of the parquet.thrift structs (declared in parquet_types.h).
//
// Required fields are always written, optional ones only when set (optional
// lists only when non-empty), in increasing field id order so every field
// header uses the short delta form. What floe does not model is not written:
// ColumnChunk crypto metadata, FileMetaData encryption_algorithm, and
// ColumnOrder members other than TYPE_ORDER (every column_orders entry is
// written as TYPE_ORDER).
#include <cstdint>
#include <string>
#include <vector>

#include "formats/parquet/thrift/compact_protocol.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

namespace {

using thrift::CompactType;
using thrift::CompactWriter;
using thrift::WireTypeOf;

void WriteValue(CompactWriter& w, bool value) {
  w.WriteBoolElement(value);
}
void WriteValue(CompactWriter& w, int8_t value) {
  w.WriteByte(value);
}
void WriteValue(CompactWriter& w, int16_t value) {
  w.WriteI16(value);
}
void WriteValue(CompactWriter& w, int32_t value) {
  w.WriteI32(value);
}
void WriteValue(CompactWriter& w, int64_t value) {
  w.WriteI64(value);
}
void WriteValue(CompactWriter& w, const std::string& value) {
  w.WriteBinary(value);
}
template <typename Enum>
requires std::is_enum_v<Enum>
void WriteValue(CompactWriter& w, Enum value) {
  w.WriteI32(static_cast<int32_t>(value));
}

void WriteValue(CompactWriter& w, const Statistics& value);
void WriteValue(CompactWriter& w, const SchemaElement& value);
void WriteValue(CompactWriter& w, const DataPageHeader& value);
void WriteValue(CompactWriter& w, const DictionaryPageHeader& value);
void WriteValue(CompactWriter& w, const DataPageHeaderV2& value);
void WriteValue(CompactWriter& w, const ColumnMetaData& value);
void WriteValue(CompactWriter& w, const KeyValue& value);
void WriteValue(CompactWriter& w, const SortingColumn& value);
void WriteValue(CompactWriter& w, const PageEncodingStats& value);
void WriteValue(CompactWriter& w, const ColumnChunk& value);
void WriteValue(CompactWriter& w, const RowGroup& value);
void WriteValue(CompactWriter& w, const PageLocation& value);

template <typename T>
void WriteValue(CompactWriter& w, const std::vector<T>& values) {
  w.WriteListHeader(WireTypeOf<T>(), static_cast<uint32_t>(values.size()));
  for (const auto& value : values) WriteValue(w, static_cast<const T&>(value));
}

template <typename T>
void WriteField(CompactWriter& w, int16_t id, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    w.WriteBoolField(id, value);
  } else {
    w.WriteFieldHeader(id, WireTypeOf<T>());
    WriteValue(w, value);
  }
}

template <typename T>
void WriteField(CompactWriter& w, int16_t id, const std::optional<T>& value) {
  if (value) WriteField(w, id, *value);
}

template <typename T>
void WriteNonEmptyField(CompactWriter& w, int16_t id, const std::vector<T>& values) {
  if (!values.empty()) WriteField(w, id, values);
}

void WriteEmptyStructField(CompactWriter& w, int16_t id) {
  w.WriteFieldHeader(id, CompactType::kStruct);
  w.BeginStruct();
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const Statistics& value) {
  w.BeginStruct();
  WriteField(w, 1, value.max);
  WriteField(w, 2, value.min);
  WriteField(w, 3, value.null_count);
  WriteField(w, 4, value.distinct_count);
  WriteField(w, 5, value.max_value);
  WriteField(w, 6, value.min_value);
  WriteField(w, 7, value.is_max_value_exact);
  WriteField(w, 8, value.is_min_value_exact);
  w.EndStruct();
}

// TimeType and TimestampType share their layout.
void WriteTimeOrTimestampType(CompactWriter& w, const LogicalType& value) {
  w.BeginStruct();
  w.WriteBoolField(1, value.is_adjusted_to_utc);
  w.WriteFieldHeader(2, CompactType::kStruct);
  w.BeginStruct();  // TimeUnit union: one empty-struct member
  WriteEmptyStructField(w, static_cast<int16_t>(value.time_unit));
  w.EndStruct();
  w.EndStruct();
}

void WriteLogicalType(CompactWriter& w, const LogicalType& value) {
  w.BeginStruct();
  const auto id = static_cast<int16_t>(value.kind);
  switch (value.kind) {
    case LogicalType::NONE: break;  // an empty union: no member known
    case LogicalType::DECIMAL:
      w.WriteFieldHeader(id, CompactType::kStruct);
      w.BeginStruct();
      w.WriteI32Field(1, value.decimal_scale);
      w.WriteI32Field(2, value.decimal_precision);
      w.EndStruct();
      break;
    case LogicalType::TIME:
    case LogicalType::TIMESTAMP:
      w.WriteFieldHeader(id, CompactType::kStruct);
      WriteTimeOrTimestampType(w, value);
      break;
    case LogicalType::INTEGER:
      w.WriteFieldHeader(id, CompactType::kStruct);
      w.BeginStruct();
      WriteField(w, 1, value.bit_width);
      w.WriteBoolField(2, value.is_signed);
      w.EndStruct();
      break;
    default: WriteEmptyStructField(w, id); break;  // members without parameters floe models
  }
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const SchemaElement& value) {
  w.BeginStruct();
  WriteField(w, 1, value.type);
  WriteField(w, 2, value.type_length);
  WriteField(w, 3, value.repetition_type);
  WriteField(w, 4, value.name);
  WriteField(w, 5, value.num_children);
  WriteField(w, 6, value.converted_type);
  WriteField(w, 7, value.scale);
  WriteField(w, 8, value.precision);
  WriteField(w, 9, value.field_id);
  if (value.logical_type) {
    w.WriteFieldHeader(10, CompactType::kStruct);
    WriteLogicalType(w, *value.logical_type);
  }
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DataPageHeader& value) {
  w.BeginStruct();
  WriteField(w, 1, value.num_values);
  WriteField(w, 2, value.encoding);
  WriteField(w, 3, value.definition_level_encoding);
  WriteField(w, 4, value.repetition_level_encoding);
  WriteField(w, 5, value.statistics);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DictionaryPageHeader& value) {
  w.BeginStruct();
  WriteField(w, 1, value.num_values);
  WriteField(w, 2, value.encoding);
  WriteField(w, 3, value.is_sorted);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DataPageHeaderV2& value) {
  w.BeginStruct();
  WriteField(w, 1, value.num_values);
  WriteField(w, 2, value.num_nulls);
  WriteField(w, 3, value.num_rows);
  WriteField(w, 4, value.encoding);
  WriteField(w, 5, value.definition_levels_byte_length);
  WriteField(w, 6, value.repetition_levels_byte_length);
  WriteField(w, 7, value.is_compressed);
  WriteField(w, 8, value.statistics);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageHeader& value) {
  w.BeginStruct();
  WriteField(w, 1, value.type);
  WriteField(w, 2, value.uncompressed_page_size);
  WriteField(w, 3, value.compressed_page_size);
  WriteField(w, 4, value.crc);
  WriteField(w, 5, value.data_page_header);
  WriteField(w, 7, value.dictionary_page_header);
  WriteField(w, 8, value.data_page_header_v2);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const KeyValue& value) {
  w.BeginStruct();
  WriteField(w, 1, value.key);
  WriteField(w, 2, value.value);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const SortingColumn& value) {
  w.BeginStruct();
  WriteField(w, 1, value.column_idx);
  WriteField(w, 2, value.descending);
  WriteField(w, 3, value.nulls_first);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageEncodingStats& value) {
  w.BeginStruct();
  WriteField(w, 1, value.page_type);
  WriteField(w, 2, value.encoding);
  WriteField(w, 3, value.count);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnMetaData& value) {
  w.BeginStruct();
  WriteField(w, 1, value.type);
  WriteField(w, 2, value.encodings);
  WriteField(w, 3, value.path_in_schema);
  WriteField(w, 4, value.codec);
  WriteField(w, 5, value.num_values);
  WriteField(w, 6, value.total_uncompressed_size);
  WriteField(w, 7, value.total_compressed_size);
  WriteNonEmptyField(w, 8, value.key_value_metadata);
  WriteField(w, 9, value.data_page_offset);
  WriteField(w, 10, value.index_page_offset);
  WriteField(w, 11, value.dictionary_page_offset);
  WriteField(w, 12, value.statistics);
  WriteNonEmptyField(w, 13, value.encoding_stats);
  WriteField(w, 14, value.bloom_filter_offset);
  WriteField(w, 15, value.bloom_filter_length);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnChunk& value) {
  w.BeginStruct();
  WriteField(w, 1, value.file_path);
  WriteField(w, 2, value.file_offset);
  WriteField(w, 3, value.meta_data);
  WriteField(w, 4, value.offset_index_offset);
  WriteField(w, 5, value.offset_index_length);
  WriteField(w, 6, value.column_index_offset);
  WriteField(w, 7, value.column_index_length);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const RowGroup& value) {
  w.BeginStruct();
  WriteField(w, 1, value.columns);
  WriteField(w, 2, value.total_byte_size);
  WriteField(w, 3, value.num_rows);
  WriteNonEmptyField(w, 4, value.sorting_columns);
  WriteField(w, 5, value.file_offset);
  WriteField(w, 6, value.total_compressed_size);
  WriteField(w, 7, value.ordinal);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageLocation& value) {
  w.BeginStruct();
  WriteField(w, 1, value.offset);
  WriteField(w, 2, value.compressed_page_size);
  WriteField(w, 3, value.first_row_index);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const OffsetIndex& value) {
  w.BeginStruct();
  WriteField(w, 1, value.page_locations);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnIndex& value) {
  w.BeginStruct();
  WriteField(w, 1, value.null_pages);
  WriteField(w, 2, value.min_values);
  WriteField(w, 3, value.max_values);
  WriteField(w, 4, value.boundary_order);
  WriteNonEmptyField(w, 5, value.null_counts);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const FileMetaData& value) {
  w.BeginStruct();
  WriteField(w, 1, value.version);
  WriteField(w, 2, value.schema);
  WriteField(w, 3, value.num_rows);
  WriteField(w, 4, value.row_groups);
  WriteNonEmptyField(w, 5, value.key_value_metadata);
  WriteField(w, 6, value.created_by);
  if (!value.column_orders.empty()) {
    w.WriteFieldHeader(7, CompactType::kList);
    w.WriteListHeader(CompactType::kStruct, static_cast<uint32_t>(value.column_orders.size()));
    for (size_t i = 0; i < value.column_orders.size(); ++i) {
      w.BeginStruct();              // ColumnOrder union
      WriteEmptyStructField(w, 1);  // TYPE_ORDER: TypeDefinedOrder
      w.EndStruct();
    }
  }
  w.EndStruct();
}

}  // namespace

void SerializeFileMetaData(const FileMetaData& value, std::vector<uint8_t>* out) {
  CompactWriter writer(out);
  WriteValue(writer, value);
}
void SerializePageHeader(const PageHeader& value, std::vector<uint8_t>* out) {
  CompactWriter writer(out);
  WriteValue(writer, value);
}
void SerializeOffsetIndex(const OffsetIndex& value, std::vector<uint8_t>* out) {
  CompactWriter writer(out);
  WriteValue(writer, value);
}
void SerializeColumnIndex(const ColumnIndex& value, std::vector<uint8_t>* out) {
  CompactWriter writer(out);
  WriteValue(writer, value);
}

}  // namespace floe::parquet
