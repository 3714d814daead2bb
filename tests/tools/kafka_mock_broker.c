/*
 * kafka_mock_broker: a Kafka cluster on 127.0.0.1 for floe's tests.
 *
 * Debian packages no Kafka broker, so the tests run librdkafka's mock cluster
 * (rdkafka_mock.h, librdkafka-dev 2.0.2): real brokers speaking the Kafka
 * protocol on loopback ports, which any client (kcat, floe's consumer)
 * connects to.
 *
 *   kafka_mock_broker [--brokers N] [--topic NAME:PARTITIONS]...
 *
 * Prints "bootstrap <host:port,...>" once the cluster and the topics exist,
 * then reads one command per line on stdin and answers each with one line,
 * "ok" or "error <reason>" (so a driver can wait for its command to apply):
 *
 *   topic NAME PARTITIONS [REPLICATION]   create a topic
 *   down BROKER_ID | up BROKER_ID         take a broker's listener down / up
 *   rtt BROKER_ID MS                      delay every response of a broker
 *   leader TOPIC PARTITION BROKER_ID      move a partition's leader (-1: none)
 *   errors API COUNT ERR [ERR...]         the next COUNT requests of API (a
 *                                         name such as Fetch, or its number)
 *                                         fail with the ERRs in turn (a name
 *                                         such as NOT_LEADER_FOR_PARTITION or
 *                                         _TRANSPORT, or a number); the last
 *                                         ERR repeats when COUNT is larger
 *   clear API                             drop the pending errors of API
 *   topic_error TOPIC ERR                 Metadata answers ERR for TOPIC
 *   quit                                  (or end of input) stop
 *
 * Limits of the 2.0.2 mock, which tests must size themselves for: each
 * partition keeps about 5 MB (and at most 100,000 message sets); older
 * records are dropped silently and the low watermark moves. There are no
 * transactions markers a test can rely on, no read_committed semantics, and
 * partitions cannot be added to an existing topic.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static const struct {
  const char *name;
  int16_t key;
} kApis[] = {
    {"Produce", 0},         {"Fetch", 1},           {"ListOffsets", 2},      {"Metadata", 3},
    {"OffsetCommit", 8},    {"OffsetFetch", 9},     {"FindCoordinator", 10}, {"JoinGroup", 11},
    {"Heartbeat", 12},      {"LeaveGroup", 13},     {"SyncGroup", 14},       {"ApiVersions", 18},
    {"InitProducerId", 22}, {"OffsetForLeaderEpoch", 23},
};

static int parse_long(const char *text, long *out) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return 0;
  *out = value;
  return 1;
}

static int parse_api(const char *text, int16_t *out) {
  long number;
  if (parse_long(text, &number)) {
    if (number < 0 || number > 1000) return 0;
    *out = (int16_t)number;
    return 1;
  }
  for (size_t i = 0; i < sizeof(kApis) / sizeof(kApis[0]); i++) {
    if (strcasecmp(text, kApis[i].name) == 0) {
      *out = kApis[i].key;
      return 1;
    }
  }
  return 0;
}

/* An error code by number, by name ("NOT_LEADER_FOR_PARTITION", "_TRANSPORT")
 * or by its enum spelling ("RD_KAFKA_RESP_ERR__TRANSPORT"). */
static int parse_error(const char *text, rd_kafka_resp_err_t *out) {
  long number;
  if (parse_long(text, &number)) {
    *out = (rd_kafka_resp_err_t)number;
    return 1;
  }
  if (strncasecmp(text, "RD_KAFKA_RESP_ERR_", 18) == 0) text += 18;
  const struct rd_kafka_err_desc *descs = NULL;
  size_t count = 0;
  rd_kafka_get_err_descs(&descs, &count);
  for (size_t i = 0; i < count; i++) {
    if (descs[i].name != NULL && strcasecmp(text, descs[i].name) == 0) {
      *out = descs[i].code;
      return 1;
    }
  }
  return 0;
}

static void reply(const char *error) {
  if (error == NULL) {
    fputs("ok\n", stdout);
  } else {
    fprintf(stdout, "error %s\n", error);
  }
  fflush(stdout);
}

static void reply_err(rd_kafka_resp_err_t err) {
  reply(err == RD_KAFKA_RESP_ERR_NO_ERROR ? NULL : rd_kafka_err2str(err));
}

static int create_topic(rd_kafka_mock_cluster_t *cluster, const char *name, long partitions,
                        long replication) {
  if (partitions < 1 || partitions > 100000 || replication < 1) {
    reply("partitions and replication must be positive");
    return 0;
  }
  rd_kafka_resp_err_t err =
      rd_kafka_mock_topic_create(cluster, name, (int)partitions, (int)replication);
  reply_err(err);
  return err == RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Runs one command line; returns 0 on "quit". */
static int run_command(rd_kafka_mock_cluster_t *cluster, char *line, int brokers) {
  char *words[64];
  int n = 0;
  for (char *save = NULL, *word = strtok_r(line, " \t\r\n", &save); word != NULL && n < 64;
       word = strtok_r(NULL, " \t\r\n", &save)) {
    words[n++] = word;
  }
  if (n == 0) return 1;
  const char *cmd = words[0];
  long a, b;
  if (strcmp(cmd, "quit") == 0) {
    reply(NULL);
    return 0;
  } else if (strcmp(cmd, "topic") == 0 && (n == 3 || n == 4) && parse_long(words[2], &a)) {
    b = 1;
    if (n == 4 && !parse_long(words[3], &b)) {
      reply("bad replication factor");
      return 1;
    }
    if (b > brokers) b = brokers;
    create_topic(cluster, words[1], a, b);
  } else if ((strcmp(cmd, "down") == 0 || strcmp(cmd, "up") == 0) && n == 2 && parse_long(words[1], &a)) {
    reply_err(strcmp(cmd, "down") == 0 ? rd_kafka_mock_broker_set_down(cluster, (int32_t)a)
                                       : rd_kafka_mock_broker_set_up(cluster, (int32_t)a));
  } else if (strcmp(cmd, "rtt") == 0 && n == 3 && parse_long(words[1], &a) && parse_long(words[2], &b)) {
    reply_err(rd_kafka_mock_broker_set_rtt(cluster, (int32_t)a, (int)b));
  } else if (strcmp(cmd, "leader") == 0 && n == 4 && parse_long(words[2], &a) && parse_long(words[3], &b)) {
    reply_err(rd_kafka_mock_partition_set_leader(cluster, words[1], (int32_t)a, (int32_t)b));
  } else if (strcmp(cmd, "errors") == 0 && n >= 4) {
    int16_t api;
    long count;
    if (!parse_api(words[1], &api) || !parse_long(words[2], &count) || count < 1 || count > 100000) {
      reply("usage: errors API COUNT ERR [ERR...]");
      return 1;
    }
    rd_kafka_resp_err_t *errs = calloc((size_t)count, sizeof(*errs));
    if (errs == NULL) {
      reply("out of memory");
      return 1;
    }
    for (long i = 0; i < count; i++) {
      const char *text = words[3 + (i < n - 3 ? i : n - 4)];
      if (!parse_error(text, &errs[i])) {
        free(errs);
        reply("unknown error code");
        return 1;
      }
    }
    rd_kafka_mock_push_request_errors_array(cluster, api, (size_t)count, errs);
    free(errs);
    reply(NULL);
  } else if (strcmp(cmd, "clear") == 0 && n == 2) {
    int16_t api;
    if (!parse_api(words[1], &api)) {
      reply("unknown api");
      return 1;
    }
    rd_kafka_mock_clear_request_errors(cluster, api);
    reply(NULL);
  } else if (strcmp(cmd, "topic_error") == 0 && n == 3) {
    rd_kafka_resp_err_t err;
    if (!parse_error(words[2], &err)) {
      reply("unknown error code");
      return 1;
    }
    rd_kafka_mock_topic_set_error(cluster, words[1], err);
    reply(NULL);
  } else {
    reply("unknown command or wrong arguments");
  }
  return 1;
}

int main(int argc, char **argv) {
  long brokers = 1;
  signal(SIGPIPE, SIG_IGN);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
      if (!parse_long(argv[++i], &brokers) || brokers < 1 || brokers > 64) {
        fprintf(stderr, "kafka_mock_broker: --brokers needs 1..64\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc) {
      i++;
    } else {
      fprintf(stderr, "usage: kafka_mock_broker [--brokers N] [--topic NAME:PARTITIONS]...\n");
      return 2;
    }
  }

  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* The handle only keeps the cluster's books; it never connects anywhere. */
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (rk == NULL) {
    fprintf(stderr, "kafka_mock_broker: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(rk, (int)brokers);
  if (cluster == NULL) {
    fprintf(stderr, "kafka_mock_broker: could not start the mock cluster\n");
    return 1;
  }

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--topic") != 0) {
      if (strcmp(argv[i], "--brokers") == 0) i++;
      continue;
    }
    char *spec = argv[++i];
    char *colon = strrchr(spec, ':');
    long partitions = 1;
    if (colon != NULL) {
      *colon = '\0';
      if (!parse_long(colon + 1, &partitions) || partitions < 1) {
        fprintf(stderr, "kafka_mock_broker: bad --topic %s\n", spec);
        return 2;
      }
    }
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster, spec, (int)partitions, 1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      fprintf(stderr, "kafka_mock_broker: topic %s: %s\n", spec, rd_kafka_err2str(err));
      return 1;
    }
  }

  fprintf(stdout, "bootstrap %s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  fflush(stdout);

  char line[4096];
  while (fgets(line, sizeof(line), stdin) != NULL) {
    if (!run_command(cluster, line, (int)brokers)) break;
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(rk);
  return 0;
}
