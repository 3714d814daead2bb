// The parser of the expression language: precedence, every construct of the
// grammar, and positioned errors.
#include "expr/parser.h"

#include <string>

#include "expr/lexer.h"
#include "test_util.h"

namespace floe::expr {
namespace {

std::string Parsed(const std::string& text) {
  auto e = ParseExpression(text);
  if (!e.ok()) return "error: " + e.status().message();
  return ToString(**e);
}

TEST(ParserTest, PrecedenceFollowsSql) {
  EXPECT_EQ(Parsed("a + b * c - d"), "((a + (b * c)) - d)");
  EXPECT_EQ(Parsed("a OR b AND NOT c"), "(a OR (b AND (NOT c)))");
  EXPECT_EQ(Parsed("-a * b"), "((-a) * b)");
  EXPECT_EQ(Parsed("a || b + 1 = 'x'"), "((a || (b + 1)) = 'x')");
  EXPECT_EQ(Parsed("NOT a = b"), "(NOT (a = b))");
  EXPECT_EQ(Parsed("a % 2 // 3"), "((a % 2) // 3)");
  EXPECT_EQ(Parsed("(a + b) * c"), "((a + b) * c)");
}

TEST(ParserTest, Predicates) {
  EXPECT_EQ(Parsed("x IS NOT NULL"), "(x IS NOT NULL)");
  EXPECT_EQ(Parsed("x is null"), "(x IS NULL)");
  EXPECT_EQ(Parsed("x NOT IN (1, 2.5, 'a')"), "(x NOT IN (1, 2.5, 'a'))");
  EXPECT_EQ(Parsed("x BETWEEN 1 AND 2 AND y"), "((x BETWEEN 1 AND 2) AND y)");
  EXPECT_EQ(Parsed("s NOT ILIKE 'a!%' ESCAPE '!'"), "(s NOT ILIKE 'a!%' ESCAPE '!')");
  EXPECT_EQ(Parsed("a != b"), "(a <> b)");
}

TEST(ParserTest, LiteralsColumnsAndCalls) {
  EXPECT_EQ(Parsed("'it''s'"), "'it''s'");
  EXPECT_EQ(Parsed("DATE '2024-01-31'"), "date '2024-01-31'");
  EXPECT_EQ(Parsed("timestamptz '2024-01-31 10:00:00+02'"), "timestamptz '2024-01-31 10:00:00+02'");
  EXPECT_EQ(Parsed("a.b.\"C d\""), "a.b.C d");
  EXPECT_EQ(Parsed("\"select\" + date"), "(select + date)");  // a column named date
  EXPECT_EQ(Parsed("1.5e3 + .5 + 12"), "((1.5e3 + .5) + 12)");
  EXPECT_EQ(Parsed("CAST(x AS decimal(10, 2))"), "CAST(x AS decimal(10,2))");
  EXPECT_EQ(Parsed("TRY_CAST(x AS timestamp with time zone)"), "TRY_CAST(x AS timestamp with time zone)");
  EXPECT_EQ(Parsed("x::long"), "CAST(x AS long)");
  EXPECT_EQ(Parsed("COALESCE(a, NULL, 1)"), "coalesce(a, NULL, 1)");
  EXPECT_EQ(Parsed("current_timestamp"), "current_timestamp");
  EXPECT_EQ(Parsed("ingestion_time()"), "ingestion_time()");
  EXPECT_EQ(Parsed("x -- a comment\n + 1"), "(x + 1)");
}

TEST(ParserTest, CaseForms) {
  EXPECT_EQ(Parsed("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END"),
            "CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END");
  EXPECT_EQ(Parsed("case c when 'EUR' then 1.09 end"), "CASE c WHEN 'EUR' THEN 1.09 END");
}

TEST(ParserTest, ErrorsGiveThePositionAndWhatWasExpected) {
  EXPECT_EQ(Parsed("a +"), "error: position 4: expected an expression, found end of input");
  EXPECT_EQ(Parsed("a b"), "error: position 3: expected an operator or the end of the expression, found 'b'");
  EXPECT_EQ(Parsed("(a + 1"), "error: position 7: expected ')', found end of input");
  EXPECT_EQ(Parsed("CASE WHEN a THEN 1"), "error: position 19: expected END, found end of input");
  EXPECT_EQ(Parsed("CASE END"), "error: position 6: expected WHEN, found 'END'");
  EXPECT_EQ(Parsed("x NOT 1"),
            "error: position 3: expected an operator or the end of the expression, found 'NOT'");
  EXPECT_EQ(Parsed("'abc"), "error: position 1: string is not closed (expected ')");
  EXPECT_EQ(Parsed("a ; b"), "error: position 3: unexpected character ';'");
  EXPECT_EQ(Parsed("12abc"), "error: position 3: expected an operator after the number '12'");
  EXPECT_EQ(Parsed("CAST(x AS)"), "error: position 10: expected a type name, found ')'");
  EXPECT_EQ(Parsed("a = b = c"),
            "error: position 7: expected an operator or the end of the expression, found '='");
  EXPECT_EQ(Parsed("and"), "error: position 1: expected an expression, found 'and'");
}

TEST(ParserTest, PositionsCountCharactersNotBytes) {
  EXPECT_EQ(Parsed("'héllo' +"), "error: position 10: expected an expression, found end of input");
}

TEST(ParserTest, DeepNestingIsRefusedNotACrash) {
  std::string deep(100000, '(');
  EXPECT_NE(Parsed(deep).find("nested deeper than"), std::string::npos);
  std::string minus;
  for (int i = 0; i < 50000; ++i) minus += "-+";  // "--" would start a comment
  EXPECT_NE(Parsed(minus + "1").find("nested deeper than"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 10000; ++i) nots += "NOT ";
  EXPECT_NE(Parsed(nots + "x").find("nested deeper than"), std::string::npos);
  std::string ok;
  for (int i = 0; i < 150; ++i) ok += "(";
  ok += "1";
  for (int i = 0; i < 150; ++i) ok += ")";
  EXPECT_EQ(Parsed(ok), "1");
}

TEST(LexerTest, QuotedIdentifiersAndStringsUnescape) {
  auto tokens = Tokenize("\"a\"\"b\" 'c''d'");
  ASSERT_TRUE(tokens.ok());
  ASSERT_EQ(tokens->size(), 3u);
  EXPECT_EQ((*tokens)[0].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ((*tokens)[0].text, "a\"b");
  EXPECT_EQ((*tokens)[1].kind, TokenKind::kString);
  EXPECT_EQ((*tokens)[1].text, "c'd");
  EXPECT_EQ((*tokens)[1].position, 8);
}

}  // namespace
}  // namespace floe::expr
