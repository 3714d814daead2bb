// KafkaRecordOrigin: how rows and dead letters of a Kafka source say where
// a record came from (stream_records.h).
//
// Contract: the metadata column is `kafka` {topic string, partition int,
// offset long, timestamp timestamptz (ms), key binary}; dead letters start
// with topic, partition, offset, timestamp (µs), key (base64); a record is
// described as "<topic>[<partition>] offset <offset>"; rescued JSON values
// carry "_offset". StreamRecord::position is the offset. Immutable:
// thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "ingest/stream/stream_records.h"

namespace floe::ingest {

class KafkaRecordOrigin final : public RecordOrigin {
 public:
  KafkaRecordOrigin(std::string topic, int32_t partition) : topic_(std::move(topic)), partition_(partition) {}

  std::string Where() const override;
  std::string Describe(const StreamRecord& record) const override;
  std::string_view metadata_column() const override { return "kafka"; }
  std::string_view metadata_key() const override { return "kafka_metadata"; }
  Schema MetadataMembers() const override;
  void AppendMetadata(const StreamRecord& record, std::vector<Column>* members) const override;
  Schema DeadLetterPlace() const override;
  void AppendDeadLetterPlace(const StreamRecord& record, std::vector<Column>* columns) const override;
  formats::RescueLocation Rescue() const override;
  int64_t RescuePosition(const StreamRecord& record, size_t index) const override;

 private:
  const std::string topic_;
  const int32_t partition_;
};

}  // namespace floe::ingest
