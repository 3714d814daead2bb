#include "formats/avro/avro_file_reader.h"

namespace floe::avro {

Result<std::unique_ptr<AvroFileReader>> AvroFileReader::Open(std::shared_ptr<InputFile> file,
                                                             AvroFileReadOptions options) {
  if (options.chunk_rows < 1 || options.chunk_bytes < 1) {
    return Status::InvalidArgument("chunk_rows and chunk_bytes must be positive");
  }
  std::unique_ptr<AvroFileReader> reader(new AvroFileReader());
  reader->file_ = std::move(file);
  reader->options_ = options;
  const std::string& name = reader->file_->path();
  FLOE_ASSIGN_OR_RETURN(const int64_t size, reader->file_->Size());
  FLOE_ASSIGN_OR_RETURN(reader->header_,
                        ReadAvroContainerHeader(*reader->file_, size, options.max_header_bytes));
  auto schema_text = reader->header_.Metadata("avro.schema");
  if (!schema_text) return Status::Corruption(name + ": header has no avro.schema");
  auto schema = AvroSchema::Parse(*schema_text);
  if (!schema.ok()) return schema.status().WithContext(name + ": avro.schema");
  reader->writer_ = std::move(*schema);
  auto codec = ParseAvroCodec(reader->header_.Metadata("avro.codec").value_or("null"));
  if (!codec.ok()) return codec.status().WithContext(name);
  reader->codec_ = *codec;
  auto columnar = AvroToColumnarSchema(reader->writer_);
  if (!columnar.ok()) return columnar.status().WithContext(name);
  reader->columnar_ = std::move(*columnar);

  // The block index: heads only.
  int64_t offset = reader->header_.length;
  Chunk chunk;
  while (offset < size) {
    FLOE_ASSIGN_OR_RETURN(
        AvroBlockHead head,
        ReadAvroBlockHead(*reader->file_, offset, static_cast<int64_t>(reader->blocks_.size()) + 1, size,
                          options.max_block_bytes));
    if (chunk.blocks > 0 && (chunk.rows + head.records > options.chunk_rows ||
                             chunk.bytes + head.data_size > options.chunk_bytes)) {
      reader->chunks_.push_back(chunk);
      chunk = Chunk{reader->blocks_.size(), 0, 0, 0};
    }
    ++chunk.blocks;
    chunk.rows += head.records;
    chunk.bytes += head.data_size;
    reader->rows_ += head.records;
    offset = head.end();
    reader->blocks_.push_back(head);
  }
  if (chunk.blocks > 0) reader->chunks_.push_back(chunk);
  return reader;
}

Result<RecordBatch> AvroFileReader::ReadChunk(int chunk_index, const std::vector<int>& columns) {
  const std::string& name = file_->path();
  if (chunk_index < 0 || chunk_index >= num_chunks()) {
    return Status::InvalidArgument(name + ": chunk " + std::to_string(chunk_index) + " of " +
                                   std::to_string(num_chunks()));
  }
  if (!decoder_ || decoder_columns_ != columns) {
    auto made = AvroColumnarDecoder::Make(writer_, columns);
    if (!made.ok()) return made.status().WithContext(name);
    decoder_ = std::move(*made);
    decoder_columns_ = columns;
  }
  const Chunk& chunk = chunks_[static_cast<size_t>(chunk_index)];
  for (size_t b = chunk.first_block; b < chunk.first_block + chunk.blocks; ++b) {
    const AvroBlockHead& head = blocks_[b];
    Status st = ReadAvroBlockData(*file_, head, header_.sync, codec_, options_.max_block_bytes, &block_data_);
    const std::string where = name + ": block " + std::to_string(head.number);
    AvroDecoder decoder(block_data_);
    for (int64_t r = 0; st.ok() && r < head.records; ++r) {
      st = decoder.ChargeItem();
      if (st.ok()) st = decoder_->Append(&decoder);
      if (!st.ok()) st = st.WithContext(where + ": record " + std::to_string(r));
    }
    if (st.ok() && decoder.remaining() > 0) {
      st = Status::Corruption(where + ": " + std::to_string(decoder.remaining()) +
                              " bytes left after its records");
    }
    if (!st.ok()) {
      decoder_.reset();  // it holds part of the chunk
      return st;
    }
  }
  return decoder_->Finish();
}

}  // namespace floe::avro
