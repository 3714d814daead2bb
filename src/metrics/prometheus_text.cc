#include "metrics/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <set>

#include "common/utf8.h"

namespace floe::metrics {

namespace {

// `text` with invalid UTF-8 replaced by U+FFFD and the characters the
// context needs escaped: \\ and \n always, \" in label values.
void AppendEscaped(std::string_view text, bool quote, std::string* out) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out->append("\xEF\xBF\xBD");
      ++i;
      continue;
    }
    const char c = text[i];
    if (length == 1 && c == '\\') {
      out->append("\\\\");
    } else if (length == 1 && c == '\n') {
      out->append("\\n");
    } else if (length == 1 && c == '"' && quote) {
      out->append("\\\"");
    } else {
      out->append(text.substr(i, length));
    }
    i += length;
  }
}

void AppendLabels(const Labels& labels, const std::pair<std::string, std::string>* extra, std::string* out) {
  if (labels.empty() && extra == nullptr) return;
  out->push_back('{');
  bool first = true;
  auto append = [&](const std::string& name, const std::string& value) {
    if (!first) out->push_back(',');
    first = false;
    out->append(name);
    out->append("=\"");
    AppendEscaped(value, true, out);
    out->push_back('"');
  };
  for (const auto& [name, value] : labels) append(name, value);
  if (extra != nullptr) append(extra->first, extra->second);
  out->push_back('}');
}

void AppendSample(const std::string& name, const Labels& labels,
                  const std::pair<std::string, std::string>* extra, double value, std::string* out) {
  out->append(name);
  AppendLabels(labels, extra, out);
  out->push_back(' ');
  out->append(FormatSampleValue(value));
  out->push_back('\n');
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

bool NameCharacter(char c, bool first, bool colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return letter || (!first && c >= '0' && c <= '9');
}

bool ValidName(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!NameCharacter(name[i], i == 0, colon)) return false;
  }
  return true;
}

Status CheckLabels(const std::string& family, const Labels& labels, bool histogram) {
  std::set<std::string> seen;
  for (const auto& [name, value] : labels) {
    if (!IsValidLabelName(name) || (histogram && name == "le")) {
      return Status::InvalidArgument("metric " + family + ": label name '" + name + "' is not valid");
    }
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("metric " + family + ": label '" + name + "' given twice");
    }
  }
  return Status::OK();
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
  return ValidName(name, true);
}

bool IsValidLabelName(std::string_view name) {
  return ValidName(name, false) && !name.starts_with("__");
}

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integers (counts, bytes, epoch seconds) without an exponent.
  if (value == std::trunc(value) && std::fabs(value) < 9.0e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  if (ec != std::errc()) return "NaN";
  return std::string(text, end);
}

Status CheckFamilies(const std::vector<MetricFamily>& families) {
  std::set<std::string> names;
  for (const MetricFamily& family : families) {
    if (!IsValidMetricName(family.name)) {
      return Status::InvalidArgument("metric name '" + family.name + "' is not valid");
    }
    if (!names.insert(family.name).second) {
      return Status::InvalidArgument("metric " + family.name + " is written twice");
    }
    if (family.type == MetricType::kCounter && !family.name.ends_with("_total")) {
      return Status::InvalidArgument("counter " + family.name + " does not end in _total");
    }
    for (const Sample& sample : family.samples) {
      FLOE_RETURN_IF_ERROR(CheckLabels(family.name, sample.labels, false));
    }
    for (const HistogramSample& histogram : family.histograms) {
      FLOE_RETURN_IF_ERROR(CheckLabels(family.name, histogram.labels, true));
      if (histogram.upper_bounds.size() != histogram.cumulative_counts.size()) {
        return Status::InvalidArgument("histogram " + family.name + ": one count per bound is needed");
      }
      for (size_t i = 0; i < histogram.upper_bounds.size(); ++i) {
        if (i > 0 && (histogram.upper_bounds[i] <= histogram.upper_bounds[i - 1] ||
                      histogram.cumulative_counts[i] < histogram.cumulative_counts[i - 1])) {
          return Status::InvalidArgument("histogram " + family.name + ": bounds or counts not ascending");
        }
      }
      if (!histogram.cumulative_counts.empty() && histogram.cumulative_counts.back() > histogram.count) {
        return Status::InvalidArgument("histogram " + family.name + ": a bucket counts more than _count");
      }
    }
  }
  return Status::OK();
}

std::string WritePrometheusText(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& family : families) {
    out.append("# HELP ");
    out.append(family.name);
    out.push_back(' ');
    AppendEscaped(family.help, false, &out);
    out.append("\n# TYPE ");
    out.append(family.name);
    out.push_back(' ');
    out.append(TypeName(family.type));
    out.push_back('\n');
    for (const Sample& sample : family.samples)
      AppendSample(family.name, sample.labels, nullptr, sample.value, &out);
    for (const HistogramSample& histogram : family.histograms) {
      const std::string bucket = family.name + "_bucket";
      for (size_t i = 0; i < histogram.upper_bounds.size(); ++i) {
        const std::pair<std::string, std::string> le{"le", FormatSampleValue(histogram.upper_bounds[i])};
        AppendSample(bucket, histogram.labels, &le, static_cast<double>(histogram.cumulative_counts[i]),
                     &out);
      }
      const std::pair<std::string, std::string> inf{"le", "+Inf"};
      AppendSample(bucket, histogram.labels, &inf, static_cast<double>(histogram.count), &out);
      AppendSample(family.name + "_sum", histogram.labels, nullptr, histogram.sum, &out);
      AppendSample(family.name + "_count", histogram.labels, nullptr, static_cast<double>(histogram.count),
                   &out);
    }
  }
  return out;
}

}  // namespace floe::metrics
