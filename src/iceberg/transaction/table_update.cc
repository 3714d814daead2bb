#include "iceberg/transaction/table_update.h"

#include <type_traits>

#include "iceberg/spec/table_metadata_builder.h"

namespace floe::iceberg {

namespace {

template <class... Fns>
struct Overloaded : Fns... {
  using Fns::operator()...;
};
template <class... Fns>
Overloaded(Fns...) -> Overloaded<Fns...>;

std::string RefDescription(const std::string& ref, const std::optional<int64_t>& id) {
  return "ref '" + ref + "' " + (id ? "at snapshot " + std::to_string(*id) : std::string("absent"));
}

}  // namespace

std::string TableUpdateAction(const TableUpdate& update) {
  return std::visit(Overloaded{
                        [](const update::AssignUuid&) { return "assign-uuid"; },
                        [](const update::UpgradeFormatVersion&) { return "upgrade-format-version"; },
                        [](const update::AddSchema&) { return "add-schema"; },
                        [](const update::SetCurrentSchema&) { return "set-current-schema"; },
                        [](const update::AddSpec&) { return "add-spec"; },
                        [](const update::SetDefaultSpec&) { return "set-default-spec"; },
                        [](const update::AddSortOrder&) { return "add-sort-order"; },
                        [](const update::SetDefaultSortOrder&) { return "set-default-sort-order"; },
                        [](const update::AddSnapshot&) { return "add-snapshot"; },
                        [](const update::SetSnapshotRef&) { return "set-snapshot-ref"; },
                        [](const update::RemoveSnapshots&) { return "remove-snapshots"; },
                        [](const update::RemoveSnapshotRef&) { return "remove-snapshot-ref"; },
                        [](const update::SetLocation&) { return "set-location"; },
                        [](const update::SetProperties&) { return "set-properties"; },
                        [](const update::RemoveProperties&) { return "remove-properties"; },
                    },
                    update);
}

std::string TableRequirementType(const TableRequirement& requirement) {
  return std::visit(
      Overloaded{
          [](const requirement::AssertCreate&) { return "assert-create"; },
          [](const requirement::AssertTableUuid&) { return "assert-table-uuid"; },
          [](const requirement::AssertRefSnapshotId&) { return "assert-ref-snapshot-id"; },
          [](const requirement::AssertLastAssignedFieldId&) { return "assert-last-assigned-field-id"; },
          [](const requirement::AssertCurrentSchemaId&) { return "assert-current-schema-id"; },
          [](const requirement::AssertLastAssignedPartitionId&) {
            return "assert-last-assigned-partition-id";
          },
          [](const requirement::AssertDefaultSpecId&) { return "assert-default-spec-id"; },
          [](const requirement::AssertDefaultSortOrderId&) { return "assert-default-sort-order-id"; },
      },
      requirement);
}

OrderedJson TableUpdateToJson(const TableUpdate& value, int format_version) {
  OrderedJson out = OrderedJson::object();
  out["action"] = TableUpdateAction(value);
  std::visit(
      Overloaded{
          [&](const update::AssignUuid& u) { out["uuid"] = u.uuid; },
          [&](const update::UpgradeFormatVersion& u) { out["format-version"] = u.format_version; },
          [&](const update::AddSchema& u) {
            out["schema"] = SchemaToJson(u.schema);
            if (u.last_column_id) out["last-column-id"] = *u.last_column_id;
          },
          [&](const update::SetCurrentSchema& u) { out["schema-id"] = u.schema_id; },
          [&](const update::AddSpec& u) { out["spec"] = PartitionSpecToJson(u.spec); },
          [&](const update::SetDefaultSpec& u) { out["spec-id"] = u.spec_id; },
          [&](const update::AddSortOrder& u) { out["sort-order"] = SortOrderToJson(u.sort_order); },
          [&](const update::SetDefaultSortOrder& u) { out["sort-order-id"] = u.sort_order_id; },
          [&](const update::AddSnapshot& u) { out["snapshot"] = SnapshotToJson(u.snapshot, format_version); },
          [&](const update::SetSnapshotRef& u) {
            out["ref-name"] = u.ref_name;
            const OrderedJson ref = SnapshotRefToJson(u.ref);
            for (auto it = ref.begin(); it != ref.end(); ++it) out[it.key()] = it.value();
          },
          [&](const update::RemoveSnapshots& u) { out["snapshot-ids"] = u.snapshot_ids; },
          [&](const update::RemoveSnapshotRef& u) { out["ref-name"] = u.ref_name; },
          [&](const update::SetLocation& u) { out["location"] = u.location; },
          [&](const update::SetProperties& u) {
            OrderedJson updates = OrderedJson::object();
            for (const auto& [k, v] : u.updates) updates[k] = v;
            out["updates"] = std::move(updates);
          },
          [&](const update::RemoveProperties& u) { out["removals"] = u.removals; },
      },
      value);
  return out;
}

Result<TableUpdate> TableUpdateFromJson(const Json& json, int format_version) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "table update"));
  FLOE_ASSIGN_OR_RETURN(std::string action, GetString(json, "action"));
  const std::string where = "table update '" + action + "'";
  auto parse = [&]() -> Result<TableUpdate> {
    if (action == "assign-uuid") {
      FLOE_ASSIGN_OR_RETURN(std::string uuid, GetString(json, "uuid"));
      return TableUpdate{update::AssignUuid{std::move(uuid)}};
    }
    if (action == "upgrade-format-version") {
      FLOE_ASSIGN_OR_RETURN(int32_t version, GetInt32(json, "format-version"));
      return TableUpdate{update::UpgradeFormatVersion{version}};
    }
    if (action == "add-schema") {
      FLOE_ASSIGN_OR_RETURN(const Json* schema_json, GetObject(json, "schema"));
      FLOE_ASSIGN_OR_RETURN(Schema schema, SchemaFromJson(*schema_json));
      FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> last_column_id, GetOptionalInt32(json, "last-column-id"));
      return TableUpdate{update::AddSchema{std::move(schema), last_column_id}};
    }
    if (action == "set-current-schema") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "schema-id"));
      return TableUpdate{update::SetCurrentSchema{id}};
    }
    if (action == "add-spec") {
      FLOE_ASSIGN_OR_RETURN(const Json* spec_json, GetObject(json, "spec"));
      // The API allows a spec without spec-id (the server assigns it).
      PartitionSpec spec;
      if (FindMember(*spec_json, "spec-id") != nullptr) {
        FLOE_ASSIGN_OR_RETURN(spec, PartitionSpecFromJson(*spec_json));
      } else {
        FLOE_ASSIGN_OR_RETURN(const Json* fields, GetArray(*spec_json, "fields"));
        FLOE_ASSIGN_OR_RETURN(spec, PartitionSpecFromFieldsJson(*fields, 0));
      }
      return TableUpdate{update::AddSpec{std::move(spec)}};
    }
    if (action == "set-default-spec") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "spec-id"));
      return TableUpdate{update::SetDefaultSpec{id}};
    }
    if (action == "add-sort-order") {
      FLOE_ASSIGN_OR_RETURN(const Json* order_json, GetObject(json, "sort-order"));
      FLOE_ASSIGN_OR_RETURN(SortOrder order, SortOrderFromJson(*order_json));
      return TableUpdate{update::AddSortOrder{std::move(order)}};
    }
    if (action == "set-default-sort-order") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "sort-order-id"));
      return TableUpdate{update::SetDefaultSortOrder{id}};
    }
    if (action == "add-snapshot") {
      FLOE_ASSIGN_OR_RETURN(const Json* snapshot_json, GetObject(json, "snapshot"));
      FLOE_ASSIGN_OR_RETURN(Snapshot snapshot, SnapshotFromJson(*snapshot_json, format_version));
      return TableUpdate{update::AddSnapshot{std::move(snapshot)}};
    }
    if (action == "set-snapshot-ref") {
      FLOE_ASSIGN_OR_RETURN(std::string name, GetString(json, "ref-name"));
      FLOE_ASSIGN_OR_RETURN(SnapshotRef ref, SnapshotRefFromJson(json));
      return TableUpdate{update::SetSnapshotRef{std::move(name), ref}};
    }
    if (action == "remove-snapshots") {
      FLOE_ASSIGN_OR_RETURN(const Json* ids_json, GetArray(json, "snapshot-ids"));
      update::RemoveSnapshots remove;
      for (const auto& id : *ids_json) {
        FLOE_ASSIGN_OR_RETURN(int64_t snapshot_id, JsonToInt64(id, "snapshot-ids element"));
        remove.snapshot_ids.push_back(snapshot_id);
      }
      return TableUpdate{std::move(remove)};
    }
    if (action == "remove-snapshot-ref") {
      FLOE_ASSIGN_OR_RETURN(std::string name, GetString(json, "ref-name"));
      return TableUpdate{update::RemoveSnapshotRef{std::move(name)}};
    }
    if (action == "set-location") {
      FLOE_ASSIGN_OR_RETURN(std::string location, GetString(json, "location"));
      return TableUpdate{update::SetLocation{std::move(location)}};
    }
    if (action == "set-properties") {
      FLOE_ASSIGN_OR_RETURN(const Json* updates_json, GetObject(json, "updates"));
      FLOE_ASSIGN_OR_RETURN(auto updates, StringMapFromJson(*updates_json, "updates"));
      return TableUpdate{update::SetProperties{std::move(updates)}};
    }
    if (action == "remove-properties") {
      FLOE_ASSIGN_OR_RETURN(const Json* removals_json, GetArray(json, "removals"));
      update::RemoveProperties remove;
      for (const auto& key : *removals_json) {
        if (!key.is_string()) return Status::Corruption("field 'removals' must hold strings");
        remove.removals.push_back(key.get<std::string>());
      }
      return TableUpdate{std::move(remove)};
    }
    return Status::Corruption("unknown table update action '" + action + "'");
  };
  auto parsed = parse();
  if (!parsed.ok()) return parsed.status().WithContext(where);
  return parsed;
}

OrderedJson TableRequirementToJson(const TableRequirement& value) {
  OrderedJson out = OrderedJson::object();
  out["type"] = TableRequirementType(value);
  std::visit(
      Overloaded{
          [&](const requirement::AssertCreate&) {},
          [&](const requirement::AssertTableUuid& r) { out["uuid"] = r.uuid; },
          [&](const requirement::AssertRefSnapshotId& r) {
            out["ref"] = r.ref;
            out["snapshot-id"] = r.snapshot_id ? OrderedJson(*r.snapshot_id) : OrderedJson(nullptr);
          },
          [&](const requirement::AssertLastAssignedFieldId& r) {
            out["last-assigned-field-id"] = r.last_assigned_field_id;
          },
          [&](const requirement::AssertCurrentSchemaId& r) {
            out["current-schema-id"] = r.current_schema_id;
          },
          [&](const requirement::AssertLastAssignedPartitionId& r) {
            out["last-assigned-partition-id"] = r.last_assigned_partition_id;
          },
          [&](const requirement::AssertDefaultSpecId& r) { out["default-spec-id"] = r.default_spec_id; },
          [&](const requirement::AssertDefaultSortOrderId& r) {
            out["default-sort-order-id"] = r.default_sort_order_id;
          },
      },
      value);
  return out;
}

Result<TableRequirement> TableRequirementFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "table requirement"));
  FLOE_ASSIGN_OR_RETURN(std::string type, GetString(json, "type"));
  auto parse = [&]() -> Result<TableRequirement> {
    if (type == "assert-create") return TableRequirement{requirement::AssertCreate{}};
    if (type == "assert-table-uuid") {
      FLOE_ASSIGN_OR_RETURN(std::string uuid, GetString(json, "uuid"));
      return TableRequirement{requirement::AssertTableUuid{std::move(uuid)}};
    }
    if (type == "assert-ref-snapshot-id") {
      FLOE_ASSIGN_OR_RETURN(std::string ref, GetString(json, "ref"));
      FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> id, GetOptionalInt64(json, "snapshot-id"));
      return TableRequirement{requirement::AssertRefSnapshotId{std::move(ref), id}};
    }
    if (type == "assert-last-assigned-field-id") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "last-assigned-field-id"));
      return TableRequirement{requirement::AssertLastAssignedFieldId{id}};
    }
    if (type == "assert-current-schema-id") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "current-schema-id"));
      return TableRequirement{requirement::AssertCurrentSchemaId{id}};
    }
    if (type == "assert-last-assigned-partition-id") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "last-assigned-partition-id"));
      return TableRequirement{requirement::AssertLastAssignedPartitionId{id}};
    }
    if (type == "assert-default-spec-id") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "default-spec-id"));
      return TableRequirement{requirement::AssertDefaultSpecId{id}};
    }
    if (type == "assert-default-sort-order-id") {
      FLOE_ASSIGN_OR_RETURN(int32_t id, GetInt32(json, "default-sort-order-id"));
      return TableRequirement{requirement::AssertDefaultSortOrderId{id}};
    }
    return Status::Corruption("unknown table requirement type '" + type + "'");
  };
  auto parsed = parse();
  if (!parsed.ok()) return parsed.status().WithContext("table requirement '" + type + "'");
  return parsed;
}

Status CheckRequirements(const TableMetadata* current, const std::vector<TableRequirement>& requirements) {
  for (const auto& req : requirements) {
    const std::string type = TableRequirementType(req);
    if (std::holds_alternative<requirement::AssertCreate>(req)) {
      if (current != nullptr)
        return Status::CommitFailed("requirement failed: assert-create: table already exists");
      continue;
    }
    if (current == nullptr) {
      return Status::CommitFailed("requirement failed: " + type + ": table does not exist");
    }
    const TableMetadata& m = *current;
    auto mismatch = [&](const std::string& expected, const std::string& actual) {
      return Status::CommitFailed("requirement failed: " + type + ": expected " + expected + ", found " +
                                  actual);
    };
    Status status = std::visit(
        Overloaded{
            [&](const requirement::AssertCreate&) { return Status::OK(); },
            [&](const requirement::AssertTableUuid& r) {
              return r.uuid == m.table_uuid ? Status::OK()
                                            : mismatch("uuid " + r.uuid, "uuid " + m.table_uuid);
            },
            [&](const requirement::AssertRefSnapshotId& r) {
              std::optional<int64_t> actual;
              if (auto it = m.refs.find(r.ref); it != m.refs.end()) {
                actual = it->second.snapshot_id;
              } else if (r.ref == kMainBranch && m.current_snapshot_id) {
                actual = m.current_snapshot_id;  // v1 tables without refs
              }
              return actual == r.snapshot_id
                         ? Status::OK()
                         : mismatch(RefDescription(r.ref, r.snapshot_id), RefDescription(r.ref, actual));
            },
            [&](const requirement::AssertLastAssignedFieldId& r) {
              return r.last_assigned_field_id == m.last_column_id
                         ? Status::OK()
                         : mismatch(std::to_string(r.last_assigned_field_id),
                                    std::to_string(m.last_column_id));
            },
            [&](const requirement::AssertCurrentSchemaId& r) {
              return r.current_schema_id == m.current_schema_id
                         ? Status::OK()
                         : mismatch(std::to_string(r.current_schema_id), std::to_string(m.current_schema_id));
            },
            [&](const requirement::AssertLastAssignedPartitionId& r) {
              return r.last_assigned_partition_id == m.last_partition_id
                         ? Status::OK()
                         : mismatch(std::to_string(r.last_assigned_partition_id),
                                    std::to_string(m.last_partition_id));
            },
            [&](const requirement::AssertDefaultSpecId& r) {
              return r.default_spec_id == m.default_spec_id
                         ? Status::OK()
                         : mismatch(std::to_string(r.default_spec_id), std::to_string(m.default_spec_id));
            },
            [&](const requirement::AssertDefaultSortOrderId& r) {
              return r.default_sort_order_id == m.default_sort_order_id
                         ? Status::OK()
                         : mismatch(std::to_string(r.default_sort_order_id),
                                    std::to_string(m.default_sort_order_id));
            },
        },
        req);
    FLOE_RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

Result<TableMetadata> ApplyUpdates(const TableMetadata& base, const std::string& base_file,
                                   const std::vector<TableUpdate>& updates, int64_t now_ms) {
  TableMetadataBuilder builder(base, base_file);
  std::optional<int32_t> last_added_schema;
  std::optional<int32_t> last_added_spec;
  std::optional<int32_t> last_added_order;
  auto resolve = [](int32_t id, const std::optional<int32_t>& last_added,
                    const char* what) -> Result<int32_t> {
    if (id != -1) return id;
    if (!last_added) return Status::InvalidArgument(std::string("id -1 but no ") + what + " was added");
    return *last_added;
  };
  for (size_t i = 0; i < updates.size(); ++i) {
    const TableUpdate& u = updates[i];
    Status status = std::visit(
        Overloaded{
            [&](const update::AssignUuid& x) { return builder.AssignUuid(x.uuid); },
            [&](const update::UpgradeFormatVersion& x) {
              return builder.UpgradeFormatVersion(x.format_version);
            },
            [&](const update::AddSchema& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(last_added_schema, builder.AddSchema(x.schema));
              return Status::OK();
            },
            [&](const update::SetCurrentSchema& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(int32_t id, resolve(x.schema_id, last_added_schema, "schema"));
              return builder.SetCurrentSchema(id);
            },
            [&](const update::AddSpec& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(last_added_spec, builder.AddPartitionSpec(x.spec));
              return Status::OK();
            },
            [&](const update::SetDefaultSpec& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(int32_t id, resolve(x.spec_id, last_added_spec, "partition spec"));
              return builder.SetDefaultSpec(id);
            },
            [&](const update::AddSortOrder& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(last_added_order, builder.AddSortOrder(x.sort_order));
              return Status::OK();
            },
            [&](const update::SetDefaultSortOrder& x) -> Status {
              FLOE_ASSIGN_OR_RETURN(int32_t id, resolve(x.sort_order_id, last_added_order, "sort order"));
              return builder.SetDefaultSortOrder(id);
            },
            [&](const update::AddSnapshot& x) { return builder.AddSnapshot(x.snapshot); },
            [&](const update::SetSnapshotRef& x) { return builder.SetRef(x.ref_name, x.ref); },
            [&](const update::RemoveSnapshots& x) { return builder.RemoveSnapshots(x.snapshot_ids); },
            [&](const update::RemoveSnapshotRef& x) { return builder.RemoveRef(x.ref_name); },
            [&](const update::SetLocation& x) {
              if (x.location.empty()) return Status::InvalidArgument("location must not be empty");
              builder.SetLocation(x.location);
              return Status::OK();
            },
            [&](const update::SetProperties& x) {
              builder.SetProperties(x.updates);
              return Status::OK();
            },
            [&](const update::RemoveProperties& x) {
              builder.RemoveProperties(x.removals);
              return Status::OK();
            },
        },
        u);
    if (!status.ok()) {
      return status.WithContext("table update " + std::to_string(i) + " (" + TableUpdateAction(u) + ")");
    }
  }
  return builder.Build(now_ms);
}

}  // namespace floe::iceberg
