// The binder: column resolution, result types by SQL's (DuckDB's) rules,
// and type errors at bind time naming the position and the column.
#include "expr/binder.h"

#include <string>

#include "expr/expr_types.h"
#include "expr/expression.h"
#include "test_util.h"

namespace floe::expr {
namespace {

Schema TestSchema() {
  return {MakeField("id", Int64()),
          MakeField("n", Int32()),
          MakeField("small", Int16()),
          MakeField("amount", Decimal(18, 2)),
          MakeField("rate", Decimal(9, 4)),
          MakeField("x", Float64()),
          MakeField("f", Float32()),
          MakeField("s", String()),
          MakeField("Name", String()),
          MakeField("d", Date()),
          MakeField("ts", Timestamp(TimeUnit::kMicro, false)),
          MakeField("tz", Timestamp(TimeUnit::kMicro, true)),
          MakeField("ms", Timestamp(TimeUnit::kMilli, true)),
          MakeField("ok", Bool()),
          MakeField("u", Uuid()),
          MakeField("payload", Struct({MakeField("city", String()), MakeField("zip", Int32())})),
          MakeField("tags", List(MakeField("element", String())))};
}

std::string TypeOf(const std::string& text) {
  auto e = Expression::Bind(text, TestSchema());
  if (!e.ok()) return "error: " + e.status().message();
  return TypeName(e->type());
}

TEST(BinderTest, ArithmeticTypesFollowDuckDB) {
  EXPECT_EQ(TypeOf("n + n"), "int");
  EXPECT_EQ(TypeOf("n + id"), "long");
  EXPECT_EQ(TypeOf("small + 1"), "int");  // narrow integers are read as int
  EXPECT_EQ(TypeOf("n / n"), "double");
  EXPECT_EQ(TypeOf("n // 2"), "int");
  EXPECT_EQ(TypeOf("f + n"), "float");
  EXPECT_EQ(TypeOf("f + amount"), "float");
  EXPECT_EQ(TypeOf("x + amount"), "double");
  EXPECT_EQ(TypeOf("1 + 1.5"), "decimal(12,1)");
  EXPECT_EQ(TypeOf("id + 1.5"), "decimal(21,1)");
  EXPECT_EQ(TypeOf("amount - rate"), "decimal(21,4)");
  EXPECT_EQ(TypeOf("amount * 2"), "decimal(28,2)");
  EXPECT_EQ(TypeOf("amount * rate"), "decimal(27,6)");
  EXPECT_EQ(TypeOf("amount % rate"), "decimal(20,4)");
  EXPECT_EQ(TypeOf("3000000000"), "long");
  EXPECT_EQ(TypeOf("0.5"), "decimal(2,1)");
  EXPECT_EQ(TypeOf("1.09"), "decimal(3,2)");
  EXPECT_EQ(TypeOf("1e3"), "double");
}

TEST(BinderTest, DecimalDivisionKeepsADecimalAsSparkDoes) {
  // DuckDB returns double here; floe keeps exact decimals (documented).
  // scale max(6, s1 + p2 + 1), precision p1 - s1 + s2 + scale.
  EXPECT_EQ(TypeOf("amount / rate"), "decimal(32,12)");
  EXPECT_EQ(TypeOf("amount / 2"), "decimal(29,13)");
  EXPECT_EQ(TypeOf("rate / 3.0"), "decimal(13,7)");
  // Above 38 digits the scale gives way, down to 6: (38,10) / (38,10).
  EXPECT_EQ(TypeOf("CAST(x AS decimal(38,10)) / CAST(x AS decimal(38,10))"), "decimal(38,6)");
}

TEST(BinderTest, ComparisonsMeetAtACommonType) {
  EXPECT_EQ(TypeOf("amount > 0"), "boolean");
  EXPECT_EQ(TypeOf("d < ts"), "boolean");
  EXPECT_EQ(TypeOf("ts = tz"), "boolean");
  EXPECT_EQ(TypeOf("ts > '2024-01-01 10:00'"), "boolean");
  EXPECT_EQ(TypeOf("u = 'f79c3e09-677c-4bbd-a479-3f349cb785e7'"), "boolean");
  EXPECT_EQ(TypeOf("n IN (1, 2.5, NULL)"), "boolean");
  EXPECT_EQ(TypeOf("x BETWEEN 0 AND amount"), "boolean");
  EXPECT_EQ(TypeOf("coalesce(n, 2.5)"), "decimal(11,1)");
  EXPECT_EQ(TypeOf("CASE WHEN ok THEN 1 ELSE 2.5 END"), "decimal(11,1)");
  EXPECT_EQ(TypeOf("coalesce(ts, tz)"), "timestamptz");
  EXPECT_EQ(TypeOf("nullif(n, 0)"), "int");
}

TEST(BinderTest, FunctionTypes) {
  EXPECT_EQ(TypeOf("length(s)"), "long");
  EXPECT_EQ(TypeOf("upper(s) || n"), "string");
  EXPECT_EQ(TypeOf("substr(s, 2, 3)"), "string");
  EXPECT_EQ(TypeOf("concat(s, n, amount, d)"), "string");
  EXPECT_EQ(TypeOf("regexp_matches(s, '^a.*', 'i')"), "boolean");
  EXPECT_EQ(TypeOf("date_trunc('month', d)"), "timestamp");
  EXPECT_EQ(TypeOf("date_trunc('hour', tz)"), "timestamptz");
  EXPECT_EQ(TypeOf("year(d) + month(ts) + day(tz) + hour(ts)"), "long");
  EXPECT_EQ(TypeOf("to_date(ts)"), "date");
  EXPECT_EQ(TypeOf("to_date('2024-01-31')"), "date");
  EXPECT_EQ(TypeOf("current_timestamp"), "timestamptz");
  EXPECT_EQ(TypeOf("ingestion_time()"), "timestamptz");
  EXPECT_EQ(TypeOf("source_file()"), "string");
  EXPECT_EQ(TypeOf("source_row()"), "long");
  EXPECT_EQ(TypeOf("ms"), "timestamptz");  // milliseconds are read as microseconds
  EXPECT_EQ(TypeOf("CAST(amount AS long)"), "long");
  EXPECT_EQ(TypeOf("CAST(s AS decimal(10,2))"), "decimal(10,2)");
  EXPECT_EQ(TypeOf("CAST(s AS numeric)"), "decimal(18,3)");
}

TEST(BinderTest, ColumnsResolveExactlyThenIgnoringCase) {
  EXPECT_EQ(TypeOf("NAME || ID"), "string");
  EXPECT_EQ(TypeOf("\"Name\""), "string");
  EXPECT_EQ(TypeOf("payload.city"), "string");
  EXPECT_EQ(TypeOf("PAYLOAD.Zip + 1"), "int");
  EXPECT_EQ(TypeOf("payload IS NULL"), "boolean");
  EXPECT_EQ(TypeOf("tags"), "list<string>");
  // An exact match wins over a case-insensitive one.
  Schema twins = {MakeField("a", Int32()), MakeField("A", Int64())};
  auto exact = Expression::Bind("A", twins);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->type(), Int64());
  auto unique = Expression::Bind("x + 1", {MakeField("X", Int32())});
  ASSERT_TRUE(unique.ok());
  EXPECT_EQ(unique->input_columns(), (std::vector<int>{0}));
  auto truly = Expression::Bind("key", {MakeField("KEY", Int32()), MakeField("Key", Int32())});
  ASSERT_FALSE(truly.ok());
  EXPECT_EQ(truly.status().message(),
            "expression \"key\": position 1: column name 'key' is ambiguous: 'KEY' and 'Key' (quote the "
            "exact name)");
}

TEST(BinderTest, TypeErrorsNameTheExpressionPositionAndColumn) {
  EXPECT_EQ(TypeOf("s > 1"),
            "error: expression \"s > 1\": position 3: cannot compare string column 's' and int constant "
            "(no common type; use CAST)");
  EXPECT_EQ(TypeOf("amount > 'abc'"),
            "error: expression \"amount > 'abc'\": position 10: 'abc' is not a value of type decimal(18,2)");
  EXPECT_EQ(TypeOf("id + s"),
            "error: expression \"id + s\": position 6: operator + needs numbers, found string column 's'");
  EXPECT_EQ(TypeOf("n AND ok"),
            "error: expression \"n AND ok\": position 1: AND needs a boolean, found int column 'n'");
  EXPECT_EQ(TypeOf("nope = 1"),
            "error: expression \"nope = 1\": position 1: no column named 'nope' (columns: id, n, small, "
            "amount, rate, x, "
            "f, s, Name, d, ts, tz, ms, ok, u, payload, tags)");
  EXPECT_EQ(TypeOf("payload.nope"),
            "error: expression \"payload.nope\": position 1: no column named 'nope' in struct 'payload' "
            "(columns: city, "
            "zip)");
  EXPECT_EQ(TypeOf("id.x"),
            "error: expression \"id.x\": position 1: 'id' is a long, not a struct with member 'x'");
  EXPECT_EQ(TypeOf("tags || 'x'"),
            "error: expression \"tags || 'x'\": position 1: operator || cannot use list<string> column "
            "'tags' (a nested value)");
  EXPECT_EQ(TypeOf("lower(n)"),
            "error: expression \"lower(n)\": position 7: lower() needs a string, found int column 'n'");
  EXPECT_EQ(TypeOf("substr(s)"),
            "error: expression \"substr(s)\": position 1: substr() takes 2 to 3 arguments, found 1");
  EXPECT_EQ(TypeOf("frobnicate(s)"),
            "error: expression \"frobnicate(s)\": position 1: unknown function frobnicate()");
  EXPECT_EQ(TypeOf("date_trunc('fortnight', ts)"),
            "error: expression \"date_trunc('fortnight', ts)\": position 12: date_trunc() part 'fortnight' "
            "is not one of "
            "year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, decade, "
            "century, millennium");
  EXPECT_EQ(
      TypeOf("regexp_matches(s, '(')"),
      "error: expression \"regexp_matches(s, '(')\": position 19: bad regular expression '(': missing ): (");
  EXPECT_EQ(TypeOf("regexp_matches(s, s)"),
            "error: expression \"regexp_matches(s, s)\": position 19: the pattern of regexp_matches() must "
            "be a constant "
            "string");
  EXPECT_EQ(TypeOf("CAST(d AS int)"),
            "error: expression \"CAST(d AS int)\": position 1: cannot CAST date column 'd' to int");
  EXPECT_EQ(TypeOf("CAST(n AS money)"),
            "error: expression \"CAST(n AS money)\": position 1: unknown type 'money' (expected boolean, "
            "int, long, float, "
            "double, decimal(p,s), date, time, timestamp, timestamptz, string, uuid or binary)");
  EXPECT_EQ(TypeOf("DATE '2024-02-30'"),
            "error: expression \"DATE '2024-02-30'\": position 1: '2024-02-30' is not a value of type date");
  EXPECT_EQ(TypeOf("s LIKE 'a\\' ESCAPE '\\'"),
            "error: expression \"s LIKE 'a\\' ESCAPE '\\'\": position 8: LIKE pattern 'a\\' ends with its "
            "escape character");
  EXPECT_EQ(TypeOf("CASE WHEN ok THEN s ELSE n END"),
            "error: expression \"CASE WHEN ok THEN s ELSE n END\": position 26: cannot combine CASE results "
            "string column 's' "
            "and int column 'n' (no common type; use CAST)");
  EXPECT_EQ(TypeOf("n // 1.5"),
            "error: expression \"n // 1.5\": position 3: operator // needs integers, found int column 'n' "
            "and decimal(2,1) constant");
}

TEST(BinderTest, InputColumnsAreListedOnce) {
  auto e = Expression::Bind("amount * 2 > x AND s LIKE 'a%' AND amount > 0", TestSchema());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->input_columns(), (std::vector<int>{3, 5, 7}));
}

}  // namespace
}  // namespace floe::expr
