// The Prometheus text exposition format, version 0.0.4: what `GET /metrics`
// answers (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// Contract: WritePrometheusText writes each family as "# HELP", "# TYPE" and
// its samples, families in the order given and samples in their order;
// histograms as cumulative `_bucket{le="..."}` lines ending with le="+Inf",
// then `_sum` and `_count`. Label values are escaped (\\, \", \n) and any
// invalid UTF-8 in them or in HELP text is replaced by U+FFFD, so the output
// is valid whatever a table name holds; HELP escapes \\ and \n. Values are
// written exactly: integers without an exponent, other numbers with the
// shortest text that reads back as the same double, and +Inf, -Inf, NaN.
// A family whose name, or a label whose name, is not valid Prometheus
// syntax is a programming error reported by CheckFamilies (tests call it);
// the writer itself never fails. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace floe::metrics {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

struct HistogramSample {
  Labels labels;
  std::vector<double> upper_bounds;         // ascending, without +Inf
  std::vector<uint64_t> cumulative_counts;  // observations <= each bound
  uint64_t count = 0;                       // every observation (the +Inf bucket)
  double sum = 0;
};

struct MetricFamily {
  std::string name;  // floe_..., with _total for counters
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<Sample> samples;              // counters and gauges
  std::vector<HistogramSample> histograms;  // histograms
};

std::string WritePrometheusText(const std::vector<MetricFamily>& families);

// [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]* (no "__" prefix).
bool IsValidMetricName(std::string_view name);
bool IsValidLabelName(std::string_view name);
// Names valid, no family twice, label names unique per sample, histogram
// bounds ascending with one count each.
Status CheckFamilies(const std::vector<MetricFamily>& families);

// The sample value as the format writes it ("1", "0.25", "+Inf", "NaN").
std::string FormatSampleValue(double value);

}  // namespace floe::metrics
