#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "formats/avro/container_reader.h"
#include "formats/avro/container_writer.h"
#include "formats/avro/encoder.h"
#include "iceberg_schemas.h"
#include "io/file_io.h"
#include "test_util.h"

namespace floe::avro {
namespace {

constexpr SyncMarker kSync = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

const char* kSchema =
    R"({"type":"record","name":"row","fields":[{"name":"id","type":"long","field-id":1},)"
    R"({"name":"name","type":["null","string"],"default":null,"field-id":2},)"
    R"({"name":"tags","type":{"type":"array","items":"int","element-id":4},"field-id":3}]})";

std::vector<AvroValue> Rows(int n) {
  std::vector<AvroValue> rows;
  for (int i = 0; i < n; ++i) {
    std::vector<AvroValue> tags;
    for (int t = 0; t < i % 5; ++t) tags.push_back(AvroValue::Int(t * i));
    rows.push_back(
        AvroValue::Record({AvroValue::Long(int64_t{1} << 40 | i),
                           i % 3 == 0 ? AvroValue::Union(0, AvroValue::Null())
                                      : AvroValue::Union(1, AvroValue::String("name " + std::to_string(i))),
                           AvroValue::Array(std::move(tags))}));
  }
  return rows;
}

// Writes rows to `path`; returns the size Close reported.
int64_t WriteFile(const std::string& path, AvroCodec codec, const std::vector<AvroValue>& rows,
                  int64_t block_bytes = 256) {
  auto io = MakeLocalFileIO();
  auto file = io->Create(path);
  EXPECT_TRUE(file.ok());
  AvroWriteOptions options;
  options.codec = codec;
  options.block_bytes = block_bytes;
  options.sync_marker = kSync;
  auto writer = AvroContainerWriter::Open(std::move(*file), *AvroSchema::Parse(kSchema),
                                          {{"format-version", "2"}, {"content", "data"}}, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& row : rows) EXPECT_OK((*writer)->Append(row));
  auto size = (*writer)->Close();
  EXPECT_TRUE(size.ok()) << size.status().ToString();
  return size.ValueOr(-1);
}

Result<std::vector<AvroValue>> ReadFile(const std::string& path, AvroReadOptions options = {}) {
  auto io = MakeLocalFileIO();
  FLOE_ASSIGN_OR_RETURN(auto file, io->OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, AvroContainerReader::Open(std::move(file), std::move(options)));
  return reader->ReadAll();
}

class AvroContainerCodecTest : public ::testing::TestWithParam<AvroCodec> {};

TEST_P(AvroContainerCodecTest, RoundTripsAcrossManyBlocks) {
  floe::testing::TempDir dir;
  const std::string path = dir.File("rows.avro");
  const auto rows = Rows(500);
  const int64_t size = WriteFile(path, GetParam(), rows);
  EXPECT_EQ(size, static_cast<int64_t>(std::filesystem::file_size(path)));

  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto file, io->OpenRead(path));
  ASSERT_OK_AND_ASSIGN(auto reader, AvroContainerReader::Open(std::move(file)));
  EXPECT_EQ(reader->codec(), GetParam());
  EXPECT_EQ(reader->Metadata("format-version"), "2");
  EXPECT_EQ(reader->Metadata("content"), "data");
  EXPECT_EQ(reader->Metadata("avro.codec"), AvroCodecName(GetParam()));
  EXPECT_EQ(reader->writer_schema().ToJson(), kSchema);
  EXPECT_EQ(reader->sync_marker(), kSync);
  ASSERT_OK_AND_ASSIGN(auto back, reader->ReadAll());
  EXPECT_GT(reader->blocks_read(), 10);
  ASSERT_EQ(back.size(), rows.size());
  EXPECT_TRUE(back == rows);
}

INSTANTIATE_TEST_SUITE_P(Codecs, AvroContainerCodecTest,
                         ::testing::Values(AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy,
                                           AvroCodec::kZstandard),
                         [](const auto& info) { return std::string(AvroCodecName(info.param)); });

TEST(AvroContainerTest, EmptyFileHasNoRecords) {
  floe::testing::TempDir dir;
  WriteFile(dir.File("empty.avro"), AvroCodec::kDeflate, {});
  ASSERT_OK_AND_ASSIGN(auto rows, ReadFile(dir.File("empty.avro")));
  EXPECT_TRUE(rows.empty());
}

TEST(AvroContainerTest, ReaderSchemaProjectsByFieldId) {
  floe::testing::TempDir dir;
  WriteFile(dir.File("rows.avro"), AvroCodec::kNull, Rows(3));
  AvroReadOptions options;
  options.reader_schema = *AvroSchema::Parse(
      R"({"type":"record","name":"projected","fields":[{"name":"label","type":["null","string"],"field-id":2},)"
      R"({"name":"extra","type":["null","int"],"field-id":9}]})");
  ASSERT_OK_AND_ASSIGN(auto rows, ReadFile(dir.File("rows.avro"), options));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], AvroValue::Record({AvroValue::Union(1, AvroValue::String("name 1")),
                                        AvroValue::Union(0, AvroValue::Null())}));
}

TEST(AvroContainerTest, WriterRejectsBadInput) {
  floe::testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto file, io->Create(dir.File("x.avro")));
  auto bad_meta =
      AvroContainerWriter::Open(std::move(file), *AvroSchema::Parse(kSchema), {{"avro.codec", "x"}});
  EXPECT_EQ(bad_meta.status().kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto file2, io->Create(dir.File("y.avro")));
  ASSERT_OK_AND_ASSIGN(auto writer,
                       AvroContainerWriter::Open(std::move(file2), *AvroSchema::Parse(kSchema), {}));
  Status st = writer->Append(
      AvroValue::Record({AvroValue::String("not a long"), AvroValue::Null(), AvroValue::Array({})}));
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("record 0: id: expected long, got string"), std::string::npos) << st.ToString();
  writer.reset();  // destroyed unclosed: nothing is published
  EXPECT_FALSE(std::filesystem::exists(dir.File("y.avro")));
}

// Byte offsets just after each sync marker occurrence (the first ends the header).
std::vector<size_t> SyncEnds(const std::vector<uint8_t>& bytes) {
  std::vector<size_t> ends;
  auto it = bytes.begin();
  while ((it = std::search(it, bytes.end(), kSync.begin(), kSync.end())) != bytes.end()) {
    it += kSync.size();
    ends.push_back(static_cast<size_t>(it - bytes.begin()));
  }
  return ends;
}

Status ReadBytes(const std::vector<uint8_t>& bytes) {
  FLOE_ASSIGN_OR_RETURN(auto reader, AvroContainerReader::OpenBuffer(bytes, "m0.avro"));
  return reader->ReadAll().status();
}

void ExpectCorrupt(const std::vector<uint8_t>& bytes, const std::string& needle,
                   ErrorKind kind = ErrorKind::kCorruption) {
  Status st = ReadBytes(bytes);
  ASSERT_FALSE(st.ok()) << needle;
  EXPECT_EQ(st.kind(), kind) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().rfind("m0.avro", 0), 0u) << st.ToString();
}

std::vector<uint8_t> GoodFile(AvroCodec codec) {
  floe::testing::TempDir dir;
  WriteFile(dir.File("f.avro"), codec, Rows(40), 128);
  auto bytes = MakeLocalFileIO()->ReadAll(dir.File("f.avro"));
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

TEST(AvroContainerTest, CorruptFilesAreRejectedWithMessages) {
  const auto good = GoodFile(AvroCodec::kNull);
  ASSERT_OK(ReadBytes(good));
  const auto ends = SyncEnds(good);
  ASSERT_GE(ends.size(), 4u);

  auto bad_magic = good;
  bad_magic[3] = 2;
  ExpectCorrupt(bad_magic, "bad magic");
  ExpectCorrupt({}, "bad magic");

  auto bad_sync = good;
  bad_sync[ends[2] - 1] ^= 0xff;  // the sync after block 2
  ExpectCorrupt(bad_sync, "block 2 at offset " + std::to_string(ends[1]) + ": sync marker mismatch");
  {
    // Records of block 1 come out, then the error, which repeats on later calls.
    ASSERT_OK_AND_ASSIGN(auto reader, AvroContainerReader::OpenBuffer(bad_sync, "m0.avro"));
    AvroValue record;
    int records = 0;
    Result<bool> more = true;
    while ((more = reader->Next(&record)).ok() && *more) ++records;
    EXPECT_GT(records, 0);
    EXPECT_EQ(more.status().kind(), ErrorKind::kCorruption);
    EXPECT_EQ(reader->Next(&record).status().message(), more.status().message());
  }

  auto truncated = std::vector<uint8_t>(good.begin(), good.begin() + ends[2] + 5);
  ExpectCorrupt(truncated, "block 3");
  auto truncated_header = std::vector<uint8_t>(good.begin(), good.begin() + ends[0] - 3);
  ExpectCorrupt(truncated_header, "header");

  // Block 1's byte size replaced by a huge varint.
  auto huge = std::vector<uint8_t>(good.begin(), good.begin() + ends[0]);
  const std::vector<uint8_t> huge_block = {0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  huge.insert(huge.end(), huge_block.begin(), huge_block.end());
  ExpectCorrupt(huge, "exceeds the limit");
  // A record count larger than the block holds.
  auto over = std::vector<uint8_t>(good.begin(), good.begin() + ends[0]);
  over.push_back(0x7e);  // 63 records
  over.insert(over.end(), good.begin() + ends[0] + 1, good.end());
  ExpectCorrupt(over, "block 1");
  // Negative record count.
  auto negative = std::vector<uint8_t>(good.begin(), good.begin() + ends[0]);
  negative.push_back(0x01);
  negative.insert(negative.end(), good.begin() + ends[0] + 1, good.end());
  ExpectCorrupt(negative, "negative record count");
  // Fewer records than the block holds leaves bytes over.
  auto under = std::vector<uint8_t>(good.begin(), good.begin() + ends[0]);
  under.push_back(good[ends[0]] - 2);
  under.insert(under.end(), good.begin() + ends[0] + 1, good.end());
  ExpectCorrupt(under, "bytes left after its records");
}

TEST(AvroContainerTest, HeaderProblems) {
  std::vector<uint8_t> header(kContainerMagic.begin(), kContainerMagic.end());
  AvroEncoder encoder(&header);
  encoder.WriteLong(2);
  encoder.WriteString("avro.schema");
  encoder.WriteString(R"({"type":"record","name":"r","fields":[{"name":"a","type":"Unknown"}]})");
  encoder.WriteString("avro.codec");
  encoder.WriteString("null");
  encoder.WriteLong(0);
  encoder.WriteRaw(kSync);
  ExpectCorrupt(header, "avro.schema: field 'a': avro schema: unknown type 'Unknown'");

  std::vector<uint8_t> xz(kContainerMagic.begin(), kContainerMagic.end());
  AvroEncoder xz_encoder(&xz);
  xz_encoder.WriteLong(2);
  xz_encoder.WriteString("avro.schema");
  xz_encoder.WriteString(R"("int")");
  xz_encoder.WriteString("avro.codec");
  xz_encoder.WriteString("xz");
  xz_encoder.WriteLong(0);
  xz_encoder.WriteRaw(kSync);
  ExpectCorrupt(xz, "avro codec 'xz' is not supported", ErrorKind::kNotSupported);

  std::vector<uint8_t> no_schema(kContainerMagic.begin(), kContainerMagic.end());
  AvroEncoder(&no_schema).WriteLong(0);
  no_schema.insert(no_schema.end(), kSync.begin(), kSync.end());
  ExpectCorrupt(no_schema, "no avro.schema");

  // A metadata map claiming 2^62 entries.
  std::vector<uint8_t> huge_map(kContainerMagic.begin(), kContainerMagic.end());
  AvroEncoder(&huge_map).WriteLong(int64_t{1} << 62);
  ExpectCorrupt(huge_map, "header");
}

TEST(AvroContainerTest, SnappyCrcIsVerified) {
  const auto good = GoodFile(AvroCodec::kSnappy);
  ASSERT_OK(ReadBytes(good));
  const auto ends = SyncEnds(good);
  auto bad_crc = good;
  bad_crc[ends[1] - kSyncSize - 1] ^= 0x01;  // last CRC byte of block 1
  ExpectCorrupt(bad_crc, "snappy block CRC mismatch");
}

TEST(AvroContainerTest, CorruptCompressedDataIsRejected) {
  for (AvroCodec codec : {AvroCodec::kDeflate, AvroCodec::kZstandard, AvroCodec::kSnappy}) {
    SCOPED_TRACE(AvroCodecName(codec));
    auto bytes = GoodFile(codec);
    const auto ends = SyncEnds(bytes);
    // Scramble the middle of block 1's compressed data.
    for (size_t i = ends[0] + 4; i < ends[1] - kSyncSize - 4; i += 3) bytes[i] ^= 0x5a;
    Status st = ReadBytes(bytes);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find("m0.avro: block 1"), std::string::npos) << st.ToString();
  }
}

TEST(AvroContainerTest, ReadsIcebergFixtures) {
  FLOE_REQUIRE_SHARED_DIR(shared);
  const auto root = shared / "fixtures" / "iceberg";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << "no Iceberg fixtures under " << root;
  AvroReadOptions manifest_list_options;
  manifest_list_options.reader_schema = *AvroSchema::Parse(testing::kManifestFileSchema);
  int manifests = 0, manifest_lists = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".avro") continue;
    SCOPED_TRACE(entry.path().string());
    const bool is_list = entry.path().filename().string().rfind("snap-", 0) == 0;
    ASSERT_OK_AND_ASSIGN(
        auto records, ReadFile(entry.path().string(), is_list ? manifest_list_options : AvroReadOptions{}));
    ASSERT_FALSE(records.empty());
    if (is_list) {
      ++manifest_lists;
      for (const auto& record : records) {
        // Projected by field id: Spark's added_data_files_count lands in added_files_count (504).
        EXPECT_EQ(record.field(0).string().rfind("s3", 0), 0u) << record.field(0).string();
        EXPECT_GT(record.field(1).long_value(), 0);
        EXPECT_GE(record.field(7).int_value() + record.field(8).int_value() + record.field(9).int_value(), 1);
      }
    } else {
      ++manifests;
      for (const auto& record : records) {
        EXPECT_GE(record.field(0).int_value(), 0);
        EXPECT_LE(record.field(0).int_value(), 2);
      }
    }
  }
  EXPECT_GT(manifests, 0);
  EXPECT_GT(manifest_lists, 0);
}

}  // namespace
}  // namespace floe::avro
