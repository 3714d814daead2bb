// KafkaConsumer: reads Kafka partitions for floe's exactly-once model.
//
// Contract:
// - Positions come from floe's table and ledger, never from the consumer
//   group: the caller assigns itself partitions (no group join, so a restart
//   after kill -9 does not wait out a session timeout) at the offsets it
//   committed, and Fetch returns each partition's records as contiguous
//   offset ranges (kafka_record.h) that continue exactly where the previous
//   range of that partition ended. A record is returned once per position:
//   records librdkafka fetches again (after a pause, a reconnect, a retried
//   fetch) are dropped by offset; only Seek moves a partition's position.
// - Fetch is bounded: at most FetchLimits::max_records records (and
//   max_records_per_partition of one partition) and, beyond the first
//   record, max_bytes of keys plus values. Records that were taken
//   from librdkafka but did not fit are held (at most 1,024 per fetch that
//   overflowed; a paused partition keeps its own until resumed) and come
//   first in the next Fetch. librdkafka's own
//   prefetch is bounded by KafkaConsumerOptions::prefetch_kbytes; a paused
//   partition stops fetching (backpressure) and keeps its position.
// - The group's committed offsets are advisory (CommitOffsets after floe's
//   table commit, so lag tools see progress); nothing here reads them to
//   decide a position.
// - Any librdkafka property passes through (security.protocol, sasl.*,
//   ssl.*, fetch sizes, timeouts), except the ones floe manages (offset
//   commits and stores, partition EOF events, auto.offset.reset,
//   bootstrap.servers and group.id, which come from the options).
// - Errors are Status values naming the topic, partition and offset
//   (kafka_status.h): transport errors are retryable and a Fetch that meets
//   them returns what it has with the errors listed in KafkaFetch::errors
//   (librdkafka keeps retrying); an offset the partition no longer retains
//   is an OutOfRange error there, and the partition stops (returns and
//   fetches nothing) until it is sought. Fatal client errors (librdkafka's
//   rd_kafka_fatal_error) fail Fetch itself; the records it had taken are
//   dropped and positions are then undefined: reopen the consumer and assign
//   it from the ledger again.
// - Records refer to their consumer's librdkafka handle: destroy every
//   record (and KafkaFetch) before the consumer.
// Thread safety: a KafkaConsumer is used from one thread at a time (its
// librdkafka threads are internal); different consumers are independent.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "stream/kafka/kafka_record.h"
#include "stream/kafka/topic_pattern.h"

namespace floe::kafka {

// Logical start offsets, resolved to absolute offsets when assigned.
inline constexpr int64_t kOffsetBeginning = -2;  // the partition's low watermark
inline constexpr int64_t kOffsetEnd = -1;        // its high watermark

// A SASL/OAUTHBEARER token (RFC 7628) made by floe rather than fetched by
// librdkafka, e.g. Amazon MSK's IAM token.
struct OAuthBearerToken {
  std::string value;
  int64_t expires_at_ms = 0;  // epoch milliseconds; librdkafka asks again at 80% of the lifetime
  std::string principal;      // the Kafka principal name librdkafka requires (informational for MSK)
};

struct KafkaConsumerOptions {
  std::string bootstrap_servers;  // "host:port,host:port"
  std::string group_id;           // for advisory commits; the group is never joined
  std::string client_id = "floe";
  // librdkafka properties, applied after floe's defaults (so they override
  // them). Values are never echoed into errors.
  std::vector<std::pair<std::string, std::string>> properties;
  // Metadata, watermark, assignment, seek and commit calls give up after this.
  int64_t request_timeout_ms = 10000;
  // librdkafka's prefetch buffer across all partitions
  // (queued.max.messages.kbytes).
  int64_t prefetch_kbytes = 32768;
  // When set (with sasl.mechanism = OAUTHBEARER among the properties),
  // librdkafka asks it for a token when the client starts and again before
  // each token expires, from its background thread: it must be thread-safe
  // and may block briefly. An error becomes the token failure librdkafka
  // reports (an authentication error listed by Fetch), and connections wait
  // for the next refresh.
  std::function<Result<OAuthBearerToken>()> oauth_bearer_token;
};

struct PartitionInfo {
  int32_t partition = 0;
  int32_t leader = -1;  // broker id, -1 when the partition has no leader
  Status error;         // OK, or what the metadata said about this partition
};

struct TopicInfo {
  std::string name;
  std::vector<PartitionInfo> partitions;  // sorted by partition id
};

struct Watermarks {
  int64_t low = 0;   // the oldest offset still retained
  int64_t high = 0;  // one past the newest (the last stable offset under read_committed)
};

struct PartitionStart {
  TopicPartition partition;
  int64_t offset = kOffsetBeginning;  // absolute, or kOffsetBeginning / kOffsetEnd
  // Records at or past this offset are not returned (floe run --once stops at
  // the high watermarks seen at start); the partition is paused once reached.
  std::optional<int64_t> stop_offset;
};

struct PartitionOffset {
  TopicPartition partition;
  int64_t offset = 0;  // the next offset to consume, Kafka's commit convention
};

struct FetchLimits {
  int64_t max_records = 10000;
  int64_t max_bytes = int64_t{16} << 20;
  // At most this many records of any one partition (0: no limit of its own);
  // the rest of a partition waits, held, while the others fill the fetch.
  int64_t max_records_per_partition = 0;
  // How long Fetch waits when no record is available at once.
  int64_t max_wait_ms = 500;
};

struct KafkaFetch {
  // One entry per partition whose range advanced, in the order the partitions
  // first appeared; each range starts at the partition's previous position.
  std::vector<PartitionRecords> partitions;
  // Problems this fetch met: retryable cluster errors (a broker down, a
  // connection refused) and partition errors naming topic[partition] and offset.
  std::vector<Status> errors;

  int64_t num_records() const;
  int64_t num_bytes() const;  // keys plus values
};

// What the consumer knows about one assigned partition.
struct PartitionState {
  int64_t position = 0;               // where the next range starts
  std::optional<int64_t> end_offset;  // the partition's end as last seen by fetching
  std::optional<int64_t> stop_offset;
  bool paused = false;        // by Pause
  bool reached_stop = false;  // position >= stop_offset
  int64_t held_records = 0;   // fetched, not yet returned
  Status error;               // an out-of-range position stops it until Seek
};

class KafkaConsumer {
 public:
  static Result<std::unique_ptr<KafkaConsumer>> Open(const KafkaConsumerOptions& options);
  ~KafkaConsumer();
  KafkaConsumer(const KafkaConsumer&) = delete;
  KafkaConsumer& operator=(const KafkaConsumer&) = delete;

  // Metadata. ListTopics leaves out internal topics unless asked for them;
  // both sort topics by name. DescribeTopic of a topic that does not exist is NotFound.
  Result<std::vector<TopicInfo>> ListTopics(bool include_internal = false);
  Result<TopicInfo> DescribeTopic(const std::string& topic);
  // The names of the existing topics `pattern` matches, sorted.
  Result<std::vector<std::string>> MatchTopics(const TopicPattern& pattern);
  // Asks the partitions' leaders for their low and high watermarks (two
  // requests per leader, whatever the number of partitions).
  Result<Watermarks> QueryWatermarks(const TopicPartition& partition);
  Result<std::vector<Watermarks>> QueryWatermarks(const std::vector<TopicPartition>& partitions);

  // Adds partitions to the assignment, each positioned at its start (logical
  // offsets are resolved through QueryWatermarks first, so every range is
  // absolute). A partition already assigned is InvalidArgument.
  Status Assign(const std::vector<PartitionStart>& starts);
  // Removes partitions from the assignment; their held records are dropped.
  Status Unassign(const std::vector<TopicPartition>& partitions);
  // Moves an assigned partition to a new start (and stop), dropping its held
  // records and any error, for example to redo a batch that did not commit.
  // Its pause state is kept.
  Status Seek(const PartitionStart& start);
  std::vector<TopicPartition> Assignment() const;
  Result<PartitionState> State(const TopicPartition& partition) const;
  // Whether every assigned partition reached its stop offset (false when
  // some partition has none).
  bool AllReachedStop() const;

  Result<KafkaFetch> Fetch(const FetchLimits& limits);

  // Backpressure: a paused partition returns no records and stops fetching;
  // its held records and position are kept. Both are idempotent.
  Status Pause(const std::vector<TopicPartition>& partitions);
  Status Resume(const std::vector<TopicPartition>& partitions);

  // Advisory: commits group offsets (call after floe's table commit).
  // Retryable errors mean the commit may or may not have landed.
  Status CommitOffsets(const std::vector<PartitionOffset>& offsets);
  // The group's committed offsets; std::nullopt where the group has none.
  Result<std::vector<std::pair<TopicPartition, std::optional<int64_t>>>> CommittedOffsets(
      const std::vector<TopicPartition>& partitions);

  // The latest librdkafka log lines (at most 32), oldest first, for diagnostics.
  std::vector<std::string> RecentLogs() const;

  struct Impl;

 private:
  explicit KafkaConsumer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::kafka
