#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include "stream/kafka/kafka_status.h"

namespace floe::kafka {
namespace {

TEST(KafkaStatusTest, TransportErrorsAreRetryable) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__TIMED_OUT,
        RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
        RD_KAFKA_RESP_ERR_NOT_COORDINATOR, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
        RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR}) {
    Status status = KafkaStatus(err, "Kafka b:9092: orders[2] at offset 7");
    EXPECT_EQ(status.kind(), ErrorKind::kIOError) << rd_kafka_err2name(err);
    EXPECT_TRUE(status.retryable()) << rd_kafka_err2name(err);
    EXPECT_TRUE(IsRetryableKafkaError(err));
  }
}

TEST(KafkaStatusTest, KindsNameTheErrorAndKeepTheContext) {
  Status range = KafkaStatus(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET, "Kafka b:9092: orders[2] at offset 7");
  EXPECT_EQ(range.kind(), ErrorKind::kOutOfRange);
  EXPECT_FALSE(range.retryable());
  EXPECT_EQ(range.message().rfind("Kafka b:9092: orders[2] at offset 7: ", 0), 0u) << range.message();
  EXPECT_NE(range.message().find("(_AUTO_OFFSET_RESET)"), std::string::npos) << range.message();

  EXPECT_EQ(KafkaStatus(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE, "x").kind(), ErrorKind::kOutOfRange);
  EXPECT_EQ(KafkaStatus(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "x").kind(), ErrorKind::kNotFound);
  EXPECT_EQ(KafkaStatus(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, "x").kind(), ErrorKind::kNotFound);
  EXPECT_EQ(KafkaStatus(RD_KAFKA_RESP_ERR_INVALID_CONFIG, "x").kind(), ErrorKind::kInvalidArgument);
  for (rd_kafka_resp_err_t err : {RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED,
                                  RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR__SSL}) {
    Status status = KafkaStatus(err, "x");
    EXPECT_EQ(status.kind(), ErrorKind::kIOError);
    EXPECT_FALSE(status.retryable()) << rd_kafka_err2name(err);
  }
}

}  // namespace
}  // namespace floe::kafka
