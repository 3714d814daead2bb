// String functions of the expression language: length, lower, upper, trim,
// ltrim, rtrim, substr, concat, ||, LIKE / ILIKE and regexp_matches.
//
// Contract: strings are UTF-8 and functions count and slice code points, as
// DuckDB does (docs/expressions.md, "Strings"): length counts code points;
// lower/upper map each code point with utf8proc's simple case mapping;
// trim(s) removes spaces (U+0020) only, trim(s, chars) any of the code points
// in chars; substr(s, start[, length]) follows DuckDB's rules for a zero or
// negative start and a negative length; concat skips nulls (all null gives
// ''), || is null when either side is; regexp_matches is RE2's partial match.
// Invalid UTF-8 bytes are kept as they are and count as one character each.
// Thread-safe over distinct outputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "expr/bound_expr.h"
#include "expr/vector.h"

namespace floe::expr {

std::string Utf8Lower(std::string_view text);
std::string Utf8Upper(std::string_view text);

Result<Vector> EvalStringFunction(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                                  const EvalScope& scope);

// LIKE / ILIKE (e.kind == kLike): args are text, pattern and maybe escape.
Result<Vector> EvalLike(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                        const EvalScope& scope);

}  // namespace floe::expr
