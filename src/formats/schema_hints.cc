#include "formats/schema_hints.h"

#include <cctype>

#include "common/strings.h"

namespace floe::formats {
namespace {

// A recursive-descent reader over the hint text; errors name the position.
class HintParser {
 public:
  explicit HintParser(std::string_view text) : text_(text) {}

  Status Error(const std::string& what) const {
    return Status::InvalidArgument("schema_hints '" + std::string(text_) + "': " + what + " at position " +
                                   std::to_string(pos_ + 1));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  // One name part: `quoted` or a run of characters other than space , . : < > ( ) `
  Result<std::string> NamePart() {
    SkipSpace();
    std::string part;
    if (pos_ < text_.size() && text_[pos_] == '`') {
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) return Error("unterminated `quoted name`");
        if (text_[pos_] == '`') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '`') {
            part.push_back('`');
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        part.push_back(text_[pos_++]);
      }
      if (part.empty()) return Error("empty `quoted name`");
      return part;
    }
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '.' || c == ':' || c == '<' ||
          c == '>' || c == '(' || c == ')' || c == '`' || c == '[' || c == ']') {
        break;
      }
      part.push_back(c);
      ++pos_;
    }
    if (part.empty()) return Error("expected a column name");
    return part;
  }

  Result<std::vector<std::string>> Path() {
    std::vector<std::string> path;
    FLOE_ASSIGN_OR_RETURN(std::string first, NamePart());
    path.push_back(std::move(first));
    while (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      FLOE_ASSIGN_OR_RETURN(std::string next, NamePart());
      path.push_back(std::move(next));
    }
    return path;
  }

  Result<int32_t> Integer() {
    SkipSpace();
    int64_t v = 0;
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
      if (v > 1000000) return Error("number too large");
    }
    if (pos_ == start) return Error("expected a number");
    return static_cast<int32_t>(v);
  }

  Result<DataType> Type(int depth) {
    if (depth > 32) return Error("types nested too deeply");
    SkipSpace();
    const size_t start = pos_;
    std::string word;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      word.push_back(AsciiLower(text_[pos_++]));
    }
    if (word.empty()) return Error("expected a type name");
    if (word == "boolean" || word == "bool") return Bool();
    if (word == "tinyint" || word == "byte") return Int8();
    if (word == "smallint" || word == "short") return Int16();
    if (word == "int" || word == "integer" || word == "int32") return Int32();
    if (word == "long" || word == "bigint" || word == "int64") return Int64();
    if (word == "float" || word == "real" || word == "float32") return Float32();
    if (word == "double" || word == "float64") return Float64();
    if (word == "date") return Date();
    if (word == "time") return Time(TimeUnit::kMicro);
    if (word == "timestamp" || word == "timestamp_ntz" || word == "datetime") {
      return Timestamp(TimeUnit::kMicro, false);
    }
    if (word == "timestamptz" || word == "timestamp_ltz") return Timestamp(TimeUnit::kMicro, true);
    if (word == "timestamp_ns" || word == "timestamp_ntz_ns") return Timestamp(TimeUnit::kNano, false);
    if (word == "timestamptz_ns" || word == "timestamp_ltz_ns") return Timestamp(TimeUnit::kNano, true);
    if (word == "uuid") return Uuid();
    if (word == "binary" || word == "bytes" || word == "blob" || word == "varbinary") return Binary();
    if (word == "string" || word == "varchar" || word == "text" || word == "char") {
      if (Consume('(')) {
        FLOE_RETURN_IF_ERROR(Integer().status());
        if (!Consume(')')) return Error("expected ')'");
      }
      return String();
    }
    if (word == "decimal" || word == "numeric" || word == "dec") {
      if (!Consume('(')) return Error("decimal needs (precision, scale)");
      FLOE_ASSIGN_OR_RETURN(int32_t precision, Integer());
      if (!Consume(',')) return Error("expected ',' between precision and scale");
      FLOE_ASSIGN_OR_RETURN(int32_t scale, Integer());
      if (!Consume(')')) return Error("expected ')'");
      if (precision < 1 || precision > 38 || scale > precision) {
        return Error("decimal(" + std::to_string(precision) + "," + std::to_string(scale) +
                     ") needs 1 <= precision <= 38 and scale <= precision");
      }
      return Decimal(precision, scale);
    }
    if (word == "fixed") {
      const char open = Peek();
      if (open != '[' && open != '(') return Error("fixed needs [length]");
      ++pos_;
      FLOE_ASSIGN_OR_RETURN(int32_t width, Integer());
      if (!Consume(open == '[' ? ']' : ')')) return Error("expected the closing bracket of fixed");
      if (width < 1) return Error("fixed length must be positive");
      return FixedBinary(width);
    }
    if (word == "list" || word == "array") {
      if (!Consume('<')) return Error("expected '<' after " + word);
      FLOE_ASSIGN_OR_RETURN(DataType element, Type(depth + 1));
      if (!Consume('>')) return Error("expected '>'");
      return List(MakeField("element", std::move(element)));
    }
    if (word == "map") {
      if (!Consume('<')) return Error("expected '<' after map");
      FLOE_ASSIGN_OR_RETURN(DataType key, Type(depth + 1));
      if (!Consume(',')) return Error("expected ',' between map key and value types");
      FLOE_ASSIGN_OR_RETURN(DataType value, Type(depth + 1));
      if (!Consume('>')) return Error("expected '>'");
      return Map(MakeField("key", std::move(key), false), MakeField("value", std::move(value)));
    }
    if (word == "struct") {
      if (!Consume('<')) return Error("expected '<' after struct");
      std::vector<Field> members;
      if (!Consume('>')) {
        while (true) {
          FLOE_ASSIGN_OR_RETURN(std::string name, NamePart());
          Consume(':');
          FLOE_ASSIGN_OR_RETURN(DataType type, Type(depth + 1));
          for (const Field& m : members) {
            if (m.name == name) return Error("struct member '" + name + "' named twice");
          }
          members.push_back(MakeField(std::move(name), std::move(type)));
          if (Consume('>')) break;
          if (!Consume(',')) return Error("expected ',' or '>' in struct");
        }
      }
      return Struct(std::move(members));
    }
    pos_ = start;
    return Error("unknown type '" + word + "'");
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

void ApplyAt(const std::vector<SchemaHint>& hints, std::vector<std::string>* path,
             std::vector<Field>* fields) {
  for (Field& field : *fields) {
    path->push_back(field.name);
    bool replaced = false;
    for (const SchemaHint& hint : hints) {
      if (hint.path == *path) {
        field.type = hint.type;
        replaced = true;
      }
    }
    if (!replaced && field.type.id == TypeId::kStruct) ApplyAt(hints, path, &field.type.children);
    path->pop_back();
  }
}

}  // namespace

Result<DataType> ParseTypeName(std::string_view text) {
  HintParser parser(text);
  FLOE_ASSIGN_OR_RETURN(DataType type, parser.Type(0));
  if (!parser.AtEnd()) return parser.Error("unexpected text after the type");
  return type;
}

Result<SchemaHints> SchemaHints::Parse(std::string_view text) {
  SchemaHints result;
  HintParser parser(text);
  if (parser.AtEnd()) return result;
  while (true) {
    SchemaHint hint;
    FLOE_ASSIGN_OR_RETURN(hint.path, parser.Path());
    FLOE_ASSIGN_OR_RETURN(hint.type, parser.Type(0));
    for (const SchemaHint& earlier : result.hints_) {
      if (earlier.path == hint.path) return parser.Error("column hinted twice");
    }
    result.hints_.push_back(std::move(hint));
    if (parser.AtEnd()) break;
    if (!parser.Consume(',')) return parser.Error("expected ',' between hints");
  }
  return result;
}

const DataType* SchemaHints::Find(const std::vector<std::string>& path) const {
  for (const SchemaHint& hint : hints_) {
    if (hint.path == path) return &hint.type;
  }
  return nullptr;
}

const DataType* SchemaHints::FindTopLevel(std::string_view name) const {
  for (const SchemaHint& hint : hints_) {
    if (hint.path.size() == 1 && hint.path[0] == name) return &hint.type;
  }
  return nullptr;
}

bool SchemaHints::HasHintsBelow(const std::vector<std::string>& path) const {
  for (const SchemaHint& hint : hints_) {
    if (hint.path.size() > path.size() && std::equal(path.begin(), path.end(), hint.path.begin()))
      return true;
  }
  return false;
}

void SchemaHints::Apply(Schema* schema) const {
  if (hints_.empty()) return;
  std::vector<std::string> path;
  ApplyAt(hints_, &path, schema);
}

}  // namespace floe::formats
