#include "formats/json/json_document_decoder.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "formats/json/json_flat_object.h"
#include "formats/json/json_records.h"
#include "formats/json/json_shape.h"
#include "formats/json/json_text.h"
#include "formats/number_text.h"
#include "formats/temporal_text.h"
#include "formats/text_conversion.h"
#include "formats/text_encoding.h"

namespace floe::json {
namespace {

namespace od = simdjson::ondemand;
using formats::TextConverter;

// What decoding one value did. kOk: exactly one slot was appended (the
// value, or null when it was rescued). kMismatch: nothing was appended; the
// value does not fit and an enclosing list or map must rescue itself whole.
// kBroken: the document is not valid JSON. kFail: a mismatch under
// BadDataPolicy::kFail (the message is in the decoder's error).
enum class Outcome : uint8_t { kOk, kMismatch, kBroken, kFail };

struct NewMemberValue {
  int64_t slot;      // index in the struct column that lacks the member
  int64_t row;       // the document's row, for rescues
  int64_t position;  // its line or record number
  std::string raw;   // the value's JSON text (validated)
};

// How a flat document's member goes into a column (chosen once from the
// column's type): the common cases directly, the rest through AppendScalar.
// kDate and kTimestamp: ISO text when no date_format / timestamp_format is set.
enum class FlatConversion : uint8_t {
  kGeneral,
  kInt64,
  kInt32,
  kFloat64,
  kDecimal,
  kString,
  kBool,
  kDate,
  kTimestamp,
  kText
};

struct NewMember {
  std::string name;
  std::vector<NewMemberValue> values;  // slots ascending
};

// One column (or member, element, key, value) being built, mirroring its type.
struct Node {
  std::string name;
  std::string path;  // "address.zip": the key of its rescued values
  DataType type;
  Column* column = nullptr;  // nullptr: the value is validated, not built
  std::optional<TextConverter> converter;
  FlatConversion flat = FlatConversion::kGeneral;
  std::vector<Node> children;  // struct members; list element; map key, value
  // Structs (and the document root):
  std::vector<uint64_t> seen;       // per member: the object stamp that last had it
  std::vector<uint8_t> plain_name;  // per member: no '"' or '\\' (fast raw comparison)
  size_t guess = 0;                 // the member expected next (documents repeat their order)
  std::vector<NewMember> new_members;
};

bool NeedsConverter(TypeId id) {
  switch (id) {
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kBinary:
    case TypeId::kFixedBinary:
    case TypeId::kUuid: return true;
    default: return false;
  }
}

const JsonShape* MemberShape(const JsonShape* shape, std::string_view name) {
  if (!shape || shape->kind != JsonShape::kObject) return nullptr;
  for (const auto& [member_name, member] : shape->members) {
    if (member_name == name) return &member;
  }
  return nullptr;
}

// Builds the node tree for `type` over `column` (nullptr = validate only).
// `shape` (for inferred columns) picks the temporal formats of each leaf.
Result<Node> MakeNode(std::string name, std::string path, const DataType& type, Column* column,
                      const JsonShape* shape, const formats::TextInference& inference) {
  Node node;
  node.name = std::move(name);
  node.path = std::move(path);
  node.type = type;
  node.column = column;
  if (type.id == TypeId::kFloat16) {
    return Status::NotSupported("column " + node.path + ": float16 values are not read from JSON");
  }
  formats::TextInference::Formats text_formats;
  if (NeedsConverter(type.id)) {
    text_formats = shape && shape->kind == JsonShape::kScalar ? inference.FormatsOf(shape->scalar)
                                                              : inference.ConfiguredFormats();
    FLOE_ASSIGN_OR_RETURN(TextConverter converter, TextConverter::Make(type, text_formats));
    node.converter = std::move(converter);
  }
  switch (type.id) {
    case TypeId::kInt64: node.flat = FlatConversion::kInt64; break;
    case TypeId::kInt32: node.flat = FlatConversion::kInt32; break;
    case TypeId::kFloat64: node.flat = FlatConversion::kFloat64; break;
    case TypeId::kDecimal: node.flat = FlatConversion::kDecimal; break;
    case TypeId::kString: node.flat = FlatConversion::kString; break;
    case TypeId::kBool: node.flat = FlatConversion::kBool; break;
    case TypeId::kDate: node.flat = text_formats.date ? FlatConversion::kText : FlatConversion::kDate; break;
    case TypeId::kTimestamp:
      node.flat = text_formats.timestamp ? FlatConversion::kText : FlatConversion::kTimestamp;
      break;
    default:
      if (node.converter) node.flat = FlatConversion::kText;
      break;
  }
  switch (type.id) {
    case TypeId::kStruct:
      for (size_t k = 0; k < type.children.size(); ++k) {
        const Field& member = type.children[k];
        for (size_t j = 0; j < k; ++j) {
          if (type.children[j].name == member.name) {
            return Status::InvalidArgument("column " + node.path + ": member '" + member.name +
                                           "' named twice");
          }
        }
        FLOE_ASSIGN_OR_RETURN(Node child, MakeNode(member.name, node.path + "." + member.name, member.type,
                                                   column ? &column->children[k] : nullptr,
                                                   MemberShape(shape, member.name), inference));
        node.children.push_back(std::move(child));
        node.plain_name.push_back(member.name.find_first_of("\"\\") == std::string::npos);
      }
      node.seen.assign(type.children.size(), 0);
      break;
    case TypeId::kList: {
      const JsonShape* element = shape && shape->kind == JsonShape::kArray ? shape->element.get() : nullptr;
      FLOE_ASSIGN_OR_RETURN(Node child,
                            MakeNode("element", node.path, type.children[0].type,
                                     column ? &column->children[0] : nullptr, element, inference));
      node.children.push_back(std::move(child));
      break;
    }
    case TypeId::kMap: {
      const DataType& key_type = type.children[0].type;
      if (key_type.is_nested()) {
        return Status::NotSupported("column " + node.path + ": map keys of type " + key_type.ToString() +
                                    " cannot come from JSON object keys");
      }
      for (int k = 0; k < 2; ++k) {
        FLOE_ASSIGN_OR_RETURN(Node child,
                              MakeNode(k == 0 ? "key" : "value", node.path, type.children[k].type,
                                       column ? &column->children[k] : nullptr, nullptr, inference));
        node.children.push_back(std::move(child));
      }
      if (key_type.id != TypeId::kString && !node.children[0].converter) {
        FLOE_ASSIGN_OR_RETURN(TextConverter converter,
                              TextConverter::Make(key_type, inference.ConfiguredFormats()));
        node.children[0].converter = std::move(converter);
      }
      break;
    }
    default: break;
  }
  return node;
}

// Drops the new-member values of `node` (and below) whose slots were truncated away.
void PruneNewMembers(Node* node) {
  if (!node->column) return;
  for (NewMember& member : node->new_members) {
    while (!member.values.empty() && member.values.back().slot >= node->column->length)
      member.values.pop_back();
  }
  for (Node& child : node->children) PruneNewMembers(&child);
}

// Recomputes each nested column's type from its children (after members
// were added below it).
void RefreshTypes(Column* column) {
  for (size_t k = 0; k < column->children.size(); ++k) {
    RefreshTypes(&column->children[k]);
    if (k < column->type.children.size()) column->type.children[k].type = column->children[k].type;
  }
}

std::string_view JsonTypeName(od::json_type type) {
  switch (type) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "a value";
}

}  // namespace

size_t JsonDocumentPadding() {
  return simdjson::SIMDJSON_PADDING;
}

class JsonDocumentDecoder::Impl {
 public:
  Impl(JsonDecodeOptions options, std::shared_ptr<const formats::TextInference> inference)
      : options_(std::move(options)),
        inference_(std::move(inference)),
        parser_(static_cast<size_t>(options_.max_document_bytes) + 2),
        rescued_(options_.location) {
    const std::string& key = options_.location.position_key;
    position_word_ = key.size() > 1 && key[0] == '_' ? key.substr(1) : key;
    if (position_word_.empty()) position_word_ = "record";
  }

  Status Init() {
    for (const Field& field : options_.known) {
      if (field.name == formats::kRescuedDataColumn) {
        known_has_rescued_ = true;
        continue;
      }
      for (const Field& other : known_fields_) {
        if (other.name == field.name) {
          return Status::InvalidArgument("known schema names column '" + field.name + "' twice");
        }
      }
      known_fields_.push_back(field);
    }
    for (const Field& field : known_fields_) {
      // A name the flat scan can compare with raw bytes; others are found by lookup.
      const bool plain = field.name.find_first_of("\"\\") == std::string::npos &&
                         std::none_of(field.name.begin(), field.name.end(),
                                      [](char c) { return static_cast<unsigned char>(c) < 0x20; }) &&
                         formats::IsValidUtf8(field.name);
      flat_keys_.push_back(plain ? field.name : std::string(1, '\0'));
    }
    if (options_.columns) {
      for (const std::string& name : *options_.columns) {
        if (name == formats::kRescuedDataColumn) {
          projected_rescued_ = true;
          continue;
        }
        bool found = false;
        for (const Field& field : known_fields_) found |= field.name == name;
        if (!found) return Status::InvalidArgument("no known column named '" + name + "' to select");
      }
    }
    return Reset();
  }

  // `try_flat`: whether the flat path may take the document (false when a
  // line's scan already found it is not flat).
  Status Add(std::string_view document, int64_t position, size_t readable_after, bool try_flat = true);
  Status AddLines(std::string_view lines, int64_t first_line, size_t readable_after, int64_t* next_line);
  Result<RecordBatch> Finish();
  int64_t num_rows() const { return rows_; }

 private:
  bool BuildsEverything() const { return !options_.columns || projected_rescued_; }
  bool Builds(const std::string& name) const {
    if (BuildsEverything()) return true;
    return std::find(options_.columns->begin(), options_.columns->end(), name) != options_.columns->end();
  }
  bool InfersNewFields() const { return options_.infer_new_fields && !options_.columns; }

  Status Reset();
  Outcome DecodeValue(Node& node, od::value& value);
  Outcome DecodeObject(Node& node, od::object& object, int64_t slot, bool root);
  Outcome DecodeArray(Node& node, od::value& value);
  Outcome DecodeMap(Node& node, od::value& value);
  Outcome DecodeAsText(Node& node, od::value& value, od::json_type type);
  Outcome AddNewMember(Node& node, std::string_view key, od::value& value, int64_t slot);
  // The same for a value already validated, given where its JSON text starts.
  Outcome AddNewMemberRaw(Node& node, std::string_view key, const char* start, int64_t slot);
  // One scalar (from either path) into `node`.
  Outcome AppendScalar(Node& node, JsonScalarKind kind, std::string_view text, const char* raw);
  // A document, or with kLine the line that starts `text`, by the flat
  // path (json_flat_object.h), converted member by member as it is
  // scanned. *end: where the object's extent ends (the document's size, or
  // its line's end), npos when it is not flat; then, or if the outcome is
  // not kOk, the caller undoes the row when *touched (a member was decoded).
  template <bool kLine>
  Outcome DecodeFlat(std::string_view text, size_t* end, bool* touched);
  // One member of a flat document into the row being decoded; `stamp`
  // marks the members this document has had, *seen counts them. Inlined
  // (like AppendFlatScalar) into each scan's member callback.
  [[gnu::always_inline]] Outcome DecodeFlatMember(const JsonFlatMember& m, uint64_t stamp, size_t* seen);
  // A flat member's scalar into `node`: its node.flat case when the value is
  // of that case's kind (a short number is already read: json_flat_object.h),
  // else AppendScalar. The same values as AppendScalar: the short forms are exact.
  [[gnu::always_inline]] Outcome AppendFlatScalar(Node& node, const JsonFlatMember& m);
  Outcome Validate(od::value& value, int depth);
  // A value (starting at `start`, already validated) that does not fit `node`.
  Outcome Rescue(Node& node, const char* start, std::string_view reason);
  // Validates `value`, then rescues it.
  Outcome RescueValue(Node& node, od::value& value, std::string_view reason);
  Outcome Fail(const std::string& path, std::string_view reason);
  std::string_view RawAt(const char* start) const {
    return std::string_view(start,
                            JsonValueExtent(std::string_view(start, static_cast<size_t>(doc_end_ - start))));
  }
  std::string Where() const {
    return options_.location.unit + ": " + position_word_ + " " + std::to_string(position_);
  }
  void Rollback(int64_t rows);
  Status BuildNewMembers(Node* node, int64_t length, std::vector<std::string>* path,
                         std::vector<Field>* fields, std::vector<Column>* columns);
  Result<od::value> ParseStashed(const std::string& raw);

  JsonDecodeOptions options_;
  std::shared_ptr<const formats::TextInference> inference_;
  od::parser parser_;
  od::document document_;
  std::string padded_;                  // a document copied to padded memory
  std::vector<std::string> flat_keys_;  // the known top-level names a flat scan may match unscanned
  std::string stashed_buffer_;          // "[raw]" plus padding, for new-member values
  std::string position_word_;           // "line", "record"
  std::vector<Field> known_fields_;
  bool known_has_rescued_ = false;
  bool projected_rescued_ = false;

  std::vector<Column> columns_;     // one per known field (built or not)
  int64_t reserve_rows_ = 0;        // the most rows a batch had
  std::vector<size_t> data_bytes_;  // per column: the most string bytes a batch had
  Node root_;
  int64_t rows_ = 0;
  formats::RescuedDataBuilder rescued_;

  // The document being decoded.
  const char* doc_end_ = nullptr;
  int64_t row_ = 0;
  int64_t position_ = 0;
  int list_depth_ = 0;
  uint64_t stamp_ = 0;
  std::string error_;
};

Status JsonDocumentDecoder::Impl::Reset() {
  // Batches of one decoder tend to be alike: Finish remembers what the last
  // one used, reserved here so buffers are not grown (and copied) again.
  columns_.clear();
  columns_.reserve(known_fields_.size());
  for (size_t k = 0; k < known_fields_.size(); ++k) {
    Column column = MakeEmptyColumn(known_fields_[k].type);
    if (reserve_rows_ > 0 && !column.type.is_nested()) {
      const size_t rows = static_cast<size_t>(reserve_rows_);
      column.values.reserve(rows * static_cast<size_t>(std::max(column.type.fixed_width(), 0)));
      if (column.type.is_binary_like()) {
        column.offsets.reserve(rows + 1);
        if (k < data_bytes_.size()) column.data.reserve(data_bytes_[k] + data_bytes_[k] / 8);
      }
    }
    columns_.push_back(std::move(column));
  }
  root_ = Node();
  for (size_t k = 0; k < known_fields_.size(); ++k) {
    const Field& field = known_fields_[k];
    Column* column = Builds(field.name) ? &columns_[k] : nullptr;
    FLOE_ASSIGN_OR_RETURN(Node child,
                          MakeNode(field.name, field.name, field.type, column, nullptr, *inference_));
    root_.children.push_back(std::move(child));
    root_.plain_name.push_back(field.name.find_first_of("\"\\") == std::string::npos);
  }
  root_.seen.assign(known_fields_.size(), 0);
  rows_ = 0;
  return Status::OK();
}

Outcome JsonDocumentDecoder::Impl::Fail(const std::string& path, std::string_view reason) {
  error_ = Where() + ": field " + path + ": " + std::string(reason);
  return Outcome::kFail;
}

Outcome JsonDocumentDecoder::Impl::Rescue(Node& node, const char* start, std::string_view reason) {
  if (list_depth_ > 0) return Outcome::kMismatch;
  if (options_.on_mismatch == BadDataPolicy::kFail) return Fail(node.path, reason);
  rescued_.AddJsonValue(row_, position_, node.path, RawAt(start));
  node.column->AppendNull();
  return Outcome::kOk;
}

Outcome JsonDocumentDecoder::Impl::RescueValue(Node& node, od::value& value, std::string_view reason) {
  const char* start = value.raw_json_token().data();
  if (Validate(value, 0) != Outcome::kOk) return Outcome::kBroken;
  return Rescue(node, start, reason);
}

Outcome JsonDocumentDecoder::Impl::Validate(od::value& value, int depth) {
  if (depth > options_.max_depth) return Outcome::kBroken;
  od::json_type type;
  if (value.type().get(type)) return Outcome::kBroken;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (value.get_object().get(object)) return Outcome::kBroken;
      for (auto field_result : object) {
        od::field field;
        std::string_view key;
        if (std::move(field_result).get(field) || field.unescaped_key().get(key)) return Outcome::kBroken;
        if (Validate(field.value(), depth + 1) != Outcome::kOk) return Outcome::kBroken;
      }
      return Outcome::kOk;
    }
    case od::json_type::array: {
      od::array array;
      if (value.get_array().get(array)) return Outcome::kBroken;
      for (auto element_result : array) {
        od::value element;
        if (std::move(element_result).get(element) || Validate(element, depth + 1) != Outcome::kOk)
          return Outcome::kBroken;
      }
      return Outcome::kOk;
    }
    case od::json_type::string: {
      std::string_view text;
      return value.get_string().get(text) ? Outcome::kBroken : Outcome::kOk;
    }
    case od::json_type::number:
      return IsJsonNumber(TrimJsonToken(value.raw_json_token())) ? Outcome::kOk : Outcome::kBroken;
    case od::json_type::boolean: {
      bool ignored;
      return value.get_bool().get(ignored) ? Outcome::kBroken : Outcome::kOk;
    }
    case od::json_type::null: {
      bool is_null = false;
      return !value.is_null().get(is_null) && is_null ? Outcome::kOk : Outcome::kBroken;
    }
  }
  return Outcome::kBroken;
}

Outcome JsonDocumentDecoder::Impl::DecodeAsText(Node& node, od::value& value, od::json_type type) {
  Column* column = node.column;
  switch (type) {
    case od::json_type::string: {
      std::string_view text;
      if (value.get_string().get(text)) return Outcome::kBroken;
      column->AppendBytes(text);
      return Outcome::kOk;
    }
    case od::json_type::number: {
      const std::string_view token = TrimJsonToken(value.raw_json_token());
      if (!IsJsonNumber(token)) return Outcome::kBroken;
      column->AppendBytes(token);
      return Outcome::kOk;
    }
    case od::json_type::boolean: {
      bool v;
      if (value.get_bool().get(v)) return Outcome::kBroken;
      column->AppendBytes(v ? "true" : "false");
      return Outcome::kOk;
    }
    default: {
      const char* start = value.raw_json_token().data();
      if (Validate(value, 0) != Outcome::kOk) return Outcome::kBroken;
      column->AppendBytes(RawAt(start));
      return Outcome::kOk;
    }
  }
}

Outcome JsonDocumentDecoder::Impl::DecodeValue(Node& node, od::value& value) {
  od::json_type type;
  if (value.type().get(type)) return Outcome::kBroken;
  if (type == od::json_type::object || type == od::json_type::array) {
    Column* column = node.column;
    switch (node.type.id) {
      case TypeId::kString: return DecodeAsText(node, value, type);
      case TypeId::kStruct: {
        if (type != od::json_type::object) return RescueValue(node, value, "expected an object");
        od::object object;
        if (value.get_object().get(object)) return Outcome::kBroken;
        return DecodeObject(node, object, column->length, false);
      }
      case TypeId::kList:
        if (type != od::json_type::array) return RescueValue(node, value, "expected an array");
        return DecodeArray(node, value);
      case TypeId::kMap:
        if (type != od::json_type::object) return RescueValue(node, value, "expected an object");
        return DecodeMap(node, value);
      default:
        return RescueValue(node, value,
                           std::string(JsonTypeName(type)) + " does not fit " + node.type.ToString());
    }
  }
  // A scalar: its text, then the conversion the flat path shares.
  const char* raw = value.raw_json_token().data();
  JsonScalarKind kind;
  std::string_view text;
  switch (type) {
    case od::json_type::string:
      if (value.get_string().get(text)) return Outcome::kBroken;
      kind = JsonScalarKind::kString;
      break;
    case od::json_type::number:
      text = TrimJsonToken(value.raw_json_token());
      if (!IsJsonNumber(text)) return Outcome::kBroken;
      kind = JsonScalarKind::kNumber;
      break;
    case od::json_type::boolean: {
      bool v;
      if (value.get_bool().get(v)) return Outcome::kBroken;
      kind = v ? JsonScalarKind::kTrue : JsonScalarKind::kFalse;
      text = v ? "true" : "false";
      break;
    }
    case od::json_type::null: {
      bool is_null = false;
      if (value.is_null().get(is_null) || !is_null) return Outcome::kBroken;
      kind = JsonScalarKind::kNull;
      break;
    }
    default: return Outcome::kBroken;
  }
  return AppendScalar(node, kind, text, raw);
}

Outcome JsonDocumentDecoder::Impl::AppendScalar(Node& node, JsonScalarKind kind, std::string_view text,
                                                const char* raw) {
  Column* column = node.column;
  if (kind == JsonScalarKind::kNull) {
    column->AppendNull();
    return Outcome::kOk;
  }
  const bool boolean = kind == JsonScalarKind::kTrue || kind == JsonScalarKind::kFalse;
  const TypeId id = node.type.id;
  switch (id) {
    case TypeId::kString: column->AppendBytes(text); return Outcome::kOk;
    case TypeId::kStruct:
    case TypeId::kMap: return Rescue(node, raw, "expected an object");
    case TypeId::kList: return Rescue(node, raw, "expected an array");
    case TypeId::kBool:
      if (!boolean) return Rescue(node, raw, "expected a boolean");
      column->AppendValue<uint8_t>(kind == JsonScalarKind::kTrue ? 1 : 0);
      return Outcome::kOk;
    case TypeId::kFloat64: {
      double v;
      if (kind == JsonScalarKind::kNumber) {
        if (!formats::ParseDoubleText(text, &v)) return Rescue(node, raw, "number out of the double range");
        column->AppendValue(v);
        return Outcome::kOk;
      }
      // NaN and the infinities, which JSON numbers cannot write.
      if (kind == JsonScalarKind::kString && (text == "NaN" || text == "Infinity" || text == "-Infinity") &&
          formats::ParseDoubleText(text, &v)) {
        column->AppendValue(v);
        return Outcome::kOk;
      }
      return Rescue(node, raw, "expected a number");
    }
    default: break;
  }
  // Numbers read from their literal, so nothing is rounded.
  if (kind == JsonScalarKind::kNumber) {
    const std::string_view token = text;
    switch (id) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
      case TypeId::kUInt64:
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp: {
        // An integer, or a literal whose value is one (1.0, 1e3).
        int64_t v = 0;
        bool ok = formats::ParseInt64Text(token, &v);
        __int128 whole = v;
        if (!ok) {
          formats::DecimalText parsed;
          ok = formats::ParseDecimalText(token, &parsed) && formats::RescaleDecimal(parsed, 38, 0, &whole);
        }
        if (id == TypeId::kUInt64) {
          if (!ok || whole < 0 || whole > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
            return Rescue(node, raw, "number does not fit uint64");
          }
          column->AppendValue(static_cast<uint64_t>(whole));
          return Outcome::kOk;
        }
        if (!ok || whole < std::numeric_limits<int64_t>::min() ||
            whole > std::numeric_limits<int64_t>::max()) {
          return Rescue(node, raw, "number does not fit " + node.type.ToString());
        }
        v = static_cast<int64_t>(whole);
        auto in = [&](int64_t lo, int64_t hi) { return v >= lo && v <= hi; };
        switch (id) {
          case TypeId::kInt8:
            if (!in(INT8_MIN, INT8_MAX)) break;
            column->AppendValue(static_cast<int8_t>(v));
            return Outcome::kOk;
          case TypeId::kInt16:
            if (!in(INT16_MIN, INT16_MAX)) break;
            column->AppendValue(static_cast<int16_t>(v));
            return Outcome::kOk;
          case TypeId::kInt32:
            if (!in(INT32_MIN, INT32_MAX)) break;
            column->AppendValue(static_cast<int32_t>(v));
            return Outcome::kOk;
          case TypeId::kInt64: column->AppendValue(v); return Outcome::kOk;
          case TypeId::kUInt8:
            if (!in(0, UINT8_MAX)) break;
            column->AppendValue(static_cast<uint8_t>(v));
            return Outcome::kOk;
          case TypeId::kUInt16:
            if (!in(0, UINT16_MAX)) break;
            column->AppendValue(static_cast<uint16_t>(v));
            return Outcome::kOk;
          case TypeId::kUInt32:
            if (!in(0, UINT32_MAX)) break;
            column->AppendValue(static_cast<uint32_t>(v));
            return Outcome::kOk;
          case TypeId::kDate:
            if (!in(INT32_MIN, INT32_MAX)) break;
            column->AppendValue(static_cast<int32_t>(v));
            return Outcome::kOk;
          case TypeId::kTime: {
            const int64_t per_day = node.type.unit == TimeUnit::kMilli   ? int64_t{86400000}
                                    : node.type.unit == TimeUnit::kMicro ? int64_t{86400000000}
                                                                         : int64_t{86400000000000};
            if (!in(0, per_day - 1)) break;
            column->AppendValue(v);
            return Outcome::kOk;
          }
          case TypeId::kTimestamp: column->AppendValue(v); return Outcome::kOk;
          default: break;
        }
        return Rescue(node, raw, "number does not fit " + node.type.ToString());
      }
      case TypeId::kFloat32: {
        float v;
        if (!formats::ParseFloatText(token, &v)) return Rescue(node, raw, "number does not fit float");
        column->AppendValue(v);
        return Outcome::kOk;
      }
      case TypeId::kDecimal: {
        formats::DecimalText parsed;
        __int128 v;
        if (!formats::ParseDecimalText(token, &parsed) ||
            !formats::RescaleDecimal(parsed, node.type.precision, node.type.scale, &v)) {
          return Rescue(node, raw, "number does not fit " + node.type.ToString());
        }
        column->AppendValue(v);
        return Outcome::kOk;
      }
      default: return Rescue(node, raw, "a number does not fit " + node.type.ToString());
    }
  }
  if (kind == JsonScalarKind::kString && node.converter) {
    if (node.converter->Append(text, column)) return Outcome::kOk;
    return Rescue(node, raw, "string does not fit " + node.type.ToString());
  }
  return Rescue(node, raw,
                std::string(boolean ? "a boolean" : "a string") + " does not fit " + node.type.ToString());
}

Outcome JsonDocumentDecoder::Impl::AddNewMember(Node& node, std::string_view key, od::value& value,
                                                int64_t slot) {
  const char* start = value.raw_json_token().data();
  if (Validate(value, 0) != Outcome::kOk) return Outcome::kBroken;
  return AddNewMemberRaw(node, key, start, slot);
}

Outcome JsonDocumentDecoder::Impl::AddNewMemberRaw(Node& node, std::string_view key, const char* start,
                                                   int64_t slot) {
  const std::string path = node.path.empty() ? std::string(key) : node.path + "." + std::string(key);
  if (!InfersNewFields()) {
    if (!BuildsEverything()) return Outcome::kOk;  // nobody asked for _rescued_data
    if (list_depth_ > 0) return Outcome::kMismatch;
    if (options_.on_mismatch == BadDataPolicy::kFail) return Fail(path, "not a column of the schema");
    rescued_.AddJsonValue(row_, position_, path, RawAt(start));
    return Outcome::kOk;
  }
  NewMember* member = nullptr;
  for (NewMember& candidate : node.new_members) {
    if (candidate.name == key) member = &candidate;
  }
  if (!member) {
    node.new_members.push_back(NewMember{std::string(key), {}});
    member = &node.new_members.back();
  }
  if (!member->values.empty() && member->values.back().slot == slot) {
    // A repeated member: the first occurrence is the value, later ones are rescued.
    if (list_depth_ > 0) return Outcome::kMismatch;
    if (options_.on_mismatch == BadDataPolicy::kFail) return Fail(path, "member repeated");
    rescued_.AddJsonValue(row_, position_, path, RawAt(start));
    return Outcome::kOk;
  }
  member->values.push_back(NewMemberValue{slot, row_, position_, std::string(RawAt(start))});
  return Outcome::kOk;
}

inline Outcome JsonDocumentDecoder::Impl::AppendFlatScalar(Node& node, const JsonFlatMember& m) {
  Column* column = node.column;
  switch (node.flat) {
    case FlatConversion::kInt64:
      if (m.short_number && m.fraction_digits == 0) {
        column->AppendValue<int64_t>(m.digits);
        return Outcome::kOk;
      }
      break;
    case FlatConversion::kInt32:
      if (m.short_number && m.fraction_digits == 0 && m.digits >= INT32_MIN && m.digits <= INT32_MAX) {
        column->AppendValue(static_cast<int32_t>(m.digits));
        return Outcome::kOk;
      }
      break;
    case FlatConversion::kFloat64: {
      // Digits that a double holds exactly, over a power of ten that it
      // holds exactly: one correctly rounded division, the double the
      // literal means (Clinger's fast path). Zero (whose sign the literal
      // keeps) takes the general path.
      constexpr int64_t kExact = int64_t{1} << 53;
      if (m.short_number && m.digits != 0 && m.digits <= kExact && m.digits >= -kExact) {
        static constexpr double kPow10[19] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                              1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
        column->AppendValue(static_cast<double>(m.digits) / kPow10[m.fraction_digits]);
        return Outcome::kOk;
      }
      break;
    }
    case FlatConversion::kDecimal:
      if (m.short_number) {
        formats::DecimalText parsed;
        parsed.unscaled = m.digits;
        parsed.scale = m.fraction_digits;
        __int128 v;
        if (formats::RescaleDecimal(parsed, node.type.precision, node.type.scale, &v)) {
          column->AppendValue(v);
          return Outcome::kOk;
        }
      }
      break;
    case FlatConversion::kString:
      if (m.kind == JsonScalarKind::kString) {
        column->AppendBytes(m.text);
        return Outcome::kOk;
      }
      break;
    case FlatConversion::kBool:
      if (m.kind == JsonScalarKind::kTrue || m.kind == JsonScalarKind::kFalse) {
        column->AppendValue<uint8_t>(m.kind == JsonScalarKind::kTrue ? 1 : 0);
        return Outcome::kOk;
      }
      break;
    case FlatConversion::kDate: {
      // What the converter reads first for a date without date_format.
      int32_t days;
      if (m.kind == JsonScalarKind::kString && formats::ParseIsoDate(m.text, &days)) {
        column->AppendValue(days);
        return Outcome::kOk;
      }
      break;
    }
    case FlatConversion::kTimestamp: {
      // The converter's first try for a timestamp without timestamp_format.
      int64_t v;
      if (m.kind == JsonScalarKind::kString &&
          formats::CommonIsoTimestampToUnit(m.text, node.type.unit, &v)) {
        column->AppendValue(v);
        return Outcome::kOk;
      }
      break;
    }
    case FlatConversion::kText:
      if (m.kind == JsonScalarKind::kString && node.converter->Append(m.text, column)) return Outcome::kOk;
      break;
    case FlatConversion::kGeneral: break;
  }
  if (m.kind == JsonScalarKind::kNull) {
    column->AppendNull();
    return Outcome::kOk;
  }
  return AppendScalar(node, m.kind, m.text, m.raw);
}

inline Outcome JsonDocumentDecoder::Impl::DecodeFlatMember(const JsonFlatMember& m, uint64_t stamp,
                                                           size_t* seen) {
  if (m.key_index < 0) return AddNewMemberRaw(root_, m.key, m.raw, rows_);
  const size_t index = static_cast<size_t>(m.key_index);
  Node& member = root_.children[index];
  if (root_.seen[index] == stamp) {
    if (!member.column) return Outcome::kOk;
    if (options_.on_mismatch == BadDataPolicy::kFail) return Fail(member.path, "member repeated");
    rescued_.AddJsonValue(row_, position_, member.path, RawAt(m.raw));
    return Outcome::kOk;
  }
  root_.seen[index] = stamp;
  ++*seen;
  if (!member.column) return Outcome::kOk;
  return AppendFlatScalar(member, m);
}

template <bool kLine>
Outcome JsonDocumentDecoder::Impl::DecodeFlat(std::string_view text, size_t* end, bool* touched) {
  // A line's end is not known yet: a rescued scalar's text (RawAt) ends
  // before the next member or the closing brace either way.
  doc_end_ = text.data() + text.size();
  const uint64_t stamp = ++stamp_;
  size_t seen = 0;
  Outcome outcome = Outcome::kOk;
  // The first member that does not decode stops the conversion; whether
  // that is the outcome depends on the whole object being flat.
  *touched = false;
  auto on_member = [&](const JsonFlatMember& m) {
    if (outcome != Outcome::kOk) return;
    *touched = true;
    outcome = DecodeFlatMember(m, stamp, &seen);
  };
  if constexpr (kLine) {
    *end = ScanFlatJsonLine(text, &flat_keys_, on_member);
  } else {
    *end = ScanFlatJsonObject(text, &flat_keys_, on_member) ? text.size() : std::string_view::npos;
  }
  if (*end == std::string_view::npos || outcome != Outcome::kOk) return outcome;
  // Nulls for the known members the object lacked.
  const size_t count = root_.children.size();
  if (seen < count) {
    for (size_t k = 0; k < count; ++k) {
      if (root_.seen[k] != stamp && root_.children[k].column) root_.children[k].column->AppendNull();
    }
  }
  return Outcome::kOk;
}

Outcome JsonDocumentDecoder::Impl::DecodeObject(Node& node, od::object& object, int64_t slot, bool root) {
  const uint64_t stamp = ++stamp_;
  const size_t count = node.children.size();
  // A member that does not fit inside a list element: undo this struct's
  // slot so the enclosing list can rescue itself whole.
  auto give_up = [&](Outcome outcome) {
    if (outcome == Outcome::kMismatch && !root) {
      node.column->Truncate(slot);
      PruneNewMembers(&node);
    }
    return outcome;
  };
  for (auto field_result : object) {
    od::field field;
    if (std::move(field_result).get(field)) return Outcome::kBroken;
    size_t index = count;
    std::string_view key;
    const size_t guess = node.guess;
    if (guess < count && node.plain_name[guess] && field.key().unsafe_is_equal(node.children[guess].name)) {
      index = guess;
    } else {
      if (field.unescaped_key().get(key)) return Outcome::kBroken;
      for (size_t k = 0; k < count; ++k) {
        if (node.children[k].name == key) {
          index = k;
          break;
        }
      }
    }
    od::value& value = field.value();
    if (index == count) {
      const Outcome outcome = AddNewMember(node, key, value, slot);
      if (outcome != Outcome::kOk) return give_up(outcome);
      continue;
    }
    node.guess = index + 1;
    Node& member = node.children[index];
    if (node.seen[index] == stamp) {
      // A repeated member: the first occurrence is the value, later ones are rescued.
      const char* start = value.raw_json_token().data();
      if (Validate(value, 0) != Outcome::kOk) return Outcome::kBroken;
      if (!member.column) continue;
      if (list_depth_ > 0) return give_up(Outcome::kMismatch);
      if (options_.on_mismatch == BadDataPolicy::kFail) return Fail(member.path, "member repeated");
      rescued_.AddJsonValue(row_, position_, member.path, RawAt(start));
      continue;
    }
    node.seen[index] = stamp;
    if (!member.column) {
      if (Validate(value, 0) != Outcome::kOk) return Outcome::kBroken;
      continue;
    }
    const Outcome outcome = DecodeValue(member, value);
    if (outcome != Outcome::kOk) return give_up(outcome);
  }
  for (size_t k = 0; k < count; ++k) {
    if (node.seen[k] != stamp && node.children[k].column) node.children[k].column->AppendNull();
  }
  if (!root) node.column->AppendStructSlot();
  return Outcome::kOk;
}

Outcome JsonDocumentDecoder::Impl::DecodeArray(Node& node, od::value& value) {
  const char* start = value.raw_json_token().data();
  od::array array;
  if (value.get_array().get(array)) return Outcome::kBroken;
  Node& element = node.children[0];
  const int64_t element_start = element.column->length;
  bool mismatch = false;
  ++list_depth_;
  for (auto element_result : array) {
    od::value item;
    if (std::move(element_result).get(item)) {
      --list_depth_;
      return Outcome::kBroken;
    }
    if (mismatch) {
      if (Validate(item, 0) != Outcome::kOk) {
        --list_depth_;
        return Outcome::kBroken;
      }
      continue;
    }
    const Outcome outcome = DecodeValue(element, item);
    if (outcome == Outcome::kMismatch) {
      mismatch = true;
    } else if (outcome != Outcome::kOk) {
      --list_depth_;
      return outcome;
    }
  }
  --list_depth_;
  if (mismatch) {
    element.column->Truncate(element_start);
    PruneNewMembers(&element);
    return Rescue(node, start, "an element does not fit " + element.type.ToString());
  }
  node.column->AppendListEnd();
  return Outcome::kOk;
}

Outcome JsonDocumentDecoder::Impl::DecodeMap(Node& node, od::value& value) {
  const char* start = value.raw_json_token().data();
  od::object object;
  if (value.get_object().get(object)) return Outcome::kBroken;
  Node& key_node = node.children[0];
  Node& value_node = node.children[1];
  const int64_t entry_start = key_node.column->length;
  bool mismatch = false;
  ++list_depth_;
  for (auto field_result : object) {
    od::field field;
    std::string_view key;
    if (std::move(field_result).get(field) || field.unescaped_key().get(key)) {
      --list_depth_;
      return Outcome::kBroken;
    }
    if (mismatch) {
      if (Validate(field.value(), 0) != Outcome::kOk) {
        --list_depth_;
        return Outcome::kBroken;
      }
      continue;
    }
    if (key_node.type.id == TypeId::kString) {
      key_node.column->AppendBytes(key);
    } else if (!key_node.converter->Append(key, key_node.column)) {
      mismatch = true;
      if (Validate(field.value(), 0) != Outcome::kOk) {
        --list_depth_;
        return Outcome::kBroken;
      }
      continue;
    }
    const Outcome outcome = DecodeValue(value_node, field.value());
    if (outcome == Outcome::kMismatch) {
      mismatch = true;
      key_node.column->Truncate(key_node.column->length - 1);
    } else if (outcome != Outcome::kOk) {
      --list_depth_;
      return outcome;
    }
  }
  --list_depth_;
  if (mismatch) {
    key_node.column->Truncate(entry_start);
    value_node.column->Truncate(entry_start);
    PruneNewMembers(&value_node);
    return Rescue(node, start, "an entry does not fit " + node.type.ToString());
  }
  node.column->AppendListEnd();
  return Outcome::kOk;
}

void JsonDocumentDecoder::Impl::Rollback(int64_t rows) {
  for (Node& child : root_.children) {
    if (!child.column) continue;
    child.column->Truncate(rows);
    PruneNewMembers(&child);
  }
  for (NewMember& member : root_.new_members) {
    while (!member.values.empty() && member.values.back().slot >= rows) member.values.pop_back();
  }
  // A member first seen in an undone row is not a field of the batch.
  std::erase_if(root_.new_members, [](const NewMember& member) { return member.values.empty(); });
  rescued_.Truncate(rows);
}

Status JsonDocumentDecoder::Impl::AddLines(std::string_view lines, int64_t first_line, size_t readable_after,
                                           int64_t* next_line) {
  int64_t line = first_line;
  size_t pos = 0;
  const size_t n = lines.size();
  while (pos < n) {
    const std::string_view rest(lines.data() + pos, n - pos);
    size_t end = std::string_view::npos;
    if (options_.flat_fast_path) {
      row_ = rows_;
      position_ = line;
      list_depth_ = 0;
      bool touched;
      const Outcome outcome = DecodeFlat<true>(rest, &end, &touched);
      if (end != std::string_view::npos && outcome == Outcome::kOk &&
          static_cast<int64_t>(end) <= options_.max_document_bytes) {
        ++rows_;
        ++line;
        pos += end + 1;  // past the '\n' (or the text's end)
        continue;
      }
      if (touched) Rollback(rows_);
    }
    // Not flat (or not decoded): the line by the general path, which also
    // says what is wrong with it.
    const JsonLine next = FirstJsonLine(rest);
    if (!next.record.empty()) {
      const size_t after = n - pos - next.record.size() + readable_after;
      FLOE_RETURN_IF_ERROR(Add(next.record, line, after, end != std::string_view::npos));
    }
    ++line;
    pos += next.length;
  }
  *next_line = line;
  return Status::OK();
}

Status JsonDocumentDecoder::Impl::Add(std::string_view document, int64_t position, size_t readable_after,
                                      bool try_flat) {
  row_ = rows_;
  position_ = position;
  list_depth_ = 0;
  std::string broken;
  size_t byte = 0;
  if (static_cast<int64_t>(document.size()) > options_.max_document_bytes) {
    broken = "document of " + std::to_string(document.size()) + " bytes exceeds the limit of " +
             std::to_string(options_.max_document_bytes);
  } else {
    if (options_.flat_fast_path && try_flat) {
      // The common shape, read without simdjson (the same conversions, so
      // the same rows as the general path).
      size_t end;
      bool touched;
      const Outcome outcome = DecodeFlat<false>(document, &end, &touched);
      const bool flat = end != std::string_view::npos;
      if (flat && outcome == Outcome::kOk) {
        ++rows_;
        return Status::OK();
      }
      if (touched) Rollback(rows_);
      if (flat) {
        if (outcome == Outcome::kFail) return Status::OutOfRange(error_);
        return Status::Internal("json decoder: a flat document failed to decode");
      }
    }
    const char* data = document.data();
    size_t capacity = document.size() + readable_after;
    if (readable_after < simdjson::SIMDJSON_PADDING) {
      padded_.assign(document);
      padded_.resize(document.size() + simdjson::SIMDJSON_PADDING, ' ');
      data = padded_.data();
      capacity = padded_.size();
    }
    doc_end_ = data + document.size();
    Outcome outcome = Outcome::kBroken;
    bool not_object = false;
    simdjson::error_code error = parser_.iterate(data, document.size(), capacity).get(document_);
    const bool iterated = !error;  // document_ is only valid then
    od::object object;
    if (!error) {
      error = document_.get_object().get(object);
      not_object = error == simdjson::INCORRECT_TYPE;
    }
    if (!error) {
      outcome = DecodeObject(root_, object, rows_, true);
      const char* trailing = nullptr;
      if (outcome == Outcome::kOk && document_.current_location().get(trailing) != simdjson::OUT_OF_BOUNDS) {
        outcome = Outcome::kBroken;
        error = simdjson::TRAILING_CONTENT;
      }
    }
    if (outcome == Outcome::kFail) {
      Rollback(rows_);
      return Status::OutOfRange(error_);
    }
    if (outcome != Outcome::kOk) {
      const char* location = nullptr;
      if (iterated && !not_object && document_.current_location().get(location) == simdjson::SUCCESS &&
          location >= data && location <= doc_end_) {
        byte = static_cast<size_t>(location - data) + 1;
      }
      if (not_object) {
        broken = "expected a JSON object";
      } else {
        broken = error ? simdjson::error_message(error) : "invalid JSON";
      }
    }
  }
  if (broken.empty()) {
    ++rows_;
    return Status::OK();
  }
  Rollback(rows_);
  if (options_.on_broken == BadDataPolicy::kFail) {
    return Status::Corruption(Where() + (byte > 0 ? ", byte " + std::to_string(byte) : "") + ": " + broken);
  }
  for (Node& child : root_.children) {
    if (child.column) child.column->AppendNull();
  }
  rescued_.AddBroken(rows_, position, document, broken);
  ++rows_;
  return Status::OK();
}

Result<od::value> JsonDocumentDecoder::Impl::ParseStashed(const std::string& raw) {
  stashed_buffer_.assign("[");
  stashed_buffer_.append(raw);
  stashed_buffer_.push_back(']');
  const size_t length = stashed_buffer_.size();
  stashed_buffer_.resize(length + simdjson::SIMDJSON_PADDING, ' ');
  doc_end_ = stashed_buffer_.data() + length;
  od::array array;
  od::value value;
  if (parser_.iterate(stashed_buffer_.data(), length, stashed_buffer_.size()).get(document_) ||
      document_.get_array().get(array)) {
    return Status::Internal("json decoder: a validated value does not parse again");
  }
  for (auto element : array) {
    if (std::move(element).get(value)) break;
    return value;
  }
  return Status::Internal("json decoder: a validated value does not parse again");
}

Status JsonDocumentDecoder::Impl::BuildNewMembers(Node* node, int64_t length, std::vector<std::string>* path,
                                                  std::vector<Field>* fields, std::vector<Column>* columns) {
  const JsonShapeContext context{inference_.get(), &options_.schema_hints, options_.nested_as_json,
                                 options_.max_depth};
  for (NewMember& member : node->new_members) {
    JsonShape shape;
    for (const NewMemberValue& v : member.values) {
      FLOE_ASSIGN_OR_RETURN(od::value value, ParseStashed(v.raw));
      if (!ObserveJsonValue(value, context, 0, &shape)) {
        return Status::Internal("json decoder: a validated value failed inference");
      }
    }
    path->push_back(member.name);
    const DataType type = JsonShapeType(shape, context, path);
    path->pop_back();
    const std::string dotted = node->path.empty() ? member.name : node->path + "." + member.name;
    Column column = MakeEmptyColumn(type);
    FLOE_ASSIGN_OR_RETURN(Node built, MakeNode(member.name, dotted, type, &column, &shape, *inference_));
    size_t next = 0;
    for (int64_t slot = 0; slot < length; ++slot) {
      if (next < member.values.size() && member.values[next].slot == slot) {
        const NewMemberValue& v = member.values[next++];
        FLOE_ASSIGN_OR_RETURN(od::value value, ParseStashed(v.raw));
        row_ = v.row;
        position_ = v.position;
        list_depth_ = 0;
        const Outcome outcome = DecodeValue(built, value);
        if (outcome == Outcome::kFail) return Status::OutOfRange(error_);
        if (outcome != Outcome::kOk)
          return Status::Internal("json decoder: an inferred value does not decode");
      } else {
        column.AppendNull();
      }
    }
    fields->push_back(MakeField(member.name, type));
    columns->push_back(std::move(column));
  }
  node->new_members.clear();
  return Status::OK();
}

Result<RecordBatch> JsonDocumentDecoder::Impl::Finish() {
  // New members of known structs, deepest first does not matter: each
  // struct's new columns only extend that struct.
  std::vector<std::string> path;
  struct Walk {
    Impl* self;
    std::vector<std::string>* path;
    Status Visit(Node* node) {
      if (!node->column) return Status::OK();
      for (Node& child : node->children) {
        const bool member = node->type.id == TypeId::kStruct;
        if (member) path->push_back(child.name);
        Status st = Visit(&child);
        if (member) path->pop_back();
        FLOE_RETURN_IF_ERROR(st);
      }
      if (node->type.id != TypeId::kStruct || node->new_members.empty()) return Status::OK();
      std::vector<Field> fields;
      std::vector<Column> columns;
      FLOE_RETURN_IF_ERROR(self->BuildNewMembers(node, node->column->length, path, &fields, &columns));
      for (size_t k = 0; k < fields.size(); ++k) {
        node->column->type.children.push_back(fields[k]);
        node->column->children.push_back(std::move(columns[k]));
      }
      return Status::OK();
    }
  };
  Walk walk{this, &path};
  for (Node& child : root_.children) {
    path.assign(1, child.name);
    FLOE_RETURN_IF_ERROR(walk.Visit(&child));
  }
  path.clear();
  std::vector<Field> new_fields;
  std::vector<Column> new_columns;
  FLOE_RETURN_IF_ERROR(BuildNewMembers(&root_, rows_, &path, &new_fields, &new_columns));

  reserve_rows_ = std::max(reserve_rows_, rows_);
  data_bytes_.resize(columns_.size());
  for (size_t k = 0; k < columns_.size(); ++k)
    data_bytes_[k] = std::max(data_bytes_[k], columns_[k].data.size());
  RecordBatch batch;
  batch.num_rows = rows_;
  const bool any_rescued = !rescued_.empty();
  Column rescued = rescued_.Finish(rows_);
  auto add_known = [&](size_t k) {
    Column& column = columns_[k];
    RefreshTypes(&column);
    Field field = known_fields_[k];
    field.type = column.type;
    batch.schema.push_back(std::move(field));
    batch.columns.push_back(std::move(column));
  };
  if (options_.columns) {
    for (const std::string& name : *options_.columns) {
      if (name == formats::kRescuedDataColumn) {
        batch.schema.push_back(MakeField(std::string(formats::kRescuedDataColumn), String()));
        batch.columns.push_back(rescued);
        continue;
      }
      for (size_t k = 0; k < known_fields_.size(); ++k) {
        if (known_fields_[k].name == name) add_known(k);
      }
    }
  } else {
    for (size_t k = 0; k < known_fields_.size(); ++k) add_known(k);
    for (size_t k = 0; k < new_fields.size(); ++k) {
      batch.schema.push_back(std::move(new_fields[k]));
      batch.columns.push_back(std::move(new_columns[k]));
    }
    if (any_rescued || options_.always_rescued_column || known_has_rescued_) {
      batch.schema.push_back(MakeField(std::string(formats::kRescuedDataColumn), String()));
      batch.columns.push_back(std::move(rescued));
    }
  }
  FLOE_RETURN_IF_ERROR(Reset());
  return batch;
}

JsonDocumentDecoder::JsonDocumentDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JsonDocumentDecoder::~JsonDocumentDecoder() = default;

Result<std::unique_ptr<JsonDocumentDecoder>> JsonDocumentDecoder::Make(JsonDecodeOptions options) {
  if (options.max_depth < 1 || options.max_depth > 1024) {
    return Status::InvalidArgument("max_depth must be within 1..1024");
  }
  if (options.max_document_bytes < 1) return Status::InvalidArgument("max_document_bytes must be positive");
  FLOE_ASSIGN_OR_RETURN(auto inference, formats::TextInference::Make(options.inference));
  auto impl = std::make_unique<Impl>(std::move(options), std::move(inference));
  FLOE_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<JsonDocumentDecoder>(new JsonDocumentDecoder(std::move(impl)));
}

Status JsonDocumentDecoder::Add(std::string_view document, int64_t position, size_t readable_after) {
  return impl_->Add(document, position, readable_after);
}

Status JsonDocumentDecoder::AddLines(std::string_view lines, int64_t first_line, size_t readable_after,
                                     int64_t* next_line) {
  return impl_->AddLines(lines, first_line, readable_after, next_line);
}

int64_t JsonDocumentDecoder::num_rows() const {
  return impl_->num_rows();
}

Result<RecordBatch> JsonDocumentDecoder::Finish() {
  return impl_->Finish();
}

}  // namespace floe::json
