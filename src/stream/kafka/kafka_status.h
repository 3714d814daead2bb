// Kafka error codes as floe Status values.
//
// Contract: KafkaStatus turns a librdkafka error code (rd_kafka_resp_err_t,
// passed as int so callers need not include rdkafka.h) into a Status whose
// message is "<context>: <librdkafka's description> (<error name>)". The
// context names what failed: the topic, partition and offset, or the call.
// Kinds: transport and broker-availability errors (connection refused or
// reset, all brokers down, timeouts, leader or coordinator changes, a
// rebalance, too few replicas) are IOError marked retryable — retrying the
// same call later may succeed, and a continuous run keeps running through
// them; an offset outside the partition's retained range is OutOfRange; an
// unknown topic or partition is NotFound; authentication and authorization
// failures are IOError, not retryable; a rejected configuration is
// InvalidArgument; anything else is IOError, not retryable.
// Stateless and thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace floe::kafka {

// Whether librdkafka error `err` is transient (see the contract above).
bool IsRetryableKafkaError(int err);

// The Status for librdkafka error `err` (which must not be 0, "no error").
Status KafkaStatus(int err, std::string_view context);

}  // namespace floe::kafka
