#include "ingest/stream/kinesis_record_origin.h"

namespace floe::ingest {

std::string KinesisRecordOrigin::Where() const {
  return "Kinesis stream " + stream_ + ", shard " + shard_;
}

std::string KinesisRecordOrigin::Describe(const StreamRecord& record) const {
  std::string text = Where() + ", sequence number " + record.position;
  if (record.subsequence > 0) {
    text += " (user record " + std::to_string(record.subsequence) + " of its KPL aggregate)";
  }
  return text;
}

Schema KinesisRecordOrigin::Members(TimeUnit arrival_unit) const {
  return {MakeField("stream", String(), false),
          MakeField("shard", String(), false),
          MakeField("sequence_number", String(), false),
          MakeField("subsequence_number", Int64(), false),
          MakeField("arrival", Timestamp(arrival_unit, true)),
          MakeField("partition_key", String())};
}

void KinesisRecordOrigin::Append(const StreamRecord& record, int64_t arrival_scale,
                                 std::vector<Column>* columns) const {
  auto& c = *columns;
  c[0].AppendBytes(stream_);
  c[1].AppendBytes(shard_);
  c[2].AppendBytes(record.position);
  c[3].AppendValue<int64_t>(record.subsequence);
  if (record.timestamp_ms >= 0) {
    c[4].AppendValue<int64_t>(record.timestamp_ms * arrival_scale);
  } else {
    c[4].AppendNull();
  }
  if (record.key) {
    c[5].AppendBytes(*record.key);
  } else {
    c[5].AppendNull();
  }
}

Schema KinesisRecordOrigin::MetadataMembers() const {
  return Members(TimeUnit::kMilli);
}

void KinesisRecordOrigin::AppendMetadata(const StreamRecord& record, std::vector<Column>* members) const {
  Append(record, 1, members);
}

Schema KinesisRecordOrigin::DeadLetterPlace() const {
  return Members(TimeUnit::kMicro);
}

void KinesisRecordOrigin::AppendDeadLetterPlace(const StreamRecord& record,
                                                std::vector<Column>* columns) const {
  Append(record, 1000, columns);
}

formats::RescueLocation KinesisRecordOrigin::Rescue() const {
  formats::RescueLocation location;
  location.unit = range_uri_;
  location.position_key = "_record";
  return location;
}

int64_t KinesisRecordOrigin::RescuePosition(const StreamRecord& record, size_t index) const {
  (void)record;
  return static_cast<int64_t>(index);
}

}  // namespace floe::ingest
