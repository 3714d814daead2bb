#include "formats/parquet/reader/column_chunk_reader.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "compression/codec.h"
#include "formats/parquet/reader/levels.h"
#include "formats/parquet/reader/physical_conversion.h"
#include "formats/parquet/reader/value_decoder.h"

namespace floe::parquet {
namespace {

Result<Codec> ToCodec(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::UNCOMPRESSED: return Codec::kNone;
    case CompressionCodec::SNAPPY: return Codec::kSnappy;
    case CompressionCodec::GZIP: return Codec::kGzip;
    case CompressionCodec::BROTLI: return Codec::kBrotli;
    case CompressionCodec::LZ4: return Codec::kLz4Hadoop;
    case CompressionCodec::ZSTD: return Codec::kZstd;
    case CompressionCodec::LZ4_RAW: return Codec::kLz4Raw;
    default:
      return Status::NotSupported(std::string("compression codec ") + CodecName(codec) + " not supported");
  }
}

// Up-front reservations from the chunk's (untrusted) value count stop here;
// past it buffers grow geometrically as values actually arrive.
constexpr int64_t kMaxUpFrontReserve = int64_t{256} << 20;

// A page of at most this many uncompressed bytes is decoded straight into the
// page buffer whatever its codec (writers cut pages at ~1 MiB; 8 MiB leaves
// room for large values).
constexpr int64_t kDirectPageBytes = int64_t{8} << 20;

// Eight bytes of 0/1 (the first in the lowest address) to eight bits, LSB first.
inline uint8_t PackBytesToBits(const uint8_t* bytes) {
  uint64_t x;
  std::memcpy(&x, bytes, 8);
  return static_cast<uint8_t>((x * 0x0102040810204080ULL) >> 56);
}

// Sets bits [base, base + n) of `bits` from valid[0, n) (0/1 bytes; null
// means all 1), growing `bits` to cover them; new bytes start at zero.
void AppendValidityBits(const uint8_t* valid, int64_t n, int64_t base, std::vector<uint8_t>* bits) {
  bits->resize(static_cast<size_t>((base + n + 7) / 8));
  uint8_t* b = bits->data();
  int64_t i = 0;
  if (valid == nullptr) {
    for (; i < n && ((base + i) & 7) != 0; ++i)
      b[(base + i) >> 3] |= static_cast<uint8_t>(1u << ((base + i) & 7));
    const int64_t full = (n - i) / 8;
    if (full > 0) std::memset(b + ((base + i) >> 3), 0xFF, static_cast<size_t>(full));
    i += full * 8;
    for (; i < n; ++i) b[(base + i) >> 3] |= static_cast<uint8_t>(1u << ((base + i) & 7));
    return;
  }
  for (; i < n && ((base + i) & 7) != 0; ++i) {
    b[(base + i) >> 3] |= static_cast<uint8_t>(valid[i] << ((base + i) & 7));
  }
  for (; i + 8 <= n; i += 8) b[(base + i) >> 3] = PackBytesToBits(valid + i);
  for (; i < n; ++i) b[(base + i) >> 3] |= static_cast<uint8_t>(valid[i] << ((base + i) & 7));
}

// Decodes the pages of one column chunk. Two output modes: levels + dense
// values into a LeafData (any leaf), or flat (IsFlatLeaf): validity and
// values with their null slots straight into the final Column.
class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& leaf, const ColumnMetaData& meta, Codec codec,
               const ReaderLimits& limits, ChunkScratch* scratch, LeafData* levels_out, Column* flat_out)
      : leaf_(leaf),
        meta_(meta),
        codec_(codec),
        limits_(limits),
        spec_(PhysicalSpecFor(leaf.physical_type, leaf.type_length)),
        scratch_(scratch),
        out_(levels_out),
        values_(levels_out != nullptr ? &levels_out->values : flat_out),
        flat_(levels_out == nullptr) {}

  // Decodes the pages of `segments` in order, each a run of whole pages;
  // `expected_values` level entries in all (the chunk's num_values when the
  // segments are the whole chunk, fewer when they are some of its pages).
  // Decodes the pages before a chunk's first data page (its dictionary
  // page); a later Decode of some data pages uses that dictionary.
  Status DecodeDictionaryPrefix(std::span<const uint8_t> prefix) {
    expected_values_ = 0;
    size_t pos = 0;
    while (pos < prefix.size()) {
      Status status = DecodePage(prefix, &pos);
      if (!status.ok()) return status.WithContext("page before the first data page");
    }
    return Status::OK();
  }

  //
  // `selections` (flat mode only), when not empty, pairs each segment (then
  // one data page) with the slots of that page to keep, strictly ascending:
  // only those slots are output, and the other values of the page are not
  // copied. A selection of every slot of its page decodes the page whole.
  Status Decode(std::span<const std::span<const uint8_t>> segments, int64_t expected_values,
                std::span<const std::vector<int64_t>> selections = {}) {
    if (!selections.empty() && (!flat_ || selections.size() != segments.size())) {
      return Status::InvalidArgument("page selections need a flat column and one selection per segment");
    }
    expected_values_ = expected_values;
    levels_seen_ = 0;
    values_seen_ = 0;
    out_slots_ = 0;
    out_values_ = 0;
    estimated_strings_ = false;
    *values_ = Column();
    if (spec_.width == 0) values_->offsets = {0};
    if (flat_) {
      int64_t slots = expected_values_;
      if (!selections.empty()) {
        slots = 0;
        for (const std::vector<int64_t>& selection : selections)
          slots += static_cast<int64_t>(selection.size());
      }
      ReserveFlatOutput(slots);
    }
    int page_index = 0;
    for (size_t i = 0; i < segments.size(); ++i) {
      const std::span<const uint8_t> segment = segments[i];
      selection_ = selections.empty() ? nullptr : &selections[i];
      selection_used_ = false;
      size_t pos = 0;
      while (pos < segment.size() && levels_seen_ < expected_values_) {
        Status status = DecodePage(segment, &pos);
        if (!status.ok()) {
          return status.WithContext("page " + std::to_string(page_index) + " at chunk offset " +
                                    std::to_string(pos));
        }
        ++page_index;
      }
    }
    selection_ = nullptr;
    if (levels_seen_ != expected_values_) {
      if (expected_values_ != meta_.num_values) {
        return Status::Corruption("the pages the offset index names hold " + std::to_string(levels_seen_) +
                                  " values, not the " + std::to_string(expected_values_) +
                                  " its row counts announce");
      }
      return Status::Corruption("column chunk holds " + std::to_string(levels_seen_) +
                                " values but its metadata announces " + std::to_string(meta_.num_values));
    }
    if (flat_) return FinishFlat();
    out_->num_levels = levels_seen_;
    return ConvertPhysicalToLeafType(leaf_, values_seen_, &out_->values);
  }

 private:
  Status DecodePage(std::span<const uint8_t> chunk, size_t* pos) {
    PageHeader header;
    FLOE_ASSIGN_OR_RETURN(size_t header_size, DeserializePageHeader(chunk.subspan(*pos), &header));
    *pos += header_size;
    if (header.compressed_page_size < 0 ||
        static_cast<size_t>(header.compressed_page_size) > chunk.size() - *pos) {
      return Status::Corruption("page claims " + std::to_string(header.compressed_page_size) +
                                " bytes but the column chunk has " + std::to_string(chunk.size() - *pos) +
                                " left");
    }
    if (header.uncompressed_page_size < 0 || header.uncompressed_page_size > limits_.max_page_size) {
      return Status::Corruption("page has an invalid uncompressed size " +
                                std::to_string(header.uncompressed_page_size));
    }
    const std::span<const uint8_t> page =
        chunk.subspan(*pos, static_cast<size_t>(header.compressed_page_size));
    *pos += page.size();
    if (header.crc) {
      const uint32_t actual = Crc32(page);
      if (actual != static_cast<uint32_t>(*header.crc)) {
        return Status::Corruption("page CRC mismatch (header says " +
                                  std::to_string(static_cast<uint32_t>(*header.crc)) + ", page bytes give " +
                                  std::to_string(actual) + ")");
      }
    }
    switch (header.type) {
      case PageType::DICTIONARY_PAGE: return DecodeDictionary(header, page);
      case PageType::DATA_PAGE: return DecodeDataPageV1(header, page);
      case PageType::DATA_PAGE_V2: return DecodeDataPageV2(header, page);
      default: return Status::OK();  // index pages and unknown page kinds carry no values
    }
  }

  // Returns the uncompressed bytes of `input` (itself when not compressed),
  // valid until the next page is uncompressed.
  Result<std::span<const uint8_t>> Uncompress(std::span<const uint8_t> input, int64_t expected,
                                              bool compressed) {
    if (!compressed || codec_ == Codec::kNone) {
      if (static_cast<int64_t>(input.size()) != expected && compressed) {
        return Status::Corruption("uncompressed page has " + std::to_string(input.size()) +
                                  " bytes but its header says " + std::to_string(expected));
      }
      return input;
    }
    if (expected == 0) return std::span<const uint8_t>();
    // Codecs with a bounded expansion decode into the reused, never cleared
    // page buffer, allocated only once the input could plausibly fill it.
    // zstd has no useful bound, but decodes there too when its frame
    // declares the size, or when the size is one a page plausibly has
    // whatever the input (kDirectPageBytes: a false one costs that much
    // address space, never touched). Larger undeclared pages, and codecs
    // that decode through a temporary (gzip, brotli), grow as they decode.
    const int64_t bound = MaxDecompressedSize(codec_, input.size());
    if (bound >= 0 || (DecompressesInPlace(codec_) && expected <= limits_.max_page_size &&
                       (expected <= kDirectPageBytes || DeclaresDecompressedSize(codec_, input, expected)))) {
      if (bound >= 0 && expected > bound) {
        return Status::Corruption(std::string(CodecName(codec_)) + ": page header says " +
                                  std::to_string(expected) + " decompressed bytes, more than " +
                                  std::to_string(input.size()) + " compressed bytes can hold");
      }
      scratch_->page.resize(static_cast<size_t>(expected));
      const std::span<uint8_t> output(scratch_->page.data(), static_cast<size_t>(expected));
      FLOE_RETURN_IF_ERROR(DecompressInto(codec_, input, output));
      return std::span<const uint8_t>(output);
    }
    std::vector<uint8_t>* buffer = &scratch_->page_fallback;
    FLOE_RETURN_IF_ERROR(Decompress(codec_, input, expected, buffer, limits_.max_page_size));
    return std::span<const uint8_t>(*buffer);
  }

  // Flat mode: buffers for the `n` slots output, sized once when plausible.
  void ReserveFlatOutput(int64_t n) {
    if (spec_.width > 0) {
      // The final width when conversion widens in place (decimals, times).
      const int64_t width = std::max<int64_t>(spec_.width, leaf_.type.fixed_width());
      values_->values.reserve(static_cast<size_t>(std::min(n * width, kMaxUpFrontReserve)));
    } else {
      values_->offsets.reserve(static_cast<size_t>(std::min(n + 1, kMaxUpFrontReserve / 8)));
    }
    if (leaf_.max_def_level > 0) {
      values_->validity.reserve(static_cast<size_t>(std::min((n + 7) / 8, kMaxUpFrontReserve)));
    }
  }

  // Flat mode, after the first data page of a BYTE_ARRAY column: reserve the
  // string bytes the whole chunk will likely need, from that page's average.
  // Only the slots still to come are estimated: when the first page was the
  // whole chunk (or its buffer already covers the rest) nothing is
  // reallocated, which would copy every byte read so far.
  void EstimateStringBytes() {
    if (spec_.width != 0 || estimated_strings_ || levels_seen_ == 0 || selection_ != nullptr) return;
    estimated_strings_ = true;
    const int64_t slots_left = expected_values_ - levels_seen_;
    if (slots_left <= 0) return;
    const double per_slot = static_cast<double>(values_->data.size()) / static_cast<double>(levels_seen_);
    const double wanted =
        static_cast<double>(values_->data.size()) +
        std::min(per_slot * static_cast<double>(slots_left) * 1.05, static_cast<double>(kMaxUpFrontReserve));
    if (wanted > static_cast<double>(values_->data.capacity()))
      values_->data.reserve(static_cast<size_t>(wanted));
  }

  Status FinishFlat() {
    Column& column = *values_;
    std::vector<uint8_t> validity = std::move(column.validity);
    FLOE_RETURN_IF_ERROR(ConvertPhysicalToLeafType(leaf_, out_slots_, &column));
    column.null_count = out_slots_ - out_values_;
    if (column.null_count == 0) return Status::OK();
    validity.resize(static_cast<size_t>((out_slots_ + 7) / 8));
    column.validity = std::move(validity);
    // INT96 timestamps: a null slot's zero bytes did not convert to zero.
    if (leaf_.physical_type == Type::INT96) {
      for (int64_t i = 0; i < out_slots_; ++i) {
        if (column.IsNull(i)) std::memset(column.values.data() + i * 8, 0, 8);
      }
    }
    return Status::OK();
  }

  Status DecodeDictionary(const PageHeader& header, std::span<const uint8_t> page) {
    if (!header.dictionary_page_header) return Status::Corruption("dictionary page without its header");
    if (has_dictionary_) return Status::Corruption("column chunk has a second dictionary page");
    const auto& dict_header = *header.dictionary_page_header;
    if (dict_header.encoding != Encoding::PLAIN && dict_header.encoding != Encoding::PLAIN_DICTIONARY) {
      return Status::NotSupported(std::string("dictionary page encoding ") +
                                  EncodingName(dict_header.encoding) + " not supported");
    }
    FLOE_ASSIGN_OR_RETURN(auto bytes, Uncompress(page, header.uncompressed_page_size, true));
    if (dict_header.num_values > static_cast<int64_t>(bytes.size()) * 8 + 8) {
      return Status::Corruption("dictionary page announces " + std::to_string(dict_header.num_values) +
                                " values in " + std::to_string(bytes.size()) + " bytes");
    }
    FLOE_RETURN_IF_ERROR(
        DecodeDictionaryPage(spec_, bytes.data(), bytes.size(), dict_header.num_values, &dictionary_));
    has_dictionary_ = true;
    return Status::OK();
  }

  Status ReserveLevels(int64_t num_values) {
    if (num_values < 0)
      return Status::Corruption("page has a negative value count " + std::to_string(num_values));
    if (num_values > expected_values_ - levels_seen_) {
      return Status::Corruption("pages hold more values than the column chunk metadata announces (" +
                                std::to_string(expected_values_) + ")");
    }
    if (levels_seen_ + num_values > limits_.max_values_per_chunk) {
      return Status::NotSupported("column chunk has more than " +
                                  std::to_string(limits_.max_values_per_chunk) + " values");
    }
    if (flat_) return Status::OK();
    const size_t new_size = static_cast<size_t>(levels_seen_ + num_values);
    if (leaf_.max_def_level > 0) out_->def_levels.resize(new_size);
    if (leaf_.max_rep_level > 0) out_->rep_levels.resize(new_size);
    return Status::OK();
  }

  // Counts the entries that carry a value (definition level at its maximum).
  int64_t CountPresent(int64_t num_values) const {
    if (leaf_.max_def_level == 0) return num_values;
    const int16_t* defs = out_->def_levels.data() + levels_seen_;
    int64_t present = 0;
    for (int64_t i = 0; i < num_values; ++i) present += defs[i] == leaf_.max_def_level;
    return present;
  }

  // Decodes a page's values; `valid` (flat mode) marks its slots that have
  // one, null when all do.
  Status DecodeValueSection(Encoding encoding, std::span<const uint8_t> bytes, int64_t num_values,
                            int64_t present, const uint8_t* valid) {
    const Dictionary* dictionary = has_dictionary_ ? &dictionary_ : nullptr;
    if (selection_ != nullptr) {
      if (selection_used_)
        return Status::Corruption("a page of the offset index holds more than one data page");
      selection_used_ = true;
    }
    if (selection_ != nullptr && !SelectsWholePage(num_values)) {
      FLOE_RETURN_IF_ERROR(DecodeSelectedSlots(spec_, encoding, bytes.data(), bytes.size(), present, valid,
                                               num_values, *selection_, dictionary, scratch_, values_));
      values_seen_ += present;
      levels_seen_ += num_values;
      out_slots_ += static_cast<int64_t>(selection_->size());
      for (int64_t slot : *selection_) out_values_ += valid == nullptr || valid[slot] != 0;
      return Status::OK();
    }
    Status status = flat_ ? DecodeValuesIntoSlots(spec_, encoding, bytes.data(), bytes.size(), present, valid,
                                                  num_values, dictionary, scratch_, values_)
                          : DecodeValues(spec_, encoding, bytes.data(), bytes.size(), present, dictionary,
                                         values_, scratch_);
    if (!status.ok()) return status;
    if (encoding == Encoding::PLAIN && spec_.width > 0 && spec_.type != Type::BOOLEAN &&
        bytes.size() != static_cast<size_t>(present) * static_cast<size_t>(spec_.width)) {
      return Status::Corruption("PLAIN page holds " + std::to_string(bytes.size()) + " value bytes for " +
                                std::to_string(present) + " values of " + std::to_string(spec_.width) +
                                " bytes");
    }
    values_seen_ += present;
    levels_seen_ += num_values;
    out_slots_ += num_values;
    out_values_ += present;
    if (flat_) EstimateStringBytes();
    return Status::OK();
  }

  // Whether the page's selection keeps every one of its `num_values` slots
  // (a strictly ascending selection from 0 to num_values - 1): such a page
  // is decoded as if unselected, the cheaper path.
  bool SelectsWholePage(int64_t num_values) const {
    return selection_ != nullptr && static_cast<int64_t>(selection_->size()) == num_values &&
           (num_values == 0 || (selection_->front() == 0 && selection_->back() == num_values - 1));
  }

  // Flat mode: the page's definition levels decoded (into scratch) become
  // validity bits; returns the slot mask for the values, null when the page
  // has no nulls, and the count of present values.
  // `decoded_present` is the count of ones the level decoder found.
  const uint8_t* FlatValidity(int64_t num_values, int64_t decoded_present, int64_t* present) {
    *present = num_values;
    if (leaf_.max_def_level == 0) return nullptr;
    const uint8_t* valid = scratch_->slot_valid.data();
    const int64_t count = decoded_present;
    *present = count;
    if (count == num_values) valid = nullptr;
    if (selection_ == nullptr || SelectsWholePage(num_values)) {
      AppendValidityBits(valid, num_values, out_slots_, &values_->validity);
      return valid;
    }
    // Only the selected slots' bits (slots past the page are refused later).
    std::vector<uint8_t>& kept = scratch_->selected_valid;
    kept.assign(selection_->size(), 1);
    if (valid != nullptr) {
      for (size_t i = 0; i < selection_->size(); ++i) {
        const int64_t slot = (*selection_)[i];
        kept[i] = slot >= 0 && slot < num_values ? valid[slot] : 1;
      }
    }
    AppendValidityBits(kept.data(), static_cast<int64_t>(kept.size()), out_slots_, &values_->validity);
    return valid;
  }

  Status DecodeDataPageV1(const PageHeader& header, std::span<const uint8_t> page) {
    if (!header.data_page_header) return Status::Corruption("data page without its header");
    const DataPageHeader& data_header = *header.data_page_header;
    const int64_t num_values = data_header.num_values;
    FLOE_RETURN_IF_ERROR(ReserveLevels(num_values));
    FLOE_ASSIGN_OR_RETURN(auto bytes, Uncompress(page, header.uncompressed_page_size, true));
    size_t pos = 0;
    if (flat_) {
      int64_t decoded_present = num_values;
      if (leaf_.max_def_level > 0) {
        scratch_->slot_valid.resize(static_cast<size_t>(num_values));
        FLOE_ASSIGN_OR_RETURN(
            size_t used, DecodeLevelsV1(data_header.definition_level_encoding, bytes.data(), bytes.size(),
                                        leaf_.max_def_level, num_values, "definition",
                                        scratch_->slot_valid.data(), &decoded_present));
        pos += used;
      }
      int64_t present = 0;
      const uint8_t* valid = FlatValidity(num_values, decoded_present, &present);
      return DecodeValueSection(data_header.encoding, bytes.subspan(pos), num_values, present, valid);
    }
    if (leaf_.max_rep_level > 0) {
      FLOE_ASSIGN_OR_RETURN(size_t used,
                            DecodeLevelsV1(data_header.repetition_level_encoding, bytes.data(), bytes.size(),
                                           leaf_.max_rep_level, num_values, "repetition",
                                           out_->rep_levels.data() + levels_seen_));
      pos += used;
    }
    if (leaf_.max_def_level > 0) {
      FLOE_ASSIGN_OR_RETURN(size_t used,
                            DecodeLevelsV1(data_header.definition_level_encoding, bytes.data() + pos,
                                           bytes.size() - pos, leaf_.max_def_level, num_values, "definition",
                                           out_->def_levels.data() + levels_seen_));
      pos += used;
    }
    return DecodeValueSection(data_header.encoding, bytes.subspan(pos), num_values, CountPresent(num_values),
                              nullptr);
  }

  Status DecodeDataPageV2(const PageHeader& header, std::span<const uint8_t> page) {
    if (!header.data_page_header_v2) return Status::Corruption("data page v2 without its header");
    const DataPageHeaderV2& v2 = *header.data_page_header_v2;
    const int64_t num_values = v2.num_values;
    FLOE_RETURN_IF_ERROR(ReserveLevels(num_values));
    const int64_t rep_bytes = v2.repetition_levels_byte_length, def_bytes = v2.definition_levels_byte_length;
    if (rep_bytes < 0 || def_bytes < 0 || rep_bytes + def_bytes > static_cast<int64_t>(page.size()) ||
        rep_bytes + def_bytes > header.uncompressed_page_size) {
      return Status::Corruption("data page v2 level lengths (" + std::to_string(rep_bytes) + ", " +
                                std::to_string(def_bytes) + ") do not fit the page");
    }
    int64_t present = num_values;
    int64_t decoded_present = num_values;
    const uint8_t* valid = nullptr;
    if (flat_) {
      if (leaf_.max_def_level > 0) {
        scratch_->slot_valid.resize(static_cast<size_t>(num_values));
        FLOE_RETURN_IF_ERROR(DecodeLevelsV2(page.data() + rep_bytes, static_cast<size_t>(def_bytes),
                                            leaf_.max_def_level, num_values, "definition",
                                            scratch_->slot_valid.data(), &decoded_present));
      }
    } else if (leaf_.max_rep_level > 0) {
      FLOE_RETURN_IF_ERROR(DecodeLevelsV2(page.data(), static_cast<size_t>(rep_bytes), leaf_.max_rep_level,
                                          num_values, "repetition", out_->rep_levels.data() + levels_seen_));
    }
    if (!flat_ && leaf_.max_def_level > 0) {
      FLOE_RETURN_IF_ERROR(DecodeLevelsV2(page.data() + rep_bytes, static_cast<size_t>(def_bytes),
                                          leaf_.max_def_level, num_values, "definition",
                                          out_->def_levels.data() + levels_seen_));
    }
    const auto compressed_values = page.subspan(static_cast<size_t>(rep_bytes + def_bytes));
    const int64_t expected = header.uncompressed_page_size - rep_bytes - def_bytes;
    FLOE_ASSIGN_OR_RETURN(auto bytes,
                          Uncompress(compressed_values, expected, v2.is_compressed.value_or(true)));
    if (flat_) {
      valid = FlatValidity(num_values, decoded_present, &present);
    } else {
      present = CountPresent(num_values);
    }
    return DecodeValueSection(v2.encoding, bytes, num_values, present, valid);
  }

  const ColumnDescriptor& leaf_;
  const ColumnMetaData& meta_;
  Codec codec_;
  const ReaderLimits& limits_;
  PhysicalSpec spec_;
  ChunkScratch* scratch_;
  LeafData* out_;   // levels mode only
  Column* values_;  // levels mode: out_->values; flat mode: the final column
  bool flat_;
  bool estimated_strings_ = false;
  Dictionary dictionary_;
  bool has_dictionary_ = false;
  int64_t expected_values_ = 0;
  int64_t levels_seen_ = 0;
  int64_t values_seen_ = 0;
  // Flat mode: the slots output so far and those of them holding a value
  // (fewer than the levels seen when pages are selected).
  int64_t out_slots_ = 0;
  int64_t out_values_ = 0;
  // The slots to keep of the segment's data page (Decode's selections).
  const std::vector<int64_t>* selection_ = nullptr;
  bool selection_used_ = false;
};

// A column chunk's byte range in the file.
struct ChunkRange {
  int64_t start = 0;
  int64_t length = 0;
};

// Validates the chunk's metadata and returns its byte range (checked against the file size).
Result<ChunkRange> ValidateChunk(int64_t file_size, const ColumnDescriptor& leaf, const ColumnChunk& chunk,
                                 const ReaderLimits& limits) {
  if (chunk.has_crypto_metadata) {
    return Status::NotSupported("encrypted column not supported: Parquet modular encryption");
  }
  if (chunk.file_path) {
    return Status::NotSupported("column chunk stored in another file ('" + *chunk.file_path +
                                "') not supported");
  }
  if (!chunk.meta_data) return Status::Corruption("column chunk has no metadata");
  const ColumnMetaData& meta = *chunk.meta_data;
  if (meta.type != leaf.physical_type) {
    return Status::Corruption(std::string("column chunk has physical type ") + TypeName(meta.type) +
                              " but the schema says " + TypeName(leaf.physical_type));
  }
  if (meta.num_values < 0 || meta.num_values > limits.max_values_per_chunk) {
    return Status::Corruption("column chunk announces an invalid number of values " +
                              std::to_string(meta.num_values));
  }
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < meta.data_page_offset) {
    start = *meta.dictionary_page_offset;
  }
  const int64_t length = meta.total_compressed_size;
  if (start < 0 || length < 0 || start > file_size || length > file_size - start) {
    return Status::Corruption("column chunk byte range [" + std::to_string(start) + ", +" +
                              std::to_string(length) + ") lies outside the file of " +
                              std::to_string(file_size) + " bytes");
  }
  return ChunkRange{start, length};
}

// Validates the chunk's metadata and reads its bytes into scratch->chunk.
Result<std::span<const uint8_t>> ReadChunkBytes(InputFile& file, int64_t file_size,
                                                const ColumnDescriptor& leaf, const ColumnChunk& chunk,
                                                const ReaderLimits& limits, int64_t extra_tail_bytes,
                                                ChunkScratch* scratch) {
  FLOE_ASSIGN_OR_RETURN(ChunkRange range, ValidateChunk(file_size, leaf, chunk, limits));
  int64_t length = range.length;
  if (extra_tail_bytes > 0) {
    length += std::min(extra_tail_bytes, file_size - range.start - length);
  }
  // The scratch buffer is not cleared first: ReadAt fills every byte or fails.
  scratch->chunk.resize(static_cast<size_t>(length));
  FLOE_RETURN_IF_ERROR(file.ReadAt(range.start, length, scratch->chunk.data()));
  return std::span<const uint8_t>(scratch->chunk.data(), static_cast<size_t>(length));
}

// Byte ranges closer than this are read as one (the gap read and skipped):
// fewer requests to an object store, little waste on a local file.
constexpr int64_t kMaxSkippedGap = 64 * 1024;

// Checks an offset index against its chunk: pages in order, inside the
// chunk's byte range, first rows ascending from 0 and below `num_rows`.
Status ValidateOffsetIndex(const OffsetIndex& index, const ChunkRange& range, int64_t num_rows) {
  const std::vector<PageLocation>& pages = index.page_locations;
  if (pages.empty()) return Status::Corruption("offset index lists no pages");
  int64_t end = range.start;
  for (size_t p = 0; p < pages.size(); ++p) {
    const PageLocation& page = pages[p];
    const bool rows_ok =
        p == 0 ? page.first_row_index == 0
               : page.first_row_index > pages[p - 1].first_row_index && page.first_row_index < num_rows;
    if (!rows_ok || page.offset < end || page.compressed_page_size <= 0 ||
        page.compressed_page_size > range.start + range.length - page.offset) {
      return Status::Corruption("offset index page " + std::to_string(p) + " (offset " +
                                std::to_string(page.offset) + ", " +
                                std::to_string(page.compressed_page_size) + " bytes, first row " +
                                std::to_string(page.first_row_index) + ") does not fit its column chunk of " +
                                std::to_string(num_rows) + " rows");
    }
    end = page.offset + page.compressed_page_size;
  }
  return Status::OK();
}

}  // namespace

Status ReadColumnChunk(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                       const ColumnChunk& chunk, const ReaderLimits& limits, int64_t extra_tail_bytes,
                       LeafData* out, ChunkScratch* scratch) {
  ChunkScratch local;
  if (scratch == nullptr) scratch = &local;
  FLOE_ASSIGN_OR_RETURN(auto bytes,
                        ReadChunkBytes(file, file_size, leaf, chunk, limits, extra_tail_bytes, scratch));
  const ColumnMetaData& meta = *chunk.meta_data;
  FLOE_ASSIGN_OR_RETURN(Codec codec, ToCodec(meta.codec));
  *out = LeafData();
  const std::span<const uint8_t> segments[] = {bytes};
  return ChunkDecoder(leaf, meta, codec, limits, scratch, out, nullptr).Decode(segments, meta.num_values);
}

bool IsFlatLeaf(const ColumnDescriptor& leaf, const LevelNode& node) {
  return node.kind == LevelNode::Kind::kLeaf && node.children.empty() && leaf.max_rep_level == 0 &&
         leaf.max_def_level <= 1 && node.rep_level == 0 && node.slot_def <= 0 &&
         node.valid_def == leaf.max_def_level;
}

Status ReadFlatColumnChunk(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                           const ColumnChunk& chunk, const ReaderLimits& limits, int64_t extra_tail_bytes,
                           ChunkScratch* scratch, Column* out) {
  FLOE_ASSIGN_OR_RETURN(auto bytes,
                        ReadChunkBytes(file, file_size, leaf, chunk, limits, extra_tail_bytes, scratch));
  const ColumnMetaData& meta = *chunk.meta_data;
  FLOE_ASSIGN_OR_RETURN(Codec codec, ToCodec(meta.codec));
  const std::span<const uint8_t> segments[] = {bytes};
  return ChunkDecoder(leaf, meta, codec, limits, scratch, nullptr, out).Decode(segments, meta.num_values);
}

Status ReadFlatColumnRows(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                          const ColumnChunk& chunk, const OffsetIndex& offset_index, int64_t num_rows,
                          const std::vector<int64_t>& rows, const ReaderLimits& limits, ChunkScratch* scratch,
                          Column* out) {
  FLOE_ASSIGN_OR_RETURN(ChunkRange range, ValidateChunk(file_size, leaf, chunk, limits));
  const ColumnMetaData& meta = *chunk.meta_data;
  if (meta.num_values != num_rows) {
    return Status::Corruption("column chunk holds " + std::to_string(meta.num_values) +
                              " values but its row group " + std::to_string(num_rows) + " rows");
  }
  FLOE_RETURN_IF_ERROR(ValidateOffsetIndex(offset_index, range, num_rows));
  const std::vector<PageLocation>& pages = offset_index.page_locations;
  auto page_rows = [&](size_t p) {
    const int64_t end = p + 1 < pages.size() ? pages[p + 1].first_row_index : num_rows;
    return end - pages[p].first_row_index;
  };
  // The pages holding `rows`.
  std::vector<size_t> selected;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t row = rows[i];
    if (row < 0 || row >= num_rows || (i > 0 && row <= rows[i - 1])) {
      return Status::InvalidArgument("row " + std::to_string(row) + " is not an ascending row of the " +
                                     std::to_string(num_rows) + " of the row group");
    }
    const size_t page = static_cast<size_t>(std::upper_bound(pages.begin(), pages.end(), row,
                                                             [](int64_t r, const PageLocation& location) {
                                                               return r < location.first_row_index;
                                                             }) -
                                            pages.begin() - 1);
    if (selected.empty() || selected.back() != page) selected.push_back(page);
  }
  // The byte pieces to read: what precedes the first data page (the
  // dictionary page), then each selected page.
  struct Piece {
    int64_t offset, length;
  };
  std::vector<Piece> pieces;
  const bool has_prefix = pages.front().offset > range.start;
  if (has_prefix) pieces.push_back({range.start, pages.front().offset - range.start});
  for (size_t page : selected) pieces.push_back({pages[page].offset, pages[page].compressed_page_size});
  // Read them with as few requests as gaps allow, into one buffer.
  struct Read {
    int64_t offset, length;
    size_t buffer_at;
  };
  std::vector<Read> reads;
  std::vector<size_t> piece_at;  // each piece's position in the buffer
  size_t buffer_size = 0;
  for (const Piece& piece : pieces) {
    if (!reads.empty() && piece.offset - (reads.back().offset + reads.back().length) <= kMaxSkippedGap) {
      const int64_t grown = piece.offset + piece.length - reads.back().offset;
      buffer_size += static_cast<size_t>(grown - reads.back().length);
      reads.back().length = grown;
    } else {
      reads.push_back({piece.offset, piece.length, buffer_size});
      buffer_size += static_cast<size_t>(piece.length);
    }
    piece_at.push_back(reads.back().buffer_at + static_cast<size_t>(piece.offset - reads.back().offset));
  }
  scratch->chunk.resize(buffer_size);
  for (const Read& read : reads) {
    FLOE_RETURN_IF_ERROR(file.ReadAt(read.offset, read.length, scratch->chunk.data() + read.buffer_at));
  }
  auto piece_bytes = [&](size_t i) {
    return std::span<const uint8_t>(scratch->chunk.data() + piece_at[i],
                                    static_cast<size_t>(pieces[i].length));
  };
  FLOE_ASSIGN_OR_RETURN(Codec codec, ToCodec(meta.codec));
  // The selected pages, each with the rows wanted of it: only those values
  // are copied out, straight into `out`.
  ChunkDecoder decoder(leaf, meta, codec, limits, scratch, nullptr, out);
  if (has_prefix) FLOE_RETURN_IF_ERROR(decoder.DecodeDictionaryPrefix(piece_bytes(0)));
  std::vector<std::span<const uint8_t>> segments;
  std::vector<std::vector<int64_t>> page_slots(selected.size());
  int64_t selected_rows = 0;
  size_t next_row = 0;
  for (size_t i = 0; i < selected.size(); ++i) {
    const size_t page = selected[i];
    segments.push_back(piece_bytes(i + (has_prefix ? 1 : 0)));
    selected_rows += page_rows(page);
    const int64_t page_end = pages[page].first_row_index + page_rows(page);
    for (; next_row < rows.size() && rows[next_row] < page_end; ++next_row)
      page_slots[i].push_back(rows[next_row] - pages[page].first_row_index);
  }
  Status status = decoder.Decode(segments, selected_rows, page_slots);
  if (!status.ok()) return status.WithContext("the pages of the offset index");
  return Status::OK();
}

}  // namespace floe::parquet
