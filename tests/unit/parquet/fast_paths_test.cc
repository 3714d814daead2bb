// The writer's and reader's fast paths for flat columns: shredding by runs of
// valid rows, one-word dictionary slots with the string hash, prefix-ordered
// byte statistics, definition levels decoded run by run, strings grown per
// page, and decimals widened in place. Each is checked against a plain
// reference or through a write/read round trip over null patterns that put
// runs across bytes, 64-row words, slices, batches and pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "formats/parquet/writer/dictionary_builder.h"
#include "formats/parquet/writer/leaf_shredder.h"
#include "formats/parquet/writer/value_statistics.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::ReadBack;
using testing::ReadFile;
using testing::RenderRows;
using testing::WriteFile;

// Null patterns over n rows: none, all, alternating, random 10%, runs of 1-150.
std::vector<bool> Pattern(int kind, size_t n, std::mt19937_64& rng) {
  std::vector<bool> valid(n, true);
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0: break;
      case 1: valid[i] = false; break;
      case 2: valid[i] = i % 2 == 0; break;
      case 3: valid[i] = rng() % 10 != 0; break;
      default: break;
    }
  }
  if (kind == 4) {
    bool state = true;
    for (size_t i = 0; i < n;) {
      const size_t run = 1 + rng() % 150;
      for (size_t k = 0; k < run && i < n; ++k, ++i) valid[i] = state;
      state = !state;
    }
  }
  return valid;
}

RecordBatch FlatBatch(const std::vector<bool>& valid, std::mt19937_64& rng) {
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<int32_t>> dates;
  std::vector<std::optional<double>> doubles;
  std::vector<std::optional<std::string>> short_strings, long_strings;
  Column amount = MakeEmptyColumn(Decimal(18, 2));
  Column rate = MakeEmptyColumn(Decimal(9, 4));
  for (size_t i = 0; i < valid.size(); ++i) {
    if (!valid[i]) {
      ints.push_back(std::nullopt);
      dates.push_back(std::nullopt);
      doubles.push_back(std::nullopt);
      short_strings.push_back(std::nullopt);
      long_strings.push_back(std::nullopt);
      amount.AppendNull();
      rate.AppendNull();
      continue;
    }
    ints.push_back(static_cast<int64_t>(rng()));
    dates.push_back(static_cast<int32_t>(rng() % 20000));
    doubles.push_back(static_cast<double>(rng() % 1000) / 7.0);
    short_strings.push_back(std::string(rng() % 17, static_cast<char>('a' + rng() % 3)));  // empty included
    long_strings.push_back(std::string(40 + rng() % 200, static_cast<char>('x' + rng() % 2)));
    amount.AppendValue<__int128>(static_cast<__int128>(static_cast<int64_t>(rng() % 2000000) - 1000000) *
                                 1000000000);
    rate.AppendValue<__int128>(static_cast<__int128>(static_cast<int32_t>(rng() % 200000) - 100000));
  }
  Schema schema = {MakeField("id", Int64()),           MakeField("day", Date()),
                   MakeField("premium", Float64()),    MakeField("code", String()),
                   MakeField("description", String()), MakeField("amount", Decimal(18, 2)),
                   MakeField("rate", Decimal(9, 4))};
  return MakeBatch(schema, {MakeColumn<int64_t>(Int64(), ints), MakeColumn<int32_t>(Date(), dates),
                            MakeColumn<double>(Float64(), doubles), MakeStrings(String(), short_strings),
                            MakeStrings(String(), long_strings), std::move(amount), std::move(rate)});
}

Result<std::vector<uint8_t>> ReadWholeFile(const std::string& path) {
  auto io = MakeLocalFileIO();
  FLOE_ASSIGN_OR_RETURN(auto file, io->OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(int64_t size, file->Size());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  FLOE_RETURN_IF_ERROR(file->ReadAt(0, size, bytes.data()));
  return bytes;
}

// Rows [begin, end) of a batch as a batch of its own.
RecordBatch Slice(const RecordBatch& batch, int64_t begin, int64_t end) {
  std::vector<Column> columns;
  for (const Column& c : batch.columns) {
    Column out = MakeEmptyColumn(c.type);
    for (int64_t i = begin; i < end; ++i) {
      if (c.IsNull(i)) {
        out.AppendNull();
      } else if (c.type.is_binary_like()) {
        out.AppendBytes(c.StringAt(i));
      } else {
        out.AppendFixed(c.values.data() + i * c.type.fixed_width());
      }
    }
    columns.push_back(std::move(out));
  }
  return MakeBatch(batch.schema, std::move(columns));
}

TEST(ParquetFastPaths, FlatColumnsRoundTripOverNullPatternsBatchesAndPages) {
  floe::testing::TempDir dir;
  std::mt19937_64 rng(3);
  for (int kind = 0; kind <= 4; ++kind) {
    for (bool dictionary : {true, false}) {
      const size_t n = 3000;
      RecordBatch batch = FlatBatch(Pattern(kind, n, rng), rng);
      // Odd batch sizes put shredding starts at unaligned rows.
      std::vector<RecordBatch> batches = {Slice(batch, 0, 13), Slice(batch, 13, 1037),
                                          Slice(batch, 1037, 3000)};
      ParquetWriterOptions options;
      options.dictionary_enabled = dictionary;
      options.page_max_rows = 333;
      options.row_group_max_rows = 2000;
      const std::string path =
          (dir.path() / ("f" + std::to_string(kind) + std::to_string(dictionary))).string();
      ASSERT_OK(WriteFile(path, batch.schema, batches, options).status());
      ASSERT_OK_AND_ASSIGN(ReadBack back, ReadFile(path));
      EXPECT_EQ(back.rows, RenderRows(batch)) << "pattern " << kind << ", dictionary " << dictionary;
      for (const RecordBatch& group : back.row_groups) {
        for (const Column& c : group.columns) EXPECT_EQ(c.Validate(), "");
      }
    }
  }
}

TEST(ParquetFastPaths, ShreddingByRunsMatchesRowByRow) {
  std::mt19937_64 rng(5);
  for (int kind = 0; kind <= 4; ++kind) {
    RecordBatch batch = FlatBatch(Pattern(kind, 700, rng), rng);
    ASSERT_OK_AND_ASSIGN(WriterSchema schema, BuildWriterSchema(batch.schema));
    for (size_t leaf_index = 0; leaf_index < schema.leaves.size(); ++leaf_index) {
      const WriteLeaf& leaf = schema.leaves[leaf_index];
      const Column& column = batch.columns[static_cast<size_t>(leaf.top_level_field)];
      LeafValues values;
      ReserveForRows(leaf, column, 0, 300, 1 << 20, &values);
      for (auto [begin, end] :
           {std::pair<int64_t, int64_t>{0, 3}, {3, 64}, {64, 65}, {65, 300}, {300, 700}}) {
        ASSERT_OK(ShredRows(leaf, column, begin, end, &values));
      }
      ASSERT_EQ(values.num_levels, 700);
      int64_t present = 0;
      for (int64_t i = 0; i < 700; ++i) {
        ASSERT_EQ(values.def_levels[static_cast<size_t>(i)], column.IsValid(i) ? 1 : 0) << i;
        if (!column.IsValid(i)) continue;
        if (column.type.is_binary_like()) {
          EXPECT_EQ(values.ByteArrayAt(present), column.StringAt(i));
        } else {
          const int width = PhysicalWidth(leaf);
          // Decimals narrow to their low bytes; the rest are copies.
          EXPECT_EQ(
              std::memcmp(values.fixed.data() + present * width,
                          column.values.data() + i * column.type.fixed_width(), static_cast<size_t>(width)),
              0)
              << leaf.path[0] << " row " << i;
        }
        ++present;
      }
      EXPECT_EQ(values.num_present, present);
    }
  }
}

// A row group filled by many small writes: a buffer that must grow is sized
// for the rows the group is projected to hold (one allocation, not a
// doubling per few writes, each a copy into fresh pages), never past the
// byte limit, and only to what is needed when nothing is projected.
TEST(ParquetFastPaths, GrowingRowGroupBuffersAreSizedForTheProjectedRows) {
  std::mt19937_64 rng(11);
  RecordBatch batch = FlatBatch(std::vector<bool>(400, true), rng);
  ASSERT_OK_AND_ASSIGN(WriterSchema schema, BuildWriterSchema(batch.schema));
  for (const WriteLeaf& leaf : schema.leaves) {
    const Column& column = batch.columns[static_cast<size_t>(leaf.top_level_field)];
    const bool bytes = column.type.is_binary_like();
    auto held = [&](const LeafValues& v) { return bytes ? v.data.size() : v.fixed.size(); };
    auto room = [&](const LeafValues& v) { return bytes ? v.data.capacity() : v.fixed.capacity(); };

    LeafValues projected;
    ReserveForRows(leaf, column, 0, 100, 1 << 30, &projected);
    ASSERT_OK(ShredRows(leaf, column, 0, 100, &projected));
    ReserveForRows(leaf, column, 100, 200, 1 << 30, &projected, /*projected_rows=*/2000);
    // 200 rows will be held, 2000 projected: room for about ten times as much.
    const size_t per_200 =
        held(projected) +
        (bytes ? static_cast<size_t>(column.offsets[200] - column.offsets[100]) : held(projected));
    EXPECT_GE(room(projected), per_200 * 9) << leaf.path[0];
    EXPECT_GE(projected.def_levels.capacity(), size_t{1800}) << leaf.path[0];
    const size_t grown_to = room(projected);
    ASSERT_OK(ShredRows(leaf, column, 100, 200, &projected));
    ReserveForRows(leaf, column, 200, 400, 1 << 30, &projected, 2000);
    EXPECT_EQ(room(projected), grown_to) << leaf.path[0] << ": the projected room is used, not regrown";

    LeafValues exact;
    ReserveForRows(leaf, column, 0, 100, 1 << 30, &exact);
    ASSERT_OK(ShredRows(leaf, column, 0, 100, &exact));
    ReserveForRows(leaf, column, 100, 200, 1 << 30, &exact);
    EXPECT_LT(room(exact), per_200 * 2) << leaf.path[0];

    LeafValues capped;
    ReserveForRows(leaf, column, 0, 100, 1 << 30, &capped);
    ASSERT_OK(ShredRows(leaf, column, 0, 100, &capped));
    const size_t limit = held(capped) * 3;
    ReserveForRows(leaf, column, 100, 200, static_cast<int64_t>(limit), &capped, 1'000'000);
    EXPECT_LE(room(capped), std::max(limit, per_200)) << leaf.path[0] << ": never past the byte limit";
  }
}

TEST(ParquetFastPaths, DecimalThatDoesNotFitAmongNullsNamesItsRow) {
  Column rate = MakeEmptyColumn(Decimal(9, 4));
  for (int i = 0; i < 100; ++i) {
    if (i % 3 == 0) {
      rate.AppendNull();
    } else {
      rate.AppendValue<__int128>(i == 71 ? (static_cast<__int128>(1) << 40) : i);
    }
  }
  Schema schema = {MakeField("rate", Decimal(9, 4))};
  ASSERT_OK_AND_ASSIGN(WriterSchema writer_schema, BuildWriterSchema(schema));
  LeafValues values;
  Status status = ShredRows(writer_schema.leaves[0], rate, 0, 100, &values);
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("row 71"), std::string::npos) << status.ToString();
}

TEST(ParquetFastPaths, DictionaryIndicesFollowFirstSeenOrder) {
  std::mt19937_64 rng(9);
  // Strings of every length 0..40 (the hash's short, 16-byte and long
  // paths), sharing prefixes and suffixes, and enough distinct ones to grow.
  std::vector<std::string> pool;
  for (int i = 0; i < 3000; ++i) {
    std::string s(static_cast<size_t>(i % 41), 'q');
    for (size_t k = 0; k < s.size(); k += 1 + rng() % 9) s[k] = static_cast<char>(rng());
    pool.push_back(s);
  }
  std::vector<int64_t> offsets = {0};
  std::string data;
  std::vector<std::string> sequence;
  for (int i = 0; i < 20000; ++i) {
    sequence.push_back(pool[rng() % pool.size()]);
    data += sequence.back();
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  DictionaryBuilder builder(0);
  std::vector<uint32_t> indices(sequence.size());
  builder.IndexByteArrays(offsets.data(), reinterpret_cast<const uint8_t*>(data.data()),
                          static_cast<int64_t>(sequence.size()), indices.data());
  std::map<std::string, uint32_t> reference;
  std::vector<uint8_t> expected_plain;
  for (size_t i = 0; i < sequence.size(); ++i) {
    auto [it, inserted] = reference.emplace(sequence[i], static_cast<uint32_t>(reference.size()));
    if (inserted) {
      const uint32_t length = static_cast<uint32_t>(sequence[i].size());
      expected_plain.insert(expected_plain.end(), reinterpret_cast<const uint8_t*>(&length),
                            reinterpret_cast<const uint8_t*>(&length) + 4);
      expected_plain.insert(expected_plain.end(), sequence[i].begin(), sequence[i].end());
    }
    ASSERT_EQ(indices[i], it->second) << "value " << i;
  }
  EXPECT_EQ(builder.size(), static_cast<int64_t>(reference.size()));
  EXPECT_EQ(builder.EncodePlain(), expected_plain);

  for (int width : {4, 8, 12, 16}) {
    DictionaryBuilder fixed(width);
    std::vector<uint8_t> values(static_cast<size_t>(width) * 50000);
    for (size_t i = 0; i < values.size(); i += static_cast<size_t>(width)) {
      const uint64_t v = rng() % 7000;  // many distinct, many repeats
      std::memcpy(values.data() + i, &v, std::min<size_t>(8, static_cast<size_t>(width)));
    }
    std::vector<uint32_t> fixed_indices(50000);
    fixed.IndexFixed(values.data(), 50000, fixed_indices.data());
    std::map<std::string, uint32_t> fixed_reference;
    for (size_t i = 0; i < 50000; ++i) {
      const std::string key(reinterpret_cast<const char*>(values.data()) + i * static_cast<size_t>(width),
                            static_cast<size_t>(width));
      auto [it, inserted] = fixed_reference.emplace(key, static_cast<uint32_t>(fixed_reference.size()));
      ASSERT_EQ(fixed_indices[i], it->second) << "width " << width << ", value " << i;
    }
  }
}

TEST(ParquetFastPaths, ByteStatisticsOrderByUnsignedBytesBeyondThePrefix) {
  std::mt19937_64 rng(21);
  const std::vector<std::string> alphabet = {
      std::string(""),         std::string("\0", 1),   std::string("\xFF"),         std::string("a"),
      std::string("abcdefgh"), std::string("abcdefg"), std::string("abcdefgh\0", 9)};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::string> strings;
    const size_t n = 1 + rng() % 30;
    for (size_t i = 0; i < n; ++i) {
      std::string s = alphabet[rng() % alphabet.size()];
      const size_t extra = rng() % 4;
      for (size_t k = 0; k < extra; ++k) s.push_back(static_cast<char>(rng() % 3 == 0 ? 0xFF : rng() % 3));
      strings.push_back(s);
    }
    Schema schema = {MakeField("s", String())};
    ASSERT_OK_AND_ASSIGN(WriterSchema writer_schema, BuildWriterSchema(schema));
    std::vector<std::optional<std::string>> optional(strings.begin(), strings.end());
    LeafValues values;
    ASSERT_OK(ShredRows(writer_schema.leaves[0], MakeStrings(String(), optional), 0, static_cast<int64_t>(n),
                        &values));
    const ValueStats stats = ComputeValueStats(writer_schema.leaves[0], values, 0, static_cast<int64_t>(n));
    const auto unsigned_less = [](const std::string& a, const std::string& b) {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return static_cast<uint8_t>(x) < static_cast<uint8_t>(y);
      });
    };
    ASSERT_TRUE(stats.min && stats.max);
    EXPECT_EQ(*stats.min, *std::min_element(strings.begin(), strings.end(), unsigned_less)) << trial;
    EXPECT_EQ(*stats.max, *std::max_element(strings.begin(), strings.end(), unsigned_less)) << trial;
  }
}

// The rule pages of a flat leaf are cut by: a row adds its level bits and,
// when present, 8 * (value bytes, +4 for a string); the page ends after the
// row reaching page_max_rows rows or page_max_bytes * 8.
std::vector<int64_t> ReferencePageStarts(const Column& column, int64_t value_width, int64_t level_bits,
                                         int64_t max_rows, int64_t max_bytes) {
  std::vector<int64_t> starts;
  int64_t rows = 0, bytes8 = 0;
  for (int64_t i = 0; i < column.length; ++i) {
    if (rows == 0) starts.push_back(i);
    if (column.IsValid(i)) {
      bytes8 += 8 * (value_width > 0 ? value_width : 4 + static_cast<int64_t>(column.StringAt(i).size()));
    }
    bytes8 += level_bits;
    ++rows;
    if (rows >= max_rows || bytes8 >= 8 * max_bytes) rows = bytes8 = 0;
  }
  return starts;
}

TEST(ParquetFastPaths, FlatPagesAreCutRowByRowRule) {
  floe::testing::TempDir dir;
  std::mt19937_64 rng(27);
  for (auto [max_rows, max_bytes] : {std::pair<int64_t, int64_t>{20000, 1 << 20},
                                     {50, 1 << 20},
                                     {20000, 300},
                                     {1000, 2000},
                                     {257, 4096}}) {
    RecordBatch batch = FlatBatch(Pattern(static_cast<int>(rng() % 5), 3000, rng), rng);
    ParquetWriterOptions options;
    options.dictionary_enabled = false;
    options.page_max_rows = max_rows;
    options.page_max_bytes = max_bytes;
    const std::string path =
        (dir.path() / ("p" + std::to_string(max_rows) + "_" + std::to_string(max_bytes))).string();
    ASSERT_OK_AND_ASSIGN(WrittenParquetFile written, WriteFile(path, batch.schema, {batch}, options));
    ASSERT_OK_AND_ASSIGN(auto bytes, ReadWholeFile(path));
    const RowGroup& group = written.metadata.row_groups.at(0);
    // id (int64), premium (double), code and description (strings).
    for (auto [column, width] : {std::pair<size_t, int64_t>{0, 8}, {2, 8}, {3, 0}, {4, 0}}) {
      const ColumnChunk& chunk = group.columns[column];
      OffsetIndex index;
      ASSERT_OK(DeserializeOffsetIndex(std::span<const uint8_t>(bytes.data() + *chunk.offset_index_offset,
                                                                *chunk.offset_index_length),
                                       &index)
                    .status());
      std::vector<int64_t> starts;
      for (const PageLocation& location : index.page_locations) starts.push_back(location.first_row_index);
      EXPECT_EQ(starts, ReferencePageStarts(batch.columns[column], width, 1, max_rows, max_bytes))
          << "column " << column << ", max_rows " << max_rows << ", max_bytes " << max_bytes;
    }
  }
}

TEST(ParquetFastPaths, AllNullAndSingleValuePagesRead) {
  floe::testing::TempDir dir;
  for (int present_at : {-1, 0, 511, 512, 4999}) {
    std::vector<std::optional<int64_t>> ints(5000);
    std::vector<std::optional<std::string>> strings(5000);
    if (present_at >= 0) {
      ints[static_cast<size_t>(present_at)] = 42;
      strings[static_cast<size_t>(present_at)] = std::string(300, 'z');
    }
    Schema schema = {MakeField("i", Int64()), MakeField("s", String())};
    RecordBatch batch =
        MakeBatch(schema, {MakeColumn<int64_t>(Int64(), ints), MakeStrings(String(), strings)});
    ParquetWriterOptions options;
    options.page_max_rows = 700;
    const std::string path = (dir.path() / ("n" + std::to_string(present_at + 1))).string();
    ASSERT_OK(WriteFile(path, schema, {batch}, options).status());
    ASSERT_OK_AND_ASSIGN(ReadBack back, ReadFile(path));
    EXPECT_EQ(back.rows, RenderRows(batch)) << "value at " << present_at;
  }
}

}  // namespace
}  // namespace floe::parquet
