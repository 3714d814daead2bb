// Consumes every record of a topic's partitions from their low to their high
// watermark with floe's KafkaConsumer, as fast as it goes, and prints one
// JSON line: records, key+value bytes, seconds, records/s and MB/s.
//
//   consume_throughput BOOTSTRAP TOPIC PARTITIONS [MAX_RECORDS_PER_FETCH]
//
// bench/kafka/run.sh runs it beside kcat on the same records.
#include <chrono>
#include <cstdio>
#include <string>

#include "stream/kafka/kafka_consumer.h"

using namespace floe::kafka;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: consume_throughput BOOTSTRAP TOPIC PARTITIONS [MAX_RECORDS_PER_FETCH]\n");
    return 2;
  }
  KafkaConsumerOptions options;
  options.bootstrap_servers = argv[1];
  options.group_id = "floe-bench";
  const std::string topic = argv[2];
  const int partitions = std::stoi(argv[3]);
  FetchLimits limits;
  limits.max_records = argc > 4 ? std::stoll(argv[4]) : 10000;
  limits.max_bytes = int64_t{64} << 20;
  auto consumer = KafkaConsumer::Open(options);
  if (!consumer.ok()) {
    std::fprintf(stderr, "%s\n", consumer.status().ToString().c_str());
    return 1;
  }
  std::vector<PartitionStart> starts;
  int64_t expected = 0;
  for (int p = 0; p < partitions; ++p) {
    auto marks = (*consumer)->QueryWatermarks(TopicPartition{topic, p});
    if (!marks.ok()) {
      std::fprintf(stderr, "%s\n", marks.status().ToString().c_str());
      return 1;
    }
    expected += marks->high - marks->low;
    starts.push_back({{topic, p}, marks->low, marks->high});
  }
  const auto start = std::chrono::steady_clock::now();
  if (auto s = (*consumer)->Assign(starts); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  int64_t records = 0;
  int64_t bytes = 0;
  uint64_t checksum = 0;  // touch every value so the bytes are read
  while (!(*consumer)->AllReachedStop()) {
    auto fetch = (*consumer)->Fetch(limits);
    if (!fetch.ok()) {
      std::fprintf(stderr, "%s\n", fetch.status().ToString().c_str());
      return 1;
    }
    for (const auto& range : fetch->partitions) {
      for (const auto& record : range.records) {
        ++records;
        bytes += record.payload_bytes();
        if (auto value = record.value(); value && !value->empty())
          checksum += static_cast<uint8_t>(value->back());
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "{\"records\": %lld, \"expected\": %lld, \"bytes\": %lld, \"seconds\": %.3f, \"records_per_s\": %.0f, "
      "\"mb_per_s\": %.1f, \"checksum\": %llu}\n",
      static_cast<long long>(records), static_cast<long long>(expected), static_cast<long long>(bytes),
      seconds, records / seconds, bytes / seconds / 1e6, static_cast<unsigned long long>(checksum));
  return records == expected ? 0 : 1;
}
