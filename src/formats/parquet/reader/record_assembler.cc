#include "formats/parquet/reader/record_assembler.h"

#include <cstring>
#include <string>

namespace floe::parquet {
namespace {

// Bitmap builder that materialises nothing when every slot is valid.
class ValidityBuilder {
 public:
  explicit ValidityBuilder(int64_t capacity) : bits_(static_cast<size_t>((capacity + 7) / 8), 0) {}
  void Append(bool valid) {
    if (valid) {
      bits_[static_cast<size_t>(length_ >> 3)] |= static_cast<uint8_t>(1u << (length_ & 7));
    } else {
      ++null_count_;
    }
    ++length_;
  }
  int64_t length() const { return length_; }
  void Finish(Column* column) {
    column->length = length_;
    column->null_count = null_count_;
    if (null_count_ == 0) {
      column->validity.clear();
    } else {
      bits_.resize(static_cast<size_t>((length_ + 7) / 8));
      column->validity = std::move(bits_);
    }
  }

 private:
  std::vector<uint8_t> bits_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
};

struct Levels {
  const int16_t* def;  // null when the leaf has no definition levels
  const int16_t* rep;  // null when the leaf has no repetition levels
  int64_t count;
  int16_t d(int64_t i) const { return def ? def[i] : 0; }
  int16_t r(int64_t i) const { return rep ? rep[i] : 0; }
};

template <int kWidth>
void ScatterFixed(const uint8_t* dense, const uint8_t* valid, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) {
      std::memcpy(out + i * kWidth, dense, kWidth);
      dense += kWidth;
    }
  }
}

// Copies the next dense value into each slot whose definition level is valid
// (null slots keep their zeros); the caller checked the dense value count.
template <int kWidth>
void ScatterFixedByLevels(const uint8_t* dense, const int16_t* def, int16_t valid_def, int64_t n,
                          uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    if (def[i] >= valid_def) {
      std::memcpy(out + i * kWidth, dense, kWidth);
      dense += kWidth;
    }
  }
}

// Set bits of one byte, without relying on a popcount instruction (the build
// targets baseline x86-64, where __builtin_popcount is a library call).
inline int CountBits8(unsigned x) {
  x = x - ((x >> 1) & 0x55u);
  x = (x & 0x33u) + ((x >> 2) & 0x33u);
  return static_cast<int>((x + (x >> 4)) & 0x0Fu);
}

class Assembler {
 public:
  Assembler(std::vector<LeafData>* leaves, int first_leaf) : leaves_(leaves), first_leaf_(first_leaf) {}

  Result<Column> Build(const DataType& type, const LevelNode& node) {
    switch (node.kind) {
      case LevelNode::Kind::kLeaf: return BuildLeaf(type, node);
      case LevelNode::Kind::kStruct: return BuildStruct(type, node);
      case LevelNode::Kind::kList:
      case LevelNode::Kind::kMap: return BuildRepeated(type, node);
    }
    return Status::Internal("unknown level node kind");
  }

 private:
  LeafData& Leaf(int index) { return (*leaves_)[static_cast<size_t>(index - first_leaf_)]; }
  Levels LevelsOf(int index) {
    LeafData& leaf = Leaf(index);
    return Levels{leaf.def_levels.empty() ? nullptr : leaf.def_levels.data(),
                  leaf.rep_levels.empty() ? nullptr : leaf.rep_levels.data(), leaf.num_levels};
  }

  Result<Column> BuildLeaf(const DataType& type, const LevelNode& node) {
    LeafData& leaf = Leaf(node.leaf);
    Column dense = std::move(leaf.values);
    const Levels levels = LevelsOf(node.leaf);
    if (levels.def == nullptr && levels.rep == nullptr) {
      if (dense.length != levels.count) {
        return Status::Corruption("column has " + std::to_string(dense.length) + " values for " +
                                  std::to_string(levels.count) + " slots");
      }
      dense.type = type;
      return dense;
    }
    if (levels.rep == nullptr && node.slot_def <= 0)
      return BuildFlatLeaf(type, node, levels, std::move(dense));
    // Slot validity, one byte per slot.
    std::vector<uint8_t> valid;
    valid.reserve(static_cast<size_t>(levels.count));
    ValidityBuilder validity(levels.count);
    int64_t present = 0;
    for (int64_t i = 0; i < levels.count; ++i) {
      const int16_t d = levels.d(i);
      if (levels.r(i) > node.rep_level || d < node.slot_def) continue;
      const bool is_valid = d >= node.valid_def;
      present += is_valid;
      valid.push_back(is_valid);
      validity.Append(is_valid);
    }
    if (present != dense.length) {
      return Status::Corruption("column has " + std::to_string(dense.length) +
                                " values but its levels define " + std::to_string(present));
    }
    const int64_t n = validity.length();
    Column column(type);
    if (type.is_binary_like()) {
      column.offsets.resize(static_cast<size_t>(n) + 1);
      column.offsets[0] = 0;
      int64_t next = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (valid[i]) ++next;
        column.offsets[i + 1] = dense.offsets[next];
      }
      column.data = std::move(dense.data);
    } else if (present == n) {
      column.values = std::move(dense.values);
    } else {
      const int width = type.fixed_width();
      column.values.assign(static_cast<size_t>(n) * static_cast<size_t>(width), 0);
      const uint8_t* in = dense.values.data();
      uint8_t* out = column.values.data();
      switch (width) {
        case 1: ScatterFixed<1>(in, valid.data(), n, out); break;
        case 2: ScatterFixed<2>(in, valid.data(), n, out); break;
        case 4: ScatterFixed<4>(in, valid.data(), n, out); break;
        case 8: ScatterFixed<8>(in, valid.data(), n, out); break;
        case 16: ScatterFixed<16>(in, valid.data(), n, out); break;
        default:
          for (int64_t i = 0; i < n; ++i) {
            if (valid[i]) {
              std::memcpy(out + i * width, in, static_cast<size_t>(width));
              in += width;
            }
          }
      }
    }
    validity.Finish(&column);
    return column;
  }

  // Leaf without repetition whose every level is a slot: validity comes
  // straight from the definition levels, eight slots per bitmap byte.
  Result<Column> BuildFlatLeaf(const DataType& type, const LevelNode& node, const Levels& levels,
                               Column dense) {
    const int64_t n = levels.count;
    const int16_t* def = levels.def;
    const int16_t valid_def = node.valid_def;
    std::vector<uint8_t> bits(static_cast<size_t>((n + 7) / 8));
    int64_t present = 0;
    const int64_t full_bytes = n / 8;
    for (int64_t b = 0; b < full_bytes; ++b) {
      const int16_t* d = def + b * 8;
      const unsigned byte =
          static_cast<unsigned>(d[0] >= valid_def) | static_cast<unsigned>(d[1] >= valid_def) << 1 |
          static_cast<unsigned>(d[2] >= valid_def) << 2 | static_cast<unsigned>(d[3] >= valid_def) << 3 |
          static_cast<unsigned>(d[4] >= valid_def) << 4 | static_cast<unsigned>(d[5] >= valid_def) << 5 |
          static_cast<unsigned>(d[6] >= valid_def) << 6 | static_cast<unsigned>(d[7] >= valid_def) << 7;
      bits[static_cast<size_t>(b)] = static_cast<uint8_t>(byte);
      present += CountBits8(byte);
    }
    for (int64_t i = full_bytes * 8; i < n; ++i) {
      if (def[i] >= valid_def) {
        bits[static_cast<size_t>(i >> 3)] |= static_cast<uint8_t>(1u << (i & 7));
        ++present;
      }
    }
    if (present != dense.length) {
      return Status::Corruption("column has " + std::to_string(dense.length) +
                                " values but its levels define " + std::to_string(present));
    }
    Column column(type);
    column.length = n;
    column.null_count = n - present;
    if (present == n) {
      if (type.is_binary_like()) {
        column.offsets = std::move(dense.offsets);
        column.data = std::move(dense.data);
      } else {
        column.values = std::move(dense.values);
      }
      return column;
    }
    if (type.is_binary_like()) {
      column.offsets.resize(static_cast<size_t>(n) + 1);
      int64_t* out = column.offsets.data();
      const int64_t* in = dense.offsets.data();
      out[0] = 0;
      int64_t next = 0;
      for (int64_t i = 0; i < n; ++i) {
        next += def[i] >= valid_def;
        out[i + 1] = in[next];
      }
      column.data = std::move(dense.data);
    } else {
      const int width = type.fixed_width();
      column.values.assign(static_cast<size_t>(n) * static_cast<size_t>(width), 0);
      const uint8_t* in = dense.values.data();
      uint8_t* out = column.values.data();
      switch (width) {
        case 1: ScatterFixedByLevels<1>(in, def, valid_def, n, out); break;
        case 2: ScatterFixedByLevels<2>(in, def, valid_def, n, out); break;
        case 4: ScatterFixedByLevels<4>(in, def, valid_def, n, out); break;
        case 8: ScatterFixedByLevels<8>(in, def, valid_def, n, out); break;
        case 16: ScatterFixedByLevels<16>(in, def, valid_def, n, out); break;
        default:
          for (int64_t i = 0; i < n; ++i) {
            if (def[i] >= valid_def) {
              std::memcpy(out + i * width, in, static_cast<size_t>(width));
              in += width;
            }
          }
      }
    }
    column.validity = std::move(bits);
    return column;
  }

  Status CheckChildLength(const Column& child, int64_t expected, const Field& field) {
    if (child.length != expected) {
      return Status::Corruption("nested field '" + field.name + "' has " + std::to_string(child.length) +
                                " values where its parent needs " + std::to_string(expected) +
                                " (leaf columns disagree on their levels)");
    }
    return Status::OK();
  }

  Result<Column> BuildStruct(const DataType& type, const LevelNode& node) {
    const Levels levels = LevelsOf(node.leaf);
    ValidityBuilder validity(levels.count);
    for (int64_t i = 0; i < levels.count; ++i) {
      const int16_t d = levels.d(i);
      if (levels.r(i) > node.rep_level || d < node.slot_def) continue;
      validity.Append(d >= node.valid_def);
    }
    Column column(type);
    column.children.clear();
    for (size_t k = 0; k < node.children.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(Column child, Build(type.children[k].type, node.children[k]));
      FLOE_RETURN_IF_ERROR(CheckChildLength(child, validity.length(), type.children[k]));
      column.children.push_back(std::move(child));
    }
    validity.Finish(&column);
    return column;
  }

  // Lists and maps: offsets count the element slots of each list slot.
  Result<Column> BuildRepeated(const DataType& type, const LevelNode& node) {
    const Levels levels = LevelsOf(node.leaf);
    const LevelNode& element = node.children[0];
    ValidityBuilder validity(levels.count);
    Column column(type);
    column.children.clear();
    column.offsets.clear();
    column.offsets.reserve(static_cast<size_t>(levels.count) + 1);
    int64_t elements = 0;
    for (int64_t i = 0; i < levels.count; ++i) {
      const int16_t d = levels.d(i), r = levels.r(i);
      if (r <= node.rep_level && d >= node.slot_def) {
        column.offsets.push_back(elements);
        validity.Append(d >= node.valid_def);
      }
      if (r <= element.rep_level && d >= element.slot_def) {
        if (column.offsets.empty()) {
          return Status::Corruption("repetition levels continue a list before any list started");
        }
        ++elements;
      }
    }
    column.offsets.push_back(elements);
    for (size_t k = 0; k < node.children.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(Column child, Build(type.children[k].type, node.children[k]));
      FLOE_RETURN_IF_ERROR(CheckChildLength(child, elements, type.children[k]));
      column.children.push_back(std::move(child));
    }
    validity.Finish(&column);
    return column;
  }

  std::vector<LeafData>* leaves_;
  int first_leaf_;
};

}  // namespace

Result<Column> AssembleField(const Field& field, const LevelNode& node, std::vector<LeafData>* leaves,
                             int first_leaf) {
  return Assembler(leaves, first_leaf).Build(field.type, node);
}

}  // namespace floe::parquet
