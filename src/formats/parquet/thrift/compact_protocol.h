// Thrift compact protocol: a reader over untrusted bytes and a writer.
//
// Contract: CompactReader never reads past its input, rejects varints that
// overflow their type, checks every string length and container size against
// the bytes that remain before anything is allocated, and bounds nesting
// (structs and containers) at kMaxNestingDepth, so any input is parsed in time
// and memory linear in its size. Its errors are Corruption statuses whose
// message says what was wrong; callers add which struct
// and field they were reading, and position() is where the failing value
// starts (or where the input ran out). CompactWriter produces the encoding that the
// Apache Thrift Java and C++ compact readers accept (field id deltas, bools in
// field headers, short and long list headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/status.h"

namespace floe::parquet::thrift {

// Wire type nibbles of the compact protocol.
enum class CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,  // in a field header: a bool field whose value is true; as an element type: bool
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

const char* CompactTypeName(CompactType type);

// True for kBoolTrue and kBoolFalse: both mean "bool" outside field headers.
inline bool IsBoolType(CompactType type) {
  return type == CompactType::kBoolTrue || type == CompactType::kBoolFalse;
}

inline constexpr int kMaxNestingDepth = 64;

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// The wire type a C++ value of type T is encoded as: integers by width,
// enums (int32-backed) as i32, std::string as binary, std::vector as list,
// any other class as struct.
template <typename T>
constexpr CompactType WireTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return CompactType::kBoolTrue;
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(sizeof(T) == 4);
    return CompactType::kI32;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return CompactType::kByte;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return CompactType::kI16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return CompactType::kI32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return CompactType::kI64;
  } else if constexpr (std::is_same_v<T, double>) {
    return CompactType::kDouble;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return CompactType::kBinary;
  } else if constexpr (IsVector<T>::value) {
    return CompactType::kList;
  } else {
    static_assert(std::is_class_v<T>);
    return CompactType::kStruct;
  }
}

struct FieldHeader {
  CompactType type = CompactType::kStop;  // kStop ends the struct
  int16_t id = 0;
  bool bool_value = false;  // the value of a bool field (it lives in the header)
};

struct ListHeader {
  CompactType element_type = CompactType::kStop;
  uint32_t size = 0;  // at most the number of input bytes left
};

struct MapHeader {
  CompactType key_type = CompactType::kStop;
  CompactType value_type = CompactType::kStop;
  uint32_t size = 0;  // at most half the number of input bytes left
};

class CompactReader {
 public:
  explicit CompactReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t position() const { return position_; }
  size_t remaining() const { return bytes_.size() - position_; }

  // Brackets the fields of one struct: field ids are deltas from the previous
  // id of the same struct. BeginStruct fails beyond kMaxNestingDepth.
  Status BeginStruct();
  void EndStruct();

  // Reads the next field header of the current struct; type kStop at its end.
  Result<FieldHeader> ReadFieldHeader();

  // Reads a bool that is not a struct field (a list/set/map element).
  Result<bool> ReadBoolElement();
  Result<int8_t> ReadByte();
  Result<int16_t> ReadI16();
  Result<int32_t> ReadI32();
  Result<int64_t> ReadI64();
  Result<double> ReadDouble();
  Result<std::string> ReadBinary();

  // List and set headers. The size is checked against the remaining input
  // (every element takes at least one byte). Each list must be followed by
  // EndContainer once its elements are read.
  Result<ListHeader> ReadListHeader();
  Result<MapHeader> ReadMapHeader();
  void EndContainer();

  // Skips a value of the given type (a struct field's value when `type` comes
  // from a field header; bool fields have no value bytes).
  Status SkipFieldValue(CompactType type);

 private:
  Status SkipValue(CompactType type, bool in_field);
  Status EnterNesting();
  Result<uint64_t> ReadVarint(int max_bits);
  Status Truncated(const char* what) const;
  Status Malformed(const std::string& what) const;

  std::span<const uint8_t> bytes_;
  size_t position_ = 0;
  int depth_ = 0;
  // Last field id of each open struct; nested structs push/pop.
  std::vector<int16_t> last_field_ids_;
};

class CompactWriter {
 public:
  explicit CompactWriter(std::vector<uint8_t>* out) : out_(out) {}

  void BeginStruct();
  void EndStruct();  // writes the stop byte

  // A field header for a non-bool field; ids must increase within a struct
  // for the short (delta) form, other orders use the long form.
  void WriteFieldHeader(int16_t id, CompactType type);
  void WriteBoolField(int16_t id, bool value);
  void WriteI32Field(int16_t id, int32_t value);
  void WriteI64Field(int16_t id, int64_t value);
  void WriteBinaryField(int16_t id, std::string_view value);

  void WriteBoolElement(bool value);
  void WriteByte(int8_t value);
  void WriteI16(int16_t value);
  void WriteI32(int32_t value);
  void WriteI64(int64_t value);
  void WriteDouble(double value);
  void WriteBinary(std::string_view value);
  void WriteListHeader(CompactType element_type, uint32_t size);
  void WriteMapHeader(CompactType key_type, CompactType value_type, uint32_t size);

 private:
  void WriteVarint(uint64_t value);

  std::vector<uint8_t>* out_;
  std::vector<int16_t> last_field_ids_;
};

}  // namespace floe::parquet::thrift
