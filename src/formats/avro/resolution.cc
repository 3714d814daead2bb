#include "formats/avro/resolution.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "common/bounded_memo.h"

namespace floe::avro {

struct AvroProjection::Plan {
  enum class Kind { kCopy, kPromote, kRecord, kEnum, kArray, kMap, kWriterUnion, kReaderUnion, kError };
  struct FieldStep {
    int writer_index = -1;  // -1: the reader field is filled from `fill`
    int plan = -1;
    AvroValue fill;
  };
  Kind kind = Kind::kError;
  AvroType target = AvroType::kNull;  // kPromote: the reader's type
  std::vector<FieldStep> fields;      // kRecord, in reader order
  std::vector<int> enum_map;          // kEnum: writer symbol index -> reader index, -1 = none
  std::vector<std::string> reader_symbols;
  int reader_default_symbol = -1;
  int child = -1;                 // kArray, kMap, kReaderUnion
  int reader_branch = -1;         // kReaderUnion
  std::vector<int> branch_plans;  // kWriterUnion: one per writer branch
  std::string error;              // kError
};

namespace {

using Plan = AvroProjection::Plan;

bool Promotable(AvroType from, AvroType to) {
  switch (from) {
    case AvroType::kInt: return to == AvroType::kLong || to == AvroType::kFloat || to == AvroType::kDouble;
    case AvroType::kLong: return to == AvroType::kFloat || to == AvroType::kDouble;
    case AvroType::kFloat: return to == AvroType::kDouble;
    case AvroType::kString: return to == AvroType::kBytes;
    case AvroType::kBytes: return to == AvroType::kString;
    default: return false;
  }
}

bool SameKind(const AvroNode& writer, const AvroNode& reader) {
  if (writer.type != reader.type) return false;
  if (writer.type == AvroType::kFixed) return writer.fixed_size == reader.fixed_size;
  return true;
}

// Index of the reader union branch that takes values of `writer`, or -1.
int PickReaderBranch(const AvroNode& writer, const AvroNode& reader_union) {
  const auto& branches = reader_union.branches;
  if (writer.is_named()) {
    for (size_t i = 0; i < branches.size(); ++i) {
      if (SameKind(writer, *branches[i]) && branches[i]->name == writer.name) return static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    if (SameKind(writer, *branches[i])) return static_cast<int>(i);
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    if (Promotable(writer.type, branches[i]->type)) return static_cast<int>(i);
  }
  return -1;
}

std::string Describe(const AvroNode& node) {
  return node.is_named() ? std::string(AvroTypeName(node.type)) + " " + node.full_name
                         : AvroTypeName(node.type);
}

class PlanBuilder {
 public:
  explicit PlanBuilder(std::vector<Plan>* plans) : plans_(plans) {}

  Result<int> Build(const AvroNode& writer, const AvroNode& reader) {
    auto key = std::make_pair(&writer, &reader);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const int index = static_cast<int>(plans_->size());
    plans_->emplace_back();
    memo_[key] = index;
    FLOE_ASSIGN_OR_RETURN(Plan plan, MakePlan(writer, reader));
    (*plans_)[index] = std::move(plan);
    return index;
  }

 private:
  static Plan Error(std::string message) {
    Plan plan;
    plan.kind = Plan::Kind::kError;
    plan.error = std::move(message);
    return plan;
  }

  Result<Plan> MakePlan(const AvroNode& writer, const AvroNode& reader) {
    Plan plan;
    if (writer.type == AvroType::kUnion) {
      plan.kind = Plan::Kind::kWriterUnion;
      for (const AvroNode* branch : writer.branches) {
        FLOE_ASSIGN_OR_RETURN(int child, Build(*branch, reader));
        plan.branch_plans.push_back(child);
      }
      return plan;
    }
    if (reader.type == AvroType::kUnion) {
      const int branch = PickReaderBranch(writer, reader);
      if (branch < 0)
        return Error("no branch of the reader's union accepts the writer's " + Describe(writer));
      plan.kind = Plan::Kind::kReaderUnion;
      plan.reader_branch = branch;
      FLOE_ASSIGN_OR_RETURN(plan.child, Build(writer, *reader.branches[branch]));
      return plan;
    }
    if (writer.type != reader.type) {
      if (Promotable(writer.type, reader.type)) {
        plan.kind = Plan::Kind::kPromote;
        plan.target = reader.type;
        return plan;
      }
      return Error("writer's " + Describe(writer) + " cannot be read as " + Describe(reader));
    }
    switch (reader.type) {
      case AvroType::kFixed:
        if (writer.fixed_size != reader.fixed_size) {
          return Error("writer's fixed of " + std::to_string(writer.fixed_size) +
                       " bytes cannot be read as fixed of " + std::to_string(reader.fixed_size));
        }
        plan.kind = Plan::Kind::kCopy;
        return plan;
      case AvroType::kEnum: {
        plan.kind = Plan::Kind::kEnum;
        plan.reader_symbols = reader.symbols;
        for (const auto& symbol : writer.symbols) {
          int mapped = -1;
          for (size_t i = 0; i < reader.symbols.size(); ++i) {
            if (reader.symbols[i] == symbol) mapped = static_cast<int>(i);
          }
          plan.enum_map.push_back(mapped);
        }
        if (reader.enum_default) {
          for (size_t i = 0; i < reader.symbols.size(); ++i) {
            if (reader.symbols[i] == *reader.enum_default) plan.reader_default_symbol = static_cast<int>(i);
          }
        }
        return plan;
      }
      case AvroType::kArray: {
        plan.kind = Plan::Kind::kArray;
        FLOE_ASSIGN_OR_RETURN(plan.child, Build(*writer.items, *reader.items));
        return plan;
      }
      case AvroType::kMap: {
        plan.kind = Plan::Kind::kMap;
        FLOE_ASSIGN_OR_RETURN(plan.child, Build(*writer.values, *reader.values));
        return plan;
      }
      case AvroType::kRecord: return MakeRecordPlan(writer, reader);
      default: plan.kind = Plan::Kind::kCopy; return plan;
    }
  }

  static int MatchField(const AvroNode& writer, const AvroField& reader_field) {
    const auto reader_id = reader_field.field_id();
    if (reader_id) {
      for (size_t i = 0; i < writer.fields.size(); ++i) {
        if (writer.fields[i].field_id() == reader_id) return static_cast<int>(i);
      }
    }
    for (size_t i = 0; i < writer.fields.size(); ++i) {
      const AvroField& candidate = writer.fields[i];
      if (reader_id && candidate.field_id()) continue;  // both have ids and they differ
      if (candidate.name == reader_field.name) return static_cast<int>(i);
      for (const auto& alias : reader_field.aliases) {
        if (candidate.name == alias) return static_cast<int>(i);
      }
    }
    return -1;
  }

  // Matching by id is ambiguous when a record repeats an id.
  static Status CheckUniqueIds(const AvroNode& record, const char* side) {
    std::map<int32_t, const std::string*> seen;
    for (const AvroField& field : record.fields) {
      const auto id = field.field_id();
      if (!id) continue;
      auto [it, inserted] = seen.emplace(*id, &field.name);
      if (!inserted) {
        return Status::SchemaMismatch(std::string(side) + " record " + record.full_name + " gives field-id " +
                                      std::to_string(*id) + " to both " + *it->second + " and " + field.name);
      }
    }
    return Status::OK();
  }

  Result<Plan> MakeRecordPlan(const AvroNode& writer, const AvroNode& reader) {
    FLOE_RETURN_IF_ERROR(CheckUniqueIds(writer, "writer's"));
    FLOE_RETURN_IF_ERROR(CheckUniqueIds(reader, "reader's"));
    Plan plan;
    plan.kind = Plan::Kind::kRecord;
    for (const AvroField& field : reader.fields) {
      Plan::FieldStep step;
      const std::string id_text =
          field.field_id() ? " (field-id " + std::to_string(*field.field_id()) + ")" : "";
      step.writer_index = MatchField(writer, field);
      if (step.writer_index >= 0) {
        auto child = Build(*writer.fields[step.writer_index].type, *field.type);
        if (!child.ok()) return child.status().WithContext(field.name);
        step.plan = *child;
      } else if (field.default_value) {
        auto fill = AvroValueFromJsonDefault(*field.type, *field.default_value);
        if (!fill.ok()) return fill.status().WithContext("default of field " + field.name + id_text);
        step.fill = std::move(*fill);
      } else if (field.type->type == AvroType::kUnion && field.type->NullBranch() >= 0) {
        step.fill = AvroValue::Union(field.type->NullBranch(), AvroValue::Null());
      } else if (field.type->type != AvroType::kNull) {
        return Status::SchemaMismatch("reader field " + field.name + id_text + " of record " +
                                      reader.full_name + " is not in the writer's schema and has no default");
      }
      plan.fields.push_back(std::move(step));
    }
    return plan;
  }

  std::vector<Plan>* plans_;
  std::map<std::pair<const AvroNode*, const AvroNode*>, int> memo_;
};

Status Apply(const std::vector<Plan>& plans, int index, const AvroValue& value, AvroValue* out, int depth) {
  if (depth > 2 * AvroSchema::kMaxDepth + 64)
    return Status::SchemaMismatch("value nested too deeply to project");
  const Plan& plan = plans[index];
  switch (plan.kind) {
    case Plan::Kind::kCopy: *out = value; return Status::OK();
    case Plan::Kind::kError: return Status::SchemaMismatch(plan.error);
    case Plan::Kind::kPromote:
      switch (plan.target) {
        case AvroType::kLong: *out = AvroValue::Long(value.long_value()); return Status::OK();
        case AvroType::kFloat:
          *out = AvroValue::Float(value.kind() == AvroType::kFloat ? value.float_value()
                                                                   : static_cast<float>(value.long_value()));
          return Status::OK();
        case AvroType::kDouble:
          *out =
              AvroValue::Double(value.kind() == AvroType::kFloat ? value.double_value()
                                                                 : static_cast<double>(value.long_value()));
          return Status::OK();
        case AvroType::kBytes: *out = AvroValue::Bytes(value.string()); return Status::OK();
        case AvroType::kString:
          *out = AvroValue::String(std::string(value.bytes().begin(), value.bytes().end()));
          return Status::OK();
        default: return Status::Internal("avro projection: bad promotion");
      }
    case Plan::Kind::kEnum: {
      const int32_t w = value.enum_index();
      int mapped = (w >= 0 && static_cast<size_t>(w) < plan.enum_map.size()) ? plan.enum_map[w] : -1;
      if (mapped < 0) mapped = plan.reader_default_symbol;
      if (mapped < 0)
        return Status::SchemaMismatch("enum symbol '" + value.string() + "' is unknown to the reader");
      *out = AvroValue::Enum(mapped, plan.reader_symbols[mapped]);
      return Status::OK();
    }
    case Plan::Kind::kArray: {
      std::vector<AvroValue> items(value.children().size());
      for (size_t i = 0; i < items.size(); ++i) {
        FLOE_RETURN_IF_ERROR(Apply(plans, plan.child, value.children()[i], &items[i], depth + 1));
      }
      *out = AvroValue::Array(std::move(items));
      return Status::OK();
    }
    case Plan::Kind::kMap: {
      std::vector<std::pair<std::string, AvroValue>> entries(value.children().size());
      for (size_t i = 0; i < entries.size(); ++i) {
        entries[i].first = value.map_keys()[i];
        FLOE_RETURN_IF_ERROR(Apply(plans, plan.child, value.children()[i], &entries[i].second, depth + 1));
      }
      *out = AvroValue::Map(std::move(entries));
      return Status::OK();
    }
    case Plan::Kind::kWriterUnion: {
      const int32_t branch = value.union_branch();
      if (branch < 0 || static_cast<size_t>(branch) >= plan.branch_plans.size() ||
          value.children().size() != 1) {
        return Status::InvalidArgument("value is not a union of the writer's schema");
      }
      return Apply(plans, plan.branch_plans[branch], value.children()[0], out, depth + 1);
    }
    case Plan::Kind::kReaderUnion: {
      AvroValue inner;
      FLOE_RETURN_IF_ERROR(Apply(plans, plan.child, value, &inner, depth + 1));
      *out = AvroValue::Union(plan.reader_branch, std::move(inner));
      return Status::OK();
    }
    case Plan::Kind::kRecord: {
      std::vector<AvroValue> fields(plan.fields.size());
      for (size_t i = 0; i < fields.size(); ++i) {
        const Plan::FieldStep& step = plan.fields[i];
        if (step.writer_index < 0) {
          fields[i] = step.fill;
          continue;
        }
        if (static_cast<size_t>(step.writer_index) >= value.children().size()) {
          return Status::InvalidArgument("record value has fewer fields than the writer's schema");
        }
        FLOE_RETURN_IF_ERROR(
            Apply(plans, step.plan, value.children()[step.writer_index], &fields[i], depth + 1));
      }
      *out = AvroValue::Record(std::move(fields));
      return Status::OK();
    }
  }
  return Status::Internal("avro projection: unhandled plan");
}

Result<AvroValue> FromJsonDefault(const AvroNode& schema, const Json& json, int depth) {
  if (depth > AvroSchema::kMaxDepth) return Status::InvalidArgument("default value nested too deeply");
  auto bad = [&]() {
    return Status::InvalidArgument(std::string("default value ") +
                                   json.dump(-1, ' ', false, Json::error_handler_t::replace).substr(0, 60) +
                                   " is not a valid " + AvroTypeName(schema.type));
  };
  switch (schema.type) {
    case AvroType::kNull:
      if (!json.is_null()) return bad();
      return AvroValue::Null();
    case AvroType::kBoolean:
      if (!json.is_boolean()) return bad();
      return AvroValue::Boolean(json.get<bool>());
    case AvroType::kInt:
      if (!json.is_number_integer()) return bad();
      if (json.get<int64_t>() < INT32_MIN || json.get<int64_t>() > INT32_MAX) return bad();
      return AvroValue::Int(static_cast<int32_t>(json.get<int64_t>()));
    case AvroType::kLong:
      if (!json.is_number_integer()) return bad();
      return AvroValue::Long(json.get<int64_t>());
    case AvroType::kFloat:
    case AvroType::kDouble: {
      double v = 0;
      if (json.is_number()) {
        v = json.get<double>();
      } else if (json.is_string() && json.get<std::string>() == "NaN") {
        v = std::nan("");
      } else if (json.is_string() && json.get<std::string>() == "Infinity") {
        v = INFINITY;
      } else if (json.is_string() && json.get<std::string>() == "-Infinity") {
        v = -INFINITY;
      } else {
        return bad();
      }
      return schema.type == AvroType::kFloat ? AvroValue::Float(static_cast<float>(v)) : AvroValue::Double(v);
    }
    case AvroType::kString:
      if (!json.is_string()) return bad();
      return AvroValue::String(json.get<std::string>());
    case AvroType::kBytes:
    case AvroType::kFixed: {
      // JSON strings whose code points 0-255 are the bytes.
      if (!json.is_string()) return bad();
      const std::string& utf8 = json.get_ref<const std::string&>();
      std::vector<uint8_t> bytes;
      for (size_t i = 0; i < utf8.size(); ++i) {
        const uint8_t c = static_cast<uint8_t>(utf8[i]);
        if (c < 0x80) {
          bytes.push_back(c);
        } else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < utf8.size()) {
          bytes.push_back(static_cast<uint8_t>(((c & 0x1f) << 6) | (static_cast<uint8_t>(utf8[++i]) & 0x3f)));
        } else {
          return bad();
        }
      }
      if (schema.type == AvroType::kBytes) return AvroValue::Bytes(std::move(bytes));
      if (bytes.size() != static_cast<size_t>(schema.fixed_size)) return bad();
      return AvroValue::Fixed(std::move(bytes));
    }
    case AvroType::kEnum:
      if (!json.is_string()) return bad();
      for (size_t i = 0; i < schema.symbols.size(); ++i) {
        if (schema.symbols[i] == json.get<std::string>())
          return AvroValue::Enum(static_cast<int32_t>(i), schema.symbols[i]);
      }
      return bad();
    case AvroType::kArray: {
      if (!json.is_array()) return bad();
      std::vector<AvroValue> items;
      for (const Json& item : json) {
        FLOE_ASSIGN_OR_RETURN(AvroValue v, FromJsonDefault(*schema.items, item, depth + 1));
        items.push_back(std::move(v));
      }
      return AvroValue::Array(std::move(items));
    }
    case AvroType::kMap: {
      if (!json.is_object()) return bad();
      std::vector<std::pair<std::string, AvroValue>> entries;
      for (auto it = json.begin(); it != json.end(); ++it) {
        FLOE_ASSIGN_OR_RETURN(AvroValue v, FromJsonDefault(*schema.values, it.value(), depth + 1));
        entries.emplace_back(it.key(), std::move(v));
      }
      return AvroValue::Map(std::move(entries));
    }
    case AvroType::kRecord: {
      if (!json.is_object()) return bad();
      std::vector<AvroValue> fields;
      for (const AvroField& field : schema.fields) {
        auto it = json.find(field.name);
        if (it != json.end()) {
          FLOE_ASSIGN_OR_RETURN(AvroValue v, FromJsonDefault(*field.type, *it, depth + 1));
          fields.push_back(std::move(v));
        } else if (field.default_value) {
          FLOE_ASSIGN_OR_RETURN(AvroValue v, FromJsonDefault(*field.type, *field.default_value, depth + 1));
          fields.push_back(std::move(v));
        } else {
          return Status::InvalidArgument("default value for record " + schema.full_name + " lacks field " +
                                         field.name);
        }
      }
      return AvroValue::Record(std::move(fields));
    }
    case AvroType::kUnion:
      // Avro 1.11: the default belongs to the first branch; later branches are
      // tried as well, as Avro 1.12 allows.
      for (size_t i = 0; i < schema.branches.size(); ++i) {
        auto v = FromJsonDefault(*schema.branches[i], json, depth + 1);
        if (v.ok()) return AvroValue::Union(static_cast<int32_t>(i), std::move(*v));
      }
      return bad();
  }
  return bad();
}

}  // namespace

Result<AvroValue> AvroValueFromJsonDefault(const AvroNode& schema, const Json& json) {
  return FromJsonDefault(schema, json, 0);
}

namespace {

// Projections made before, by the identity of their two schemas' roots. A
// memoized projection holds both schemas, so the nodes a key points at stay
// alive (and unique) as long as the entry does. Parsed schemas are shared
// (AvroSchema::Parse memoizes them), so every manifest of one partition type
// finds the projection its first one made.
struct RootPairHash {
  size_t operator()(const std::pair<const AvroNode*, const AvroNode*>& roots) const {
    return std::hash<const void*>()(roots.first) * 31 + std::hash<const void*>()(roots.second);
  }
};
using ProjectionMemo = BoundedMemo<std::pair<const AvroNode*, const AvroNode*>, AvroProjection, RootPairHash>;
ProjectionMemo& Projections() {
  static auto* memo = new ProjectionMemo(256);  // never destroyed: usable during exit
  return *memo;
}

}  // namespace

Result<AvroProjection> AvroProjection::Make(const AvroSchema& writer, const AvroSchema& reader) {
  const std::pair<const AvroNode*, const AvroNode*> roots(&writer.root(), &reader.root());
  if (std::optional<AvroProjection> known = Projections().Find(roots)) return *std::move(known);
  auto plans = std::make_shared<std::vector<Plan>>();
  PlanBuilder builder(plans.get());
  FLOE_ASSIGN_OR_RETURN(int root, builder.Build(writer.root(), reader.root()));
  if (root != 0) return Status::Internal("avro projection: root plan is not first");
  AvroProjection projection(writer, reader, std::move(plans));
  Projections().Add(roots, projection);
  return projection;
}

Status AvroProjection::Project(const AvroValue& value, AvroValue* out) const {
  return Apply(*plans_, 0, value, out, 0);
}

}  // namespace floe::avro
