#include "formats/parquet/writer/column_chunk_writer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compression/codec.h"
#include "formats/parquet/encoding/rle_bit_packed.h"
#include "formats/parquet/reader/scratch.h"
#include "formats/parquet/writer/dictionary_builder.h"
#include "formats/parquet/writer/page_encoding.h"

namespace floe::parquet {

namespace {

// A data page's share of the chunk: levels [level_begin, level_end) and
// stored values [value_begin, value_end), starting at row first_row.
struct PageRange {
  int64_t level_begin = 0, level_end = 0;
  int64_t value_begin = 0, value_end = 0;
  int64_t num_rows = 0;
  int64_t first_row = 0;
};

// CutPages for leaves without repetition (one level per row): the same
// cuts, with the per-level work reduced to what the leaf needs.
std::vector<PageRange> CutFlatPages(const LeafValues& values, int width, uint16_t max_def, bool has_def,
                                    int64_t level_bits, int64_t max_rows, int64_t max_bytes) {
  std::vector<PageRange> pages;
  const int64_t n = values.num_levels;
  const int64_t limit8 = 8 * max_bytes;
  const uint16_t* defs = values.def_levels.data();
  const int64_t* offsets = values.offsets.data();
  int64_t l = 0, v = 0;
  while (l < n) {
    PageRange page;
    page.level_begin = page.first_row = l;
    page.value_begin = v;
    int64_t rows = 0;
    if (!has_def && width > 0) {
      // Every row costs the same: the page ends at the first row count
      // reaching either limit.
      const int64_t per_row = 8 * width + level_bits;
      const int64_t by_bytes = per_row > 0 ? (limit8 + per_row - 1) / per_row : n;
      rows = std::min({n - l, max_rows, std::max<int64_t>(1, by_bytes)});
      v += rows;
    } else {
      int64_t bytes8 = 0;
      const int64_t value_bits = 8 * width;
      // Blocks of rows are taken whole while they end below both limits (the
      // cost only grows, so no row inside one would have ended the page);
      // the block that reaches a limit is walked row by row.
      constexpr int64_t kBlock = 256;
      bool page_full = false;
      while (l + rows < n && !page_full) {
        const int64_t k = std::min(kBlock, n - (l + rows));
        if (rows + k < max_rows) {
          int64_t present = k;
          if (has_def) {
            present = 0;
            const uint16_t* d = defs + l + rows;
            for (int64_t i = 0; i < k; ++i) present += d[i] == max_def;
          }
          const int64_t cost =
              k * level_bits +
              (width > 0 ? present * value_bits : 8 * (4 * present + offsets[v + present] - offsets[v]));
          if (bytes8 + cost < limit8) {
            bytes8 += cost;
            v += present;
            rows += k;
            continue;
          }
        }
        for (int64_t i = 0; i < k; ++i) {
          const bool present = !has_def || defs[l + rows] == max_def;
          if (present) {
            bytes8 += width > 0 ? value_bits : 8 * (4 + offsets[v + 1] - offsets[v]);
            ++v;
          }
          bytes8 += level_bits;
          ++rows;
          if (rows >= max_rows || bytes8 >= limit8) {
            page_full = true;
            break;
          }
        }
      }
    }
    l += rows;
    page.num_rows = rows;
    page.level_end = l;
    page.value_end = v;
    pages.push_back(page);
  }
  return pages;
}

std::vector<PageRange> CutPages(const WriteLeaf& leaf, const LeafValues& values,
                                const ParquetWriterOptions& options) {
  const int width = PhysicalWidth(leaf);
  const int64_t max_rows = std::max<int64_t>(1, options.page_max_rows);
  const int64_t max_bytes = std::max<int64_t>(1, options.page_max_bytes);
  const bool has_def = !values.def_levels.empty();
  const bool has_rep = !values.rep_levels.empty();
  const uint16_t max_def = static_cast<uint16_t>(leaf.max_def_level);
  // Levels cost about their bit width; counted in eighths of a byte.
  const int64_t level_bits = (has_def ? BitWidthFor(static_cast<uint64_t>(leaf.max_def_level)) : 0) +
                             (has_rep ? BitWidthFor(static_cast<uint64_t>(leaf.max_rep_level)) : 0);
  std::vector<PageRange> pages;
  int64_t l = 0, v = 0, row = 0;
  const int64_t n = values.num_levels;
  if (!has_rep) return CutFlatPages(values, width, max_def, has_def, level_bits, max_rows, max_bytes);
  while (l < n) {
    PageRange page;
    page.level_begin = l;
    page.value_begin = v;
    page.first_row = row;
    int64_t bytes8 = 0;  // eighths of a byte
    while (l < n) {
      do {
        if (!has_def || values.def_levels[static_cast<size_t>(l)] == max_def) {
          bytes8 += 8 * (width > 0 ? width
                                   : 4 + values.offsets[static_cast<size_t>(v) + 1] -
                                         values.offsets[static_cast<size_t>(v)]);
          ++v;
        }
        bytes8 += level_bits;
        ++l;
      } while (has_rep && l < n && values.rep_levels[static_cast<size_t>(l)] != 0);
      ++page.num_rows;
      ++row;
      if (page.num_rows >= max_rows || bytes8 >= 8 * max_bytes) break;
    }
    page.level_end = l;
    page.value_end = v;
    pages.push_back(page);
  }
  return pages;
}

Statistics ToThrift(const ValueStats& stats, int64_t null_count) {
  Statistics s;
  s.null_count = null_count;
  if (stats.min && stats.max) {
    s.min_value = stats.min;
    s.max_value = stats.max;
    s.is_min_value_exact = true;
    s.is_max_value_exact = true;
  }
  return s;
}

BoundaryOrder BoundaryOrderOf(StatsOrder order, const ColumnIndex& index) {
  bool ascending = true, descending = true;
  const std::string* prev_min = nullptr;
  const std::string* prev_max = nullptr;
  for (size_t i = 0; i < index.null_pages.size(); ++i) {
    if (index.null_pages[i]) continue;
    if (prev_min) {
      if (EncodedLess(order, index.min_values[i], *prev_min) ||
          EncodedLess(order, index.max_values[i], *prev_max)) {
        ascending = false;
      }
      if (EncodedLess(order, *prev_min, index.min_values[i]) ||
          EncodedLess(order, *prev_max, index.max_values[i])) {
        descending = false;
      }
    }
    prev_min = &index.min_values[i];
    prev_max = &index.max_values[i];
  }
  if (ascending) return BoundaryOrder::ASCENDING;
  if (descending) return BoundaryOrder::DESCENDING;
  return BoundaryOrder::UNORDERED;
}

// Accumulates the chunk's encoded pages and their bookkeeping.
class ChunkBuilder {
 public:
  ChunkBuilder(const WriteLeaf& leaf, const ParquetWriterOptions& options)
      : leaf_(leaf), options_(options), codec_(ParquetCodecOf(options.codec)) {}

  // Compresses `body` (for v2: only the part after `uncompressed_prefix`
  // bytes of levels) and frames it with `header`.
  Status AddPage(PageHeader header, const std::vector<uint8_t>& body, size_t uncompressed_prefix,
                 std::vector<uint8_t>* sink) {
    const std::span<const uint8_t> prefix(body.data(), uncompressed_prefix);
    std::span<const uint8_t> payload(body.data() + uncompressed_prefix, body.size() - uncompressed_prefix);
    if (options_.codec != Codec::kNone) {
      // Codecs with a size bound compress into a reused buffer that is
      // never cleared; the others into a vector they size themselves.
      const int64_t bound = MaxCompressedSize(options_.codec, payload.size());
      if (bound >= 0) {
        compressed_.resize(static_cast<size_t>(bound));
        FLOE_ASSIGN_OR_RETURN(size_t written,
                              CompressInto(options_.codec, payload, options_.compression_level,
                                           std::span<uint8_t>(compressed_)));
        payload = std::span<const uint8_t>(compressed_.data(), written);
      } else {
        FLOE_RETURN_IF_ERROR(
            Compress(options_.codec, payload, options_.compression_level, &compressed_other_));
        payload = std::span<const uint8_t>(compressed_other_);
      }
    }
    const size_t page_size = prefix.size() + payload.size();
    if (body.size() > INT32_MAX || page_size > INT32_MAX) {
      return Status::InvalidArgument("column '" + PathOf() + "': a page exceeds 2 GiB; lower page_max_bytes");
    }
    header.uncompressed_page_size = static_cast<int32_t>(body.size());
    header.compressed_page_size = static_cast<int32_t>(page_size);
    header.crc = static_cast<int32_t>(Crc32(payload, Crc32(prefix)));
    header_buffer_.clear();
    SerializePageHeader(header, &header_buffer_);
    last_page_total_ = static_cast<int64_t>(header_buffer_.size() + page_size);
    uncompressed_total_ += static_cast<int64_t>(header_buffer_.size() + body.size());
    compressed_total_ += last_page_total_;
    const size_t needed = sink->size() + header_buffer_.size() + page_size;
    if (needed > sink->capacity()) sink->reserve(std::max(needed, 2 * sink->capacity()));
    sink->insert(sink->end(), header_buffer_.begin(), header_buffer_.end());
    sink->insert(sink->end(), prefix.begin(), prefix.end());
    sink->insert(sink->end(), payload.begin(), payload.end());
    ++encoding_counts_[{static_cast<int32_t>(header.type), static_cast<int32_t>(PageEncodingOf(header))}];
    return Status::OK();
  }

  std::string PathOf() const {
    std::string s;
    for (const auto& p : leaf_.path) s += (s.empty() ? "" : ".") + p;
    return s;
  }
  int64_t last_page_total() const { return last_page_total_; }
  int64_t uncompressed_total() const { return uncompressed_total_; }
  int64_t compressed_total() const { return compressed_total_; }
  CompressionCodec codec() const { return codec_; }
  std::vector<PageEncodingStats> EncodingStats() const {
    std::vector<PageEncodingStats> out;
    for (const auto& [key, count] : encoding_counts_) {
      out.push_back({static_cast<PageType>(key.first), static_cast<Encoding>(key.second), count});
    }
    return out;
  }

 private:
  static Encoding PageEncodingOf(const PageHeader& h) {
    if (h.dictionary_page_header) return h.dictionary_page_header->encoding;
    if (h.data_page_header) return h.data_page_header->encoding;
    return h.data_page_header_v2->encoding;
  }
  const WriteLeaf& leaf_;
  const ParquetWriterOptions& options_;
  CompressionCodec codec_;
  ScratchVector<uint8_t> compressed_;      // codecs with a size bound
  std::vector<uint8_t> compressed_other_;  // the others
  std::vector<uint8_t> header_buffer_;
  int64_t last_page_total_ = 0;
  int64_t uncompressed_total_ = 0;
  int64_t compressed_total_ = 0;
  std::map<std::pair<int32_t, int32_t>, int32_t> encoding_counts_;
};

}  // namespace

CompressionCodec ParquetCodecOf(Codec codec) {
  switch (codec) {
    case Codec::kNone: return CompressionCodec::UNCOMPRESSED;
    case Codec::kSnappy: return CompressionCodec::SNAPPY;
    case Codec::kGzip: return CompressionCodec::GZIP;
    case Codec::kBrotli: return CompressionCodec::BROTLI;
    case Codec::kZstd: return CompressionCodec::ZSTD;
    case Codec::kLz4Raw: return CompressionCodec::LZ4_RAW;
    case Codec::kLz4Hadoop: return CompressionCodec::LZ4;
    default: return CompressionCodec::UNCOMPRESSED;
  }
}

Result<EncodedColumnChunk> EncodeColumnChunk(const WriteLeaf& leaf, const LeafValues& values,
                                             const ParquetWriterOptions& options) {
  const std::vector<PageRange> pages = CutPages(leaf, values, options);
  const int width = PhysicalWidth(leaf);
  const bool v2 = options.data_page_version == 2;
  const Encoding fallback = FallbackEncodingFor(leaf, options.delta_encodings);
  bool use_dictionary = options.dictionary_enabled && leaf.physical_type != Type::BOOLEAN;
  DictionaryBuilder dictionary(width);

  ColumnChunkResult result;
  ChunkBuilder builder(leaf, options);
  std::vector<uint8_t> data_pages;  // written after the dictionary page
  // Compressed pages rarely exceed the values' PLAIN size; reserving it
  // (untouched memory costs nothing) saves the copies of doubling growth.
  data_pages.reserve(static_cast<size_t>(std::min<int64_t>(values.EstimatedBytes(), int64_t{1} << 30)) +
                     64 * 1024);
  std::vector<int64_t> page_starts;  // relative to data_pages
  std::vector<uint8_t> levels, body;
  std::vector<uint32_t> indices;
  bool any_dictionary_page = false, any_plain_levels = false;
  std::vector<Encoding> used_value_encodings;
  auto note_encoding = [&](Encoding e) {
    if (std::find(used_value_encodings.begin(), used_value_encodings.end(), e) ==
        used_value_encodings.end()) {
      used_value_encodings.push_back(e);
    }
  };
  ColumnIndex column_index;
  bool column_index_valid = leaf.order != StatsOrder::kNone;

  for (const PageRange& page : pages) {
    const int64_t num_levels = page.level_end - page.level_begin;
    const int64_t num_values = page.value_end - page.value_begin;
    const int64_t num_nulls = num_levels - num_values;

    levels.clear();
    size_t rep_bytes = 0, def_bytes = 0;
    if (!values.rep_levels.empty()) {
      size_t start = levels.size();
      if (!v2) levels.resize(start + 4);
      EncodeLevels(values.rep_levels, page.level_begin, page.level_end, leaf.max_rep_level, &levels);
      rep_bytes = levels.size() - start;
      if (!v2) {
        uint32_t n = static_cast<uint32_t>(rep_bytes - 4);
        std::memcpy(levels.data() + start, &n, 4);
      }
      any_plain_levels = true;
    }
    if (!values.def_levels.empty()) {
      size_t start = levels.size();
      if (!v2) levels.resize(start + 4);
      EncodeLevels(values.def_levels, page.level_begin, page.level_end, leaf.max_def_level, &levels);
      def_bytes = levels.size() - start;
      if (!v2) {
        uint32_t n = static_cast<uint32_t>(def_bytes - 4);
        std::memcpy(levels.data() + start, &n, 4);
      }
      any_plain_levels = true;
    }

    body.assign(levels.begin(), levels.end());
    Encoding encoding = fallback;
    bool encoded = false;
    if (use_dictionary) {
      indices.resize(static_cast<size_t>(num_values));
      if (width > 0) {
        dictionary.IndexFixed(
            values.fixed.data() + static_cast<size_t>(page.value_begin) * static_cast<size_t>(width),
            num_values, indices.data());
      } else {
        dictionary.IndexByteArrays(values.offsets.data() + page.value_begin, values.data.data(), num_values,
                                   indices.data());
      }
      EncodeDictionaryIndices(indices, dictionary.size(), &body);
      encoding = Encoding::RLE_DICTIONARY;
      encoded = true;
      any_dictionary_page = true;
      if (dictionary.plain_bytes() > options.dictionary_max_bytes) use_dictionary = false;
      // After the first page, keep the dictionary only if it pays for itself
      // (mostly distinct values would cost dictionary + indices > PLAIN).
      if (&page == &pages.front()) {
        const int64_t plain_bytes = width > 0 ? num_values * width
                                              : values.offsets[static_cast<size_t>(page.value_end)] -
                                                    values.offsets[static_cast<size_t>(page.value_begin)] +
                                                    4 * num_values;
        const int64_t dictionary_bytes =
            dictionary.plain_bytes() + static_cast<int64_t>(body.size() - levels.size());
        if (dictionary_bytes >= plain_bytes && num_values > 0) {
          use_dictionary = false;
          any_dictionary_page = false;
          dictionary = DictionaryBuilder(width);
          body.resize(levels.size());
          encoded = false;
        }
      }
    }
    if (!encoded) {
      EncodeValues(leaf, values, page.value_begin, page.value_end, fallback, &body);
      encoding = fallback;
    }
    note_encoding(encoding);

    ValueStats page_stats = ComputeValueStats(leaf, values, page.value_begin, page.value_end);
    MergeValueStats(leaf.order, page_stats, &result.stats);
    result.null_count += num_nulls;

    PageHeader header;
    std::optional<Statistics> header_stats;
    if (options.write_statistics) header_stats = ToThrift(page_stats, num_nulls);
    if (num_levels > INT32_MAX) {
      return Status::InvalidArgument("column '" + builder.PathOf() + "': more than 2^31 values in one page");
    }
    if (v2) {
      header.type = PageType::DATA_PAGE_V2;
      DataPageHeaderV2 h;
      h.num_values = static_cast<int32_t>(num_levels);
      h.num_nulls = static_cast<int32_t>(num_nulls);
      h.num_rows = static_cast<int32_t>(page.num_rows);
      h.encoding = encoding;
      h.definition_levels_byte_length = static_cast<int32_t>(def_bytes);
      h.repetition_levels_byte_length = static_cast<int32_t>(rep_bytes);
      h.is_compressed = options.codec != Codec::kNone;
      h.statistics = header_stats;
      header.data_page_header_v2 = h;
    } else {
      header.type = PageType::DATA_PAGE;
      DataPageHeader h;
      h.num_values = static_cast<int32_t>(num_levels);
      h.encoding = encoding;
      h.statistics = header_stats;
      header.data_page_header = h;
    }
    page_starts.push_back(static_cast<int64_t>(data_pages.size()));
    FLOE_RETURN_IF_ERROR(builder.AddPage(std::move(header), body, v2 ? levels.size() : 0, &data_pages));

    PageLocation location;
    location.offset = page_starts.back();  // made absolute below
    location.compressed_page_size = static_cast<int32_t>(builder.last_page_total());
    location.first_row_index = page.first_row;
    result.offset_index.page_locations.push_back(location);

    const bool null_page = num_values == 0;
    column_index.null_pages.push_back(null_page);
    column_index.null_counts.push_back(num_nulls);
    if (null_page) {
      column_index.min_values.emplace_back();
      column_index.max_values.emplace_back();
    } else if (page_stats.min && page_stats.max) {
      column_index.min_values.push_back(*page_stats.min);
      column_index.max_values.push_back(*page_stats.max);
    } else {
      column_index_valid = false;
      column_index.min_values.emplace_back();
      column_index.max_values.emplace_back();
    }
  }

  // Lay the chunk out: [dictionary page] data pages, at offset 0 (PlaceColumnChunk moves it).
  EncodedColumnChunk encoded;
  const int64_t chunk_start = 0;
  int64_t data_page_offset = chunk_start;
  ColumnMetaData meta;
  if (any_dictionary_page) {
    std::vector<uint8_t> dictionary_body = dictionary.EncodePlain();
    if (dictionary.size() > INT32_MAX) {
      return Status::InvalidArgument("column '" + builder.PathOf() + "': dictionary has too many entries");
    }
    PageHeader header;
    header.type = PageType::DICTIONARY_PAGE;
    DictionaryPageHeader h;
    h.num_values = static_cast<int32_t>(dictionary.size());
    h.encoding = Encoding::PLAIN;
    header.dictionary_page_header = h;
    FLOE_RETURN_IF_ERROR(builder.AddPage(std::move(header), dictionary_body, 0, &encoded.dictionary_page));
    meta.dictionary_page_offset = chunk_start;
    data_page_offset = chunk_start + static_cast<int64_t>(encoded.dictionary_page.size());
  }
  encoded.data_pages = std::move(data_pages);
  for (PageLocation& location : result.offset_index.page_locations) location.offset += data_page_offset;

  meta.type = leaf.physical_type;
  if (any_dictionary_page ||
      std::count(used_value_encodings.begin(), used_value_encodings.end(), Encoding::PLAIN)) {
    meta.encodings.push_back(Encoding::PLAIN);  // the dictionary page is PLAIN
  }
  if (any_plain_levels) meta.encodings.push_back(Encoding::RLE);
  for (Encoding e : used_value_encodings) {
    if (e != Encoding::PLAIN) meta.encodings.push_back(e);
  }
  meta.path_in_schema = leaf.path;
  meta.codec = builder.codec();
  meta.num_values = values.num_levels;
  meta.total_uncompressed_size = builder.uncompressed_total();
  meta.total_compressed_size = builder.compressed_total();
  meta.data_page_offset = data_page_offset;
  if (options.write_statistics) meta.statistics = ToThrift(result.stats, result.null_count);
  meta.encoding_stats = builder.EncodingStats();
  result.chunk.file_offset = chunk_start;
  result.chunk.meta_data = std::move(meta);
  if (options.write_page_index && column_index_valid) {
    column_index.boundary_order = BoundaryOrderOf(leaf.order, column_index);
    result.column_index = std::move(column_index);
  }
  encoded.result = std::move(result);
  return encoded;
}

void PlaceColumnChunk(int64_t chunk_start, ColumnChunkResult* result) {
  ColumnMetaData& meta = *result->chunk.meta_data;
  if (meta.dictionary_page_offset) *meta.dictionary_page_offset += chunk_start;
  meta.data_page_offset += chunk_start;
  result->chunk.file_offset += chunk_start;
  for (PageLocation& location : result->offset_index.page_locations) location.offset += chunk_start;
}

Result<ColumnChunkResult> WriteEncodedColumnChunk(EncodedColumnChunk encoded, OutputFile* out) {
  const int64_t chunk_start = out->Position();
  if (!encoded.dictionary_page.empty()) FLOE_RETURN_IF_ERROR(out->Write(encoded.dictionary_page));
  FLOE_RETURN_IF_ERROR(out->Write(encoded.data_pages));
  PlaceColumnChunk(chunk_start, &encoded.result);
  return std::move(encoded.result);
}

Result<ColumnChunkResult> WriteColumnChunk(const WriteLeaf& leaf, const LeafValues& values,
                                           const ParquetWriterOptions& options, OutputFile* out) {
  FLOE_ASSIGN_OR_RETURN(EncodedColumnChunk encoded, EncodeColumnChunk(leaf, values, options));
  return WriteEncodedColumnChunk(std::move(encoded), out);
}

}  // namespace floe::parquet
