// Manifests and manifest lists written by floe read back equal, per format
// version, with inheritance, counts and partition summaries as the spec says.
#include <gtest/gtest.h>

#include <filesystem>

#include "formats/avro/container_reader.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/manifest/partition_summary.h"
#include "iceberg/spec/single_value.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

Schema TestSchema() {
  Schema schema;
  schema.schema_id = 3;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(3, "price", DecimalType(10, 2)),
                   MakeNestedField(4, "u", PrimitiveType(TypeKind::kUuid)),
                   MakeNestedField(5, "ts", PrimitiveType(TypeKind::kTimestampTz)),
                   MakeNestedField(6, "score", PrimitiveType(TypeKind::kDouble))};
  return schema;
}

PartitionSpec TestSpec() {
  PartitionSpec spec;
  spec.spec_id = 2;
  spec.fields = {PartitionField{2, 1000, "name", Transform::Identity()},
                 PartitionField{1, 1001, "id_bucket", Transform::Bucket(4)},
                 PartitionField{5, 1002, "ts_day", Transform::Day()},
                 PartitionField{3, 1003, "price", Transform::Identity()},
                 PartitionField{4, 1004, "u", Transform::Identity()},
                 PartitionField{6, 1005, "score", Transform::Identity()}};
  return spec;
}

DataFile MakeFile(const std::string& path, std::vector<Literal> partition, int64_t records) {
  DataFile f;
  f.file_path = path;
  f.partition = std::move(partition);
  f.record_count = records;
  f.file_size_in_bytes = 1000 + records;
  f.column_sizes = {{1, 100}, {2, 200}};
  f.value_counts = {{1, records}, {2, records}};
  f.null_value_counts = {{1, 0}, {2, 1}};
  f.nan_value_counts = {{6, 0}};
  f.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}, {2, "a"}};
  f.upper_bounds = {{1, std::string("\x09\0\0\0\0\0\0\0", 8)}, {2, "z"}};
  f.split_offsets = {4, 5000};
  f.sort_order_id = 0;
  return f;
}

const std::string kUuid1(16, '\x11');
const std::string kUuid2(16, '\xEE');

class ManifestRoundTripTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = MakeLocalFileIO();
  Schema schema_ = TestSchema();
  PartitionSpec spec_ = TestSpec();
};

TEST_F(ManifestRoundTripTest, V2DataManifestWithInheritanceCountsAndSummaries) {
  ASSERT_OK_AND_ASSIGN(Type partition_type, spec_.PartitionType(schema_));
  ManifestWriterOptions options;
  options.snapshot_id = 42;
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ManifestWriter::Open(*io_, dir_.File("m0.avro"), schema_, spec_, options));
  DataFile a = MakeFile("s3://b/t/data/a.parquet",
                        {Literal::String("bob"), Literal::Int(3), Literal::Date(17000),
                         Literal::Decimal(1420, 2), Literal::Uuid(kUuid2), Literal::Double(2.5)},
                        10);
  DataFile b = MakeFile("s3://b/t/data/b.parquet",
                        {Literal::String("alice"), Literal::Int(1), Literal::Null(), Literal::Decimal(-5, 2),
                         Literal::Uuid(kUuid1), Literal::Double(std::nan(""))},
                        20);
  DataFile c = MakeFile("s3://b/t/data/c.parquet",
                        {Literal::String("carol"), Literal::Int(0), Literal::Date(16000),
                         Literal::Decimal(99999, 2), Literal::Null(), Literal::Double(-1.0)},
                        30);
  DataFile d = MakeFile("s3://b/t/data/d.parquet",
                        {Literal::Null(), Literal::Int(2), Literal::Date(18000), Literal::Decimal(0, 2),
                         Literal::Uuid(kUuid1), Literal::Null()},
                        40);
  ASSERT_OK(writer->Add(a));
  ASSERT_OK(writer->Add(b));
  ManifestEntry existing{ManifestEntryStatus::kExisting, 7, 3, 3, c};
  ASSERT_OK(writer->Existing(existing));
  ManifestEntry deleted{ManifestEntryStatus::kAdded, 6, 2, 2, d};
  ASSERT_OK(writer->Delete(deleted));
  ASSERT_OK_AND_ASSIGN(ManifestFile manifest, writer->Finish());

  EXPECT_EQ(manifest.manifest_length, static_cast<int64_t>(std::filesystem::file_size(dir_.File("m0.avro"))));
  EXPECT_EQ(manifest.partition_spec_id, 2);
  EXPECT_EQ(manifest.added_snapshot_id, 42);
  EXPECT_EQ(manifest.added_files_count, 2);
  EXPECT_EQ(manifest.existing_files_count, 1);
  EXPECT_EQ(manifest.deleted_files_count, 1);
  EXPECT_EQ(manifest.added_rows_count, 30);
  EXPECT_EQ(manifest.existing_rows_count, 30);
  EXPECT_EQ(manifest.deleted_rows_count, 40);
  EXPECT_EQ(manifest.sequence_number, 0);
  EXPECT_EQ(manifest.min_sequence_number, 3);

  ASSERT_EQ(manifest.partitions.size(), 6u);
  // name: "alice".."carol" plus a null (from the deleted entry).
  EXPECT_TRUE(manifest.partitions[0].contains_null);
  EXPECT_EQ(manifest.partitions[0].lower_bound, "alice");
  EXPECT_EQ(manifest.partitions[0].upper_bound, "carol");
  // bucket: 4-byte ints 0..3.
  EXPECT_FALSE(manifest.partitions[1].contains_null);
  EXPECT_EQ(manifest.partitions[1].lower_bound, std::string("\0\0\0\0", 4));
  EXPECT_EQ(manifest.partitions[1].upper_bound, std::string("\3\0\0\0", 4));
  // day: 4-byte dates, a null.
  EXPECT_TRUE(manifest.partitions[2].contains_null);
  EXPECT_EQ(manifest.partitions[2].lower_bound,
            *SerializeSingleValue(Literal::Date(16000), PrimitiveType(TypeKind::kDate)));
  // decimal: minimal big-endian two's complement, signed order.
  EXPECT_EQ(manifest.partitions[3].lower_bound, std::string("\xFB", 1));
  EXPECT_EQ(manifest.partitions[3].upper_bound, std::string("\x01\x86\x9F", 3));
  // uuid: unsigned byte order (0xEE.. sorts after 0x11..).
  EXPECT_EQ(manifest.partitions[4].lower_bound, kUuid1);
  EXPECT_EQ(manifest.partitions[4].upper_bound, kUuid2);
  // double: NaN is counted but never a bound.
  EXPECT_EQ(manifest.partitions[5].contains_nan, true);
  EXPECT_TRUE(manifest.partitions[5].contains_null);
  EXPECT_EQ(manifest.partitions[5].lower_bound,
            *SerializeSingleValue(Literal::Double(-1.0), PrimitiveType(TypeKind::kDouble)));
  EXPECT_EQ(manifest.partitions[5].upper_bound,
            *SerializeSingleValue(Literal::Double(2.5), PrimitiveType(TypeKind::kDouble)));
  EXPECT_EQ(manifest.partitions[1].contains_nan, false);

  ManifestListWriterOptions list_options;
  list_options.snapshot_id = 42;
  list_options.parent_snapshot_id = 7;
  list_options.sequence_number = 9;
  ASSERT_OK_AND_ASSIGN(int64_t list_length,
                       WriteManifestList(*io_, dir_.File("snap.avro"), {manifest}, list_options));
  EXPECT_EQ(list_length, static_cast<int64_t>(std::filesystem::file_size(dir_.File("snap.avro"))));
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> listed, ReadManifestList(*io_, dir_.File("snap.avro")));
  ASSERT_EQ(listed.size(), 1u);
  ManifestFile expected = manifest;
  expected.sequence_number = 9;
  EXPECT_EQ(listed[0], expected);

  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> entries, ReadManifest(*io_, listed[0], partition_type));
  ASSERT_EQ(entries.size(), 4u);
  a.spec_id = b.spec_id = c.spec_id = d.spec_id = 2;
  // ADDED: snapshot id written, sequence numbers inherited from the list.
  EXPECT_EQ(entries[0], (ManifestEntry{ManifestEntryStatus::kAdded, 42, 9, 9, a}));
  ManifestEntry b_entry = entries[1];
  EXPECT_TRUE(std::isnan(b_entry.data_file.partition[5].double_value));
  b_entry.data_file.partition[5] = b.partition[5] = Literal::Double(0);
  EXPECT_EQ(b_entry, (ManifestEntry{ManifestEntryStatus::kAdded, 42, 9, 9, b}));
  EXPECT_EQ(entries[2], (ManifestEntry{ManifestEntryStatus::kExisting, 7, 3, 3, c}));
  // DELETED: the deleting snapshot's id, the file's own sequence numbers.
  EXPECT_EQ(entries[3], (ManifestEntry{ManifestEntryStatus::kDeleted, 42, 2, 2, d}));

  // File metadata and Avro shape as the checklist requires.
  ASSERT_OK_AND_ASSIGN(auto input, io_->OpenRead(dir_.File("m0.avro")));
  ASSERT_OK_AND_ASSIGN(auto reader, avro::AvroContainerReader::Open(std::move(input)));
  EXPECT_EQ(reader->Metadata("format-version"), "2");
  EXPECT_EQ(reader->Metadata("content"), "data");
  EXPECT_EQ(reader->Metadata("partition-spec-id"), "2");
  EXPECT_EQ(reader->Metadata("schema-id"), "3");
  EXPECT_EQ(reader->Metadata("schema"), SchemaToJson(schema_).dump());
  EXPECT_EQ(reader->Metadata("partition-spec"), PartitionFieldsToJson(spec_).dump());
  EXPECT_EQ(reader->Metadata("avro.codec"), "deflate");
  const std::string avro_schema = reader->writer_schema().ToJson();
  for (const char* absent : {"\"field-id\":105", "\"field-id\":106", "\"field-id\":107", "\"field-id\":111",
                             "\"field-id\":141", "\"field-id\":142", "\"field-id\":144"}) {
    EXPECT_EQ(avro_schema.find(absent), std::string::npos) << absent;
  }
  for (const char* present : {"\"name\":\"manifest_entry\"", "\"name\":\"r2\"", "\"name\":\"r102\"",
                              "\"name\":\"k117_v118\"", "\"field-id\":143", "\"name\":\"uuid_fixed\"",
                              "\"name\":\"decimal_10_2\"", "\"logicalType\":\"date\""}) {
    EXPECT_NE(avro_schema.find(present), std::string::npos) << present;
  }
  ASSERT_OK_AND_ASSIGN(auto list_input, io_->OpenRead(dir_.File("snap.avro")));
  ASSERT_OK_AND_ASSIGN(auto list_reader, avro::AvroContainerReader::Open(std::move(list_input)));
  EXPECT_EQ(list_reader->Metadata("snapshot-id"), "42");
  EXPECT_EQ(list_reader->Metadata("parent-snapshot-id"), "7");
  EXPECT_EQ(list_reader->Metadata("sequence-number"), "9");
  EXPECT_EQ(list_reader->Metadata("format-version"), "2");
  EXPECT_EQ(list_reader->writer_schema().root().name, "manifest_file");
  EXPECT_NE(list_reader->writer_schema().FindNamed("r508"), nullptr);
}

TEST_F(ManifestRoundTripTest, AddedOnlyManifestGetsTheSnapshotSequenceNumberAsMinimum) {
  ManifestWriterOptions options;
  options.snapshot_id = 5;
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Open(*io_, dir_.File("m.avro"), schema_,
                                                         PartitionSpec::Unpartitioned(), options));
  ASSERT_OK(writer->Add(MakeFile("s3://b/t/data/x.parquet", {}, 3)));
  ASSERT_OK_AND_ASSIGN(ManifestFile manifest, writer->Finish());
  EXPECT_EQ(manifest.min_sequence_number, 0);
  ManifestListWriterOptions list_options;
  list_options.snapshot_id = 5;
  list_options.sequence_number = 4;
  ManifestFile older = manifest;
  older.manifest_path = "s3://b/t/metadata/older.avro";
  older.sequence_number = 2;
  older.min_sequence_number = 1;
  ASSERT_OK(WriteManifestList(*io_, dir_.File("l.avro"), {manifest, older}, list_options));
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> listed, ReadManifestList(*io_, dir_.File("l.avro")));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].sequence_number, 4);
  EXPECT_EQ(listed[0].min_sequence_number, 4);
  EXPECT_EQ(listed[1].sequence_number, 2);
  EXPECT_EQ(listed[1].min_sequence_number, 1);
  EXPECT_TRUE(listed[0].partitions.empty());
}

TEST_F(ManifestRoundTripTest, V3DeleteManifestWithDeletionVectorFieldsAndRowIds) {
  ManifestWriterOptions options;
  options.format_version = 3;
  options.content = ManifestContent::kDeletes;
  options.snapshot_id = 77;
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Open(*io_, dir_.File("d.avro"), schema_,
                                                         PartitionSpec::Unpartitioned(), options));
  DataFile dv;
  dv.content = DataFileContent::kPositionDeletes;
  dv.file_path = "s3://b/t/data/dv.puffin";
  dv.file_format = "PUFFIN";
  dv.record_count = 3;
  dv.file_size_in_bytes = 200;
  dv.referenced_data_file = "s3://b/t/data/a.parquet";
  dv.content_offset = 4;
  dv.content_size_in_bytes = 60;
  ASSERT_OK(writer->Add(dv));
  // A data file does not belong in a delete manifest.
  EXPECT_EQ(writer->Add(MakeFile("s3://b/t/data/x.parquet", {}, 1)).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(ManifestFile deletes, writer->Finish());
  EXPECT_EQ(deletes.content, ManifestContent::kDeletes);

  ManifestWriterOptions data_options;
  data_options.format_version = 3;
  data_options.snapshot_id = 77;
  ASSERT_OK_AND_ASSIGN(auto data_writer, ManifestWriter::Open(*io_, dir_.File("a.avro"), schema_,
                                                              PartitionSpec::Unpartitioned(), data_options));
  DataFile data = MakeFile("s3://b/t/data/a.parquet", {}, 10);
  ASSERT_OK(data_writer->Add(data));
  ASSERT_OK_AND_ASSIGN(ManifestFile data_manifest, data_writer->Finish());
  ASSERT_OK_AND_ASSIGN(
      auto second_writer,
      ManifestWriter::Open(*io_, dir_.File("b.avro"), schema_, PartitionSpec::Unpartitioned(), data_options));
  ASSERT_OK(second_writer->Add(MakeFile("s3://b/t/data/b.parquet", {}, 10)));
  ASSERT_OK_AND_ASSIGN(ManifestFile second_manifest, second_writer->Finish());

  ManifestListWriterOptions list_options;
  list_options.format_version = 3;
  list_options.snapshot_id = 77;
  list_options.sequence_number = 3;
  list_options.first_row_id = 100;
  ASSERT_OK(
      WriteManifestList(*io_, dir_.File("l.avro"), {data_manifest, deletes, second_manifest}, list_options));
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> listed, ReadManifestList(*io_, dir_.File("l.avro")));
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].first_row_id, 100);
  EXPECT_EQ(listed[1].first_row_id, std::nullopt);  // delete manifests assign no row ids
  EXPECT_EQ(listed[2].first_row_id, 110);
  EXPECT_EQ(listed[1].content, ManifestContent::kDeletes);

  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> entries, ReadManifest(*io_, listed[1], StructType({})));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].data_file, dv);
  EXPECT_EQ(entries[0].sequence_number, 3);
  ASSERT_OK_AND_ASSIGN(auto input, io_->OpenRead(dir_.File("d.avro")));
  ASSERT_OK_AND_ASSIGN(auto reader, avro::AvroContainerReader::Open(std::move(input)));
  EXPECT_EQ(reader->Metadata("content"), "deletes");
  EXPECT_EQ(reader->Metadata("format-version"), "3");
}

TEST_F(ManifestRoundTripTest, V1ManifestsReadWithZeroSequenceNumbers) {
  ASSERT_OK_AND_ASSIGN(Type partition_type, spec_.PartitionType(schema_));
  ManifestWriterOptions options;
  options.format_version = 1;
  options.snapshot_id = 11;
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ManifestWriter::Open(*io_, dir_.File("v1.avro"), schema_, spec_, options));
  DataFile f = MakeFile("s3://b/t/data/v1.parquet",
                        {Literal::String("x"), Literal::Int(1), Literal::Date(1), Literal::Decimal(1, 2),
                         Literal::Uuid(kUuid1), Literal::Double(1)},
                        5);
  ASSERT_OK(writer->Add(f));
  ASSERT_OK_AND_ASSIGN(ManifestFile manifest, writer->Finish());
  ManifestListWriterOptions list_options;
  list_options.format_version = 1;
  list_options.snapshot_id = 11;
  ASSERT_OK(WriteManifestList(*io_, dir_.File("l1.avro"), {manifest}, list_options));
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> listed, ReadManifestList(*io_, dir_.File("l1.avro")));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].sequence_number, 0);
  EXPECT_EQ(listed[0].content, ManifestContent::kData);
  EXPECT_EQ(listed[0].added_files_count, 1);
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> entries, ReadManifest(*io_, listed[0], partition_type));
  ASSERT_EQ(entries.size(), 1u);
  f.spec_id = 2;
  EXPECT_EQ(entries[0], (ManifestEntry{ManifestEntryStatus::kAdded, 11, 0, 0, f}));
  ASSERT_OK_AND_ASSIGN(auto input, io_->OpenRead(dir_.File("v1.avro")));
  ASSERT_OK_AND_ASSIGN(auto reader, avro::AvroContainerReader::Open(std::move(input)));
  EXPECT_NE(reader->writer_schema().ToJson().find("\"field-id\":105"), std::string::npos);
  EXPECT_EQ(reader->Metadata("content"), std::nullopt);
}

TEST_F(ManifestRoundTripTest, RejectsBadEntriesAndCorruptFiles) {
  ManifestWriterOptions options;
  options.snapshot_id = 1;
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Open(*io_, dir_.File("m.avro"), schema_, spec_, options));
  // Wrong tuple width; EXISTING without sequence numbers; wrong literal type.
  EXPECT_EQ(writer->Add(MakeFile("p", {Literal::String("x")}, 1)).kind(), ErrorKind::kInvalidArgument);
  ManifestEntry no_seq{ManifestEntryStatus::kExisting, 1, std::nullopt, std::nullopt,
                       MakeFile("p", std::vector<Literal>(6), 1)};
  EXPECT_EQ(writer->Existing(no_seq).kind(), ErrorKind::kInvalidArgument);
  std::vector<Literal> wrong(6);
  wrong[1] = Literal::String("not an int");
  EXPECT_EQ(writer->Add(MakeFile("p", wrong, 1)).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK(writer->Add(MakeFile("s3://ok", std::vector<Literal>(6), 1)));
  ASSERT_OK_AND_ASSIGN(ManifestFile manifest, writer->Finish());
  EXPECT_EQ(manifest.added_files_count, 1);

  // A truncated manifest is Corruption naming the file.
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, io_->ReadAll(dir_.File("m.avro")));
  bytes.resize(bytes.size() - 7);
  ASSERT_OK(io_->WriteAll(dir_.File("cut.avro"), bytes));
  ManifestFile cut = manifest;
  cut.manifest_path = dir_.File("cut.avro");
  ASSERT_OK_AND_ASSIGN(Type partition_type, spec_.PartitionType(schema_));
  auto read = ReadManifest(*io_, cut, partition_type);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(read.status().message().find("cut.avro"), std::string::npos);
  // A manifest list is not a manifest: the projection fails on field 500.
  ASSERT_OK(WriteManifestList(*io_, dir_.File("l.avro"), {manifest}, {}));
  ManifestFile wrong_file = manifest;
  wrong_file.manifest_path = dir_.File("l.avro");
  EXPECT_FALSE(ReadManifest(*io_, wrong_file, partition_type).ok());
  EXPECT_EQ(ReadManifestList(*io_, dir_.File("missing.avro")).status().kind(), ErrorKind::kNotFound);
}

// A list naming one manifest twice would show its files twice (duplicate rows): refused, naming both.
TEST_F(ManifestRoundTripTest, ManifestListNamingAManifestTwiceIsRefused) {
  ASSERT_OK_AND_ASSIGN(
      auto writer, ManifestWriter::Open(*io_, dir_.File("m.avro"), schema_, PartitionSpec::Unpartitioned(),
                                        ManifestWriterOptions{}));
  ASSERT_OK(writer->Add(MakeFile("s3://b/t/data/a.parquet", {}, 10)));
  ASSERT_OK_AND_ASSIGN(ManifestFile manifest, writer->Finish());
  std::vector<ManifestFile> listed(20000, manifest);
  ASSERT_OK(WriteManifestList(*io_, dir_.File("dup.avro"), listed, {}));
  auto read = ReadManifestList(*io_, dir_.File("dup.avro"));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(read.status().message().find("entry 1 names manifest " + dir_.File("m.avro") + " a second time"),
            std::string::npos)
      << read.status().message();
  EXPECT_NE(read.status().message().find(dir_.File("dup.avro")), std::string::npos);
}

TEST(CompareLiteralsTest, OrdersLikeIceberg) {
  EXPECT_LT(CompareLiterals(Literal::String("a"), Literal::String("\xC3\xA9")), 0);  // bytes unsigned
  EXPECT_LT(CompareLiterals(Literal::Decimal(-5, 2), Literal::Decimal(3, 2)), 0);
  EXPECT_GT(CompareLiterals(Literal::Long(-1), Literal::Long(-2)), 0);
  EXPECT_EQ(CompareLiterals(Literal::Binary("ab"), Literal::Binary("ab")), 0);
  EXPECT_LT(CompareLiterals(Literal::Binary("ab"), Literal::Binary("abc")), 0);
}

}  // namespace
}  // namespace floe::iceberg
