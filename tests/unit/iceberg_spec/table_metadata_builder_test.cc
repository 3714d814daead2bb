// New-table metadata (fresh ids as Java assigns them), the update builder,
// metadata-log bookkeeping and random ids.
#include "iceberg/spec/table_metadata_builder.h"

#include <gtest/gtest.h>

#include <set>

#include "iceberg/spec/random_ids.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

// Ids deliberately scrambled: NewTableMetadata must reassign them.
Schema CallerSchema() {
  Schema s;
  s.schema_id = 7;
  s.identifier_field_ids = {50};
  s.fields = {
      MakeNestedField(50, "id", PrimitiveType(TypeKind::kLong), true),
      MakeNestedField(40, "data",
                      StructType({MakeNestedField(41, "a", PrimitiveType(TypeKind::kInt)),
                                  MakeNestedField(42, "b", PrimitiveType(TypeKind::kString))})),
      MakeNestedField(30, "tags", ListType(31, PrimitiveType(TypeKind::kString), false)),
      MakeNestedField(
          20, "props",
          MapType(21, PrimitiveType(TypeKind::kString), 22,
                  StructType({MakeNestedField(23, "x", PrimitiveType(TypeKind::kDouble))}), false)),
      MakeNestedField(10, "ts", PrimitiveType(TypeKind::kTimestampTz)),
  };
  return s;
}

TEST(AssignFreshIds, StructMembersFirstThenNestedTypesLikeJava) {
  int32_t last = 0;
  std::map<int32_t, int32_t> mapping;
  Schema fresh = AssignFreshIds(CallerSchema(), &last, &mapping);
  EXPECT_EQ(last, 11);
  EXPECT_EQ(fresh.schema_id, 0);
  const auto id_of = [&](const char* name) { return fresh.FindFieldByName(name)->id; };
  EXPECT_EQ(id_of("id"), 1);
  EXPECT_EQ(id_of("data"), 2);
  EXPECT_EQ(id_of("tags"), 3);
  EXPECT_EQ(id_of("props"), 4);
  EXPECT_EQ(id_of("ts"), 5);
  EXPECT_EQ(id_of("data.a"), 6);
  EXPECT_EQ(id_of("data.b"), 7);
  EXPECT_EQ(id_of("tags.element"), 8);
  EXPECT_EQ(id_of("props.key"), 9);
  EXPECT_EQ(id_of("props.value"), 10);
  EXPECT_EQ(id_of("props.value.x"), 11);
  EXPECT_EQ(fresh.identifier_field_ids, std::vector<int32_t>{1});
  EXPECT_EQ(mapping.at(10), 5);
}

TEST(NewTableMetadata, RemapsSpecAndSortOrder) {
  PartitionSpec spec;
  spec.spec_id = 9;
  spec.fields.push_back(PartitionField{10, 2000, "ts_day", Transform::Day()});
  spec.fields.push_back(PartitionField{50, 2001, "id_bucket", Transform::Bucket(16)});
  SortOrder order;
  order.order_id = 5;
  order.fields.push_back(SortField{Transform::Identity(), 41, SortDirection::kDesc, NullOrder::kNullsLast});
  ASSERT_OK_AND_ASSIGN(TableMetadata m,
                       NewTableMetadata("s3://b/db/t/", CallerSchema(), spec, order,
                                        {{"owner", "floe"}, {"format-version", "2"}}, 2, 1234));
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.location, "s3://b/db/t");
  EXPECT_EQ(m.last_updated_ms, 1234);
  EXPECT_EQ(m.last_column_id, 11);
  EXPECT_EQ(m.current_schema_id, 0);
  EXPECT_EQ(m.table_uuid.size(), 36u);
  ASSERT_EQ(m.partition_specs.size(), 1u);
  EXPECT_EQ(m.default_spec_id, 0);
  EXPECT_EQ(m.partition_specs[0].spec_id, 0);
  EXPECT_EQ(m.partition_specs[0].fields[0].source_id, 5);
  EXPECT_EQ(m.partition_specs[0].fields[0].field_id, 1000);
  EXPECT_EQ(m.partition_specs[0].fields[1].source_id, 1);
  EXPECT_EQ(m.partition_specs[0].fields[1].field_id, 1001);
  EXPECT_EQ(m.last_partition_id, 1001);
  EXPECT_EQ(m.default_sort_order_id, 1);
  EXPECT_EQ(m.DefaultSortOrder()->fields[0].source_id, 6);
  EXPECT_EQ(m.properties.count("format-version"), 0u);
  EXPECT_EQ(m.properties.at("owner"), "floe");
  EXPECT_FALSE(m.current_snapshot_id.has_value());

  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataToJsonValue(m));
  EXPECT_EQ(json["current-snapshot-id"], -1);
  EXPECT_EQ(json["last-partition-id"], 1001);
}

TEST(NewTableMetadata, UnpartitionedUnsortedAndV3) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m,
                       NewTableMetadata("/tmp/t", CallerSchema(), PartitionSpec::Unpartitioned(),
                                        SortOrder::Unsorted(), {}, 3, 1));
  EXPECT_EQ(m.last_partition_id, 999);
  EXPECT_EQ(m.default_sort_order_id, 0);
  EXPECT_EQ(m.next_row_id, 0);
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataToJsonValue(m));
  EXPECT_TRUE(json["current-snapshot-id"].is_null());
  EXPECT_EQ(json["next-row-id"], 0);
}

TEST(NewTableMetadata, RejectsBadInput) {
  PartitionSpec spec;
  spec.fields.push_back(PartitionField{99, 1000, "nope", Transform::Identity()});
  EXPECT_FALSE(NewTableMetadata("/t", CallerSchema(), spec, SortOrder::Unsorted(), {}, 2, 1).ok());
  PartitionSpec wrong_transform;
  wrong_transform.fields.push_back(PartitionField{50, 1000, "id_hour", Transform::Hour()});
  EXPECT_FALSE(NewTableMetadata("/t", CallerSchema(), wrong_transform, SortOrder::Unsorted(), {}, 2, 1).ok());
  Schema v3_only;
  v3_only.fields = {MakeNestedField(1, "n", PrimitiveType(TypeKind::kTimestampNs))};
  EXPECT_FALSE(
      NewTableMetadata("/t", v3_only, PartitionSpec::Unpartitioned(), SortOrder::Unsorted(), {}, 2, 1).ok());
  EXPECT_FALSE(
      NewTableMetadata("/t", CallerSchema(), PartitionSpec::Unpartitioned(), SortOrder::Unsorted(), {}, 4, 1)
          .ok());
}

Snapshot MakeSnapshot(int64_t id, int64_t sequence, int64_t timestamp, std::optional<int64_t> parent) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence;
  s.timestamp_ms = timestamp;
  s.manifest_list = "/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.summary = {{"operation", "append"}, {"added-records", "3"}};
  s.schema_id = 0;
  return s;
}

TEST(TableMetadataBuilder, CommitsSnapshotsAndRecordsMetadataLog) {
  ASSERT_OK_AND_ASSIGN(TableMetadata v1,
                       NewTableMetadata("/t", CallerSchema(), PartitionSpec::Unpartitioned(),
                                        SortOrder::Unsorted(), {}, 2, 100));
  TableMetadataBuilder first(v1, "/t/metadata/v1.metadata.json");
  ASSERT_OK(first.AddSnapshot(MakeSnapshot(INT64_MAX, 1, 150, std::nullopt)));
  ASSERT_OK(first.SetBranchSnapshot(INT64_MAX));
  ASSERT_OK_AND_ASSIGN(TableMetadata v2, first.Build(200));
  EXPECT_EQ(v2.last_sequence_number, 1);
  EXPECT_EQ(v2.current_snapshot_id, INT64_MAX);
  EXPECT_EQ(v2.refs.at("main").snapshot_id, INT64_MAX);
  ASSERT_EQ(v2.snapshot_log.size(), 1u);
  EXPECT_EQ(v2.snapshot_log[0].timestamp_ms, 150);
  ASSERT_EQ(v2.metadata_log.size(), 1u);
  EXPECT_EQ(v2.metadata_log[0].metadata_file, "/t/metadata/v1.metadata.json");
  EXPECT_EQ(v2.metadata_log[0].timestamp_ms, 100);
  EXPECT_EQ(v2.last_updated_ms, 200);

  // Sequence numbers must advance by one.
  TableMetadataBuilder bad(v2, "/t/metadata/v2.metadata.json");
  EXPECT_FALSE(bad.AddSnapshot(MakeSnapshot(5, 3, 250, INT64_MAX)).ok());
  EXPECT_FALSE(bad.AddSnapshot(MakeSnapshot(INT64_MAX, 2, 250, INT64_MAX)).ok());
  EXPECT_FALSE(bad.SetBranchSnapshot(42).ok());

  // The log keeps only write.metadata.previous-versions-max entries.
  TableMetadata current = v2;
  std::string current_file = "/t/metadata/v2.metadata.json";
  for (int i = 3; i <= 6; ++i) {
    TableMetadataBuilder b(current, current_file);
    b.SetProperties({{kPreviousVersionsMaxProperty, "2"}});
    ASSERT_OK(b.AddSnapshot(MakeSnapshot(i, i - 1, 100 * i, current.current_snapshot_id)));
    ASSERT_OK(b.SetBranchSnapshot(i));
    ASSERT_OK_AND_ASSIGN(current, b.Build(100 * i + 50));
    current_file = "/t/metadata/v" + std::to_string(i) + ".metadata.json";
  }
  ASSERT_EQ(current.metadata_log.size(), 2u);
  EXPECT_EQ(current.metadata_log[0].metadata_file, "/t/metadata/v4.metadata.json");
  EXPECT_EQ(current.metadata_log[1].metadata_file, "/t/metadata/v5.metadata.json");
  EXPECT_EQ(current.snapshot_log.size(), 5u);
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(current));
  ASSERT_OK_AND_ASSIGN(TableMetadata back, TableMetadataFromJson(written, "built"));
  EXPECT_EQ(back, current);
}

TEST(TableMetadataBuilder, V3RowLineage) {
  ASSERT_OK_AND_ASSIGN(TableMetadata base,
                       NewTableMetadata("/t", CallerSchema(), PartitionSpec::Unpartitioned(),
                                        SortOrder::Unsorted(), {}, 3, 100));
  TableMetadataBuilder b(base);
  Snapshot s = MakeSnapshot(77, 1, 120, std::nullopt);
  EXPECT_FALSE(b.AddSnapshot(s).ok());  // first-row-id and added-rows are required
  s.first_row_id = 0;
  s.added_rows = 30;
  ASSERT_OK(b.AddSnapshot(s));
  ASSERT_OK(b.SetBranchSnapshot(77));
  ASSERT_OK_AND_ASSIGN(TableMetadata m, b.Build(130));
  EXPECT_EQ(m.next_row_id, 30);
  EXPECT_TRUE(m.metadata_log.empty());  // the base was never written
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataToJsonValue(m));
  EXPECT_EQ(json["snapshots"][0]["first-row-id"], 0);
  EXPECT_EQ(json["snapshots"][0]["added-rows"], 30);
  EXPECT_EQ(json["current-snapshot-id"], 77);
}

TEST(TableMetadataBuilder, AddSchemaReusesIdenticalAndGrowsLastColumnId) {
  ASSERT_OK_AND_ASSIGN(TableMetadata base,
                       NewTableMetadata("/t", CallerSchema(), PartitionSpec::Unpartitioned(),
                                        SortOrder::Unsorted(), {}, 2, 100));
  TableMetadataBuilder b(base);
  ASSERT_OK_AND_ASSIGN(int32_t same, b.AddSchema(base.schemas[0]));
  EXPECT_EQ(same, 0);
  Schema wider = base.schemas[0];
  wider.fields.push_back(MakeNestedField(12, "added", PrimitiveType(TypeKind::kString)));
  ASSERT_OK_AND_ASSIGN(int32_t id, b.AddSchema(wider));
  EXPECT_EQ(id, 1);
  ASSERT_OK(b.SetCurrentSchema(1));
  EXPECT_FALSE(b.SetCurrentSchema(9).ok());
  ASSERT_OK_AND_ASSIGN(TableMetadata m, b.Build(200));
  EXPECT_EQ(m.last_column_id, 12);
  EXPECT_EQ(m.current_schema_id, 1);
}

TEST(RandomIds, SnapshotIdIsXorOfUuidHalvesMasked) {
  std::array<uint8_t, 16> uuid = {0x81, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18};
  EXPECT_EQ(SnapshotIdFromUuid(uuid), 0x1010101010101010LL);
  std::set<int64_t> seen;
  for (int i = 0; i < 100; ++i) {
    int64_t id = NewSnapshotId();
    EXPECT_GT(id, 0);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(RandomIds, UuidV4Format) {
  for (int i = 0; i < 20; ++i) {
    std::string uuid = NewUuidV4();
    ASSERT_EQ(uuid.size(), 36u);
    EXPECT_EQ(uuid[8], '-');
    EXPECT_EQ(uuid[14], '4');
    EXPECT_NE(std::string("89ab").find(uuid[19]), std::string::npos) << uuid;
    ASSERT_OK_AND_ASSIGN(std::string bytes, ParseUuid(uuid));
    EXPECT_EQ(FormatUuid(bytes), uuid);
  }
}

}  // namespace
}  // namespace floe::iceberg
