#include "stream/kafka/kafka_consumer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>

#include "stream/kafka/kafka_status.h"

namespace floe::kafka {

namespace {

// Properties floe sets itself; a user value would break the position model.
constexpr std::array<const char*, 6> kManagedProperties = {
    "enable.auto.commit", "enable.auto.offset.store", "enable.partition.eof",
    "auto.offset.reset",  "bootstrap.servers",        "group.id",
};

// librdkafka pops at most this many records per call; what does not fit a
// fetch's limits is held, so this also bounds the held records.
constexpr size_t kPopBatch = 1024;

constexpr size_t kMaxLogLines = 32;
constexpr size_t kMaxPendingErrors = 64;

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

PartitionList MakeList(size_t capacity) {
  return PartitionList(rd_kafka_topic_partition_list_new(static_cast<int>(std::max<size_t>(capacity, 1))));
}

// Takes an rd_kafka_error_t, returning its Status (OK for nullptr).
Status TakeError(rd_kafka_error_t* error, const std::string& context) {
  if (error == nullptr) return Status::OK();
  std::string message =
      context + ": " + rd_kafka_error_string(error) + " (" + rd_kafka_error_name(error) + ")";
  const bool retryable =
      rd_kafka_error_is_retriable(error) || IsRetryableKafkaError(rd_kafka_error_code(error));
  rd_kafka_error_destroy(error);
  return Status::IOError(std::move(message), retryable);
}

// librdkafka quotes rejected values in its messages; a password must not
// reach an error. Replaces every property value that could be one (any
// value of a secret-looking key, any other value of 4 or more bytes).
std::string Redact(std::string text, const std::vector<std::pair<std::string, std::string>>& properties) {
  for (const auto& [key, value] : properties) {
    const bool secret_key =
        key.find("password") != std::string::npos || key.find("secret") != std::string::npos ||
        key.find("jaas") != std::string::npos || key.find("token") != std::string::npos ||
        key.find("oauthbearer.config") != std::string::npos || key.find(".pem") != std::string::npos;
    if (value.empty() || (!secret_key && value.size() < 4)) continue;
    for (size_t pos = text.find(value); pos != std::string::npos; pos = text.find(value, pos + 3)) {
      text.replace(pos, value.size(), "***");
    }
  }
  return text;
}

}  // namespace

struct KafkaConsumer::Impl {
  struct Partition {
    int64_t delivered_to = 0;         // range start of the next fetch
    int64_t fetched_to = 0;           // one past the last record taken from librdkafka
    std::optional<int64_t> end_seen;  // the partition end at the latest EOF event
    std::optional<int64_t> stop_offset;
    bool user_paused = false;
    bool stop_paused = false;  // paused because the stop offset was reached
    std::deque<KafkaRecord> held;
    Status error;
  };

  KafkaConsumerOptions options;
  rd_kafka_t* rk = nullptr;
  rd_kafka_queue_t* queue = nullptr;  // the consumer queue
  std::map<TopicPartition, Partition> partitions;
  std::set<std::string> topics_described;  // see DescribeBeforeAssign

  // Filled by librdkafka's callbacks, which may run on its threads.
  mutable std::mutex events_mutex;
  std::deque<std::string> logs;
  std::vector<Status> pending_errors;
  std::string last_error_message;
  int64_t dropped_errors = 0;

  ~Impl() {
    partitions.clear();  // held records go back to librdkafka before it is destroyed
    if (queue != nullptr) rd_kafka_queue_destroy(queue);
    if (rk != nullptr) {
      rd_kafka_consumer_close(rk);
      rd_kafka_destroy(rk);
    }
  }

  int timeout_ms() const {
    return static_cast<int>(std::clamp<int64_t>(options.request_timeout_ms, 1, 3600000));
  }

  std::string Where() const { return "Kafka " + options.bootstrap_servers; }

  static void LogCallback(const rd_kafka_t* rk, int level, const char* facility, const char* line) {
    auto* self = static_cast<Impl*>(rd_kafka_opaque(rk));
    if (self == nullptr) return;
    std::lock_guard lock(self->events_mutex);
    if (self->logs.size() >= kMaxLogLines) self->logs.pop_front();
    self->logs.push_back("[" + std::to_string(level) + "] " + facility + ": " + line);
  }

  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    (void)rk;
    auto* self = static_cast<Impl*>(opaque);
    std::lock_guard lock(self->events_mutex);
    std::string message = self->Where() + ": " + reason;
    // A broker that stays down repeats the same error every reconnect attempt.
    if (message == self->last_error_message) return;
    self->last_error_message = message;
    if (self->pending_errors.size() >= kMaxPendingErrors) {
      ++self->dropped_errors;
      return;
    }
    self->pending_errors.push_back(KafkaStatus(err, message));
  }

  // OAUTHBEARER token refreshes (KafkaConsumerOptions::oauth_bearer_token),
  // on librdkafka's background thread. What librdkafka says of a refused
  // token never holds the token itself.
  static void TokenRefreshCallback(rd_kafka_t* rk, const char* config, void* opaque) {
    (void)config;
    auto* self = static_cast<Impl*>(opaque);
    Result<OAuthBearerToken> token = self->options.oauth_bearer_token();
    if (!token.ok()) {
      rd_kafka_oauthbearer_set_token_failure(rk, token.status().ToString().c_str());
      return;
    }
    char errstr[512];
    if (rd_kafka_oauthbearer_set_token(rk, token->value.c_str(), token->expires_at_ms,
                                       token->principal.c_str(), nullptr, 0, errstr,
                                       sizeof(errstr)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_oauthbearer_set_token_failure(rk, (std::string("the token was refused: ") + errstr).c_str());
    }
  }

  Partition* Find(const TopicPartition& tp) {
    auto it = partitions.find(tp);
    return it == partitions.end() ? nullptr : &it->second;
  }

  Status PauseInLibrary(const std::vector<TopicPartition>& tps, bool pause) {
    if (tps.empty()) return Status::OK();
    PartitionList list = MakeList(tps.size());
    for (const auto& tp : tps) rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
    rd_kafka_resp_err_t err =
        pause ? rd_kafka_pause_partitions(rk, list.get()) : rd_kafka_resume_partitions(rk, list.get());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return KafkaStatus(err, Where() + ": " + (pause ? "pausing" : "resuming") + " partitions");
    }
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return KafkaStatus(list->elems[i].err,
                           Where() + ": " + (pause ? "pausing " : "resuming ") +
                               TopicPartition{list->elems[i].topic, list->elems[i].partition}.ToString());
      }
    }
    return Status::OK();
  }

  // One ListOffsets round per leader for all `tps`, for the earliest (-2) or
  // latest (-1) offset. rd_kafka_query_watermark_offsets is not used: in
  // 2.0.2 it waits without a deadline while the leader is unreachable.
  Status ListOffsets(const std::vector<TopicPartition>& tps, int64_t which, std::vector<int64_t>* out) {
    PartitionList list = MakeList(tps.size());
    for (const auto& tp : tps) {
      rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = which;
    }
    const char* what = which == RD_KAFKA_OFFSET_BEGINNING ? "low watermark" : "high watermark";
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, list.get(), timeout_ms());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::string names;
      for (size_t i = 0; i < tps.size() && i < 8; ++i) names += (i ? ", " : "") + tps[i].ToString();
      if (tps.size() > 8) names += ", ...";
      return KafkaStatus(err, Where() + ": " + what + " of " + names);
    }
    out->assign(tps.size(), 0);
    for (int i = 0; i < list->cnt; ++i) {
      const rd_kafka_topic_partition_t& e = list->elems[i];
      TopicPartition tp{e.topic, e.partition};
      if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return KafkaStatus(e.err, Where() + ": " + what + " of " + tp.ToString());
      auto it = std::find(tps.begin(), tps.end(), tp);
      if (it == tps.end() || e.offset < 0) {
        return Status::IOError(Where() + ": no " + what + " for " + tp.ToString(), /*retryable=*/true);
      }
      (*out)[static_cast<size_t>(it - tps.begin())] = e.offset;
    }
    return Status::OK();
  }

  Result<std::vector<Watermarks>> QueryWatermarks(const std::vector<TopicPartition>& tps) {
    std::vector<Watermarks> marks(tps.size());
    if (tps.empty()) return marks;
    std::vector<int64_t> low;
    std::vector<int64_t> high;
    FLOE_RETURN_IF_ERROR(ListOffsets(tps, RD_KAFKA_OFFSET_BEGINNING, &low));
    FLOE_RETURN_IF_ERROR(ListOffsets(tps, RD_KAFKA_OFFSET_END, &high));
    for (size_t i = 0; i < tps.size(); ++i) marks[i] = Watermarks{low[i], high[i]};
    return marks;
  }

  // Asks the cluster for the metadata of each topic about to be assigned
  // that this handle has not described yet. A partition assigned before its
  // topic's metadata arrived waits for librdkafka's scan of unknown topics,
  // once a second: a fresh consumer's first fetch came 1.0 s late in about
  // two runs of three (the Kafka bench's 192,000 records: 0.78 s or 1.9 s).
  // A failure here is left to librdkafka's own refresh (that late start);
  // the wait is at most that second too, so a broker that does not answer
  // (down between discovery and assignment) costs no more than before.
  void DescribeBeforeAssign(const std::vector<PartitionStart>& starts) {
    for (const auto& start : starts) {
      const std::string& topic = start.partition.topic;
      if (topics_described.count(topic) != 0) continue;
      rd_kafka_topic_t* handle = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
      if (handle == nullptr) continue;
      const rd_kafka_metadata_t* metadata = nullptr;
      if (rd_kafka_metadata(rk, 0, handle, &metadata, std::min(timeout_ms(), 1000)) ==
          RD_KAFKA_RESP_ERR_NO_ERROR) {
        topics_described.insert(topic);
        rd_kafka_metadata_destroy(metadata);
      }
      rd_kafka_topic_destroy(handle);
    }
  }

  Result<std::vector<int64_t>> ResolveOffsets(const std::vector<PartitionStart>& starts) {
    std::vector<int64_t> offsets;
    std::vector<TopicPartition> logical;
    for (const auto& start : starts) {
      offsets.push_back(start.offset);
      if (start.offset >= 0) continue;
      if (start.offset != kOffsetBeginning && start.offset != kOffsetEnd) {
        return Status::InvalidArgument(start.partition.ToString() + ": start offset " +
                                       std::to_string(start.offset) + " is neither absolute nor logical");
      }
      logical.push_back(start.partition);
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<Watermarks> marks, QueryWatermarks(logical));
    for (size_t i = 0, j = 0; i < starts.size(); ++i) {
      if (starts[i].offset >= 0) continue;
      offsets[i] = starts[i].offset == kOffsetBeginning ? marks[j].low : marks[j].high;
      ++j;
    }
    return offsets;
  }

  // Whether librdkafka has the partition paused: by Pause, at its stop
  // offset, or stopped by a lost position.
  static bool PausedInLibrary(const Partition& p) { return p.user_paused || p.stop_paused || !p.error.ok(); }

  // Marks a partition whose position reached its stop offset and stops its fetching.
  Status CheckStop(const TopicPartition& tp, Partition& p) {
    if (!p.stop_offset || p.stop_paused || p.delivered_to < *p.stop_offset) return Status::OK();
    const bool paused = PausedInLibrary(p);
    p.stop_paused = true;
    return paused ? Status::OK() : PauseInLibrary({tp}, true);
  }

  // Extends the position over offsets up to the partition's end that hold no
  // visible record (transaction markers): everything below an EOF event was
  // taken before it, so once nothing is held the range may cover it.
  void CoverToEnd(Partition& p) {
    if (!p.end_seen || !p.held.empty() || *p.end_seen <= p.delivered_to) return;
    if (p.stop_offset && *p.end_seen > *p.stop_offset) return;
    p.delivered_to = *p.end_seen;
    p.fetched_to = std::max(p.fetched_to, *p.end_seen);
  }
};

int64_t KafkaFetch::num_records() const {
  int64_t n = 0;
  for (const auto& p : partitions) n += static_cast<int64_t>(p.records.size());
  return n;
}

int64_t KafkaFetch::num_bytes() const {
  int64_t n = 0;
  for (const auto& p : partitions) {
    for (const auto& r : p.records) n += r.payload_bytes();
  }
  return n;
}

KafkaConsumer::KafkaConsumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KafkaConsumer::~KafkaConsumer() = default;

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Open(const KafkaConsumerOptions& options) {
  if (options.bootstrap_servers.empty()) {
    return Status::InvalidArgument("Kafka consumer: no bootstrap servers");
  }
  if (options.group_id.empty()) {
    return Status::InvalidArgument("Kafka consumer: no group id (needed for advisory offset commits)");
  }
  for (const auto& [key, value] : options.properties) {
    for (const char* managed : kManagedProperties) {
      if (key == managed) {
        return Status::InvalidArgument(
            "Kafka property '" + key +
            "' is managed by floe (positions come from the table, "
            "the brokers from the source uri, the group from the source): remove it");
      }
    }
  }

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  auto set = [&](const std::string& key, const std::string& value) -> Status {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
      return Status::InvalidArgument("Kafka property '" + key + "': " + Redact(errstr, options.properties));
    }
    return Status::OK();
  };
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"bootstrap.servers", options.bootstrap_servers},
      {"group.id", options.group_id},
      {"client.id", options.client_id},
      {"enable.auto.commit", "false"},
      {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "true"},
      // A position outside the retained range is an error to report, never a
      // silent jump to the earliest or latest record.
      {"auto.offset.reset", "error"},
      {"queued.max.messages.kbytes",
       std::to_string(std::clamp<int64_t>(options.prefetch_kbytes, 1, 2097151))},
      {"log.connection.close", "false"},
  };
  Status status;
  for (const auto& [key, value] : defaults) {
    if (status.ok()) status = set(key, value);
  }
  for (const auto& [key, value] : options.properties) {
    if (status.ok()) status = set(key, value);
  }
  if (!status.ok()) {
    rd_kafka_conf_destroy(conf);
    return status;
  }
  rd_kafka_conf_set_opaque(conf, impl.get());
  rd_kafka_conf_set_log_cb(conf, &Impl::LogCallback);
  rd_kafka_conf_set_error_cb(conf, &Impl::ErrorCallback);
  if (options.oauth_bearer_token) {
    rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &Impl::TokenRefreshCallback);
    rd_kafka_conf_enable_sasl_queue(conf, 1);
  }

  impl->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof(errstr));
  if (impl->rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::InvalidArgument("Kafka consumer for " + options.bootstrap_servers + ": " +
                                   Redact(errstr, options.properties));
  }
  rd_kafka_poll_set_consumer(impl->rk);
  impl->queue = rd_kafka_queue_get_consumer(impl->rk);
  if (impl->queue == nullptr) return Status::Internal("Kafka consumer: no consumer queue");
  if (options.oauth_bearer_token) {
    // Refreshed on librdkafka's background thread: the consumer queue is
    // served only while Fetch runs, and a token must not lapse between
    // polls of a paused or idle pipeline.
    if (rd_kafka_error_t* error = rd_kafka_sasl_background_callbacks_enable(impl->rk)) {
      Status status = Status::InvalidArgument("Kafka consumer for " + options.bootstrap_servers +
                                              ": OAUTHBEARER token refresh: " + rd_kafka_error_string(error));
      rd_kafka_error_destroy(error);
      return status;
    }
  }
  return std::unique_ptr<KafkaConsumer>(new KafkaConsumer(std::move(impl)));
}

Result<std::vector<TopicInfo>> KafkaConsumer::ListTopics(bool include_internal) {
  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(impl_->rk, 1, nullptr, &metadata, impl_->timeout_ms());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus(err, impl_->Where() + ": listing topics");
  std::vector<TopicInfo> topics;
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR || (!include_internal && IsInternalTopic(t.topic))) continue;
    TopicInfo info;
    info.name = t.topic;
    for (int j = 0; j < t.partition_cnt; ++j) {
      const rd_kafka_metadata_partition_t& p = t.partitions[j];
      PartitionInfo partition{p.id, p.leader, Status::OK()};
      if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        partition.error = KafkaStatus(p.err, TopicPartition{info.name, p.id}.ToString());
      }
      info.partitions.push_back(std::move(partition));
    }
    std::sort(info.partitions.begin(), info.partitions.end(),
              [](const PartitionInfo& a, const PartitionInfo& b) { return a.partition < b.partition; });
    topics.push_back(std::move(info));
  }
  rd_kafka_metadata_destroy(metadata);
  std::sort(topics.begin(), topics.end(),
            [](const TopicInfo& a, const TopicInfo& b) { return a.name < b.name; });
  return topics;
}

Result<TopicInfo> KafkaConsumer::DescribeTopic(const std::string& topic) {
  // The full listing answers "does not exist" without asking the cluster to
  // create the topic, whatever allow.auto.create.topics says.
  FLOE_ASSIGN_OR_RETURN(std::vector<TopicInfo> topics, ListTopics(/*include_internal=*/true));
  for (auto& info : topics) {
    if (info.name == topic) return std::move(info);
  }
  return Status::NotFound(impl_->Where() + ": topic " + topic + " does not exist");
}

Result<std::vector<std::string>> KafkaConsumer::MatchTopics(const TopicPattern& pattern) {
  FLOE_ASSIGN_OR_RETURN(std::vector<TopicInfo> topics, ListTopics());
  std::vector<std::string> names;
  for (const auto& info : topics) {
    if (pattern.Matches(info.name)) names.push_back(info.name);
  }
  return names;
}

Result<Watermarks> KafkaConsumer::QueryWatermarks(const TopicPartition& tp) {
  FLOE_ASSIGN_OR_RETURN(std::vector<Watermarks> marks, impl_->QueryWatermarks({tp}));
  return marks[0];
}

Result<std::vector<Watermarks>> KafkaConsumer::QueryWatermarks(
    const std::vector<TopicPartition>& partitions) {
  return impl_->QueryWatermarks(partitions);
}

Status KafkaConsumer::Assign(const std::vector<PartitionStart>& starts) {
  std::set<TopicPartition> seen;
  for (const auto& start : starts) {
    if (impl_->Find(start.partition) != nullptr || !seen.insert(start.partition).second) {
      return Status::InvalidArgument(start.partition.ToString() + " is already assigned");
    }
    if (start.partition.partition < 0) {
      return Status::InvalidArgument(start.partition.ToString() + ": negative partition id");
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<int64_t> offsets, impl_->ResolveOffsets(starts));
  if (starts.empty()) return Status::OK();
  impl_->DescribeBeforeAssign(starts);
  PartitionList list = MakeList(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    rd_kafka_topic_partition_list_add(list.get(), starts[i].partition.topic.c_str(),
                                      starts[i].partition.partition)
        ->offset = offsets[i];
  }
  FLOE_RETURN_IF_ERROR(TakeError(rd_kafka_incremental_assign(impl_->rk, list.get()),
                                 impl_->Where() + ": assigning partitions"));
  for (size_t i = 0; i < starts.size(); ++i) {
    Impl::Partition& p = impl_->partitions[starts[i].partition];
    p.delivered_to = p.fetched_to = offsets[i];
    p.stop_offset = starts[i].stop_offset;
    FLOE_RETURN_IF_ERROR(impl_->CheckStop(starts[i].partition, p));
  }
  return Status::OK();
}

Status KafkaConsumer::Unassign(const std::vector<TopicPartition>& tps) {
  PartitionList list = MakeList(tps.size());
  for (const auto& tp : tps) {
    if (impl_->Find(tp) == nullptr) return Status::InvalidArgument(tp.ToString() + " is not assigned");
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  }
  if (tps.empty()) return Status::OK();
  FLOE_RETURN_IF_ERROR(TakeError(rd_kafka_incremental_unassign(impl_->rk, list.get()),
                                 impl_->Where() + ": unassigning partitions"));
  for (const auto& tp : tps) impl_->partitions.erase(tp);
  return Status::OK();
}

Status KafkaConsumer::Seek(const PartitionStart& start) {
  Impl::Partition* p = impl_->Find(start.partition);
  if (p == nullptr) return Status::InvalidArgument(start.partition.ToString() + " is not assigned");
  FLOE_ASSIGN_OR_RETURN(std::vector<int64_t> resolved, impl_->ResolveOffsets({start}));
  const int64_t offset = resolved[0];
  // The partition is re-assigned rather than sought: re-assignment starts a
  // fresh fetcher at the offset (and discards what was fetched before),
  // where a seek of a paused partition could resume from its old position.
  // librdkafka keeps a partition's pause across re-assignment, so it is
  // resumed first and paused again below if Pause asked for it.
  if (Impl::PausedInLibrary(*p)) FLOE_RETURN_IF_ERROR(impl_->PauseInLibrary({start.partition}, false));
  PartitionList list = MakeList(1);
  rd_kafka_topic_partition_list_add(list.get(), start.partition.topic.c_str(), start.partition.partition)
      ->offset = offset;
  FLOE_RETURN_IF_ERROR(TakeError(rd_kafka_incremental_unassign(impl_->rk, list.get()),
                                 impl_->Where() + ": seeking " + start.partition.ToString()));
  FLOE_RETURN_IF_ERROR(TakeError(rd_kafka_incremental_assign(impl_->rk, list.get()),
                                 impl_->Where() + ": seeking " + start.partition.ToString()));
  p->held.clear();
  p->delivered_to = p->fetched_to = offset;
  p->end_seen.reset();
  p->stop_offset = start.stop_offset;
  p->stop_paused = false;
  p->error = Status::OK();
  if (p->user_paused) FLOE_RETURN_IF_ERROR(impl_->PauseInLibrary({start.partition}, true));
  return impl_->CheckStop(start.partition, *p);
}

std::vector<TopicPartition> KafkaConsumer::Assignment() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, p] : impl_->partitions) out.push_back(tp);
  return out;
}

Result<PartitionState> KafkaConsumer::State(const TopicPartition& tp) const {
  auto it = impl_->partitions.find(tp);
  if (it == impl_->partitions.end()) return Status::InvalidArgument(tp.ToString() + " is not assigned");
  const Impl::Partition& p = it->second;
  PartitionState state;
  state.position = p.delivered_to;
  state.end_offset = p.end_seen;
  state.stop_offset = p.stop_offset;
  state.paused = p.user_paused;
  state.reached_stop = p.stop_offset && p.delivered_to >= *p.stop_offset;
  state.held_records = static_cast<int64_t>(p.held.size());
  state.error = p.error;
  return state;
}

bool KafkaConsumer::AllReachedStop() const {
  for (const auto& [tp, p] : impl_->partitions) {
    if (!p.stop_offset || p.delivered_to < *p.stop_offset) return false;
  }
  return true;
}

Result<KafkaFetch> KafkaConsumer::Fetch(const FetchLimits& limits) {
  Impl& impl = *impl_;
  KafkaFetch out;
  std::map<TopicPartition, size_t> index;  // into out.partitions
  int64_t records = 0;
  int64_t bytes = 0;
  bool full = false;

  auto entry = [&](const TopicPartition& tp, Impl::Partition& p) -> PartitionRecords& {
    auto [it, inserted] = index.try_emplace(tp, out.partitions.size());
    if (inserted) {
      PartitionRecords range;
      range.partition = tp;
      range.from_offset = range.to_offset = p.delivered_to;
      out.partitions.push_back(std::move(range));
    }
    return out.partitions[it->second];
  };
  auto blocked = [](const Impl::Partition& p) { return p.user_paused || p.stop_paused || !p.error.ok(); };
  // Returns false when the record was not taken into the fetch (and must be held).
  auto take = [&](const TopicPartition& tp, Impl::Partition& p, KafkaRecord& record) -> bool {
    if (full || blocked(p)) return false;
    if (p.stop_offset && record.offset() >= *p.stop_offset) return false;
    const int64_t size = record.payload_bytes();
    if (records >= limits.max_records || (records > 0 && bytes + size > limits.max_bytes)) {
      full = true;
      return false;
    }
    PartitionRecords& range = entry(tp, p);
    if (limits.max_records_per_partition > 0 &&
        static_cast<int64_t>(range.records.size()) >= limits.max_records_per_partition) {
      return false;
    }
    p.delivered_to = record.offset() + 1;
    range.to_offset = p.delivered_to;
    range.records.push_back(std::move(record));
    ++records;
    bytes += size;
    return true;
  };
  // Once records were taken into `out` their positions have moved, so
  // nothing below returns early: a failure to pause is listed with the errors.
  auto note = [&](Status status) {
    if (!status.ok()) out.errors.push_back(std::move(status));
  };
  // After a partition's records were taken: cover trailing invisible offsets, stop at its stop offset.
  auto settle = [&](const TopicPartition& tp, Impl::Partition& p) {
    const int64_t before = p.delivered_to;
    impl.CoverToEnd(p);
    if (p.delivered_to != before) {
      PartitionRecords& range = entry(tp, p);
      range.to_offset = p.delivered_to;
      range.reached_end = true;
    }
    note(impl.CheckStop(tp, p));
    if (p.stop_paused) {
      auto it = index.find(tp);
      if (it != index.end()) out.partitions[it->second].reached_stop = true;
    }
  };

  // 1. Records held from earlier fetches come first, in offset order.
  for (auto& [tp, p] : impl.partitions) {
    while (!p.held.empty() && take(tp, p, p.held.front())) p.held.pop_front();
    settle(tp, p);
  }

  // 2. Then what librdkafka has fetched, waiting only while nothing is there.
  std::array<rd_kafka_message_t*, kPopBatch> messages;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::clamp<int64_t>(limits.max_wait_ms, 0, 3600000));
  const TopicPartition* cached_tp = nullptr;
  Impl::Partition* cached = nullptr;
  while (!full && records < limits.max_records) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    ssize_t n;
    if (records == 0 && left.count() > 0) {
      // consume_batch waits until its array is full; one slot returns at the first event.
      n = rd_kafka_consume_batch_queue(impl.queue, static_cast<int>(left.count()), messages.data(), 1);
    } else {
      const auto want = static_cast<size_t>(std::min<int64_t>(limits.max_records - records, kPopBatch));
      n = rd_kafka_consume_batch_queue(impl.queue, 0, messages.data(), want);
    }
    if (n < 0) {
      note(Status::IOError(impl.Where() + ": consuming failed: " + rd_kafka_err2str(rd_kafka_last_error()),
                           true));
      break;
    }
    if (n == 0) {
      if (records == 0 && std::chrono::steady_clock::now() < deadline) continue;
      break;
    }
    std::set<TopicPartition> touched;
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = messages[i];
      if (m->rkt == nullptr) {
        if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          out.errors.push_back(KafkaStatus(m->err, impl.Where() + ": " + rd_kafka_message_errstr(m)));
        }
        rd_kafka_message_destroy(m);
        continue;
      }
      const char* topic = rd_kafka_topic_name(m->rkt);
      if (cached_tp == nullptr || cached_tp->partition != m->partition || cached_tp->topic != topic) {
        auto it = impl.partitions.find(TopicPartition{topic, m->partition});
        cached_tp = it == impl.partitions.end() ? nullptr : &it->first;
        cached = it == impl.partitions.end() ? nullptr : &it->second;
      }
      if (cached == nullptr) {  // no longer assigned
        rd_kafka_message_destroy(m);
        continue;
      }
      Impl::Partition& p = *cached;
      const TopicPartition& tp = *cached_tp;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (m->offset >= p.fetched_to) p.end_seen = m->offset;
        rd_kafka_message_destroy(m);
        touched.insert(tp);
        continue;
      }
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        // A position the partition no longer retains stops it (librdkafka
        // stops its fetcher too) until Seek: records were lost to retention
        // and the caller must decide. Other partition errors are reported
        // while librdkafka keeps retrying.
        const bool lost_position =
            m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE;
        Status error =
            KafkaStatus(m->err, impl.Where() + ": " + tp.ToString() + " at offset " +
                                    std::to_string(p.fetched_to) + ": " + rd_kafka_message_errstr(m));
        rd_kafka_message_destroy(m);
        if (lost_position && p.error.ok()) {
          // Nothing more is fetched for it, so nothing piles up while it waits.
          if (!Impl::PausedInLibrary(p)) note(impl.PauseInLibrary({tp}, true));
          p.error = error;
        }
        out.errors.push_back(std::move(error));
        continue;
      }
      KafkaRecord record(m);
      if (record.offset() < p.fetched_to) continue;  // fetched again after a pause or retry
      p.fetched_to = record.offset() + 1;
      // Once a partition holds records, later ones queue behind them.
      if (!p.held.empty() || !take(tp, p, record)) p.held.push_back(std::move(record));
      touched.insert(tp);
    }
    for (const auto& tp : touched) settle(tp, impl.partitions[tp]);
  }

  char fatal[256];
  if (rd_kafka_resp_err_t err = rd_kafka_fatal_error(impl.rk, fatal, sizeof(fatal));
      err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return KafkaStatus(err, impl.Where() + ": fatal consumer error: " + fatal);
  }
  {
    std::lock_guard lock(impl.events_mutex);
    for (auto& error : impl.pending_errors) out.errors.push_back(std::move(error));
    impl.pending_errors.clear();
    if (impl.dropped_errors > 0) {
      out.errors.push_back(Status::IOError(
          impl.Where() + ": " + std::to_string(impl.dropped_errors) + " more client errors not shown", true));
      impl.dropped_errors = 0;
    }
    impl.last_error_message.clear();
  }
  return out;
}

Status KafkaConsumer::Pause(const std::vector<TopicPartition>& tps) {
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : tps) {
    Impl::Partition* p = impl_->Find(tp);
    if (p == nullptr) return Status::InvalidArgument(tp.ToString() + " is not assigned");
    if (!Impl::PausedInLibrary(*p)) to_pause.push_back(tp);
  }
  FLOE_RETURN_IF_ERROR(impl_->PauseInLibrary(to_pause, true));
  for (const auto& tp : tps) impl_->partitions[tp].user_paused = true;
  return Status::OK();
}

Status KafkaConsumer::Resume(const std::vector<TopicPartition>& tps) {
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : tps) {
    Impl::Partition* p = impl_->Find(tp);
    if (p == nullptr) return Status::InvalidArgument(tp.ToString() + " is not assigned");
    if (p->user_paused && !p->stop_paused && p->error.ok()) to_resume.push_back(tp);
  }
  FLOE_RETURN_IF_ERROR(impl_->PauseInLibrary(to_resume, false));
  for (const auto& tp : tps) impl_->partitions[tp].user_paused = false;
  return Status::OK();
}

Status KafkaConsumer::CommitOffsets(const std::vector<PartitionOffset>& offsets) {
  if (offsets.empty()) return Status::OK();
  PartitionList list = MakeList(offsets.size());
  for (const auto& o : offsets) {
    if (o.offset < 0)
      return Status::InvalidArgument(o.partition.ToString() + ": cannot commit a negative offset");
    rd_kafka_topic_partition_list_add(list.get(), o.partition.topic.c_str(), o.partition.partition)->offset =
        o.offset;
  }
  const std::string context = impl_->Where() + ": committing group " + impl_->options.group_id + " offsets";
  // Through a private queue, so the wait is bounded by request_timeout_ms.
  rd_kafka_queue_t* reply = rd_kafka_queue_new(impl_->rk);
  rd_kafka_resp_err_t err = rd_kafka_commit_queue(impl_->rk, list.get(), reply, nullptr, nullptr);
  Status status;
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status = KafkaStatus(err, context);
  } else {
    rd_kafka_event_t* event = rd_kafka_queue_poll(reply, impl_->timeout_ms());
    if (event == nullptr) {
      status = Status::IOError(context + ": no answer within " + std::to_string(impl_->timeout_ms()) + " ms",
                               true);
    } else {
      if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = KafkaStatus(rd_kafka_event_error(event), context);
      } else if (const rd_kafka_topic_partition_list_t* result = rd_kafka_event_topic_partition_list(event)) {
        for (int i = 0; i < result->cnt && status.ok(); ++i) {
          if (result->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            status = KafkaStatus(
                result->elems[i].err,
                context + " for " +
                    TopicPartition{result->elems[i].topic, result->elems[i].partition}.ToString());
          }
        }
      }
      rd_kafka_event_destroy(event);
    }
  }
  rd_kafka_queue_destroy(reply);
  return status;
}

Result<std::vector<std::pair<TopicPartition, std::optional<int64_t>>>> KafkaConsumer::CommittedOffsets(
    const std::vector<TopicPartition>& tps) {
  std::vector<std::pair<TopicPartition, std::optional<int64_t>>> out;
  if (tps.empty()) return out;
  PartitionList list = MakeList(tps.size());
  for (const auto& tp : tps) rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  rd_kafka_resp_err_t err = rd_kafka_committed(impl_->rk, list.get(), impl_->timeout_ms());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return KafkaStatus(err, impl_->Where() + ": committed offsets of group " + impl_->options.group_id);
  }
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& e = list->elems[i];
    TopicPartition tp{e.topic, e.partition};
    if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return KafkaStatus(e.err, impl_->Where() + ": committed offset of " + tp.ToString());
    }
    out.emplace_back(std::move(tp), e.offset >= 0 ? std::optional<int64_t>(e.offset) : std::nullopt);
  }
  return out;
}

std::vector<std::string> KafkaConsumer::RecentLogs() const {
  std::lock_guard lock(impl_->events_mutex);
  return {impl_->logs.begin(), impl_->logs.end()};
}

}  // namespace floe::kafka
