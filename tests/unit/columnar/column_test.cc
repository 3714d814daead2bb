#include "columnar/column.h"

#include "test_util.h"

namespace floe {
namespace {

TEST(ColumnTest, AppendKeepsValidityAndCounts) {
  Column c(Int64());
  c.AppendValue<int64_t>(7);
  c.AppendNull();
  c.AppendValue<int64_t>(-3);
  EXPECT_EQ(c.length, 3);
  EXPECT_EQ(c.null_count, 1);
  EXPECT_TRUE(c.IsValid(0));
  EXPECT_TRUE(c.IsNull(1));
  EXPECT_EQ(c.Value<int64_t>(2), -3);
  EXPECT_EQ(c.Validate(), "");
}

TEST(ColumnTest, StringsUseOffsets) {
  Column c(String());
  c.AppendBytes("héllo");
  c.AppendNull();
  c.AppendBytes("");
  EXPECT_EQ(c.StringAt(0), "héllo");
  EXPECT_EQ(c.StringAt(1), "");
  EXPECT_EQ(c.StringAt(2), "");
  EXPECT_EQ(c.Validate(), "");
}

TEST(ColumnTest, ListOfInts) {
  Column c = MakeEmptyColumn(List(MakeField("element", Int32())));
  c.children[0].AppendValue<int32_t>(1);
  c.children[0].AppendValue<int32_t>(2);
  c.AppendListEnd();
  c.AppendNull();
  c.AppendListEnd();  // empty list
  EXPECT_EQ(c.length, 3);
  EXPECT_EQ(c.offsets, (std::vector<int64_t>{0, 2, 2, 2}));
  EXPECT_EQ(c.Validate(), "");
}

TEST(ColumnTest, ValidateCatchesBadOffsets) {
  Column c(String());
  c.AppendBytes("ab");
  c.offsets[1] = 10;
  EXPECT_NE(c.Validate(), "");
}

TEST(TypesTest, ToStringNamesNestedTypes) {
  DataType t = Struct({MakeField("a", Decimal(10, 2)), MakeField("b", List(MakeField("element", String())))});
  EXPECT_EQ(t.ToString(), "struct<a: decimal(10,2), b: list<string>>");
  EXPECT_EQ(Timestamp(TimeUnit::kMicro, true).ToString(), "timestamp[us, utc]");
}

}  // namespace
}  // namespace floe
