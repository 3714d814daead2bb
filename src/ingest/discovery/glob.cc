#include "ingest/discovery/glob.h"

#include <cstdint>
#include <vector>

namespace floe::ingest {
namespace {

enum class TokenKind {
  kLiteral,        // one given byte
  kAnyChar,        // ?
  kStar,           // *
  kDoubleStar,     // ** (path mode)
  kFoldersPrefix,  // **/ (path mode): "" or anything ending in '/'
  kSet,            // [...]
};

struct Token {
  TokenKind kind = TokenKind::kLiteral;
  char literal = 0;
  bool negated = false;
  std::vector<std::pair<unsigned char, unsigned char>> ranges;  // inclusive
};

// Parses a set starting at pattern[pos] == '['. Returns false (and leaves the
// token alone) when no closing ']' follows, so the caller treats '[' as literal.
bool ParseSet(std::string_view pattern, size_t pos, Token& token, size_t& end) {
  size_t i = pos + 1;
  Token set;
  set.kind = TokenKind::kSet;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    set.negated = true;
    ++i;
  }
  bool first = true;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == ']' && !first) {
      token = std::move(set);
      end = i + 1;
      return true;
    }
    first = false;
    if (c == '\\' && i + 1 < pattern.size()) {
      c = pattern[++i];
    }
    unsigned char low = static_cast<unsigned char>(c);
    unsigned char high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      size_t h = i + 2;
      if (pattern[h] == '\\' && h + 1 < pattern.size()) ++h;
      high = static_cast<unsigned char>(pattern[h]);
      i = h;
    }
    if (low <= high) set.ranges.emplace_back(low, high);
    ++i;
  }
  return false;
}

std::vector<Token> Compile(std::string_view pattern, GlobMode mode) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    Token token;
    if (c == '*') {
      size_t run = i;
      while (run < pattern.size() && pattern[run] == '*') ++run;
      bool double_star = run - i >= 2 && mode == GlobMode::kPath;
      i = run;
      if (!double_star) {
        token.kind = TokenKind::kStar;
      } else {
        bool at_folder_start =
            tokens.empty() || (tokens.back().kind == TokenKind::kLiteral && tokens.back().literal == '/');
        if (at_folder_start && i < pattern.size() && pattern[i] == '/') {
          token.kind = TokenKind::kFoldersPrefix;
          ++i;
        } else {
          token.kind = TokenKind::kDoubleStar;
        }
      }
      tokens.push_back(std::move(token));
      continue;
    }
    if (c == '?') {
      token.kind = TokenKind::kAnyChar;
      ++i;
    } else if (c == '[') {
      size_t end = 0;
      if (ParseSet(pattern, i, token, end)) {
        i = end;
      } else {
        token.literal = '[';
        ++i;
      }
    } else if (c == '\\' && i + 1 < pattern.size()) {
      token.literal = pattern[i + 1];
      i += 2;
    } else {
      token.literal = c;
      ++i;
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

bool SetContains(const Token& token, unsigned char c) {
  bool in = false;
  for (const auto& [low, high] : token.ranges) {
    if (c >= low && c <= high) {
      in = true;
      break;
    }
  }
  return in != token.negated;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, GlobMode mode) {
  const std::vector<Token> tokens = Compile(pattern, mode);
  const bool path_mode = mode == GlobMode::kPath;
  const size_t n = text.size();
  // next[j]: tokens[i+1..] match text[j..]; cur[j]: tokens[i..] match text[j..].
  std::vector<uint8_t> next(n + 1, 0), cur(n + 1, 0);
  next[n] = 1;
  for (size_t ti = tokens.size(); ti-- > 0;) {
    const Token& token = tokens[ti];
    cur[n] = 0;
    switch (token.kind) {
      case TokenKind::kStar:
      case TokenKind::kDoubleStar:
        cur[n] = next[n];
        for (size_t j = n; j-- > 0;) {
          bool may_consume = token.kind == TokenKind::kDoubleStar || !path_mode || text[j] != '/';
          cur[j] = next[j] || (may_consume && cur[j + 1]);
        }
        break;
      case TokenKind::kFoldersPrefix: {
        // Some k > j with text[k-1] == '/' and next[k], or the empty match.
        bool later = false;
        cur[n] = next[n];
        for (size_t j = n; j-- > 0;) {
          if (text[j] == '/' && next[j + 1]) later = true;
          cur[j] = next[j] || later;
        }
        break;
      }
      default:
        for (size_t j = 0; j < n; ++j) {
          unsigned char c = static_cast<unsigned char>(text[j]);
          bool one = false;
          if (token.kind == TokenKind::kLiteral) {
            one = text[j] == token.literal;
          } else if (path_mode && c == '/') {
            one = false;
          } else if (token.kind == TokenKind::kAnyChar) {
            one = true;
          } else {
            one = SetContains(token, c);
          }
          cur[j] = one && next[j + 1];
        }
        break;
    }
    std::swap(cur, next);
  }
  return next[0] != 0;
}

bool GlobFilterAccepts(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       std::string_view text, GlobMode mode) {
  bool included = include.empty();
  for (const std::string& pattern : include) {
    if (GlobMatch(pattern, text, mode)) {
      included = true;
      break;
    }
  }
  if (!included) return false;
  for (const std::string& pattern : exclude) {
    if (GlobMatch(pattern, text, mode)) return false;
  }
  return true;
}

}  // namespace floe::ingest
