// SQL LIKE patterns: % matches any run of characters, _ exactly one
// character (a UTF-8 code point), the escape character makes the next one
// literal.
//
// Contract: Compile checks the pattern (an escape at its end is an error,
// as in DuckDB) and classifies it so the common shapes ('abc', 'abc%',
// '%abc', '%abc%') match with one comparison or search; other patterns use
// an iterative matcher with backtracking bounded by O(text * pattern).
// A compiled matcher is immutable and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::expr {

class LikeMatcher {
 public:
  // `escape` is empty (no escape character) or one character.
  static Result<LikeMatcher> Compile(std::string_view pattern, std::string_view escape);

  bool Matches(std::string_view text) const;

 private:
  enum class Shape { kExact, kPrefix, kSuffix, kContains, kGeneral };
  struct Piece {
    enum Kind { kLiteral, kAnyOne, kAnyRun } kind;
    std::string literal;
  };
  Shape shape_ = Shape::kGeneral;
  std::string literal_;  // for the simple shapes
  std::vector<Piece> pieces_;
};

}  // namespace floe::expr
