#include "stream/kafka/kafka_record.h"

#include <librdkafka/rdkafka.h>

namespace floe::kafka {

std::string TopicPartition::ToString() const {
  return topic + "[" + std::to_string(partition) + "]";
}

KafkaRecord::KafkaRecord(rd_kafka_message_s* message) : message_(message) {
  // librdkafka parses headers on first use; doing it here leaves the record
  // immutable, so it may be read from several threads.
  rd_kafka_headers_t* headers = nullptr;
  (void)rd_kafka_message_headers(message_, &headers);
}

KafkaRecord& KafkaRecord::operator=(KafkaRecord&& other) noexcept {
  if (this != &other) {
    if (message_ != nullptr) rd_kafka_message_destroy(message_);
    message_ = other.message_;
    other.message_ = nullptr;
  }
  return *this;
}

KafkaRecord::~KafkaRecord() {
  if (message_ != nullptr) rd_kafka_message_destroy(message_);
}

std::string_view KafkaRecord::topic() const {
  return rd_kafka_topic_name(message_->rkt);
}

int32_t KafkaRecord::partition() const {
  return message_->partition;
}

int64_t KafkaRecord::offset() const {
  return message_->offset;
}

int64_t KafkaRecord::timestamp_ms() const {
  rd_kafka_timestamp_type_t type;
  return rd_kafka_message_timestamp(message_, &type);
}

TimestampType KafkaRecord::timestamp_type() const {
  rd_kafka_timestamp_type_t type;
  rd_kafka_message_timestamp(message_, &type);
  switch (type) {
    case RD_KAFKA_TIMESTAMP_CREATE_TIME: return TimestampType::kCreateTime;
    case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME: return TimestampType::kLogAppendTime;
    default: return TimestampType::kNone;
  }
}

std::optional<std::string_view> KafkaRecord::key() const {
  if (message_->key == nullptr) return std::nullopt;
  return std::string_view(static_cast<const char*>(message_->key), message_->key_len);
}

std::optional<std::string_view> KafkaRecord::value() const {
  if (message_->payload == nullptr) return std::nullopt;
  return std::string_view(static_cast<const char*>(message_->payload), message_->len);
}

std::vector<KafkaHeader> KafkaRecord::headers() const {
  std::vector<KafkaHeader> out;
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(message_, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR || headers == nullptr) {
    return out;
  }
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i) {
    KafkaHeader header;
    header.name = name;
    if (value != nullptr) header.value = std::string_view(static_cast<const char*>(value), size);
    out.push_back(header);
  }
  return out;
}

int64_t KafkaRecord::payload_bytes() const {
  return static_cast<int64_t>(message_->key_len + message_->len);
}

}  // namespace floe::kafka
