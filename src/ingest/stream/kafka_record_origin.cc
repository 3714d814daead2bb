#include "ingest/stream/kafka_record_origin.h"

#include <charconv>

#include "common/base64.h"

namespace floe::ingest {

namespace {

// The offset a Kafka record's position holds (the opener writes it from an int64).
int64_t OffsetOf(const StreamRecord& record) {
  int64_t offset = 0;
  std::from_chars(record.position.data(), record.position.data() + record.position.size(), offset);
  return offset;
}

}  // namespace

std::string KafkaRecordOrigin::Where() const {
  return topic_ + "[" + std::to_string(partition_) + "]";
}

std::string KafkaRecordOrigin::Describe(const StreamRecord& record) const {
  return Where() + " offset " + record.position;
}

Schema KafkaRecordOrigin::MetadataMembers() const {
  return {MakeField("topic", String(), false), MakeField("partition", Int32(), false),
          MakeField("offset", Int64(), false), MakeField("timestamp", Timestamp(TimeUnit::kMilli, true)),
          MakeField("key", Binary())};
}

void KafkaRecordOrigin::AppendMetadata(const StreamRecord& record, std::vector<Column>* members) const {
  auto& m = *members;
  m[0].AppendBytes(topic_);
  m[1].AppendValue<int32_t>(partition_);
  m[2].AppendValue<int64_t>(OffsetOf(record));
  if (record.timestamp_ms >= 0) {
    m[3].AppendValue<int64_t>(record.timestamp_ms);
  } else {
    m[3].AppendNull();
  }
  if (record.key) {
    m[4].AppendBytes(*record.key);
  } else {
    m[4].AppendNull();
  }
}

Schema KafkaRecordOrigin::DeadLetterPlace() const {
  return {MakeField("topic", String(), false), MakeField("partition", Int32(), false),
          MakeField("offset", Int64(), false), MakeField("timestamp", Timestamp(TimeUnit::kMicro, true)),
          MakeField("key", String())};
}

void KafkaRecordOrigin::AppendDeadLetterPlace(const StreamRecord& record,
                                              std::vector<Column>* columns) const {
  auto& c = *columns;
  c[0].AppendBytes(topic_);
  c[1].AppendValue<int32_t>(partition_);
  c[2].AppendValue<int64_t>(OffsetOf(record));
  if (record.timestamp_ms >= 0) {
    c[3].AppendValue<int64_t>(record.timestamp_ms * 1000);
  } else {
    c[3].AppendNull();
  }
  if (record.key) {
    c[4].AppendBytes(Base64Encode(*record.key));
  } else {
    c[4].AppendNull();
  }
}

formats::RescueLocation KafkaRecordOrigin::Rescue() const {
  formats::RescueLocation location;
  location.unit = Where();
  location.position_key = "_offset";
  return location;
}

int64_t KafkaRecordOrigin::RescuePosition(const StreamRecord& record, size_t index) const {
  (void)index;
  return OffsetOf(record);
}

}  // namespace floe::ingest
