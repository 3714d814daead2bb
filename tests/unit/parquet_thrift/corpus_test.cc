// Parses the footer (and some page headers and page indexes) of every file in
// the shared parquet-testing corpus, checks structural invariants and facts
// known from other readers (DuckDB's parquet_metadata()), and checks that
// re-serializing a parsed footer parses back to the same value.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "formats/parquet/thrift/parquet_types.h"
#include "test_util.h"
#include "unit/parquet_thrift/corpus_footer.h"

namespace floe::parquet {
namespace {

using testing::FooterBytes;
using testing::ParquetFilesUnder;
using testing::ReadWholeFile;
using testing::TrailingMagic;

size_t CountLeaves(const FileMetaData& m) {
  size_t leaves = 0;
  for (const auto& e : m.schema) {
    if (e.num_children.value_or(0) == 0 && &e != &m.schema.front()) ++leaves;
  }
  return leaves;
}

// What the serializer writes back: no encryption markers, and every column
// order as TYPE_ORDER (the only order floe models).
FileMetaData AsReserialized(FileMetaData m) {
  m.has_encryption_algorithm = false;
  m.column_orders.assign(m.column_orders.size(), true);
  for (auto& rg : m.row_groups) {
    for (auto& c : rg.columns) c.has_crypto_metadata = false;
  }
  return m;
}

Result<FileMetaData> ParseFooter(const std::vector<uint8_t>& file, size_t* footer_length = nullptr) {
  auto footer = FooterBytes(file);
  if (!footer) return Status::Corruption("footer length does not fit the file");
  if (footer_length) *footer_length = footer->size();
  FileMetaData m;
  auto consumed = DeserializeFileMetaData(*footer, &m);
  if (!consumed.ok()) return consumed.status();
  // A plaintext footer of an encrypted file is followed by its signature.
  if (*consumed != footer->size() && !m.has_encryption_algorithm) {
    return Status::Corruption("footer has " + std::to_string(footer->size() - *consumed) + " trailing bytes");
  }
  return m;
}

TEST(ParquetCorpusTest, EveryFooterParsesAndRoundTrips) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto files = ParquetFilesUnder(shared / "testdata/parquet-testing/data");
  ASSERT_GT(files.size(), 50u);
  size_t parsed_count = 0, encrypted_footers = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const auto file = ReadWholeFile(path);
    const std::string magic = TrailingMagic(file);
    if (magic == "PARE") {
      // Encrypted footer: not thrift floe can read; must be recognised by its magic.
      EXPECT_NE(path.filename().string().find("encrypt"), std::string::npos);
      ++encrypted_footers;
      continue;
    }
    ASSERT_EQ(magic, "PAR1");
    ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(file));
    ++parsed_count;

    ASSERT_FALSE(m.schema.empty());
    EXPECT_EQ(m.schema.front().num_children.value_or(0) > 0 || m.row_groups.empty(), true);
    const int64_t row_sum =
        std::accumulate(m.row_groups.begin(), m.row_groups.end(), int64_t{0},
                        [](int64_t sum, const RowGroup& rg) { return sum + rg.num_rows; });
    // repeated_no_annotation.parquet (parquet-mr 1.x) says num_rows = 0 for its 6 rows.
    if (path.filename() != "repeated_no_annotation.parquet") {
      EXPECT_EQ(m.num_rows, row_sum);
    }
    const size_t leaves = CountLeaves(m);
    for (const auto& rg : m.row_groups) {
      EXPECT_EQ(rg.columns.size(), leaves);
      for (const auto& chunk : rg.columns) {
        if (chunk.has_crypto_metadata && !chunk.meta_data) continue;  // encrypted column metadata
        ASSERT_TRUE(chunk.meta_data.has_value());
        EXPECT_FALSE(chunk.meta_data->path_in_schema.empty());
        EXPECT_GE(chunk.meta_data->data_page_offset, 0);
        EXPECT_LE(chunk.meta_data->data_page_offset, static_cast<int64_t>(file.size()));
      }
    }
    if (!m.column_orders.empty()) {
      EXPECT_EQ(m.column_orders.size(), leaves);
    }

    std::vector<uint8_t> reserialized;
    SerializeFileMetaData(m, &reserialized);
    FileMetaData again;
    ASSERT_OK_AND_ASSIGN(size_t consumed, DeserializeFileMetaData(reserialized, &again));
    EXPECT_EQ(consumed, reserialized.size());
    EXPECT_TRUE(again == AsReserialized(m));
    std::vector<uint8_t> twice;
    SerializeFileMetaData(again, &twice);
    EXPECT_EQ(twice, reserialized);
  }
  EXPECT_GE(encrypted_footers, 5u);
  EXPECT_GT(parsed_count, 60u);
}

const std::filesystem::path kData = "testdata/parquet-testing/data";

TEST(ParquetCorpusTest, KnownFacts) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  struct Fact {
    const char* file;
    int64_t num_rows;
    size_t row_groups;
    size_t leaves;
    size_t schema_elements;
    CompressionCodec codec;
    const char* created_by_prefix;
  };
  const Fact facts[] = {
      {"alltypes_plain.parquet", 8, 1, 11, 12, CompressionCodec::UNCOMPRESSED, "impala version 1.3.0"},
      {"nested_structs.rust.parquet", 1, 1, 216, 253, CompressionCodec::ZSTD, "UrbanLogiq"},
      {"datapage_v2.snappy.parquet", 5, 1, 5, 8, CompressionCodec::SNAPPY, "parquet-mr version 1.8.1"},
      {"lz4_raw_compressed_larger.parquet", 10000, 1, 1, 2, CompressionCodec::LZ4_RAW,
       "parquet-cpp version 1.5.1"},
      {"sort_columns.parquet", 6, 2, 2, 3, CompressionCodec::SNAPPY, "parquet-cpp-arrow version 16.1.0"},
      {"alltypes_tiny_pages.parquet", 7300, 1, 13, 14, CompressionCodec::UNCOMPRESSED,
       "parquet-mr version 1.12.0"},
      {"int32_decimal.parquet", 24, 1, 1, 2, CompressionCodec::UNCOMPRESSED, "parquet-mr version 1.8.2"},
  };
  for (const Fact& fact : facts) {
    SCOPED_TRACE(fact.file);
    ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(ReadWholeFile(shared / kData / fact.file)));
    EXPECT_EQ(m.num_rows, fact.num_rows);
    EXPECT_EQ(m.row_groups.size(), fact.row_groups);
    EXPECT_EQ(CountLeaves(m), fact.leaves);
    EXPECT_EQ(m.schema.size(), fact.schema_elements);
    EXPECT_EQ(m.row_groups[0].columns[0].meta_data->codec, fact.codec);
    ASSERT_TRUE(m.created_by.has_value());
    EXPECT_TRUE(m.created_by->starts_with(fact.created_by_prefix)) << *m.created_by;
  }

  ASSERT_OK_AND_ASSIGN(FileMetaData plain,
                       ParseFooter(ReadWholeFile(shared / kData / "alltypes_plain.parquet")));
  EXPECT_EQ(plain.schema[0].name, "schema");
  EXPECT_EQ(plain.schema[1].name, "id");
  EXPECT_EQ(plain.schema[1].type, Type::INT32);
  EXPECT_EQ(plain.schema[1].repetition_type, FieldRepetitionType::OPTIONAL);
  EXPECT_EQ(plain.schema[2].name, "bool_col");
  EXPECT_EQ(plain.schema[2].type, Type::BOOLEAN);
  EXPECT_EQ(plain.schema[11].name, "timestamp_col");
  EXPECT_EQ(plain.schema[11].type, Type::INT96);
  EXPECT_EQ(plain.row_groups[0].columns[0].meta_data->path_in_schema, std::vector<std::string>{"id"});
  EXPECT_EQ(plain.row_groups[0].columns[0].meta_data->num_values, 8);

  ASSERT_OK_AND_ASSIGN(FileMetaData decimal,
                       ParseFooter(ReadWholeFile(shared / kData / "int32_decimal.parquet")));
  EXPECT_EQ(decimal.schema[1].converted_type, ConvertedType::DECIMAL);
  EXPECT_EQ(decimal.schema[1].type, Type::INT32);
  EXPECT_TRUE(decimal.schema[1].precision.has_value());

  ASSERT_OK_AND_ASSIGN(FileMetaData sorted,
                       ParseFooter(ReadWholeFile(shared / kData / "sort_columns.parquet")));
  ASSERT_FALSE(sorted.row_groups[0].sorting_columns.empty());

  ASSERT_OK_AND_ASSIGN(
      FileMetaData kv,
      ParseFooter(ReadWholeFile(shared / kData / "column_chunk_key_value_metadata.parquet")));
  ASSERT_FALSE(kv.row_groups.empty());
  EXPECT_FALSE(kv.row_groups[0].columns[0].meta_data->key_value_metadata.empty());

  // IEEE_754_TOTAL_ORDER (ColumnOrder member 2) is read as "not TYPE_ORDER".
  ASSERT_OK_AND_ASSIGN(FileMetaData nan_orders,
                       ParseFooter(ReadWholeFile(shared / kData / "floating_orders_nan_count.parquet")));
  EXPECT_NE(std::find(nan_orders.column_orders.begin(), nan_orders.column_orders.end(), false),
            nan_orders.column_orders.end());

  // A LogicalType member this version does not model keeps its id.
  ASSERT_OK_AND_ASSIGN(FileMetaData unknown,
                       ParseFooter(ReadWholeFile(shared / kData / "unknown-logical-type.parquet")));
  bool found_unknown_kind = false;
  for (const auto& e : unknown.schema) {
    if (e.logical_type && e.logical_type->kind > LogicalType::GEOGRAPHY) found_unknown_kind = true;
  }
  EXPECT_TRUE(found_unknown_kind);
}

TEST(ParquetCorpusTest, PlaintextFooterOfEncryptedFile) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto file = ReadWholeFile(shared / kData / "encrypt_columns_plaintext_footer.parquet.encrypted");
  ASSERT_EQ(TrailingMagic(file), "PAR1");
  ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(file));
  EXPECT_TRUE(m.has_encryption_algorithm);
  bool any_encrypted_column = false;
  for (const auto& c : m.row_groups.at(0).columns) any_encrypted_column |= c.has_crypto_metadata;
  EXPECT_TRUE(any_encrypted_column);
}

// Footers written by parquet-mr, parquet-cpp/Arrow, Impala, Spark and Rust
// writers come out byte for byte the same when re-serialized: the writer's
// field order, header forms and list encodings match theirs.
TEST(ParquetCorpusTest, ReserializedFootersAreByteIdentical) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  for (const char* name :
       {"alltypes_plain.parquet", "alltypes_dictionary.parquet", "alltypes_tiny_pages.parquet",
        "datapage_v2.snappy.parquet", "nested_maps.snappy.parquet", "nested_lists.snappy.parquet",
        "int32_decimal.parquet", "fixed_length_decimal.parquet", "byte_array_decimal.parquet",
        "sort_columns.parquet", "lz4_raw_compressed.parquet", "nulls.snappy.parquet",
        "delta_binary_packed.parquet", "list_columns.parquet", "nested_structs.rust.parquet",
        "float16_nonzeros_and_nans.parquet", "int96_from_spark.parquet"}) {
    SCOPED_TRACE(name);
    const auto file = ReadWholeFile(shared / kData / name);
    auto footer = FooterBytes(file);
    ASSERT_TRUE(footer.has_value());
    ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(file));
    std::vector<uint8_t> reserialized;
    SerializeFileMetaData(m, &reserialized);
    EXPECT_TRUE(std::equal(reserialized.begin(), reserialized.end(), footer->begin(), footer->end()));
  }
}

// The first page header at each column chunk's dictionary / data page offset.
TEST(ParquetCorpusTest, FirstPageHeadersOfEachColumnChunk) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  for (const char* name :
       {"alltypes_plain.parquet", "alltypes_dictionary.parquet", "datapage_v2.snappy.parquet",
        "lz4_raw_compressed.parquet", "delta_binary_packed.parquet"}) {
    SCOPED_TRACE(name);
    const auto file = ReadWholeFile(shared / kData / name);
    ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(file));
    std::map<PageType, int> seen;
    for (const auto& rg : m.row_groups) {
      for (const auto& chunk : rg.columns) {
        const ColumnMetaData& md = *chunk.meta_data;
        std::vector<int64_t> offsets = {md.data_page_offset};
        if (md.dictionary_page_offset.value_or(0) > 0) offsets.push_back(*md.dictionary_page_offset);
        for (int64_t offset : offsets) {
          ASSERT_LT(static_cast<size_t>(offset), file.size());
          PageHeader h;
          ASSERT_OK_AND_ASSIGN(size_t header_size,
                               DeserializePageHeader(std::span(file).subspan(offset), &h));
          ++seen[h.type];
          EXPECT_GE(h.compressed_page_size, 0);
          EXPECT_GE(h.uncompressed_page_size, 0);
          EXPECT_LE(offset + header_size + h.compressed_page_size,
                    static_cast<size_t>(md.dictionary_page_offset.value_or(md.data_page_offset) +
                                        md.total_compressed_size));
          switch (h.type) {
            case PageType::DATA_PAGE:
              ASSERT_TRUE(h.data_page_header.has_value());
              EXPECT_GT(h.data_page_header->num_values, 0);
              EXPECT_LE(h.data_page_header->num_values, md.num_values);
              break;
            case PageType::DICTIONARY_PAGE:
              ASSERT_TRUE(h.dictionary_page_header.has_value());
              EXPECT_GT(h.dictionary_page_header->num_values, 0);
              break;
            case PageType::DATA_PAGE_V2:
              ASSERT_TRUE(h.data_page_header_v2.has_value());
              EXPECT_LE(h.data_page_header_v2->num_rows, rg.num_rows);
              EXPECT_LE(h.data_page_header_v2->definition_levels_byte_length +
                            h.data_page_header_v2->repetition_levels_byte_length,
                        h.compressed_page_size);
              break;
            default: ADD_FAILURE() << "unexpected page type " << static_cast<int>(h.type);
          }
          // Page headers round-trip too.
          std::vector<uint8_t> bytes;
          SerializePageHeader(h, &bytes);
          EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), file.begin() + offset,
                                 file.begin() + offset + header_size));
          PageHeader again;
          ASSERT_OK(DeserializePageHeader(bytes, &again));
          EXPECT_TRUE(again == h);
        }
      }
    }
    EXPECT_FALSE(seen.empty());
  }
}

TEST(ParquetCorpusTest, PageIndexes) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto file = ReadWholeFile(shared / kData / "alltypes_tiny_pages.parquet");
  ASSERT_OK_AND_ASSIGN(FileMetaData m, ParseFooter(file));
  size_t checked = 0;
  std::vector<std::string> without_index;
  for (const auto& chunk : m.row_groups.at(0).columns) {
    if (!chunk.offset_index_offset || !chunk.column_index_offset) {
      without_index.push_back(chunk.meta_data->path_in_schema.at(0) +
                              (chunk.offset_index_offset ? " has oi" : ""));
      continue;
    }
    ASSERT_LE(static_cast<size_t>(*chunk.offset_index_offset + *chunk.offset_index_length), file.size());
    OffsetIndex oi;
    ASSERT_OK_AND_ASSIGN(
        size_t oi_size,
        DeserializeOffsetIndex(
            std::span(file).subspan(*chunk.offset_index_offset, *chunk.offset_index_length), &oi));
    EXPECT_EQ(oi_size, static_cast<size_t>(*chunk.offset_index_length));
    ASSERT_FALSE(oi.page_locations.empty());
    EXPECT_EQ(oi.page_locations[0].first_row_index, 0);
    EXPECT_GE(oi.page_locations[0].offset, chunk.meta_data->data_page_offset);
    PageHeader first_page;
    ASSERT_OK(DeserializePageHeader(std::span(file).subspan(oi.page_locations[0].offset), &first_page));
    EXPECT_EQ(first_page.type, PageType::DATA_PAGE);
    for (size_t i = 1; i < oi.page_locations.size(); ++i) {
      EXPECT_GT(oi.page_locations[i].first_row_index, oi.page_locations[i - 1].first_row_index);
      EXPECT_GT(oi.page_locations[i].offset, oi.page_locations[i - 1].offset);
    }
    ColumnIndex ci;
    ASSERT_OK_AND_ASSIGN(
        size_t ci_size,
        DeserializeColumnIndex(
            std::span(file).subspan(*chunk.column_index_offset, *chunk.column_index_length), &ci));
    EXPECT_EQ(ci_size, static_cast<size_t>(*chunk.column_index_length));
    EXPECT_EQ(ci.null_pages.size(), oi.page_locations.size());
    EXPECT_EQ(ci.min_values.size(), oi.page_locations.size());
    EXPECT_EQ(ci.max_values.size(), oi.page_locations.size());

    const auto oi_bytes = std::span(file).subspan(*chunk.offset_index_offset, *chunk.offset_index_length);
    const auto ci_bytes = std::span(file).subspan(*chunk.column_index_offset, *chunk.column_index_length);
    std::vector<uint8_t> bytes;
    SerializeOffsetIndex(oi, &bytes);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), oi_bytes.begin(), oi_bytes.end()));
    OffsetIndex oi_again;
    ASSERT_OK(DeserializeOffsetIndex(bytes, &oi_again));
    EXPECT_TRUE(oi_again == oi);
    bytes.clear();
    SerializeColumnIndex(ci, &bytes);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), ci_bytes.begin(), ci_bytes.end()));
    ColumnIndex ci_again;
    ASSERT_OK(DeserializeColumnIndex(bytes, &ci_again));
    EXPECT_TRUE(ci_again == ci);
    ++checked;
  }
  EXPECT_EQ(checked, 12u);
  // parquet-mr writes no column index for INT96 columns.
  EXPECT_EQ(without_index, std::vector<std::string>{"timestamp_col has oi"});
}

}  // namespace
}  // namespace floe::parquet
