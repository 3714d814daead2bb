// Hive partition folders as typed constant columns of a unit's rows
// (issue 15 item 4): inferred or pinned types, nulls, the file's own column
// winning, projections that mix both.
#include "ingest/format/partition_columns.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// Two chunks of one int64 column "v" (3 rows, then 2).
class TwoChunks final : public formats::ChunkedReader {
 public:
  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return 2; }
  int64_t chunk_rows(int chunk) const override { return chunk == 0 ? 3 : 2; }
  int64_t chunk_bytes(int chunk) const override { return chunk_rows(chunk) * 8; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    ++reads;
    RecordBatch batch;
    batch.num_rows = chunk_rows(chunk);
    if (columns.empty() || columns == std::vector<int>{0}) {
      Column v(Int64());
      for (int64_t row = 0; row < batch.num_rows; ++row) v.AppendValue<int64_t>(chunk * 10 + row);
      batch.schema = schema_;
      batch.columns.push_back(std::move(v));
    }
    return batch;
  }
  int reads = 0;

 private:
  Schema schema_ = {MakeField("v", Int64())};
};

TEST(PartitionColumnsTest, InferredTypesAndConstantValues) {
  auto inner = std::make_unique<TwoChunks>();
  ASSERT_OK_AND_ASSIGN(auto reader,
                       WithPartitionColumns(std::move(inner), "/z/year=2024/day=2024-03-08/p.parquet",
                                            Pairs{{"year", "2024"},
                                                  {"day", "2024-03-08"},
                                                  {"region", "eu-west"},
                                                  {"id", "9000000000"},
                                                  {"hour", "__HIVE_DEFAULT_PARTITION__"}},
                                            {}));
  const Schema& schema = reader->schema();
  ASSERT_EQ(schema.size(), 6u);
  EXPECT_EQ(schema[1].name, "year");
  EXPECT_EQ(schema[1].type, Int32());
  EXPECT_EQ(schema[2].type, Date());
  EXPECT_EQ(schema[3].type, String());
  EXPECT_EQ(schema[4].type, Int64());   // beyond int32
  EXPECT_EQ(schema[5].type, String());  // Hive's null folder: nothing to infer from
  ASSERT_OK_AND_ASSIGN(RecordBatch chunk, reader->ReadChunk(1, {}));
  ASSERT_EQ(chunk.num_rows, 2);
  ASSERT_EQ(chunk.columns.size(), 6u);
  EXPECT_EQ(chunk.columns[0].Value<int64_t>(1), 11);
  EXPECT_EQ(chunk.columns[1].Value<int32_t>(0), 2024);
  EXPECT_EQ(chunk.columns[1].Value<int32_t>(1), 2024);
  EXPECT_EQ(chunk.columns[2].Value<int32_t>(0), 19790);  // days since 1970-01-01
  EXPECT_EQ(chunk.columns[3].StringAt(1), "eu-west");
  EXPECT_EQ(chunk.columns[4].Value<int64_t>(0), 9'000'000'000);
  EXPECT_TRUE(chunk.columns[5].IsNull(0) && chunk.columns[5].IsNull(1));
  EXPECT_EQ(chunk.columns[1].Validate(), "");
  EXPECT_EQ(chunk.columns[3].Validate(), "");
}

TEST(PartitionColumnsTest, ProjectionsOfOnlyPartitionColumnsDoNotDecodeTheFile) {
  auto inner = std::make_unique<TwoChunks>();
  TwoChunks* raw = inner.get();
  ASSERT_OK_AND_ASSIGN(auto reader, WithPartitionColumns(std::move(inner), "u", Pairs{{"k", "7"}}, {}));
  ASSERT_OK_AND_ASSIGN(RecordBatch only_key, reader->ReadChunk(0, {1}));
  EXPECT_EQ(raw->reads, 0);
  ASSERT_EQ(only_key.columns.size(), 1u);
  EXPECT_EQ(only_key.num_rows, 3);
  EXPECT_EQ(only_key.schema[0].name, "k");
  ASSERT_OK_AND_ASSIGN(RecordBatch reordered, reader->ReadChunk(0, {1, 0}));
  ASSERT_EQ(reordered.columns.size(), 2u);
  EXPECT_EQ(reordered.schema[0].name, "k");
  EXPECT_EQ(reordered.schema[1].name, "v");
  EXPECT_EQ(reordered.columns[1].Value<int64_t>(2), 2);
  EXPECT_FALSE(reader->ReadChunk(0, {5}).ok());
}

TEST(PartitionColumnsTest, PinnedTypesAndTheFilesOwnColumnWin) {
  ASSERT_OK_AND_ASSIGN(auto pinned, WithPartitionColumns(std::make_unique<TwoChunks>(), "u",
                                                         Pairs{{"code", "007"}, {"V", "1"}, {"flag", "true"}},
                                                         {{"code", "string"}, {"flag", "boolean"}}));
  const Schema& schema = pinned->schema();
  ASSERT_EQ(schema.size(), 3u);  // "V" names the file's column v: the file wins
  EXPECT_EQ(schema[1].name, "code");
  EXPECT_EQ(schema[1].type, String());
  EXPECT_EQ(schema[2].type, Bool());
  ASSERT_OK_AND_ASSIGN(RecordBatch chunk, pinned->ReadChunk(0, {}));
  EXPECT_EQ(chunk.columns[1].StringAt(0), "007");  // not 7: pinned as string

  auto wrong = WithPartitionColumns(std::make_unique<TwoChunks>(), "/z/year=twenty/p.parquet",
                                    Pairs{{"year", "twenty"}}, {{"year", "int"}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("/z/year=twenty/p.parquet: partition folder year=twenty is not a int"));

  // Nothing to add: the reader itself.
  auto inner = std::make_unique<TwoChunks>();
  formats::ChunkedReader* raw = inner.get();
  ASSERT_OK_AND_ASSIGN(auto same, WithPartitionColumns(std::move(inner), "u", Pairs{{"v", "3"}}, {}));
  EXPECT_EQ(same.get(), raw);
}

}  // namespace
}  // namespace floe::ingest
