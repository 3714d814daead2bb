#include "expr/in_set.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>

namespace floe::expr {
namespace {

// Looked up by string_view without building a key string per row.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
};

struct InSet {
  DataType type;
  std::unordered_set<std::string, KeyHash, std::equal_to<>> keys;
  // Short lists are scanned: a few length checks and compares beat hashing.
  std::vector<std::string> few;
  bool has_null = false;

  bool Contains(std::string_view key) const {
    if (keys.size() > kScanLimit) return keys.find(key) != keys.end();
    for (const std::string& k : few) {
      if (k == key) return true;
    }
    return false;
  }
  static constexpr size_t kScanLimit = 8;
};

// The bytes that identify slot i's value: fixed-width values (doubles
// normalised) or the string's bytes.
std::string_view KeyOf(const Column& c, int64_t i, double* scratch_d, float* scratch_f) {
  const int32_t width = c.type.fixed_width();
  if (c.type.id == TypeId::kFloat64) {
    double v = c.Value<double>(i);
    if (v == 0) v = 0;
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    *scratch_d = v;
    return std::string_view(reinterpret_cast<const char*>(scratch_d), sizeof(double));
  }
  if (c.type.id == TypeId::kFloat32) {
    float v = c.Value<float>(i);
    if (v == 0) v = 0;
    if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
    *scratch_f = v;
    return std::string_view(reinterpret_cast<const char*>(scratch_f), sizeof(float));
  }
  if (width > 0) {
    return std::string_view(reinterpret_cast<const char*>(c.values.data()) + i * width,
                            static_cast<size_t>(width));
  }
  return c.StringAt(i);
}

}  // namespace

std::shared_ptr<const void> MakeInSet(const DataType& type, const std::vector<const Column*>& values) {
  auto set = std::make_shared<InSet>();
  set->type = type;
  double d;
  float f;
  for (const Column* c : values) {
    if (c->IsNull(0)) {
      set->has_null = true;
    } else {
      set->keys.emplace(KeyOf(*c, 0, &d, &f));
    }
  }
  set->few.assign(set->keys.begin(), set->keys.end());
  return set;
}

Vector EvalInSet(const std::shared_ptr<const void>& state, const Vector& x, bool negated, int64_t rows) {
  const auto& set = *static_cast<const InSet*>(state.get());
  const int64_t n = x.constant ? 1 : rows;
  Column out(Bool());
  out.length = n;
  out.values.resize(static_cast<size_t>(n));
  CombineValidity({&x}, n, &out);
  double d;
  float f;
  for (int64_t i = 0; i < n; ++i) {
    if (x.col().IsNull(i)) continue;
    const bool found = set.Contains(KeyOf(x.col(), i, &d, &f));
    if (!found && set.has_null) {
      SetNull(&out, i);
      continue;
    }
    out.values[static_cast<size_t>(i)] = found != negated;
  }
  return OwnedVector(std::move(out), x.constant);
}

}  // namespace floe::expr
