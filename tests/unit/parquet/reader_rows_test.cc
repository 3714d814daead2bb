// ParquetFileReader::ReadRowGroupRows: the rows asked for, equal to the same
// rows taken from the whole row group, whether the pages holding them are
// located by the offset index (flat fields) or the field is decoded whole (a
// list, a file without a page index); rows at page and row-group boundaries,
// the first and last rows, dictionary and plain pages, nulls, booleans,
// values converted from their physical type (dates, timestamps, decimals),
// delta encodings and v2 pages. With an offset index only the pages holding
// the rows are read from the file, and only the rows' values are copied.
// ParquetChunkedReader reads a large row group of such fields in slices cut
// at page starts, which together give the row group's rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "columnar/column_rows.h"
#include "formats/parquet/parquet_chunked_reader.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::RenderRows;
using testing::WriteFile;

constexpr int64_t kRows = 2500;
constexpr int64_t kRowsPerGroup = 1000;
constexpr int64_t kRowsPerPage = 100;

// id (int64, required), code (a few strings: dictionary-encoded), note
// (nullable distinct strings: plain), tags (a list: decoded whole), then
// flat columns of other kinds: level (nullable int32 of a few values:
// dictionary), amount (nullable distinct doubles: plain), flag (nullable
// booleans), day (dates), at (timestamps), price (decimal(9, 2)).
RecordBatch Rows() {
  std::mt19937_64 rng(24);
  std::vector<std::optional<int64_t>> ids, ats;
  std::vector<std::optional<std::string>> codes, notes;
  std::vector<std::optional<int32_t>> levels, days;
  std::vector<std::optional<double>> amounts;
  std::vector<std::optional<bool>> flags;
  Column prices = MakeEmptyColumn(Decimal(9, 2));
  Column tags = MakeEmptyColumn(List(MakeField("element", Int32())));
  for (int64_t i = 0; i < kRows; ++i) {
    ids.push_back(i);
    codes.push_back("code-" + std::to_string(rng() % 7));
    if (rng() % 5 == 0) {
      notes.push_back(std::nullopt);
    } else {
      notes.push_back(std::to_string(i) + std::string(rng() % 40, 'n'));
    }
    const int64_t n = static_cast<int64_t>(rng() % 3);
    for (int64_t k = 0; k < n; ++k) tags.children[0].AppendValue<int32_t>(static_cast<int32_t>(i + k));
    tags.AppendListEnd();
    levels.push_back(rng() % 4 == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(rng() % 5)));
    amounts.push_back(rng() % 6 == 0 ? std::nullopt : std::optional<double>(static_cast<double>(i) * 1.25));
    flags.push_back(rng() % 3 == 0 ? std::nullopt : std::optional<bool>(rng() % 2 == 0));
    days.push_back(static_cast<int32_t>(19000 + i % 400));
    ats.push_back(i % 9 == 0 ? std::nullopt : std::optional<int64_t>(1'700'000'000'000'000 + i * 1'000'003));
    if (i % 8 == 0) {
      prices.AppendNull();
    } else {
      prices.AppendValue<__int128>(static_cast<__int128>(i * 37 - 5000));
    }
  }
  Schema schema = {MakeField("id", Int64(), false),
                   MakeField("code", String()),
                   MakeField("note", String()),
                   MakeField("tags", tags.type),
                   MakeField("level", Int32()),
                   MakeField("amount", Float64()),
                   MakeField("flag", Bool()),
                   MakeField("day", Date()),
                   MakeField("at", Timestamp(TimeUnit::kMicro, true)),
                   MakeField("price", Decimal(9, 2))};
  return MakeBatch(
      schema, {MakeColumn<int64_t>(Int64(), ids), MakeStrings(String(), codes), MakeStrings(String(), notes),
               std::move(tags), MakeColumn<int32_t>(Int32(), levels), MakeColumn<double>(Float64(), amounts),
               MakeColumn<bool>(Bool(), flags), MakeColumn<int32_t>(Date(), days),
               MakeColumn<int64_t>(Timestamp(TimeUnit::kMicro, true), ats), std::move(prices)});
}

// How the file is written: with the page index (offset index) or without,
// delta encodings for non-dictionary pages, data page version.
struct Layout {
  bool page_index = true;
  bool delta = false;
  int page_version = 1;
};

// An InputFile that counts the bytes read through it.
class CountingFile : public InputFile {
 public:
  explicit CountingFile(std::unique_ptr<InputFile> file) : file_(std::move(file)) {}
  const std::string& path() const override { return file_->path(); }
  Result<int64_t> Size() override { return file_->Size(); }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    bytes_read += length;
    return file_->ReadAt(offset, length, out);
  }
  int64_t bytes_read = 0;

 private:
  std::unique_ptr<InputFile> file_;
};

class ReadRowGroupRowsTest : public ::testing::TestWithParam<Layout> {
 protected:
  // Writes the rows as GetParam() says.
  void SetUp() override {
    ParquetWriterOptions options;
    options.row_group_max_rows = kRowsPerGroup;
    options.page_max_rows = kRowsPerPage;
    options.dictionary_max_bytes = 200;  // code stays dictionary-encoded, note is plain
    options.codec = Codec::kZstd;
    options.write_page_index = GetParam().page_index;
    options.delta_encodings = GetParam().delta;
    options.data_page_version = GetParam().page_version;
    path_ = dir_.File("rows.parquet");
    batch_ = Rows();
    ASSERT_OK_AND_ASSIGN(WrittenParquetFile written, WriteFile(path_, batch_.schema, {batch_}, options));
    // code: a dictionary page; note: plain (or delta) pages.
    for (const RowGroup& group : written.metadata.row_groups) {
      ASSERT_TRUE(group.columns[1].meta_data->dictionary_page_offset.has_value());
      const std::vector<Encoding>& encodings = group.columns[2].meta_data->encodings;
      const Encoding note_encoding = GetParam().delta ? Encoding::DELTA_BYTE_ARRAY : Encoding::PLAIN;
      ASSERT_NE(std::find(encodings.begin(), encodings.end(), note_encoding), encodings.end());
      ASSERT_EQ(group.columns[0].offset_index_offset.has_value(), GetParam().page_index);
    }
  }

  std::unique_ptr<ParquetFileReader> Open(CountingFile** counting = nullptr) {
    auto in = MakeLocalFileIO()->OpenRead(path_);
    EXPECT_OK(in.status());
    auto file = std::make_shared<CountingFile>(std::move(*in));
    if (counting != nullptr) *counting = file.get();
    auto reader = ParquetFileReader::Open(file);
    EXPECT_OK(reader.status());
    return std::move(*reader);
  }

  // The rows of row group `group` read with ReadRowGroupRows equal those taken from the whole group.
  void ExpectRows(int group, const std::vector<int64_t>& rows, const std::vector<int>& columns = {}) {
    auto reader = Open();
    ASSERT_OK_AND_ASSIGN(RecordBatch whole, reader->ReadRowGroup(group, columns));
    ASSERT_OK_AND_ASSIGN(RecordBatch expected, TakeBatchRows(whole, rows));
    ASSERT_OK_AND_ASSIGN(RecordBatch got, reader->ReadRowGroupRows(group, rows, columns));
    EXPECT_EQ(got.num_rows, static_cast<int64_t>(rows.size()));
    EXPECT_EQ(got.schema, expected.schema);
    for (const Column& column : got.columns) EXPECT_EQ(column.Validate(), "");
    EXPECT_EQ(RenderRows(got), RenderRows(expected)) << "row group " << group;
  }

  floe::testing::TempDir dir_;
  std::string path_;
  RecordBatch batch_;
};

TEST_P(ReadRowGroupRowsTest, RowsAtBoundariesEqualTheWholeGroupsRows) {
  auto reader = Open();
  ASSERT_EQ(reader->num_row_groups(), 3);
  for (int group = 0; group < 3; ++group) {
    const int64_t n = reader->metadata().row_groups[static_cast<size_t>(group)].num_rows;
    ExpectRows(group, {0});
    ExpectRows(group, {n - 1});
    ExpectRows(group, {0, n - 1});
    // Last row of a page, first of the next, and a page in the middle alone.
    ExpectRows(group, {kRowsPerPage - 1, kRowsPerPage});
    ExpectRows(group, {3 * kRowsPerPage + 17});
    ExpectRows(group, {kRowsPerPage - 1, kRowsPerPage, 4 * kRowsPerPage, n - 1});
    std::vector<int64_t> every(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) every[static_cast<size_t>(i)] = i;
    ExpectRows(group, every);
  }
  // Selected columns, in another order.
  ExpectRows(1, {5, 250, 999}, {2, 0});
  ExpectRows(2, {0, 499}, {3});
}

TEST_P(ReadRowGroupRowsTest, RandomRowSets) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    const int group = static_cast<int>(rng() % 3);
    const int64_t n = group == 2 ? kRows - 2 * kRowsPerGroup : kRowsPerGroup;
    std::vector<int64_t> rows;
    const int64_t every = 1 + static_cast<int64_t>(rng() % 300);
    for (int64_t i = static_cast<int64_t>(rng() % every); i < n; i += 1 + static_cast<int64_t>(rng() % every))
      rows.push_back(i);
    if (rows.empty()) rows.push_back(0);
    ExpectRows(group, rows);
  }
}

TEST_P(ReadRowGroupRowsTest, RowsOutOfRangeOrOrderAreRefused) {
  auto reader = Open();
  EXPECT_EQ(reader->ReadRowGroupRows(0, {5, 3}).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(reader->ReadRowGroupRows(0, {5, 5}).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(reader->ReadRowGroupRows(0, {-1}).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(reader->ReadRowGroupRows(2, {kRows}).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(reader->ReadRowGroupRows(3, {0}).status().kind(), ErrorKind::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ReadRowGroupRowsTest,
                         ::testing::Values(Layout{true, false, 1}, Layout{false, false, 1},
                                           Layout{true, true, 1}, Layout{true, false, 2},
                                           Layout{true, true, 2}),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           const Layout& layout = info.param;
                           return std::string(layout.page_index ? "WithOffsetIndex" : "WithoutOffsetIndex") +
                                  (layout.delta ? "Delta" : "") + "V" + std::to_string(layout.page_version);
                         });

// With an offset index, one row reads its page (and the dictionary page), not the chunk.
TEST(ReadRowGroupRows, OnlyThePagesHoldingTheRowsAreRead) {
  floe::testing::TempDir dir;
  RecordBatch batch = Rows();
  ParquetWriterOptions options;
  options.row_group_max_rows = kRows;
  options.page_max_rows = kRowsPerPage;
  const std::string path = dir.File("pages.parquet");
  ASSERT_OK(WriteFile(path, batch.schema, {batch}, options).status());
  auto open = [&](CountingFile** counting) {
    auto in = MakeLocalFileIO()->OpenRead(path);
    EXPECT_OK(in.status());
    auto file = std::make_shared<CountingFile>(std::move(*in));
    *counting = file.get();
    auto reader = ParquetFileReader::Open(file);
    EXPECT_OK(reader.status());
    return std::move(*reader);
  };
  CountingFile* whole_file = nullptr;
  auto whole_reader = open(&whole_file);
  const int64_t footer = whole_file->bytes_read;
  ASSERT_OK(whole_reader->ReadRowGroup(0, {0, 2}).status());
  const int64_t whole = whole_file->bytes_read - footer;
  CountingFile* rows_file = nullptr;
  auto rows_reader = open(&rows_file);
  ASSERT_OK_AND_ASSIGN(RecordBatch one, rows_reader->ReadRowGroupRows(0, {1234}, {0, 2}));
  const int64_t partial = rows_file->bytes_read - footer;
  EXPECT_EQ(one.columns[0].Value<int64_t>(0), 1234);
  // 25 pages per column: one page, the offset indexes and the leading magic are far below half.
  EXPECT_LT(partial * 5, whole) << "partial " << partial << " bytes, whole " << whole;
}

// A row group over max_chunk_bytes is read in slices of its rows, cut where
// the largest column's pages start; the slices give the same rows in the
// same order (also for a column selection). Without an offset index, or
// with a field that is not a flat leaf, row groups stay whole.
TEST(ParquetChunkedReader, LargeRowGroupsAreReadInSlicesOfTheSameRows) {
  floe::testing::TempDir dir;
  RecordBatch flat = Rows();
  flat.schema.erase(flat.schema.begin() + 3);  // tags: a list
  flat.columns.erase(flat.columns.begin() + 3);
  ParquetWriterOptions options;
  options.row_group_max_rows = kRowsPerGroup;
  options.page_max_rows = kRowsPerPage;
  options.dictionary_max_bytes = 200;
  options.codec = Codec::kZstd;
  auto write = [&](const std::string& name, const RecordBatch& batch, bool page_index) {
    options.write_page_index = page_index;
    const std::string path = dir.File(name);
    EXPECT_OK(WriteFile(path, batch.schema, {batch}, options).status());
    return path;
  };
  auto open = [&](const std::string& path, int64_t max_chunk_bytes) {
    auto in = MakeLocalFileIO()->OpenRead(path);
    EXPECT_OK(in.status());
    auto reader = ParquetChunkedReader::Open(std::shared_ptr<InputFile>(std::move(*in)), {}, max_chunk_bytes);
    EXPECT_OK(reader.status());
    return std::move(*reader);
  };
  // Every chunk read in order, with `columns`.
  auto read_all = [](ParquetChunkedReader& reader, const std::vector<int>& columns) {
    std::vector<std::string> rows;
    for (int chunk = 0; chunk < reader.num_chunks(); ++chunk) {
      auto batch = reader.ReadChunk(chunk, columns);
      EXPECT_OK(batch.status());
      if (!batch.ok()) break;
      EXPECT_EQ(batch->num_rows, reader.chunk_rows(chunk)) << "chunk " << chunk;
      for (const Column& column : batch->columns) EXPECT_EQ(column.Validate(), "");
      for (std::string& row : RenderRows(*batch)) rows.push_back(std::move(row));
    }
    return rows;
  };
  const std::string sliceable = write("flat.parquet", flat, true);
  auto whole = open(sliceable, 0);
  ASSERT_EQ(whole->num_chunks(), 3);
  const int64_t group_bytes = whole->chunk_bytes(0);
  // Values, offsets and validity of 1000 rows of nine columns: well above their 1000 * 8-byte ids.
  EXPECT_GT(group_bytes, kRowsPerGroup * 8);
  auto sliced = open(sliceable, group_bytes / 4);
  EXPECT_GE(sliced->num_chunks(), 3 * 3);
  int64_t rows = 0, bytes = 0;
  for (int chunk = 0; chunk < sliced->num_chunks(); ++chunk) {
    const int64_t chunk_rows = sliced->chunk_rows(chunk);
    EXPECT_GT(chunk_rows, 0);
    EXPECT_GT(sliced->chunk_bytes(chunk), 0);
    // Pages hold 100 rows: slices start at page starts (row groups start at multiples of 1000).
    EXPECT_EQ(rows % kRowsPerPage, 0) << "chunk " << chunk << " starts at row " << rows;
    rows += chunk_rows;
    bytes += sliced->chunk_bytes(chunk);
  }
  EXPECT_EQ(rows, kRows);
  EXPECT_NEAR(static_cast<double>(bytes),
              static_cast<double>(whole->chunk_bytes(0) + whole->chunk_bytes(1) + whole->chunk_bytes(2)),
              static_cast<double>(sliced->num_chunks()));
  EXPECT_EQ(read_all(*sliced, {}), RenderRows(flat));
  EXPECT_EQ(read_all(*sliced, {2, 0}), read_all(*whole, {2, 0}));
  EXPECT_EQ(sliced->ReadChunk(sliced->num_chunks(), {}).status().kind(), ErrorKind::kInvalidArgument);
  // No offset index: whole row groups.
  auto unindexed = open(write("unindexed.parquet", flat, false), group_bytes / 4);
  EXPECT_EQ(unindexed->num_chunks(), 3);
  EXPECT_EQ(read_all(*unindexed, {}), RenderRows(flat));
  // A list field: whole row groups.
  RecordBatch nested = Rows();
  auto with_list = open(write("nested.parquet", nested, true), group_bytes / 4);
  EXPECT_EQ(with_list->num_chunks(), 3);
}

}  // namespace
}  // namespace floe::parquet
