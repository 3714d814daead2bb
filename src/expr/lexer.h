// Tokens of floe's expression language.
//
// Contract: Tokenize splits an expression into tokens, each with its 1-based
// character position (UTF-8 code points counted, so positions match what a
// user sees). It never reads past the text and rejects unterminated quotes
// and stray bytes with a positioned InvalidArgument. Stateless, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::expr {

enum class TokenKind : uint8_t {
  kEnd,
  kIdentifier,        // unquoted: text as written; keywords are identifiers too
  kQuotedIdentifier,  // "..." with "" unescaped
  kString,            // '...' with '' unescaped
  kNumber,            // 12, 1.5, .5, 1e-3
  kSymbol,            // ( ) , . + - * / // % || = <> != < <= > >= ::
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  int32_t position = 1;
};

Result<std::vector<Token>> Tokenize(std::string_view text);

// "'x'", "identifier abc", "end of input": how errors name a token.
std::string DescribeToken(const Token& token);

}  // namespace floe::expr
