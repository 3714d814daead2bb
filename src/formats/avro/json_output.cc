#include "formats/avro/json_output.h"

#include <charconv>
#include <cmath>

#include "common/strings.h"
#include "common/utf8.h"

namespace floe::avro {

namespace {

template <typename T>
void AppendReal(T v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"NaN\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), v);
    out->append(buffer, result.ptr);
  }
}

void AppendQuotedHex(const std::vector<uint8_t>& bytes, std::string* out) {
  out->push_back('"');
  AppendHex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), out);
  out->push_back('"');
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < text.size();) {
    const uint8_t c = static_cast<uint8_t>(text[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        *out += "\xef\xbf\xbd";
        ++i;
      } else {
        out->append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(kLowerHexDigits[c >> 4]);
          out->push_back(kLowerHexDigits[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

void AppendAvroValueJson(const AvroNode& schema, const AvroValue& value, std::string* out) {
  if (schema.type == AvroType::kUnion) {
    const int32_t branch = value.union_branch();
    if (branch < 0 || static_cast<size_t>(branch) >= schema.branches.size() || value.children().size() != 1) {
      *out += "null";
      return;
    }
    AppendAvroValueJson(*schema.branches[branch], value.children()[0], out);
    return;
  }
  const bool widened = (schema.type == AvroType::kLong && value.kind() == AvroType::kInt) ||
                       (schema.type == AvroType::kDouble && value.kind() == AvroType::kFloat);
  if (value.kind() != schema.type && !widened) {
    *out += "null";
    return;
  }
  switch (schema.type) {
    case AvroType::kNull: *out += "null"; return;
    case AvroType::kBoolean: *out += value.boolean() ? "true" : "false"; return;
    case AvroType::kInt:
    case AvroType::kLong: *out += std::to_string(value.long_value()); return;
    case AvroType::kFloat: AppendReal(value.float_value(), out); return;
    case AvroType::kDouble: AppendReal(value.double_value(), out); return;
    case AvroType::kBytes:
    case AvroType::kFixed: AppendQuotedHex(value.bytes(), out); return;
    case AvroType::kString: AppendJsonString(value.string(), out); return;
    case AvroType::kEnum: {
      const int32_t index = value.enum_index();
      if (index >= 0 && static_cast<size_t>(index) < schema.symbols.size()) {
        AppendJsonString(schema.symbols[index], out);
      } else {
        *out += "null";
      }
      return;
    }
    case AvroType::kRecord: {
      out->push_back('{');
      for (size_t i = 0; i < schema.fields.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(schema.fields[i].name, out);
        out->push_back(':');
        if (i < value.children().size()) {
          AppendAvroValueJson(*schema.fields[i].type, value.children()[i], out);
        } else {
          *out += "null";
        }
      }
      out->push_back('}');
      return;
    }
    case AvroType::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < value.children().size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendAvroValueJson(*schema.items, value.children()[i], out);
      }
      out->push_back(']');
      return;
    }
    case AvroType::kMap: {
      out->push_back('{');
      for (size_t i = 0; i < value.children().size() && i < value.map_keys().size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(value.map_keys()[i], out);
        out->push_back(':');
        AppendAvroValueJson(*schema.values, value.children()[i], out);
      }
      out->push_back('}');
      return;
    }
    case AvroType::kUnion: return;  // handled above
  }
}

std::string AvroValueToJson(const AvroNode& schema, const AvroValue& value) {
  std::string out;
  AppendAvroValueJson(schema, value, &out);
  return out;
}

}  // namespace floe::avro
