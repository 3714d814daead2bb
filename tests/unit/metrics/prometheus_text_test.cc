// The Prometheus text exposition writer and the in-memory registry: exact
// output for counters, gauges and histograms, escaping of label values and
// HELP text (untrusted table names included), value formatting, the
// checks a family must pass.
#include "metrics/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "metrics/metrics_registry.h"

namespace floe::metrics {
namespace {

TEST(PrometheusTextTest, CountersGaugesAndHistogramsAreWrittenExactly) {
  std::vector<MetricFamily> families;
  families.push_back({"floe_batches_committed_total",
                      "Batches committed.",
                      MetricType::kCounter,
                      {{{{"pipeline", "p"}, {"table", "cc_claim"}}, 3}},
                      {}});
  families.push_back({"floe_bytes_pending", "Bytes waiting.", MetricType::kGauge, {{{}, 1234567}}, {}});
  families.push_back({"floe_batch_duration_seconds",
                      "Batch wall time.",
                      MetricType::kHistogram,
                      {},
                      {{{{"table", "t"}}, {0.5, 1, 2.5}, {1, 3, 3}, 4, 6.25}}});
  ASSERT_TRUE(CheckFamilies(families).ok()) << CheckFamilies(families).ToString();
  EXPECT_EQ(WritePrometheusText(families),
            "# HELP floe_batches_committed_total Batches committed.\n"
            "# TYPE floe_batches_committed_total counter\n"
            "floe_batches_committed_total{pipeline=\"p\",table=\"cc_claim\"} 3\n"
            "# HELP floe_bytes_pending Bytes waiting.\n"
            "# TYPE floe_bytes_pending gauge\n"
            "floe_bytes_pending 1234567\n"
            "# HELP floe_batch_duration_seconds Batch wall time.\n"
            "# TYPE floe_batch_duration_seconds histogram\n"
            "floe_batch_duration_seconds_bucket{table=\"t\",le=\"0.5\"} 1\n"
            "floe_batch_duration_seconds_bucket{table=\"t\",le=\"1\"} 3\n"
            "floe_batch_duration_seconds_bucket{table=\"t\",le=\"2.5\"} 3\n"
            "floe_batch_duration_seconds_bucket{table=\"t\",le=\"+Inf\"} 4\n"
            "floe_batch_duration_seconds_sum{table=\"t\"} 6.25\n"
            "floe_batch_duration_seconds_count{table=\"t\"} 4\n");
}

TEST(PrometheusTextTest, LabelValuesAndHelpAreEscapedAndMadeValidUtf8) {
  std::vector<MetricFamily> families;
  families.push_back({"floe_files_pending",
                      "Files\\waiting\nfor a batch",
                      MetricType::kGauge,
                      {{{{"table", "a\"b\\c\nd</script>\xff\xc3\xa9"}}, 1}},
                      {}});
  EXPECT_EQ(WritePrometheusText(families),
            "# HELP floe_files_pending Files\\\\waiting\\nfor a batch\n"
            "# TYPE floe_files_pending gauge\n"
            "floe_files_pending{table=\"a\\\"b\\\\c\\nd</script>\xEF\xBF\xBD\xc3\xa9\"} 1\n");
}

TEST(PrometheusTextTest, ValuesKeepTheirExactValue) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(-7), "-7");
  EXPECT_EQ(FormatSampleValue(1764590400), "1764590400");
  EXPECT_EQ(FormatSampleValue(0.1), "0.1");
  EXPECT_EQ(FormatSampleValue(1e300), "1e+300");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatSampleValue(std::nan("")), "NaN");
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(FormatSampleValue(third)), third);
}

TEST(PrometheusTextTest, BadFamiliesAreReported) {
  EXPECT_TRUE(IsValidMetricName("floe:rate_5m"));
  EXPECT_FALSE(IsValidMetricName("9floe"));
  EXPECT_FALSE(IsValidMetricName("floe-rows"));
  EXPECT_FALSE(IsValidLabelName("__name__"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  auto check = [](MetricFamily family) { return CheckFamilies({std::move(family)}); };
  EXPECT_FALSE(check({"floe_batches", "", MetricType::kCounter, {}, {}}).ok()) << "a counter without _total";
  EXPECT_FALSE(check({"floe_x", "", MetricType::kGauge, {{{{"table", "a"}, {"table", "b"}}, 1}}, {}}).ok());
  EXPECT_FALSE(check({"floe_x", "", MetricType::kHistogram, {}, {{{{"le", "1"}}, {1}, {1}, 1, 1}}}).ok());
  EXPECT_FALSE(check({"floe_x", "", MetricType::kHistogram, {}, {{{}, {2, 1}, {0, 1}, 1, 1}}}).ok());
  EXPECT_FALSE(
      CheckFamilies({{"floe_x", "", MetricType::kGauge, {}, {}}, {"floe_x", "", MetricType::kGauge, {}, {}}})
          .ok());
}

TEST(MetricsRegistryTest, UpdatesAreCollectedWithConstantLabelsFirst) {
  MetricsRegistry registry(Labels{{"pipeline", "orders"}});
  Metric& committed = registry.AddCounter("floe_rows_committed_total", "Rows.", {"table", "kind"});
  Metric& pending = registry.AddGauge("floe_files_pending", "Files.", {"table"});
  Metric& duration = registry.AddHistogram("floe_commit_duration_seconds", "Commit.", {"table"}, {1, 0.1, 1});
  registry.AddGauge("floe_never_set", "Nothing yet.", {});
  committed.Add({"b", "inserted"}, 5);
  committed.Add({"a", "inserted"}, 2);
  committed.Add({"a", "inserted"}, 3);
  committed.Add({"a", "inserted"}, -10);  // counters never go down
  pending.Set({"a"}, 7);
  pending.Set({"a"}, 4);
  duration.Observe({"a"}, 0.05);
  duration.Observe({"a"}, 0.1);
  duration.Observe({"a"}, 0.5);
  duration.Observe({"a"}, 30);
  EXPECT_EQ(committed.Value({"a", "inserted"}), 5);
  const std::vector<MetricFamily> families = registry.Collect();
  ASSERT_TRUE(CheckFamilies(families).ok());
  EXPECT_EQ(WritePrometheusText(families),
            "# HELP floe_rows_committed_total Rows.\n"
            "# TYPE floe_rows_committed_total counter\n"
            "floe_rows_committed_total{pipeline=\"orders\",table=\"a\",kind=\"inserted\"} 5\n"
            "floe_rows_committed_total{pipeline=\"orders\",table=\"b\",kind=\"inserted\"} 5\n"
            "# HELP floe_files_pending Files.\n"
            "# TYPE floe_files_pending gauge\n"
            "floe_files_pending{pipeline=\"orders\",table=\"a\"} 4\n"
            "# HELP floe_commit_duration_seconds Commit.\n"
            "# TYPE floe_commit_duration_seconds histogram\n"
            "floe_commit_duration_seconds_bucket{pipeline=\"orders\",table=\"a\",le=\"0.1\"} 2\n"
            "floe_commit_duration_seconds_bucket{pipeline=\"orders\",table=\"a\",le=\"1\"} 3\n"
            "floe_commit_duration_seconds_bucket{pipeline=\"orders\",table=\"a\",le=\"+Inf\"} 4\n"
            "floe_commit_duration_seconds_sum{pipeline=\"orders\",table=\"a\"} 30.65\n"
            "floe_commit_duration_seconds_count{pipeline=\"orders\",table=\"a\"} 4\n"
            "# HELP floe_never_set Nothing yet.\n"
            "# TYPE floe_never_set gauge\n");
}

}  // namespace
}  // namespace floe::metrics
