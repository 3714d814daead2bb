#include "expr/evaluator.h"

#include <cstring>
#include <numeric>

#include "expr/arithmetic.h"
#include "expr/cast.h"
#include "expr/comparison.h"
#include "expr/constants.h"
#include "expr/datetime_functions.h"
#include "expr/in_set.h"
#include "expr/string_functions.h"

namespace floe::expr {
namespace {

// A part of a result: the frame rows `positions` take their values from `v`
// (slot j for the j-th position, or slot = position when `full`).
struct Piece {
  const std::vector<int32_t>* positions;
  Vector v;
  bool full;
};

// Assembles a column of `rows` slots of `type` from pieces that cover
// distinct rows; rows no piece covers are null.
Column Assemble(const DataType& type, int64_t rows, const std::vector<Piece>& pieces) {
  Column out(type);
  out.length = rows;
  out.validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
  const int32_t width = type.fixed_width();
  auto source = [](const Piece& p, size_t j) -> int64_t {
    const int64_t slot = p.full ? (*p.positions)[j] : static_cast<int64_t>(j);
    return p.v.Index(slot);
  };
  if (width > 0) {
    out.values.assign(static_cast<size_t>(rows) * static_cast<size_t>(width), 0);
    for (const Piece& p : pieces) {
      const Column& c = p.v.col();
      for (size_t j = 0; j < p.positions->size(); ++j) {
        const int64_t pos = (*p.positions)[j], src = source(p, j);
        if (c.IsNull(src)) continue;
        std::memcpy(out.values.data() + pos * width, c.values.data() + src * width,
                    static_cast<size_t>(width));
        out.validity[static_cast<size_t>(pos >> 3)] |= static_cast<uint8_t>(1u << (pos & 7));
      }
    }
  } else {
    // Variable width: find each row's source, then append in row order.
    std::vector<std::pair<int32_t, int64_t>> from(static_cast<size_t>(rows), {-1, 0});
    for (size_t k = 0; k < pieces.size(); ++k) {
      for (size_t j = 0; j < pieces[k].positions->size(); ++j) {
        from[static_cast<size_t>((*pieces[k].positions)[j])] = {static_cast<int32_t>(k),
                                                                source(pieces[k], j)};
      }
    }
    out.offsets.assign(1, 0);
    out.offsets.reserve(static_cast<size_t>(rows + 1));
    for (int64_t pos = 0; pos < rows; ++pos) {
      const auto [k, src] = from[static_cast<size_t>(pos)];
      if (k >= 0 && pieces[static_cast<size_t>(k)].v.col().IsValid(src)) {
        const std::string_view s = pieces[static_cast<size_t>(k)].v.col().StringAt(src);
        out.data.insert(out.data.end(), s.begin(), s.end());
        out.validity[static_cast<size_t>(pos >> 3)] |= static_cast<uint8_t>(1u << (pos & 7));
      }
      out.offsets.push_back(static_cast<int64_t>(out.data.size()));
    }
  }
  RecountNulls(&out);
  return out;
}

class Evaluator {
 public:
  Evaluator(const EvalContext& context) : context_(context) {}

  Result<Vector> Eval(const BoundExpr& e, const Frame& frame) {
    EvalScope scope{&frame, &context_};
    const int64_t rows = frame.rows;
    switch (e.kind) {
      case BoundKind::kConstant: return BorrowedConstant(e);
      case BoundKind::kColumn: return ColumnRef(e, frame);
      case BoundKind::kCast: {
        FLOE_ASSIGN_OR_RETURN(Vector in, Eval(e.children[0], frame));
        return EvalCast(in, e.type, e.try_cast, rows, scope);
      }
      case BoundKind::kNegate: {
        FLOE_ASSIGN_OR_RETURN(Vector in, Eval(e.children[0], frame));
        return EvalNegate(in, rows, scope);
      }
      case BoundKind::kNot: {
        FLOE_ASSIGN_OR_RETURN(Vector in, Eval(e.children[0], frame));
        return EvalNot(in, rows);
      }
      case BoundKind::kArithmetic: {
        FLOE_ASSIGN_OR_RETURN(Vector a, Eval(e.children[0], frame));
        FLOE_ASSIGN_OR_RETURN(Vector b, Eval(e.children[1], frame));
        return EvalArithmetic(e.arithmetic, e.type, a, b, rows, scope);
      }
      case BoundKind::kCompare: {
        FLOE_ASSIGN_OR_RETURN(Vector a, Eval(e.children[0], frame));
        FLOE_ASSIGN_OR_RETURN(Vector b, Eval(e.children[1], frame));
        return EvalCompare(e.compare, a, b, rows);
      }
      case BoundKind::kAnd:
      case BoundKind::kOr: return Logical(e, frame);
      case BoundKind::kIsNull: {
        FLOE_ASSIGN_OR_RETURN(Vector in, Eval(e.children[0], frame));
        const int64_t n = in.constant ? 1 : rows;
        Column out(Bool());
        out.length = n;
        out.values.resize(static_cast<size_t>(n));
        const Column& c = in.col();
        for (int64_t i = 0; i < n; ++i) out.values[static_cast<size_t>(i)] = c.IsNull(i) != e.negated;
        return OwnedVector(std::move(out), in.constant);
      }
      case BoundKind::kIn: return In(e, frame);
      case BoundKind::kBetween: {
        FLOE_ASSIGN_OR_RETURN(Vector x, Eval(e.children[0], frame));
        FLOE_ASSIGN_OR_RETURN(Vector low, Eval(e.children[1], frame));
        FLOE_ASSIGN_OR_RETURN(Vector high, Eval(e.children[2], frame));
        return EvalBetween(x, low, high, e.negated, rows);
      }
      case BoundKind::kLike: {
        FLOE_ASSIGN_OR_RETURN(std::vector<Vector> args, EvalAll(e, frame));
        return EvalLike(e, args, rows, scope);
      }
      case BoundKind::kCase: return Case(e, frame);
      case BoundKind::kCoalesce: return Coalesce(e, frame);
      case BoundKind::kFunction: return Function(e, frame, scope);
    }
    return Status::Internal("unknown bound expression");
  }

 private:
  static Vector BorrowedConstant(const BoundExpr& e) {
    Vector v = BorrowedVector(e.constant);
    v.constant = true;
    return v;
  }

  Result<std::vector<Vector>> EvalAll(const BoundExpr& e, const Frame& frame) {
    std::vector<Vector> args;
    args.reserve(e.children.size());
    for (const BoundExpr& child : e.children) {
      FLOE_ASSIGN_OR_RETURN(Vector v, Eval(child, frame));
      args.push_back(std::move(v));
    }
    return args;
  }

  Result<Vector> ColumnRef(const BoundExpr& e, const Frame& frame) {
    const RecordBatch& batch = *frame.batch;
    const size_t top = static_cast<size_t>(e.column_path[0]);
    if (top >= batch.columns.size()) {
      return Status::Internal("column " + e.text + " is not in the batch");
    }
    const Column* column = &batch.columns[top];
    // A struct member is null where any enclosing struct is.
    std::vector<const Column*> parents;
    for (size_t k = 1; k < e.column_path.size(); ++k) {
      parents.push_back(column);
      column = &column->children[static_cast<size_t>(e.column_path[k])];
    }
    Vector v = BorrowedVector(*column);
    bool parent_nulls = false;
    for (const Column* p : parents) parent_nulls = parent_nulls || p->null_count > 0;
    if (parent_nulls) {
      Column copy = *column;
      std::vector<Vector> holders;
      for (const Column* p : parents) holders.push_back(BorrowedVector(*p));
      holders.push_back(BorrowedVector(*column));
      std::vector<const Vector*> inputs;
      for (const Vector& h : holders) inputs.push_back(&h);
      CombineValidity(inputs, column->length, &copy);
      v = OwnedVector(std::move(copy));
    }
    if (frame.sel) return OwnedVector(Gather(v, *frame.sel));
    return v;
  }

  // Evaluates `e` on the frame rows `positions` (ascending): on the frame
  // itself when they are all of its rows or when `e` cannot fail (no gather:
  // cheaper than selecting, and the rows it should skip are not taken from
  // it); the result is then `full`, indexed by frame row.
  Result<Piece> EvalOn(const BoundExpr& e, const Frame& frame, const std::vector<int32_t>* positions) {
    if (static_cast<int64_t>(positions->size()) == frame.rows || !e.can_error) {
      FLOE_ASSIGN_OR_RETURN(Vector v, Eval(e, frame));
      return Piece{positions, std::move(v), true};
    }
    auto sel = std::make_unique<std::vector<int32_t>>();
    sel->reserve(positions->size());
    for (int32_t p : *positions) sel->push_back(static_cast<int32_t>(frame.BatchRow(p)));
    Frame sub{frame.batch, sel.get(), static_cast<int64_t>(sel->size())};
    FLOE_ASSIGN_OR_RETURN(Vector v, Eval(e, sub));
    return Piece{positions, std::move(v), false};
  }

  std::vector<int32_t>* NewPositions() {
    positions_.push_back(std::make_unique<std::vector<int32_t>>());
    return positions_.back().get();
  }
  const std::vector<int32_t>* AllPositions(int64_t rows) {
    std::vector<int32_t>* all = NewPositions();
    all->resize(static_cast<size_t>(rows));
    std::iota(all->begin(), all->end(), 0);
    return all;
  }

  // AND / OR: the right side is computed only where the left does not decide
  // when it can fail; otherwise on every row.
  Result<Vector> Logical(const BoundExpr& e, const Frame& frame) {
    const bool is_and = e.kind == BoundKind::kAnd;
    FLOE_ASSIGN_OR_RETURN(Vector left, Eval(e.children[0], frame));
    auto combine = [&](const Vector& a, const Vector& b) {
      return is_and ? EvalAnd(a, b, frame.rows) : EvalOr(a, b, frame.rows);
    };
    const BoundExpr& right_expr = e.children[1];
    if (!right_expr.can_error) {
      FLOE_ASSIGN_OR_RETURN(Vector right, Eval(right_expr, frame));
      return combine(left, right);
    }
    // Rows where the left side decides: a valid false (AND) or true (OR).
    const uint8_t decided_value = is_and ? 0 : 1;
    std::vector<int32_t>* open = NewPositions();
    std::vector<int32_t>* decided = NewPositions();
    for (int64_t i = 0; i < frame.rows; ++i) {
      const bool decides =
          left.IsValid(i) && left.col().values[static_cast<size_t>(left.Index(i))] == decided_value;
      (decides ? decided : open)->push_back(static_cast<int32_t>(i));
    }
    if (open->empty()) return left;
    FLOE_ASSIGN_OR_RETURN(Piece right, EvalOn(right_expr, frame, open));
    if (right.full) return combine(left, right.v);
    Vector filler = OwnedVector(BoolConstant(decided_value != 0), true);
    std::vector<Piece> pieces{std::move(right), Piece{decided, filler, false}};
    Vector right_full = OwnedVector(Assemble(Bool(), frame.rows, pieces));
    return combine(left, right_full);
  }

  Result<Vector> In(const BoundExpr& e, const Frame& frame) {
    FLOE_ASSIGN_OR_RETURN(Vector x, Eval(e.children[0], frame));
    if (e.state) return EvalInSet(e.state, x, e.negated, frame.rows);
    // Items that are not constants: x = a OR x = b OR ..., in SQL logic.
    std::optional<Vector> any;
    for (size_t k = 1; k < e.children.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(Vector item, Eval(e.children[k], frame));
      Vector eq = EvalCompare(CompareOp::kEq, x, item, frame.rows);
      any = any ? EvalOr(*any, eq, frame.rows) : eq;
    }
    return e.negated ? EvalNot(*any, frame.rows) : *any;
  }

  // True where a boolean vector is a valid true.
  static bool IsTrue(const Vector& v, int64_t i) {
    return v.IsValid(i) && v.col().values[static_cast<size_t>(v.Index(i))] != 0;
  }

  Result<Vector> Case(const BoundExpr& e, const Frame& frame) {
    const size_t branches = (e.children.size() - 1) / 2;
    std::vector<Piece> pieces;
    const std::vector<int32_t>* remaining = AllPositions(frame.rows);
    bool all_constant = true;
    for (size_t k = 0; k < branches && !remaining->empty(); ++k) {
      FLOE_ASSIGN_OR_RETURN(Piece cond, EvalOn(e.children[2 * k], frame, remaining));
      std::vector<int32_t>* matched = NewPositions();
      std::vector<int32_t>* rest = NewPositions();
      for (size_t j = 0; j < remaining->size(); ++j) {
        const int64_t slot = cond.full ? (*remaining)[j] : static_cast<int64_t>(j);
        (IsTrue(cond.v, slot) ? matched : rest)->push_back((*remaining)[j]);
      }
      if (!matched->empty()) {
        FLOE_ASSIGN_OR_RETURN(Piece then, EvalOn(e.children[2 * k + 1], frame, matched));
        all_constant = all_constant && then.v.constant;
        pieces.push_back(std::move(then));
      }
      remaining = rest;
    }
    if (!remaining->empty()) {
      FLOE_ASSIGN_OR_RETURN(Piece otherwise, EvalOn(e.children.back(), frame, remaining));
      all_constant = all_constant && otherwise.v.constant;
      pieces.push_back(std::move(otherwise));
    }
    if (pieces.size() == 1 && static_cast<int64_t>(pieces[0].positions->size()) == frame.rows &&
        pieces[0].full) {
      return pieces[0].v;  // one branch took every row
    }
    return OwnedVector(Assemble(e.type, frame.rows, pieces));
  }

  Result<Vector> Coalesce(const BoundExpr& e, const Frame& frame) {
    std::vector<Piece> pieces;
    const std::vector<int32_t>* remaining = AllPositions(frame.rows);
    for (size_t k = 0; k < e.children.size() && !remaining->empty(); ++k) {
      FLOE_ASSIGN_OR_RETURN(Piece arg, EvalOn(e.children[k], frame, remaining));
      if (k == 0 && arg.v.col().null_count == 0 && !arg.v.IsConstantNull()) return arg.v;
      std::vector<int32_t>* valid = NewPositions();
      std::vector<int32_t>* nulls = NewPositions();
      for (size_t j = 0; j < remaining->size(); ++j) {
        const int64_t slot = arg.full ? (*remaining)[j] : static_cast<int64_t>(j);
        (arg.v.IsValid(slot) ? valid : nulls)->push_back((*remaining)[j]);
      }
      if (!valid->empty()) {
        // The piece keeps its slots; only the valid positions are taken from it.
        if (arg.full) {
          pieces.push_back(Piece{valid, arg.v, true});
        } else {
          std::vector<int32_t>* slots = NewPositions();
          for (size_t j = 0; j < remaining->size(); ++j) {
            if (arg.v.IsValid(static_cast<int64_t>(j))) slots->push_back(static_cast<int32_t>(j));
          }
          pieces.push_back(Piece{valid, OwnedVector(Gather(arg.v, *slots)), false});
        }
      }
      remaining = nulls;
    }
    return OwnedVector(Assemble(e.type, frame.rows, pieces));
  }

  Result<Vector> Function(const BoundExpr& e, const Frame& frame, const EvalScope& scope) {
    switch (e.function) {
      case FunctionId::kCurrentTimestamp:
        return OwnedVector(TimestampConstant(context_.current_timestamp_us, true), true);
      case FunctionId::kIngestionTime:
        return OwnedVector(TimestampConstant(context_.ingestion_time_us, true), true);
      case FunctionId::kSourceFile: {
        if (!context_.source_file_column) return OwnedVector(StringConstant(context_.source_file), true);
        Vector all = BorrowedVector(*context_.source_file_column);
        if (context_.source_file_column->length < frame.batch->num_rows) {
          return Status::InvalidArgument(
              "source_file(): the context's file column is shorter than the batch");
        }
        if (!frame.sel && context_.source_file_column->length == frame.rows) return all;
        std::vector<int32_t> rows;
        for (int64_t i = 0; i < frame.rows; ++i) rows.push_back(static_cast<int32_t>(frame.BatchRow(i)));
        return OwnedVector(Gather(all, rows));
      }
      case FunctionId::kSourceRow: {
        Column out(Int64());
        out.length = frame.rows;
        out.values.resize(static_cast<size_t>(frame.rows) * 8);
        int64_t* o = reinterpret_cast<int64_t*>(out.values.data());
        const Column* given = context_.source_row_column;
        if (given && given->length < frame.batch->num_rows) {
          return Status::InvalidArgument("source_row(): the context's row column is shorter than the batch");
        }
        for (int64_t i = 0; i < frame.rows; ++i) {
          const int64_t row = frame.BatchRow(i);
          o[i] = given ? given->Value<int64_t>(row) : context_.first_source_row + row;
        }
        return OwnedVector(std::move(out));
      }
      default: break;
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<Vector> args, EvalAll(e, frame));
    switch (e.function) {
      case FunctionId::kDateTrunc:
      case FunctionId::kYear:
      case FunctionId::kMonth:
      case FunctionId::kDay:
      case FunctionId::kHour:
      case FunctionId::kMinute:
      case FunctionId::kSecond: return EvalDatetimeFunction(e, args, frame.rows, scope);
      default: return EvalStringFunction(e, args, frame.rows, scope);
    }
  }

  const EvalContext& context_;
  // Position lists live until the evaluation ends (pieces point into them).
  std::vector<std::unique_ptr<std::vector<int32_t>>> positions_;
};

}  // namespace

Result<Vector> EvaluateBound(const BoundExpr& e, const Frame& frame, const EvalContext& context) {
  Evaluator evaluator(context);
  return evaluator.Eval(e, frame);
}

}  // namespace floe::expr
