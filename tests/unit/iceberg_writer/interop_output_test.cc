// Writes a small Iceberg file set (partitioned data files, a position delete
// file, a deletion vector, manifests and manifest lists for format versions
// 1-3) and checks it reads back. With FLOE_INTEROP_OUT set, the files go to
// that directory with an expected.json describing them, for
// tests/interop/iceberg_manifest.test.mjs to check with avsc and DuckDB.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

Schema InteropSchema() {
  Schema schema;
  schema.schema_id = 0;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(3, "price", DecimalType(12, 2)),
                   MakeNestedField(4, "ts", PrimitiveType(TypeKind::kTimestamp)),
                   MakeNestedField(5, "u", PrimitiveType(TypeKind::kUuid)),
                   MakeNestedField(6, "tags", ListType(8, PrimitiveType(TypeKind::kString), true)),
                   MakeNestedField(7, "attrs",
                                   MapType(9, PrimitiveType(TypeKind::kString), 10,
                                           PrimitiveType(TypeKind::kInt), false))};
  return schema;
}

RecordBatch InteropBatch(const Schema& schema, int rows) {
  RecordBatch batch;
  batch.schema = *ToFloeSchema(schema);
  batch.num_rows = rows;
  for (const Field& f : batch.schema) batch.columns.push_back(MakeEmptyColumn(f.type));
  for (int i = 0; i < rows; ++i) {
    batch.columns[0].AppendValue<int64_t>(int64_t{1} << 40 | i);
    batch.columns[1].AppendBytes(i % 3 == 0 ? "east" : "west");
    batch.columns[2].AppendValue<Int128>(Int128{i} * 12345);
    batch.columns[3].AppendValue<int64_t>(int64_t{1700000000} * 1000000 + int64_t{i} * 3600 * 1000000);
    uint8_t uuid[16];
    for (int k = 0; k < 16; ++k) uuid[k] = static_cast<uint8_t>(i * 16 + k);
    batch.columns[4].AppendFixed(uuid);
    for (int k = 0; k < i % 3; ++k) batch.columns[5].children[0].AppendBytes("t" + std::to_string(k));
    batch.columns[5].AppendListEnd();
    batch.columns[6].children[0].AppendBytes("k");
    batch.columns[6].children[1].AppendValue<int32_t>(i);
    batch.columns[6].AppendListEnd();
  }
  return batch;
}

TEST(InteropOutputTest, WritesAReadableFileSet) {
  testing::TempDir temp;
  const char* env = std::getenv("FLOE_INTEROP_OUT");
  const fs::path out = env && *env ? fs::path(env) : temp.path();
  fs::create_directories(out / "metadata");
  auto io = MakeLocalFileIO();
  const Schema schema = InteropSchema();
  PartitionSpec spec;
  spec.spec_id = 0;
  spec.fields = {PartitionField{2, 1000, "name", Transform::Identity()},
                 PartitionField{4, 1001, "ts_day", Transform::Day()},
                 PartitionField{1, 1002, "id_bucket", Transform::Bucket(8)}};
  ASSERT_OK_AND_ASSIGN(Type partition_type, spec.PartitionType(schema));
  RollingWriterOptions rolling;
  rolling.file_prefix = "00000-0-interop";
  ASSERT_OK_AND_ASSIGN(auto writer, PartitionedWriter::Make(*io, out.string(), schema, spec, rolling));
  ASSERT_OK(writer->Write(InteropBatch(schema, 30)));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> data_files, writer->Close());
  ASSERT_GT(data_files.size(), 1u);

  nlohmann::json expected;
  expected["schema"] = SchemaToJson(schema).dump();
  for (const DataFile& f : data_files) {
    expected["data_files"].push_back({{"path", f.file_path}, {"record_count", f.record_count}});
  }

  // Deletes against the first data file, as v2 position deletes and a v3 DV.
  const DataFile& target = data_files[0];
  ASSERT_OK_AND_ASSIGN(
      auto position_writer,
      PositionDeleteWriter::Open(*io, (out / "data" / "deletes-0.parquet").string(), target.partition, {}));
  ASSERT_OK(position_writer->Delete(target.file_path, 0));
  ASSERT_OK_AND_ASSIGN(DataFile position_deletes, position_writer->Close());
  ASSERT_OK_AND_ASSIGN(auto dv_writer,
                       DeletionVectorWriter::Open(*io, (out / "data" / "dv-0.puffin").string()));
  ASSERT_OK(dv_writer->Add(target.file_path, {0}, target.partition, spec.spec_id));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> dvs, dv_writer->Close());
  expected["position_delete_file"] = position_deletes.file_path;

  const int64_t snapshot_id = 3051729675574597004;  // above 2^53: exact longs matter
  for (int version = 1; version <= 3; ++version) {
    const std::string v = std::to_string(version);
    ManifestWriterOptions data_options;
    data_options.format_version = version;
    data_options.snapshot_id = snapshot_id;
    const std::string data_manifest_path = (out / "metadata" / ("data-v" + v + "-m0.avro")).string();
    ASSERT_OK_AND_ASSIGN(auto data_manifest_writer,
                         ManifestWriter::Open(*io, data_manifest_path, schema, spec, data_options));
    for (const DataFile& f : data_files) ASSERT_OK(data_manifest_writer->Add(f));
    ASSERT_OK_AND_ASSIGN(ManifestFile data_manifest, data_manifest_writer->Finish());
    std::vector<ManifestFile> manifests = {data_manifest};
    expected["manifests"].push_back({{"path", data_manifest_path},
                                     {"version", version},
                                     {"content", "data"},
                                     {"entries", data_files.size()}});
    if (version >= 2) {
      ManifestWriterOptions delete_options = data_options;
      delete_options.content = ManifestContent::kDeletes;
      const std::string delete_manifest_path = (out / "metadata" / ("deletes-v" + v + "-m0.avro")).string();
      ASSERT_OK_AND_ASSIGN(auto delete_writer,
                           ManifestWriter::Open(*io, delete_manifest_path, schema, spec, delete_options));
      ASSERT_OK(delete_writer->Add(version == 2 ? position_deletes : dvs[0]));
      ASSERT_OK_AND_ASSIGN(ManifestFile delete_manifest, delete_writer->Finish());
      manifests.push_back(delete_manifest);
      expected["manifests"].push_back(
          {{"path", delete_manifest_path}, {"version", version}, {"content", "deletes"}, {"entries", 1}});
    }
    ManifestListWriterOptions list_options;
    list_options.format_version = version;
    list_options.snapshot_id = snapshot_id;
    list_options.sequence_number = version >= 2 ? 1 : 0;
    if (version >= 3) list_options.first_row_id = 0;
    const std::string list_path = (out / "metadata" / ("snap-v" + v + ".avro")).string();
    ASSERT_OK(WriteManifestList(*io, list_path, manifests, list_options));
    expected["manifest_lists"].push_back(
        {{"path", list_path}, {"version", version}, {"entries", manifests.size()}});

    // Read back what was just written.
    ASSERT_OK_AND_ASSIGN(std::vector<ManifestFile> listed, ReadManifestList(*io, list_path));
    ASSERT_EQ(listed.size(), manifests.size());
    ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> entries, ReadManifest(*io, listed[0], partition_type));
    ASSERT_EQ(entries.size(), data_files.size());
    // v3: a data file written without first_row_id inherits one on read (the
    // manifest's first_row_id plus the rows of the files before it); the rest
    // reads back as written.
    int64_t next_row_id = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      DataFile expected_file = data_files[i];
      if (version >= 3 && !expected_file.first_row_id) expected_file.first_row_id = next_row_id;
      next_row_id += data_files[i].record_count;
      EXPECT_EQ(entries[i].data_file, expected_file) << "version " << version << ", file " << i;
    }
  }
  expected["snapshot_id"] = std::to_string(snapshot_id);
  std::ofstream(out / "expected.json") << expected.dump(2);
}

}  // namespace
}  // namespace floe::iceberg
