// MetricsRegistry: counters, gauges and histograms kept in memory by the
// code that counts (the pipeline loop, its maintenance worker) and read by
// whoever serves them (GET /metrics).
//
// Contract: families are registered once, at setup, with fixed label names;
// an update names the label values (in the registered order) and costs one
// mutex and a map lookup — updates happen per batch or per poll, never per
// row. Collect returns every family with its samples sorted by label values
// and the registry's constant labels (pipeline="...") first on each sample;
// a family without samples yet is still returned (its HELP and TYPE).
// Counters only go up (Add of a negative delta is ignored). Histograms have
// fixed upper bounds. Thread-safe; references returned by Add* live as long
// as the registry.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/prometheus_text.h"

namespace floe::metrics {

class Metric {
 public:
  Metric(MetricFamily family, std::vector<std::string> label_names, std::vector<double> bounds);

  // Counters and gauges.
  void Add(const std::vector<std::string>& label_values, double delta);
  // Gauges.
  void Set(const std::vector<std::string>& label_values, double value);
  // Histograms.
  void Observe(const std::vector<std::string>& label_values, double value);
  // The current value of a counter or gauge (0 when never set); for tests and readiness.
  double Value(const std::vector<std::string>& label_values) const;

  MetricFamily Collect(const Labels& constant_labels) const;

 private:
  struct Child {
    double value = 0;
    std::vector<uint64_t> buckets;  // histograms: observations per bound (not cumulative)
    uint64_t count = 0;
    double sum = 0;
  };
  Child& ChildFor(const std::vector<std::string>& label_values);  // mutex_ held

  const MetricFamily shape_;  // name, help, type
  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::map<std::vector<std::string>, Child> children_;
};

class MetricsRegistry {
 public:
  // `constant_labels` go first on every sample (e.g. {"pipeline", name}).
  explicit MetricsRegistry(Labels constant_labels = {});

  Metric& AddCounter(std::string name, std::string help, std::vector<std::string> label_names);
  Metric& AddGauge(std::string name, std::string help, std::vector<std::string> label_names);
  Metric& AddHistogram(std::string name, std::string help, std::vector<std::string> label_names,
                       std::vector<double> upper_bounds);

  std::vector<MetricFamily> Collect() const;
  const Labels& constant_labels() const { return constant_labels_; }

 private:
  Metric& Add(MetricType type, std::string name, std::string help, std::vector<std::string> label_names,
              std::vector<double> bounds);

  const Labels constant_labels_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Metric>> metrics_;
};

}  // namespace floe::metrics
