#include "formats/avro/columnar_decoder.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "formats/text_conversion.h"

namespace floe::avro {
namespace {

enum class Op : uint8_t {
  kNull,
  kBool,
  kInt32,
  kTimeMillis,  // int millis -> time[ms] (int64 values)
  kLong,
  kFloat,
  kDouble,
  kString,
  kUuidString,
  kBinary,
  kDecimalBytes,
  kEnum,
  kFixed,
  kDecimalFixed,
  kRecord,
  kArray,
  kMap,
  kNullableUnion,
  kUnion,
};

bool IsAdjustedToUtc(const AvroNode& node) {
  auto it = node.attributes.find("adjust-to-utc");
  return !(it != node.attributes.end() && it->is_boolean() && !it->get<bool>());
}

std::string LogicalName(const AvroNode& node) {
  auto it = node.attributes.find("logicalType");
  return it != node.attributes.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The non-null branch of a [null, X] union, or nullptr.
const AvroNode* NullableBranch(const AvroNode& node) {
  if (node.type != AvroType::kUnion || node.branches.size() != 2) return nullptr;
  const int null_branch = node.NullBranch();
  if (null_branch < 0) return nullptr;
  return node.branches[static_cast<size_t>(1 - null_branch)];
}

// Big-endian two's complement -> __int128; false when it needs more than 16 bytes.
bool BigEndianToInt128(std::string_view bytes, __int128* out) {
  size_t start = 0;
  const bool negative = !bytes.empty() && (static_cast<unsigned char>(bytes[0]) & 0x80);
  // Sign-extension bytes carry no value.
  while (bytes.size() - start > 16 && static_cast<unsigned char>(bytes[start]) == (negative ? 0xFF : 0x00)) {
    ++start;
  }
  if (bytes.size() - start > 16) return false;
  unsigned __int128 v = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = start; i < bytes.size(); ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  *out = static_cast<__int128>(v);
  return true;
}

}  // namespace

struct AvroColumnarDecoder::Plan {
  Op op = Op::kNull;
  const AvroNode* node = nullptr;
  std::string name;                // the field or member name, for messages
  int null_branch = -1;            // kNullableUnion
  std::vector<Plan> children;      // record fields; array item; map value; union branches
  std::vector<int> branch_member;  // kUnion: branch -> struct member (tag), -1 for null
  int32_t width = 0;               // fixed sizes
};

namespace {

using Plan = AvroColumnarDecoder::Plan;

struct Mapper {
  std::set<const AvroNode*> open_records;
  std::vector<AvroFieldAliases>* aliases;
  std::vector<std::string> path;

  // The plan and column type of `node`; *nullable says whether null is a value.
  Result<Plan> Map(const AvroNode& node, DataType* type, bool* nullable) {
    Plan plan;
    plan.node = &node;
    *nullable = false;
    const std::string logical = LogicalName(node);
    switch (node.type) {
      case AvroType::kNull:
        plan.op = Op::kNull;
        *type = String();
        *nullable = true;
        return plan;
      case AvroType::kBoolean: plan.op = Op::kBool, *type = Bool(); return plan;
      case AvroType::kInt:
        plan.op = Op::kInt32;
        *type = Int32();
        if (node.logical_type == LogicalType::kDate) *type = Date();
        if (node.logical_type == LogicalType::kTimeMillis)
          plan.op = Op::kTimeMillis, *type = Time(TimeUnit::kMilli);
        return plan;
      case AvroType::kLong:
        plan.op = Op::kLong;
        *type = Int64();
        switch (node.logical_type) {
          case LogicalType::kTimeMicros: *type = Time(TimeUnit::kMicro); break;
          case LogicalType::kTimestampMillis:
            *type = Timestamp(TimeUnit::kMilli, IsAdjustedToUtc(node));
            break;
          case LogicalType::kTimestampMicros:
            *type = Timestamp(TimeUnit::kMicro, IsAdjustedToUtc(node));
            break;
          case LogicalType::kLocalTimestampMillis: *type = Timestamp(TimeUnit::kMilli, false); break;
          case LogicalType::kLocalTimestampMicros: *type = Timestamp(TimeUnit::kMicro, false); break;
          default:
            if (logical == "timestamp-nanos") *type = Timestamp(TimeUnit::kNano, IsAdjustedToUtc(node));
            if (logical == "local-timestamp-nanos") *type = Timestamp(TimeUnit::kNano, false);
            if (logical == "time-nanos") *type = Time(TimeUnit::kNano);
            break;
        }
        return plan;
      case AvroType::kFloat: plan.op = Op::kFloat, *type = Float32(); return plan;
      case AvroType::kDouble: plan.op = Op::kDouble, *type = Float64(); return plan;
      case AvroType::kString:
        if (node.logical_type == LogicalType::kUuid) {
          plan.op = Op::kUuidString;
          *type = Uuid();
        } else {
          plan.op = Op::kString;
          *type = String();
        }
        return plan;
      case AvroType::kBytes:
        if (node.logical_type == LogicalType::kDecimal) {
          if (node.precision > 38) return TooPrecise(node);
          plan.op = Op::kDecimalBytes;
          *type = Decimal(node.precision, node.scale);
        } else {
          plan.op = Op::kBinary;
          *type = Binary();
        }
        return plan;
      case AvroType::kEnum: plan.op = Op::kEnum, *type = String(); return plan;
      case AvroType::kFixed:
        plan.width = node.fixed_size;
        if (node.logical_type == LogicalType::kDecimal) {
          if (node.precision > 38) return TooPrecise(node);
          plan.op = Op::kDecimalFixed;
          *type = Decimal(node.precision, node.scale);
        } else if (node.logical_type == LogicalType::kUuid) {
          plan.op = Op::kFixed;
          *type = Uuid();
        } else {
          plan.op = Op::kFixed;
          *type = FixedBinary(node.fixed_size);
        }
        return plan;
      case AvroType::kArray: {
        plan.op = Op::kArray;
        DataType element;
        bool element_nullable;
        path.push_back("element");
        auto item = Map(*node.items, &element, &element_nullable);
        path.pop_back();
        if (!item.ok()) return item.status();
        plan.children.push_back(std::move(*item));
        *type =
            List(MakeField("element", std::move(element), element_nullable, node.IntAttribute("element-id")));
        return plan;
      }
      case AvroType::kMap: {
        plan.op = Op::kMap;
        DataType value;
        bool value_nullable;
        path.push_back("value");
        auto values = Map(*node.values, &value, &value_nullable);
        path.pop_back();
        if (!values.ok()) return values.status();
        plan.children.push_back(std::move(*values));
        *type =
            ::floe::Map(MakeField("key", String(), false, node.IntAttribute("key-id")),
                        MakeField("value", std::move(value), value_nullable, node.IntAttribute("value-id")));
        return plan;
      }
      case AvroType::kUnion: {
        if (const AvroNode* branch = NullableBranch(node)) {
          plan.op = Op::kNullableUnion;
          plan.null_branch = node.NullBranch();
          bool inner_nullable;
          FLOE_ASSIGN_OR_RETURN(Plan inner, Map(*branch, type, &inner_nullable));
          plan.children.push_back(std::move(inner));
          *nullable = true;
          return plan;
        }
        if (node.branches.size() == 1) return Map(*node.branches[0], type, nullable);
        plan.op = Op::kUnion;
        std::vector<Field> members = {MakeField("tag", Int32(), false)};
        for (const AvroNode* branch : node.branches) {
          if (branch->type == AvroType::kNull) {
            *nullable = true;
            plan.branch_member.push_back(-1);
            plan.children.push_back(Plan{});
            continue;
          }
          const std::string member = "field" + std::to_string(members.size() - 1);
          DataType member_type;
          bool member_nullable;
          path.push_back(member);
          auto inner = Map(*branch, &member_type, &member_nullable);
          path.pop_back();
          if (!inner.ok()) return inner.status();
          plan.branch_member.push_back(static_cast<int>(members.size() - 1));
          plan.children.push_back(std::move(*inner));
          members.push_back(MakeField(member, std::move(member_type), true));
        }
        *type = Struct(std::move(members));
        return plan;
      }
      case AvroType::kRecord: {
        if (!open_records.insert(&node).second) {
          return Status::NotSupported("avro record " + node.full_name +
                                      " contains itself: recursive types have no columnar form");
        }
        plan.op = Op::kRecord;
        std::vector<Field> members;
        for (const AvroField& field : node.fields) {
          path.push_back(field.name);
          if (!field.aliases.empty()) aliases->push_back(AvroFieldAliases{path, field.aliases});
          DataType member_type;
          bool member_nullable;
          auto inner = Map(*field.type, &member_type, &member_nullable);
          path.pop_back();
          if (!inner.ok()) return inner.status().WithContext(field.name);
          inner->name = field.name;
          plan.children.push_back(std::move(*inner));
          members.push_back(MakeField(field.name, std::move(member_type), member_nullable, field.field_id()));
        }
        open_records.erase(&node);
        *type = Struct(std::move(members));
        return plan;
      }
    }
    return Status::Internal("avro columnar: unhandled type");
  }

  static Status TooPrecise(const AvroNode& node) {
    return Status::NotSupported("avro decimal(" + std::to_string(node.precision) + "," +
                                std::to_string(node.scale) + ") has more than 38 digits");
  }
};

}  // namespace

struct AvroColumnarDecoder::State {
  AvroSchema writer = *AvroSchema::Parse("\"null\"");
  AvroColumnarSchema columnar;
  Plan root;                    // kRecord (or the wrapped value's plan)
  std::vector<int> selected;    // columnar indexes in output order
  std::vector<int> column_of;   // per top-level field: index into columns, or -1
  std::vector<Column> columns;  // one per selected field, in field order
  int64_t rows = 0;
  std::string error_path;
};

namespace {

Status Decode(const Plan& plan, AvroDecoder* decoder, Column* column);

Status DecodeRecordInto(const Plan& plan, AvroDecoder* decoder, Column* column) {
  for (size_t k = 0; k < plan.children.size(); ++k) {
    Status st = Decode(plan.children[k], decoder, column ? &column->children[k] : nullptr);
    if (!st.ok()) return st.WithContext(plan.children[k].name);
  }
  if (column) column->AppendStructSlot();
  return Status::OK();
}

Status Decode(const Plan& plan, AvroDecoder* decoder, Column* column) {
  switch (plan.op) {
    case Op::kNull:
      if (column) column->AppendNull();
      return Status::OK();
    case Op::kBool: {
      uint8_t byte;
      FLOE_RETURN_IF_ERROR(decoder->ReadFixed(1, &byte));
      if (byte > 1) {
        return Status::Corruption("at byte " + std::to_string(decoder->position() - 1) +
                                  ": boolean byte is " + std::to_string(byte));
      }
      if (column) column->AppendValue<uint8_t>(byte);
      return Status::OK();
    }
    case Op::kInt32: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, decoder->ReadInt());
      if (column) column->AppendValue(v);
      return Status::OK();
    }
    case Op::kTimeMillis: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, decoder->ReadInt());
      if (column) column->AppendValue(static_cast<int64_t>(v));
      return Status::OK();
    }
    case Op::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, decoder->ReadLong());
      if (column) column->AppendValue(v);
      return Status::OK();
    }
    case Op::kFloat: {
      float v;
      FLOE_RETURN_IF_ERROR(decoder->ReadFixed(sizeof(v), reinterpret_cast<uint8_t*>(&v)));
      if (column) column->AppendValue(v);
      return Status::OK();
    }
    case Op::kDouble: {
      double v;
      FLOE_RETURN_IF_ERROR(decoder->ReadFixed(sizeof(v), reinterpret_cast<uint8_t*>(&v)));
      if (column) column->AppendValue(v);
      return Status::OK();
    }
    case Op::kString:
    case Op::kBinary: {
      FLOE_ASSIGN_OR_RETURN(std::string_view bytes, decoder->ReadBytesView());
      if (column) column->AppendBytes(bytes);
      return Status::OK();
    }
    case Op::kUuidString: {
      const size_t at = decoder->position();
      FLOE_ASSIGN_OR_RETURN(std::string_view text, decoder->ReadBytesView());
      uint8_t uuid[16];
      if (!formats::ParseUuidText(text, uuid)) {
        return Status::Corruption("at byte " + std::to_string(at) + ": '" + std::string(text.substr(0, 40)) +
                                  "' is not a uuid");
      }
      if (column) column->AppendFixed(uuid);
      return Status::OK();
    }
    case Op::kDecimalBytes:
    case Op::kDecimalFixed: {
      const size_t at = decoder->position();
      std::string_view bytes;
      if (plan.op == Op::kDecimalBytes) {
        FLOE_ASSIGN_OR_RETURN(bytes, decoder->ReadBytesView());
      } else {
        const size_t width = static_cast<size_t>(plan.width);
        if (width > decoder->remaining()) return decoder->ReadFixed(width, nullptr);  // the truncation error
        std::vector<uint8_t> buffer(width);
        FLOE_RETURN_IF_ERROR(decoder->ReadFixed(width, buffer.data()));
        __int128 v;
        if (!BigEndianToInt128(std::string_view(reinterpret_cast<const char*>(buffer.data()), width), &v)) {
          return Status::Corruption("at byte " + std::to_string(at) + ": decimal wider than 16 bytes");
        }
        if (column) column->AppendValue(v);
        return Status::OK();
      }
      __int128 v;
      if (!BigEndianToInt128(bytes, &v)) {
        return Status::Corruption("at byte " + std::to_string(at) + ": decimal of " +
                                  std::to_string(bytes.size()) + " bytes is wider than 16 bytes");
      }
      if (column) column->AppendValue(v);
      return Status::OK();
    }
    case Op::kEnum: {
      const size_t at = decoder->position();
      FLOE_ASSIGN_OR_RETURN(int32_t index, decoder->ReadInt());
      const auto& symbols = plan.node->symbols;
      if (index < 0 || static_cast<size_t>(index) >= symbols.size()) {
        return Status::Corruption("at byte " + std::to_string(at) + ": enum index " + std::to_string(index) +
                                  " out of range for " + std::to_string(symbols.size()) + " symbols");
      }
      if (column) column->AppendBytes(symbols[static_cast<size_t>(index)]);
      return Status::OK();
    }
    case Op::kFixed: {
      const size_t width = static_cast<size_t>(plan.width);
      if (width > decoder->remaining()) return decoder->ReadFixed(width, nullptr);
      std::vector<uint8_t> bytes(width);
      FLOE_RETURN_IF_ERROR(decoder->ReadFixed(width, bytes.data()));
      if (column) column->AppendFixed(bytes.data());
      return Status::OK();
    }
    case Op::kRecord: return DecodeRecordInto(plan, decoder, column);
    case Op::kArray:
    case Op::kMap: {
      const bool is_map = plan.op == Op::kMap;
      while (true) {
        const size_t at = decoder->position();
        FLOE_ASSIGN_OR_RETURN(int64_t count, decoder->ReadLong());
        if (count == 0) break;
        if (count < 0) {
          if (count == INT64_MIN)
            return Status::Corruption("at byte " + std::to_string(at) + ": invalid block count");
          count = -count;
          FLOE_ASSIGN_OR_RETURN(int64_t byte_size, decoder->ReadLong());
          if (byte_size < 0 || static_cast<uint64_t>(byte_size) > decoder->remaining()) {
            return Status::Corruption("at byte " + std::to_string(at) + ": block byte size " +
                                      std::to_string(byte_size) + " exceeds the " +
                                      std::to_string(decoder->remaining()) + " bytes left");
          }
        }
        for (int64_t i = 0; i < count; ++i) {
          FLOE_RETURN_IF_ERROR(decoder->ChargeItem());
          if (is_map) {
            FLOE_ASSIGN_OR_RETURN(std::string_view key, decoder->ReadBytesView());
            if (column) column->children[0].AppendBytes(key);
            Status st = Decode(plan.children[0], decoder, column ? &column->children[1] : nullptr);
            if (!st.ok()) return st.WithContext("key '" + std::string(key.substr(0, 64)) + "'");
          } else {
            FLOE_RETURN_IF_ERROR(Decode(plan.children[0], decoder, column ? &column->children[0] : nullptr));
          }
        }
      }
      if (column) column->AppendListEnd();
      return Status::OK();
    }
    case Op::kNullableUnion:
    case Op::kUnion: {
      const size_t at = decoder->position();
      FLOE_ASSIGN_OR_RETURN(int64_t branch, decoder->ReadLong());
      const size_t branches = plan.node->branches.size();
      if (branch < 0 || static_cast<uint64_t>(branch) >= branches) {
        return Status::Corruption("at byte " + std::to_string(at) + ": union branch index " +
                                  std::to_string(branch) + " out of range for " + std::to_string(branches) +
                                  " branches");
      }
      if (plan.op == Op::kNullableUnion) {
        if (branch == plan.null_branch) {
          if (column) column->AppendNull();
          return Status::OK();
        }
        return Decode(plan.children[0], decoder, column);
      }
      const int member = plan.branch_member[static_cast<size_t>(branch)];
      if (member < 0) {
        if (column) column->AppendNull();
        return Status::OK();
      }
      if (!column) return Decode(plan.children[static_cast<size_t>(branch)], decoder, nullptr);
      column->children[0].AppendValue<int32_t>(member);
      for (size_t k = 1; k < column->children.size(); ++k) {
        if (static_cast<int>(k) - 1 == member) {
          FLOE_RETURN_IF_ERROR(
              Decode(plan.children[static_cast<size_t>(branch)], decoder, &column->children[k]));
        } else {
          column->children[k].AppendNull();
        }
      }
      column->AppendStructSlot();
      return Status::OK();
    }
  }
  return Status::Internal("avro columnar: unhandled op");
}

}  // namespace

Result<AvroColumnarSchema> AvroToColumnarSchema(const AvroSchema& schema) {
  AvroColumnarSchema result;
  Mapper mapper{{}, &result.aliases, {}};
  DataType type;
  bool nullable;
  FLOE_ASSIGN_OR_RETURN(Plan plan, mapper.Map(schema.root(), &type, &nullable));
  if (plan.op == Op::kRecord) {
    result.schema = type.children;
  } else {
    result.wrapped = true;
    result.schema = {MakeField("value", type, nullable)};
  }
  return result;
}

Result<std::unique_ptr<AvroColumnarDecoder>> AvroColumnarDecoder::Make(const AvroSchema& writer,
                                                                       const std::vector<int>& columns) {
  std::unique_ptr<AvroColumnarDecoder> decoder(new AvroColumnarDecoder());
  auto state = std::make_unique<State>();
  state->writer = writer;
  std::vector<AvroFieldAliases> aliases;
  Mapper mapper{{}, &aliases, {}};
  DataType type;
  bool nullable;
  FLOE_ASSIGN_OR_RETURN(Plan plan, mapper.Map(writer.root(), &type, &nullable));
  FLOE_ASSIGN_OR_RETURN(state->columnar, AvroToColumnarSchema(writer));
  if (plan.op != Op::kRecord) {
    // A bare value: a one-field record around it.
    Plan record;
    record.op = Op::kRecord;
    record.node = &writer.root();
    plan.name = "value";
    record.children.push_back(std::move(plan));
    plan = std::move(record);
  }
  state->root = std::move(plan);
  const size_t fields = state->columnar.schema.size();
  if (columns.empty()) {
    for (size_t k = 0; k < fields; ++k) state->selected.push_back(static_cast<int>(k));
  } else {
    for (int c : columns) {
      if (c < 0 || static_cast<size_t>(c) >= fields) {
        return Status::InvalidArgument("avro columnar: no column " + std::to_string(c));
      }
      state->selected.push_back(c);
    }
  }
  state->column_of.assign(fields, -1);
  for (size_t k = 0; k < fields; ++k) {
    if (std::find(state->selected.begin(), state->selected.end(), static_cast<int>(k)) !=
        state->selected.end()) {
      state->column_of[k] = static_cast<int>(state->columns.size());
      state->columns.push_back(MakeEmptyColumn(state->columnar.schema[k].type));
    }
  }
  decoder->state_ = std::move(state);
  return decoder;
}

AvroColumnarDecoder::~AvroColumnarDecoder() = default;

const AvroColumnarSchema& AvroColumnarDecoder::columnar() const {
  return state_->columnar;
}

int64_t AvroColumnarDecoder::num_rows() const {
  return state_->rows;
}

Status AvroColumnarDecoder::Append(AvroDecoder* decoder) {
  State& s = *state_;
  const Plan& root = s.root;
  for (size_t k = 0; k < root.children.size(); ++k) {
    const int index = s.column_of[k];
    Status st =
        Decode(root.children[k], decoder, index >= 0 ? &s.columns[static_cast<size_t>(index)] : nullptr);
    if (!st.ok()) {
      for (Column& column : s.columns) column.Truncate(s.rows);
      return st.WithContext(root.children[k].name);
    }
  }
  ++s.rows;
  return Status::OK();
}

RecordBatch AvroColumnarDecoder::Finish() {
  State& s = *state_;
  RecordBatch batch;
  batch.num_rows = s.rows;
  for (size_t j = 0; j < s.selected.size(); ++j) {
    const int c = s.selected[j];
    batch.schema.push_back(s.columnar.schema[static_cast<size_t>(c)]);
    Column& column = s.columns[static_cast<size_t>(s.column_of[static_cast<size_t>(c)])];
    // A column selected again later is copied; its last use moves it.
    if (std::find(s.selected.begin() + static_cast<std::ptrdiff_t>(j) + 1, s.selected.end(), c) !=
        s.selected.end()) {
      batch.columns.push_back(column);
    } else {
      const DataType type = column.type;
      batch.columns.push_back(std::move(column));
      column = MakeEmptyColumn(type);
    }
  }
  s.rows = 0;
  return batch;
}

}  // namespace floe::avro
