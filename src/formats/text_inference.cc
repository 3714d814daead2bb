#include "formats/text_inference.h"

#include <bit>

#include "formats/ascii_text.h"

namespace floe::formats {
namespace {

struct CandidateSpec {
  const char* date;  // strftime; nullptr = ISO 8601
  int family;
};

// Date orders tried when no date_format is set (index 0 is ISO 8601).
constexpr CandidateSpec kDateCandidates[] = {
    {nullptr, 0},    {"%m/%d/%Y", 1}, {"%d/%m/%Y", 2}, {"%Y/%m/%d", 0},
    {"%d.%m.%Y", 2}, {"%m-%d-%Y", 1}, {"%d-%m-%Y", 2}, {"%d-%b-%Y", 0},
};

InferredType Of(InferredType::Kind kind) {
  InferredType t;
  t.kind = kind;
  return t;
}

}  // namespace

Result<std::shared_ptr<const TextInference>> TextInference::Make(const TypeInferenceOptions& options) {
  std::shared_ptr<TextInference> inference(new TextInference());
  inference->options_ = options;
  if (!options.date_format.empty()) {
    auto format = TemporalFormat::Compile(options.date_format);
    if (!format.ok()) return format.status().WithContext("date_format");
    if (!format->has_date()) {
      return Status::InvalidArgument("date_format '" + options.date_format + "' has no date directive");
    }
    inference->configured_date_ = std::make_unique<TemporalFormat>(*format);
    inference->dates_.push_back(Candidate{std::make_unique<TemporalFormat>(*format), 0});
  } else {
    for (const CandidateSpec& spec : kDateCandidates) {
      Candidate candidate;
      candidate.family = spec.family;
      if (spec.date) {
        FLOE_ASSIGN_OR_RETURN(TemporalFormat format, TemporalFormat::Compile(spec.date));
        candidate.format = std::make_unique<TemporalFormat>(std::move(format));
      }
      inference->dates_.push_back(std::move(candidate));
    }
  }
  if (!options.timestamp_format.empty()) {
    auto format = TemporalFormat::Compile(options.timestamp_format);
    if (!format.ok()) return format.status().WithContext("timestamp_format");
    if (!format->has_date()) {
      return Status::InvalidArgument("timestamp_format '" + options.timestamp_format +
                                     "' has no date directive");
    }
    inference->configured_timestamp_ = std::make_unique<TemporalFormat>(*format);
    inference->timestamps_.push_back(Candidate{std::make_unique<TemporalFormat>(*format), 0});
    inference->timestamp_date_.push_back(-1);
  } else {
    // ISO, then each non-ISO date order with " H:M:S[.f]"; m/d/Y also with a 12-hour clock.
    inference->timestamps_.push_back(Candidate{nullptr, 0});
    inference->timestamp_date_.push_back(options.date_format.empty() ? 0 : -1);
    if (options.date_format.empty()) {
      for (size_t d = 1; d < std::size(kDateCandidates); ++d) {
        const std::string date = kDateCandidates[d].date;
        for (const char* time : {" %H:%M:%S", " %I:%M:%S %p"}) {
          if (time[1] == '%' && time[2] == 'I' && date != "%m/%d/%Y") continue;
          FLOE_ASSIGN_OR_RETURN(TemporalFormat format, TemporalFormat::Compile(date + time));
          inference->timestamps_.push_back(
              Candidate{std::make_unique<TemporalFormat>(std::move(format)), kDateCandidates[d].family});
          inference->timestamp_date_.push_back(static_cast<int>(d));
        }
      }
    }
  }
  return std::shared_ptr<const TextInference>(std::move(inference));
}

uint32_t TextInference::DateMask(std::string_view text, TimestampText* parsed) const {
  uint32_t mask = 0;
  for (size_t i = 0; i < dates_.size(); ++i) {
    bool ok;
    if (dates_[i].format) {
      ok = dates_[i].format->Parse(text, parsed) && !dates_[i].format->has_time();
    } else {
      int32_t days;
      ok = ParseIsoDate(text, &days);
    }
    if (ok) mask |= 1u << i;
  }
  return mask;
}

uint32_t TextInference::TimestampMask(std::string_view text, TimestampText* parsed) const {
  uint32_t mask = 0;
  for (size_t i = 0; i < timestamps_.size(); ++i) {
    TimestampText value;
    bool ok;
    if (timestamps_[i].format) {
      ok = timestamps_[i].format->Parse(text, &value);
    } else {
      ok = ParseIsoTimestamp(text, &value) && value.has_time;
    }
    if (ok) {
      // Every candidate agrees on the zone: ISO reports it per value, a
      // configured format has it or not; keep the first parse.
      if (mask == 0) *parsed = value;
      mask |= 1u << i;
    }
  }
  return mask;
}

InferredType TextInference::ClassifyTemporal(std::string_view text) const {
  // Cheap rejection: every candidate starts with a digit (or a month name
  // for d-b-Y, which starts with a digit too) and is at least 6 characters.
  if (text.size() < 6 || text.size() > 64 || static_cast<unsigned char>(text[0] - '0') > 9) {
    if (!configured_date_ && !configured_timestamp_) return Of(InferredType::kString);
  }
  TimestampText parsed;
  if (uint32_t mask = DateMask(text, &parsed)) {
    InferredType t = Of(InferredType::kDate);
    t.formats = mask;
    return t;
  }
  if (uint32_t mask = TimestampMask(text, &parsed)) {
    InferredType t = Of(parsed.has_zone ? InferredType::kTimestampTz : InferredType::kTimestamp);
    t.formats = mask;
    t.fraction_digits = parsed.fraction_digits;
    return t;
  }
  return Of(InferredType::kString);
}

InferredType TextInference::Classify(std::string_view text) const {
  if (EqualsIgnoreCase(text, "true") || EqualsIgnoreCase(text, "false")) return Of(InferredType::kBoolean);
  const NumberShape shape = ClassifyNumberText(text);
  switch (shape.kind) {
    case NumberShape::kInteger: {
      InferredType t = Of(InferredType::kInteger);
      t.integer_digits = shape.integer_digits;
      return t;
    }
    case NumberShape::kDecimal: {
      // Fixed-point exports (money, rates) have few fraction digits; a long
      // fraction is a printed floating-point value.
      if (shape.scale > kMaxInferredDecimalScale ||
          (shape.scale > 0 && shape.integer_digits + shape.scale > kMaxInferredDecimalDigits)) {
        return Of(InferredType::kDouble);
      }
      InferredType t = Of(InferredType::kDecimal);
      t.integer_digits = shape.integer_digits;
      t.scale = shape.scale;
      return t;
    }
    case NumberShape::kDouble: return Of(InferredType::kDouble);
    case NumberShape::kNotANumber: break;
  }
  return ClassifyTemporal(text);
}

InferredType TextInference::ClassifyJsonNumber(const NumberShape& shape) {
  switch (shape.kind) {
    case NumberShape::kInteger: {
      InferredType t = Of(InferredType::kInteger);
      t.integer_digits = shape.integer_digits;
      return t;
    }
    case NumberShape::kDecimal:
      // An integer past int64 stays exact as decimal(38,0); a fraction is a double.
      if (shape.scale == 0) {
        InferredType t = Of(InferredType::kDecimal);
        t.integer_digits = shape.integer_digits;
        return t;
      }
      return Of(InferredType::kDouble);
    case NumberShape::kDouble: return Of(InferredType::kDouble);
    case NumberShape::kNotANumber: break;
  }
  return Of(InferredType::kString);
}

void TextInference::Widen(InferredType* into, const InferredType& value) const {
  using K = InferredType;
  if (value.kind == K::kNull || into->kind == K::kString) return;
  if (into->kind == K::kNull) {
    *into = value;
    return;
  }
  const K::Kind a = into->kind, b = value.kind;
  auto numeric = [](K::Kind k) { return k == K::kInteger || k == K::kDecimal || k == K::kDouble; };
  if (numeric(a) && numeric(b)) {
    if (a == K::kDouble || b == K::kDouble) {
      *into = Of(K::kDouble);
      return;
    }
    const int32_t digits = std::max(into->integer_digits, value.integer_digits);
    const int32_t scale = std::max(into->scale, value.scale);
    if (a == K::kInteger && b == K::kInteger) {
      into->integer_digits = digits;
      return;
    }
    if (digits + scale > kMaxDecimalPrecision) {
      *into = Of(K::kDouble);
      return;
    }
    into->kind = K::kDecimal;
    into->integer_digits = digits;
    into->scale = scale;
    return;
  }
  if (a == b) {
    switch (a) {
      case K::kBoolean: return;
      case K::kDate:
      case K::kTimestamp:
      case K::kTimestampTz:
        into->formats &= value.formats;
        into->fraction_digits = std::max(into->fraction_digits, value.fraction_digits);
        if (into->formats == 0) *into = Of(K::kString);
        return;
      default: return;
    }
  }
  if ((a == K::kDate && b == K::kTimestamp) || (a == K::kTimestamp && b == K::kDate)) {
    // Keep the timestamp orders whose date part parsed every date value.
    const InferredType& date = a == K::kDate ? *into : value;
    InferredType widened = a == K::kTimestamp ? *into : value;
    uint32_t mask = 0;
    for (size_t t = 0; t < timestamps_.size(); ++t) {
      const int d = timestamp_date_[t];
      if (((widened.formats >> t) & 1) && d >= 0 && ((date.formats >> d) & 1)) mask |= 1u << t;
    }
    widened.formats = mask;
    *into = mask == 0 ? Of(K::kString) : widened;
    return;
  }
  *into = Of(K::kString);
}

int TextInference::Choose(uint32_t mask, const std::vector<Candidate>& candidates) const {
  if (mask == 0) return -1;
  const int first = std::countr_zero(mask);
  if (candidates[static_cast<size_t>(first)].family == 0) return first;
  bool month_first = false, day_first = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if ((mask >> i) & 1) {
      month_first |= candidates[i].family == 1;
      day_first |= candidates[i].family == 2;
    }
  }
  return month_first && day_first ? -1 : first;
}

DataType TextInference::ToDataType(const InferredType& type) const {
  switch (type.kind) {
    case InferredType::kBoolean: return Bool();
    case InferredType::kInteger: return Int64();
    case InferredType::kDecimal:
      // Precision 38 keeps later, longer values of the same scale fitting.
      return Decimal(kMaxDecimalPrecision, type.scale);
    case InferredType::kDouble: return Float64();
    case InferredType::kDate: return Choose(type.formats, dates_) < 0 ? String() : Date();
    case InferredType::kTimestamp:
    case InferredType::kTimestampTz: {
      // A date-only value widened into a timestamp column has its ISO or
      // paired date order in the mask already.
      if (Choose(type.formats, timestamps_) < 0) return String();
      return Timestamp(type.fraction_digits > 6 ? TimeUnit::kNano : TimeUnit::kMicro,
                       type.kind == InferredType::kTimestampTz);
    }
    case InferredType::kNull:
    case InferredType::kString: break;
  }
  return String();
}

TextInference::Formats TextInference::FormatsOf(const InferredType& type) const {
  Formats formats = ConfiguredFormats();
  if (type.kind == InferredType::kDate) {
    const int chosen = Choose(type.formats, dates_);
    if (chosen >= 0) formats.date = dates_[static_cast<size_t>(chosen)].format.get();
  } else if (type.kind == InferredType::kTimestamp || type.kind == InferredType::kTimestampTz) {
    const int chosen = Choose(type.formats, timestamps_);
    if (chosen >= 0) {
      formats.timestamp = timestamps_[static_cast<size_t>(chosen)].format.get();
      const int date = timestamp_date_[static_cast<size_t>(chosen)];
      if (date >= 0) formats.date = dates_[static_cast<size_t>(date)].format.get();
    }
  }
  return formats;
}

}  // namespace floe::formats
