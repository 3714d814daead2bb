#include "aws/kinesis/shard_range.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "aws/kinesis/sequence_number.h"

namespace floe::aws::kinesis {

namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::vector<ShardRecord>> ReadShardRange(KinesisClient& client, const StreamId& stream,
                                                const std::string& shard_id, const std::string& first,
                                                const std::string& last, const ShardRangeOptions& options) {
  const std::string where = stream.ToString() + ", shard " + shard_id + ", records " + first + " to " + last;
  if (!IsSequenceNumber(first) || !IsSequenceNumber(last) || CompareSequenceNumbers(first, last) > 0) {
    return Status::InvalidArgument(where + ": not a range of sequence numbers");
  }
  std::vector<ShardRecord> out;
  std::string read_up_to;  // the last sequence number taken
  std::optional<std::string> iterator;
  int64_t last_progress_ms = SteadyMs();
  int64_t last_call_ms = 0;
  const int limit = std::clamp(options.max_records_per_call, 1, 10000);
  while (true) {
    if (options.stop != nullptr && options.stop->load()) {
      return Status::IOError("stopping: the read of " + where + " was abandoned", /*retryable=*/true);
    }
    if (!iterator) {
      const IteratorStart start = read_up_to.empty()
                                      ? IteratorStart{IteratorType::kAtSequenceNumber, first}
                                      : IteratorStart{IteratorType::kAfterSequenceNumber, read_up_to};
      auto renewed = client.GetShardIterator(stream, shard_id, start);
      if (!renewed.ok()) {
        return renewed.status().WithContext("reading " + where + " again");
      }
      iterator = std::move(*renewed);
    }
    const int64_t wait = last_call_ms + options.min_call_interval_ms - SteadyMs();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    last_call_ms = SteadyMs();
    std::string error_type;
    auto answer = client.GetRecords(stream, shard_id, *iterator, limit, &error_type);
    if (!answer.ok() && error_type == "ExpiredIteratorException") {
      iterator.reset();
      continue;
    }
    if (!answer.ok()) return answer.status().WithContext("reading " + where + " again");
    for (KinesisRecord& record : answer->records) {
      if (read_up_to.empty() && record.sequence_number != first) {
        return Status::IOError(where + ": the shard no longer holds sequence number " + first +
                               " (its first record now is " + record.sequence_number +
                               "; the retention period ran out before floe read the range again)");
      }
      if (!read_up_to.empty() && CompareSequenceNumbers(record.sequence_number, read_up_to) <= 0) {
        return Status::Corruption(where + ": GetRecords returned " + record.sequence_number + " after " +
                                  read_up_to + " (a record would be read twice)");
      }
      if (CompareSequenceNumbers(record.sequence_number, last) > 0) {
        return Status::IOError(where + ": the shard went from " + read_up_to + " to " +
                               record.sequence_number + " without the range's last record " + last);
      }
      read_up_to = record.sequence_number;
      AppendShardRecords(std::move(record), options.deaggregate, &out);
      if (read_up_to == last) return out;
    }
    if (!answer->records.empty()) last_progress_ms = SteadyMs();
    iterator = answer->next_iterator;
    if (!iterator) {
      return Status::IOError(where + ": the shard ended" +
                             (read_up_to.empty()
                                  ? std::string(" before the range's first record")
                                  : " after " + read_up_to + ", before the range's last record"));
    }
    if (SteadyMs() - last_progress_ms > options.no_progress_timeout_ms) {
      return Status::IOError("no records from Kinesis for " +
                                 std::to_string(options.no_progress_timeout_ms / 1000) + " s reading " +
                                 where + (read_up_to.empty() ? "" : " (at " + read_up_to + ")"),
                             /*retryable=*/true);
    }
  }
}

}  // namespace floe::aws::kinesis
