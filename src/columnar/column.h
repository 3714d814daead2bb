// In-memory columns and record batches: what readers produce and writers consume.
//
// Contract (layout of a Column of `length` values):
// - validity: empty means every value is valid; otherwise ceil(length/8) bytes,
//   bit i (LSB first) set when value i is non-null. null_count counts the nulls.
// - fixed-width types (DataType::fixed_width() > 0): `values` holds
//   length * width bytes; a null slot holds zeros.
// - kString/kBinary: `offsets` has length+1 entries, value i is
//   data[offsets[i], offsets[i+1]); a null slot is empty.
// - kList/kMap: `offsets` has length+1 entries indexing children[0] (and, for
//   maps, children[1], the values; both the same length).
// - kStruct: children[k] is member k, each of `length` values; a null struct
//   slot still has (null or zero) child slots.
// Columns own their buffers; copying copies them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/types.h"

namespace floe {

struct Column {
  DataType type;
  int64_t length = 0;
  int64_t null_count = 0;
  std::vector<uint8_t> validity;
  std::vector<uint8_t> values;
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  std::vector<Column> children;

  explicit Column(DataType t = Int32());

  bool IsValid(int64_t i) const {
    return validity.empty() || (validity[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1;
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  template <typename T>
  T Value(int64_t i) const {
    T v;
    std::memcpy(&v, values.data() + static_cast<size_t>(i) * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  const T* ValuesAs() const {
    return reinterpret_cast<const T*>(values.data());
  }
  std::string_view StringAt(int64_t i) const {
    return std::string_view(reinterpret_cast<const char*>(data.data()) + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }

  // Builder helpers: append one value (or null) at the end. They keep
  // validity, null_count and offsets consistent; validity is materialised
  // on the first null.
  void AppendNull();
  template <typename T>
  void AppendValue(T v) {
    values.resize(values.size() + sizeof(T));
    std::memcpy(values.data() + values.size() - sizeof(T), &v, sizeof(T));
    MarkValid();
  }
  void AppendBytes(std::string_view bytes) {  // kString / kBinary
    // uint8_t iterators: one memmove, not a char-by-char conversion loop.
    const auto* begin = reinterpret_cast<const uint8_t*>(bytes.data());
    data.insert(data.end(), begin, begin + bytes.size());
    offsets.push_back(static_cast<int64_t>(data.size()));
    MarkValid();
  }
  void AppendFixed(const uint8_t* bytes);  // fixed-width: copies fixed_width() bytes
  // kList/kMap: close the current slot after its children were appended.
  void AppendListEnd();
  // kStruct: mark a slot valid after its children were appended.
  void AppendStructSlot() { MarkValid(); }

  // Drops the slots from `new_length` on (no-op when new_length > length),
  // and every child value past the slots kept, even with new_length ==
  // length: how a reader undoes a value it had partly appended (children of
  // a struct or list slot not yet closed) before finding it does not fit.
  void Truncate(int64_t new_length);

  // Checks buffer sizes and offsets against the contract above, recursively.
  // Returns a message naming the first violation, or "" when consistent.
  std::string Validate() const;

 private:
  // Always inline: readers call it once per value appended, from decoders
  // large enough that GCC would otherwise call it.
  [[gnu::always_inline]] void MarkValid() {
    if (!validity.empty()) {
      const size_t byte = static_cast<size_t>(length >> 3);
      if (byte >= validity.size()) validity.push_back(0);
      validity[byte] |= static_cast<uint8_t>(1u << (length & 7));
    }
    ++length;
  }
};

struct RecordBatch {
  Schema schema;
  std::vector<Column> columns;  // one per schema field, each num_rows long
  int64_t num_rows = 0;
};

// Allocates an empty column of `type` with children created recursively.
Column MakeEmptyColumn(const DataType& type);

}  // namespace floe
