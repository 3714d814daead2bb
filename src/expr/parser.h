// Parser of floe's SQL expression subset (docs/expressions.md has the grammar).
//
// Contract: ParseExpression turns text into a ParsedExpr tree or returns an
// InvalidArgument "position N: expected X, found Y" (1-based character
// position). Nesting is bounded (kMaxDepth) so hostile text cannot exhaust
// the stack; text longer than kMaxLength is refused. Stateless, thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "common/status.h"
#include "expr/ast.h"

namespace floe::expr {

constexpr int kMaxDepth = 200;
constexpr size_t kMaxLength = 1 << 20;

Result<std::unique_ptr<ParsedExpr>> ParseExpression(std::string_view text);

}  // namespace floe::expr
