#include "aws/kinesis/stream_reader.h"

#include <algorithm>

#include "aws/kinesis/sequence_number.h"
#include "aws/kinesis/shard_lineage.h"

namespace floe::aws::kinesis {

Result<std::unique_ptr<KinesisStreamReader>> KinesisStreamReader::Open(
    KinesisClient* client, const KinesisReaderOptions& options,
    const std::map<std::string, IteratorStart>& starts) {
  const std::string what = "Kinesis reader of " + options.stream.ToString();
  if (options.max_records_per_call < 1 || options.max_records_per_call > 10000) {
    return Status::InvalidArgument(what + ": max_records_per_call must be within 1..10000");
  }
  if (options.max_bytes_per_poll < 1)
    return Status::InvalidArgument(what + ": max_bytes_per_poll must be positive");
  if (options.initial != IteratorType::kTrimHorizon && options.initial != IteratorType::kLatest) {
    return Status::InvalidArgument(what + ": the initial position must be TRIM_HORIZON or LATEST");
  }
  for (const auto& [shard, start] : starts) {
    const bool needs_number =
        start.type == IteratorType::kAtSequenceNumber || start.type == IteratorType::kAfterSequenceNumber;
    if (needs_number && !IsSequenceNumber(start.sequence_number)) {
      return Status::InvalidArgument(what + ": the start of shard " + shard + " ('" + start.sequence_number +
                                     "') is not a sequence number");
    }
  }
  std::unique_ptr<KinesisStreamReader> reader(new KinesisStreamReader(client, options));
  reader->starts_ = starts;
  FLOE_RETURN_IF_ERROR(reader->Relist());
  for (const Shard& shard : reader->shards_) {
    reader->listed_at_open_.insert(shard.shard_id);
    // LATEST: a closed shard never gets new records, so there is nothing to read in it.
    if (options.initial == IteratorType::kLatest && shard.closed() && starts.count(shard.shard_id) == 0) {
      reader->finished_.insert(shard.shard_id);
    }
  }
  return reader;
}

Status KinesisStreamReader::Relist() {
  FLOE_ASSIGN_OR_RETURN(std::vector<Shard> shards, client_->ListShards(options_.stream));
  FLOE_RETURN_IF_ERROR(ValidateLineage(shards).WithContext(options_.stream.ToString()));
  shards_ = std::move(shards);
  listed_at_ = std::chrono::steady_clock::now();
  relist_needed_ = false;
  return Status::OK();
}

const Shard* KinesisStreamReader::FindShard(const std::string& shard_id) const {
  for (const Shard& shard : shards_) {
    if (shard.shard_id == shard_id) return &shard;
  }
  return nullptr;
}

KinesisStreamReader::Cursor& KinesisStreamReader::CursorFor(const std::string& shard_id) {
  auto it = cursors_.find(shard_id);
  if (it != cursors_.end()) return it->second;
  Cursor cursor;
  if (auto start = starts_.find(shard_id); start != starts_.end()) {
    cursor.start = start->second;
    if (cursor.start.type == IteratorType::kAfterSequenceNumber)
      cursor.position = cursor.start.sequence_number;
  } else if (listed_at_open_.count(shard_id) != 0) {
    cursor.start.type = options_.initial;
  } else {
    cursor.start.type = IteratorType::kTrimHorizon;  // a reshard's child: read it whole
  }
  return cursors_.emplace(shard_id, std::move(cursor)).first->second;
}

bool KinesisStreamReader::IsFinished(const std::string& shard_id, const Cursor& cursor) const {
  if (!cursor.held.empty()) return false;
  if (cursor.end_of_shard) return true;
  const Shard* shard = FindShard(shard_id);
  if (shard == nullptr || !shard->closed()) return false;
  const std::string& read_up_to = cursor.position.empty() ? std::string("0") : cursor.position;
  return CompareSequenceNumbers(read_up_to, shard->ending_sequence_number) >= 0;
}

Result<bool> KinesisStreamReader::Fetch(const std::string& shard_id, Cursor& cursor, int64_t budget,
                                        int64_t* behind) {
  const std::string where = options_.stream.ToString() + ", shard " + shard_id;
  // Where a new iterator must begin: after the last record this cursor has
  // seen (returned or held), else where reading started.
  auto renewal_start = [&]() {
    const std::string& last = cursor.held.empty() ? cursor.position : cursor.held.back().sequence_number;
    if (!last.empty()) return IteratorStart{IteratorType::kAfterSequenceNumber, last};
    return cursor.start;
  };
  const auto per_record = static_cast<int64_t>(std::max(1.0, average_record_bytes_));
  const int limit = static_cast<int>(
      std::clamp<int64_t>(budget / per_record, 1, static_cast<int64_t>(options_.max_records_per_call)));
  Result<GetRecordsResult> result = Status::Internal("no GetRecords call made");
  for (int renewals = 0;; ++renewals) {
    if (!cursor.iterator) {
      FLOE_ASSIGN_OR_RETURN(std::string iterator,
                            client_->GetShardIterator(options_.stream, shard_id, renewal_start()));
      cursor.iterator = std::move(iterator);
    }
    std::string error_type;
    result = client_->GetRecords(options_.stream, shard_id, *cursor.iterator, limit, &error_type);
    if (!result.ok() && error_type == "ExpiredIteratorException" && renewals == 0) {
      cursor.iterator.reset();
      continue;
    }
    break;
  }
  if (!result.ok()) return result.status();
  GetRecordsResult& answer = *result;
  const std::string* previous = cursor.held.empty() ? &cursor.position : &cursor.held.back().sequence_number;
  if (!answer.records.empty() && !previous->empty() &&
      CompareSequenceNumbers(answer.records.front().sequence_number, *previous) <= 0) {
    return Status::Corruption(where + ": GetRecords returned " + answer.records.front().sequence_number +
                              ", not after the position " + *previous + " (a record would be read twice)");
  }
  if (!answer.records.empty()) {
    const double mean = static_cast<double>(answer.data_bytes) / static_cast<double>(answer.records.size());
    average_record_bytes_ = 0.5 * average_record_bytes_ + 0.5 * std::max(1.0, mean);
  }
  for (const ChildShard& child : answer.child_shards) {
    if (FindShard(child.shard_id) == nullptr) relist_needed_ = true;
  }
  *behind = answer.millis_behind_latest;
  cursor.iterator = answer.next_iterator;
  if (!answer.next_iterator) cursor.end_of_shard = true;
  const bool got = !answer.records.empty();
  for (KinesisRecord& record : answer.records) cursor.held.push_back(std::move(record));
  return got;
}

Status KinesisStreamReader::Take(Cursor& cursor, int64_t* budget, bool first_of_poll, ShardBatch* batch) {
  bool may_exceed = first_of_poll;
  while (!cursor.held.empty()) {
    KinesisRecord& record = cursor.held.front();
    const auto size = static_cast<int64_t>(record.data.size());
    if (size > *budget && !may_exceed) break;
    may_exceed = false;
    const std::string sequence_number = record.sequence_number;
    AppendShardRecords(std::move(record), options_.deaggregate, &batch->records);
    if (batch->first_sequence_number.empty()) batch->first_sequence_number = sequence_number;
    batch->last_sequence_number = sequence_number;
    cursor.position = sequence_number;
    *budget -= size;
    cursor.held.pop_front();
  }
  return Status::OK();
}

Result<PollResult> KinesisStreamReader::Poll() {
  const auto since_list = std::chrono::steady_clock::now() - listed_at_;
  if (relist_needed_ || since_list >= std::chrono::milliseconds(options_.relist_interval_ms)) {
    FLOE_RETURN_IF_ERROR(Relist());
  }
  PollResult result;
  int64_t budget = options_.max_bytes_per_poll;
  bool nothing_taken = true;
  bool quiet = true;
  std::map<std::string, ShardBatch> batches;
  std::vector<std::string> order;
  auto batch_for = [&](const std::string& shard_id) -> ShardBatch& {
    auto [it, inserted] = batches.try_emplace(shard_id);
    if (inserted) {
      it->second.shard_id = shard_id;
      order.push_back(shard_id);
    }
    return it->second;
  };
  auto take = [&](const std::string& shard_id, Cursor& cursor) -> Status {
    ShardBatch& batch = batch_for(shard_id);
    const size_t before = batch.records.size();
    FLOE_RETURN_IF_ERROR(Take(cursor, &budget, nothing_taken, &batch));
    if (batch.records.size() > before) nothing_taken = false;
    if (IsFinished(shard_id, cursor) && finished_.insert(shard_id).second) {
      batch.finished = true;
      relist_needed_ = true;
    }
    return Status::OK();
  };

  const std::vector<std::string> readable = ReadableShards(shards_, finished_);
  // Records held from the previous poll go first, so at most one answer is ever held.
  for (const std::string& shard_id : readable) {
    Cursor& cursor = CursorFor(shard_id);
    if (!cursor.held.empty()) {
      quiet = false;
      FLOE_RETURN_IF_ERROR(take(shard_id, cursor));
    }
  }
  // New requests start one shard further each poll, so a busy shard early in
  // the list cannot take every poll's budget.
  const size_t first = readable.empty() ? 0 : static_cast<size_t>(polls_++ % readable.size());
  for (size_t n = 0; n < readable.size(); ++n) {
    const std::string& shard_id = readable[(first + n) % readable.size()];
    if (budget <= 0 && !nothing_taken) break;
    Cursor& cursor = CursorFor(shard_id);
    if (!cursor.held.empty() || finished_.count(shard_id) != 0) continue;
    if (IsFinished(shard_id, cursor)) {
      FLOE_RETURN_IF_ERROR(take(shard_id, cursor));
      continue;
    }
    int64_t behind = 0;
    FLOE_ASSIGN_OR_RETURN(bool got, Fetch(shard_id, cursor, std::max<int64_t>(budget, 1), &behind));
    if (got || behind > 0) quiet = false;
    FLOE_RETURN_IF_ERROR(take(shard_id, cursor));
  }
  for (const std::string& shard_id : order) {
    ShardBatch& batch = batches[shard_id];
    if (batch.records.empty() && !batch.finished) continue;
    for (const ShardRecord& record : batch.records)
      result.data_bytes += static_cast<int64_t>(record.data.size());
    result.batches.push_back(std::move(batch));
  }
  result.caught_up = quiet && result.batches.empty();
  return result;
}

std::map<std::string, std::string> KinesisStreamReader::Positions() const {
  std::map<std::string, std::string> positions;
  for (const auto& [shard_id, cursor] : cursors_) {
    if (!cursor.position.empty()) positions[shard_id] = cursor.position;
  }
  return positions;
}

}  // namespace floe::aws::kinesis
