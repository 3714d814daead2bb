#include "maintenance/row_sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "columnar/column_rows.h"

namespace floe::maintenance {
namespace {

int FindColumn(const Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

template <typename T>
int CompareNumbers(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
int CompareFloats(T a, T b) {
  const bool a_nan = std::isnan(a);
  const bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return static_cast<int>(a_nan) - static_cast<int>(b_nan);
  return CompareNumbers(a, b);
}

int CompareBytes(const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size) {
  const size_t n = std::min(a_size, b_size);
  const int c = n == 0 ? 0 : std::memcmp(a, b, n);
  if (c != 0) return c < 0 ? -1 : 1;
  return CompareNumbers(a_size, b_size);
}

// binary16 bits mapped so that unsigned order is numeric order (sign-magnitude flipped).
uint16_t HalfOrderKey(uint16_t bits) {
  return (bits & 0x8000) != 0 ? static_cast<uint16_t>(~bits) : static_cast<uint16_t>(bits | 0x8000);
}

// Compares two non-null values of a primitive column.
int CompareValues(const Column& c, int64_t i, int64_t j) {
  switch (c.type.id) {
    case TypeId::kBool:
    case TypeId::kUInt8: return CompareNumbers(c.Value<uint8_t>(i), c.Value<uint8_t>(j));
    case TypeId::kInt8: return CompareNumbers(c.Value<int8_t>(i), c.Value<int8_t>(j));
    case TypeId::kInt16: return CompareNumbers(c.Value<int16_t>(i), c.Value<int16_t>(j));
    case TypeId::kUInt16: return CompareNumbers(c.Value<uint16_t>(i), c.Value<uint16_t>(j));
    case TypeId::kFloat16:
      return CompareNumbers(HalfOrderKey(c.Value<uint16_t>(i)), HalfOrderKey(c.Value<uint16_t>(j)));
    case TypeId::kInt32:
    case TypeId::kDate: return CompareNumbers(c.Value<int32_t>(i), c.Value<int32_t>(j));
    case TypeId::kUInt32: return CompareNumbers(c.Value<uint32_t>(i), c.Value<uint32_t>(j));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp: return CompareNumbers(c.Value<int64_t>(i), c.Value<int64_t>(j));
    case TypeId::kUInt64: return CompareNumbers(c.Value<uint64_t>(i), c.Value<uint64_t>(j));
    case TypeId::kFloat32: return CompareFloats(c.Value<float>(i), c.Value<float>(j));
    case TypeId::kFloat64: return CompareFloats(c.Value<double>(i), c.Value<double>(j));
    case TypeId::kDecimal: return CompareNumbers(c.Value<__int128>(i), c.Value<__int128>(j));
    case TypeId::kString:
    case TypeId::kBinary: {
      const std::string_view a = c.StringAt(i);
      const std::string_view b = c.StringAt(j);
      return CompareBytes(reinterpret_cast<const uint8_t*>(a.data()), a.size(),
                          reinterpret_cast<const uint8_t*>(b.data()), b.size());
    }
    case TypeId::kFixedBinary:
    case TypeId::kUuid: {
      const auto width = static_cast<size_t>(c.type.fixed_width());
      return CompareBytes(c.values.data() + static_cast<size_t>(i) * width, width,
                          c.values.data() + static_cast<size_t>(j) * width, width);
    }
    default: return 0;  // nested types are refused by CheckSortColumn
  }
}

}  // namespace

Status CheckSortColumn(const Schema& schema, const std::string& column) {
  const int index = FindColumn(schema, column);
  if (index < 0)
    return Status::InvalidArgument("sort column '" + column + "' is not a top-level column of the table");
  if (schema[static_cast<size_t>(index)].type.is_nested()) {
    return Status::InvalidArgument("sort column '" + column +
                                   "' is nested (struct, list or map); sort by a primitive");
  }
  return Status::OK();
}

Result<RecordBatch> SortBatch(const RecordBatch& batch, const std::vector<std::string>& columns) {
  if (columns.empty()) return batch;
  std::vector<const Column*> keys;
  for (const std::string& name : columns) {
    FLOE_RETURN_IF_ERROR(CheckSortColumn(batch.schema, name));
    const auto index = static_cast<size_t>(FindColumn(batch.schema, name));
    if (index >= batch.columns.size() || batch.columns[index].length != batch.num_rows) {
      return Status::InvalidArgument("sort column '" + name + "' has no values for every row");
    }
    keys.push_back(&batch.columns[index]);
  }
  std::vector<int64_t> order(static_cast<size_t>(batch.num_rows));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (const Column* key : keys) {
      const bool a_null = key->IsNull(a);
      const bool b_null = key->IsNull(b);
      if (a_null || b_null) {
        if (a_null != b_null) return a_null;
        continue;
      }
      const int c = CompareValues(*key, a, b);
      if (c != 0) return c < 0;
    }
    return false;
  });
  return TakeBatchRows(batch, order);
}

}  // namespace floe::maintenance
