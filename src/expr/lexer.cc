#include "expr/lexer.h"

#include <cctype>

namespace floe::expr {
namespace {

bool IsIdentifierStart(unsigned char c) {
  return std::isalpha(c) || c == '_' || c >= 0x80;
}
bool IsIdentifierPart(unsigned char c) {
  return IsIdentifierStart(c) || std::isdigit(c) || c == '$';
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpace();
      Token token;
      token.position = position_;
      if (at_ >= text_.size()) {
        tokens.push_back(std::move(token));
        return tokens;
      }
      const unsigned char c = static_cast<unsigned char>(text_[at_]);
      if (IsIdentifierStart(c)) {
        token.kind = TokenKind::kIdentifier;
        const size_t begin = at_;
        while (at_ < text_.size() && IsIdentifierPart(static_cast<unsigned char>(text_[at_]))) Advance();
        token.text = std::string(text_.substr(begin, at_ - begin));
      } else if (std::isdigit(c) || (c == '.' && at_ + 1 < text_.size() && std::isdigit(Byte(at_ + 1)))) {
        token.kind = TokenKind::kNumber;
        FLOE_ASSIGN_OR_RETURN(token.text, Number());
      } else if (c == '\'' || c == '"') {
        token.kind = c == '\'' ? TokenKind::kString : TokenKind::kQuotedIdentifier;
        FLOE_ASSIGN_OR_RETURN(token.text, Quoted(static_cast<char>(c)));
      } else {
        token.kind = TokenKind::kSymbol;
        FLOE_ASSIGN_OR_RETURN(token.text, Symbol());
      }
      tokens.push_back(std::move(token));
    }
  }

 private:
  unsigned char Byte(size_t i) const { return static_cast<unsigned char>(text_[i]); }

  void Advance() {
    if ((Byte(at_) & 0xC0) != 0x80) ++position_;
    ++at_;
  }

  void SkipSpace() {
    while (at_ < text_.size()) {
      if (std::isspace(Byte(at_))) {
        Advance();
      } else if (text_.compare(at_, 2, "--") == 0) {  // comment to end of line
        while (at_ < text_.size() && text_[at_] != '\n') Advance();
      } else {
        return;
      }
    }
  }

  Result<std::string> Number() {
    const size_t begin = at_;
    while (at_ < text_.size() && std::isdigit(Byte(at_))) Advance();
    if (at_ < text_.size() && text_[at_] == '.') {
      Advance();
      while (at_ < text_.size() && std::isdigit(Byte(at_))) Advance();
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      size_t look = at_ + 1;
      if (look < text_.size() && (text_[look] == '+' || text_[look] == '-')) ++look;
      if (look < text_.size() && std::isdigit(Byte(look))) {
        while (at_ < look) Advance();
        while (at_ < text_.size() && std::isdigit(Byte(at_))) Advance();
      }
    }
    if (at_ < text_.size() && IsIdentifierStart(Byte(at_))) {
      return Status::InvalidArgument("position " + std::to_string(position_) +
                                     ": expected an operator after the number '" +
                                     std::string(text_.substr(begin, at_ - begin)) + "'");
    }
    return std::string(text_.substr(begin, at_ - begin));
  }

  Result<std::string> Quoted(char quote) {
    const int32_t start = position_;
    Advance();
    std::string out;
    while (true) {
      if (at_ >= text_.size()) {
        return Status::InvalidArgument("position " + std::to_string(start) + ": " +
                                       (quote == '\'' ? "string" : "quoted identifier") +
                                       " is not closed (expected " + quote + ")");
      }
      if (text_[at_] == quote) {
        if (at_ + 1 < text_.size() && text_[at_ + 1] == quote) {
          out.push_back(quote);
          Advance();
          Advance();
          continue;
        }
        Advance();
        return out;
      }
      out.push_back(text_[at_]);
      Advance();
    }
  }

  Result<std::string> Symbol() {
    static constexpr std::string_view kTwo[] = {"<>", "!=", "<=", ">=", "||", "::", "//"};
    for (std::string_view s : kTwo) {
      if (text_.compare(at_, 2, s) == 0) {
        Advance();
        Advance();
        return std::string(s);
      }
    }
    const char c = text_[at_];
    static constexpr std::string_view kOne = "(),.+-*/%=<>";
    if (kOne.find(c) == std::string_view::npos) {
      const unsigned char b = Byte(at_);
      std::string shown = b >= 0x20 && b < 0x7F ? std::string(1, c) : "byte " + std::to_string(b);
      return Status::InvalidArgument("position " + std::to_string(position_) + ": unexpected character '" +
                                     shown + "'");
    }
    Advance();
    return std::string(1, c);
  }

  std::string_view text_;
  size_t at_ = 0;
  int32_t position_ = 1;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view text) {
  return Lexer(text).Run();
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kIdentifier: return "'" + token.text + "'";
    case TokenKind::kQuotedIdentifier: return "identifier \"" + token.text + "\"";
    case TokenKind::kString: return "string '" + token.text + "'";
    case TokenKind::kNumber: return "number " + token.text;
    case TokenKind::kSymbol: return "'" + token.text + "'";
  }
  return "?";
}

}  // namespace floe::expr
