// ParquetFileReader on small files built in memory: a good file reads back,
// and broken ones fail with errors that name the file (and column).
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstring>

#include "compression/codec.h"
#include "formats/parquet/file_reader.h"
#include "io/memory_file.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

constexpr char kPath[] = "mem://tiny.parquet";

struct TinyFile {
  std::vector<uint8_t> bytes;
  size_t chunk_start = 0;
  size_t chunk_size = 0;
};

// One required INT32 column "x" holding 1, 2, 3 in one PLAIN data page.
TinyFile BuildTinyFile(std::optional<int32_t> crc = std::nullopt, int64_t chunk_size_delta = 0) {
  std::vector<uint8_t> page_data;
  for (int32_t v : {1, 2, 3}) {
    uint8_t le[4];
    std::memcpy(le, &v, 4);
    page_data.insert(page_data.end(), le, le + 4);
  }
  PageHeader header;
  header.type = PageType::DATA_PAGE;
  header.uncompressed_page_size = static_cast<int32_t>(page_data.size());
  header.compressed_page_size = static_cast<int32_t>(page_data.size());
  header.crc = crc;
  header.data_page_header = DataPageHeader{};
  header.data_page_header->num_values = 3;
  TinyFile file;
  file.bytes = {'P', 'A', 'R', '1'};
  file.chunk_start = file.bytes.size();
  SerializePageHeader(header, &file.bytes);
  file.bytes.insert(file.bytes.end(), page_data.begin(), page_data.end());
  file.chunk_size = file.bytes.size() - file.chunk_start;

  FileMetaData meta;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement x;
  x.name = "x";
  x.type = Type::INT32;
  x.repetition_type = FieldRepetitionType::REQUIRED;
  meta.schema = {root, x};
  meta.num_rows = 3;
  ColumnChunk chunk;
  chunk.meta_data = ColumnMetaData{};
  chunk.meta_data->type = Type::INT32;
  chunk.meta_data->encodings = {Encoding::PLAIN};
  chunk.meta_data->path_in_schema = {"x"};
  chunk.meta_data->num_values = 3;
  chunk.meta_data->total_compressed_size = static_cast<int64_t>(file.chunk_size) + chunk_size_delta;
  chunk.meta_data->total_uncompressed_size = static_cast<int64_t>(file.chunk_size);
  chunk.meta_data->data_page_offset = static_cast<int64_t>(file.chunk_start);
  RowGroup row_group;
  row_group.columns = {chunk};
  row_group.num_rows = 3;
  meta.row_groups = {row_group};
  std::vector<uint8_t> footer;
  SerializeFileMetaData(meta, &footer);
  file.bytes.insert(file.bytes.end(), footer.begin(), footer.end());
  const uint32_t length = static_cast<uint32_t>(footer.size());
  uint8_t le[4];
  std::memcpy(le, &length, 4);
  file.bytes.insert(file.bytes.end(), le, le + 4);
  for (char c : std::string("PAR1")) file.bytes.push_back(static_cast<uint8_t>(c));
  return file;
}

Result<std::unique_ptr<ParquetFileReader>> OpenBytes(std::vector<uint8_t> bytes) {
  return ParquetFileReader::Open(std::make_shared<MemoryInputFile>(kPath, std::move(bytes)));
}

void ExpectErrorNaming(const Status& status, ErrorKind kind, const std::string& fragment) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), kind) << status.ToString();
  EXPECT_NE(status.message().find(kPath), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.message();
}

TEST(ParquetReaderErrorsTest, TinyFileReadsBack) {
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(BuildTinyFile().bytes));
  ASSERT_EQ(reader->num_row_groups(), 1);
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->ReadRowGroup(0));
  ASSERT_EQ(batch.num_rows, 3);
  EXPECT_EQ(batch.columns[0].Value<int32_t>(2), 3);
  EXPECT_EQ(batch.columns[0].Validate(), "");
}

TEST(ParquetReaderErrorsTest, WrongMagic) {
  std::vector<uint8_t> bytes = BuildTinyFile().bytes;
  bytes[0] = 'X';
  ExpectErrorNaming(OpenBytes(bytes).status(), ErrorKind::kCorruption, "magic");
  bytes = BuildTinyFile().bytes;
  bytes.back() = 'X';
  ExpectErrorNaming(OpenBytes(bytes).status(), ErrorKind::kCorruption, "magic");
  bytes = BuildTinyFile().bytes;
  std::memcpy(bytes.data() + bytes.size() - 4, "PARE", 4);
  ExpectErrorNaming(OpenBytes(bytes).status(), ErrorKind::kNotSupported,
                    "not supported: Parquet modular encryption");
  ExpectErrorNaming(OpenBytes({'P', 'A', 'R', '1'}).status(), ErrorKind::kCorruption, "too small");
}

TEST(ParquetReaderErrorsTest, FooterLengthLargerThanFile) {
  std::vector<uint8_t> bytes = BuildTinyFile().bytes;
  const uint32_t huge = 0x7FFFFFF0;
  std::memcpy(bytes.data() + bytes.size() - 8, &huge, 4);
  ExpectErrorNaming(OpenBytes(bytes).status(), ErrorKind::kCorruption, "footer length");
}

TEST(ParquetReaderErrorsTest, TruncatedColumnChunkNamesColumnAndRowGroup) {
  // The chunk claims more bytes than the file has.
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(BuildTinyFile(std::nullopt, 1 << 20).bytes));
  auto batch = reader->ReadRowGroup(0);
  ExpectErrorNaming(batch.status(), ErrorKind::kCorruption, "column x");
  EXPECT_NE(batch.status().message().find("row group 0"), std::string::npos);

  // The chunk is shorter than its page.
  ASSERT_OK_AND_ASSIGN(reader, OpenBytes(BuildTinyFile(std::nullopt, -4).bytes));
  ExpectErrorNaming(reader->ReadRowGroup(0).status(), ErrorKind::kCorruption, "column x");
}

TEST(ParquetReaderErrorsTest, PageCrcIsVerified) {
  const TinyFile plain = BuildTinyFile();
  const size_t page_bytes = 12;
  const std::span<const uint8_t> data(plain.bytes.data() + plain.chunk_start + plain.chunk_size - page_bytes,
                                      page_bytes);
  const int32_t good = static_cast<int32_t>(Crc32(data));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenBytes(BuildTinyFile(good).bytes));
  EXPECT_OK(reader->ReadRowGroup(0).status());
  ASSERT_OK_AND_ASSIGN(reader, OpenBytes(BuildTinyFile(good ^ 1).bytes));
  ExpectErrorNaming(reader->ReadRowGroup(0).status(), ErrorKind::kCorruption, "page CRC mismatch");
}

// The footer of the tiny file with its row group repeated `copies` times (all
// pointing at the same column chunk, as a hostile file would).
std::vector<uint8_t> DuplicatedRowGroups(int copies) {
  TinyFile tiny = BuildTinyFile();
  uint32_t length = 0;
  std::memcpy(&length, tiny.bytes.data() + tiny.bytes.size() - 8, 4);
  const size_t footer_start = tiny.bytes.size() - 8 - length;
  FileMetaData meta;
  EXPECT_TRUE(DeserializeFileMetaData({tiny.bytes.data() + footer_start, length}, &meta).ok());
  const RowGroup one = meta.row_groups[0];
  meta.row_groups.assign(static_cast<size_t>(copies), one);
  meta.num_rows = 3 * copies;
  std::vector<uint8_t> bytes(tiny.bytes.begin(),
                             tiny.bytes.begin() + static_cast<std::ptrdiff_t>(footer_start));
  std::vector<uint8_t> footer;
  SerializeFileMetaData(meta, &footer);
  bytes.insert(bytes.end(), footer.begin(), footer.end());
  length = static_cast<uint32_t>(footer.size());
  uint8_t le[4];
  std::memcpy(le, &length, 4);
  bytes.insert(bytes.end(), le, le + 4);
  for (char c : std::string("PAR1")) bytes.push_back(static_cast<uint8_t>(c));
  return bytes;
}

TEST(ParquetReaderErrorsTest, FooterLargerThanTheLimitIsRefusedBeforeItIsRead) {
  std::vector<uint8_t> bytes = DuplicatedRowGroups(100000);
  const int64_t footer_bytes = static_cast<int64_t>(bytes.size()) - 8 - 4 - 3 * 4;
  ReaderLimits limits;
  limits.max_footer_bytes = 1 << 20;
  auto refused = ParquetFileReader::Open(std::make_shared<MemoryInputFile>(kPath, bytes), limits);
  ExpectErrorNaming(refused.status(), ErrorKind::kOutOfRange, "larger than the limit of 1048576 bytes");
  // Within the limit the file opens, and its parsed metadata stays within kFooterMemoryFactor of its size.
  limits.max_footer_bytes = int64_t{64} << 20;
  const size_t before = mallinfo2().uordblks;
  auto opened = ParquetFileReader::Open(std::make_shared<MemoryInputFile>(kPath, bytes), limits);
  ASSERT_OK(opened.status());
  const size_t held = mallinfo2().uordblks - before - bytes.size();
  EXPECT_EQ((*opened)->num_row_groups(), 100000);
  EXPECT_LT(static_cast<int64_t>(held), kFooterMemoryFactor * footer_bytes)
      << held << " bytes held for a footer of about " << footer_bytes;
}

}  // namespace
}  // namespace floe::parquet
