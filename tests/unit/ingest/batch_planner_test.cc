// PlanBatches: order kept, file and byte limits, oversized files alone.
#include "ingest/batch_planner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace floe::ingest {
namespace {

std::vector<SourceUnit> Files(const std::vector<int64_t>& sizes) {
  std::vector<SourceUnit> files;
  for (size_t i = 0; i < sizes.size(); ++i) {
    SourceUnit f;
    f.uri = "f" + std::to_string(i);
    f.size = sizes[i];
    files.push_back(f);
  }
  return files;
}

// Batches rendered as "f0 f1|f2" to compare whole plans at once.
std::string Render(const std::vector<std::vector<SourceUnit>>& batches) {
  std::string out;
  for (size_t b = 0; b < batches.size(); ++b) {
    if (b > 0) out += "|";
    for (size_t i = 0; i < batches[b].size(); ++i) out += (i > 0 ? " " : "") + batches[b][i].uri;
  }
  return out;
}

TEST(BatchPlannerTest, EmptyInputHasNoBatches) {
  EXPECT_TRUE(PlanBatches({}, {10, 100}).empty());
}

TEST(BatchPlannerTest, NoLimitsMakeOneBatch) {
  EXPECT_EQ(Render(PlanBatches(Files({5, 6, 7}), {0, 0})), "f0 f1 f2");
  EXPECT_EQ(Render(PlanBatches(Files({5, 6, 7}), {-1, -1})), "f0 f1 f2");
}

TEST(BatchPlannerTest, FileLimit) {
  EXPECT_EQ(Render(PlanBatches(Files({1, 1, 1, 1, 1}), {2, 0})), "f0 f1|f2 f3|f4");
  EXPECT_EQ(Render(PlanBatches(Files({1, 1, 1}), {1, 0})), "f0|f1|f2");
  EXPECT_EQ(Render(PlanBatches(Files({1, 1, 1}), {3, 0})), "f0 f1 f2");
}

TEST(BatchPlannerTest, ByteLimitIsNeverExceededByASum) {
  // 40+50 = 90 <= 100; adding 30 would make 120.
  EXPECT_EQ(Render(PlanBatches(Files({40, 50, 30, 60, 10}), {0, 100})), "f0 f1|f2 f3 f4");
  // Exactly at the limit closes the batch.
  EXPECT_EQ(Render(PlanBatches(Files({50, 50, 1}), {0, 100})), "f0 f1|f2");
}

TEST(BatchPlannerTest, OversizedFileIsItsOwnBatch) {
  EXPECT_EQ(Render(PlanBatches(Files({10, 500, 10, 10}), {0, 100})), "f0|f1|f2 f3");
  EXPECT_EQ(Render(PlanBatches(Files({500, 600}), {0, 100})), "f0|f1");
}

TEST(BatchPlannerTest, BothLimitsTogether) {
  EXPECT_EQ(Render(PlanBatches(Files({10, 10, 10, 90, 5, 5}), {3, 100})), "f0 f1 f2|f3 f4 f5");
  EXPECT_EQ(Render(PlanBatches(Files({10, 10, 10, 95, 5, 5}), {3, 100})), "f0 f1 f2|f3 f4|f5");
}

TEST(BatchPlannerTest, HugeAndNegativeSizesDoNotOverflow) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Render(PlanBatches(Files({huge, huge, 1}), {0, huge})), "f0|f1|f2");
  EXPECT_EQ(Render(PlanBatches(Files({huge, huge}), {0, 0})), "f0 f1");
  EXPECT_EQ(Render(PlanBatches(Files({-5, 60, 50}), {0, 100})), "f0 f1|f2");
}

TEST(BatchPlannerTest, KeepsTheGivenOrderAndEveryFileOnce) {
  std::vector<SourceUnit> files = Files({7, 3, 9, 1, 4, 8, 2, 6, 5});
  auto batches = PlanBatches(files, {2, 12});
  std::vector<std::string> flattened;
  for (const auto& batch : batches) {
    EXPECT_FALSE(batch.empty());
    EXPECT_LE(batch.size(), 2u);
    int64_t bytes = 0;
    for (const auto& f : batch) {
      flattened.push_back(f.uri);
      bytes += f.size;
    }
    EXPECT_TRUE(bytes <= 12 || batch.size() == 1);
  }
  ASSERT_EQ(flattened.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) EXPECT_EQ(flattened[i], files[i].uri);
}

}  // namespace
}  // namespace floe::ingest
