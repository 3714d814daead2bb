#include "ingest/table_settings_check.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/strings.h"
#include "iceberg/scan/changelog_scan.h"
#include "ingest/batch_recovery.h"
#include "ingest/partition_spec_config.h"

namespace floe::ingest {

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "\"" : ", \"") + names[i] + "\"";
  return out + "]";
}

// "day(createtime), bucket(16, id)" of a spec over `schema`.
std::string DescribeSpec(const iceberg::PartitionSpec& spec, const iceberg::Schema& schema) {
  if (spec.fields.empty()) return "unpartitioned";
  std::string out;
  for (const iceberg::PartitionField& field : spec.fields) {
    const std::string source = schema.FindNameById(field.source_id);
    out += (out.empty() ? "" : ", ") + field.transform.ToString() + "(" + source + ")";
  }
  return out;
}

bool SameField(const iceberg::PartitionField& a, const iceberg::PartitionField& b) {
  return a.source_id == b.source_id && a.transform == b.transform;
}

}  // namespace

std::string RecordKeyInSchema(const std::vector<std::string>& keys, iceberg::Schema* schema) {
  std::string skipped;
  for (const std::string& key : keys) {
    iceberg::NestedField* match = nullptr;
    for (iceberg::NestedField& field : schema->fields) {
      if (field.name == key) match = &field;
    }
    for (iceberg::NestedField& field : schema->fields) {
      if (match == nullptr && EqualsIgnoreAsciiCase(field.name, key)) match = &field;
    }
    if (match == nullptr) continue;  // the convention's binding reports missing key columns
    const bool eligible = match->type.is_primitive() && match->type.kind != iceberg::TypeKind::kFloat &&
                          match->type.kind != iceberg::TypeKind::kDouble;
    if (!eligible) {
      skipped += (skipped.empty() ? "" : "; ") + std::string("key column ") + match->name +
                 " cannot be an Iceberg identifier field (float, double or nested)";
      continue;
    }
    match->required = true;
    if (std::find(schema->identifier_field_ids.begin(), schema->identifier_field_ids.end(), match->id) ==
        schema->identifier_field_ids.end()) {
      schema->identifier_field_ids.push_back(match->id);
    }
  }
  return skipped;
}

std::vector<std::string> RecordedKey(const iceberg::TableMetadata& table) {
  std::vector<std::string> keys;
  if (auto it = table.properties.find(iceberg::kMergeKeysProperty); it != table.properties.end()) {
    size_t start = 0;
    while (start <= it->second.size()) {
      const size_t comma = std::min(it->second.find(',', start), it->second.size());
      if (comma > start) keys.push_back(it->second.substr(start, comma - start));
      start = comma + 1;
    }
    if (!keys.empty()) return keys;
  }
  const iceberg::Schema* schema = table.CurrentSchema();
  if (schema == nullptr) return keys;
  for (int32_t id : schema->identifier_field_ids) keys.push_back(schema->FindNameById(id));
  return keys;
}

Status CheckRecordedKey(const iceberg::TableMetadata& table, const std::vector<std::string>& keys,
                        const std::string& table_name) {
  const iceberg::Schema* schema = table.CurrentSchema();
  if (schema == nullptr || schema->identifier_field_ids.empty()) return Status::OK();
  std::vector<std::string> recorded;
  std::set<std::string> recorded_lower;
  for (int32_t id : schema->identifier_field_ids) {
    const std::string name = schema->FindNameById(id);
    recorded.push_back(name);
    recorded_lower.insert(AsciiLower(name));
  }
  std::set<std::string> configured_lower;
  for (const std::string& key : keys) configured_lower.insert(AsciiLower(key));
  if (configured_lower == recorded_lower) return Status::OK();
  return Status::InvalidArgument(
      "table " + table_name + " records its merge key " + JoinNames(recorded) +
      " (Iceberg identifier fields); [merge] keys = " + JoinNames(keys) +
      " would merge by another key and leave duplicate rows. Set keys back, or migrate: write to a new table "
      "([tables.<name>] target_table) and reload the source into it (`floe files CONFIG --reload-table`)");
}

Result<std::string> EvolvePartitionSpec(iceberg::Table& table, const std::vector<std::string>& partition_by) {
  // Copies: the commit below replaces the table's metadata.
  const iceberg::Schema* current_schema = table.metadata().CurrentSchema();
  const iceberg::PartitionSpec* current_spec = table.metadata().DefaultSpec();
  if (current_schema == nullptr || current_spec == nullptr)
    return Status::Corruption("table has no schema or spec");
  const iceberg::Schema schema_copy = *current_schema;
  const iceberg::PartitionSpec spec_copy = *current_spec;
  const iceberg::Schema* schema = &schema_copy;
  const iceberg::PartitionSpec* current = &spec_copy;
  FLOE_ASSIGN_OR_RETURN(iceberg::PartitionSpec wanted, ParsePartitionSpec(partition_by, *schema));
  // Void fields (a v1 table's removed fields) are no partitioning.
  std::vector<iceberg::PartitionField> have;
  for (const iceberg::PartitionField& field : current->fields) {
    if (field.transform.kind() != iceberg::Transform::Kind::kVoid) have.push_back(field);
  }
  const bool same = have.size() == wanted.fields.size() &&
                    std::equal(have.begin(), have.end(), wanted.fields.begin(), SameField);
  if (same) return std::string();
  iceberg::UpdatePartitionSpec update = table.NewUpdateSpec();
  for (const iceberg::PartitionField& field : have) {
    const bool kept = std::any_of(wanted.fields.begin(), wanted.fields.end(),
                                  [&](const iceberg::PartitionField& w) { return SameField(w, field); });
    if (!kept) update.RemoveField(field.name);
  }
  for (const iceberg::PartitionField& field : wanted.fields) {
    const bool present = std::any_of(have.begin(), have.end(),
                                     [&](const iceberg::PartitionField& h) { return SameField(h, field); });
    if (!present) update.AddField(schema->FindNameById(field.source_id), field.transform, field.name);
  }
  const std::string before = DescribeSpec(*current, *schema);
  FLOE_ASSIGN_OR_RETURN(iceberg::PartitionSpec evolved, update.Commit());
  return "partition spec evolved from " + before + " to " + DescribeSpec(evolved, *schema) +
         " ([target] partition_by); new data is written by the new spec, files already written keep theirs";
}

std::vector<std::string> OtherPipelines(const iceberg::TableMetadata& table, const std::string& pipeline) {
  std::vector<std::string> others;
  for (auto it = table.snapshots.rbegin(); it != table.snapshots.rend(); ++it) {
    auto name = it->summary.find(kSummaryPipeline);
    if (name == it->summary.end() || name->second == pipeline) continue;
    if (std::find(others.begin(), others.end(), name->second) == others.end()) others.push_back(name->second);
  }
  return others;
}

}  // namespace floe::ingest
