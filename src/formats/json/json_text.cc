#include "formats/json/json_text.h"

namespace floe::json {
namespace {

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool IsDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

}  // namespace

std::string_view TrimJsonToken(std::string_view token) {
  while (!token.empty() && IsJsonSpace(token.back())) token.remove_suffix(1);
  return token;
}

bool IsJsonNumber(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  if (i < n && text[i] == '-') ++i;
  if (i >= n) return false;
  if (text[i] == '0') {
    ++i;
  } else if (IsDigit(text[i])) {
    while (i < n && IsDigit(text[i])) ++i;
  } else {
    return false;
  }
  if (i < n && text[i] == '.') {
    ++i;
    if (i >= n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    if (i >= n || !IsDigit(text[i])) return false;
    while (i < n && IsDigit(text[i])) ++i;
  }
  return i == n;
}

size_t JsonValueExtent(std::string_view text) {
  if (text.empty()) return 0;
  const char first = text[0];
  if (first == '"') {
    for (size_t i = 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        return i + 1;
      }
    }
    return text.size();
  }
  if (first == '{' || first == '[') {
    size_t depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
        }
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return text.size();
  }
  size_t i = 0;
  while (i < text.size() && !IsJsonSpace(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
         text[i] != '{' && text[i] != '[' && text[i] != '"' && text[i] != ':') {
    ++i;
  }
  return i;
}

}  // namespace floe::json
