// The parsed (unbound) form of an expression of floe's SQL subset.
//
// Contract: a ParsedExpr is a tree produced by ParseExpression (parser.h);
// every node carries the 1-based character position in the expression text
// where it starts, which binder errors quote. Nodes own their children.
// Immutable after parsing; safe to share between threads read-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace floe::expr {

enum class ParsedKind : uint8_t {
  kNull,          // NULL
  kBoolean,       // TRUE / FALSE: text "true" / "false"
  kInteger,       // digits, text as written
  kDecimal,       // digits with a '.', text as written
  kFloat,         // digits with an exponent, text as written
  kString,        // '...', text unescaped
  kTypedLiteral,  // DATE '...', TIME '...', TIMESTAMP '...', TIMESTAMPTZ '...': type_name, text
  kColumn,        // path: one or more name parts (a.b.c)
  kUnary,         // op: "-", "+", "not"; children[0]
  kBinary,        // op: + - * / // % || = <> < <= > >= and or; children[0], children[1]
  kIsNull,        // children[0]; negated: IS NOT NULL
  kIn,            // children[0] IN (children[1..]); negated: NOT IN
  kBetween,       // children[0] BETWEEN children[1] AND children[2]; negated
  kLike,          // children[0] LIKE children[1] [ESCAPE children[2]]; op "like"/"ilike"; negated
  kCase,          // children: [operand?] (when, then)* [else]; has_operand, has_else
  kCast,          // CAST(children[0] AS type_name); try_cast for TRY_CAST
  kFunction,      // name(children...); name lower-cased
};

struct ParsedExpr {
  ParsedKind kind = ParsedKind::kNull;
  int32_t position = 1;           // 1-based character offset of the node's first token
  std::string text;               // literal text (see kinds) or the function name
  std::string op;                 // operator of kUnary / kBinary / kLike
  std::string type_name;          // kCast / kTypedLiteral: type as written, lower-cased
  std::vector<std::string> path;  // kColumn
  bool negated = false;
  bool has_operand = false;  // kCase: simple CASE x WHEN ...
  bool has_else = false;     // kCase
  bool try_cast = false;     // kCast
  std::vector<std::unique_ptr<ParsedExpr>> children;
};

// A readable, fully parenthesised rendering used by tests and error messages:
// "(a + 1)", "CAST(x AS decimal(10,2))", "f(a, b)".
std::string ToString(const ParsedExpr& expr);

}  // namespace floe::expr
