// Projection of Parquet files onto a read schema: ids, promotion, missing
// columns, defaults, name mapping; and the prefix-mapping FileIO.
#include "iceberg/scan/projection.h"

#include <gtest/gtest.h>

#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "io/prefix_mapping_file_io.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

// Writes one row group of `batch` to `path` with the batch's schema as is.
void WriteParquet(FileIO& io, const std::string& path, const RecordBatch& batch) {
  auto out = io.Create(path);
  ASSERT_OK(out.status());
  auto writer = parquet::ParquetFileWriter::Open(std::move(*out), batch.schema, {});
  ASSERT_OK(writer.status());
  ASSERT_OK((*writer)->Write(batch));
  ASSERT_OK((*writer)->Close().status());
}

Result<RecordBatch> ReadProjected(FileIO& io, const std::string& path, const std::vector<NestedField>& read,
                                  const std::string& mapping_json = "", const Schema* by_names = nullptr) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(file))));
  floe::Schema file_schema = reader->schema();
  if (!mapping_json.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto mapping, ParseNameMapping(mapping_json));
    ApplyNameMapping(mapping, &file_schema);
  } else if (by_names != nullptr) {
    AssignIdsByName(*by_names, &file_schema);
  }
  FLOE_ASSIGN_OR_RETURN(FileProjection projection, FileProjection::Make(file_schema, read));
  FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(0, projection.file_columns()));
  return projection.Project(std::move(batch));
}

RecordBatch OldFile() {
  RecordBatch batch;
  Column small(Int32()), weight(Float32()), price(Decimal(5, 2)), name(String());
  small.AppendValue<int32_t>(-7);
  small.AppendNull();
  weight.AppendValue<float>(1.5f);
  weight.AppendValue<float>(-2.25f);
  price.AppendValue<__int128>(12345);
  price.AppendValue<__int128>(-1);
  name.AppendBytes("a");
  name.AppendBytes("b");
  batch.schema = {MakeField("small", Int32(), true, 1), MakeField("weight", Float32(), true, 2),
                  MakeField("price", Decimal(5, 2), true, 3), MakeField("old_name", String(), true, 4)};
  batch.columns = {small, weight, price, name};
  batch.num_rows = 2;
  return batch;
}

TEST(ProjectionTest, PromotesRenamesAndFillsMissingColumns) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  WriteParquet(*io, dir.File("old.parquet"), OldFile());
  NestedField with_default = MakeNestedField(6, "level", PrimitiveType(TypeKind::kInt), true);
  with_default.initial_default = Json(42);
  const std::vector<NestedField> read = {
      MakeNestedField(4, "new_name", PrimitiveType(TypeKind::kString)),  // renamed: found by id
      MakeNestedField(1, "big", PrimitiveType(TypeKind::kLong)),
      MakeNestedField(2, "weight", PrimitiveType(TypeKind::kDouble)),
      MakeNestedField(3, "price", DecimalType(10, 2)),
      MakeNestedField(5, "added", PrimitiveType(TypeKind::kString)),
      with_default};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, ReadProjected(*io, dir.File("old.parquet"), read));
  ASSERT_EQ(batch.num_rows, 2);
  ASSERT_EQ(batch.columns.size(), 6u);
  EXPECT_EQ(batch.schema[0].name, "new_name");
  EXPECT_EQ(batch.columns[0].StringAt(1), "b");
  EXPECT_EQ(batch.columns[1].type, Int64());
  EXPECT_EQ(batch.columns[1].Value<int64_t>(0), -7);
  EXPECT_TRUE(batch.columns[1].IsNull(1));
  EXPECT_EQ(batch.columns[2].type, Float64());
  EXPECT_EQ(batch.columns[2].Value<double>(1), -2.25);
  EXPECT_EQ(batch.columns[3].type, Decimal(10, 2));
  EXPECT_EQ(batch.columns[3].Value<__int128>(0), 12345);
  EXPECT_EQ(batch.columns[4].null_count, 2);
  EXPECT_TRUE(batch.columns[4].IsNull(0));
  EXPECT_EQ(batch.columns[5].Value<int32_t>(1), 42);
  for (const Column& column : batch.columns) EXPECT_EQ(column.Validate(), "") << column.type.ToString();
}

TEST(ProjectionTest, RejectsImpossibleReadsAndMissingRequired) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  WriteParquet(*io, dir.File("old.parquet"), OldFile());
  auto narrowing = ReadProjected(*io, dir.File("old.parquet"), {MakeNestedField(3, "p", DecimalType(4, 2))});
  EXPECT_EQ(narrowing.status().kind(), ErrorKind::kSchemaMismatch);
  auto string_as_int =
      ReadProjected(*io, dir.File("old.parquet"), {MakeNestedField(4, "n", PrimitiveType(TypeKind::kInt))});
  EXPECT_EQ(string_as_int.status().kind(), ErrorKind::kSchemaMismatch);
  EXPECT_NE(string_as_int.status().message().find("'n'"), std::string::npos);
  auto required = ReadProjected(*io, dir.File("old.parquet"),
                                {MakeNestedField(9, "must", PrimitiveType(TypeKind::kInt), true)});
  EXPECT_EQ(required.status().kind(), ErrorKind::kSchemaMismatch);
}

TEST(ProjectionTest, NameMappingAndNameFallbackForFilesWithoutIds) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  RecordBatch batch = OldFile();
  for (Field& field : batch.schema) field.field_id.reset();
  WriteParquet(*io, dir.File("noids.parquet"), batch);
  const std::vector<NestedField> read = {MakeNestedField(10, "name", PrimitiveType(TypeKind::kString)),
                                         MakeNestedField(11, "small", PrimitiveType(TypeKind::kInt))};
  // Without a mapping nothing has ids: every column reads as null.
  ASSERT_OK_AND_ASSIGN(RecordBatch unmapped, ReadProjected(*io, dir.File("noids.parquet"), read));
  EXPECT_EQ(unmapped.columns[0].null_count, 2);
  const std::string mapping =
      R"([{"field-id": 10, "names": ["name", "old_name"]}, {"field-id": 11, "names": ["small"]}, {"names": ["weight"]}])";
  ASSERT_OK_AND_ASSIGN(RecordBatch mapped, ReadProjected(*io, dir.File("noids.parquet"), read, mapping));
  EXPECT_EQ(mapped.columns[0].StringAt(0), "a");
  EXPECT_EQ(mapped.columns[1].Value<int32_t>(0), -7);
  Schema table;
  table.fields = read;
  table.fields[0].name = "old_name";
  ASSERT_OK_AND_ASSIGN(RecordBatch by_name, ReadProjected(*io, dir.File("noids.parquet"), read, "", &table));
  EXPECT_EQ(by_name.columns[0].StringAt(1), "b");
  EXPECT_EQ(ParseNameMapping("{}").status().kind(), ErrorKind::kCorruption);
  EXPECT_EQ(ParseNameMapping(R"([{"field-id": "x"}])").status().kind(), ErrorKind::kCorruption);
}

TEST(PrefixMappingFileIOTest, RewritesLongestMatchingPrefixOnPathBoundaries) {
  testing::TempDir dir;
  auto base = MakeLocalFileIO();
  ASSERT_OK(base->WriteAll(dir.File("t/data/f.txt"), std::string("hello")));
  PrefixMappingFileIO io(base, {{"s3://bucket", "/nowhere"}, {"s3://bucket/t", dir.File("t")}});
  EXPECT_EQ(io.MapPath("s3://bucket/t/data/f.txt"), dir.File("t") + "/data/f.txt");
  EXPECT_EQ(io.MapPath("s3://bucket/tx/f"), "/nowhere/tx/f");  // "t" is not a prefix of "tx"
  EXPECT_EQ(io.MapPath("s3://other/f"), "s3://other/f");
  ASSERT_OK_AND_ASSIGN(auto bytes, io.ReadAll("s3://bucket/t/data/f.txt"));
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "hello");
  ASSERT_OK_AND_ASSIGN(bool exists, io.Exists("s3://bucket/t/data/f.txt"));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(auto listed, io.List("s3://bucket/t"));
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].path, "s3://bucket/t/data/f.txt");
  PrefixMappingFileIO slash(base, {{"s3://bucket/t/", dir.File("t") + "/"}});
  EXPECT_EQ(slash.MapPath("s3://bucket/t/data/f.txt"), dir.File("t") + "/data/f.txt");
  EXPECT_EQ(ParsePrefixMapping("a=b=c")->to, "b=c");
  EXPECT_EQ(ParsePrefixMapping("=b").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParsePrefixMapping("a").status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::iceberg
