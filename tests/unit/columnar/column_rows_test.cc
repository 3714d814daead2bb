// Row selection on columns: TakeRows / TakeBatchRows with nested children,
// SliceBatch and ConcatBatches.
#include "columnar/column_rows.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace floe {
namespace {

// Rows: id i, name names[i % 3], score (NaN at 1, null at 2), tags with i elements.
RecordBatch TestBatch(int rows) {
  RecordBatch batch;
  batch.schema = {MakeField("id", Int64(), false), MakeField("name", String()), MakeField("score", Float64()),
                  MakeField("tags", List(MakeField("element", String(), false)))};
  for (const Field& f : batch.schema) batch.columns.push_back(MakeEmptyColumn(f.type));
  batch.num_rows = rows;
  const std::vector<std::string> names = {"alpha", "beta", "zulu"};
  for (int i = 0; i < rows; ++i) {
    batch.columns[0].AppendValue<int64_t>(i);
    batch.columns[1].AppendBytes(names[static_cast<size_t>(i) % names.size()]);
    if (i == 2) {
      batch.columns[2].AppendNull();
    } else {
      batch.columns[2].AppendValue<double>(i == 1 ? std::nan("") : 0.5 * i);
    }
    Column& tags = batch.columns[3];
    for (int k = 0; k < i; ++k) tags.children[0].AppendBytes("tag" + std::to_string(k));
    tags.AppendListEnd();
  }
  return batch;
}

TEST(ColumnRowsTest, TakesNestedRows) {
  RecordBatch batch = TestBatch(4);
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, TakeBatchRows(batch, {3, 1, 2}));
  EXPECT_EQ(taken.num_rows, 3);
  for (const Column& c : taken.columns) EXPECT_EQ(c.Validate(), "");
  EXPECT_EQ(taken.columns[1].StringAt(0), "alpha");
  EXPECT_EQ(taken.columns[3].offsets, (std::vector<int64_t>{0, 3, 4, 6}));
  EXPECT_EQ(taken.columns[3].children[0].StringAt(3), "tag0");
  EXPECT_TRUE(taken.columns[2].IsNull(2));
  EXPECT_EQ(TakeRows(batch.columns[0], {4}).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(ColumnRowsTest, SlicesAndConcatenatesBackToTheBatch) {
  RecordBatch batch = TestBatch(5);
  ASSERT_OK_AND_ASSIGN(RecordBatch head, SliceBatch(batch, 0, 2));
  ASSERT_OK_AND_ASSIGN(RecordBatch tail, SliceBatch(batch, 2, 5));
  EXPECT_EQ(head.num_rows, 2);
  EXPECT_EQ(tail.num_rows, 3);
  ASSERT_OK_AND_ASSIGN(RecordBatch whole, ConcatBatches({head, tail}));
  ASSERT_EQ(whole.num_rows, 5);
  for (size_t c = 0; c < whole.columns.size(); ++c) {
    EXPECT_EQ(whole.columns[c].Validate(), "") << c;
    EXPECT_EQ(whole.columns[c].validity.empty() ? 0 : whole.columns[c].null_count,
              batch.columns[c].null_count);
  }
  EXPECT_EQ(whole.columns[3].offsets, batch.columns[3].offsets);
  EXPECT_EQ(whole.columns[1].StringAt(4), "beta");
  EXPECT_TRUE(whole.columns[2].IsNull(2));
}

}  // namespace
}  // namespace floe
