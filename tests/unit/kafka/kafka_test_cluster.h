// Test helpers: the Kafka test broker (tests/tools/kafka_mock_broker.c, a
// librdkafka mock cluster on 127.0.0.1) and records produced by kcat, a Kafka
// client floe did not write.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"

namespace floe::testing {

class MockKafkaCluster {
 public:
  // Starts the test broker with `brokers` brokers and the given topics
  // (name, partitions); bootstrap() is empty when it did not come up.
  MockKafkaCluster(int brokers, const std::vector<std::pair<std::string, int>>& topics,
                   const std::string& log_path) {
    std::vector<std::string> argv = {FLOE_KAFKA_MOCK_BROKER, "--brokers", std::to_string(brokers)};
    for (const auto& [name, partitions] : topics) {
      argv.push_back("--topic");
      argv.push_back(name + ":" + std::to_string(partitions));
    }
    if (child_.Start(argv, log_path)) {
      bootstrap_ = child_.WaitForLine("bootstrap ", std::chrono::seconds(20)).value_or("");
    }
  }

  const std::string& bootstrap() const { return bootstrap_; }

  // Sends one command (see kafka_mock_broker.c) and returns its answer:
  // "ok" or "error <reason>".
  std::string Command(const std::string& line) {
    if (!child_.WriteLine(line)) return "error: the test broker is gone";
    return child_.ReadLine(std::chrono::seconds(20)).value_or("error: no answer");
  }

 private:
  ChildProcess child_;
  std::string bootstrap_;
};

// One record for kcat to produce; nullopt key or value is sent as null (kcat
// -Z), so an empty, non-null key or value cannot be produced this way.
struct KcatRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
};

// Delimiters kcat splits its input at; no test record may contain them.
inline constexpr std::string_view kKcatRecordDelimiter = "|~floe-record~|";
inline constexpr std::string_view kKcatKeyDelimiter = "|~floe-key~|";

// Produces `records` to topic[partition] with kcat, in order, with the given
// headers ("name=value") on every record. Returns "" or what went wrong.
inline std::string KcatProduce(const std::string& bootstrap, const std::string& topic, int partition,
                               const std::vector<KcatRecord>& records, const std::string& log_path,
                               const std::vector<std::string>& headers = {}) {
  std::string input;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    for (const auto* part : {&r.key, &r.value}) {
      if (part->has_value() &&
          ((*part)->empty() || (*part)->find(kKcatRecordDelimiter) != std::string::npos ||
           (*part)->find(kKcatKeyDelimiter) != std::string::npos)) {
        return "record " + std::to_string(i) + " is empty or contains a kcat delimiter";
      }
    }
    if (i > 0) input += kKcatRecordDelimiter;
    input += r.key.value_or("");
    input += kKcatKeyDelimiter;
    input += r.value.value_or("");
  }
  std::vector<std::string> argv = {"kcat", "-P", "-q", "-b", bootstrap, "-t", topic, "-p",
                                   std::to_string(partition), "-Z", "-K", std::string(kKcatKeyDelimiter),
                                   "-D", std::string(kKcatRecordDelimiter),
                                   // Order is part of what the tests check: no reordering retries.
                                   "-X", "enable.idempotence=true"};
  for (const auto& h : headers) {
    argv.push_back("-H");
    argv.push_back(h);
  }
  int rc = RunProgram(argv, input, log_path);
  if (rc != 0) return "kcat exited with " + std::to_string(rc) + " (see " + log_path + ")";
  return "";
}

// Why Kafka tests cannot run here, or "" when they can.
inline std::string KafkaToolsMissingReason() {
  if (!std::filesystem::exists(FLOE_KAFKA_MOCK_BROKER)) return "the test broker is not built";
  if (RunProgram({"kcat", "-V"}, "", "/dev/null") != 0)
    return "kcat is not installed (Debian package kafkacat)";
  return "";
}

}  // namespace floe::testing
