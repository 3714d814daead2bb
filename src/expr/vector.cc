#include "expr/vector.h"

#include <cstring>

namespace floe::expr {

Vector OwnedVector(Column column, bool constant) {
  Vector v;
  v.column = std::make_shared<const Column>(std::move(column));
  v.constant = constant;
  return v;
}

Vector BorrowedVector(const Column& column) {
  Vector v;
  v.column = std::shared_ptr<const Column>(std::shared_ptr<const Column>(), &column);
  return v;
}

Status EvalScope::RowError(ErrorKind kind, int64_t frame_row, const std::string& what) const {
  const int64_t row = frame ? frame->BatchRow(frame_row) : frame_row;
  std::string message = what + " at row " + std::to_string(row) + " of the batch";
  if (context) {
    std::string file = context->source_file;
    if (context->source_file_column && row < context->source_file_column->length &&
        context->source_file_column->IsValid(row)) {
      file = std::string(context->source_file_column->StringAt(row));
    }
    int64_t source_row = context->first_source_row + row;
    if (context->source_row_column && row < context->source_row_column->length) {
      source_row = context->source_row_column->Value<int64_t>(row);
    }
    if (!file.empty()) message += " (" + file + ", row " + std::to_string(source_row) + ")";
  }
  return Status(kind, message);
}

void CombineValidity(const std::vector<const Vector*>& inputs, int64_t rows, Column* out) {
  out->validity.clear();
  out->null_count = 0;
  const size_t bytes = static_cast<size_t>((rows + 7) / 8);
  bool any = false;
  for (const Vector* v : inputs) {
    if (v->constant) {
      if (v->column->IsNull(0)) {
        out->validity.assign(bytes, 0);
        out->null_count = rows;
        return;
      }
      continue;
    }
    if (v->column->validity.empty() || v->column->null_count == 0) continue;
    if (!any) {
      out->validity.assign(v->column->validity.begin(),
                           v->column->validity.begin() + static_cast<long>(bytes));
      any = true;
    } else {
      const uint8_t* in = v->column->validity.data();
      uint8_t* o = out->validity.data();
      for (size_t i = 0; i < bytes; ++i) o[i] &= in[i];
    }
  }
  if (any) RecountNulls(out);
}

void SetNull(Column* out, int64_t i) {
  if (out->validity.empty()) out->validity.assign(static_cast<size_t>((out->length + 7) / 8), 0xFF);
  uint8_t& byte = out->validity[static_cast<size_t>(i >> 3)];
  const uint8_t bit = static_cast<uint8_t>(1u << (i & 7));
  if (byte & bit) {
    byte = static_cast<uint8_t>(byte & ~bit);
    ++out->null_count;
  }
}

void RecountNulls(Column* out) {
  if (out->validity.empty()) {
    out->null_count = 0;
    return;
  }
  const int64_t rows = out->length;
  const size_t full = static_cast<size_t>(rows / 8);
  int64_t valid = 0;
  for (size_t i = 0; i < full; ++i) valid += __builtin_popcount(out->validity[i]);
  for (int64_t i = static_cast<int64_t>(full) * 8; i < rows; ++i) valid += BitAt(out->validity, i);
  out->null_count = rows - valid;
  if (out->null_count == 0) {
    out->validity.clear();
  } else {
    // Bits past the end must be clear for byte-wise combination to stay exact.
    if (rows % 8) out->validity[full] &= static_cast<uint8_t>((1u << (rows % 8)) - 1);
    out->validity.resize(static_cast<size_t>((rows + 7) / 8));
  }
}

void ZeroNullSlots(Column* out) {
  const int32_t width = out->type.fixed_width();
  if (width <= 0 || out->null_count == 0) return;
  for (int64_t i = 0; i < out->length; ++i) {
    if (out->IsNull(i)) std::memset(out->values.data() + i * width, 0, static_cast<size_t>(width));
  }
}

Column Materialize(const Vector& v, int64_t rows) {
  if (!v.constant) return *v.column;
  const Column& c = *v.column;
  Column out(c.type);
  out.length = rows;
  if (c.IsNull(0)) {
    out.validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
    out.null_count = rows;
    const int32_t width = c.type.fixed_width();
    if (width > 0) out.values.assign(static_cast<size_t>(rows * width), 0);
    if (!out.offsets.empty()) out.offsets.assign(static_cast<size_t>(rows + 1), 0);
    return out;
  }
  const int32_t width = c.type.fixed_width();
  if (width > 0) {
    out.values.resize(static_cast<size_t>(rows * width));
    for (int64_t i = 0; i < rows; ++i) std::memcpy(out.values.data() + i * width, c.values.data(), width);
  } else {
    const std::string_view s = c.StringAt(0);
    out.offsets.resize(static_cast<size_t>(rows + 1));
    out.data.reserve(s.size() * static_cast<size_t>(rows));
    out.offsets[0] = 0;
    for (int64_t i = 0; i < rows; ++i) {
      out.data.insert(out.data.end(), s.begin(), s.end());
      out.offsets[static_cast<size_t>(i + 1)] = static_cast<int64_t>(out.data.size());
    }
  }
  return out;
}

Column Gather(const Vector& v, const std::vector<int32_t>& positions) {
  const Column& c = *v.column;
  const int64_t rows = static_cast<int64_t>(positions.size());
  if (v.constant) {
    Vector single = v;
    return Materialize(single, rows);
  }
  Column out(c.type);
  out.length = rows;
  const int32_t width = c.type.fixed_width();
  if (width > 0) {
    out.values.resize(static_cast<size_t>(rows * width));
    for (int64_t i = 0; i < rows; ++i) {
      std::memcpy(out.values.data() + i * width, c.values.data() + static_cast<int64_t>(positions[i]) * width,
                  static_cast<size_t>(width));
    }
  } else {
    out.offsets.resize(static_cast<size_t>(rows + 1));
    out.offsets[0] = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const std::string_view s = c.StringAt(positions[static_cast<size_t>(i)]);
      out.data.insert(out.data.end(), s.begin(), s.end());
      out.offsets[static_cast<size_t>(i + 1)] = static_cast<int64_t>(out.data.size());
    }
  }
  if (c.null_count > 0 && !c.validity.empty()) {
    out.validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
    for (int64_t i = 0; i < rows; ++i) {
      if (c.IsValid(positions[static_cast<size_t>(i)]))
        out.validity[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
    RecountNulls(&out);
  }
  return out;
}

}  // namespace floe::expr
