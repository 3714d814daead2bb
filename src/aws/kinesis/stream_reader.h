// KinesisStreamReader: reads every shard of one Kinesis stream from given
// positions, in lineage order, in polls of bounded size — the reading side
// of a Kinesis stream discovery.
//
// Contract:
// - Positions: a shard with a start in `starts` resumes there (a committed
//   position is AFTER_SEQUENCE_NUMBER <last>); any other shard starts at
//   `initial` when it has no listed parent, and at TRIM_HORIZON when it
//   descends from shards this reader saw (a reshard's children are read
//   whole). With initial = LATEST, closed shards without a start are skipped
//   (nothing new can arrive in them) and open ones start at LATEST.
// - Lineage: a shard is read only after all of its listed parents are
//   finished (shard_lineage.h). A shard is finished when GetRecords returns
//   no next iterator, or when it is listed closed and the last sequence
//   number read from it (0 when none) is at or past its
//   EndingSequenceNumber. The shard list is read at Open and again after a
//   shard finishes, when an answer names unknown child shards, or every
//   relist_interval_ms.
// - Poll returns records in order per shard (shards take turns being asked
//   first, so one busy shard cannot starve the others), each Kinesis record whole (with
//   all its de-aggregated user records), never one twice, never skipping
//   one: a record's sequence number must be above the shard's position, else
//   Corruption. The data of one poll stays within max_bytes_per_poll except
//   that one Kinesis record is always returned when any is available, so a
//   record larger than the budget still makes progress. Records fetched past
//   the budget are held for the next poll (at most one GetRecords answer in
//   all) and are served before any new request.
// - Positions() advance as records are returned, not as a caller commits
//   them: a caller that could not commit a poll's records reopens a reader
//   at its committed positions (AFTER_SEQUENCE_NUMBER each).
// - An expired iterator is renewed after the shard's position (or from its
//   original start when nothing was read yet); throttling is retried by the
//   client with backoff; other errors end the poll naming stream and shard,
//   and the reader stays usable (positions only advance with returned records).
// - KPL aggregates are de-aggregated (kpl_aggregation.h) when `deaggregate`;
//   a malformed aggregate comes back as one record holding the raw bytes
//   with `error` naming the defect (shard_record.h), so a pipeline can
//   dead-letter it instead of stalling on it.
// Not thread-safe: one thread polls.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aws/kinesis/kinesis_client.h"
#include "aws/kinesis/shard_record.h"
#include "common/status.h"

namespace floe::aws::kinesis {

struct KinesisReaderOptions {
  StreamId stream;
  IteratorType initial = IteratorType::kTrimHorizon;  // kTrimHorizon or kLatest
  int max_records_per_call = 10000;                   // GetRecords Limit ceiling
  int64_t max_bytes_per_poll = int64_t{8} << 20;
  int64_t relist_interval_ms = 30000;
  bool deaggregate = true;
};

struct ShardBatch {
  std::string shard_id;
  std::vector<ShardRecord> records;
  std::string first_sequence_number;  // of the first and last Kinesis record in `records`
  std::string last_sequence_number;
  bool finished = false;  // the shard ended with this batch (its children become readable)
};

struct PollResult {
  std::vector<ShardBatch> batches;  // shards with records or that finished, in reading order
  int64_t data_bytes = 0;
  // Every readable shard answered nothing new and none was behind the tip.
  bool caught_up = false;
};

class KinesisStreamReader {
 public:
  static Result<std::unique_ptr<KinesisStreamReader>> Open(
      KinesisClient* client, const KinesisReaderOptions& options,
      const std::map<std::string, IteratorStart>& starts = {});

  Result<PollResult> Poll();

  // The last Kinesis sequence number returned per shard (shards read at least once).
  std::map<std::string, std::string> Positions() const;
  const std::set<std::string>& finished_shards() const { return finished_; }
  const std::vector<Shard>& shards() const { return shards_; }

 private:
  struct Cursor {
    IteratorStart start;  // where reading began (used to renew an iterator before any record)
    std::optional<std::string> iterator;
    std::string position;            // last Kinesis sequence number returned
    bool end_of_shard = false;       // GetRecords gave no next iterator
    std::deque<KinesisRecord> held;  // fetched past a poll's budget
  };

  KinesisStreamReader(KinesisClient* client, KinesisReaderOptions options)
      : client_(client), options_(std::move(options)) {}

  Status Relist();
  const Shard* FindShard(const std::string& shard_id) const;
  Cursor& CursorFor(const std::string& shard_id);
  bool IsFinished(const std::string& shard_id, const Cursor& cursor) const;
  // Fetches the next answer into cursor.held; false when nothing new came.
  Result<bool> Fetch(const std::string& shard_id, Cursor& cursor, int64_t budget, int64_t* behind);
  // Moves held records into `batch` within `budget`.
  Status Take(Cursor& cursor, int64_t* budget, bool first_of_poll, ShardBatch* batch);

  KinesisClient* client_;
  KinesisReaderOptions options_;
  std::map<std::string, IteratorStart> starts_;
  std::vector<Shard> shards_;
  std::set<std::string> listed_at_open_;
  std::map<std::string, Cursor> cursors_;
  std::set<std::string> finished_;
  std::chrono::steady_clock::time_point listed_at_;
  bool relist_needed_ = false;
  double average_record_bytes_ = 1024;
  uint64_t polls_ = 0;
};

}  // namespace floe::aws::kinesis
