#include "common/text_table.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(TextTableTest, ColumnsAlignOnTheirWidestCellWithNumbersOnTheRight) {
  const std::vector<std::vector<std::string>> rows = {
      {"partition", "lag", "note"}, {"orders[0]", "7", "slow"}, {"t[12]", "1234", ""}};
  EXPECT_EQ(FormatTextTable(rows, [](size_t column) { return column == 1; }),
            "partition   lag  note\n"
            "orders[0]     7  slow\n"
            "t[12]      1234\n");
  EXPECT_EQ(FormatTextTable(rows),
            "partition  lag   note\n"
            "orders[0]  7     slow\n"
            "t[12]      1234\n");
  EXPECT_EQ(FormatTextTable({}), "");
}

}  // namespace
}  // namespace floe
