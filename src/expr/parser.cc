#include "expr/parser.h"

#include <cctype>
#include <utility>

#include "common/strings.h"
#include "expr/lexer.h"

namespace floe::expr {
namespace {

// Words that cannot name a column unless quoted.
bool IsReserved(const std::string& lower) {
  static constexpr std::string_view kWords[] = {
      "and",  "or",   "not",  "is",   "null", "in",   "between",  "like", "ilike", "escape",
      "case", "when", "then", "else", "end",  "cast", "try_cast", "as",   "true",  "false"};
  for (std::string_view w : kWords) {
    if (lower == w) return true;
  }
  return false;
}

using Node = std::unique_ptr<ParsedExpr>;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<Node> Run() {
    FLOE_ASSIGN_OR_RETURN(Node root, Expression());
    if (Peek().kind != TokenKind::kEnd) return Expected("an operator or the end of the expression");
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    const size_t i = next_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const Token& Take() {
    const Token& t = tokens_[next_];
    if (next_ + 1 < tokens_.size()) ++next_;
    return t;
  }
  bool IsKeyword(std::string_view word, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kIdentifier && AsciiLower(t.text) == word;
  }
  bool IsSymbol(std::string_view symbol, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kSymbol && t.text == symbol;
  }
  bool TakeKeyword(std::string_view word) {
    if (!IsKeyword(word)) return false;
    Take();
    return true;
  }
  bool TakeSymbol(std::string_view symbol) {
    if (!IsSymbol(symbol)) return false;
    Take();
    return true;
  }
  Status Expected(const std::string& what) const {
    return Status::InvalidArgument("position " + std::to_string(Peek().position) + ": expected " + what +
                                   ", found " + DescribeToken(Peek()));
  }
  Status ExpectKeyword(std::string_view word) {
    if (TakeKeyword(word)) return Status::OK();
    std::string upper(word);
    for (char& c : upper) c = AsciiUpper(c);
    return Expected(upper);
  }
  Status ExpectSymbol(std::string_view symbol) {
    if (TakeSymbol(symbol)) return Status::OK();
    return Expected("'" + std::string(symbol) + "'");
  }

  static Node Make(ParsedKind kind, int32_t position) {
    auto node = std::make_unique<ParsedExpr>();
    node->kind = kind;
    node->position = position;
    return node;
  }
  static Node Binary(std::string op, Node left, Node right, int32_t position) {
    Node node = Make(ParsedKind::kBinary, position);
    node->op = std::move(op);
    node->children.push_back(std::move(left));
    node->children.push_back(std::move(right));
    return node;
  }

  // Bounds recursion: every rule that can nest goes through Enter().
  struct DepthGuard {
    int* depth;
    ~DepthGuard() { --*depth; }
  };
  Status Enter() {
    if (++depth_ > kMaxDepth) {
      return Status::InvalidArgument("position " + std::to_string(Peek().position) +
                                     ": expression nested deeper than " + std::to_string(kMaxDepth) +
                                     " levels");
    }
    return Status::OK();
  }

  Result<Node> Expression() {
    DepthGuard guard{&depth_};
    FLOE_RETURN_IF_ERROR(Enter());
    return Or();
  }

  Result<Node> Or() {
    FLOE_ASSIGN_OR_RETURN(Node left, And());
    while (IsKeyword("or")) {
      const int32_t position = Take().position;
      FLOE_ASSIGN_OR_RETURN(Node right, And());
      left = Binary("or", std::move(left), std::move(right), position);
    }
    return left;
  }

  Result<Node> And() {
    FLOE_ASSIGN_OR_RETURN(Node left, Not());
    while (IsKeyword("and")) {
      const int32_t position = Take().position;
      FLOE_ASSIGN_OR_RETURN(Node right, Not());
      left = Binary("and", std::move(left), std::move(right), position);
    }
    return left;
  }

  Result<Node> Not() {
    if (IsKeyword("not")) {
      DepthGuard guard{&depth_};
      FLOE_RETURN_IF_ERROR(Enter());
      const int32_t position = Take().position;
      FLOE_ASSIGN_OR_RETURN(Node operand, Not());
      Node node = Make(ParsedKind::kUnary, position);
      node->op = "not";
      node->children.push_back(std::move(operand));
      return node;
    }
    return Predicate();
  }

  Result<Node> Predicate() {
    FLOE_ASSIGN_OR_RETURN(Node left, Concat());
    const Token& t = Peek();
    if (t.kind == TokenKind::kSymbol && (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" ||
                                         t.text == "<=" || t.text == ">" || t.text == ">=")) {
      std::string op = t.text == "!=" ? "<>" : t.text;
      const int32_t position = Take().position;
      FLOE_ASSIGN_OR_RETURN(Node right, Concat());
      return Binary(std::move(op), std::move(left), std::move(right), position);
    }
    if (IsKeyword("is")) {
      const int32_t position = Take().position;
      Node node = Make(ParsedKind::kIsNull, position);
      node->negated = TakeKeyword("not");
      FLOE_RETURN_IF_ERROR(ExpectKeyword("null"));
      node->children.push_back(std::move(left));
      return node;
    }
    const bool negated = IsKeyword("not") && (IsKeyword("in", 1) || IsKeyword("between", 1) ||
                                              IsKeyword("like", 1) || IsKeyword("ilike", 1));
    if (negated) Take();
    if (IsKeyword("in")) {
      const int32_t position = Take().position;
      Node node = Make(ParsedKind::kIn, position);
      node->negated = negated;
      node->children.push_back(std::move(left));
      FLOE_RETURN_IF_ERROR(ExpectSymbol("("));
      do {
        FLOE_ASSIGN_OR_RETURN(Node item, Expression());
        node->children.push_back(std::move(item));
      } while (TakeSymbol(","));
      FLOE_RETURN_IF_ERROR(ExpectSymbol(")"));
      return node;
    }
    if (IsKeyword("between")) {
      const int32_t position = Take().position;
      Node node = Make(ParsedKind::kBetween, position);
      node->negated = negated;
      FLOE_ASSIGN_OR_RETURN(Node low, Concat());
      FLOE_RETURN_IF_ERROR(ExpectKeyword("and"));
      FLOE_ASSIGN_OR_RETURN(Node high, Concat());
      node->children.push_back(std::move(left));
      node->children.push_back(std::move(low));
      node->children.push_back(std::move(high));
      return node;
    }
    if (IsKeyword("like") || IsKeyword("ilike")) {
      const Token& op = Take();
      Node node = Make(ParsedKind::kLike, op.position);
      node->op = AsciiLower(op.text);
      node->negated = negated;
      FLOE_ASSIGN_OR_RETURN(Node pattern, Concat());
      node->children.push_back(std::move(left));
      node->children.push_back(std::move(pattern));
      if (TakeKeyword("escape")) {
        FLOE_ASSIGN_OR_RETURN(Node escape, Concat());
        node->children.push_back(std::move(escape));
      }
      return node;
    }
    if (negated) return Expected("IN, BETWEEN, LIKE or ILIKE after NOT");
    return left;
  }

  Result<Node> Concat() {
    FLOE_ASSIGN_OR_RETURN(Node left, Additive());
    while (IsSymbol("||")) {
      const int32_t position = Take().position;
      FLOE_ASSIGN_OR_RETURN(Node right, Additive());
      left = Binary("||", std::move(left), std::move(right), position);
    }
    return left;
  }

  Result<Node> Additive() {
    FLOE_ASSIGN_OR_RETURN(Node left, Multiplicative());
    while (IsSymbol("+") || IsSymbol("-")) {
      const Token& op = Take();
      std::string text = op.text;
      const int32_t position = op.position;
      FLOE_ASSIGN_OR_RETURN(Node right, Multiplicative());
      left = Binary(std::move(text), std::move(left), std::move(right), position);
    }
    return left;
  }

  Result<Node> Multiplicative() {
    FLOE_ASSIGN_OR_RETURN(Node left, Unary());
    while (IsSymbol("*") || IsSymbol("/") || IsSymbol("//") || IsSymbol("%")) {
      const Token& op = Take();
      std::string text = op.text;
      const int32_t position = op.position;
      FLOE_ASSIGN_OR_RETURN(Node right, Unary());
      left = Binary(std::move(text), std::move(left), std::move(right), position);
    }
    return left;
  }

  Result<Node> Unary() {
    if (IsSymbol("-") || IsSymbol("+")) {
      DepthGuard guard{&depth_};
      FLOE_RETURN_IF_ERROR(Enter());
      const Token& op = Take();
      std::string text = op.text;
      const int32_t position = op.position;
      FLOE_ASSIGN_OR_RETURN(Node operand, Unary());
      Node node = Make(ParsedKind::kUnary, position);
      node->op = std::move(text);
      node->children.push_back(std::move(operand));
      return node;
    }
    return Postfix();
  }

  Result<Node> Postfix() {
    FLOE_ASSIGN_OR_RETURN(Node node, Primary());
    while (IsSymbol("::")) {
      const int32_t position = Take().position;
      Node cast = Make(ParsedKind::kCast, position);
      FLOE_ASSIGN_OR_RETURN(cast->type_name, TypeName());
      cast->children.push_back(std::move(node));
      node = std::move(cast);
    }
    return node;
  }

  // type := word [word...] [ '(' number [',' number] ')' ], lower-cased, as "decimal(10,2)".
  Result<std::string> TypeName() {
    if (Peek().kind != TokenKind::kIdentifier) return Expected("a type name");
    std::string name = AsciiLower(Take().text);
    // "timestamp with time zone" and "double precision".
    while (Peek().kind == TokenKind::kIdentifier &&
           (IsKeyword("with") || IsKeyword("time") || IsKeyword("zone") || IsKeyword("precision"))) {
      name += " " + AsciiLower(Take().text);
    }
    if (TakeSymbol("(")) {
      name += "(";
      if (Peek().kind != TokenKind::kNumber) return Expected("a number");
      name += Take().text;
      if (TakeSymbol(",")) {
        if (Peek().kind != TokenKind::kNumber) return Expected("a number");
        name += "," + Take().text;
      }
      FLOE_RETURN_IF_ERROR(ExpectSymbol(")"));
      name += ")";
    }
    return name;
  }

  Result<Node> Primary() {
    const Token& t = Peek();
    const int32_t position = t.position;
    switch (t.kind) {
      case TokenKind::kEnd: return Expected("an expression");
      case TokenKind::kNumber: {
        const std::string text = Take().text;
        ParsedKind kind = ParsedKind::kInteger;
        if (text.find_first_of("eE") != std::string::npos) {
          kind = ParsedKind::kFloat;
        } else if (text.find('.') != std::string::npos) {
          kind = ParsedKind::kDecimal;
        }
        Node node = Make(kind, position);
        node->text = text;
        return node;
      }
      case TokenKind::kString: {
        Node node = Make(ParsedKind::kString, position);
        node->text = Take().text;
        return node;
      }
      case TokenKind::kQuotedIdentifier: return ColumnPath();
      case TokenKind::kSymbol:
        if (t.text == "(") {
          Take();
          FLOE_ASSIGN_OR_RETURN(Node inner, Expression());
          FLOE_RETURN_IF_ERROR(ExpectSymbol(")"));
          return inner;
        }
        return Expected("an expression");
      case TokenKind::kIdentifier: break;
    }
    const std::string word = AsciiLower(t.text);
    if (word == "null") {
      Take();
      return Make(ParsedKind::kNull, position);
    }
    if (word == "true" || word == "false") {
      Take();
      Node node = Make(ParsedKind::kBoolean, position);
      node->text = word;
      return node;
    }
    if (word == "case") return Case();
    if (word == "cast" || word == "try_cast") {
      Take();
      Node node = Make(ParsedKind::kCast, position);
      node->try_cast = word == "try_cast";
      FLOE_RETURN_IF_ERROR(ExpectSymbol("("));
      FLOE_ASSIGN_OR_RETURN(Node operand, Expression());
      FLOE_RETURN_IF_ERROR(ExpectKeyword("as"));
      FLOE_ASSIGN_OR_RETURN(node->type_name, TypeName());
      FLOE_RETURN_IF_ERROR(ExpectSymbol(")"));
      node->children.push_back(std::move(operand));
      return node;
    }
    if ((word == "date" || word == "time" || word == "timestamp" || word == "timestamptz") &&
        Peek(1).kind == TokenKind::kString) {
      Take();
      Node node = Make(ParsedKind::kTypedLiteral, position);
      node->type_name = word;
      node->text = Take().text;
      return node;
    }
    if (word == "current_timestamp" && !IsSymbol("(", 1)) {
      Take();
      Node node = Make(ParsedKind::kFunction, position);
      node->text = word;
      return node;
    }
    if (IsSymbol("(", 1)) {
      if (IsReserved(word)) return Expected("an expression");
      Take();
      Take();
      Node node = Make(ParsedKind::kFunction, position);
      node->text = word;
      if (!TakeSymbol(")")) {
        do {
          FLOE_ASSIGN_OR_RETURN(Node arg, Expression());
          node->children.push_back(std::move(arg));
        } while (TakeSymbol(","));
        FLOE_RETURN_IF_ERROR(ExpectSymbol(")"));
      }
      return node;
    }
    if (IsReserved(word)) return Expected("an expression");
    return ColumnPath();
  }

  Result<Node> ColumnPath() {
    Node node = Make(ParsedKind::kColumn, Peek().position);
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kQuotedIdentifier) {
        node->path.push_back(Take().text);
      } else if (t.kind == TokenKind::kIdentifier && !IsReserved(AsciiLower(t.text))) {
        node->path.push_back(Take().text);
      } else {
        return Expected("a column name");
      }
      if (!TakeSymbol(".")) return node;
    }
  }

  Result<Node> Case() {
    DepthGuard guard{&depth_};
    FLOE_RETURN_IF_ERROR(Enter());
    Node node = Make(ParsedKind::kCase, Take().position);
    if (!IsKeyword("when") && !IsKeyword("end")) {
      FLOE_ASSIGN_OR_RETURN(Node operand, Expression());
      node->has_operand = true;
      node->children.push_back(std::move(operand));
    }
    if (!IsKeyword("when")) return Expected("WHEN");
    while (TakeKeyword("when")) {
      FLOE_ASSIGN_OR_RETURN(Node when, Expression());
      FLOE_RETURN_IF_ERROR(ExpectKeyword("then"));
      FLOE_ASSIGN_OR_RETURN(Node then, Expression());
      node->children.push_back(std::move(when));
      node->children.push_back(std::move(then));
    }
    if (TakeKeyword("else")) {
      FLOE_ASSIGN_OR_RETURN(Node otherwise, Expression());
      node->has_else = true;
      node->children.push_back(std::move(otherwise));
    }
    FLOE_RETURN_IF_ERROR(ExpectKeyword("end"));
    return node;
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<std::unique_ptr<ParsedExpr>> ParseExpression(std::string_view text) {
  if (text.size() > kMaxLength) {
    return Status::InvalidArgument("expression longer than " + std::to_string(kMaxLength) + " bytes");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return Parser(std::move(tokens)).Run();
}

std::string ToString(const ParsedExpr& e) {
  auto child = [&](size_t i) { return ToString(*e.children[i]); };
  switch (e.kind) {
    case ParsedKind::kNull: return "NULL";
    case ParsedKind::kBoolean:
    case ParsedKind::kInteger:
    case ParsedKind::kDecimal:
    case ParsedKind::kFloat: return e.text;
    case ParsedKind::kString: {
      std::string out = "'";
      for (char c : e.text) {
        if (c == '\'') out.push_back('\'');
        out.push_back(c);
      }
      return out + "'";
    }
    case ParsedKind::kTypedLiteral: return e.type_name + " '" + e.text + "'";
    case ParsedKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.path.size(); ++i) out += (i ? "." : "") + e.path[i];
      return out;
    }
    case ParsedKind::kUnary: return "(" + (e.op == "not" ? std::string("NOT ") : e.op) + child(0) + ")";
    case ParsedKind::kBinary: {
      std::string op = e.op == "and" ? "AND" : e.op == "or" ? "OR" : e.op;
      return "(" + child(0) + " " + op + " " + child(1) + ")";
    }
    case ParsedKind::kIsNull: return "(" + child(0) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case ParsedKind::kIn: {
      std::string out = "(" + child(0) + (e.negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < e.children.size(); ++i) out += (i > 1 ? ", " : "") + child(i);
      return out + "))";
    }
    case ParsedKind::kBetween:
      return "(" + child(0) + (e.negated ? " NOT BETWEEN " : " BETWEEN ") + child(1) + " AND " + child(2) +
             ")";
    case ParsedKind::kLike: {
      std::string out =
          "(" + child(0) + (e.negated ? " NOT " : " ") + (e.op == "ilike" ? "ILIKE " : "LIKE ") + child(1);
      if (e.children.size() > 2) out += " ESCAPE " + child(2);
      return out + ")";
    }
    case ParsedKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (e.has_operand) out += " " + child(i++);
      const size_t pairs_end = e.children.size() - (e.has_else ? 1 : 0);
      for (; i + 1 < pairs_end + 1 && i < pairs_end; i += 2)
        out += " WHEN " + child(i) + " THEN " + child(i + 1);
      if (e.has_else) out += " ELSE " + child(e.children.size() - 1);
      return out + " END";
    }
    case ParsedKind::kCast:
      return std::string(e.try_cast ? "TRY_CAST(" : "CAST(") + child(0) + " AS " + e.type_name + ")";
    case ParsedKind::kFunction: {
      if (e.text == "current_timestamp" && e.children.empty()) return "current_timestamp";
      std::string out = e.text + "(";
      for (size_t i = 0; i < e.children.size(); ++i) out += (i ? ", " : "") + child(i);
      return out + ")";
    }
  }
  return "?";
}

}  // namespace floe::expr
