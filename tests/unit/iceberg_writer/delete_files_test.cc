// Delete files: position delete writer/reader, deletion vectors read as
// position deletes, equality delete reading, and the delete files of the
// Java/Spark fixtures. (The Puffin and deletion-vector codecs are tested in
// tests/unit/iceberg_puffin.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/scan/delete_readers.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/writer/position_delete_writer.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

std::string Le64(int64_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 8);
}

TEST(PositionDeleteWriterTest, SortsDeduplicatesAndReferencesOneFile) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const std::string target = "s3://bucket/warehouse/db/table/data/00000-0-long-file-name.parquet";
  ASSERT_OK_AND_ASSIGN(auto writer, PositionDeleteWriter::Open(*io, dir.File("d.parquet"), {}, {}));
  for (int64_t pos : {9, 3, 7, 3, 0}) ASSERT_OK(writer->Delete(target, pos));
  EXPECT_EQ(writer->Delete(target, -1).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(DataFile file, writer->Close());
  EXPECT_EQ(file.content, DataFileContent::kPositionDeletes);
  EXPECT_EQ(file.record_count, 4);
  EXPECT_EQ(file.referenced_data_file, target);
  EXPECT_EQ(file.file_size_in_bytes, static_cast<int64_t>(fs::file_size(dir.File("d.parquet"))));
  // file_path bounds are whole (longer than 16 characters), pos bounds LE.
  EXPECT_EQ(file.lower_bounds.at(kDeleteFilePathFieldId), target);
  EXPECT_EQ(file.upper_bounds.at(kDeleteFilePathFieldId), target);
  EXPECT_EQ(file.lower_bounds.at(kDeletePosFieldId), Le64(0));
  EXPECT_EQ(file.upper_bounds.at(kDeletePosFieldId), Le64(9));
  EXPECT_EQ(file.sort_order_id, std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto deletes, ReadPositionDeletes(*io, file));
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[target], (std::vector<int64_t>{0, 3, 7, 9}));
}

TEST(PositionDeleteWriterTest, SeveralDataFilesLeaveReferenceUnset) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto writer, PositionDeleteWriter::Open(*io, dir.File("d.parquet"), {}, {}));
  ASSERT_OK(writer->Delete("b.parquet", 1));
  ASSERT_OK(writer->Delete("a.parquet", 5));
  ASSERT_OK(writer->Delete("a.parquet", 2));
  ASSERT_OK_AND_ASSIGN(DataFile file, writer->Close());
  EXPECT_EQ(file.referenced_data_file, std::nullopt);
  EXPECT_EQ(file.lower_bounds.at(kDeleteFilePathFieldId), "a.parquet");
  EXPECT_EQ(file.upper_bounds.at(kDeleteFilePathFieldId), "b.parquet");
  ASSERT_OK_AND_ASSIGN(auto deletes, ReadPositionDeletes(*io, file));
  EXPECT_EQ(deletes["a.parquet"], (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(deletes["b.parquet"], (std::vector<int64_t>{1}));
  ASSERT_OK_AND_ASSIGN(auto empty, PositionDeleteWriter::Open(*io, dir.File("e.parquet"), {}, {}));
  EXPECT_EQ(empty->Close().status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_FALSE(fs::exists(dir.File("e.parquet")));
}

// A deletion vector reads through ReadPositionDeletes like a position delete
// file: one entry, its referenced data file.
TEST(DeletionVectorTest, ReadPositionDeletesReadsADeletionVector) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto writer, DeletionVectorWriter::Open(*io, dir.File("dv.puffin")));
  ASSERT_OK(writer->Add("s3://b/data/a.parquet", {4, 2, 9}, {}, 0));
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto a, ReadPositionDeletes(*io, files[0]));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a["s3://b/data/a.parquet"], (std::vector<int64_t>{2, 4, 9}));
  DataFile no_reference = files[0];
  no_reference.referenced_data_file.reset();
  EXPECT_EQ(ReadPositionDeletes(*io, no_reference).status().kind(), ErrorKind::kCorruption);
}

TEST(EqualityDeletesTest, ReadsRowsProjectedOnEqualityIds) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  Schema table;
  table.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                  MakeNestedField(2, "name", PrimitiveType(TypeKind::kString)),
                  MakeNestedField(3, "x", PrimitiveType(TypeKind::kInt))};
  Schema delete_schema;
  delete_schema.fields = {table.fields[1], table.fields[0]};
  ASSERT_OK_AND_ASSIGN(auto writer, DataFileWriter::Open(*io, dir.File("eq.parquet"), delete_schema, {}, {}));
  RecordBatch batch;
  batch.schema = *ToFloeSchema(delete_schema);
  batch.num_rows = 2;
  batch.columns = {MakeEmptyColumn(batch.schema[0].type), MakeEmptyColumn(batch.schema[1].type)};
  batch.columns[0].AppendBytes("bob");
  batch.columns[0].AppendNull();
  batch.columns[1].AppendValue<int64_t>(7);
  batch.columns[1].AppendValue<int64_t>(8);
  ASSERT_OK(writer->Write(batch));
  ASSERT_OK_AND_ASSIGN(DataFile file, writer->Close());
  file.content = DataFileContent::kEqualityDeletes;
  file.equality_ids = {1, 2};
  ASSERT_OK_AND_ASSIGN(RecordBatch rows, ReadEqualityDeletes(*io, file, table));
  ASSERT_EQ(rows.num_rows, 2);
  ASSERT_EQ(rows.schema.size(), 2u);
  EXPECT_EQ(rows.schema[0].field_id, 1);
  EXPECT_EQ(rows.columns[0].Value<int64_t>(1), 8);
  EXPECT_EQ(rows.columns[1].StringAt(0), "bob");
  EXPECT_TRUE(rows.columns[1].IsNull(1));
  file.equality_ids = {3};
  EXPECT_EQ(ReadEqualityDeletes(*io, file, table).status().kind(), ErrorKind::kCorruption);
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string Localize(const fs::path& table, const std::string& uri) {
  for (const char* marker : {"/data/", "/metadata/"}) {
    const size_t at = uri.rfind(marker);
    if (at != std::string::npos) return table.string() + uri.substr(at);
  }
  return uri;
}

// The delete files of the fixtures' current snapshots hold as many deletes as
// the snapshot summaries report.
TEST(FixtureDeleteFilesTest, JavaAndSparkDeleteFilesMatchSummaries) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  for (const char* name : {"java/bunnies", "spark/bunnies"}) {
    SCOPED_TRACE(name);
    const fs::path table = shared / "fixtures/iceberg/icebird" / name;
    const std::string version = ReadText(table / "metadata/version-hint.text").substr(0, 1);
    const fs::path metadata_path = table / "metadata" / ("v" + version + ".metadata.json");
    ASSERT_OK_AND_ASSIGN(TableMetadata metadata, TableMetadataFromJson(ReadText(metadata_path), name));
    const Snapshot* snapshot = metadata.CurrentSnapshot();
    ASSERT_NE(snapshot, nullptr);
    auto io = MakeLocalFileIO();
    ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(*io, Localize(table, snapshot->manifest_list)));
    int64_t position_deletes = 0, equality_deletes = 0;
    for (ManifestFile manifest : manifests) {
      if (manifest.content != ManifestContent::kDeletes) continue;
      manifest.manifest_path = Localize(table, manifest.manifest_path);
      ASSERT_OK_AND_ASSIGN(Type partition_type,
                           metadata.DefaultSpec()->PartitionType(*metadata.CurrentSchema()));
      ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io, manifest, partition_type));
      for (ManifestEntry& entry : entries) {
        if (entry.status == ManifestEntryStatus::kDeleted) continue;
        DataFile file = entry.data_file;
        file.file_path = Localize(table, file.file_path);
        if (file.content == DataFileContent::kPositionDeletes) {
          ASSERT_OK_AND_ASSIGN(auto deletes, ReadPositionDeletes(*io, file));
          for (const auto& [path, positions] : deletes) {
            EXPECT_NE(path.find("/data/"), std::string::npos);
            position_deletes += static_cast<int64_t>(positions.size());
          }
        } else {
          ASSERT_OK_AND_ASSIGN(RecordBatch rows, ReadEqualityDeletes(*io, file, *metadata.CurrentSchema()));
          EXPECT_EQ(rows.num_rows, file.record_count);
          EXPECT_EQ(rows.schema.size(), file.equality_ids.size());
          equality_deletes += rows.num_rows;
        }
      }
    }
    EXPECT_EQ(position_deletes, std::stoll(snapshot->summary.at("total-position-deletes")));
    EXPECT_EQ(equality_deletes, std::stoll(snapshot->summary.at("total-equality-deletes")));
  }
}

}  // namespace
}  // namespace floe::iceberg
