#include "iceberg/spec/snapshot.h"

namespace floe::iceberg {

std::string Snapshot::operation() const {
  auto it = summary.find("operation");
  return it == summary.end() ? std::string() : it->second;
}

OrderedJson SnapshotToJson(const Snapshot& snapshot, int format_version) {
  OrderedJson out = OrderedJson::object();
  if (format_version >= 2) out["sequence-number"] = snapshot.sequence_number;
  out["snapshot-id"] = snapshot.snapshot_id;
  if (snapshot.parent_snapshot_id) out["parent-snapshot-id"] = *snapshot.parent_snapshot_id;
  out["timestamp-ms"] = snapshot.timestamp_ms;
  if (!snapshot.summary.empty() || format_version >= 2) {
    OrderedJson summary = OrderedJson::object();
    if (auto it = snapshot.summary.find("operation"); it != snapshot.summary.end())
      summary["operation"] = it->second;
    for (const auto& [key, value] : snapshot.summary) {
      if (key != "operation") summary[key] = value;
    }
    out["summary"] = std::move(summary);
  }
  if (!snapshot.manifest_list.empty()) {
    out["manifest-list"] = snapshot.manifest_list;
  } else if (format_version == 1) {
    out["manifests"] = snapshot.manifests;
  }
  if (snapshot.schema_id) out["schema-id"] = *snapshot.schema_id;
  if (format_version >= 3) {
    if (snapshot.first_row_id) out["first-row-id"] = *snapshot.first_row_id;
    if (snapshot.added_rows) out["added-rows"] = *snapshot.added_rows;
    if (snapshot.key_id) out["key-id"] = *snapshot.key_id;
  }
  return out;
}

Result<Snapshot> SnapshotFromJson(const Json& json, int format_version) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "snapshot"));
  Snapshot s;
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, GetInt64(json, "snapshot-id"));
  auto parse = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(s.parent_snapshot_id, GetOptionalInt64(json, "parent-snapshot-id"));
    if (format_version >= 2) {
      FLOE_ASSIGN_OR_RETURN(s.sequence_number, GetInt64(json, "sequence-number"));
    } else {
      FLOE_ASSIGN_OR_RETURN(auto seq, GetOptionalInt64(json, "sequence-number"));
      s.sequence_number = seq.value_or(0);
    }
    FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, GetInt64(json, "timestamp-ms"));
    FLOE_ASSIGN_OR_RETURN(auto manifest_list, GetOptionalString(json, "manifest-list"));
    if (manifest_list) {
      s.manifest_list = *manifest_list;
    } else if (format_version >= 2) {
      return Status::Corruption("missing required field 'manifest-list'");
    } else {
      FLOE_ASSIGN_OR_RETURN(const Json* manifests, GetOptionalArray(json, "manifests"));
      if (manifests == nullptr) return Status::Corruption("missing both 'manifest-list' and 'manifests'");
      for (const Json& m : *manifests) {
        if (!m.is_string()) return Status::Corruption("field 'manifests' must hold strings");
        s.manifests.push_back(m.get<std::string>());
      }
    }
    FLOE_ASSIGN_OR_RETURN(const Json* summary, GetOptionalObject(json, "summary"));
    if (summary != nullptr) {
      FLOE_ASSIGN_OR_RETURN(s.summary, StringMapFromJson(*summary, "field 'summary'"));
    }
    if (format_version >= 2 && s.operation().empty()) {
      return Status::Corruption("missing required field 'summary.operation'");
    }
    FLOE_ASSIGN_OR_RETURN(s.schema_id, GetOptionalInt32(json, "schema-id"));
    FLOE_ASSIGN_OR_RETURN(s.first_row_id, GetOptionalInt64(json, "first-row-id"));
    FLOE_ASSIGN_OR_RETURN(s.added_rows, GetOptionalInt64(json, "added-rows"));
    FLOE_ASSIGN_OR_RETURN(s.key_id, GetOptionalString(json, "key-id"));
    return Status::OK();
  };
  Status status = parse();
  if (!status.ok()) return status.WithContext("snapshot " + std::to_string(s.snapshot_id));
  return s;
}

OrderedJson SnapshotRefToJson(const SnapshotRef& ref) {
  OrderedJson out = OrderedJson::object();
  out["snapshot-id"] = ref.snapshot_id;
  out["type"] = ref.kind == SnapshotRef::Kind::kBranch ? "branch" : "tag";
  if (ref.min_snapshots_to_keep) out["min-snapshots-to-keep"] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) out["max-snapshot-age-ms"] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) out["max-ref-age-ms"] = *ref.max_ref_age_ms;
  return out;
}

Result<SnapshotRef> SnapshotRefFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "snapshot ref"));
  SnapshotRef ref;
  FLOE_ASSIGN_OR_RETURN(ref.snapshot_id, GetInt64(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(std::string type, GetString(json, "type"));
  if (type == "branch") {
    ref.kind = SnapshotRef::Kind::kBranch;
  } else if (type == "tag") {
    ref.kind = SnapshotRef::Kind::kTag;
  } else {
    return Status::Corruption("field 'type' must be \"branch\" or \"tag\", got \"" + type + "\"");
  }
  FLOE_ASSIGN_OR_RETURN(ref.min_snapshots_to_keep, GetOptionalInt32(json, "min-snapshots-to-keep"));
  FLOE_ASSIGN_OR_RETURN(ref.max_snapshot_age_ms, GetOptionalInt64(json, "max-snapshot-age-ms"));
  FLOE_ASSIGN_OR_RETURN(ref.max_ref_age_ms, GetOptionalInt64(json, "max-ref-age-ms"));
  return ref;
}

}  // namespace floe::iceberg
