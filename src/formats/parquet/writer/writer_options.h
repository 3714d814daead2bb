// Options of the Parquet writer (see file_writer.h for the writer itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "compression/codec.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

struct ParquetWriterOptions {
  // Page compression: kNone, kSnappy, kGzip, kBrotli, kZstd or kLz4Raw.
  Codec codec = Codec::kSnappy;
  int compression_level = 0;  // 0: the codec's default
  // A row group is closed once it holds this many rows or (estimated,
  // uncompressed) bytes, whichever comes first.
  int64_t row_group_max_rows = 1'000'000;
  int64_t row_group_max_bytes = int64_t{128} << 20;
  // A data page is closed once its (PLAIN-size estimate of) values and levels
  // reach page_max_bytes or it holds page_max_rows rows. Pages start at rows.
  int64_t page_max_bytes = int64_t{1} << 20;
  int64_t page_max_rows = 20'000;
  // Dictionary encoding; a chunk's later pages fall back to PLAIN (or delta)
  // once its dictionary page would exceed dictionary_max_bytes.
  bool dictionary_enabled = true;
  int64_t dictionary_max_bytes = int64_t{1} << 20;
  // Non-dictionary pages of INT32/INT64 use DELTA_BINARY_PACKED and of
  // BYTE_ARRAY DELTA_BYTE_ARRAY instead of PLAIN.
  bool delta_encodings = false;
  int data_page_version = 1;  // 1 or 2
  bool write_page_index = true;
  bool write_statistics = true;
  std::vector<KeyValue> key_value_metadata;
  std::string created_by = "floe version 0.1.0";
  // Worker threads that shred and encode (dictionary, levels, compression)
  // the column chunks of a row group concurrently; nullptr encodes on the
  // calling thread. The file is byte-identical either way. Not owned; must
  // outlive the writer. A row group's encoded chunks are held in memory
  // until written in column order (about its compressed size).
  ThreadPool* pool = nullptr;
};

}  // namespace floe::parquet
