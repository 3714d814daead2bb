// Puffin files and deletion vectors: the blob layout, Puffin round trip,
// and corrupt blobs and footers (Corruption, never a crash).
#include "iceberg/puffin/deletion_vector.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "iceberg/puffin/puffin.h"
#include "io/memory_file.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

TEST(DeletionVectorTest, SerializesThePortableLayout) {
  ASSERT_OK_AND_ASSIGN(std::string blob, SerializeDeletionVector({5, 1, (int64_t{1} << 32) + 7, 1}));
  // Length prefix (big-endian) counts magic + vector; CRC trails.
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  const uint32_t length = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  EXPECT_EQ(length, blob.size() - 8);
  EXPECT_EQ(blob.substr(4, 4), "\xD1\xD3\x39\x64");
  EXPECT_EQ(blob.substr(8, 8), std::string("\x02\0\0\0\0\0\0\0", 8));  // two 32-bit bitmaps
  EXPECT_EQ(blob.substr(16, 4), std::string("\0\0\0\0", 4));           // first key 0
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> positions, DeserializeDeletionVector(blob));
  EXPECT_EQ(positions, (std::vector<int64_t>{1, 5, (int64_t{1} << 32) + 7}));
  // Dense ranges use run containers and stay small.
  std::vector<int64_t> dense(100000);
  for (size_t i = 0; i < dense.size(); ++i) dense[i] = static_cast<int64_t>(i);
  ASSERT_OK_AND_ASSIGN(std::string dense_blob, SerializeDeletionVector(dense));
  EXPECT_LT(dense_blob.size(), 100u);
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> dense_back, DeserializeDeletionVector(dense_blob));
  EXPECT_EQ(dense_back, dense);
  EXPECT_EQ(SerializeDeletionVector({-1}).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(DeletionVectorTest, CorruptBlobsAreCorruption) {
  ASSERT_OK_AND_ASSIGN(std::string blob, SerializeDeletionVector({1, 2, 3, 1000}));
  auto expect_corrupt = [](const std::string& bytes, const std::string& fragment) {
    auto result = DeserializeDeletionVector(bytes);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(result.status().message().find(fragment), std::string::npos) << result.status().message();
  };
  std::string flipped = blob;
  flipped[20] ^= 0x01;
  expect_corrupt(flipped, "CRC");
  std::string bad_magic = blob;
  bad_magic[4] = 0;
  expect_corrupt(bad_magic, "magic");
  expect_corrupt(blob.substr(0, blob.size() - 1), "length prefix");
  expect_corrupt(blob.substr(0, 10), "too short");
  // Every bit flip is rejected (CRC or structure), never a crash.
  for (size_t i = 0; i < blob.size(); ++i) {
    std::string mutated = blob;
    mutated[i] ^= 0x40;
    EXPECT_FALSE(DeserializeDeletionVector(mutated).ok()) << "byte " << i;
  }
  // A well-formed vector above the caller's limit is refused before decoding.
  std::vector<int64_t> many(5000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i);
  ASSERT_OK_AND_ASSIGN(std::string big, SerializeDeletionVector(many));
  EXPECT_EQ(DeserializeDeletionVector(big, 10).status().kind(), ErrorKind::kCorruption);
}

TEST(DeletionVectorTest, PuffinFileRoundTrip) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const std::string path = dir.File("dv.puffin");
  ASSERT_OK_AND_ASSIGN(auto writer, DeletionVectorWriter::Open(*io, path));
  ASSERT_OK(writer->Add("s3://b/data/a.parquet", {4, 2, 9}, {}, 0));
  ASSERT_OK(writer->Add("s3://b/data/b.parquet", {0}, {}, 0));
  EXPECT_EQ(writer->Add("s3://b/data/a.parquet", {1}, {}, 0).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files, writer->Close());
  ASSERT_EQ(files.size(), 2u);
  const int64_t size = static_cast<int64_t>(fs::file_size(path));
  for (const DataFile& f : files) {
    EXPECT_EQ(f.file_path, path);
    EXPECT_EQ(f.file_format, "PUFFIN");
    EXPECT_EQ(f.content, DataFileContent::kPositionDeletes);
    EXPECT_EQ(f.file_size_in_bytes, size);
  }
  EXPECT_EQ(files[0].content_offset, 4);
  EXPECT_EQ(files[0].record_count, 3);
  EXPECT_EQ(files[1].content_offset, 4 + *files[0].content_size_in_bytes);

  ASSERT_OK_AND_ASSIGN(auto input, io->OpenRead(path));
  ASSERT_OK_AND_ASSIGN(PuffinFooter footer, ReadPuffinFooter(*input));
  ASSERT_EQ(footer.blobs.size(), 2u);
  EXPECT_EQ(footer.blobs[0].type, "deletion-vector-v1");
  EXPECT_EQ(footer.blobs[0].snapshot_id, -1);
  EXPECT_EQ(footer.blobs[0].sequence_number, -1);
  EXPECT_EQ(footer.blobs[0].offset, *files[0].content_offset);
  EXPECT_EQ(footer.blobs[0].length, *files[0].content_size_in_bytes);
  EXPECT_EQ(footer.blobs[0].properties.at("referenced-data-file"), "s3://b/data/a.parquet");
  EXPECT_EQ(footer.blobs[0].properties.at("cardinality"), "3");
  EXPECT_TRUE(footer.properties.contains("created-by"));

  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> a, ReadDeletionVector(*io, files[0]));
  EXPECT_EQ(a, (std::vector<int64_t>{2, 4, 9}));
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> b, ReadDeletionVector(*io, files[1]));
  EXPECT_EQ(b, (std::vector<int64_t>{0}));
  // Entry and blob disagreeing on cardinality, or pointing outside the file.
  DataFile wrong_count = files[0];
  wrong_count.record_count = 4;
  EXPECT_EQ(ReadDeletionVector(*io, wrong_count).status().kind(), ErrorKind::kCorruption);
  DataFile outside = files[0];
  outside.content_offset = size - 2;
  EXPECT_EQ(ReadDeletionVector(*io, outside).status().kind(), ErrorKind::kCorruption);
}

TEST(DeletionVectorTest, CorruptPuffinFootersAreCorruption) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto writer, DeletionVectorWriter::Open(*io, dir.File("dv.puffin")));
  ASSERT_OK(writer->Add("a", {1}, {}, 0));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, io->ReadAll(dir.File("dv.puffin")));
  auto footer_of = [](std::vector<uint8_t> data) {
    MemoryInputFile file("x.puffin", std::move(data));
    return ReadPuffinFooter(file);
  };
  ASSERT_OK(footer_of(bytes));
  auto bad_tail = bytes;
  bad_tail.back() = 'X';
  EXPECT_EQ(footer_of(bad_tail).status().kind(), ErrorKind::kCorruption);
  auto huge_size = bytes;
  huge_size[huge_size.size() - 12] = 0xFF;
  huge_size[huge_size.size() - 9] = 0x7F;
  EXPECT_EQ(footer_of(huge_size).status().kind(), ErrorKind::kCorruption);
  auto compressed = bytes;
  compressed[compressed.size() - 8] = 1;
  EXPECT_EQ(footer_of(compressed).status().kind(), ErrorKind::kNotSupported);
  EXPECT_EQ(footer_of({'P', 'F', 'A', '1'}).status().kind(), ErrorKind::kCorruption);
  // Truncate everywhere: an error, never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(footer_of(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n))).ok())
        << n;
  }
}

}  // namespace
}  // namespace floe::iceberg
