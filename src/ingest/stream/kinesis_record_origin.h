// KinesisRecordOrigin: how rows and dead letters of a Kinesis source say
// where a record came from (stream_records.h).
//
// Contract: the metadata column is `kinesis` {stream string, shard string,
// sequence_number string, subsequence_number long (the user record's index
// in its KPL aggregate, 0 for a plain record), arrival timestamptz (ms,
// ApproximateArrivalTimestamp), partition_key string}; dead letters start
// with the same members (arrival in µs). Sequence numbers stay decimal
// strings (up to 129 digits). A record is described as "Kinesis stream <s>,
// shard <id>, sequence number <n>[ (user record <k> of its KPL
// aggregate)]"; rescued JSON values carry the range's uri and "_record",
// the record's index in the range. Immutable: thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "ingest/stream/stream_records.h"

namespace floe::ingest {

class KinesisRecordOrigin final : public RecordOrigin {
 public:
  // `range_uri`: the unit's ledger uri (kinesis://<stream>/<shard>/<first>-<last>).
  KinesisRecordOrigin(std::string stream, std::string shard, std::string range_uri)
      : stream_(std::move(stream)), shard_(std::move(shard)), range_uri_(std::move(range_uri)) {}

  std::string Where() const override;
  std::string Describe(const StreamRecord& record) const override;
  std::string_view metadata_column() const override { return "kinesis"; }
  std::string_view metadata_key() const override { return "kinesis_metadata"; }
  Schema MetadataMembers() const override;
  void AppendMetadata(const StreamRecord& record, std::vector<Column>* members) const override;
  Schema DeadLetterPlace() const override;
  void AppendDeadLetterPlace(const StreamRecord& record, std::vector<Column>* columns) const override;
  formats::RescueLocation Rescue() const override;
  int64_t RescuePosition(const StreamRecord& record, size_t index) const override;

 private:
  // The members both the metadata column and the dead letters have, with
  // arrival in `arrival_unit`.
  Schema Members(TimeUnit arrival_unit) const;
  void Append(const StreamRecord& record, int64_t arrival_scale, std::vector<Column>* columns) const;

  const std::string stream_;
  const std::string shard_;
  const std::string range_uri_;
};

}  // namespace floe::ingest
