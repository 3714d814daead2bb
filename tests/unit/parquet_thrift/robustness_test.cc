// Malformed input never crashes the thrift parsers: broken corpus files,
// every truncation of some real footers, random bit flips and random bytes
// all parse or fail with Corruption. Run this under ASan+UBSan too.
#include <gtest/gtest.h>

#include <random>
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

const std::filesystem::path kData = "testdata/parquet-testing/data";

// Parses `bytes` as each top-level struct; each must succeed or be Corruption.
void ExpectParsesOrCorruption(std::span<const uint8_t> bytes, const std::string& what) {
  FileMetaData file_metadata;
  PageHeader page_header;
  OffsetIndex offset_index;
  ColumnIndex column_index;
  const Status statuses[] = {
      DeserializeFileMetaData(bytes, &file_metadata).status(),
      DeserializePageHeader(bytes, &page_header).status(),
      DeserializeOffsetIndex(bytes, &offset_index).status(),
      DeserializeColumnIndex(bytes, &column_index).status(),
  };
  for (const Status& s : statuses) {
    if (!s.ok()) {
      EXPECT_EQ(s.kind(), ErrorKind::kCorruption) << what << ": " << s.ToString();
      EXPECT_TRUE(s.message().starts_with("thrift: ")) << what << ": " << s.message();
    }
  }
}

TEST(ParquetThriftRobustnessTest, BadDataFiles) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto files = ParquetFilesUnder(shared / "testdata/parquet-testing/bad_data");
  ASSERT_GE(files.size(), 8u);
  for (const auto& path : files) {
    const auto file = ReadWholeFile(path);
    auto footer = FooterBytes(file);
    if (!footer) continue;
    ExpectParsesOrCorruption(*footer, path.string());
    FileMetaData m;
    if (!DeserializeFileMetaData(*footer, &m).ok()) continue;
    // Page headers wherever the (possibly corrupt) footer points.
    for (const auto& rg : m.row_groups) {
      for (const auto& chunk : rg.columns) {
        if (!chunk.meta_data) continue;
        for (int64_t offset :
             {chunk.meta_data->data_page_offset, chunk.meta_data->dictionary_page_offset.value_or(-1)}) {
          if (offset < 0 || static_cast<size_t>(offset) >= file.size()) continue;
          ExpectParsesOrCorruption(std::span(file).subspan(offset), path.string() + " page");
        }
      }
    }
  }
}

// PARQUET-1481.parquet's schema has a corrupt type value; it still parses as
// thrift (the enum keeps the unknown value for the schema layer to reject).
TEST(ParquetThriftRobustnessTest, CorruptSchemaTypeIsKept) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto file = ReadWholeFile(shared / "testdata/parquet-testing/bad_data/PARQUET-1481.parquet");
  auto footer = FooterBytes(file);
  ASSERT_TRUE(footer.has_value());
  FileMetaData m;
  ASSERT_OK(DeserializeFileMetaData(*footer, &m));
  ASSERT_GE(m.schema.size(), 2u);
  ASSERT_TRUE(m.schema[1].type.has_value());
  EXPECT_EQ(static_cast<int32_t>(*m.schema[1].type), -7);
}

const char* const kFooterFiles[] = {"alltypes_plain.parquet", "datapage_v2.snappy.parquet",
                                    "nested_maps.snappy.parquet", "sort_columns.parquet",
                                    "column_chunk_key_value_metadata.parquet"};

TEST(ParquetThriftRobustnessTest, EveryTruncationOfRealFootersIsCorruption) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  for (const char* name : kFooterFiles) {
    const auto file = ReadWholeFile(shared / kData / name);
    auto footer = FooterBytes(file);
    ASSERT_TRUE(footer.has_value()) << name;
    for (size_t n = 0; n < footer->size(); ++n) {
      // Copy so ASan sees the end of the buffer.
      const std::vector<uint8_t> prefix(footer->begin(), footer->begin() + n);
      FileMetaData m;
      Status s = DeserializeFileMetaData(prefix, &m).status();
      ASSERT_EQ(s.kind(), ErrorKind::kCorruption) << name << " prefix " << n << ": " << s.ToString();
    }
  }
}

TEST(ParquetThriftRobustnessTest, RandomBitFlipsOfRealFooters) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  std::mt19937 rng(20261130);
  for (const char* name : kFooterFiles) {
    const auto file = ReadWholeFile(shared / kData / name);
    auto footer = FooterBytes(file);
    ASSERT_TRUE(footer.has_value()) << name;
    const std::vector<uint8_t> original(footer->begin(), footer->end());
    for (int trial = 0; trial < 1000; ++trial) {
      std::vector<uint8_t> mutated = original;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) {
        const size_t bit = rng() % (mutated.size() * 8);
        mutated[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      }
      ExpectParsesOrCorruption(mutated, std::string(name) + " trial " + std::to_string(trial));
    }
  }
}

TEST(ParquetThriftRobustnessTest, RandomBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    ExpectParsesOrCorruption(bytes, "random trial " + std::to_string(trial));
  }
}

// Inputs that promise far more than they hold must fail without allocating
// what they promise.
TEST(ParquetThriftRobustnessTest, HugeLengthsAreRejectedBeforeAllocation) {
  // FileMetaData field 2 (schema): list of 2^31-1 structs.
  const std::vector<uint8_t> huge_list = {0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07};
  FileMetaData m;
  Status s = DeserializeFileMetaData(huge_list, &m).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  EXPECT_NE(s.message().find("list size 2147483647 exceeds"), std::string::npos) << s.message();
  // FileMetaData field 6 (created_by): a 2^31-1 byte string.
  const std::vector<uint8_t> huge_string = {0x68, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 'x'};
  s = DeserializeFileMetaData(huge_string, &m).status();
  EXPECT_EQ(s.kind(), ErrorKind::kCorruption);
  EXPECT_NE(s.message().find("field 6 of FileMetaData"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace floe::parquet
