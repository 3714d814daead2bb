#include "expr/comparison.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "expr/value_text.h"

namespace floe::expr {
namespace {

// -1, 0, 1 in DuckDB's order for floats.
template <typename F>
int CompareFloat(F a, F b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// Writes op(a[i], b[i]) for every row; `cmp(i, j)` compares slot i of a with slot j of b.
template <typename Cmp>
void CompareRows(CompareOp op, const Vector& a, const Vector& b, int64_t n, uint8_t* out, Cmp cmp) {
  switch (op) {
    case CompareOp::kEq:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) == 0;
      break;
    case CompareOp::kNe:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) != 0;
      break;
    case CompareOp::kLt:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) < 0;
      break;
    case CompareOp::kLe:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) <= 0;
      break;
    case CompareOp::kGt:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) > 0;
      break;
    case CompareOp::kGe:
      for (int64_t i = 0; i < n; ++i) out[i] = cmp(a.Index(i), b.Index(i)) >= 0;
      break;
  }
}

// Fixed-width integers: direct comparisons the compiler vectorises.
template <typename T>
void CompareIntegers(CompareOp op, const Vector& a, const Vector& b, int64_t n, uint8_t* out) {
  const T* x = a.col().ValuesAs<T>();
  const T* y = b.col().ValuesAs<T>();
  auto run = [&](auto f) {
    if (!a.constant && !b.constant) {
      for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
    } else if (!a.constant) {
      const T c = y[0];
      for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], c);
    } else if (!b.constant) {
      const T c = x[0];
      for (int64_t i = 0; i < n; ++i) out[i] = f(c, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = f(x[0], y[0]);
    }
  };
  switch (op) {
    case CompareOp::kEq: run([](T p, T q) { return p == q; }); break;
    case CompareOp::kNe: run([](T p, T q) { return p != q; }); break;
    case CompareOp::kLt: run([](T p, T q) { return p < q; }); break;
    case CompareOp::kLe: run([](T p, T q) { return p <= q; }); break;
    case CompareOp::kGt: run([](T p, T q) { return p > q; }); break;
    case CompareOp::kGe: run([](T p, T q) { return p >= q; }); break;
  }
}

void CompareInto(CompareOp op, const Vector& a, const Vector& b, int64_t n, uint8_t* out) {
  const Column& x = a.col();
  const Column& y = b.col();
  switch (x.type.id) {
    case TypeId::kBool: CompareIntegers<uint8_t>(op, a, b, n, out); return;
    case TypeId::kInt32:
    case TypeId::kDate: CompareIntegers<int32_t>(op, a, b, n, out); return;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp: CompareIntegers<int64_t>(op, a, b, n, out); return;
    case TypeId::kDecimal: CompareIntegers<Int128>(op, a, b, n, out); return;
    case TypeId::kFloat32: {
      const float* p = x.ValuesAs<float>();
      const float* q = y.ValuesAs<float>();
      CompareRows(op, a, b, n, out, [&](int64_t i, int64_t j) { return CompareFloat(p[i], q[j]); });
      return;
    }
    case TypeId::kFloat64: {
      const double* p = x.ValuesAs<double>();
      const double* q = y.ValuesAs<double>();
      CompareRows(op, a, b, n, out, [&](int64_t i, int64_t j) { return CompareFloat(p[i], q[j]); });
      return;
    }
    case TypeId::kUuid:
      CompareRows(op, a, b, n, out, [&](int64_t i, int64_t j) {
        return std::memcmp(x.values.data() + i * 16, y.values.data() + j * 16, 16);
      });
      return;
    default:  // string, binary
      if (op == CompareOp::kEq || op == CompareOp::kNe) {
        // Equality needs no order: string_view compares lengths first.
        const uint8_t want = op == CompareOp::kEq;
        for (int64_t r = 0; r < n; ++r) {
          const std::string_view p = x.StringAt(a.Index(r)), q = y.StringAt(b.Index(r));
          // string_view's == and not memcmp: an empty column's buffer is null,
          // and memcmp on a null pointer is undefined even for zero bytes.
          out[r] = (p == q) == want;
        }
        return;
      }
      CompareRows(op, a, b, n, out, [&](int64_t i, int64_t j) {
        const int c = x.StringAt(i).compare(y.StringAt(j));
        return c < 0 ? -1 : c > 0 ? 1 : 0;
      });
      return;
  }
}

Column BoolColumn(int64_t n) {
  Column out(Bool());
  out.length = n;
  out.values.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

Vector EvalCompare(CompareOp op, const Vector& a, const Vector& b, int64_t rows) {
  const bool constant = a.constant && b.constant;
  const int64_t n = constant ? 1 : rows;
  Column out = BoolColumn(n);
  CombineValidity({&a, &b}, n, &out);
  CompareInto(op, a, b, n, out.values.data());
  return OwnedVector(std::move(out), constant);
}

namespace {

// AND (deciding value false) or OR (deciding value true): a valid deciding
// value on either side decides; otherwise a null side makes the row null.
Vector EvalConnective(bool is_and, const Vector& a, const Vector& b, int64_t rows) {
  const bool constant = a.constant && b.constant;
  const int64_t n = constant ? 1 : rows;
  Column out = BoolColumn(n);
  const uint8_t* x = a.col().values.data();
  const uint8_t* y = b.col().values.data();
  if (is_and) {
    for (int64_t i = 0; i < n; ++i) out.values[i] = x[a.Index(i)] & y[b.Index(i)];
  } else {
    for (int64_t i = 0; i < n; ++i) out.values[i] = x[a.Index(i)] | y[b.Index(i)];
  }
  if (a.col().null_count > 0 || b.col().null_count > 0) {
    const uint8_t decides = is_and ? 0 : 1;
    for (int64_t i = 0; i < n; ++i) {
      const bool va = a.IsValid(i), vb = b.IsValid(i);
      if ((va && x[a.Index(i)] == decides) || (vb && y[b.Index(i)] == decides)) {
        out.values[i] = decides;
      } else if (!va || !vb) {
        out.values[i] = 0;
        SetNull(&out, i);
      }
    }
  }
  return OwnedVector(std::move(out), constant);
}

}  // namespace

Vector EvalAnd(const Vector& a, const Vector& b, int64_t rows) {
  return EvalConnective(true, a, b, rows);
}
Vector EvalOr(const Vector& a, const Vector& b, int64_t rows) {
  return EvalConnective(false, a, b, rows);
}

Vector EvalNot(const Vector& a, int64_t rows) {
  const int64_t n = a.constant ? 1 : rows;
  Column out = BoolColumn(n);
  CombineValidity({&a}, n, &out);
  const uint8_t* x = a.col().values.data();
  for (int64_t i = 0; i < n; ++i) out.values[i] = !x[i];
  return OwnedVector(std::move(out), a.constant);
}

Vector EvalBetween(const Vector& x, const Vector& low, const Vector& high, bool negated, int64_t rows) {
  Vector ge = EvalCompare(CompareOp::kGe, x, low, rows);
  Vector le = EvalCompare(CompareOp::kLe, x, high, rows);
  Vector both = EvalAnd(ge, le, rows);
  return negated ? EvalNot(both, rows) : both;
}

}  // namespace floe::expr
