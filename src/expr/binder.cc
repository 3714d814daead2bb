#include "expr/binder.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/strings.h"
#include "expr/constants.h"
#include "expr/evaluator.h"
#include "expr/expr_types.h"
#include "expr/in_set.h"
#include "expr/like_matcher.h"
#include "expr/string_functions.h"
#include "expr/value_text.h"

namespace floe::expr {
namespace {

Status Error(int32_t position, const std::string& message) {
  return Status::InvalidArgument("position " + std::to_string(position) + ": " + message);
}

bool IsNullLiteral(const BoundExpr& e) {
  return e.kind == BoundKind::kConstant && e.literal == LiteralKind::kNull;
}
bool IsStringLiteral(const BoundExpr& e) {
  return e.kind == BoundKind::kConstant && e.literal == LiteralKind::kString;
}

// How a bound operand is named in messages: "int column 'id'", "string 'abc'", "long expression".
std::string Describe(const BoundExpr& e) {
  if (IsNullLiteral(e)) return "NULL";
  if (e.kind == BoundKind::kColumn) return TypeName(e.type) + " column '" + e.text + "'";
  if (e.kind == BoundKind::kCast && e.children[0].kind == BoundKind::kColumn && !e.try_cast &&
      e.position == e.children[0].position) {
    return TypeName(e.children[0].type) + " column '" + e.children[0].text + "'";
  }
  if (IsStringLiteral(e)) return "string '" + std::string(e.constant.StringAt(0)) + "'";
  return TypeName(e.type) + (e.kind == BoundKind::kConstant ? " constant" : " expression");
}

// Whether a cast from `from` to `to` may fail at run time.
bool CastCanFail(const DataType& from, const DataType& to) {
  if (from == to) return false;
  if (to.id == TypeId::kString) return false;
  if (from.id == TypeId::kInt32 &&
      (to.id == TypeId::kInt64 || to.id == TypeId::kFloat32 || to.id == TypeId::kFloat64)) {
    return false;
  }
  if (from.id == TypeId::kInt64 && (to.id == TypeId::kFloat32 || to.id == TypeId::kFloat64)) return false;
  if (from.id == TypeId::kFloat32 && to.id == TypeId::kFloat64) return false;
  if (from.id == TypeId::kDecimal && (to.id == TypeId::kFloat32 || to.id == TypeId::kFloat64)) return false;
  if (IsInteger(from) && to.id == TypeId::kDecimal) {
    return to.precision - to.scale < AsDecimal(from).precision;
  }
  if (from.id == TypeId::kDecimal && to.id == TypeId::kDecimal) {
    return to.precision - to.scale < from.precision - from.scale;
  }
  if (from.id == TypeId::kDate && to.id == TypeId::kTimestamp) return false;
  if (from.id == TypeId::kTimestamp && (to.id == TypeId::kTimestamp || to.id == TypeId::kDate)) return false;
  if (from.id == TypeId::kBool && IsNumeric(to)) return false;
  if (from.id == TypeId::kUuid && to.id == TypeId::kBinary) return false;
  if (from.id == TypeId::kString && to.id == TypeId::kBinary) return false;
  return true;
}

// Which casts exist (docs/expressions.md, "CAST").
bool CastExists(const DataType& from, const DataType& to) {
  if (from == to || to.id == TypeId::kString || from.id == TypeId::kString) return true;
  if (IsNumeric(from) && (IsNumeric(to) || to.id == TypeId::kBool)) return true;
  if (from.id == TypeId::kBool && IsNumeric(to)) return true;
  if (IsTemporal(from) && IsTemporal(to)) return true;
  if (from.id == TypeId::kUuid && to.id == TypeId::kBinary) return true;
  return false;
}

class Binder {
 public:
  explicit Binder(const Schema& schema) : schema_(schema) {}

  Result<BoundExpr> Bind(const ParsedExpr& e) {
    FLOE_ASSIGN_OR_RETURN(BoundExpr bound, BindNode(e));
    return bound;
  }

 private:
  static BoundExpr Constant(Column column, int32_t position, LiteralKind literal = LiteralKind::kNone) {
    BoundExpr b;
    b.kind = BoundKind::kConstant;
    b.type = column.type;
    b.constant = std::move(column);
    b.position = position;
    b.literal = literal;
    return b;
  }

  static BoundExpr Node(BoundKind kind, DataType type, int32_t position, std::vector<BoundExpr> children,
                        bool own_error = false) {
    BoundExpr b;
    b.kind = kind;
    b.type = std::move(type);
    b.position = position;
    b.can_error = own_error;
    for (const BoundExpr& c : children) b.can_error = b.can_error || c.can_error;
    b.children = std::move(children);
    return b;
  }

  // Folds a node whose children are all constants into a constant; a node
  // whose evaluation fails stays as it is (the error belongs to run time,
  // where a CASE may never reach it).
  static BoundExpr Fold(BoundExpr node) {
    if (node.kind == BoundKind::kConstant || node.kind == BoundKind::kColumn) return node;
    if (node.kind == BoundKind::kFunction &&
        (node.function == FunctionId::kCurrentTimestamp || node.function == FunctionId::kIngestionTime ||
         node.function == FunctionId::kSourceFile || node.function == FunctionId::kSourceRow)) {
      return node;
    }
    for (const BoundExpr& c : node.children) {
      if (c.kind != BoundKind::kConstant) return node;
    }
    RecordBatch empty;
    empty.num_rows = 1;
    Frame frame{&empty, nullptr, 1};
    EvalContext context;
    Result<Vector> folded = EvaluateBound(node, frame, context);
    if (!folded.ok()) return node;
    Column value = Materialize(*folded, 1);
    value.type = node.type;
    return Constant(std::move(value), node.position);
  }

  // `e` converted to `to`: literals are converted now (a string literal that
  // is not a value of `to` is an error here), other expressions get a cast.
  Result<BoundExpr> Coerce(BoundExpr e, const DataType& to, bool try_cast = false) {
    if (e.type == to && !IsNullLiteral(e)) {
      e.literal = LiteralKind::kNone;
      return e;
    }
    if (IsNullLiteral(e)) return Constant(NullConstant(to), e.position);
    if (!CastExists(e.type, to)) {
      return Error(e.position, "cannot convert " + Describe(e) + " to " + TypeName(to));
    }
    const int32_t position = e.position;
    const bool literal = IsStringLiteral(e);
    const std::string shown = literal ? std::string(e.constant.StringAt(0)) : "";
    BoundExpr cast = Node(BoundKind::kCast, to, position, {}, !try_cast && CastCanFail(e.type, to));
    cast.try_cast = try_cast;
    cast.can_error = cast.can_error || e.can_error;
    cast.children.push_back(std::move(e));
    BoundExpr folded = Fold(std::move(cast));
    if (literal && folded.kind != BoundKind::kConstant) {
      return Error(position, "'" + shown + "' is not a value of type " + TypeName(to));
    }
    return folded;
  }

  // The type two operands meet at, treating NULL and string literals as adaptable.
  Result<DataType> Meet(const BoundExpr& a, const BoundExpr& b, int32_t position, const std::string& what) {
    if (IsNullLiteral(a)) return b.type;
    if (IsNullLiteral(b)) return a.type;
    if (IsStringLiteral(a) && b.type.id != TypeId::kString && !IsStringLiteral(b)) return b.type;
    if (IsStringLiteral(b) && a.type.id != TypeId::kString && !IsStringLiteral(a)) return a.type;
    if (auto common = CommonSupertype(a.type, b.type)) return *common;
    return Error(position, "cannot " + what + " " + Describe(a) + " and " + Describe(b) +
                               " (no common type; use CAST)");
  }

  Status RequireScalar(const BoundExpr& e, const std::string& context) {
    if (e.type.is_nested() || !CanonicalType(e.type)) {
      return Error(e.position, context + " cannot use " + Describe(e) + " (a nested value)");
    }
    return Status::OK();
  }

  Status RequireBoolean(const BoundExpr& e, const std::string& context) {
    if (e.type.id == TypeId::kBool || IsNullLiteral(e)) return Status::OK();
    return Error(e.position, context + " needs a boolean, found " + Describe(e));
  }

  Result<BoundExpr> BindNode(const ParsedExpr& e) {
    switch (e.kind) {
      case ParsedKind::kNull: return Constant(NullConstant(Int32()), e.position, LiteralKind::kNull);
      case ParsedKind::kBoolean: return Constant(BoolConstant(e.text == "true"), e.position);
      case ParsedKind::kInteger: return IntegerLiteral(e);
      case ParsedKind::kDecimal: return DecimalLiteral(e);
      case ParsedKind::kFloat: {
        auto v = ParseDouble(e.text);
        if (!v) return Error(e.position, "bad number " + e.text);
        return Constant(DoubleConstant(*v), e.position);
      }
      case ParsedKind::kString: return Constant(StringConstant(e.text), e.position, LiteralKind::kString);
      case ParsedKind::kTypedLiteral: {
        FLOE_ASSIGN_OR_RETURN(DataType type, ParseTypeName(e.type_name));
        return Coerce(Constant(StringConstant(e.text), e.position, LiteralKind::kString), type);
      }
      case ParsedKind::kColumn: return ColumnRef(e);
      case ParsedKind::kUnary: return Unary(e);
      case ParsedKind::kBinary: return BinaryNode(e);
      case ParsedKind::kIsNull: {
        FLOE_ASSIGN_OR_RETURN(BoundExpr operand, BindNode(*e.children[0]));
        std::vector<BoundExpr> children;
        children.push_back(std::move(operand));
        BoundExpr node = Node(BoundKind::kIsNull, Bool(), e.position, std::move(children));
        node.negated = e.negated;
        return Fold(std::move(node));
      }
      case ParsedKind::kIn: return In(e);
      case ParsedKind::kBetween: return Between(e);
      case ParsedKind::kLike: return Like(e);
      case ParsedKind::kCase: return Case(e);
      case ParsedKind::kCast: {
        FLOE_ASSIGN_OR_RETURN(BoundExpr operand, BindNode(*e.children[0]));
        FLOE_RETURN_IF_ERROR(RequireScalar(operand, "CAST"));
        Result<DataType> type = ParseTypeName(e.type_name);
        if (!type.ok()) return Error(e.position, type.status().message());
        if (operand.type == *type && !IsNullLiteral(operand)) return operand;
        if (!CastExists(operand.type, *type) && !IsNullLiteral(operand)) {
          return Error(e.position, "cannot CAST " + Describe(operand) + " to " + TypeName(*type));
        }
        return Coerce(std::move(operand), *type, e.try_cast);
      }
      case ParsedKind::kFunction: return Function(e);
    }
    return Error(e.position, "unknown expression");
  }

  Result<BoundExpr> IntegerLiteral(const ParsedExpr& e) {
    std::string_view digits = e.text;
    while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && ptr == digits.data() + digits.size()) {
      if (value <= INT32_MAX) return Constant(Int32Constant(static_cast<int32_t>(value)), e.position);
      return Constant(Int64Constant(value), e.position);
    }
    if (digits.size() <= static_cast<size_t>(kMaxDecimalPrecision)) {
      auto v = ParseDecimal(digits, kMaxDecimalPrecision, 0);
      if (v) return Constant(DecimalConstant(static_cast<int32_t>(digits.size()), 0, *v), e.position);
    }
    auto d = ParseDouble(digits);
    return Constant(DoubleConstant(d.value_or(HUGE_VAL)), e.position);
  }

  Result<BoundExpr> DecimalLiteral(const ParsedExpr& e) {
    const size_t point = e.text.find('.');
    std::string_view integer = std::string_view(e.text).substr(0, point);
    const int32_t scale = static_cast<int32_t>(e.text.size() - point - 1);
    while (integer.size() > 1 && integer.front() == '0') integer.remove_prefix(1);
    const int32_t precision =
        std::max<int32_t>(static_cast<int32_t>(integer.empty() ? 1 : integer.size()) + scale, 1);
    if (precision > kMaxDecimalPrecision) {
      auto d = ParseDouble(e.text);
      return Constant(DoubleConstant(d.value_or(0)), e.position);
    }
    auto v = ParseDecimal(e.text, precision, scale);
    if (!v) return Error(e.position, "bad number " + e.text);
    return Constant(DecimalConstant(precision, scale, *v), e.position);
  }

  // Finds `name` among `fields`: exact first, then a unique case-insensitive match.
  Result<int> FindField(const std::vector<Field>& fields, const std::string& name, int32_t position,
                        const std::string& where) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) return static_cast<int>(i);
    }
    const std::string lower = AsciiLower(name);
    int found = -1;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (AsciiLower(fields[i].name) != lower) continue;
      if (found >= 0) {
        return Error(position, "column name '" + name + "' is ambiguous" + where + ": '" +
                                   fields[static_cast<size_t>(found)].name + "' and '" + fields[i].name +
                                   "' (quote the exact name)");
      }
      found = static_cast<int>(i);
    }
    if (found < 0) {
      std::string known;
      for (size_t i = 0; i < fields.size() && i < 20; ++i) known += (i ? ", " : "") + fields[i].name;
      if (fields.size() > 20) known += ", ...";
      return Error(position, "no column named '" + name + "'" + where +
                                 (fields.empty() ? " (the schema is empty)" : " (columns: " + known + ")"));
    }
    return found;
  }

  Result<BoundExpr> ColumnRef(const ParsedExpr& e) {
    BoundExpr b;
    b.kind = BoundKind::kColumn;
    b.position = e.position;
    const std::vector<Field>* fields = &schema_;
    const Field* field = nullptr;
    std::string where;
    for (const std::string& part : e.path) {
      if (field) {
        if (field->type.id != TypeId::kStruct) {
          return Error(e.position, "'" + b.text + "' is a " + TypeName(field->type) +
                                       ", not a struct with member '" + part + "'");
        }
        fields = &field->type.children;
        where = " in struct '" + b.text + "'";
      }
      FLOE_ASSIGN_OR_RETURN(int index, FindField(*fields, part, e.position, where));
      field = &(*fields)[static_cast<size_t>(index)];
      b.column_path.push_back(index);
      b.text += (b.text.empty() ? "" : ".") + field->name;
    }
    b.type = field->type;
    if (b.type.is_nested()) return b;
    auto canonical = CanonicalType(b.type);
    if (!canonical)
      return Error(e.position, "column '" + b.text + "' has type " + b.type.ToString() +
                                   ", which expressions cannot read");
    if (*canonical == b.type) return b;
    // Narrow integers, other time units, fixed binary: read through a widening cast.
    const int32_t position = b.position;
    std::vector<BoundExpr> children;
    children.push_back(std::move(b));
    return Node(BoundKind::kCast, *canonical, position, std::move(children));
  }

  Result<BoundExpr> Unary(const ParsedExpr& e) {
    FLOE_ASSIGN_OR_RETURN(BoundExpr operand, BindNode(*e.children[0]));
    if (e.op == "not") {
      FLOE_RETURN_IF_ERROR(RequireBoolean(operand, "NOT"));
      FLOE_ASSIGN_OR_RETURN(operand, Coerce(std::move(operand), Bool()));
      std::vector<BoundExpr> children;
      children.push_back(std::move(operand));
      return Fold(Node(BoundKind::kNot, Bool(), e.position, std::move(children)));
    }
    if (IsNullLiteral(operand)) return operand;
    if (!IsNumeric(operand.type)) {
      return Error(e.position, "unary " + e.op + " needs a number, found " + Describe(operand));
    }
    if (e.op == "+") return operand;
    const DataType type = operand.type;
    std::vector<BoundExpr> children;
    children.push_back(std::move(operand));
    const bool can_overflow = IsInteger(type) || type.id == TypeId::kDecimal;
    return Fold(Node(BoundKind::kNegate, type, e.position, std::move(children), can_overflow));
  }

  Result<BoundExpr> BinaryNode(const ParsedExpr& e) {
    FLOE_ASSIGN_OR_RETURN(BoundExpr left, BindNode(*e.children[0]));
    FLOE_ASSIGN_OR_RETURN(BoundExpr right, BindNode(*e.children[1]));
    const std::string& op = e.op;
    if (op == "and" || op == "or") {
      const std::string name = op == "and" ? "AND" : "OR";
      FLOE_RETURN_IF_ERROR(RequireBoolean(left, name));
      FLOE_RETURN_IF_ERROR(RequireBoolean(right, name));
      FLOE_ASSIGN_OR_RETURN(left, Coerce(std::move(left), Bool()));
      FLOE_ASSIGN_OR_RETURN(right, Coerce(std::move(right), Bool()));
      std::vector<BoundExpr> children;
      children.push_back(std::move(left));
      children.push_back(std::move(right));
      return Fold(
          Node(op == "and" ? BoundKind::kAnd : BoundKind::kOr, Bool(), e.position, std::move(children)));
    }
    FLOE_RETURN_IF_ERROR(RequireScalar(left, "operator " + op));
    FLOE_RETURN_IF_ERROR(RequireScalar(right, "operator " + op));
    if (op == "||") {
      FLOE_ASSIGN_OR_RETURN(left, Coerce(std::move(left), String()));
      FLOE_ASSIGN_OR_RETURN(right, Coerce(std::move(right), String()));
      std::vector<BoundExpr> children;
      children.push_back(std::move(left));
      children.push_back(std::move(right));
      BoundExpr node = Node(BoundKind::kFunction, String(), e.position, std::move(children));
      node.function = FunctionId::kConcatOp;
      return Fold(std::move(node));
    }
    if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
      FLOE_ASSIGN_OR_RETURN(DataType type, Meet(left, right, e.position, "compare"));
      FLOE_ASSIGN_OR_RETURN(left, Coerce(std::move(left), type));
      FLOE_ASSIGN_OR_RETURN(right, Coerce(std::move(right), type));
      std::vector<BoundExpr> children;
      children.push_back(std::move(left));
      children.push_back(std::move(right));
      BoundExpr node = Node(BoundKind::kCompare, Bool(), e.position, std::move(children));
      node.compare = op == "="    ? CompareOp::kEq
                     : op == "<>" ? CompareOp::kNe
                     : op == "<"  ? CompareOp::kLt
                     : op == "<=" ? CompareOp::kLe
                     : op == ">"  ? CompareOp::kGt
                                  : CompareOp::kGe;
      return Fold(std::move(node));
    }
    return Arithmetic(e, std::move(left), std::move(right));
  }

  Result<BoundExpr> Arithmetic(const ParsedExpr& e, BoundExpr left, BoundExpr right) {
    const std::string& op = e.op;
    if (IsNullLiteral(left)) left.type = IsNullLiteral(right) ? Int32() : right.type;
    if (IsNullLiteral(right)) right.type = left.type;
    for (const BoundExpr* side : {&left, &right}) {
      if (!IsNumeric(side->type)) {
        return Error(side->position, "operator " + op + " needs numbers, found " + Describe(*side) +
                                         (IsStringLiteral(*side) ? " (use CAST)" : ""));
      }
    }
    const DataType& a = left.type;
    const DataType& b = right.type;
    const bool any_double = a.id == TypeId::kFloat64 || b.id == TypeId::kFloat64;
    const bool any_float = a.id == TypeId::kFloat32 || b.id == TypeId::kFloat32;
    const bool any_decimal = a.id == TypeId::kDecimal || b.id == TypeId::kDecimal;
    ArithmeticOp kind = op == "+"    ? ArithmeticOp::kAdd
                        : op == "-"  ? ArithmeticOp::kSubtract
                        : op == "*"  ? ArithmeticOp::kMultiply
                        : op == "/"  ? ArithmeticOp::kDivide
                        : op == "//" ? ArithmeticOp::kIntegerDivide
                                     : ArithmeticOp::kModulo;
    DataType type;
    bool decimal = false;
    if (kind == ArithmeticOp::kIntegerDivide) {
      if (!IsInteger(a) || !IsInteger(b)) {
        return Error(e.position,
                     "operator // needs integers, found " + Describe(left) + " and " + Describe(right));
      }
      type = *CommonSupertype(a, b);
    } else if (any_double) {
      type = Float64();
    } else if (any_float) {
      type = Float32();
    } else if (any_decimal) {
      decimal = true;
      Result<DataType> result = DecimalResultType(op[0], a, b);
      if (!result.ok()) return Error(e.position, result.status().message());
      type = *result;
    } else if (kind == ArithmeticOp::kDivide) {
      type = Float64();
    } else {
      type = *CommonSupertype(a, b);
    }
    if (decimal) {
      FLOE_ASSIGN_OR_RETURN(left, Coerce(std::move(left), AsDecimal(a)));
      FLOE_ASSIGN_OR_RETURN(right, Coerce(std::move(right), AsDecimal(b)));
    } else {
      FLOE_ASSIGN_OR_RETURN(left, Coerce(std::move(left), type));
      FLOE_ASSIGN_OR_RETURN(right, Coerce(std::move(right), type));
    }
    // Integers can overflow; a decimal only when its exact precision was cut
    // to 38 (+ - * /; % never grows).
    bool can_fail = IsInteger(type);
    if (decimal) {
      const DataType da = AsDecimal(a), db = AsDecimal(b);
      const int32_t digits = std::max(da.precision - da.scale, db.precision - db.scale);
      switch (kind) {
        case ArithmeticOp::kAdd:
        case ArithmeticOp::kSubtract: can_fail = digits + type.scale + 1 > kMaxDecimalPrecision; break;
        case ArithmeticOp::kMultiply: can_fail = da.precision + db.precision > kMaxDecimalPrecision; break;
        case ArithmeticOp::kDivide:
          can_fail = type.precision - type.scale < da.precision - da.scale + db.scale;
          break;
        default: can_fail = false; break;
      }
    }
    std::vector<BoundExpr> children;
    children.push_back(std::move(left));
    children.push_back(std::move(right));
    BoundExpr node = Node(BoundKind::kArithmetic, type, e.position, std::move(children), can_fail);
    node.arithmetic = kind;
    return Fold(std::move(node));
  }

  // One type for a list of operands (IN, BETWEEN, CASE results, COALESCE).
  Result<DataType> MeetAll(const std::vector<BoundExpr>& items, const std::string& what) {
    // Typed operands first, so string and NULL literals adapt to them.
    std::optional<DataType> type;
    const BoundExpr* first = nullptr;
    for (const BoundExpr& item : items) {
      if (IsNullLiteral(item) || IsStringLiteral(item)) continue;
      FLOE_RETURN_IF_ERROR(RequireScalar(item, what));
      if (!type) {
        type = item.type;
        first = &item;
        continue;
      }
      auto common = CommonSupertype(*type, item.type);
      if (!common) {
        return Error(item.position, "cannot " + what + " " + Describe(*first) + " and " + Describe(item) +
                                        " (no common type; use CAST)");
      }
      type = *common;
    }
    if (!type) {
      bool any_string = false;
      for (const BoundExpr& item : items) any_string = any_string || IsStringLiteral(item);
      type = any_string ? String() : Int32();
    }
    return *type;
  }

  Result<std::vector<BoundExpr>> BindChildren(const ParsedExpr& e) {
    std::vector<BoundExpr> out;
    out.reserve(e.children.size());
    for (const auto& child : e.children) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr bound, BindNode(*child));
      out.push_back(std::move(bound));
    }
    return out;
  }

  Result<BoundExpr> In(const ParsedExpr& e) {
    FLOE_ASSIGN_OR_RETURN(std::vector<BoundExpr> items, BindChildren(e));
    FLOE_ASSIGN_OR_RETURN(DataType type, MeetAll(items, "compare with IN"));
    bool constant_list = true;
    for (BoundExpr& item : items) {
      FLOE_ASSIGN_OR_RETURN(item, Coerce(std::move(item), type));
      if (&item != &items[0] && item.kind != BoundKind::kConstant) constant_list = false;
    }
    BoundExpr node = Node(BoundKind::kIn, Bool(), e.position, std::move(items));
    node.negated = e.negated;
    if (constant_list) {
      std::vector<const Column*> values;
      for (size_t i = 1; i < node.children.size(); ++i) values.push_back(&node.children[i].constant);
      node.state = MakeInSet(type, values);
    }
    return Fold(std::move(node));
  }

  Result<BoundExpr> Between(const ParsedExpr& e) {
    FLOE_ASSIGN_OR_RETURN(std::vector<BoundExpr> items, BindChildren(e));
    FLOE_ASSIGN_OR_RETURN(DataType type, MeetAll(items, "compare with BETWEEN"));
    for (BoundExpr& item : items) {
      FLOE_ASSIGN_OR_RETURN(item, Coerce(std::move(item), type));
    }
    BoundExpr node = Node(BoundKind::kBetween, Bool(), e.position, std::move(items));
    node.negated = e.negated;
    return Fold(std::move(node));
  }

  Result<BoundExpr> StringOperand(const ParsedExpr& e, const std::string& context) {
    FLOE_ASSIGN_OR_RETURN(BoundExpr b, BindNode(e));
    if (b.type.id != TypeId::kString && !IsNullLiteral(b)) {
      return Error(b.position, context + " needs a string, found " + Describe(b));
    }
    return Coerce(std::move(b), String());
  }

  Result<BoundExpr> Like(const ParsedExpr& e) {
    const std::string name = e.op == "ilike" ? "ILIKE" : "LIKE";
    std::vector<BoundExpr> items;
    for (const auto& child : e.children) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr item, StringOperand(*child, name));
      items.push_back(std::move(item));
    }
    std::string escape;
    if (items.size() > 2) {
      if (items[2].kind != BoundKind::kConstant) {
        return Error(items[2].position, "the ESCAPE of " + name + " must be a constant string");
      }
      if (items[2].constant.IsValid(0)) escape = std::string(items[2].constant.StringAt(0));
      if (escape.size() > 1)
        return Error(items[2].position, "the ESCAPE of " + name + " must be one character");
    }
    BoundExpr node = Node(BoundKind::kLike, Bool(), e.position, std::move(items));
    node.negated = e.negated;
    node.ilike = e.op == "ilike";
    const BoundExpr& pattern = node.children[1];
    if (pattern.kind == BoundKind::kConstant && pattern.constant.IsValid(0)) {
      std::string text(pattern.constant.StringAt(0));
      if (node.ilike) text = Utf8Lower(text);
      Result<LikeMatcher> matcher = LikeMatcher::Compile(text, escape);
      if (!matcher.ok()) return Error(pattern.position, matcher.status().message());
      node.state = std::make_shared<const LikeMatcher>(std::move(*matcher));
    } else {
      node.can_error = true;  // a bad pattern is found per row
    }
    return Fold(std::move(node));
  }

  Result<BoundExpr> Case(const ParsedExpr& e) {
    size_t i = 0;
    std::optional<BoundExpr> operand;
    if (e.has_operand) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr b, BindNode(*e.children[i++]));
      operand = std::move(b);
    }
    const size_t pairs_end = e.children.size() - (e.has_else ? 1 : 0);
    std::vector<BoundExpr> conditions, results;
    for (; i < pairs_end; i += 2) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr when, BindNode(*e.children[i]));
      if (operand) {
        // CASE x WHEN v: the condition is x = v.
        FLOE_ASSIGN_OR_RETURN(DataType type, Meet(*operand, when, when.position, "compare"));
        FLOE_ASSIGN_OR_RETURN(BoundExpr left, Coerce(*operand, type));
        FLOE_ASSIGN_OR_RETURN(BoundExpr right, Coerce(std::move(when), type));
        const int32_t position = right.position;
        std::vector<BoundExpr> children;
        children.push_back(std::move(left));
        children.push_back(std::move(right));
        BoundExpr eq = Node(BoundKind::kCompare, Bool(), position, std::move(children));
        eq.compare = CompareOp::kEq;
        when = Fold(std::move(eq));
      } else {
        FLOE_RETURN_IF_ERROR(RequireBoolean(when, "WHEN"));
        FLOE_ASSIGN_OR_RETURN(when, Coerce(std::move(when), Bool()));
      }
      conditions.push_back(std::move(when));
      FLOE_ASSIGN_OR_RETURN(BoundExpr then, BindNode(*e.children[i + 1]));
      results.push_back(std::move(then));
    }
    if (e.has_else) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr otherwise, BindNode(*e.children.back()));
      results.push_back(std::move(otherwise));
    } else {
      results.push_back(Constant(NullConstant(Int32()), e.position, LiteralKind::kNull));
    }
    FLOE_ASSIGN_OR_RETURN(DataType type, MeetAll(results, "combine CASE results"));
    std::vector<BoundExpr> children;
    for (size_t k = 0; k < conditions.size(); ++k) {
      children.push_back(std::move(conditions[k]));
      FLOE_ASSIGN_OR_RETURN(BoundExpr then, Coerce(std::move(results[k]), type));
      children.push_back(std::move(then));
    }
    FLOE_ASSIGN_OR_RETURN(BoundExpr otherwise, Coerce(std::move(results.back()), type));
    children.push_back(std::move(otherwise));
    return Fold(Node(BoundKind::kCase, type, e.position, std::move(children)));
  }

  Status ArgCount(const ParsedExpr& e, size_t min, size_t max) {
    const size_t n = e.children.size();
    if (n >= min && n <= max) return Status::OK();
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
    if (max == SIZE_MAX) want = "at least " + std::to_string(min);
    return Error(e.position, e.text + "() takes " + want + " argument" + (min == 1 && max == 1 ? "" : "s") +
                                 ", found " + std::to_string(n));
  }

  static Result<std::string> ConstantString(const BoundExpr& b, const std::string& what) {
    if (b.kind != BoundKind::kConstant || b.type.id != TypeId::kString || b.constant.IsNull(0)) {
      return Error(b.position, what + " must be a constant string");
    }
    return std::string(b.constant.StringAt(0));
  }

  Result<BoundExpr> Function(const ParsedExpr& e) {
    const std::string& name = e.text;
    FLOE_ASSIGN_OR_RETURN(std::vector<BoundExpr> args, BindChildren(e));
    auto make = [&](FunctionId id, DataType type, bool can_fail = false) {
      BoundExpr node = Node(BoundKind::kFunction, std::move(type), e.position, std::move(args), can_fail);
      node.function = id;
      return node;
    };
    auto string_arg = [&](size_t i) -> Status {
      if (args[i].type.id != TypeId::kString && !IsNullLiteral(args[i])) {
        return Error(args[i].position, name + "() needs a string, found " + Describe(args[i]));
      }
      FLOE_ASSIGN_OR_RETURN(args[i], Coerce(std::move(args[i]), String()));
      return Status::OK();
    };
    auto integer_arg = [&](size_t i) -> Status {
      if (!IsInteger(args[i].type) && !IsNullLiteral(args[i])) {
        return Error(args[i].position, name + "() needs an integer, found " + Describe(args[i]));
      }
      FLOE_ASSIGN_OR_RETURN(args[i], Coerce(std::move(args[i]), Int64()));
      return Status::OK();
    };
    auto temporal_arg = [&](size_t i) -> Status {
      if (!IsTemporal(args[i].type) && !IsNullLiteral(args[i])) {
        return Error(args[i].position,
                     name + "() needs a date, timestamp or timestamptz, found " + Describe(args[i]));
      }
      if (IsNullLiteral(args[i])) {
        FLOE_ASSIGN_OR_RETURN(args[i], Coerce(std::move(args[i]), Timestamp(TimeUnit::kMicro, false)));
      }
      return Status::OK();
    };

    if (name == "coalesce") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, SIZE_MAX));
      FLOE_ASSIGN_OR_RETURN(DataType type, MeetAll(args, "combine COALESCE arguments"));
      for (BoundExpr& arg : args) {
        FLOE_ASSIGN_OR_RETURN(arg, Coerce(std::move(arg), type));
      }
      return Fold(Node(BoundKind::kCoalesce, type, e.position, std::move(args)));
    }
    if (name == "nullif") {
      // NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END.
      FLOE_RETURN_IF_ERROR(ArgCount(e, 2, 2));
      FLOE_RETURN_IF_ERROR(RequireScalar(args[0], "NULLIF"));
      FLOE_ASSIGN_OR_RETURN(DataType type, Meet(args[0], args[1], e.position, "compare"));
      const DataType result_type = IsNullLiteral(args[0]) ? type : args[0].type;
      FLOE_ASSIGN_OR_RETURN(BoundExpr left, Coerce(args[0], type));
      FLOE_ASSIGN_OR_RETURN(BoundExpr right, Coerce(std::move(args[1]), type));
      std::vector<BoundExpr> eq_children;
      eq_children.push_back(std::move(left));
      eq_children.push_back(std::move(right));
      BoundExpr eq = Node(BoundKind::kCompare, Bool(), e.position, std::move(eq_children));
      eq.compare = CompareOp::kEq;
      std::vector<BoundExpr> children;
      children.push_back(Fold(std::move(eq)));
      children.push_back(Constant(NullConstant(result_type), e.position));
      FLOE_ASSIGN_OR_RETURN(BoundExpr otherwise, Coerce(std::move(args[0]), result_type));
      children.push_back(std::move(otherwise));
      return Fold(Node(BoundKind::kCase, result_type, e.position, std::move(children)));
    }
    if (name == "length" || name == "char_length" || name == "lower" || name == "upper") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, 1));
      FLOE_RETURN_IF_ERROR(string_arg(0));
      if (name == "lower") return Fold(make(FunctionId::kLower, String()));
      if (name == "upper") return Fold(make(FunctionId::kUpper, String()));
      return Fold(make(FunctionId::kLength, Int64()));
    }
    if (name == "trim" || name == "ltrim" || name == "rtrim") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, 2));
      for (size_t i = 0; i < args.size(); ++i) FLOE_RETURN_IF_ERROR(string_arg(i));
      const FunctionId id = name == "trim"    ? FunctionId::kTrim
                            : name == "ltrim" ? FunctionId::kLtrim
                                              : FunctionId::kRtrim;
      return Fold(make(id, String()));
    }
    if (name == "substr" || name == "substring") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 2, 3));
      FLOE_RETURN_IF_ERROR(string_arg(0));
      for (size_t i = 1; i < args.size(); ++i) FLOE_RETURN_IF_ERROR(integer_arg(i));
      return Fold(make(FunctionId::kSubstr, String()));
    }
    if (name == "concat") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, SIZE_MAX));
      for (BoundExpr& arg : args) {
        FLOE_RETURN_IF_ERROR(RequireScalar(arg, "concat()"));
        FLOE_ASSIGN_OR_RETURN(arg, Coerce(std::move(arg), String()));
      }
      return Fold(make(FunctionId::kConcat, String()));
    }
    if (name == "regexp_matches") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 2, 3));
      for (size_t i = 0; i < args.size(); ++i) FLOE_RETURN_IF_ERROR(string_arg(i));
      FLOE_ASSIGN_OR_RETURN(std::string pattern, ConstantString(args[1], "the pattern of regexp_matches()"));
      std::string options;
      if (args.size() > 2) {
        FLOE_ASSIGN_OR_RETURN(options, ConstantString(args[2], "the options of regexp_matches()"));
      }
      Result<std::shared_ptr<const void>> regex = CompileRegex(pattern, options, args[1].position);
      if (!regex.ok()) return regex.status();
      BoundExpr node = make(FunctionId::kRegexpMatches, Bool());
      node.state = *regex;
      return Fold(std::move(node));
    }
    if (name == "date_trunc") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 2, 2));
      FLOE_RETURN_IF_ERROR(string_arg(0));
      FLOE_ASSIGN_OR_RETURN(std::string part, ConstantString(args[0], "the part of date_trunc()"));
      part = AsciiLower(part);
      static constexpr std::string_view kParts[] = {
          "millennium", "century", "decade", "year",   "quarter",     "month",      "week",
          "day",        "hour",    "minute", "second", "millisecond", "microsecond"};
      if (std::find(std::begin(kParts), std::end(kParts), part) == std::end(kParts)) {
        return Error(args[0].position,
                     "date_trunc() part '" + part +
                         "' is not one of year, quarter, month, week, day, hour, minute, second, "
                         "millisecond, microsecond, decade, century, millennium");
      }
      FLOE_RETURN_IF_ERROR(temporal_arg(1));
      DataType type = args[1].type.id == TypeId::kDate ? Timestamp(TimeUnit::kMicro, false) : args[1].type;
      BoundExpr node = make(FunctionId::kDateTrunc, type);
      node.text = part;
      return Fold(std::move(node));
    }
    if (name == "year" || name == "month" || name == "day" || name == "hour" || name == "minute" ||
        name == "second" || name == "dayofmonth") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, 1));
      FLOE_RETURN_IF_ERROR(temporal_arg(0));
      const FunctionId id = name == "year"     ? FunctionId::kYear
                            : name == "month"  ? FunctionId::kMonth
                            : name == "hour"   ? FunctionId::kHour
                            : name == "minute" ? FunctionId::kMinute
                            : name == "second" ? FunctionId::kSecond
                                               : FunctionId::kDay;
      return Fold(make(id, Int64()));
    }
    if (name == "to_date") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 1, 1));
      if (args[0].type.id == TypeId::kString || IsNullLiteral(args[0])) {
        FLOE_ASSIGN_OR_RETURN(BoundExpr cast, Coerce(std::move(args[0]), Date()));
        return cast;
      }
      FLOE_RETURN_IF_ERROR(temporal_arg(0));
      FLOE_ASSIGN_OR_RETURN(BoundExpr cast, Coerce(std::move(args[0]), Date()));
      return cast;
    }
    if (name == "current_timestamp" || name == "now") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 0, 0));
      return make(FunctionId::kCurrentTimestamp, Timestamp(TimeUnit::kMicro, true));
    }
    if (name == "ingestion_time") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 0, 0));
      return make(FunctionId::kIngestionTime, Timestamp(TimeUnit::kMicro, true));
    }
    if (name == "source_file") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 0, 0));
      return make(FunctionId::kSourceFile, String());
    }
    if (name == "source_row") {
      FLOE_RETURN_IF_ERROR(ArgCount(e, 0, 0));
      return make(FunctionId::kSourceRow, Int64());
    }
    return Error(e.position, "unknown function " + name + "()");
  }

  static Result<std::shared_ptr<const void>> CompileRegex(const std::string& pattern,
                                                          const std::string& options, int32_t position) {
    RE2::Options o;
    o.set_log_errors(false);
    o.set_dot_nl(false);  // as in DuckDB, '.' matches a newline only with option s
    for (char c : options) {
      switch (c) {
        case 'c': o.set_case_sensitive(true); break;
        case 'i': o.set_case_sensitive(false); break;
        case 'l': o.set_literal(true); break;
        case 'm':
        case 'n':
        case 'p': o.set_never_nl(false), o.set_dot_nl(false); break;
        case 's': o.set_dot_nl(true); break;
        case 'g': break;
        default:
          return Error(position, std::string("regexp_matches() option '") + c +
                                     "' is not one of c, i, l, m, n, p, s, g");
      }
    }
    auto re = std::make_shared<const RE2>(pattern, o);
    if (!re->ok()) return Error(position, "bad regular expression '" + pattern + "': " + re->error());
    return std::shared_ptr<const void>(re);
  }

  const Schema& schema_;
};

}  // namespace

Result<BoundExpr> Bind(const ParsedExpr& parsed, const Schema& schema) {
  return Binder(schema).Bind(parsed);
}

}  // namespace floe::expr
