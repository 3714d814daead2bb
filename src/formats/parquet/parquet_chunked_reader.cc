#include "formats/parquet/parquet_chunked_reader.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace floe::parquet {

Result<std::unique_ptr<ParquetChunkedReader>> ParquetChunkedReader::Open(std::shared_ptr<InputFile> file,
                                                                         ReaderLimits limits,
                                                                         int64_t max_chunk_bytes) {
  FLOE_ASSIGN_OR_RETURN(auto reader, ParquetFileReader::Open(std::move(file), limits));
  std::unique_ptr<ParquetChunkedReader> chunked(new ParquetChunkedReader(std::move(reader)));
  chunked->PlanChunks(max_chunk_bytes);
  return chunked;
}

namespace {

// The field of the row group's largest column chunk (by uncompressed bytes).
int LargestField(const ParquetFileReader& reader, int row_group) {
  const RowGroup& group = reader.metadata().row_groups[static_cast<size_t>(row_group)];
  const ParquetSchema& schema = reader.parquet_schema();
  int best = 0;
  int64_t best_bytes = -1;
  for (size_t leaf = 0; leaf < schema.leaves.size() && leaf < group.columns.size(); ++leaf) {
    const ColumnChunk& chunk = group.columns[leaf];
    const int64_t bytes = chunk.meta_data ? chunk.meta_data->total_uncompressed_size : 0;
    if (bytes > best_bytes) {
      best_bytes = bytes;
      best = schema.leaves[leaf].top_level_field;
    }
  }
  return best;
}

}  // namespace

void ParquetChunkedReader::PlanChunks(int64_t max_chunk_bytes) {
  for (int group = 0; group < reader_->num_row_groups(); ++group) {
    const int64_t rows =
        std::max<int64_t>(reader_->metadata().row_groups[static_cast<size_t>(group)].num_rows, 0);
    const int64_t bytes = reader_->EstimatedDecodedBytes(group);
    Chunk whole{group, 0, rows, bytes, true};
    if (max_chunk_bytes <= 0 || bytes <= max_chunk_bytes || rows < 2 || !reader_->ReadsRowsByPage(group)) {
      chunks_.push_back(whole);
      continue;
    }
    auto page_starts = reader_->PageFirstRows(group, LargestField(*reader_, group));
    if (!page_starts.ok() || page_starts->empty()) {
      chunks_.push_back(whole);
      continue;
    }
    // Where a slice may start: the page starts inside the row group, sorted
    // (the offset index is untrusted: starts out of order or range are
    // passed over). At most one slice per page.
    std::vector<int64_t> starts;
    for (int64_t start : *page_starts) {
      if (start > 0 && start < rows) starts.push_back(start);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    const int64_t slices = std::min<int64_t>((bytes + max_chunk_bytes - 1) / max_chunk_bytes,
                                             static_cast<int64_t>(starts.size()) + 1);
    // Cut at the page start nearest each even cut, in one pass over the starts.
    std::vector<int64_t> cuts{0};
    size_t next = 0;  // the first start at or above the even cut
    for (int64_t s = 1; s < slices; ++s) {
      const int64_t even = rows / slices * s + rows % slices * s / slices;
      while (next < starts.size() && starts[next] < even) ++next;
      int64_t best = -1;
      if (next > 0 && starts[next - 1] > cuts.back()) best = starts[next - 1];
      if (next < starts.size() && starts[next] > cuts.back() &&
          (best < 0 || starts[next] - even < even - best))
        best = starts[next];
      if (best > cuts.back()) cuts.push_back(best);
    }
    cuts.push_back(rows);
    if (cuts.size() <= 2) {
      chunks_.push_back(whole);
      continue;
    }
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      const int64_t slice_rows = cuts[c + 1] - cuts[c];
      // The estimate shared out by rows (at least 1 byte: a known, nonzero cost).
      const int64_t slice_bytes = std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<double>(bytes) * static_cast<double>(slice_rows) /
                                  static_cast<double>(rows)));
      chunks_.push_back(Chunk{group, cuts[c], slice_rows, slice_bytes, false});
    }
  }
}

int64_t ParquetChunkedReader::chunk_rows(int chunk) const {
  return chunks_[static_cast<size_t>(chunk)].rows;
}

int64_t ParquetChunkedReader::chunk_bytes(int chunk) const {
  return chunks_[static_cast<size_t>(chunk)].bytes;
}

Result<RecordBatch> ParquetChunkedReader::ReadChunk(int chunk, const std::vector<int>& columns) {
  if (chunk < 0 || static_cast<size_t>(chunk) >= chunks_.size()) {
    return Status::InvalidArgument(reader_->path() + ": chunk " + std::to_string(chunk) +
                                   " does not exist (" + std::to_string(chunks_.size()) + " chunks)");
  }
  const Chunk& planned = chunks_[static_cast<size_t>(chunk)];
  // Every column read is checked against the footer's row count (file_reader.cc).
  if (planned.whole) return reader_->ReadRowGroup(planned.row_group, columns);
  // The footer's row count is untrusted: no more rows than a chunk may hold values.
  if (planned.rows > reader_->limits().max_values_per_chunk) {
    return Status::Corruption(reader_->path() + ": row group " + std::to_string(planned.row_group) +
                              " claims " + std::to_string(planned.rows) + " rows in a slice, more than " +
                              std::to_string(reader_->limits().max_values_per_chunk) +
                              " values a chunk may hold");
  }
  std::vector<int64_t> rows(static_cast<size_t>(planned.rows));
  std::iota(rows.begin(), rows.end(), planned.first_row);
  return reader_->ReadRowGroupRows(planned.row_group, rows, columns);
}

}  // namespace floe::parquet
