// SortBatch: ascending, nulls first, NaN last, stable, several keys, and
// refusal of unknown or nested sort columns.
#include "maintenance/row_sort.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace floe::maintenance {
namespace {

RecordBatch MakeBatch() {
  RecordBatch batch;
  batch.schema = {Field{"name", String(), true, 1}, Field{"score", Float64(), true, 2},
                  Field{"seq", Int64(), true, 3}};
  Column name(String()), score(Float64()), seq(Int64());
  const char* names[] = {"b", "a", nullptr, "b", "a", "c"};
  const double scores[] = {2.0, std::numeric_limits<double>::quiet_NaN(), 1.0, -1.0, 3.0, 0.5};
  for (int i = 0; i < 6; ++i) {
    if (names[i] == nullptr) {
      name.AppendNull();
    } else {
      name.AppendBytes(names[i]);
    }
    if (i == 5) {
      score.AppendNull();
    } else {
      score.AppendValue<double>(scores[i]);
    }
    seq.AppendValue<int64_t>(i);
  }
  batch.columns = {name, score, seq};
  batch.num_rows = 6;
  return batch;
}

std::vector<int64_t> Seq(const RecordBatch& batch) {
  std::vector<int64_t> out;
  for (int64_t r = 0; r < batch.num_rows; ++r) out.push_back(batch.columns[2].Value<int64_t>(r));
  return out;
}

TEST(RowSortTest, StringsNullsFirstAndStable) {
  ASSERT_OK_AND_ASSIGN(RecordBatch sorted, SortBatch(MakeBatch(), {"name"}));
  EXPECT_EQ(Seq(sorted), (std::vector<int64_t>{2, 1, 4, 0, 3, 5}));
  EXPECT_TRUE(sorted.columns[0].IsNull(0));
  EXPECT_EQ(sorted.columns[0].StringAt(1), "a");
}

TEST(RowSortTest, FloatsNumericallyWithNaNLast) {
  ASSERT_OK_AND_ASSIGN(RecordBatch sorted, SortBatch(MakeBatch(), {"score"}));
  EXPECT_EQ(Seq(sorted), (std::vector<int64_t>{5, 3, 2, 0, 4, 1}));
}

TEST(RowSortTest, SecondKeyBreaksTies) {
  ASSERT_OK_AND_ASSIGN(RecordBatch sorted, SortBatch(MakeBatch(), {"name", "score"}));
  // a: NaN (1) after 3.0 (4); b: -1 (3) before 2 (0).
  EXPECT_EQ(Seq(sorted), (std::vector<int64_t>{2, 4, 1, 3, 0, 5}));
}

TEST(RowSortTest, UnknownAndNestedColumnsAreRefused) {
  EXPECT_EQ(SortBatch(MakeBatch(), {"missing"}).status().kind(), ErrorKind::kInvalidArgument);
  Schema nested = {Field{"s", Struct({Field{"x", Int32(), true, 2}}), true, 1}};
  EXPECT_EQ(CheckSortColumn(nested, "s").kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(RecordBatch same, SortBatch(MakeBatch(), {}));
  EXPECT_EQ(Seq(same), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace floe::maintenance
