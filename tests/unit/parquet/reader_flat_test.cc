// The flat-column read path (ReadFlatColumnChunk): validity built from the
// definition levels page by page, values decoded straight into their slots,
// scratch buffers reused across chunks and row groups. Files come from floe's
// writer with small, oddly sized pages so page boundaries fall inside bitmap
// bytes, with all-null, null-free and mixed pages, every page version and
// encoding family; the values must come back exactly and every Column must
// satisfy its layout contract (null fixed-width slots zero, null strings
// empty).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::ReadFile;
using testing::RenderRows;
using testing::WriteFile;

// Null pattern with runs: rows [100, 180) all null, [300, 420) none null,
// elsewhere a pseudo-random ~25% nulls.
bool IsNullRow(int64_t r) {
  if (r >= 100 && r < 180) return true;
  if (r >= 300 && r < 420) return false;
  return (r * 2654435761u >> 7) % 4 == 0;
}

constexpr int64_t kRows = 1000;

RecordBatch FlatBatch() {
  DataType int96 = Timestamp(TimeUnit::kMicro, false);
  int96.annotation = DataType::Annotation::kInt96;
  Schema schema = {
      MakeField("long_dict", String()), MakeField("short_dict", String()), MakeField("unique", String()),
      MakeField("i64", Int64()),        MakeField("i32_dict", Int32()),    MakeField("d18", Decimal(18, 2)),
      MakeField("d9", Decimal(9, 4)),   MakeField("ts96", int96),          MakeField("b", Bool()),
      MakeField("f", FixedBinary(5)),   MakeField("f64", Float64()),       MakeField("req", Int64(), false),
  };
  const std::string long_words[] = {std::string(40, 'a'), std::string(200, 'b'), std::string(33, 'c'),
                                    std::string(310, 'd') + "\xff", std::string(64, 'e')};
  const std::string short_words[] = {"Draft", "Quoted", "", "Bound", "x"};
  std::vector<Column> columns;
  for (const Field& f : schema) columns.push_back(MakeEmptyColumn(f.type));
  for (int64_t r = 0; r < kRows; ++r) {
    const bool null = IsNullRow(r);
    for (size_t k = 0; k < schema.size(); ++k) {
      Column& c = columns[k];
      if (null && schema[k].nullable) {
        c.AppendNull();
        continue;
      }
      const uint64_t x = static_cast<uint64_t>(r) * 7919u % 1009u;
      switch (k) {
        case 0: c.AppendBytes(long_words[x % 5]); break;
        case 1: c.AppendBytes(short_words[x % 5]); break;
        case 2: c.AppendBytes("v" + std::to_string(r * 31)); break;
        case 3: c.AppendValue<int64_t>(static_cast<int64_t>(x) * -1234567890123LL); break;
        case 4: c.AppendValue<int32_t>(static_cast<int32_t>(x % 7) - 3); break;
        case 5: c.AppendValue<__int128>(static_cast<__int128>(x) * 100000000007LL - 5); break;
        case 6: c.AppendValue<__int128>(static_cast<__int128>(x) * 10007 - 99999); break;
        case 7: c.AppendValue<int64_t>(static_cast<int64_t>(x) * 86400000123LL - 1000000000000LL); break;
        case 8: c.AppendValue<uint8_t>(x & 1); break;
        case 9: {
          uint8_t bytes[5] = {static_cast<uint8_t>(x), 1, 2, 3, static_cast<uint8_t>(x >> 8)};
          c.AppendFixed(bytes);
          break;
        }
        case 10: c.AppendValue<double>(static_cast<double>(x) / 3.0); break;
        case 11: c.AppendValue<int64_t>(r); break;
      }
    }
  }
  return MakeBatch(schema, std::move(columns));
}

// Checks the Column contract the flat path must produce itself.
void ExpectWellFormed(const RecordBatch& batch) {
  for (size_t k = 0; k < batch.columns.size(); ++k) {
    const Column& c = batch.columns[k];
    SCOPED_TRACE(batch.schema[k].name);
    EXPECT_EQ(c.Validate(), "");
    EXPECT_EQ(c.length, batch.num_rows);
    int64_t nulls = 0;
    for (int64_t i = 0; i < c.length; ++i) {
      if (!c.IsNull(i)) continue;
      ++nulls;
      if (c.type.is_binary_like()) {
        EXPECT_EQ(c.offsets[i], c.offsets[i + 1]) << "null string slot " << i << " is not empty";
      } else {
        const size_t w = static_cast<size_t>(c.type.fixed_width());
        for (size_t b = 0; b < w; ++b) {
          ASSERT_EQ(c.values[static_cast<size_t>(i) * w + b], 0) << "null slot " << i << " holds a value";
        }
      }
    }
    EXPECT_EQ(nulls, c.null_count);
    if (c.null_count == 0) {
      EXPECT_TRUE(c.validity.empty());
    }
  }
}

struct Variant {
  const char* name;
  ParquetWriterOptions options;
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  ParquetWriterOptions o;
  o.page_max_rows = 37;
  v.push_back({"dictionary_v1_pages_of_37", o});
  o.data_page_version = 2;
  v.push_back({"dictionary_v2_pages_of_37", o});
  o = {};
  o.dictionary_enabled = false;
  o.page_max_rows = 61;
  o.codec = Codec::kLz4Raw;
  v.push_back({"plain_lz4_pages_of_61", o});
  o = {};
  o.dictionary_enabled = false;
  o.delta_encodings = true;
  o.page_max_rows = 29;
  o.codec = Codec::kZstd;
  o.data_page_version = 2;
  v.push_back({"delta_zstd_v2_pages_of_29", o});
  o = {};
  o.dictionary_max_bytes = 300;  // falls back to PLAIN/delta mid-chunk
  o.delta_encodings = true;
  o.page_max_rows = 53;
  o.codec = Codec::kNone;
  v.push_back({"fallback_uncompressed", o});
  o = {};
  o.row_group_max_rows = 128;  // scratch buffers reused across row groups
  o.page_max_rows = 45;
  v.push_back({"row_groups_of_128", o});
  return v;
}

TEST(ParquetFlatReader, EveryEncodingAndPageLayoutRoundTrips) {
  floe::testing::TempDir dir;
  const RecordBatch batch = FlatBatch();
  const std::vector<std::string> expected = RenderRows(batch);
  for (const Variant& variant : Variants()) {
    SCOPED_TRACE(variant.name);
    const std::string path = dir.File(std::string(variant.name) + ".parquet");
    ASSERT_OK(WriteFile(path, batch.schema, {batch}, variant.options).status());
    ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
    EXPECT_EQ(back.schema, batch.schema) << SchemaToString(back.schema);
    EXPECT_EQ(back.rows, expected);
    for (const RecordBatch& group : back.row_groups) ExpectWellFormed(group);
  }
}

TEST(ParquetFlatReader, ProjectionAndRereadingGiveTheSameColumns) {
  floe::testing::TempDir dir;
  const RecordBatch batch = FlatBatch();
  const std::string path = dir.File("flat.parquet");
  ParquetWriterOptions options;
  options.row_group_max_rows = 300;
  options.page_max_rows = 41;
  ASSERT_OK(WriteFile(path, batch.schema, {batch}, options).status());
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto in, io->OpenRead(path));
  ASSERT_OK_AND_ASSIGN(auto reader, ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(in))));
  ASSERT_EQ(reader->num_row_groups(), 4);
  // Columns read in a different order, twice, through one reader (and one
  // set of scratch buffers) must equal a straight read.
  for (int pass = 0; pass < 2; ++pass) {
    int64_t row = 0;
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      ASSERT_OK_AND_ASSIGN(RecordBatch group, reader->ReadRowGroup(g, {0, 7, 3, 1}));
      ExpectWellFormed(group);
      const size_t original[] = {0, 7, 3, 1};
      for (int64_t i = 0; i < group.num_rows; ++i, ++row) {
        for (size_t k = 0; k < 4; ++k) {
          ASSERT_EQ(testing::RenderValue(group.columns[k], i),
                    testing::RenderValue(batch.columns[original[k]], row))
              << "pass " << pass << " row " << row << " column " << group.schema[k].name;
        }
      }
    }
    EXPECT_EQ(row, kRows);
  }
}

TEST(ParquetFlatReader, AllNullAndNullFreeColumns) {
  floe::testing::TempDir dir;
  std::vector<std::optional<int64_t>> all_null(300), none_null;
  std::vector<std::optional<std::string>> all_null_strings(300), none_null_strings;
  for (int64_t i = 0; i < 300; ++i) {
    none_null.push_back(i * 3);
    none_null_strings.push_back(std::string(static_cast<size_t>(i % 50), 'q'));
  }
  Schema schema = {MakeField("n", Int64()), MakeField("v", Int64()), MakeField("ns", String()),
                   MakeField("vs", String())};
  RecordBatch batch =
      MakeBatch(schema, {MakeColumn<int64_t>(Int64(), all_null), MakeColumn<int64_t>(Int64(), none_null),
                         MakeStrings(String(), all_null_strings), MakeStrings(String(), none_null_strings)});
  ParquetWriterOptions options;
  options.page_max_rows = 70;
  const std::string path = dir.File("nulls.parquet");
  ASSERT_OK(WriteFile(path, schema, {batch}, options).status());
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, RenderRows(batch));
  ASSERT_EQ(back.row_groups.size(), 1u);
  const RecordBatch& group = back.row_groups[0];
  ExpectWellFormed(group);
  EXPECT_EQ(group.columns[0].null_count, 300);
  EXPECT_EQ(group.columns[1].null_count, 0);
  EXPECT_TRUE(group.columns[1].validity.empty());
  EXPECT_EQ(group.columns[2].null_count, 300);
  EXPECT_TRUE(group.columns[2].data.empty());
  EXPECT_TRUE(group.columns[3].validity.empty());
}

}  // namespace
}  // namespace floe::parquet
