#include "formats/parquet/writer/leaf_shredder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace floe::parquet {

namespace {

std::string PathString(const WriteLeaf& leaf) {
  std::string s;
  for (const auto& part : leaf.path) {
    if (!s.empty()) s += '.';
    s += part;
  }
  return s;
}

constexpr int64_t kNanosPerDay = int64_t{86400} * 1000 * 1000 * 1000;
constexpr int64_t kJulianDayOfEpoch = 2440588;

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMilli: return 1000 * 1000;
    case TimeUnit::kMicro: return 1000;
    case TimeUnit::kNano: return 1;
  }
  return 1;
}

// Appends the physical form of leaf values idx(0..count) to `out`.
template <typename IndexFn>
Status AppendPhysical(const WriteLeaf& leaf, const Column& column, int64_t count, IndexFn idx,
                      LeafValues* out) {
  const DataType& type = column.type;
  const uint8_t* src = column.values.data();
  auto copy_fixed = [&](size_t width) {
    size_t pos = out->fixed.size();
    out->fixed.resize(pos + static_cast<size_t>(count) * width);
    uint8_t* dst = out->fixed.data() + pos;
    for (int64_t k = 0; k < count; ++k) {
      std::memcpy(dst + static_cast<size_t>(k) * width, src + static_cast<size_t>(idx(k)) * width, width);
    }
  };
  auto widen = [&](auto tag) {
    using Source = decltype(tag);
    size_t pos = out->fixed.size();
    out->fixed.resize(pos + static_cast<size_t>(count) * 4);
    uint8_t* dst = out->fixed.data() + pos;
    for (int64_t k = 0; k < count; ++k) {
      Source v;
      std::memcpy(&v, src + static_cast<size_t>(idx(k)) * sizeof(Source), sizeof(Source));
      int32_t wide = static_cast<int32_t>(v);
      std::memcpy(dst + static_cast<size_t>(k) * 4, &wide, 4);
    }
  };
  switch (leaf.physical_type) {
    case Type::BOOLEAN: {
      size_t pos = out->fixed.size();
      out->fixed.resize(pos + static_cast<size_t>(count));
      for (int64_t k = 0; k < count; ++k) out->fixed[pos + static_cast<size_t>(k)] = src[idx(k)] != 0;
      return Status::OK();
    }
    case Type::INT32:
      switch (type.id) {
        case TypeId::kInt8: widen(int8_t{}); return Status::OK();
        case TypeId::kUInt8: widen(uint8_t{}); return Status::OK();
        case TypeId::kInt16: widen(int16_t{}); return Status::OK();
        case TypeId::kUInt16: widen(uint16_t{}); return Status::OK();
        case TypeId::kTime: {  // milliseconds since midnight, held as int64
          size_t pos = out->fixed.size();
          out->fixed.resize(pos + static_cast<size_t>(count) * 4);
          for (int64_t k = 0; k < count; ++k) {
            int64_t v = column.Value<int64_t>(idx(k));
            if (v < INT32_MIN || v > INT32_MAX) {
              return Status::InvalidArgument("column '" + PathString(leaf) + "': time value " +
                                             std::to_string(v) + " ms does not fit INT32");
            }
            int32_t narrow = static_cast<int32_t>(v);
            std::memcpy(out->fixed.data() + pos + static_cast<size_t>(k) * 4, &narrow, 4);
          }
          return Status::OK();
        }
        case TypeId::kDecimal: break;  // narrowed below
        default: copy_fixed(4); return Status::OK();
      }
      break;
    case Type::INT64:
      if (type.id != TypeId::kDecimal) {
        copy_fixed(8);
        return Status::OK();
      }
      break;
    case Type::FLOAT: copy_fixed(4); return Status::OK();
    case Type::DOUBLE: copy_fixed(8); return Status::OK();
    case Type::INT96: {
      size_t pos = out->fixed.size();
      out->fixed.resize(pos + static_cast<size_t>(count) * 12);
      const __int128 per_unit = NanosPerUnit(type.unit);
      for (int64_t k = 0; k < count; ++k) {
        __int128 nanos = static_cast<__int128>(column.Value<int64_t>(idx(k))) * per_unit;
        __int128 days = nanos / kNanosPerDay;
        __int128 rem = nanos % kNanosPerDay;
        if (rem < 0) {
          rem += kNanosPerDay;
          days -= 1;
        }
        int64_t nanos_of_day = static_cast<int64_t>(rem);
        int32_t julian_day = static_cast<int32_t>(days + kJulianDayOfEpoch);
        uint8_t* dst = out->fixed.data() + pos + static_cast<size_t>(k) * 12;
        std::memcpy(dst, &nanos_of_day, 8);
        std::memcpy(dst + 8, &julian_day, 4);
      }
      return Status::OK();
    }
    case Type::BYTE_ARRAY: {
      for (int64_t k = 0; k < count; ++k) {
        int64_t i = idx(k);
        int64_t b = column.offsets[static_cast<size_t>(i)];
        int64_t e = column.offsets[static_cast<size_t>(i) + 1];
        out->data.insert(out->data.end(), column.data.begin() + b, column.data.begin() + e);
        out->offsets.push_back(static_cast<int64_t>(out->data.size()));
      }
      return Status::OK();
    }
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (type.id != TypeId::kDecimal) {
        copy_fixed(static_cast<size_t>(leaf.type_length));
        return Status::OK();
      }
      break;
  }
  // Decimals: 16-byte little-endian two's complement, narrowed losslessly.
  const size_t width = leaf.physical_type == Type::INT32   ? 4
                       : leaf.physical_type == Type::INT64 ? 8
                                                           : static_cast<size_t>(leaf.type_length);
  const bool big_endian = leaf.physical_type == Type::FIXED_LEN_BYTE_ARRAY;
  size_t pos = out->fixed.size();
  out->fixed.resize(pos + static_cast<size_t>(count) * width);
  for (int64_t k = 0; k < count; ++k) {
    uint8_t le[16];
    std::memcpy(le, src + static_cast<size_t>(idx(k)) * 16, 16);
    const uint8_t sign_fill = (le[width - 1] & 0x80) ? 0xFF : 0x00;
    for (size_t b = width; b < 16; ++b) {
      if (le[b] != sign_fill) {
        return Status::InvalidArgument("column '" + PathString(leaf) + "': decimal value at row " +
                                       std::to_string(idx(k)) + " does not fit decimal(" +
                                       std::to_string(type.precision) + "," + std::to_string(type.scale) +
                                       ")");
      }
    }
    uint8_t* dst = out->fixed.data() + pos + static_cast<size_t>(k) * width;
    if (big_endian) {
      for (size_t b = 0; b < width; ++b) dst[b] = le[width - 1 - b];
    } else {
      std::memcpy(dst, le, width);
    }
  }
  return Status::OK();
}

// Runs of rows [start, start + length) of a flat column, all valid.
struct RowRun {
  int64_t start;
  int64_t length;
};

// The first row in [i, end) whose validity bit equals `set`, or `end`.
int64_t NextRowWithBit(const uint8_t* bits, size_t num_bytes, int64_t i, int64_t end, bool set) {
  while (i < end) {
    const size_t byte = static_cast<size_t>(i >> 3);
    uint64_t word = 0;  // bits past the bitmap read as null (Column::Validate rules them out)
    if (byte < num_bytes) std::memcpy(&word, bits + byte, std::min<size_t>(8, num_bytes - byte));
    if (!set) word = ~word;
    word >>= (i & 7);
    if (word != 0) return std::min(end, i + std::countr_zero(word));
    i += 64 - (i & 7);
  }
  return end;
}

// The valid rows of [begin, end) of `column` as runs.
void ValidRuns(const Column& column, int64_t begin, int64_t end, std::vector<RowRun>* runs) {
  runs->clear();
  const uint8_t* bits = column.validity.data();
  const size_t num_bytes = column.validity.size();
  int64_t i = begin;
  while (i < end) {
    const int64_t start = NextRowWithBit(bits, num_bytes, i, end, true);
    if (start >= end) break;
    i = NextRowWithBit(bits, num_bytes, start, end, false);
    runs->push_back({start, i - start});
  }
}

template <size_t kWidth>
void CopyRunsFixed(const uint8_t* src, const std::vector<RowRun>& runs, size_t width, uint8_t* dst) {
  const size_t w = kWidth > 0 ? kWidth : width;
  for (const RowRun& run : runs) {
    const size_t bytes = static_cast<size_t>(run.length) * w;
    std::memcpy(dst, src + static_cast<size_t>(run.start) * w, bytes);
    dst += bytes;
  }
}

// Decimals held as 16-byte two's complement, narrowed to `kWidth` (4 or 8)
// little-endian bytes; false at the first value that does not fit.
template <size_t kWidth>
bool NarrowDecimalRuns(const uint8_t* src, const std::vector<RowRun>& runs, uint8_t* dst, int64_t* bad_row) {
  for (const RowRun& run : runs) {
    const uint8_t* p = src + static_cast<size_t>(run.start) * 16;
    for (int64_t k = 0; k < run.length; ++k, p += 16, dst += kWidth) {
      uint64_t lo, hi;
      std::memcpy(&lo, p, 8);
      std::memcpy(&hi, p + 8, 8);
      const int64_t low = static_cast<int64_t>(lo);
      bool fits = static_cast<int64_t>(hi) == (low >> 63);
      if constexpr (kWidth == 4) fits = fits && low == static_cast<int64_t>(static_cast<int32_t>(low));
      if (!fits) {
        *bad_row = run.start + k;
        return false;
      }
      std::memcpy(dst, p, kWidth);
    }
  }
  return true;
}

// Appends the valid rows `runs` of a top-level primitive column when its
// physical form is a plain copy (or a decimal narrowed to INT32/INT64) of
// the column's bytes; returns false (nothing appended) for other types.
bool AppendRunsDirect(const WriteLeaf& leaf, const Column& column, const std::vector<RowRun>& runs,
                      int64_t count, LeafValues* out, Status* status) {
  const DataType& type = column.type;
  size_t width = 0;
  bool decimal = false;
  switch (leaf.physical_type) {
    case Type::INT32:
      if (type.id == TypeId::kDecimal) {
        decimal = true;
      } else if (type.fixed_width() != 4) {
        return false;
      }
      width = 4;
      break;
    case Type::INT64:
      decimal = type.id == TypeId::kDecimal;
      if (!decimal && type.fixed_width() != 8) return false;
      width = 8;
      break;
    case Type::FLOAT: width = 4; break;
    case Type::DOUBLE: width = 8; break;
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (type.id == TypeId::kDecimal) return false;
      width = static_cast<size_t>(leaf.type_length);
      break;
    case Type::BYTE_ARRAY: {
      const int64_t* offsets = column.offsets.data();
      size_t total = 0;
      for (const RowRun& run : runs) {
        total += static_cast<size_t>(offsets[run.start + run.length] - offsets[run.start]);
      }
      const size_t data_pos = out->data.size();
      out->data.resize(data_pos + total);
      const size_t offsets_pos = out->offsets.size();
      out->offsets.resize(offsets_pos + static_cast<size_t>(count));
      uint8_t* data = out->data.data() + data_pos;
      int64_t* out_offsets = out->offsets.data() + offsets_pos;
      int64_t end = static_cast<int64_t>(data_pos);
      for (const RowRun& run : runs) {
        const int64_t first = offsets[run.start];
        const size_t bytes = static_cast<size_t>(offsets[run.start + run.length] - first);
        if (bytes > 0) std::memcpy(data, column.data.data() + first, bytes);
        data += bytes;
        const int64_t shift = end - first;
        for (int64_t k = 1; k <= run.length; ++k) *out_offsets++ = offsets[run.start + k] + shift;
        end += static_cast<int64_t>(bytes);
      }
      return true;
    }
    default: return false;
  }
  const size_t pos = out->fixed.size();
  out->fixed.resize(pos + static_cast<size_t>(count) * width);
  uint8_t* dst = out->fixed.data() + pos;
  if (decimal) {
    int64_t bad_row = 0;
    const bool fits = width == 4 ? NarrowDecimalRuns<4>(column.values.data(), runs, dst, &bad_row)
                                 : NarrowDecimalRuns<8>(column.values.data(), runs, dst, &bad_row);
    if (!fits) {
      *status = Status::InvalidArgument(
          "column '" + PathString(leaf) + "': decimal value at row " + std::to_string(bad_row) +
          " does not fit decimal(" + std::to_string(type.precision) + "," + std::to_string(type.scale) + ")");
    }
    return true;
  }
  switch (width) {
    case 4: CopyRunsFixed<4>(column.values.data(), runs, width, dst); break;
    case 8: CopyRunsFixed<8>(column.values.data(), runs, width, dst); break;
    default: CopyRunsFixed<0>(column.values.data(), runs, width, dst); break;
  }
  return true;
}

// Walks the nested path of one leaf, emitting levels and leaf value indices.
class NestedShredder {
 public:
  NestedShredder(const WriteLeaf& leaf, LeafValues* out) : leaf_(leaf), out_(out) {}

  Status Row(const Column& top, int64_t row) { return Visit(0, top, row, 0, 0); }
  std::vector<int64_t>& indices() { return indices_; }

 private:
  void Emit(int16_t def, int16_t rep) {
    if (leaf_.max_def_level > 0) out_->def_levels.push_back(static_cast<uint16_t>(def));
    if (leaf_.max_rep_level > 0) out_->rep_levels.push_back(static_cast<uint16_t>(rep));
    ++out_->num_levels;
  }

  Status Visit(size_t step_index, const Column& c, int64_t i, int16_t def, int16_t rep) {
    const ShredStep& step = leaf_.steps[step_index];
    if (c.IsNull(i)) {
      if (!step.nullable) {
        return Status::InvalidArgument("column '" + PathString(leaf_) +
                                       "': null value in a non-nullable field (slot " + std::to_string(i) +
                                       ")");
      }
      Emit(def, rep);
      return Status::OK();
    }
    if (step.nullable) ++def;
    switch (step.kind) {
      case ShredStep::Kind::kLeaf:
        Emit(def, rep);
        indices_.push_back(i);
        return Status::OK();
      case ShredStep::Kind::kStruct:
        return Visit(step_index + 1, c.children[static_cast<size_t>(step.child)], i, def, rep);
      case ShredStep::Kind::kList:
      case ShredStep::Kind::kMap: {
        int64_t start = c.offsets[static_cast<size_t>(i)];
        int64_t end = c.offsets[static_cast<size_t>(i) + 1];
        if (start == end) {
          Emit(def, rep);
          return Status::OK();
        }
        const Column& child = c.children[static_cast<size_t>(step.child)];
        for (int64_t j = start; j < end; ++j) {
          FLOE_RETURN_IF_ERROR(Visit(step_index + 1, child, j, static_cast<int16_t>(def + 1),
                                     j == start ? rep : step.rep_level));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

  const WriteLeaf& leaf_;
  LeafValues* out_;
  std::vector<int64_t> indices_;
};

const Column& LeafColumnOf(const WriteLeaf& leaf, const Column& top) {
  const Column* c = &top;
  for (const ShredStep& step : leaf.steps) {
    if (step.kind == ShredStep::Kind::kLeaf) break;
    c = &c->children[static_cast<size_t>(step.child)];
  }
  return *c;
}

}  // namespace

void LeafValues::Clear() {
  def_levels.clear();
  rep_levels.clear();
  num_levels = num_rows = num_present = 0;
  fixed.clear();
  offsets.assign(1, 0);
  data.clear();
}

int PhysicalWidth(const WriteLeaf& leaf) {
  switch (leaf.physical_type) {
    case Type::BOOLEAN: return 1;
    case Type::INT32:
    case Type::FLOAT: return 4;
    case Type::INT64:
    case Type::DOUBLE: return 8;
    case Type::INT96: return 12;
    case Type::FIXED_LEN_BYTE_ARRAY: return leaf.type_length;
    case Type::BYTE_ARRAY: return 0;
  }
  return 0;
}

namespace {

// Makes room in `buffer` for `more` elements. When it must grow, it grows to
// the size the row group is projected to reach (`scale` times what it will
// hold, at most `cap_elements`), not just to what this call needs: a row
// group filled by many small writes then grows once or twice instead of
// doubling a dozen times, each doubling a copy into freshly faulted pages.
template <typename Buffer>
void ReserveGrowing(Buffer& buffer, size_t more, double scale, size_t cap_elements) {
  const size_t needed = buffer.size() + more;
  if (needed <= buffer.capacity()) return;
  size_t target = needed;
  if (scale > 1.0) {
    const double projected = static_cast<double>(needed) * scale;
    target = std::max(needed, static_cast<size_t>(std::min(projected, static_cast<double>(cap_elements))));
  }
  buffer.reserve(target);
}

}  // namespace

void ReserveForRows(const WriteLeaf& leaf, const Column& top, int64_t begin, int64_t end, int64_t max_bytes,
                    LeafValues* out, int64_t projected_rows) {
  if (leaf.steps.size() != 1 || end <= begin || max_bytes <= 0) return;
  const size_t rows = static_cast<size_t>(end - begin);
  const size_t cap = static_cast<size_t>(max_bytes);
  const int64_t rows_after = out->num_rows + static_cast<int64_t>(rows);
  const double scale = projected_rows > rows_after
                           ? static_cast<double>(projected_rows) / static_cast<double>(rows_after)
                           : 1.0;
  if (leaf.max_def_level > 0) ReserveGrowing(out->def_levels, std::min(rows, cap / 2), scale, cap / 2);
  const int width = PhysicalWidth(leaf);
  if (width > 0) {
    ReserveGrowing(out->fixed, std::min(rows * static_cast<size_t>(width), cap), scale, cap);
    return;
  }
  if (top.offsets.size() < static_cast<size_t>(end) + 1) return;
  ReserveGrowing(out->offsets, std::min(rows, cap / 8), scale, cap / 8);
  const size_t bytes =
      static_cast<size_t>(top.offsets[static_cast<size_t>(end)] - top.offsets[static_cast<size_t>(begin)]);
  ReserveGrowing(out->data, std::min(bytes, cap), scale, cap);
}

Status ShredRows(const WriteLeaf& leaf, const Column& top, int64_t begin, int64_t end, LeafValues* out) {
  const int64_t rows = end - begin;
  if (rows <= 0) return Status::OK();
  if (leaf.steps.size() == 1) {  // a top-level primitive column: levels straight from validity
    const bool has_nulls = !top.validity.empty() && top.null_count > 0;
    if (has_nulls && !leaf.steps[0].nullable) {
      for (int64_t i = begin; i < end; ++i) {
        if (top.IsNull(i)) {
          return Status::InvalidArgument("column '" + PathString(leaf) +
                                         "': null value in a non-nullable field (row " + std::to_string(i) +
                                         ")");
        }
      }
    }
    std::vector<RowRun> runs;
    if (has_nulls) {
      ValidRuns(top, begin, end, &runs);
    } else {
      runs.push_back({begin, rows});
    }
    int64_t present = 0;
    for (const RowRun& run : runs) present += run.length;
    if (leaf.max_def_level > 0) {
      const size_t pos = out->def_levels.size();
      out->def_levels.resize(pos + static_cast<size_t>(rows), has_nulls ? 0 : 1);
      if (has_nulls) {
        uint16_t* defs = out->def_levels.data() + pos;
        for (const RowRun& run : runs) std::fill_n(defs + (run.start - begin), run.length, uint16_t{1});
      }
    }
    out->num_levels += rows;
    out->num_rows += rows;
    out->num_present += present;
    Status status;
    if (AppendRunsDirect(leaf, top, runs, present, out, &status)) return status;
    if (!has_nulls) {
      return AppendPhysical(
          leaf, top, rows, [begin](int64_t k) { return begin + k; }, out);
    }
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(present));
    for (const RowRun& run : runs) {
      for (int64_t i = run.start; i < run.start + run.length; ++i) indices.push_back(i);
    }
    return AppendPhysical(
        leaf, top, static_cast<int64_t>(indices.size()),
        [&indices](int64_t k) { return indices[static_cast<size_t>(k)]; }, out);
  }
  NestedShredder shredder(leaf, out);
  for (int64_t row = begin; row < end; ++row) FLOE_RETURN_IF_ERROR(shredder.Row(top, row));
  out->num_rows += rows;
  const std::vector<int64_t>& indices = shredder.indices();
  out->num_present += static_cast<int64_t>(indices.size());
  return AppendPhysical(
      leaf, LeafColumnOf(leaf, top), static_cast<int64_t>(indices.size()),
      [&indices](int64_t k) { return indices[static_cast<size_t>(k)]; }, out);
}

}  // namespace floe::parquet
