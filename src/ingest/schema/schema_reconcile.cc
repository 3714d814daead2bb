#include "ingest/schema/schema_reconcile.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "ingest/schema/name_match.h"
#include "ingest/schema/type_compat.h"

namespace floe::ingest {

namespace {

using internal::JoinPath;
using internal::MatchNames;
using internal::NameMatch;
using internal::PrimitiveMatch;

constexpr const char* kProtectedSuffix = " (key/ordering/operation columns cannot be rescued)";

// Why a source column cannot be read into the table column: the full name of
// the offending (possibly nested) member and what is wrong with it.
struct Mismatch {
  std::string column;
  std::string detail;
};
using Outcome = std::optional<Mismatch>;  // nullopt: the column fits

Outcome Fits() {
  return std::nullopt;
}
Outcome Fails(std::string column, std::string detail) {
  return Mismatch{std::move(column), std::move(detail)};
}

std::string TypesDetail(const iceberg::Type& table, const DataType& file) {
  return "table type " + table.ToString() + ", file type " + file.ToString();
}

std::vector<std::string_view> NamesOf(const std::vector<iceberg::NestedField>& fields) {
  std::vector<std::string_view> names;
  names.reserve(fields.size());
  for (const auto& f : fields) names.emplace_back(f.name);
  return names;
}

std::vector<std::string_view> NamesOf(const std::vector<Field>& fields) {
  std::vector<std::string_view> names;
  names.reserve(fields.size());
  for (const auto& f : fields) names.emplace_back(f.name);
  return names;
}

std::vector<std::string> Extend(const std::vector<std::string>& path, const std::string& part) {
  std::vector<std::string> out = path;
  out.push_back(part);
  return out;
}

void Append(SchemaEvolution* into, SchemaEvolution&& from) {
  for (auto& a : from.added) into->added.push_back(std::move(a));
  for (auto& p : from.promoted) into->promoted.push_back(std::move(p));
}

// Compares one source column (or nested member) with the table's, collecting
// the evolution it needs and notes; a returned Mismatch means it cannot be
// read into the table column at all.
class TypeComparer {
 public:
  TypeComparer(int format_version, std::vector<std::string>* notes)
      : format_version_(format_version), notes_(notes) {}

  Result<Outcome> Compare(const iceberg::Type& table, const DataType& file,
                          const std::vector<std::string>& path, bool in_map_key, SchemaEvolution* evolution) {
    const std::string name = JoinPath(path);
    auto shape_mismatch = [&]() -> std::optional<Mismatch> { return Fails(name, TypesDetail(table, file)); };
    switch (table.kind) {
      case iceberg::TypeKind::kStruct:
        if (file.id != TypeId::kStruct) return shape_mismatch();
        return CompareStruct(table.fields, file.children, path, in_map_key, evolution);
      case iceberg::TypeKind::kList:
        if (file.id != TypeId::kList || file.children.size() != 1) return shape_mismatch();
        return Compare(table.element().type, file.children[0].type, Extend(path, table.element().name),
                       in_map_key, evolution);
      case iceberg::TypeKind::kMap: {
        if (file.id != TypeId::kMap || file.children.size() != 2) return shape_mismatch();
        FLOE_ASSIGN_OR_RETURN(auto key, Compare(table.key().type, file.children[0].type,
                                                Extend(path, table.key().name), true, evolution));
        if (key) return key;
        return Compare(table.value().type, file.children[1].type, Extend(path, table.value().name),
                       in_map_key, evolution);
      }
      case iceberg::TypeKind::kUnknown: return shape_mismatch();
      default: break;
    }
    if (file.is_nested()) return shape_mismatch();
    auto incoming = internal::IcebergTypeForSource(file, format_version_);
    if (!incoming.ok()) return shape_mismatch();
    switch (internal::MatchPrimitive(table, *incoming)) {
      case PrimitiveMatch::kSame: return Fits();
      case PrimitiveMatch::kCastUp:
        notes_->push_back("column " + name + ": file type " + file.ToString() + " is read as table type " +
                          table.ToString());
        return Fits();
      case PrimitiveMatch::kPromote:
        if (in_map_key) return shape_mismatch();  // Iceberg cannot change a map key's type
        evolution->promoted.push_back({name, table, *incoming, path});
        notes_->push_back("column " + name + ": table type " + table.ToString() + " is widened to " +
                          incoming->ToString());
        return Fits();
      case PrimitiveMatch::kIncompatible: return shape_mismatch();
    }
    return shape_mismatch();
  }

  Result<Outcome> CompareStruct(const std::vector<iceberg::NestedField>& table_fields,
                                const std::vector<Field>& file_fields, const std::vector<std::string>& path,
                                bool in_map_key, SchemaEvolution* evolution) {
    auto matches = MatchNames(NamesOf(table_fields), NamesOf(file_fields));
    if (!matches.ok()) return matches.status().WithContext("column " + JoinPath(path));
    std::vector<bool> claimed(table_fields.size(), false);
    for (size_t i = 0; i < file_fields.size(); ++i) {
      const Field& member = file_fields[i];
      const NameMatch& match = (*matches)[i];
      std::vector<std::string> member_path = Extend(path, member.name);
      if (match.kind == NameMatch::Kind::kCaseClash) {
        return Fails(JoinPath(member_path),
                     "its name matches a table member only by case, and that "
                     "member is already matched exactly or is ambiguous");
      }
      if (match.kind == NameMatch::Kind::kUnmatched) {
        if (in_map_key) {
          return Fails(JoinPath(member_path), "a map key cannot gain members");
        }
        auto type = internal::IcebergTypeForSource(member.type, format_version_);
        if (!type.ok()) {
          return Fails(JoinPath(member_path), "file type " + member.type.ToString() +
                                                  " has no Iceberg type (" + type.status().message() + ")");
        }
        evolution->added.push_back({JoinPath(member_path), std::move(type).value(), member_path});
        continue;
      }
      const iceberg::NestedField& table_member = table_fields[static_cast<size_t>(match.table_index)];
      claimed[static_cast<size_t>(match.table_index)] = true;
      member_path.back() = table_member.name;
      if (match.kind == NameMatch::Kind::kCaseInsensitive) {
        notes_->push_back("column " + JoinPath(Extend(path, member.name)) + " matches table column " +
                          JoinPath(member_path) + " ignoring case");
      }
      FLOE_ASSIGN_OR_RETURN(auto mismatch,
                            Compare(table_member.type, member.type, member_path, in_map_key, evolution));
      if (mismatch) return mismatch;
    }
    for (size_t t = 0; t < table_fields.size(); ++t) {
      if (!claimed[t] && table_fields[t].required) {
        return Fails(JoinPath(Extend(path, table_fields[t].name)),
                     "required by the table but missing from the file");
      }
    }
    return Fits();
  }

 private:
  int format_version_;
  std::vector<std::string>* notes_;
};

bool IsProtected(const ReconcileOptions& options, std::string_view name) {
  return std::any_of(options.protected_columns.begin(), options.protected_columns.end(),
                     [&](const std::string& p) { return EqualsIgnoreAsciiCase(p, name); });
}

}  // namespace

Result<FileMapping> Reconcile(const iceberg::Schema& table_schema, const floe::Schema& file_schema,
                              const std::string& file_uri, const ReconcileOptions& options) {
  FileMapping mapping;
  mapping.file_uri = file_uri;
  auto error = [&](const std::string& column, const std::string& detail) {
    return Status::InvalidArgument(file_uri + ": column " + column + ": " + detail);
  };

  auto matches = MatchNames(NamesOf(table_schema.fields), NamesOf(file_schema));
  if (!matches.ok()) return matches.status().WithContext(file_uri);

  TypeComparer comparer(options.format_version, &mapping.warnings);
  std::vector<bool> claimed(table_schema.fields.size(), false);
  std::vector<std::string> rescue_notes;
  for (size_t i = 0; i < file_schema.size(); ++i) {
    const Field& column = file_schema[i];
    const NameMatch& match = (*matches)[i];
    const iceberg::NestedField* table_column =
        match.matched() ? &table_schema.fields[static_cast<size_t>(match.table_index)] : nullptr;
    if (table_column) claimed[static_cast<size_t>(match.table_index)] = true;

    std::optional<Mismatch> mismatch;
    SchemaEvolution needs;
    if (match.kind == NameMatch::Kind::kCaseClash) {
      mismatch = Mismatch{column.name,
                          "its name matches a table column only by case, and that column is already "
                          "matched exactly or is ambiguous"};
    } else if (!table_column) {
      auto type = internal::IcebergTypeForSource(column.type, options.format_version);
      if (type.ok()) {
        needs.added.push_back({column.name, std::move(type).value(), {column.name}});
      } else {
        mismatch = Mismatch{column.name, "file type " + column.type.ToString() + " has no Iceberg type (" +
                                             type.status().message() + ")"};
      }
    } else {
      if (match.kind == NameMatch::Kind::kCaseInsensitive) {
        mapping.warnings.push_back("column " + column.name + " matches table column " + table_column->name +
                                   " ignoring case");
      }
      FLOE_ASSIGN_OR_RETURN(
          mismatch, comparer.Compare(table_column->type, column.type, {table_column->name}, false, &needs));
    }
    if (!mismatch) {
      Append(&mapping.evolution, std::move(needs));
      continue;
    }
    if (IsProtected(options, column.name) || (table_column && IsProtected(options, table_column->name))) {
      return error(mismatch->column, mismatch->detail + kProtectedSuffix);
    }
    if (options.policy != IncompatiblePolicy::kRescue) return error(mismatch->column, mismatch->detail);
    if (table_column && table_column->required) {
      return error(mismatch->column, mismatch->detail + " (the table requires column " + table_column->name +
                                         ", so it cannot be rescued and the file cannot be written)");
    }
    mapping.rescued.push_back(column.name);
    mapping.warnings.push_back("column " + column.name + ": values go to " + kRescuedDataColumn + " (" +
                               mismatch->column + ": " + mismatch->detail + ")");
  }

  for (size_t t = 0; t < table_schema.fields.size(); ++t) {
    const iceberg::NestedField& field = table_schema.fields[t];
    if (claimed[t] || !field.required) continue;
    return error(field.name,
                 "required by the table but missing from the file (rescue cannot fill a required column, "
                 "so the file cannot be written)");
  }

  if (!mapping.rescued.empty()) {
    for (const Field& column : file_schema) {
      // A string one (a text reader's rescues) takes the rescued columns too.
      if (column.name == kRescuedDataColumn && column.type.id != TypeId::kString) {
        return error(column.name, "the file has its own " + std::string(kRescuedDataColumn) +
                                      " column of type " + column.type.ToString() +
                                      ", so other columns cannot be rescued into it");
      }
    }
    const iceberg::NestedField* rescued_field = nullptr;
    for (const auto& field : table_schema.fields) {
      if (field.name == kRescuedDataColumn) rescued_field = &field;
    }
    if (rescued_field == nullptr) {
      mapping.evolution.added.push_back(
          {kRescuedDataColumn, iceberg::PrimitiveType(iceberg::TypeKind::kString), {kRescuedDataColumn}});
    } else if (rescued_field->type.kind != iceberg::TypeKind::kString) {
      return error(kRescuedDataColumn, "the table's column has type " + rescued_field->type.ToString() +
                                           ", but rescued values need a string column");
    }
  }
  return mapping;
}

namespace {

// Finds a member by exact name, else by the single case-insensitive match.
iceberg::NestedField* FindMember(std::vector<iceberg::NestedField>* fields, const std::string& name) {
  for (auto& f : *fields) {
    if (f.name == name) return &f;
  }
  iceberg::NestedField* found = nullptr;
  for (auto& f : *fields) {
    if (EqualsIgnoreAsciiCase(f.name, name)) {
      if (found) return nullptr;
      found = &f;
    }
  }
  return found;
}

// The field at `path`; messages name it as `full_name`.
Result<iceberg::NestedField*> ResolvePath(std::vector<iceberg::NestedField>* top,
                                          const std::vector<std::string>& path,
                                          const std::string& full_name) {
  std::vector<iceberg::NestedField>* fields = top;
  iceberg::NestedField* field = nullptr;
  for (size_t i = 0; i < path.size(); ++i) {
    field = FindMember(fields, path[i]);
    if (field == nullptr) {
      return Status::InvalidArgument("column " + full_name + ": " +
                                     JoinPath(std::vector<std::string>(path.begin(), path.begin() + i + 1)) +
                                     " is not in the table schema");
    }
    fields = &field->type.fields;
  }
  return field;
}

// Makes `existing` (a table column, or one added earlier) able to hold the
// values of `incoming`: widens primitives, adds missing struct members with
// fresh ids. Error when neither type holds the other.
Status MergeInto(iceberg::Type* existing, const iceberg::Type& incoming, const std::string& name,
                 bool map_key, int32_t* next_id) {
  auto disagree = [&] {
    return Status::InvalidArgument("column " + name + ": files disagree on its type (" +
                                   existing->ToString() + " and " + incoming.ToString() + ")");
  };
  if (existing->is_primitive() || incoming.is_primitive()) {
    switch (internal::MatchPrimitive(*existing, incoming)) {
      case PrimitiveMatch::kSame:
      case PrimitiveMatch::kCastUp: return Status::OK();
      case PrimitiveMatch::kPromote:
        if (map_key) return disagree();
        *existing = incoming;
        return Status::OK();
      case PrimitiveMatch::kIncompatible: return disagree();
    }
    return disagree();
  }
  if (existing->kind != incoming.kind) return disagree();
  switch (existing->kind) {
    case iceberg::TypeKind::kStruct:
      for (const iceberg::NestedField& member : incoming.fields) {
        iceberg::NestedField* target = FindMember(&existing->fields, member.name);
        if (target != nullptr) {
          FLOE_RETURN_IF_ERROR(
              MergeInto(&target->type, member.type, name + "." + target->name, map_key, next_id));
          continue;
        }
        if (map_key) return disagree();
        iceberg::NestedField added = member;
        added.id = (*next_id)++;
        added.required = false;
        internal::AssignFreshIds(&added.type, next_id);
        existing->fields.push_back(std::move(added));
      }
      return Status::OK();
    case iceberg::TypeKind::kList:
      return MergeInto(&existing->fields.at(0).type, incoming.element().type, name + ".element", map_key,
                       next_id);
    case iceberg::TypeKind::kMap:
      FLOE_RETURN_IF_ERROR(
          MergeInto(&existing->fields.at(0).type, incoming.key().type, name + ".key", true, next_id));
      return MergeInto(&existing->fields.at(1).type, incoming.value().type, name + ".value", map_key,
                       next_id);
    default: return disagree();
  }
}

Status ApplyAdded(iceberg::Schema* schema, const SchemaEvolution::AddedColumn& added, int format_version,
                  int32_t* next_id) {
  std::vector<std::string> path = added.path.empty() ? std::vector<std::string>{added.name} : added.path;
  if (iceberg::MinFormatVersion(added.type) > format_version) {
    return Status::InvalidArgument("column " + added.name + ": type " + added.type.ToString() +
                                   " needs format version " +
                                   std::to_string(iceberg::MinFormatVersion(added.type)));
  }
  std::vector<iceberg::NestedField>* siblings = &schema->fields;
  if (path.size() > 1) {
    FLOE_ASSIGN_OR_RETURN(
        iceberg::NestedField * parent,
        ResolvePath(&schema->fields, std::vector<std::string>(path.begin(), path.end() - 1), added.name));
    if (parent->type.kind != iceberg::TypeKind::kStruct) {
      return Status::InvalidArgument("column " + added.name + ": its parent has type " +
                                     parent->type.ToString() + ", not a struct");
    }
    siblings = &parent->type.fields;
  }
  if (iceberg::NestedField* existing = FindMember(siblings, path.back())) {
    return MergeInto(&existing->type, added.type, added.name, false, next_id);
  }
  iceberg::NestedField field = iceberg::MakeNestedField((*next_id)++, path.back(), added.type, false);
  internal::AssignFreshIds(&field.type, next_id);
  siblings->push_back(std::move(field));
  return Status::OK();
}

Status ApplyPromoted(iceberg::Schema* schema, const SchemaEvolution::PromotedColumn& promoted) {
  std::vector<std::string> path =
      promoted.path.empty() ? std::vector<std::string>{promoted.name} : promoted.path;
  FLOE_ASSIGN_OR_RETURN(iceberg::NestedField * field, ResolvePath(&schema->fields, path, promoted.name));
  switch (internal::MatchPrimitive(field->type, promoted.to)) {
    case PrimitiveMatch::kSame:
    case PrimitiveMatch::kCastUp: return Status::OK();  // already as wide or wider
    case PrimitiveMatch::kPromote: field->type = promoted.to; return Status::OK();
    case PrimitiveMatch::kIncompatible: break;
  }
  return Status::InvalidArgument("column " + promoted.name + ": cannot change table type " +
                                 field->type.ToString() + " to " + promoted.to.ToString());
}

}  // namespace

Result<iceberg::Schema> EvolveSchema(const iceberg::Schema& table_schema, int32_t last_column_id,
                                     const std::vector<SchemaEvolution>& evolutions, int format_version) {
  iceberg::Schema evolved = table_schema;
  int32_t next_id = std::max(last_column_id, table_schema.HighestFieldId()) + 1;
  for (const SchemaEvolution& evolution : evolutions) {
    for (const auto& added : evolution.added) {
      FLOE_RETURN_IF_ERROR(ApplyAdded(&evolved, added, format_version, &next_id));
    }
    for (const auto& promoted : evolution.promoted) FLOE_RETURN_IF_ERROR(ApplyPromoted(&evolved, promoted));
  }
  FLOE_RETURN_IF_ERROR(evolved.Validate());
  return evolved;
}

}  // namespace floe::ingest
