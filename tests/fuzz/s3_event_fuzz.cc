// Fuzzes the S3 event notification parser (SQS message bodies: S3 records,
// SNS envelopes, EventBridge events, test events): a message or an error
// naming the message id, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aws/sqs/s3_event.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = floe::aws::sqs::ParseS3EventMessage(body, "fuzz-message");
  if (!parsed.ok() && parsed.status().message().find("fuzz-message") == std::string::npos) std::abort();
  if (parsed.ok()) {
    for (const auto& event : parsed->events) {
      (void)floe::aws::sqs::CompareSequencers(event.sequencer, "0055AED6DCD90281E5");
    }
  }
  return 0;
}
