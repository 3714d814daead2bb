#include "expr/arithmetic.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "expr/decimal_math.h"
#include "expr/expr_types.h"
#include "expr/value_text.h"

namespace floe::expr {
namespace {

// Applies op(x, y, &out) -> "bad" over every row; constants have stride 0.
template <typename T, typename R, typename Op>
bool Loop(const T* a, bool ca, const T* b, bool cb, R* out, int64_t n, Op op) {
  bool bad = false;
  if (!ca && !cb) {
    for (int64_t i = 0; i < n; ++i) bad |= op(a[i], b[i], out + i);
  } else if (ca && !cb) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) bad |= op(x, b[i], out + i);
  } else if (!ca && cb) {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) bad |= op(a[i], y, out + i);
  } else {
    for (int64_t i = 0; i < n; ++i) bad |= op(a[0], b[0], out + i);
  }
  return bad;
}

std::string ValueText(const Column& c, int64_t i) {
  switch (c.type.id) {
    case TypeId::kInt32: return std::to_string(c.Value<int32_t>(i));
    case TypeId::kInt64: return std::to_string(c.Value<int64_t>(i));
    case TypeId::kDecimal: return FormatDecimalText(c.Value<Int128>(i), c.type.scale);
    default: return "?";
  }
}

Status OverflowError(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b, int64_t row,
                     const EvalScope& scope) {
  return scope.RowError(ErrorKind::kOutOfRange, row,
                        "overflow in " + std::string(ArithmeticSymbol(op)) + " of " + TypeName(type) + " (" +
                            ValueText(a.col(), a.Index(row)) + " " + ArithmeticSymbol(op) + " " +
                            ValueText(b.col(), b.Index(row)) + ")");
}

// The first valid row whose `bad(i)` holds; -1 when none.
template <typename Pred>
int64_t FirstBadValidRow(const Column& out, int64_t n, Pred bad) {
  for (int64_t i = 0; i < n; ++i) {
    if (out.IsValid(i) && bad(i)) return i;
  }
  return -1;
}

template <typename T>
Result<Column> IntegerOp(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b, int64_t n,
                         const EvalScope& scope) {
  Column out(type);
  out.length = n;
  CombineValidity({&a, &b}, n, &out);
  out.values.resize(static_cast<size_t>(n) * sizeof(T));
  T* o = reinterpret_cast<T*>(out.values.data());
  const T* x = a.col().ValuesAs<T>();
  const T* y = b.col().ValuesAs<T>();
  bool bad = false;
  auto report = [&](auto check) -> Status {
    const int64_t row =
        FirstBadValidRow(out, n, [&](int64_t i) { return check(x[a.Index(i)], y[b.Index(i)]); });
    if (row >= 0) return OverflowError(op, type, a, b, row, scope);
    return Status::OK();
  };
  // One pass computing every row; only when a row overflowed, a second finds
  // the first valid one (null slots may hold anything).
  auto checked = [&](auto apply) -> Status {
    if (!Loop(x, a.constant, y, b.constant, o, n, apply)) return Status::OK();
    return report([&](T p, T q) {
      T r;
      return apply(p, q, &r);
    });
  };
  switch (op) {
    case ArithmeticOp::kAdd:
      FLOE_RETURN_IF_ERROR(checked([](T p, T q, T* r) { return __builtin_add_overflow(p, q, r); }));
      break;
    case ArithmeticOp::kSubtract:
      FLOE_RETURN_IF_ERROR(checked([](T p, T q, T* r) { return __builtin_sub_overflow(p, q, r); }));
      break;
    case ArithmeticOp::kMultiply:
      FLOE_RETURN_IF_ERROR(checked([](T p, T q, T* r) { return __builtin_mul_overflow(p, q, r); }));
      break;
    case ArithmeticOp::kIntegerDivide:
    case ArithmeticOp::kModulo: {
      const bool divide = op == ArithmeticOp::kIntegerDivide;
      // A zero divisor is null; MIN / -1 overflows (MIN % -1 too, as in DuckDB).
      bad = Loop(x, a.constant, y, b.constant, o, n, [divide](T p, T q, T* r) {
        if (q == 0 || (q == -1 && p == std::numeric_limits<T>::min())) {
          *r = 0;
          return true;
        }
        *r = divide ? p / q : p % q;
        return false;
      });
      if (bad) {
        for (int64_t i = 0; i < n; ++i) {
          if (out.IsValid(i) && y[b.Index(i)] == 0) SetNull(&out, i);
        }
        FLOE_RETURN_IF_ERROR(report([](T p, T q) { return q == -1 && p == std::numeric_limits<T>::min(); }));
      }
      break;
    }
    case ArithmeticOp::kDivide: return Status::Internal("integer / is computed as double");
  }
  return out;
}

template <typename T>
Column FloatOp(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b, int64_t n) {
  Column out(type);
  out.length = n;
  CombineValidity({&a, &b}, n, &out);
  out.values.resize(static_cast<size_t>(n) * sizeof(T));
  T* o = reinterpret_cast<T*>(out.values.data());
  const T* x = a.col().ValuesAs<T>();
  const T* y = b.col().ValuesAs<T>();
  auto run = [&](auto f) {
    Loop(x, a.constant, y, b.constant, o, n, [f](T p, T q, T* r) {
      *r = f(p, q);
      return false;
    });
  };
  switch (op) {
    case ArithmeticOp::kAdd: run(std::plus<T>()); break;
    case ArithmeticOp::kSubtract: run(std::minus<T>()); break;
    case ArithmeticOp::kMultiply: run(std::multiplies<T>()); break;
    case ArithmeticOp::kDivide: run(std::divides<T>()); break;
    case ArithmeticOp::kModulo:
      run([](T p, T q) { return std::fmod(p, q); });
      break;                                   // x % 0 is nan, as DuckDB
    case ArithmeticOp::kIntegerDivide: break;  // refused at bind time
  }
  return out;
}

Result<Column> DecimalOp(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b, int64_t n,
                         const EvalScope& scope) {
  Column out(type);
  out.length = n;
  CombineValidity({&a, &b}, n, &out);
  out.values.resize(static_cast<size_t>(n) * sizeof(Int128));
  Int128* o = reinterpret_cast<Int128*>(out.values.data());
  const Int128* x = a.col().ValuesAs<Int128>();
  const Int128* y = b.col().ValuesAs<Int128>();
  const int32_t s1 = a.col().type.scale, s2 = b.col().type.scale, s = type.scale;
  const Int128 limit = Pow10(type.precision);
  bool bad = false;
  bool zero_divisor = false;
  switch (op) {
    case ArithmeticOp::kAdd:
    case ArithmeticOp::kSubtract:
    case ArithmeticOp::kModulo: {
      // Both operands at the result's scale (for %, the larger of the two).
      const Int128 fa = Pow10(s - s1), fb = Pow10(s - s2);
      const bool subtract = op == ArithmeticOp::kSubtract, modulo = op == ArithmeticOp::kModulo;
      bad = Loop(x, a.constant, y, b.constant, o, n, [&](Int128 p, Int128 q, Int128* r) {
        Int128 sp, sq;
        const bool of_a = __builtin_mul_overflow(p, fa, &sp);
        const bool of_b = __builtin_mul_overflow(q, fb, &sq);
        bool of = of_a || of_b;
        if (modulo) {
          if (sq == 0) {
            *r = 0;
            zero_divisor = true;
            return of;
          }
          *r = sp % sq;
          return of;
        }
        of |= subtract ? __builtin_sub_overflow(sp, sq, r) : __builtin_add_overflow(sp, sq, r);
        return of || *r >= limit || *r <= -limit;
      });
      break;
    }
    case ArithmeticOp::kMultiply:
      bad = Loop(x, a.constant, y, b.constant, o, n, [&](Int128 p, Int128 q, Int128* r) {
        return __builtin_mul_overflow(p, q, r) || *r >= limit || *r <= -limit;
      });
      break;
    case ArithmeticOp::kDivide: {
      const int32_t shift = s - s1 + s2;
      bad = Loop(x, a.constant, y, b.constant, o, n, [&](Int128 p, Int128 q, Int128* r) {
        if (q == 0) {
          *r = 0;
          zero_divisor = true;
          return false;
        }
        return !DivideRounded(p, shift, q, limit, r);
      });
      break;
    }
    case ArithmeticOp::kIntegerDivide: return Status::Internal("// on decimals is refused at bind time");
  }
  if (zero_divisor) {
    for (int64_t i = 0; i < n; ++i) {
      if (y[b.Index(i)] == 0) SetNull(&out, i);
    }
  }
  if (bad) {
    // Find the first valid row that really overflowed (null slots may hold anything).
    for (int64_t i = 0; i < n; ++i) {
      if (!out.IsValid(i)) continue;
      const Int128 p = x[a.Index(i)], q = y[b.Index(i)];
      Int128 r = 0;
      bool of = false;
      switch (op) {
        case ArithmeticOp::kAdd:
        case ArithmeticOp::kSubtract:
        case ArithmeticOp::kModulo: {
          Int128 sp, sq;
          const bool of_a = __builtin_mul_overflow(p, Pow10(s - s1), &sp);
          const bool of_b = __builtin_mul_overflow(q, Pow10(s - s2), &sq);
          of = of_a || of_b;
          if (!of && op != ArithmeticOp::kModulo) {
            of = (op == ArithmeticOp::kSubtract ? __builtin_sub_overflow(sp, sq, &r)
                                                : __builtin_add_overflow(sp, sq, &r)) ||
                 r >= limit || r <= -limit;
          }
          break;
        }
        case ArithmeticOp::kMultiply:
          of = __builtin_mul_overflow(p, q, &r) || r >= limit || r <= -limit;
          break;
        case ArithmeticOp::kDivide: of = q != 0 && !DivideRounded(p, s - s1 + s2, q, limit, &r); break;
        case ArithmeticOp::kIntegerDivide: break;
      }
      if (of) return OverflowError(op, type, a, b, i, scope);
    }
  }
  return out;
}

}  // namespace

const char* ArithmeticSymbol(ArithmeticOp op) {
  switch (op) {
    case ArithmeticOp::kAdd: return "+";
    case ArithmeticOp::kSubtract: return "-";
    case ArithmeticOp::kMultiply: return "*";
    case ArithmeticOp::kDivide: return "/";
    case ArithmeticOp::kIntegerDivide: return "//";
    case ArithmeticOp::kModulo: return "%";
  }
  return "?";
}

Result<Vector> EvalArithmetic(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b,
                              int64_t rows, const EvalScope& scope) {
  const bool constant = a.constant && b.constant;
  const int64_t n = constant ? 1 : rows;
  Result<Column> out = Status::Internal("unsupported arithmetic type " + type.ToString());
  switch (type.id) {
    case TypeId::kInt32: out = IntegerOp<int32_t>(op, type, a, b, n, scope); break;
    case TypeId::kInt64: out = IntegerOp<int64_t>(op, type, a, b, n, scope); break;
    case TypeId::kFloat32: out = FloatOp<float>(op, type, a, b, n); break;
    case TypeId::kFloat64: out = FloatOp<double>(op, type, a, b, n); break;
    case TypeId::kDecimal: out = DecimalOp(op, type, a, b, n, scope); break;
    default: break;
  }
  if (!out.ok()) return out.status();
  return OwnedVector(std::move(*out), constant);
}

Result<Vector> EvalNegate(const Vector& a, int64_t rows, const EvalScope& scope) {
  const int64_t n = a.constant ? 1 : rows;
  const DataType& type = a.col().type;
  Column out(type);
  out.length = n;
  CombineValidity({&a}, n, &out);
  const int32_t width = type.fixed_width();
  out.values.resize(static_cast<size_t>(n * width));
  auto negate = [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* x = a.col().ValuesAs<T>();
    T* o = reinterpret_cast<T*>(out.values.data());
    bool bad = false;
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        o[i] = -x[i];
      } else {
        bad |= __builtin_sub_overflow(T(0), x[i], o + i);
      }
    }
    if (bad) {
      for (int64_t i = 0; i < n; ++i) {
        T r;
        if constexpr (!std::is_floating_point_v<T>) {
          if (out.IsValid(i) && __builtin_sub_overflow(T(0), x[i], &r)) {
            return scope.RowError(
                ErrorKind::kOutOfRange, i,
                "overflow in negation of " + TypeName(type) + " (-" + ValueText(a.col(), i) + ")");
          }
        }
      }
    }
    return Status::OK();
  };
  switch (type.id) {
    case TypeId::kInt32: FLOE_RETURN_IF_ERROR(negate(int32_t{})); break;
    case TypeId::kInt64: FLOE_RETURN_IF_ERROR(negate(int64_t{})); break;
    case TypeId::kFloat32: FLOE_RETURN_IF_ERROR(negate(float{})); break;
    case TypeId::kFloat64: FLOE_RETURN_IF_ERROR(negate(double{})); break;
    case TypeId::kDecimal: FLOE_RETURN_IF_ERROR(negate(Int128{})); break;
    default: return Status::Internal("negation of " + type.ToString());
  }
  return OwnedVector(std::move(out), a.constant);
}

}  // namespace floe::expr
