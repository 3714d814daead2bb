// Fuzzes KPL de-aggregation: it must return user records or an error, never
// crash, and never return more data than it was given. Random bytes rarely
// carry the magic and a matching MD5, so when the first byte is even the
// rest is framed as an aggregate (magic + bytes + their MD5) to reach the
// protobuf decoder; otherwise the bytes go in as they are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "aws/digest.h"
#include "aws/kinesis/kpl_aggregation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::aws;
  std::string input;
  if (size > 0 && (data[0] & 1) == 0) {
    const std::string message(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto digest = Md5({data + 1, size - 1});
    input.assign(reinterpret_cast<const char*>(kinesis::kKplMagic), 4);
    input += message;
    input.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  } else {
    input.assign(reinterpret_cast<const char*>(data), size);
  }
  auto users = kinesis::Deaggregate(input, "pk");
  if (users.ok()) {
    // Each record's data is copied from its own bytes of the input; keys are
    // shared by index (a table entry may serve many records), so they are
    // bounded by Kinesis's limits instead.
    size_t data = 0;
    for (const auto& user : *users) {
      data += user.data.size();
      if (user.partition_key.size() > kinesis::kMaxKplPartitionKeyBytes && user.aggregated) std::abort();
      if (user.explicit_hash_key.size() > kinesis::kMaxKplExplicitHashKeyBytes) std::abort();
    }
    if (data > input.size()) std::abort();
  }
  return 0;
}
