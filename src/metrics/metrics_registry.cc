#include "metrics/metrics_registry.h"

#include <algorithm>

namespace floe::metrics {

Metric::Metric(MetricFamily family, std::vector<std::string> label_names, std::vector<double> bounds)
    : shape_(std::move(family)), label_names_(std::move(label_names)), bounds_(std::move(bounds)) {}

Metric::Child& Metric::ChildFor(const std::vector<std::string>& label_values) {
  Child& child = children_[label_values];
  if (shape_.type == MetricType::kHistogram && child.buckets.size() != bounds_.size()) {
    child.buckets.assign(bounds_.size(), 0);
  }
  return child;
}

void Metric::Add(const std::vector<std::string>& label_values, double delta) {
  if (shape_.type == MetricType::kHistogram) return;
  if (shape_.type == MetricType::kCounter && !(delta >= 0)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ChildFor(label_values).value += delta;
}

void Metric::Set(const std::vector<std::string>& label_values, double value) {
  if (shape_.type != MetricType::kGauge) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ChildFor(label_values).value = value;
}

void Metric::Observe(const std::vector<std::string>& label_values, double value) {
  if (shape_.type != MetricType::kHistogram) return;
  std::lock_guard<std::mutex> lock(mutex_);
  Child& child = ChildFor(label_values);
  const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value);  // first bound >= value
  if (bucket != bounds_.end()) ++child.buckets[static_cast<size_t>(bucket - bounds_.begin())];
  ++child.count;
  child.sum += value;
}

double Metric::Value(const std::vector<std::string>& label_values) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = children_.find(label_values);
  return it == children_.end() ? 0 : it->second.value;
}

MetricFamily Metric::Collect(const Labels& constant_labels) const {
  MetricFamily family{shape_.name, shape_.help, shape_.type, {}, {}};
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [values, child] : children_) {
    Labels labels = constant_labels;
    for (size_t i = 0; i < label_names_.size() && i < values.size(); ++i) {
      labels.emplace_back(label_names_[i], values[i]);
    }
    if (shape_.type != MetricType::kHistogram) {
      family.samples.push_back(Sample{std::move(labels), child.value});
      continue;
    }
    HistogramSample histogram{std::move(labels), bounds_, {}, child.count, child.sum};
    uint64_t running = 0;
    for (uint64_t in_bucket : child.buckets) {
      running += in_bucket;
      histogram.cumulative_counts.push_back(running);
    }
    family.histograms.push_back(std::move(histogram));
  }
  return family;
}

MetricsRegistry::MetricsRegistry(Labels constant_labels) : constant_labels_(std::move(constant_labels)) {}

Metric& MetricsRegistry::Add(MetricType type, std::string name, std::string help,
                             std::vector<std::string> label_names, std::vector<double> bounds) {
  std::lock_guard<std::mutex> lock(mutex_);
  metrics_.push_back(std::make_unique<Metric>(MetricFamily{std::move(name), std::move(help), type, {}, {}},
                                              std::move(label_names), std::move(bounds)));
  return *metrics_.back();
}

Metric& MetricsRegistry::AddCounter(std::string name, std::string help,
                                    std::vector<std::string> label_names) {
  return Add(MetricType::kCounter, std::move(name), std::move(help), std::move(label_names), {});
}

Metric& MetricsRegistry::AddGauge(std::string name, std::string help, std::vector<std::string> label_names) {
  return Add(MetricType::kGauge, std::move(name), std::move(help), std::move(label_names), {});
}

Metric& MetricsRegistry::AddHistogram(std::string name, std::string help,
                                      std::vector<std::string> label_names,
                                      std::vector<double> upper_bounds) {
  std::sort(upper_bounds.begin(), upper_bounds.end());
  upper_bounds.erase(std::unique(upper_bounds.begin(), upper_bounds.end()), upper_bounds.end());
  return Add(MetricType::kHistogram, std::move(name), std::move(help), std::move(label_names),
             std::move(upper_bounds));
}

std::vector<MetricFamily> MetricsRegistry::Collect() const {
  std::vector<MetricFamily> families;
  std::lock_guard<std::mutex> lock(mutex_);
  families.reserve(metrics_.size());
  for (const auto& metric : metrics_) families.push_back(metric->Collect(constant_labels_));
  return families;
}

}  // namespace floe::metrics
