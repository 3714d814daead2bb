// KafkaRecord: one record fetched from a Kafka partition, and the per-partition
// offset ranges a fetch returns them in.
//
// Contract: a KafkaRecord owns librdkafka's message (move-only); its key,
// value, header and topic views stay valid as long as the record lives. A
// null key or value (a tombstone's value) is std::nullopt, an empty one is "".
// PartitionRecords is a contiguous offset range [from_offset, to_offset) of
// one partition: every offset in it was consumed — the records it holds, and
// offsets that hold no record a consumer can see (transaction markers,
// compacted-away records). Consecutive ranges of a partition meet exactly
// (the next range's from_offset is this one's to_offset) until the partition
// is sought, so a ledger can prove that no offset was skipped or applied twice.
// A record is immutable once constructed (its headers are parsed then), so
// several threads may read it at once; moving it is not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

struct rd_kafka_message_s;

namespace floe::kafka {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;

  auto operator<=>(const TopicPartition&) const = default;
  // "topic[3]", the form every error message names a partition in.
  std::string ToString() const;
};

struct KafkaHeader {
  std::string_view name;
  std::optional<std::string_view> value;  // a header may have a null value
};

enum class TimestampType : uint8_t {
  kNone,           // the broker or producer gave none (old message format)
  kCreateTime,     // set by the producer
  kLogAppendTime,  // set by the broker on append
};

class KafkaRecord {
 public:
  // Takes ownership of a librdkafka message (err must be 0).
  explicit KafkaRecord(rd_kafka_message_s* message);
  KafkaRecord(KafkaRecord&& other) noexcept : message_(other.message_) { other.message_ = nullptr; }
  KafkaRecord& operator=(KafkaRecord&& other) noexcept;
  KafkaRecord(const KafkaRecord&) = delete;
  KafkaRecord& operator=(const KafkaRecord&) = delete;
  ~KafkaRecord();

  std::string_view topic() const;
  int32_t partition() const;
  int64_t offset() const;
  // Milliseconds since the epoch, with what set it; -1 with kNone.
  int64_t timestamp_ms() const;
  TimestampType timestamp_type() const;
  std::optional<std::string_view> key() const;
  std::optional<std::string_view> value() const;
  // The record's headers in order (names may repeat); empty when it has none.
  std::vector<KafkaHeader> headers() const;
  // Key plus value bytes: what fetch limits count.
  int64_t payload_bytes() const;

 private:
  rd_kafka_message_s* message_ = nullptr;
};

struct PartitionRecords {
  TopicPartition partition;
  int64_t from_offset = 0;           // first offset the range covers
  int64_t to_offset = 0;             // one past the last offset it covers
  std::vector<KafkaRecord> records;  // in offset order, each within the range
  // The consumer reached the partition's end (its high watermark, or the last
  // stable offset under read_committed) at to_offset.
  bool reached_end = false;
  // The partition reached its stop offset (PartitionStart::stop_offset): no
  // further record of it will be returned until it is sought.
  bool reached_stop = false;
};

}  // namespace floe::kafka
