// S3 event notifications as they arrive in SQS messages: S3's own event
// records, the same wrapped in an SNS notification, S3 events delivered by
// EventBridge, and S3's test event.
//
// Contract: ParseS3EventMessage reads one message body:
// - {"Records": [...]} with eventSource "aws:s3": each record's eventName
//   ("ObjectCreated:Put", ...), bucket, key (URL-decoded: '+' is a space,
//   %XX a byte), size, eTag, versionId, sequencer, eventTime, awsRegion;
// - {"Type": "Notification", "Message": "<json>"}: an SNS envelope whose
//   Message is one of the other forms (unwrapped once);
// - {"source": "aws.s3", "detail-type": "Object Created", "detail": {...}}:
//   EventBridge (keys are not URL-encoded there);
// - {"Event": "s3:TestEvent", ...}: test_event is set and there are no events.
// Anything else — not JSON, another service's events, a record without
// bucket or key, a malformed escape — is Corruption naming the message id;
// nothing here asserts, and the work is bounded by the body's size.
// CompareSequencers orders the sequencers of two events of the same key as
// S3 documents: the shorter right-padded with zeros, then compared as text
// (hex digits compared case-insensitively). Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::aws::sqs {

enum class S3EventKind { kObjectCreated, kObjectRemoved, kOther };

struct S3ObjectEvent {
  std::string event_name;  // "ObjectCreated:Put"; EventBridge: "Object Created"
  S3EventKind kind = S3EventKind::kOther;
  std::string bucket;
  std::string key;    // decoded
  int64_t size = -1;  // -1: not given
  std::string etag;
  std::string version_id;
  std::string sequencer;      // "" when not given
  int64_t event_time_ms = 0;  // 0 when not given or not readable
  std::string region;

  std::string Uri() const { return "s3://" + bucket + "/" + key; }
};

enum class S3EventEnvelope { kS3, kSns, kEventBridge };

struct S3EventMessage {
  S3EventEnvelope envelope = S3EventEnvelope::kS3;
  bool test_event = false;
  std::vector<S3ObjectEvent> events;
};

Result<S3EventMessage> ParseS3EventMessage(std::string_view body, const std::string& message_id);

int CompareSequencers(std::string_view a, std::string_view b);

}  // namespace floe::aws::sqs
