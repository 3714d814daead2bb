// Fuzzes the Parquet value decoders. Byte 0 picks the decoder, byte 1 a
// parameter (bit width, value width or count); the rest is the encoded data.
// Decoded DELTA_BINARY_PACKED and RLE values are re-encoded and decoded again
// to check the encoders agree with the decoders.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "formats/parquet/encoding/byte_stream_split.h"
#include "formats/parquet/encoding/delta_binary_packed.h"
#include "formats/parquet/encoding/delta_byte_array.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace {

using namespace floe::parquet;

constexpr int64_t kMaxValues = 4096;

void Check(bool condition) {
  if (!condition) std::abort();
}

void FuzzRle(const uint8_t* data, size_t size, int bit_width) {
  RleBitPackedDecoder decoder(data, size, bit_width);
  std::vector<uint32_t> values(kMaxValues);
  int64_t total = 0;
  for (int64_t chunk = 1; total < kMaxValues; chunk = chunk * 5 % 97 + 1) {
    auto got = decoder.DecodeUpTo(values.data() + total, std::min(chunk, kMaxValues - total));
    if (!got.ok() || *got == 0) break;
    total += *got;
  }
  if (bit_width < 0 || bit_width > 32) return;
  const uint64_t limit = bit_width == 32 ? ~uint32_t{0} : (uint64_t{1} << bit_width) - 1;
  RleBitPackedEncoder encoder(bit_width);
  for (int64_t i = 0; i < total; ++i) {
    Check(values[static_cast<size_t>(i)] <= limit);
    encoder.Put(values[static_cast<size_t>(i)]);
  }
  const std::vector<uint8_t> encoded = encoder.Finish();
  RleBitPackedDecoder again(encoded.data(), encoded.size(), bit_width);
  std::vector<uint32_t> round_trip(static_cast<size_t>(total));
  Check(again.Decode(round_trip.data(), total).ok());
  Check(std::equal(round_trip.begin(), round_trip.end(), values.begin()));
}

template <typename T>
void FuzzDeltaBinaryPacked(const uint8_t* data, size_t size) {
  DeltaBinaryPackedDecoder<T> decoder;
  if (!decoder.Init(data, size).ok()) return;
  const int64_t count = std::min(decoder.total_values(), kMaxValues);
  std::vector<T> values(static_cast<size_t>(count));
  const int64_t half = count / 2;
  if (!decoder.Decode(values.data(), half).ok()) return;
  if (!decoder.Decode(values.data() + half, count - half).ok()) return;
  auto end = decoder.BytesConsumedAfterAllValues();
  if (end.ok()) Check(*end <= size);
  DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values.data(), count);
  const std::vector<uint8_t> encoded = encoder.Finish();
  DeltaBinaryPackedDecoder<T> again;
  Check(again.Init(encoded.data(), encoded.size()).ok());
  std::vector<T> round_trip(static_cast<size_t>(count));
  Check(again.Decode(round_trip.data(), count).ok());
  Check(round_trip == values);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t input_size) {
  if (input_size < 2) return 0;
  const uint8_t selector = input[0];
  const uint8_t parameter = input[1];
  const uint8_t* data = input + 2;
  const size_t size = input_size - 2;
  const int64_t small_count = parameter * 16;  // 0..4080
  std::vector<int64_t> offsets;
  std::vector<uint8_t> bytes;
  size_t consumed = 0;
  switch (selector % 10) {
    case 0: FuzzRle(data, size, parameter % 34); break;
    case 1: FuzzDeltaBinaryPacked<int32_t>(data, size); break;
    case 2: FuzzDeltaBinaryPacked<int64_t>(data, size); break;
    case 3: (void)DecodeDeltaLengthByteArray(data, size, small_count, &offsets, &bytes); break;
    case 4: (void)DecodeDeltaByteArray(data, size, small_count, &offsets, &bytes); break;
    case 5: {
      const int width = 1 + parameter % 16;
      // Mostly a matching size; sometimes one value more than there is.
      const int64_t count = static_cast<int64_t>(size) / width + (parameter >= 128 ? 1 : 0);
      std::vector<uint8_t> out(static_cast<size_t>(count * width));
      if (DecodeByteStreamSplit(data, size, width, count, out.data()).ok()) {
        Check(EncodeByteStreamSplit(out.data(), width, count) == std::vector<uint8_t>(data, data + size));
      }
      break;
    }
    case 6: {
      std::vector<uint8_t> out(static_cast<size_t>(small_count));
      (void)DecodePlainBooleans(data, size, small_count, out.data());
      break;
    }
    case 7: {
      if (DecodePlainByteArray(data, size, small_count, &offsets, &bytes, &consumed).ok()) {
        Check(consumed <= size);
        std::vector<int64_t> column_offsets = {0};
        column_offsets.insert(column_offsets.end(), offsets.begin(), offsets.end());
        std::vector<uint8_t> encoded;
        EncodePlainByteArrays(column_offsets.data(), bytes.data(), small_count, &encoded);
        Check(encoded == std::vector<uint8_t>(data, data + consumed));
      }
      break;
    }
    case 8: {
      const int width = 1 + parameter % 16;
      std::vector<uint8_t> out(static_cast<size_t>(small_count / 16 * width));
      (void)DecodePlainFixed(data, size, width, small_count / 16, out.data(), &consumed);
      break;
    }
    case 9: {
      // DELTA_BYTE_ARRAY re-encode check on successfully decoded values.
      if (DecodeDeltaByteArray(data, size, small_count / 16, &offsets, &bytes).ok()) {
        std::vector<std::string_view> values;
        int64_t begin = 0;
        for (int64_t end : offsets) {
          values.emplace_back(reinterpret_cast<const char*>(bytes.data()) + begin,
                              static_cast<size_t>(end - begin));
          begin = end;
        }
        const std::vector<uint8_t> encoded = EncodeDeltaByteArray(values);
        std::vector<int64_t> offsets2;
        std::vector<uint8_t> bytes2;
        Check(
            DecodeDeltaByteArray(encoded.data(), encoded.size(), small_count / 16, &offsets2, &bytes2).ok());
        Check(offsets2 == offsets && bytes2 == bytes);
      }
      break;
    }
  }
  return 0;
}
