// Table metadata JSON: golden files, shared fixtures from other writers,
// error reporting and exact int64 ids.
#include "iceberg/spec/table_metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

fs::path GoldenDir() {
  return fs::path(FLOE_SOURCE_DIR) / "tests" / "golden" / "iceberg";
}

Result<TableMetadata> ParseGolden(const std::string& name) {
  const fs::path path = GoldenDir() / name;
  return TableMetadataFromJson(ReadFile(path), path.string());
}

// Key order does not matter; values (including exact integers) do.
nlohmann::json Unordered(std::string_view text) {
  return nlohmann::json::parse(text);
}

void ExpectWriteReproducesGolden(const std::string& name) {
  const std::string original = ReadFile(GoldenDir() / name);
  ASSERT_OK_AND_ASSIGN(TableMetadata metadata, TableMetadataFromJson(original, name));
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(metadata));
  EXPECT_EQ(Unordered(written), Unordered(original)) << written;
  ASSERT_OK_AND_ASSIGN(TableMetadata again, TableMetadataFromJson(written, "rewritten " + name));
  EXPECT_EQ(again, metadata);
}

TEST(TableMetadataGolden, V2WriteReproducesFile) {
  ExpectWriteReproducesGolden("v2_snapshots.metadata.json");
}
TEST(TableMetadataGolden, V3WriteReproducesFile) {
  ExpectWriteReproducesGolden("v3.metadata.json");
}
TEST(TableMetadataGolden, V3EmptyWritesNullCurrentSnapshot) {
  ExpectWriteReproducesGolden("v3_empty.metadata.json");
}

TEST(TableMetadataGolden, WrittenKeysFollowJavaOrder) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v2_snapshots.metadata.json"));
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(m));
  EXPECT_EQ(written.find("{\n  \"format-version\": 2,\n  \"table-uuid\""), 0u) << written.substr(0, 80);
  EXPECT_LT(written.find("\"schemas\""), written.find("\"partition-specs\""));
  EXPECT_LT(written.find("\"snapshots\""), written.find("\"metadata-log\""));
}

TEST(TableMetadataGolden, V2Facts) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v2_snapshots.metadata.json"));
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.last_sequence_number, 34);
  ASSERT_TRUE(m.current_snapshot_id.has_value());
  EXPECT_EQ(*m.current_snapshot_id, INT64_MAX);
  ASSERT_NE(m.CurrentSnapshot(), nullptr);
  EXPECT_EQ(m.CurrentSnapshot()->parent_snapshot_id, INT64_MAX - 1);
  EXPECT_EQ(m.CurrentSnapshot()->operation(), "overwrite");
  EXPECT_EQ(m.refs.at("audit").kind, SnapshotRef::Kind::kTag);
  EXPECT_EQ(m.refs.at("audit").max_ref_age_ms, 86400000);
  EXPECT_EQ(m.refs.at("dev").min_snapshots_to_keep, 2);
  ASSERT_NE(m.CurrentSchema(), nullptr);
  EXPECT_EQ(m.CurrentSchema()->identifier_field_ids, std::vector<int32_t>{1});
  EXPECT_EQ(m.CurrentSchema()->FindFieldByName("attributes.value")->type, FixedType(16));
  ASSERT_NE(m.DefaultSpec(), nullptr);
  EXPECT_EQ(m.DefaultSpec()->fields[1].transform, Transform::Bucket(16));
  EXPECT_EQ(m.DefaultSortOrder()->fields[1].direction, SortDirection::kDesc);
  EXPECT_EQ(m.statistics[0].blob_metadata[0].properties.at("ndv"), "7");
  EXPECT_EQ(m.metadata_log.size(), 2u);
}

TEST(TableMetadataGolden, Int64IdsNearTwoToThe63SurviveExactly) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v2_snapshots.metadata.json"));
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(m));
  EXPECT_NE(written.find("\"current-snapshot-id\": 9223372036854775807"), std::string::npos);
  EXPECT_NE(written.find("\"snapshot-id\": 9223372036854775806"), std::string::npos);
  EXPECT_EQ(written.find("e+18"), std::string::npos);
  EXPECT_EQ(written.find("9223372036854775808"), std::string::npos);
  // One past int64 is not a valid id.
  std::string too_big = ReadFile(GoldenDir() / "v2_snapshots.metadata.json");
  too_big.replace(too_big.find("\"last-sequence-number\" : 34"), 27,
                  "\"last-sequence-number\" : 9223372036854775808");
  auto parsed = TableMetadataFromJson(too_big, "too_big.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("last-sequence-number"), std::string::npos);
}

TEST(TableMetadataGolden, V1LegacyReadsSchemaAndPartitionSpec) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v1_legacy.metadata.json"));
  EXPECT_EQ(m.format_version, 1);
  ASSERT_EQ(m.schemas.size(), 1u);
  EXPECT_EQ(m.current_schema_id, 0);
  EXPECT_EQ(m.CurrentSchema()->fields[1].doc, "comment");
  ASSERT_EQ(m.partition_specs.size(), 1u);
  EXPECT_EQ(m.default_spec_id, 0);
  EXPECT_EQ(m.DefaultSpec()->fields[0].field_id, 1000);  // assigned as Java does for v1
  EXPECT_EQ(m.last_partition_id, 1000);
  EXPECT_EQ(m.last_sequence_number, 0);
  EXPECT_EQ(m.sort_orders.size(), 1u);
  EXPECT_TRUE(m.DefaultSortOrder()->is_unsorted());
  ASSERT_EQ(m.snapshots.size(), 2u);
  EXPECT_EQ(m.snapshots[0].manifests.size(), 1u);
  EXPECT_TRUE(m.snapshots[0].manifest_list.empty());
  EXPECT_EQ(m.snapshots[1].sequence_number, 0);
  EXPECT_EQ(m.refs.at("main").snapshot_id, 3055729675574597004);  // implied by current-snapshot-id

  // Writing v1 is not offered; upgrading to v2 drops the legacy fields but
  // refuses the inline manifest list the v1 snapshot still has.
  EXPECT_EQ(TableMetadataToJson(m).status().kind(), ErrorKind::kNotSupported);
  m.format_version = 2;
  m.table_uuid = "4e5d6c7b-8a9f-4b1c-9d2e-3f4a5b6c7d8e";
  EXPECT_EQ(TableMetadataToJson(m).status().kind(), ErrorKind::kInvalidArgument);
  m.snapshots.erase(m.snapshots.begin());
  m.snapshot_log.erase(m.snapshot_log.begin());
  m.snapshots[0].parent_snapshot_id.reset();
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(m));
  Json json = Json::parse(written);
  EXPECT_FALSE(json.contains("schema"));
  EXPECT_FALSE(json.contains("partition-spec"));
  EXPECT_EQ(json["refs"]["main"]["snapshot-id"], 3055729675574597004);
  EXPECT_EQ(json["partition-specs"][0]["fields"][0]["field-id"], 1000);
  EXPECT_EQ(json["snapshots"][0]["sequence-number"], 0);
}

TEST(TableMetadataWrite, V2WithoutSnapshotWritesMinusOne) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v3_empty.metadata.json"));
  m.format_version = 2;
  m.next_row_id.reset();
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataToJsonValue(m));
  EXPECT_EQ(json["current-snapshot-id"], -1);
  EXPECT_FALSE(json.contains("next-row-id"));
  EXPECT_TRUE(json["refs"].empty());
}

TEST(TableMetadataWrite, AddsMissingMainRefAndChecksMismatch) {
  ASSERT_OK_AND_ASSIGN(TableMetadata m, ParseGolden("v2_snapshots.metadata.json"));
  m.refs.erase("main");
  ASSERT_OK_AND_ASSIGN(Json json, TableMetadataToJsonValue(m));
  EXPECT_EQ(json["refs"]["main"]["snapshot-id"], INT64_MAX);
  EXPECT_EQ(json["refs"]["main"]["type"], "branch");
  m.refs["main"] = SnapshotRef::Branch(INT64_MAX - 1);
  EXPECT_EQ(TableMetadataToJson(m).status().kind(), ErrorKind::kCorruption);
}

struct BrokenCase {
  const char* description;
  const char* find;
  const char* replace;
  const char* expected_in_message;
};

TEST(TableMetadataRead, ErrorsNameTheFieldAndTheFile) {
  const std::string original = ReadFile(GoldenDir() / "v2_snapshots.metadata.json");
  const BrokenCase cases[] = {
      {"missing location", "\"location\" : \"s3://bucket/warehouse/db/events\",", "", "'location'"},
      {"wrong type", "\"last-column-id\" : 11", "\"last-column-id\" : \"11\"",
       "'last-column-id' must be an integer"},
      {"float id", "\"last-column-id\" : 11", "\"last-column-id\" : 11.0", "'last-column-id'"},
      {"unknown schema", "\"current-schema-id\" : 1", "\"current-schema-id\" : 7", "current-schema-id 7"},
      {"unknown spec", "\"default-spec-id\" : 1", "\"default-spec-id\" : 5", "default-spec-id 5"},
      {"bad transform", "\"transform\" : \"bucket[16]\"", "\"transform\" : \"bucket[0]\"", "bucket[0]"},
      {"bad direction", "\"direction\" : \"desc\"", "\"direction\" : \"down\"", "'direction'"},
      {"bad ref type", "\"type\" : \"tag\"", "\"type\" : \"label\"", "refs.audit"},
      {"missing sequence number", "\"sequence-number\" : 33,", "", "'sequence-number'"},
      {"missing operation", "\"operation\" : \"append\",", "", "summary.operation"},
      {"summary not strings", "\"added-records\" : \"10\"", "\"added-records\" : 10", "added-records"},
      {"unknown current snapshot", "\"current-snapshot-id\" : 9223372036854775807",
       "\"current-snapshot-id\" : 12", "current-snapshot-id"},
      {"future version", "\"format-version\" : 2", "\"format-version\" : 4", "format-version 4"},
      {"truncated", "\"metadata-log\"", "", "invalid JSON"},
  };
  for (const auto& c : cases) {
    std::string text = original;
    size_t at = text.find(c.find);
    ASSERT_NE(at, std::string::npos) << c.description;
    text.replace(at, std::string(c.find).size(), c.replace);
    if (std::string(c.description) == "truncated") text = text.substr(0, at);
    auto parsed = TableMetadataFromJson(text, "s3://b/t/metadata/00003.metadata.json");
    ASSERT_FALSE(parsed.ok()) << c.description;
    const std::string& message = parsed.status().message();
    EXPECT_NE(message.find(c.expected_in_message), std::string::npos) << c.description << ": " << message;
    EXPECT_EQ(message.find("s3://b/t/metadata/00003.metadata.json"), 0u) << c.description << ": " << message;
  }
}

TEST(TableMetadataRead, NonObjectsAndEmptyInput) {
  auto array = TableMetadataFromJson("[1, 2]", "array.json");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(array.status().message().find("must be a JSON object"), std::string::npos);
  auto empty = TableMetadataFromJson("", "empty.json");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().kind(), ErrorKind::kCorruption);
  EXPECT_EQ(empty.status().message().find("empty.json: invalid JSON"), 0u);
}

TEST(TableMetadataRead, UnknownFieldsAreIgnored) {
  std::string text = ReadFile(GoldenDir() / "v2_snapshots.metadata.json");
  text.insert(1, "\"x-vendor-extension\": {\"nested\": [1, 2, 3]}, ");
  ASSERT_OK_AND_ASSIGN(TableMetadata m, TableMetadataFromJson(text, "extension.json"));
  EXPECT_EQ(m.last_column_id, 11);
}

// Every metadata file that other writers (Spark, Java, Athena) produced.
TEST(TableMetadataFixtures, ParseEverySharedMetadataFile) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const fs::path root = shared / "fixtures" / "iceberg";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int parsed = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.size() < 14 || name.substr(name.size() - 14) != ".metadata.json") {
      continue;
    }
    auto m = TableMetadataFromJson(ReadFile(entry.path()), entry.path().string());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->format_version, 2) << entry.path();
    EXPECT_FALSE(m->table_uuid.empty());
    EXPECT_NE(m->CurrentSchema(), nullptr);
    if (m->current_snapshot_id) {
      EXPECT_EQ(m->refs.at("main").snapshot_id, *m->current_snapshot_id) << entry.path();
    }
    // What we write from it reads back to the same metadata.
    ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJson(*m));
    ASSERT_OK_AND_ASSIGN(TableMetadata again, TableMetadataFromJson(written, "rewritten"));
    EXPECT_EQ(again, *m) << entry.path();
    ++parsed;
  }
  EXPECT_GE(parsed, 15);
}

TEST(TableMetadataFixtures, SparkRenamedColumnAndPartitionedTable) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const fs::path dir = shared / "fixtures/iceberg/icebird/spark/rename_column/metadata";
  ASSERT_OK_AND_ASSIGN(TableMetadata m, TableMetadataFromJson(ReadFile(dir / "v3.metadata.json"), "v3"));
  EXPECT_EQ(*m.current_snapshot_id, 5276958600260276572);
  EXPECT_EQ(m.current_schema_id, 1);
  ASSERT_EQ(m.schemas.size(), 2u);
  EXPECT_EQ(m.SchemaById(0)->FindFieldById(3)->name, "date");
  EXPECT_EQ(m.SchemaById(1)->FindFieldById(3)->name, "event_date");
  EXPECT_EQ(m.CurrentSchema()->FindFieldByName("price")->type, DecimalType(10, 2));
  const PartitionSpec* spec = m.DefaultSpec();
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(spec->fields.size(), 2u);
  EXPECT_EQ(spec->fields[0].transform, Transform::Bucket(4));
  EXPECT_EQ(spec->fields[0].source_id, 1);
  EXPECT_EQ(spec->fields[0].field_id, 1000);
  EXPECT_EQ(spec->fields[1].transform, Transform::Identity());
  EXPECT_EQ(spec->fields[1].source_id, 3);
  EXPECT_EQ(m.last_partition_id, 1001);
  ASSERT_OK_AND_ASSIGN(Type partition_type, spec->PartitionType(*m.CurrentSchema()));
  EXPECT_EQ(partition_type.fields[0].type.kind, TypeKind::kInt);
  EXPECT_EQ(partition_type.fields[1].type.kind, TypeKind::kDate);
  EXPECT_EQ(m.CurrentSnapshot()->summary.at("spark.app.id"), "local-1743405294870");
  EXPECT_EQ(m.metadata_log.size(), 2u);

  ASSERT_OK_AND_ASSIGN(TableMetadata first, TableMetadataFromJson(ReadFile(dir / "v1.metadata.json"), "v1"));
  EXPECT_FALSE(first.current_snapshot_id.has_value());
  EXPECT_TRUE(first.refs.empty());
}

TEST(TableMetadataFixtures, JavaAndAthenaTables) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const fs::path java = shared / "fixtures/iceberg/icebird/java/bunnies/metadata";
  ASSERT_OK_AND_ASSIGN(TableMetadata v1, TableMetadataFromJson(ReadFile(java / "v1.metadata.json"), "v1"));
  EXPECT_FALSE(v1.current_snapshot_id.has_value());
  EXPECT_EQ(v1.CurrentSchema()->fields.size(), 8u);
  EXPECT_EQ(v1.CurrentSchema()->fields[0].name, "Breed Name");
  EXPECT_TRUE(v1.DefaultSpec()->is_unpartitioned());
  EXPECT_EQ(v1.last_partition_id, 999);
  ASSERT_OK_AND_ASSIGN(TableMetadata v5, TableMetadataFromJson(ReadFile(java / "v5.metadata.json"), "v5"));
  EXPECT_EQ(*v5.current_snapshot_id, 9158179788527662767);
  EXPECT_EQ(v5.snapshots.size(), 3u);

  const fs::path athena = shared / "fixtures/iceberg/icebird/athena/example/metadata";
  ASSERT_OK_AND_ASSIGN(
      TableMetadata a,
      TableMetadataFromJson(ReadFile(athena / "00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json"),
                            "a"));
  EXPECT_EQ(*a.current_snapshot_id, 6838723292707092922);
  EXPECT_EQ(a.Property("write.object-storage.enabled", ""), "true");
  EXPECT_EQ(a.CurrentSnapshot()->manifest_list.substr(0, 5), "s3://");
}

}  // namespace
}  // namespace floe::iceberg
