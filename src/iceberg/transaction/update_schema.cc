#include "iceberg/transaction/update_schema.h"

#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {

namespace {

// Where a field lives: its sibling list and position.
struct FieldSlot {
  std::vector<NestedField>* siblings = nullptr;
  size_t index = 0;
  NestedField& field() const { return (*siblings)[index]; }
};

std::vector<std::string> SplitDotted(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

Result<FieldSlot> FindSlot(Schema& schema, const std::string& dotted) {
  std::vector<NestedField>* level = &schema.fields;
  FieldSlot slot;
  const auto parts = SplitDotted(dotted);
  for (size_t p = 0; p < parts.size(); ++p) {
    if (level == nullptr) break;
    bool found = false;
    for (size_t i = 0; i < level->size(); ++i) {
      if ((*level)[i].name == parts[p]) {
        slot = FieldSlot{level, i};
        found = true;
        break;
      }
    }
    if (!found) return Status::InvalidArgument("column '" + dotted + "' is not in the schema");
    Type& type = slot.field().type;
    level = type.is_nested() ? &type.fields : nullptr;
    if (p + 1 == parts.size()) return slot;
  }
  return Status::InvalidArgument("column '" + dotted + "' is not in the schema");
}

// The struct member list a new column goes into.
Result<std::vector<NestedField>*> FindParentFields(Schema& schema, const std::string& parent) {
  if (parent.empty()) return &schema.fields;
  FLOE_ASSIGN_OR_RETURN(FieldSlot slot, FindSlot(schema, parent));
  Type* type = &slot.field().type;
  if (type->kind == TypeKind::kList) type = &type->fields[0].type;
  if (type->kind == TypeKind::kMap) type = &type->fields[1].type;
  if (type->kind != TypeKind::kStruct) {
    return Status::InvalidArgument("cannot add a column to '" + parent + "': it is not a struct");
  }
  return &type->fields;
}

}  // namespace

UpdateSchema& UpdateSchema::AddColumn(const std::string& parent, const std::string& name, const Type& type,
                                      std::optional<std::string> doc) {
  changes_.push_back(Change{ChangeKind::kAdd, parent, name, type, false, std::move(doc)});
  return *this;
}

UpdateSchema& UpdateSchema::AddRequiredColumn(const std::string& parent, const std::string& name,
                                              const Type& type) {
  changes_.push_back(Change{ChangeKind::kAdd, parent, name, type, true, std::nullopt});
  return *this;
}

UpdateSchema& UpdateSchema::RenameColumn(const std::string& name, const std::string& new_name) {
  changes_.push_back(Change{ChangeKind::kRename, name, new_name, {}, false, std::nullopt});
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumn(const std::string& name, const Type& new_type) {
  changes_.push_back(Change{ChangeKind::kUpdateType, name, "", new_type, false, std::nullopt});
  return *this;
}

UpdateSchema& UpdateSchema::MakeColumnOptional(const std::string& name) {
  changes_.push_back(Change{ChangeKind::kMakeOptional, name, "", {}, false, std::nullopt});
  return *this;
}

UpdateSchema& UpdateSchema::DeleteColumn(const std::string& name) {
  changes_.push_back(Change{ChangeKind::kDelete, name, "", {}, false, std::nullopt});
  return *this;
}

Result<Schema> UpdateSchema::Apply(const TableMetadata& base) const {
  const Schema* current = base.CurrentSchema();
  if (current == nullptr) return Status::Corruption("table has no current schema");
  Schema schema = *current;
  int32_t last_column_id = std::max(base.last_column_id, schema.HighestFieldId());
  for (const Change& c : changes_) {
    switch (c.kind) {
      case ChangeKind::kAdd: {
        if (c.name2.empty() || c.name2.find('.') != std::string::npos) {
          return Status::InvalidArgument("new column name '" + c.name2 +
                                         "' must be non-empty and have no '.'");
        }
        if (c.required && !allow_incompatible_) {
          return Status::InvalidArgument("adding required column '" + c.name2 +
                                         "' breaks reading existing files; call AllowIncompatibleChanges()");
        }
        if (MinFormatVersion(c.type) > base.format_version) {
          return Status::InvalidArgument("column '" + c.name2 + "' of type " + c.type.ToString() +
                                         " needs format version " + std::to_string(MinFormatVersion(c.type)));
        }
        FLOE_ASSIGN_OR_RETURN(std::vector<NestedField> * fields, FindParentFields(schema, c.name));
        for (const auto& f : *fields) {
          if (f.name == c.name2) {
            return Status::InvalidArgument("column '" + c.name2 + "' already exists" +
                                           (c.name.empty() ? "" : " in '" + c.name + "'"));
          }
        }
        // Fresh ids for the column and everything nested in it, above last-column-id.
        Schema wrapper;
        wrapper.fields.push_back(MakeNestedField(0, c.name2, c.type, c.required));
        wrapper.fields.back().doc = c.doc;
        Schema fresh = AssignFreshIds(wrapper, &last_column_id);
        fields->push_back(std::move(fresh.fields[0]));
        break;
      }
      case ChangeKind::kRename: {
        if (c.name2.empty() || c.name2.find('.') != std::string::npos) {
          return Status::InvalidArgument("new name '" + c.name2 + "' for '" + c.name +
                                         "' must be non-empty and have no '.'");
        }
        FLOE_ASSIGN_OR_RETURN(FieldSlot slot, FindSlot(schema, c.name));
        for (const auto& sibling : *slot.siblings) {
          if (sibling.name == c.name2) {
            return Status::InvalidArgument("cannot rename '" + c.name + "' to '" + c.name2 +
                                           "': name is taken");
          }
        }
        slot.field().name = c.name2;
        break;
      }
      case ChangeKind::kUpdateType: {
        FLOE_ASSIGN_OR_RETURN(FieldSlot slot, FindSlot(schema, c.name));
        NestedField& f = slot.field();
        if (!f.type.is_primitive() || !c.type.is_primitive() ||
            !CanPromote(f.type, c.type, base.format_version)) {
          return Status::InvalidArgument("cannot change column '" + c.name + "' from " + f.type.ToString() +
                                         " to " + c.type.ToString() + ": not a type promotion");
        }
        f.type = c.type;
        break;
      }
      case ChangeKind::kMakeOptional: {
        FLOE_ASSIGN_OR_RETURN(FieldSlot slot, FindSlot(schema, c.name));
        if (std::count(schema.identifier_field_ids.begin(), schema.identifier_field_ids.end(),
                       slot.field().id)) {
          return Status::InvalidArgument("column '" + c.name +
                                         "' is an identifier field and must stay required");
        }
        slot.field().required = false;
        break;
      }
      case ChangeKind::kDelete: {
        FLOE_ASSIGN_OR_RETURN(FieldSlot slot, FindSlot(schema, c.name));
        Schema single;
        single.fields.push_back(slot.field());
        for (const auto& [nested_id, unused] : single.IndexById()) {
          if (std::count(schema.identifier_field_ids.begin(), schema.identifier_field_ids.end(), nested_id)) {
            return Status::InvalidArgument("cannot delete column '" + c.name +
                                           "': it is an identifier field");
          }
          if (const PartitionSpec* spec = base.DefaultSpec()) {
            for (const auto& pf : spec->fields) {
              if (pf.source_id == nested_id && pf.transform.kind() != Transform::Kind::kVoid) {
                return Status::InvalidArgument("cannot delete column '" + c.name + "': partition field '" +
                                               pf.name + "' uses it");
              }
            }
          }
          if (const SortOrder* order = base.DefaultSortOrder()) {
            for (const auto& sf : order->fields) {
              if (sf.source_id == nested_id) {
                return Status::InvalidArgument("cannot delete column '" + c.name +
                                               "': the default sort order uses it");
              }
            }
          }
        }
        slot.siblings->erase(slot.siblings->begin() + static_cast<std::ptrdiff_t>(slot.index));
        break;
      }
    }
  }
  FLOE_RETURN_IF_ERROR(schema.Validate().WithContext("updated schema"));
  return schema;
}

Result<Schema> UpdateSchema::Commit() {
  auto attempt = [&](const LoadedTable& base) -> Result<LoadedTable> {
    FLOE_ASSIGN_OR_RETURN(Schema schema, Apply(base.metadata));
    const int32_t last_column_id = std::max(base.metadata.last_column_id, schema.HighestFieldId());
    std::vector<TableRequirement> requirements = {
        requirement::AssertTableUuid{base.metadata.table_uuid},
        requirement::AssertCurrentSchemaId{base.metadata.current_schema_id},
        requirement::AssertLastAssignedFieldId{base.metadata.last_column_id},
    };
    std::vector<TableUpdate> updates = {update::AddSchema{schema, last_column_id},
                                        update::SetCurrentSchema{-1}};
    return table_.ops().Commit(requirements, updates);
  };
  FLOE_ASSIGN_OR_RETURN(LoadedTable committed,
                        CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(), attempt));
  table_.SetCurrent(std::move(committed));
  const Schema* current = table_.metadata().CurrentSchema();
  if (current == nullptr) return Status::Internal("committed metadata has no current schema");
  return *current;
}

}  // namespace floe::iceberg
