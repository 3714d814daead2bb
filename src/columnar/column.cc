#include "columnar/column.h"

namespace floe {

Column::Column(DataType t) : type(std::move(t)) {
  if (type.id == TypeId::kString || type.id == TypeId::kBinary || type.id == TypeId::kList ||
      type.id == TypeId::kMap) {
    offsets.push_back(0);
  }
}

Column MakeEmptyColumn(const DataType& type) {
  Column c(type);
  for (const Field& child : type.children) c.children.push_back(MakeEmptyColumn(child.type));
  return c;
}

void Column::AppendNull() {
  if (validity.empty()) {
    // Materialise: every earlier slot was valid.
    validity.assign(static_cast<size_t>((length + 8) / 8), 0);
    for (int64_t i = 0; i < length; ++i) validity[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  size_t byte = static_cast<size_t>(length >> 3);
  if (byte >= validity.size()) validity.push_back(0);
  int32_t width = type.fixed_width();
  if (width > 0) values.resize(values.size() + static_cast<size_t>(width), 0);
  if (!offsets.empty()) offsets.push_back(offsets.back());
  if (type.id == TypeId::kStruct) {
    for (Column& child : children) child.AppendNull();
  }
  ++null_count;
  ++length;
}

void Column::AppendFixed(const uint8_t* bytes) {
  values.insert(values.end(), bytes, bytes + type.fixed_width());
  MarkValid();
}

void Column::AppendListEnd() {
  offsets.push_back(children.empty() ? 0 : children[0].length);
  MarkValid();
}

void Column::Truncate(int64_t new_length) {
  if (new_length < 0 || new_length > length) return;
  if (!validity.empty()) {
    for (int64_t i = new_length; i < length; ++i) null_count -= IsNull(i) ? 1 : 0;
    validity.resize(static_cast<size_t>((new_length + 7) / 8));
    if (new_length % 8 != 0) validity.back() &= static_cast<uint8_t>((1u << (new_length % 8)) - 1);
  }
  const int32_t width = type.fixed_width();
  if (width > 0) values.resize(static_cast<size_t>(new_length) * static_cast<size_t>(width));
  if (!offsets.empty()) {
    offsets.resize(static_cast<size_t>(new_length) + 1);
    if (type.is_binary_like()) data.resize(static_cast<size_t>(offsets.back()));
    if (type.id == TypeId::kList || type.id == TypeId::kMap) {
      for (Column& child : children) child.Truncate(offsets.back());
    }
  }
  if (type.id == TypeId::kStruct) {
    for (Column& child : children) child.Truncate(new_length);
  }
  length = new_length;
}

std::string Column::Validate() const {
  const std::string where = type.ToString();
  if (!validity.empty() && static_cast<int64_t>(validity.size()) < (length + 7) / 8) {
    return where + ": validity bitmap too short";
  }
  int64_t nulls = 0;
  for (int64_t i = 0; i < length; ++i) nulls += IsNull(i) ? 1 : 0;
  if (nulls != null_count) return where + ": null_count does not match validity";
  int32_t width = type.fixed_width();
  if (width > 0 && static_cast<int64_t>(values.size()) != length * width) {
    return where + ": values buffer size " + std::to_string(values.size()) + " != length*width";
  }
  bool has_offsets = type.is_binary_like() || type.id == TypeId::kList || type.id == TypeId::kMap;
  if (has_offsets) {
    if (static_cast<int64_t>(offsets.size()) != length + 1) return where + ": offsets size != length+1";
    for (int64_t i = 0; i < length; ++i) {
      if (offsets[i] > offsets[i + 1]) return where + ": offsets not monotonic";
    }
    if (offsets[0] < 0) return where + ": negative offset";
    if (type.is_binary_like() && offsets[length] > static_cast<int64_t>(data.size())) {
      return where + ": offsets past end of data";
    }
  }
  if (type.id == TypeId::kList || type.id == TypeId::kMap) {
    size_t want = type.id == TypeId::kList ? 1 : 2;
    if (children.size() != want) return where + ": wrong number of children";
    for (const Column& c : children) {
      if (offsets[length] > c.length) return where + ": offsets past end of child";
    }
  }
  if (type.id == TypeId::kStruct) {
    if (children.size() != type.children.size()) return where + ": wrong number of children";
    for (const Column& c : children) {
      if (c.length != length) return where + ": child length differs from struct length";
    }
  }
  for (const Column& c : children) {
    std::string m = c.Validate();
    if (!m.empty()) return m;
  }
  return "";
}

}  // namespace floe
