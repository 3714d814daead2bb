#include "aws/sqs/s3_event.h"

#include <cctype>
#include <cmath>

#include "common/json.h"
#include "common/strings.h"
#include "io/http/url_encoding.h"
#include "io/s3/s3_client.h"

namespace floe::aws::sqs {

using json::Json;

namespace {

S3EventKind KindOfEventName(std::string_view name) {
  if (name.rfind("ObjectCreated:", 0) == 0 || name == "Object Created") return S3EventKind::kObjectCreated;
  if (name.rfind("ObjectRemoved:", 0) == 0 || name == "Object Deleted") return S3EventKind::kObjectRemoved;
  return S3EventKind::kOther;
}

Result<std::string> OptionalText(const Json& object, const char* key, const std::string& where) {
  const Json* member = json::FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::string();
  if (!member->is_string()) return Status::Corruption(where + ": '" + key + "' is not a string");
  return member->get<std::string>();
}

// A size given as a number (AWS) or a decimal string; -1 when absent.
Result<int64_t> OptionalSize(const Json& object, const std::string& where) {
  const Json* member = json::FindMember(object, "size");
  if (member == nullptr || member->is_null()) return int64_t{-1};
  if (member->is_number_integer() || member->is_number_unsigned()) {
    auto value = json::JsonToInt64(*member, "size");
    if (!value.ok() || *value < 0) return Status::Corruption(where + ": 'size' is not a byte count");
    return *value;
  }
  if (member->is_string()) {
    const std::string text = member->get<std::string>();
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) {
      return Status::Corruption(where + ": 'size' is not a byte count");
    }
    return static_cast<int64_t>(std::stoll(text));
  }
  return Status::Corruption(where + ": 'size' is not a byte count");
}

// ISO-8601 text, or epoch seconds as a number (as moto's EventBridge sends); 0 when unreadable.
int64_t EventTimeMs(const Json* value) {
  if (value == nullptr) return 0;
  if (value->is_string()) {
    auto parsed = s3::S3Client::ParseHttpTime(value->get<std::string>());
    return parsed.ok() ? *parsed : 0;
  }
  if (value->is_number()) {
    const double seconds = value->get<double>();
    if (std::isfinite(seconds) && seconds >= 0 && seconds < 1e11)
      return static_cast<int64_t>(seconds * 1000.0);
  }
  return 0;
}

Result<S3ObjectEvent> ParseS3Record(const Json& record, const std::string& where) {
  if (!record.is_object()) return Status::Corruption(where + " is not an object");
  FLOE_ASSIGN_OR_RETURN(std::string source, OptionalText(record, "eventSource", where));
  if (!source.empty() && source != "aws:s3") {
    return Status::Corruption(where + " is not an S3 event (eventSource '" + source.substr(0, 100) + "')");
  }
  S3ObjectEvent event;
  FLOE_ASSIGN_OR_RETURN(event.event_name, OptionalText(record, "eventName", where));
  if (event.event_name.empty()) return Status::Corruption(where + " has no eventName");
  // S3 sends "ObjectCreated:Put"; some relays keep the configuration's "s3:" prefix.
  if (event.event_name.rfind("s3:", 0) == 0) event.event_name = event.event_name.substr(3);
  event.kind = KindOfEventName(event.event_name);
  FLOE_ASSIGN_OR_RETURN(event.region, OptionalText(record, "awsRegion", where));
  event.event_time_ms = EventTimeMs(json::FindMember(record, "eventTime"));
  const Json* s3 = json::FindMember(record, "s3");
  const Json* bucket = s3 != nullptr ? json::FindMember(*s3, "bucket") : nullptr;
  const Json* object = s3 != nullptr ? json::FindMember(*s3, "object") : nullptr;
  if (bucket == nullptr || !bucket->is_object() || object == nullptr || !object->is_object()) {
    return Status::Corruption(where + " has no s3.bucket and s3.object");
  }
  FLOE_ASSIGN_OR_RETURN(event.bucket, OptionalText(*bucket, "name", where + ", s3.bucket"));
  FLOE_ASSIGN_OR_RETURN(std::string encoded_key, OptionalText(*object, "key", where + ", s3.object"));
  if (event.bucket.empty() || encoded_key.empty())
    return Status::Corruption(where + " has no bucket name or key");
  auto key = http::PercentDecode(encoded_key, /*plus_is_space=*/true);
  if (!key.ok()) {
    return Status::Corruption(where + ", key '" + encoded_key.substr(0, 200) +
                              "': " + key.status().message());
  }
  event.key = std::move(*key);
  FLOE_ASSIGN_OR_RETURN(event.size, OptionalSize(*object, where + ", s3.object"));
  FLOE_ASSIGN_OR_RETURN(event.etag, OptionalText(*object, "eTag", where + ", s3.object"));
  FLOE_ASSIGN_OR_RETURN(event.version_id, OptionalText(*object, "versionId", where + ", s3.object"));
  FLOE_ASSIGN_OR_RETURN(event.sequencer, OptionalText(*object, "sequencer", where + ", s3.object"));
  return event;
}

Result<S3ObjectEvent> ParseEventBridge(const Json& message, const std::string& where) {
  S3ObjectEvent event;
  FLOE_ASSIGN_OR_RETURN(event.event_name, OptionalText(message, "detail-type", where));
  event.kind = KindOfEventName(event.event_name);
  FLOE_ASSIGN_OR_RETURN(event.region, OptionalText(message, "region", where));
  event.event_time_ms = EventTimeMs(json::FindMember(message, "time"));
  const Json* detail = json::FindMember(message, "detail");
  const Json* bucket = detail != nullptr ? json::FindMember(*detail, "bucket") : nullptr;
  const Json* object = detail != nullptr ? json::FindMember(*detail, "object") : nullptr;
  if (bucket == nullptr || !bucket->is_object() || object == nullptr || !object->is_object()) {
    return Status::Corruption(where + ": EventBridge S3 event without detail.bucket and detail.object");
  }
  FLOE_ASSIGN_OR_RETURN(event.bucket, OptionalText(*bucket, "name", where + ", detail.bucket"));
  FLOE_ASSIGN_OR_RETURN(event.key, OptionalText(*object, "key", where + ", detail.object"));
  if (event.bucket.empty() || event.key.empty())
    return Status::Corruption(where + " has no bucket name or key");
  FLOE_ASSIGN_OR_RETURN(event.size, OptionalSize(*object, where + ", detail.object"));
  FLOE_ASSIGN_OR_RETURN(event.etag, OptionalText(*object, "etag", where + ", detail.object"));
  if (event.etag.empty()) {
    FLOE_ASSIGN_OR_RETURN(event.etag, OptionalText(*object, "eTag", where + ", detail.object"));
  }
  FLOE_ASSIGN_OR_RETURN(event.version_id, OptionalText(*object, "version-id", where + ", detail.object"));
  FLOE_ASSIGN_OR_RETURN(event.sequencer, OptionalText(*object, "sequencer", where + ", detail.object"));
  return event;
}

Result<S3EventMessage> ParseDocument(const Json& document, const std::string& where, bool allow_sns) {
  if (!document.is_object()) return Status::Corruption(where + " is not a JSON object");
  S3EventMessage message;
  if (const Json* records = json::FindMember(document, "Records"); records != nullptr) {
    if (!records->is_array()) return Status::Corruption(where + ": 'Records' is not an array");
    for (size_t i = 0; i < records->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(S3ObjectEvent event,
                            ParseS3Record((*records)[i], where + ", record " + std::to_string(i)));
      message.events.push_back(std::move(event));
    }
    return message;
  }
  FLOE_ASSIGN_OR_RETURN(std::string event, OptionalText(document, "Event", where));
  if (event == "s3:TestEvent") {
    message.test_event = true;
    return message;
  }
  FLOE_ASSIGN_OR_RETURN(std::string type, OptionalText(document, "Type", where));
  if (type == "Notification" && json::FindMember(document, "Message") != nullptr) {
    if (!allow_sns) return Status::Corruption(where + ": an SNS notification inside an SNS notification");
    FLOE_ASSIGN_OR_RETURN(std::string inner, OptionalText(document, "Message", where));
    auto parsed = json::ParseJson(inner);
    if (!parsed.ok())
      return Status::Corruption(where + ": the SNS Message is not JSON (" + parsed.status().message() + ")");
    FLOE_ASSIGN_OR_RETURN(S3EventMessage unwrapped, ParseDocument(*parsed, where + ", SNS Message", false));
    unwrapped.envelope = S3EventEnvelope::kSns;
    return unwrapped;
  }
  FLOE_ASSIGN_OR_RETURN(std::string source, OptionalText(document, "source", where));
  if (source == "aws.s3" && json::FindMember(document, "detail") != nullptr) {
    FLOE_ASSIGN_OR_RETURN(S3ObjectEvent object, ParseEventBridge(document, where));
    message.envelope = S3EventEnvelope::kEventBridge;
    message.events.push_back(std::move(object));
    return message;
  }
  return Status::Corruption(where +
                            " is not an S3 event notification (no Records, s3:TestEvent, SNS "
                            "Notification or EventBridge aws.s3 event)");
}

}  // namespace

Result<S3EventMessage> ParseS3EventMessage(std::string_view body, const std::string& message_id) {
  const std::string where = "SQS message " + message_id;
  auto parsed = json::ParseJson(body);
  if (!parsed.ok()) return Status::Corruption(where + " is not JSON (" + parsed.status().message() + ")");
  return ParseDocument(*parsed, where, true);
}

int CompareSequencers(std::string_view a, std::string_view b) {
  const size_t width = std::max(a.size(), b.size());
  for (size_t i = 0; i < width; ++i) {
    const char x = i < a.size() ? AsciiUpper(a[i]) : '0';
    const char y = i < b.size() ? AsciiUpper(b[i]) : '0';
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace floe::aws::sqs
