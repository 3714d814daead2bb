// TableUpdate / TableRequirement JSON serde (REST OpenAPI shapes),
// CheckRequirements and ApplyUpdates.
#include "iceberg/transaction/table_update.h"

#include <gtest/gtest.h>

#include "iceberg/spec/table_metadata_builder.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

Json Parse(const std::string& text) {
  return Json::parse(text);
}

// Every update in the shape the OpenAPI document gives, as a REST client sends it.
const char* kUpdateExamples[] = {
    R"({"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"})",
    R"({"action":"upgrade-format-version","format-version":3})",
    R"({"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"}]},"last-column-id":2})",
    R"({"action":"set-current-schema","schema-id":-1})",
    R"({"action":"add-spec","spec":{"spec-id":1,"fields":[{"source-id":1,"field-id":1000,"name":"id_bucket","transform":"bucket[16]"}]}})",
    R"({"action":"set-default-spec","spec-id":-1})",
    R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}})",
    R"({"action":"set-default-sort-order","sort-order-id":1})",
    R"({"action":"add-snapshot","snapshot":{"snapshot-id":3055729675574597004,"parent-snapshot-id":3051729675574597004,"sequence-number":1,"timestamp-ms":1555100955770,"manifest-list":"s3://b/wh/.../s1.avro","summary":{"operation":"append"},"schema-id":0}})",
    R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":3055729675574597004,"type":"branch","min-snapshots-to-keep":2,"max-snapshot-age-ms":1000,"max-ref-age-ms":5000})",
    R"({"action":"remove-snapshots","snapshot-ids":[1,9223372036854775807]})",
    R"({"action":"remove-snapshot-ref","ref-name":"audit"})",
    R"({"action":"set-location","location":"s3://bucket/warehouse/t"})",
    R"({"action":"set-properties","updates":{"owner":"floe","write.format.default":"parquet"}})",
    R"({"action":"remove-properties","removals":["owner","comment"]})",
};

const char* kRequirementExamples[] = {
    R"({"type":"assert-create"})",
    R"({"type":"assert-table-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"})",
    R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":3055729675574597004})",
    R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})",
    R"({"type":"assert-last-assigned-field-id","last-assigned-field-id":7})",
    R"({"type":"assert-current-schema-id","current-schema-id":1})",
    R"({"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1001})",
    R"({"type":"assert-default-spec-id","default-spec-id":0})",
    R"({"type":"assert-default-sort-order-id","default-sort-order-id":0})",
};

TEST(TableUpdateJson, EveryActionRoundTripsExactly) {
  for (const char* text : kUpdateExamples) {
    SCOPED_TRACE(text);
    Json in = Parse(text);
    ASSERT_OK_AND_ASSIGN(TableUpdate update, TableUpdateFromJson(in));
    EXPECT_EQ(TableUpdateAction(update), in["action"].get<std::string>());
    Json out = Json::parse(TableUpdateToJson(update).dump());
    EXPECT_EQ(out, in);
    ASSERT_OK_AND_ASSIGN(TableUpdate again, TableUpdateFromJson(out));
    EXPECT_EQ(again, update);
  }
}

TEST(TableUpdateJson, Int64IdsStayExact) {
  ASSERT_OK_AND_ASSIGN(TableUpdate update, TableUpdateFromJson(Parse(kUpdateExamples[10])));
  const auto& remove = std::get<update::RemoveSnapshots>(update);
  ASSERT_EQ(remove.snapshot_ids.size(), 2u);
  EXPECT_EQ(remove.snapshot_ids[1], 9223372036854775807LL);
}

TEST(TableRequirementJson, EveryTypeRoundTripsExactly) {
  for (const char* text : kRequirementExamples) {
    SCOPED_TRACE(text);
    Json in = Parse(text);
    ASSERT_OK_AND_ASSIGN(TableRequirement requirement, TableRequirementFromJson(in));
    EXPECT_EQ(TableRequirementType(requirement), in["type"].get<std::string>());
    Json out = Json::parse(TableRequirementToJson(requirement).dump());
    EXPECT_EQ(out, in);
  }
  ASSERT_OK_AND_ASSIGN(TableRequirement absent, TableRequirementFromJson(Parse(kRequirementExamples[3])));
  EXPECT_FALSE(std::get<requirement::AssertRefSnapshotId>(absent).snapshot_id.has_value());
}

TEST(TableUpdateJson, MalformedInputIsCorruptionNamingTheMember) {
  auto unknown = TableUpdateFromJson(Parse(R"({"action":"drop-everything"})"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(unknown.status().message().find("drop-everything"), std::string::npos);

  auto wrong_type = TableUpdateFromJson(Parse(R"({"action":"set-current-schema","schema-id":"one"})"));
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("schema-id"), std::string::npos);

  EXPECT_FALSE(TableUpdateFromJson(Parse(R"([1,2])")).ok());
  EXPECT_FALSE(TableUpdateFromJson(Parse(R"({"action":"remove-properties","removals":[1]})")).ok());
  EXPECT_FALSE(TableRequirementFromJson(Parse(R"({"type":"assert-table-uuid"})")).ok());
  EXPECT_FALSE(TableRequirementFromJson(Parse(R"({"type":"assert-nothing"})")).ok());
}

TEST(TableUpdateJson, AddSpecWithoutSpecIdIsAccepted) {
  ASSERT_OK_AND_ASSIGN(
      TableUpdate update,
      TableUpdateFromJson(Parse(
          R"({"action":"add-spec","spec":{"fields":[{"source-id":1,"field-id":1000,"name":"d","transform":"day"}]}})")));
  EXPECT_EQ(std::get<update::AddSpec>(update).spec.fields.size(), 1u);
}

Schema TwoColumns() {
  Schema s;
  s.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
  s.fields.push_back(MakeNestedField(2, "ts", PrimitiveType(TypeKind::kTimestamp)));
  return s;
}

TableMetadata NewTable() {
  auto m = NewTableMetadata("file:///wh/t", TwoColumns(), PartitionSpec::Unpartitioned(),
                            SortOrder::Unsorted(), {}, 2, 1000);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

TEST(CheckRequirements, EachRequirementFailsWithCommitFailedNamingIt) {
  TableMetadata m = NewTable();
  EXPECT_OK(CheckRequirements(
      &m, {requirement::AssertTableUuid{m.table_uuid}, requirement::AssertRefSnapshotId{"main", std::nullopt},
           requirement::AssertLastAssignedFieldId{2}, requirement::AssertCurrentSchemaId{0},
           requirement::AssertLastAssignedPartitionId{999}, requirement::AssertDefaultSpecId{0},
           requirement::AssertDefaultSortOrderId{0}}));
  EXPECT_OK(CheckRequirements(nullptr, {requirement::AssertCreate{}}));

  const std::vector<std::pair<TableRequirement, std::string>> failing = {
      {requirement::AssertCreate{}, "assert-create"},
      {requirement::AssertTableUuid{"00000000-0000-4000-8000-000000000000"}, "assert-table-uuid"},
      {requirement::AssertRefSnapshotId{"main", 42}, "assert-ref-snapshot-id"},
      {requirement::AssertLastAssignedFieldId{3}, "assert-last-assigned-field-id"},
      {requirement::AssertCurrentSchemaId{1}, "assert-current-schema-id"},
      {requirement::AssertLastAssignedPartitionId{1000}, "assert-last-assigned-partition-id"},
      {requirement::AssertDefaultSpecId{1}, "assert-default-spec-id"},
      {requirement::AssertDefaultSortOrderId{1}, "assert-default-sort-order-id"},
  };
  for (const auto& [req, name] : failing) {
    Status s = CheckRequirements(&m, {req});
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.kind(), ErrorKind::kCommitFailed) << name;
    EXPECT_TRUE(s.retryable());
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  Status missing = CheckRequirements(nullptr, {requirement::AssertTableUuid{m.table_uuid}});
  EXPECT_EQ(missing.kind(), ErrorKind::kCommitFailed);
}

TEST(ApplyUpdates, SchemaSpecSortOrderAndPropertiesWithLastAddedIds) {
  TableMetadata base = NewTable();
  Schema evolved = TwoColumns();
  evolved.fields.push_back(MakeNestedField(3, "name", PrimitiveType(TypeKind::kString)));
  PartitionSpec spec;
  spec.fields.push_back(PartitionField{2, 1000, "ts_day", Transform::Day()});
  SortOrder order;
  order.order_id = 1;
  order.fields.push_back(SortField{Transform::Identity(), 1, SortDirection::kAsc, NullOrder::kNullsFirst});
  std::vector<TableUpdate> updates = {
      update::AddSchema{evolved, 3},
      update::SetCurrentSchema{-1},
      update::AddSpec{spec},
      update::SetDefaultSpec{-1},
      update::AddSortOrder{order},
      update::SetDefaultSortOrder{-1},
      update::SetProperties{{{"a", "1"}, {"b", "2"}}},
      update::RemoveProperties{{"b"}},
      update::SetLocation{"file:///elsewhere/t/"},
  };
  ASSERT_OK_AND_ASSIGN(TableMetadata next,
                       ApplyUpdates(base, "file:///wh/t/metadata/00000-x.metadata.json", updates));
  EXPECT_EQ(next.current_schema_id, 1);
  EXPECT_EQ(next.last_column_id, 3);
  EXPECT_EQ(next.default_spec_id, 1);
  EXPECT_EQ(next.last_partition_id, 1000);
  EXPECT_EQ(next.default_sort_order_id, 1);
  EXPECT_EQ(next.properties, (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(next.location, "file:///elsewhere/t");
  ASSERT_EQ(next.metadata_log.size(), 1u);
  EXPECT_EQ(next.metadata_log[0].metadata_file, "file:///wh/t/metadata/00000-x.metadata.json");
  // The base is untouched.
  EXPECT_EQ(base.current_schema_id, 0);
}

TEST(ApplyUpdates, SnapshotsRefsAndRemoval) {
  TableMetadata base = NewTable();
  Snapshot s1;
  s1.snapshot_id = 11;
  s1.sequence_number = 1;
  s1.timestamp_ms = 2000;
  s1.manifest_list = "file:///wh/t/metadata/snap-11.avro";
  s1.summary = {{"operation", "append"}};
  Snapshot s2 = s1;
  s2.snapshot_id = 22;
  s2.parent_snapshot_id = 11;
  s2.sequence_number = 2;
  s2.manifest_list = "file:///wh/t/metadata/snap-22.avro";
  ASSERT_OK_AND_ASSIGN(
      TableMetadata m,
      ApplyUpdates(base, "",
                   {update::AddSnapshot{s1}, update::SetSnapshotRef{"main", SnapshotRef::Branch(11)},
                    update::AddSnapshot{s2}, update::SetSnapshotRef{"main", SnapshotRef::Branch(22)},
                    update::SetSnapshotRef{"audit", SnapshotRef::Tag(11)}}));
  EXPECT_EQ(m.current_snapshot_id, 22);
  EXPECT_EQ(m.last_sequence_number, 2);
  EXPECT_EQ(m.snapshot_log.size(), 2u);
  EXPECT_EQ(m.refs.at("audit").kind, SnapshotRef::Kind::kTag);

  // Removing a snapshot drops the refs that point at it.
  ASSERT_OK_AND_ASSIGN(TableMetadata removed, ApplyUpdates(m, "", {update::RemoveSnapshots{{11}}}));
  EXPECT_EQ(removed.snapshots.size(), 1u);
  EXPECT_EQ(removed.refs.count("audit"), 0u);
  EXPECT_EQ(removed.snapshot_log.size(), 1u);

  // The current snapshot cannot be removed; a bad sequence number is refused.
  EXPECT_FALSE(ApplyUpdates(m, "", {update::RemoveSnapshots{{22}}}).ok());
  Snapshot bad = s2;
  bad.snapshot_id = 33;
  auto wrong_sequence = ApplyUpdates(m, "", {update::AddSnapshot{bad}});
  ASSERT_FALSE(wrong_sequence.ok());
  EXPECT_NE(wrong_sequence.status().message().find("add-snapshot"), std::string::npos);

  ASSERT_OK_AND_ASSIGN(TableMetadata no_main, ApplyUpdates(m, "", {update::RemoveSnapshotRef{"main"}}));
  EXPECT_FALSE(no_main.current_snapshot_id.has_value());
}

TEST(ApplyUpdates, InvalidUpdatesNameTheUpdate) {
  TableMetadata base = NewTable();
  auto no_schema = ApplyUpdates(base, "", {update::SetCurrentSchema{-1}});
  ASSERT_FALSE(no_schema.ok());
  EXPECT_NE(no_schema.status().message().find("set-current-schema"), std::string::npos);
  EXPECT_FALSE(ApplyUpdates(base, "", {update::SetDefaultSpec{7}}).ok());
  EXPECT_FALSE(ApplyUpdates(base, "", {update::UpgradeFormatVersion{1}}).ok());
  EXPECT_FALSE(ApplyUpdates(base, "", {update::SetSnapshotRef{"main", SnapshotRef::Branch(5)}}).ok());
  PartitionSpec bad;
  bad.fields.push_back(PartitionField{99, 1000, "nope", Transform::Identity()});
  EXPECT_FALSE(ApplyUpdates(base, "", {update::AddSpec{bad}}).ok());

  ASSERT_OK_AND_ASSIGN(TableMetadata v3, ApplyUpdates(base, "", {update::UpgradeFormatVersion{3}}));
  EXPECT_EQ(v3.format_version, 3);
  EXPECT_EQ(v3.next_row_id, 0);
}

}  // namespace
}  // namespace floe::iceberg
