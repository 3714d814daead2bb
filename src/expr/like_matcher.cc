#include "expr/like_matcher.h"

namespace floe::expr {
namespace {

// Bytes of the UTF-8 sequence starting with `lead` (1 for invalid leads, so
// every byte is consumed once).
size_t SequenceLength(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF8) return 4;
  return 1;
}

}  // namespace

Result<LikeMatcher> LikeMatcher::Compile(std::string_view pattern, std::string_view escape) {
  if (escape.size() > 1) {
    return Status::InvalidArgument("the ESCAPE of LIKE must be one character, found '" + std::string(escape) +
                                   "'");
  }
  LikeMatcher m;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (!escape.empty() && c == escape[0]) {
      if (i + 1 >= pattern.size()) {
        return Status::InvalidArgument("LIKE pattern '" + std::string(pattern) +
                                       "' ends with its escape character");
      }
      ++i;
      if (m.pieces_.empty() || m.pieces_.back().kind != Piece::kLiteral)
        m.pieces_.push_back({Piece::kLiteral, ""});
      m.pieces_.back().literal.push_back(pattern[i]);
    } else if (c == '%') {
      if (m.pieces_.empty() || m.pieces_.back().kind != Piece::kAnyRun)
        m.pieces_.push_back({Piece::kAnyRun, ""});
    } else if (c == '_') {
      m.pieces_.push_back({Piece::kAnyOne, ""});
    } else {
      if (m.pieces_.empty() || m.pieces_.back().kind != Piece::kLiteral)
        m.pieces_.push_back({Piece::kLiteral, ""});
      m.pieces_.back().literal.push_back(c);
    }
  }
  const auto& p = m.pieces_;
  auto is = [&](size_t i, Piece::Kind k) { return p[i].kind == k; };
  if (p.empty()) {
    m.shape_ = Shape::kExact;
  } else if (p.size() == 1 && is(0, Piece::kLiteral)) {
    m.shape_ = Shape::kExact;
    m.literal_ = p[0].literal;
  } else if (p.size() == 2 && is(0, Piece::kLiteral) && is(1, Piece::kAnyRun)) {
    m.shape_ = Shape::kPrefix;
    m.literal_ = p[0].literal;
  } else if (p.size() == 2 && is(0, Piece::kAnyRun) && is(1, Piece::kLiteral)) {
    m.shape_ = Shape::kSuffix;
    m.literal_ = p[1].literal;
  } else if (p.size() == 3 && is(0, Piece::kAnyRun) && is(1, Piece::kLiteral) && is(2, Piece::kAnyRun)) {
    m.shape_ = Shape::kContains;
    m.literal_ = p[1].literal;
  } else if (p.size() == 1 && is(0, Piece::kAnyRun)) {
    m.shape_ = Shape::kPrefix;  // '%': any text, an empty prefix
  }
  return m;
}

bool LikeMatcher::Matches(std::string_view text) const {
  switch (shape_) {
    case Shape::kExact: return text == literal_;
    case Shape::kPrefix: return text.substr(0, literal_.size()) == literal_;
    case Shape::kSuffix:
      return text.size() >= literal_.size() && text.substr(text.size() - literal_.size()) == literal_;
    case Shape::kContains: return text.find(literal_) != std::string_view::npos;
    case Shape::kGeneral: break;
  }
  // Greedy matcher with one backtrack point (the last %): linear per
  // retry, so O(text * pattern) at worst, without recursion.
  size_t t = 0, p = 0;
  size_t star_piece = SIZE_MAX, star_text = 0;
  while (true) {
    if (p < pieces_.size()) {
      const Piece& piece = pieces_[p];
      if (piece.kind == Piece::kAnyRun) {
        star_piece = p++;
        star_text = t;
        continue;
      }
      if (piece.kind == Piece::kAnyOne && t < text.size()) {
        t += SequenceLength(static_cast<unsigned char>(text[t]));
        if (t > text.size()) t = text.size();
        ++p;
        continue;
      }
      if (piece.kind == Piece::kLiteral && text.substr(t, piece.literal.size()) == piece.literal) {
        t += piece.literal.size();
        ++p;
        continue;
      }
    } else if (t == text.size()) {
      return true;
    }
    if (star_piece == SIZE_MAX || star_text >= text.size()) return false;
    // Let the last % absorb one more character and retry after it.
    star_text += SequenceLength(static_cast<unsigned char>(text[star_text]));
    if (star_text > text.size()) star_text = text.size();
    t = star_text;
    p = star_piece + 1;
  }
}

}  // namespace floe::expr
