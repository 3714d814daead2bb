// Writes a small Iceberg file set (partitioned data files, a position delete
// file, a deletion vector, manifests and manifest lists for format versions
// 1-3), checks it reads back with floe's readers, and describes it in
// expected.json, for tests/interop/iceberg_manifest.test.mjs to check with
// avsc and DuckDB:
//
//   write_interop_file_set OUT_DIR
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "tool_main.h"

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

Status WriteFileSet(const fs::path& out) {
  fs::create_directories(out / "metadata");
  auto io = MakeLocalFileIO();
  const Schema schema = InteropSchema();
  PartitionSpec spec;
  spec.spec_id = 0;
  spec.fields = {PartitionField{2, 1000, "name", Transform::Identity()},
                 PartitionField{4, 1001, "ts_day", Transform::Day()},
                 PartitionField{1, 1002, "id_bucket", Transform::Bucket(8)}};
  FLOE_ASSIGN_OR_RETURN(Type partition_type, spec.PartitionType(schema));
  RollingWriterOptions rolling;
  rolling.file_prefix = "00000-0-interop";
  FLOE_ASSIGN_OR_RETURN(auto writer, PartitionedWriter::Make(*io, out.string(), schema, spec, rolling));
  FLOE_RETURN_IF_ERROR(writer->Write(InteropBatch(schema, 30)));
  FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> data_files, writer->Close());
  FLOE_RETURN_IF_ERROR(tools::Check(data_files.size() > 1u, "the writer fans out into several files"));

  nlohmann::json expected;
  expected["schema"] = SchemaToJson(schema).dump();
  for (const DataFile& f : data_files) {
    expected["data_files"].push_back({{"path", f.file_path}, {"record_count", f.record_count}});
  }

  // Deletes against the first data file, as v2 position deletes and a v3 DV.
  const DataFile& target = data_files[0];
  FLOE_ASSIGN_OR_RETURN(
      auto position_writer,
      PositionDeleteWriter::Open(*io, (out / "data" / "deletes-0.parquet").string(), target.partition, {}));
  FLOE_RETURN_IF_ERROR(position_writer->Delete(target.file_path, 0));
  FLOE_ASSIGN_OR_RETURN(DataFile position_deletes, position_writer->Close());
  FLOE_ASSIGN_OR_RETURN(auto dv_writer,
                        DeletionVectorWriter::Open(*io, (out / "data" / "dv-0.puffin").string()));
  FLOE_RETURN_IF_ERROR(dv_writer->Add(target.file_path, {0}, target.partition, spec.spec_id));
  FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> dvs, dv_writer->Close());
  expected["position_delete_file"] = position_deletes.file_path;

  const int64_t snapshot_id = 3051729675574597004;  // above 2^53: exact longs matter
  for (int version = 1; version <= 3; ++version) {
    const std::string v = std::to_string(version);
    ManifestWriterOptions data_options;
    data_options.format_version = version;
    data_options.snapshot_id = snapshot_id;
    const std::string data_manifest_path = (out / "metadata" / ("data-v" + v + "-m0.avro")).string();
    FLOE_ASSIGN_OR_RETURN(auto data_manifest_writer,
                          ManifestWriter::Open(*io, data_manifest_path, schema, spec, data_options));
    for (const DataFile& f : data_files) FLOE_RETURN_IF_ERROR(data_manifest_writer->Add(f));
    FLOE_ASSIGN_OR_RETURN(ManifestFile data_manifest, data_manifest_writer->Finish());
    std::vector<ManifestFile> manifests = {data_manifest};
    expected["manifests"].push_back({{"path", data_manifest_path},
                                     {"version", version},
                                     {"content", "data"},
                                     {"entries", data_files.size()}});
    if (version >= 2) {
      ManifestWriterOptions delete_options = data_options;
      delete_options.content = ManifestContent::kDeletes;
      const std::string delete_manifest_path = (out / "metadata" / ("deletes-v" + v + "-m0.avro")).string();
      FLOE_ASSIGN_OR_RETURN(auto delete_writer,
                            ManifestWriter::Open(*io, delete_manifest_path, schema, spec, delete_options));
      FLOE_RETURN_IF_ERROR(delete_writer->Add(version == 2 ? position_deletes : dvs[0]));
      FLOE_ASSIGN_OR_RETURN(ManifestFile delete_manifest, delete_writer->Finish());
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
    FLOE_RETURN_IF_ERROR(WriteManifestList(*io, list_path, manifests, list_options));
    expected["manifest_lists"].push_back(
        {{"path", list_path}, {"version", version}, {"entries", manifests.size()}});

    // Read back what was just written.
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> listed, ReadManifestList(*io, list_path));
    FLOE_RETURN_IF_ERROR(
        tools::Check(listed.size() == manifests.size(), list_path + " lists every manifest"));
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(*io, listed[0], partition_type));
    FLOE_RETURN_IF_ERROR(
        tools::Check(entries.size() == data_files.size(), "the v" + v + " data manifest holds every file"));
    // v3: a data file written without first_row_id inherits one on read (the
    // manifest's first_row_id plus the rows of the files before it); the rest
    // reads back as written.
    int64_t next_row_id = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      DataFile expected_file = data_files[i];
      if (version >= 3 && !expected_file.first_row_id) expected_file.first_row_id = next_row_id;
      next_row_id += data_files[i].record_count;
      FLOE_RETURN_IF_ERROR(
          tools::Check(entries[i].data_file == expected_file,
                       "entry " + std::to_string(i) + " of the v" + v + " data manifest reads back equal"));
    }
  }
  expected["snapshot_id"] = std::to_string(snapshot_id);
  std::ofstream(out / "expected.json") << expected.dump(2);
  return Status::OK();
}

}  // namespace
}  // namespace floe::iceberg

int main(int argc, char** argv) {
  return floe::tools::ToolMain(argc, argv,
                               [](const std::string& out) { return floe::iceberg::WriteFileSet(out); });
}
