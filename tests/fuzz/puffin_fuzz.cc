// Fuzzes the Puffin footer reader and the deletion-vector codec, both read
// from files other engines wrote. Byte 0 picks the target:
//   even: the rest is a Puffin file; its footer is read and every blob it
//         lists is checked to lie inside the file, and each
//         deletion-vector-v1 blob is decoded;
//   odd:  the rest is one deletion-vector blob.
// Beyond "no crash, no hang": a vector that decodes has sorted unique
// positions, and re-serializing them decodes to the same positions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_checks.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/puffin/puffin.h"
#include "io/memory_file.h"

namespace {

using namespace floe;
using namespace floe::iceberg;

// Few enough that a valid run container cannot make a test case slow.
constexpr int64_t kMaxPositions = int64_t{1} << 20;

void CheckVector(std::string_view blob) {
  auto positions = DeserializeDeletionVector(blob, kMaxPositions);
  if (!positions.ok()) return;
  CHECK_PROPERTY(static_cast<int64_t>(positions->size()) <= kMaxPositions);
  for (size_t i = 1; i < positions->size(); ++i) CHECK_PROPERTY((*positions)[i - 1] < (*positions)[i]);
  auto again = SerializeDeletionVector(*positions);
  CHECK_PROPERTY(again.ok());
  auto back = DeserializeDeletionVector(*again, kMaxPositions);
  CHECK_PROPERTY(back.ok());
  CHECK_PROPERTY(*back == *positions);
}

void CheckPuffinFile(const uint8_t* data, size_t size) {
  MemoryInputFile file("fuzz.puffin", std::vector<uint8_t>(data, data + size));
  auto footer = ReadPuffinFooter(file, int64_t{1} << 20);
  if (!footer.ok()) return;
  CHECK_PROPERTY(footer->footer_size <= static_cast<int64_t>(size));
  for (const PuffinBlobMetadata& blob : footer->blobs) {
    CHECK_PROPERTY(blob.offset >= static_cast<int64_t>(kPuffinMagic.size()) && blob.length >= 0);
    CHECK_PROPERTY(blob.offset + blob.length <= static_cast<int64_t>(size) - footer->footer_size);
    if (blob.type != kDeletionVectorBlobType) continue;
    CheckVector(std::string_view(reinterpret_cast<const char*>(data) + blob.offset,
                                 static_cast<size_t>(blob.length)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t size) {
  if (size < 1) return 0;
  const uint8_t* data = input + 1;
  const size_t rest = size - 1;
  if (input[0] % 2 == 0) {
    CheckPuffinFile(data, rest);
  } else {
    CheckVector(std::string_view(reinterpret_cast<const char*>(data), rest));
  }
  return 0;
}
