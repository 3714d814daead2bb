// Deserialization of the parquet.thrift structs (declared in parquet_types.h).
//
// Every struct is read by ReadStruct, which skips unknown fields and known
// fields whose wire type is not the expected one (as Apache Thrift's
// generated readers do; old writers reused some field ids), checks required
// fields, and turns the compact reader's errors into
// "thrift: <what> reading field <id> of <Struct> (offset <n>)". An error inside
// a nested struct keeps its own message and gains ", in field <id> of <Outer>"
// for each enclosing struct. Enums keep values this version does not know.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "formats/parquet/thrift/compact_protocol.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

namespace {

using thrift::CompactReader;
using thrift::CompactType;
using thrift::FieldHeader;
using thrift::IsBoolType;
using thrift::WireTypeOf;

constexpr std::string_view kDecoratedPrefix = "thrift: ";

// A field header, plus whether the field was skipped for its wire type.
struct Field : FieldHeader {
  mutable bool skipped_for_type = false;
};

struct RequiredField {
  int16_t id;
  const char* name;
};

// Adds where an error happened: the field (or "field header", id < 0) of the
// struct being read and the input offset, unless a nested struct already did.
Status Locate(const Status& error, const CompactReader& reader, const char* struct_name, int field_id) {
  const std::string field =
      field_id < 0 ? std::string("a field header") : "field " + std::to_string(field_id);
  if (error.message().starts_with(kDecoratedPrefix)) {
    return Status::Corruption(error.message() + ", in " + field + " of " + struct_name);
  }
  return Status::Corruption(std::string(kDecoratedPrefix) + error.message() + " reading " + field + " of " +
                            struct_name + " (offset " + std::to_string(reader.position()) + ")");
}

// Reads one struct's fields, calling read_field for each. read_field reads the
// fields it knows and skips the others (SkipFieldValue).
template <typename ReadField>
Status ReadStruct(CompactReader& reader, const char* struct_name,
                  std::initializer_list<RequiredField> required, ReadField&& read_field) {
  if (Status s = reader.BeginStruct(); !s.ok()) return Locate(s, reader, struct_name, -1);
  uint64_t seen = 0;
  while (true) {
    auto header = reader.ReadFieldHeader();
    if (!header.ok()) return Locate(header.status(), reader, struct_name, -1);
    if (header->type == CompactType::kStop) break;
    Field field{*header};
    if (Status s = read_field(field); !s.ok()) return Locate(s, reader, struct_name, field.id);
    if (field.id >= 0 && field.id < 64 && !field.skipped_for_type) seen |= uint64_t{1} << field.id;
  }
  reader.EndStruct();
  for (const RequiredField& field : required) {
    if ((seen & (uint64_t{1} << field.id)) == 0) {
      return Status::Corruption(std::string(kDecoratedPrefix) + "required field " + std::to_string(field.id) +
                                " (" + field.name + ") of " + struct_name + " is missing (offset " +
                                std::to_string(reader.position()) + ")");
    }
  }
  return Status::OK();
}

bool TypeMatches(CompactType got, CompactType want) {
  if (IsBoolType(want)) return IsBoolType(got);
  if (want == CompactType::kList) return got == CompactType::kList || got == CompactType::kSet;
  return got == want;
}

// ---- values: one overload per C++ type; structs further below ----

Status ReadValue(CompactReader& r, bool* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadBoolElement());
  return Status::OK();
}
Status ReadValue(CompactReader& r, int8_t* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadByte());
  return Status::OK();
}
Status ReadValue(CompactReader& r, int16_t* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadI16());
  return Status::OK();
}
Status ReadValue(CompactReader& r, int32_t* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadI32());
  return Status::OK();
}
Status ReadValue(CompactReader& r, int64_t* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadI64());
  return Status::OK();
}
Status ReadValue(CompactReader& r, std::string* out) {
  FLOE_ASSIGN_OR_RETURN(*out, r.ReadBinary());
  return Status::OK();
}
// Enums keep values this version does not know (they are int32-backed).
template <typename Enum>
requires std::is_enum_v<Enum> Status ReadValue(CompactReader& r, Enum* out) {
  FLOE_ASSIGN_OR_RETURN(int32_t raw, r.ReadI32());
  *out = static_cast<Enum>(raw);
  return Status::OK();
}

Status ReadValue(CompactReader& r, Statistics* out);
Status ReadValue(CompactReader& r, LogicalType* out);
Status ReadValue(CompactReader& r, SchemaElement* out);
Status ReadValue(CompactReader& r, DataPageHeader* out);
Status ReadValue(CompactReader& r, DictionaryPageHeader* out);
Status ReadValue(CompactReader& r, DataPageHeaderV2* out);
Status ReadValue(CompactReader& r, PageHeader* out);
Status ReadValue(CompactReader& r, KeyValue* out);
Status ReadValue(CompactReader& r, SortingColumn* out);
Status ReadValue(CompactReader& r, PageEncodingStats* out);
Status ReadValue(CompactReader& r, ColumnMetaData* out);
Status ReadValue(CompactReader& r, ColumnChunk* out);
Status ReadValue(CompactReader& r, RowGroup* out);
Status ReadValue(CompactReader& r, PageLocation* out);

// Reads a list whose elements are each handed to read_element.
template <typename ReadElement>
Status ReadList(CompactReader& r, CompactType want_element, ReadElement&& read_element) {
  FLOE_ASSIGN_OR_RETURN(thrift::ListHeader list, r.ReadListHeader());
  if (list.size > 0 && !TypeMatches(list.element_type, want_element)) {
    return Status::Corruption(std::string("list of ") + thrift::CompactTypeName(list.element_type) +
                              " where " + thrift::CompactTypeName(want_element) + " elements were expected");
  }
  for (uint32_t i = 0; i < list.size; ++i) FLOE_RETURN_IF_ERROR(read_element());
  r.EndContainer();
  return Status::OK();
}

template <typename T>
Status ReadValue(CompactReader& r, std::vector<T>* out) {
  out->clear();
  return ReadList(r, WireTypeOf<T>(), [&]() -> Status {
    T element{};
    FLOE_RETURN_IF_ERROR(ReadValue(r, &element));
    out->push_back(std::move(element));
    return Status::OK();
  });
}

// A struct field's value: checks the wire type, then reads it. Bool fields
// carry their value in the header.
// Skips a field whose wire type is not the one its id stands for.
Status SkipMistyped(CompactReader& r, const Field& field) {
  field.skipped_for_type = true;
  return r.SkipFieldValue(field.type);
}

template <typename T>
Status ReadField(CompactReader& r, const Field& field, T* out) {
  if (!TypeMatches(field.type, WireTypeOf<T>())) return SkipMistyped(r, field);
  if constexpr (std::is_same_v<T, bool>) {
    *out = field.bool_value;
    return Status::OK();
  } else {
    return ReadValue(r, out);
  }
}

template <typename T>
Status ReadField(CompactReader& r, const Field& field, std::optional<T>* out) {
  if (!TypeMatches(field.type, WireTypeOf<T>())) return SkipMistyped(r, field);
  return ReadField(r, field, &out->emplace());
}

// ---- structs ----

Status ReadValue(CompactReader& r, Statistics* out) {
  return ReadStruct(r, "Statistics", {}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->max);
      case 2: return ReadField(r, f, &out->min);
      case 3: return ReadField(r, f, &out->null_count);
      case 4: return ReadField(r, f, &out->distinct_count);
      case 5: return ReadField(r, f, &out->max_value);
      case 6: return ReadField(r, f, &out->min_value);
      case 7: return ReadField(r, f, &out->is_max_value_exact);
      case 8: return ReadField(r, f, &out->is_min_value_exact);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

// An empty thrift struct (or one whose fields floe does not use).
Status SkipStructField(CompactReader& r, const Field& f) {
  if (f.type != CompactType::kStruct) f.skipped_for_type = true;
  return r.SkipFieldValue(f.type);
}

Status ReadTimeUnit(CompactReader& r, const Field& field, TimeUnitKind* out) {
  if (field.type != CompactType::kStruct) return SkipMistyped(r, field);
  bool member_set = false;
  FLOE_RETURN_IF_ERROR(ReadStruct(r, "TimeUnit", {}, [&](const Field& f) -> Status {
    // Every member (MILLIS, MICROS, NANOS, or one added later) is an empty
    // struct; an unknown member keeps its id for the reader to reject.
    if (f.type != CompactType::kStruct) return SkipMistyped(r, f);
    *out = static_cast<TimeUnitKind>(f.id);
    member_set = true;
    return r.SkipFieldValue(f.type);
  }));
  if (!member_set) return Status::Corruption("TimeUnit union has no member set");
  return Status::OK();
}

Status ReadDecimalType(CompactReader& r, LogicalType* out) {
  return ReadStruct(r, "DecimalType", {{1, "scale"}, {2, "precision"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->decimal_scale);
      case 2: return ReadField(r, f, &out->decimal_precision);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

// TimeType and TimestampType share their layout.
Status ReadTimeOrTimestampType(CompactReader& r, const char* struct_name, LogicalType* out) {
  return ReadStruct(r, struct_name, {{1, "isAdjustedToUTC"}, {2, "unit"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->is_adjusted_to_utc);
      case 2: return ReadTimeUnit(r, f, &out->time_unit);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadIntType(CompactReader& r, LogicalType* out) {
  return ReadStruct(r, "IntType", {{1, "bitWidth"}, {2, "isSigned"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->bit_width);
      case 2: return ReadField(r, f, &out->is_signed);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, LogicalType* out) {
  // A union: the member's field id is the kind. Members without parameters
  // floe uses, and members this version does not know, are skipped.
  return ReadStruct(r, "LogicalType", {}, [&](const Field& f) -> Status {
    if (f.type != CompactType::kStruct) return SkipMistyped(r, f);
    out->kind = f.id;
    switch (f.id) {
      case LogicalType::DECIMAL: return ReadDecimalType(r, out);
      case LogicalType::TIME: return ReadTimeOrTimestampType(r, "TimeType", out);
      case LogicalType::TIMESTAMP: return ReadTimeOrTimestampType(r, "TimestampType", out);
      case LogicalType::INTEGER: return ReadIntType(r, out);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, SchemaElement* out) {
  return ReadStruct(r, "SchemaElement", {{4, "name"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->type);
      case 2: return ReadField(r, f, &out->type_length);
      case 3: return ReadField(r, f, &out->repetition_type);
      case 4: return ReadField(r, f, &out->name);
      case 5: return ReadField(r, f, &out->num_children);
      case 6: return ReadField(r, f, &out->converted_type);
      case 7: return ReadField(r, f, &out->scale);
      case 8: return ReadField(r, f, &out->precision);
      case 9: return ReadField(r, f, &out->field_id);
      case 10: return ReadField(r, f, &out->logical_type);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, DataPageHeader* out) {
  return ReadStruct(r, "DataPageHeader",
                    {{1, "num_values"},
                     {2, "encoding"},
                     {3, "definition_level_encoding"},
                     {4, "repetition_level_encoding"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->num_values);
                        case 2: return ReadField(r, f, &out->encoding);
                        case 3: return ReadField(r, f, &out->definition_level_encoding);
                        case 4: return ReadField(r, f, &out->repetition_level_encoding);
                        case 5: return ReadField(r, f, &out->statistics);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, DictionaryPageHeader* out) {
  return ReadStruct(r, "DictionaryPageHeader", {{1, "num_values"}, {2, "encoding"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->num_values);
                        case 2: return ReadField(r, f, &out->encoding);
                        case 3: return ReadField(r, f, &out->is_sorted);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, DataPageHeaderV2* out) {
  return ReadStruct(r, "DataPageHeaderV2",
                    {{1, "num_values"},
                     {2, "num_nulls"},
                     {3, "num_rows"},
                     {4, "encoding"},
                     {5, "definition_levels_byte_length"},
                     {6, "repetition_levels_byte_length"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->num_values);
                        case 2: return ReadField(r, f, &out->num_nulls);
                        case 3: return ReadField(r, f, &out->num_rows);
                        case 4: return ReadField(r, f, &out->encoding);
                        case 5: return ReadField(r, f, &out->definition_levels_byte_length);
                        case 6: return ReadField(r, f, &out->repetition_levels_byte_length);
                        case 7: return ReadField(r, f, &out->is_compressed);
                        case 8: return ReadField(r, f, &out->statistics);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, PageHeader* out) {
  return ReadStruct(r, "PageHeader",
                    {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->type);
                        case 2: return ReadField(r, f, &out->uncompressed_page_size);
                        case 3: return ReadField(r, f, &out->compressed_page_size);
                        case 4: return ReadField(r, f, &out->crc);
                        case 5: return ReadField(r, f, &out->data_page_header);
                        case 6: return SkipStructField(r, f);  // IndexPageHeader: empty
                        case 7: return ReadField(r, f, &out->dictionary_page_header);
                        case 8: return ReadField(r, f, &out->data_page_header_v2);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, KeyValue* out) {
  return ReadStruct(r, "KeyValue", {{1, "key"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->key);
      case 2: return ReadField(r, f, &out->value);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, SortingColumn* out) {
  return ReadStruct(r, "SortingColumn", {{1, "column_idx"}, {2, "descending"}, {3, "nulls_first"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->column_idx);
                        case 2: return ReadField(r, f, &out->descending);
                        case 3: return ReadField(r, f, &out->nulls_first);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, PageEncodingStats* out) {
  return ReadStruct(r, "PageEncodingStats", {{1, "page_type"}, {2, "encoding"}, {3, "count"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->page_type);
                        case 2: return ReadField(r, f, &out->encoding);
                        case 3: return ReadField(r, f, &out->count);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, ColumnMetaData* out) {
  return ReadStruct(r, "ColumnMetaData",
                    {{1, "type"},
                     {2, "encodings"},
                     {3, "path_in_schema"},
                     {4, "codec"},
                     {5, "num_values"},
                     {6, "total_uncompressed_size"},
                     {7, "total_compressed_size"},
                     {9, "data_page_offset"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->type);
                        case 2: return ReadField(r, f, &out->encodings);
                        case 3: return ReadField(r, f, &out->path_in_schema);
                        case 4: return ReadField(r, f, &out->codec);
                        case 5: return ReadField(r, f, &out->num_values);
                        case 6: return ReadField(r, f, &out->total_uncompressed_size);
                        case 7: return ReadField(r, f, &out->total_compressed_size);
                        case 8: return ReadField(r, f, &out->key_value_metadata);
                        case 9: return ReadField(r, f, &out->data_page_offset);
                        case 10: return ReadField(r, f, &out->index_page_offset);
                        case 11: return ReadField(r, f, &out->dictionary_page_offset);
                        case 12: return ReadField(r, f, &out->statistics);
                        case 13: return ReadField(r, f, &out->encoding_stats);
                        case 14: return ReadField(r, f, &out->bloom_filter_offset);
                        case 15: return ReadField(r, f, &out->bloom_filter_length);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, ColumnChunk* out) {
  return ReadStruct(r, "ColumnChunk", {{2, "file_offset"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->file_path);
      case 2: return ReadField(r, f, &out->file_offset);
      case 3: return ReadField(r, f, &out->meta_data);
      case 4: return ReadField(r, f, &out->offset_index_offset);
      case 5: return ReadField(r, f, &out->offset_index_length);
      case 6: return ReadField(r, f, &out->column_index_offset);
      case 7: return ReadField(r, f, &out->column_index_length);
      case 8:  // crypto_metadata
      case 9:  // encrypted_column_metadata
        out->has_crypto_metadata = true;
        return r.SkipFieldValue(f.type);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, RowGroup* out) {
  return ReadStruct(r, "RowGroup", {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->columns);
                        case 2: return ReadField(r, f, &out->total_byte_size);
                        case 3: return ReadField(r, f, &out->num_rows);
                        case 4: return ReadField(r, f, &out->sorting_columns);
                        case 5: return ReadField(r, f, &out->file_offset);
                        case 6: return ReadField(r, f, &out->total_compressed_size);
                        case 7: return ReadField(r, f, &out->ordinal);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, PageLocation* out) {
  return ReadStruct(r, "PageLocation", {{1, "offset"}, {2, "compressed_page_size"}, {3, "first_row_index"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->offset);
                        case 2: return ReadField(r, f, &out->compressed_page_size);
                        case 3: return ReadField(r, f, &out->first_row_index);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

Status ReadValue(CompactReader& r, OffsetIndex* out) {
  return ReadStruct(r, "OffsetIndex", {{1, "page_locations"}}, [&](const Field& f) -> Status {
    switch (f.id) {
      case 1: return ReadField(r, f, &out->page_locations);
      default: return r.SkipFieldValue(f.type);
    }
  });
}

Status ReadValue(CompactReader& r, ColumnIndex* out) {
  return ReadStruct(r, "ColumnIndex",
                    {{1, "null_pages"}, {2, "min_values"}, {3, "max_values"}, {4, "boundary_order"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->null_pages);
                        case 2: return ReadField(r, f, &out->min_values);
                        case 3: return ReadField(r, f, &out->max_values);
                        case 4: return ReadField(r, f, &out->boundary_order);
                        case 5: return ReadField(r, f, &out->null_counts);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

// ColumnOrder is a union whose only member so far is TYPE_ORDER (id 1).
Status ReadColumnOrders(CompactReader& r, const Field& field, std::vector<bool>* out) {
  if (!TypeMatches(field.type, CompactType::kList)) return SkipMistyped(r, field);
  out->clear();
  return ReadList(r, CompactType::kStruct, [&]() -> Status {
    bool type_defined = false;
    FLOE_RETURN_IF_ERROR(ReadStruct(r, "ColumnOrder", {}, [&](const Field& f) -> Status {
      if (f.id == 1 && f.type == CompactType::kStruct) type_defined = true;
      return r.SkipFieldValue(f.type);
    }));
    out->push_back(type_defined);
    return Status::OK();
  });
}

Status ReadValue(CompactReader& r, FileMetaData* out) {
  return ReadStruct(r, "FileMetaData", {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}},
                    [&](const Field& f) -> Status {
                      switch (f.id) {
                        case 1: return ReadField(r, f, &out->version);
                        case 2: return ReadField(r, f, &out->schema);
                        case 3: return ReadField(r, f, &out->num_rows);
                        case 4: return ReadField(r, f, &out->row_groups);
                        case 5: return ReadField(r, f, &out->key_value_metadata);
                        case 6: return ReadField(r, f, &out->created_by);
                        case 7: return ReadColumnOrders(r, f, &out->column_orders);
                        case 8:  // encryption_algorithm
                          out->has_encryption_algorithm = true;
                          return r.SkipFieldValue(f.type);
                        default: return r.SkipFieldValue(f.type);
                      }
                    });
}

template <typename T>
Result<size_t> DeserializeTopLevel(std::span<const uint8_t> bytes, T* out) {
  *out = T{};
  CompactReader reader(bytes);
  FLOE_RETURN_IF_ERROR(ReadValue(reader, out));
  return reader.position();
}

}  // namespace

Result<size_t> DeserializeFileMetaData(std::span<const uint8_t> bytes, FileMetaData* out) {
  return DeserializeTopLevel(bytes, out);
}
Result<size_t> DeserializePageHeader(std::span<const uint8_t> bytes, PageHeader* out) {
  return DeserializeTopLevel(bytes, out);
}
Result<size_t> DeserializeOffsetIndex(std::span<const uint8_t> bytes, OffsetIndex* out) {
  return DeserializeTopLevel(bytes, out);
}
Result<size_t> DeserializeColumnIndex(std::span<const uint8_t> bytes, ColumnIndex* out) {
  return DeserializeTopLevel(bytes, out);
}

}  // namespace floe::parquet
