// libFuzzer target for the Parquet thrift parsers. The first byte selects the
// struct (FileMetaData, PageHeader, ColumnIndex, OffsetIndex); the rest is the
// input. Whatever parses must serialize and parse back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "formats/parquet/thrift/parquet_types.h"

namespace {

template <typename T>
void ParseAndRoundTrip(std::span<const uint8_t> input,
                       floe::Result<size_t> (*deserialize)(std::span<const uint8_t>, T*),
                       void (*serialize)(const T&, std::vector<uint8_t>*)) {
  T value;
  auto consumed = deserialize(input, &value);
  if (!consumed.ok()) {
    if (consumed.status().kind() != floe::ErrorKind::kCorruption) std::abort();
    return;
  }
  if (*consumed > input.size()) std::abort();
  std::vector<uint8_t> bytes;
  serialize(value, &bytes);
  T again;
  auto reparsed = deserialize(bytes, &again);
  if (!reparsed.ok() || *reparsed != bytes.size()) std::abort();
  std::vector<uint8_t> bytes_again;
  serialize(again, &bytes_again);
  if (bytes_again != bytes) std::abort();  // the serialized form is a fixed point
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> input(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      ParseAndRoundTrip<floe::parquet::FileMetaData>(input, floe::parquet::DeserializeFileMetaData,
                                                     floe::parquet::SerializeFileMetaData);
      break;
    case 1:
      ParseAndRoundTrip<floe::parquet::PageHeader>(input, floe::parquet::DeserializePageHeader,
                                                   floe::parquet::SerializePageHeader);
      break;
    case 2:
      ParseAndRoundTrip<floe::parquet::ColumnIndex>(input, floe::parquet::DeserializeColumnIndex,
                                                    floe::parquet::SerializeColumnIndex);
      break;
    case 3:
      ParseAndRoundTrip<floe::parquet::OffsetIndex>(input, floe::parquet::DeserializeOffsetIndex,
                                                    floe::parquet::SerializeOffsetIndex);
      break;
  }
  return 0;
}
