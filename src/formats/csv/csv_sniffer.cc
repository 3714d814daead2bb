#include "formats/csv/csv_sniffer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace floe::csv {
namespace {

// A record with its own copies of the fields (the tokenizer's views die at
// its next record).
struct SampleRecord {
  std::vector<std::string> fields;
  bool bad = false;
};

struct Candidate {
  CsvDialect dialect;
  int64_t consistent = 0;  // records with the common field count
  int64_t total = 0;       // records, bad ones included
  int columns = 0;
  int64_t quoted = 0;  // fields that started with the quote
  double ratio() const {
    return total == 0 ? 0.0 : static_cast<double>(consistent) / static_cast<double>(total);
  }
};

// Tokenizes the sample with `dialect`; fills consistent/columns.
void Score(std::string_view sample, bool complete, int max_records, Candidate* candidate,
           std::vector<SampleRecord>* records) {
  candidate->quoted = 0;
  CsvTokenizer tokenizer(candidate->dialect, sample, 1);
  std::vector<SampleRecord> parsed;
  CsvRecord record;
  while (static_cast<int>(parsed.size()) < max_records + 1 && tokenizer.Next(&record)) {
    SampleRecord copy;
    copy.bad = !record.error.empty();
    for (uint8_t q : record.quoted) candidate->quoted += q;
    if (records) copy.fields.assign(record.fields.begin(), record.fields.end());
    if (!records) copy.fields.resize(record.fields.size());
    parsed.push_back(std::move(copy));
  }
  // A record the sample's end cut in two is not evidence.
  if (!complete && !parsed.empty()) parsed.pop_back();
  std::map<size_t, int64_t> counts;
  for (const SampleRecord& r : parsed) {
    if (!r.bad) ++counts[r.fields.size()];
  }
  int64_t best = 0;
  size_t columns = 0;
  for (const auto& [fields, n] : counts) {
    if (n > best || (n == best && fields > columns)) best = n, columns = fields;
  }
  candidate->consistent = best;
  candidate->total = static_cast<int64_t>(parsed.size());
  candidate->columns = static_cast<int>(columns);
  if (records) *records = std::move(parsed);
}

bool AllNonEmptyAndDistinct(const SampleRecord& record) {
  std::set<std::string_view> seen;
  for (std::string_view field : record.fields) {
    if (field.empty() || !seen.insert(field).second) return false;
  }
  return true;
}

bool DetectHeader(const std::vector<SampleRecord>& records, int columns,
                  const formats::TextInference& inference) {
  if (records.empty()) return false;
  const SampleRecord& first = records[0];
  if (static_cast<int>(first.fields.size()) != columns) return false;
  std::vector<formats::InferredType> types(static_cast<size_t>(columns));
  bool any_other = false;
  for (size_t r = 1; r < records.size(); ++r) {
    const SampleRecord& record = records[r];
    if (record.bad || static_cast<int>(record.fields.size()) != columns) continue;
    any_other = true;
    for (int c = 0; c < columns; ++c) {
      const std::string_view field = record.fields[static_cast<size_t>(c)];
      if (field.empty()) continue;
      inference.Widen(&types[static_cast<size_t>(c)], inference.Classify(field));
    }
  }
  if (!any_other) return AllNonEmptyAndDistinct(first);
  bool typed = false;
  for (int c = 0; c < columns; ++c) {
    const formats::InferredType& type = types[static_cast<size_t>(c)];
    if (type.kind == formats::InferredType::kNull || type.kind == formats::InferredType::kString) continue;
    typed = true;
    const std::string_view value = first.fields[static_cast<size_t>(c)];
    if (value.empty()) continue;
    formats::InferredType widened = type;
    inference.Widen(&widened, inference.Classify(value));
    if (widened.kind == formats::InferredType::kString) return true;
  }
  if (typed) return false;
  return AllNonEmptyAndDistinct(first);
}

}  // namespace

SniffedDialect SniffCsvDialect(std::string_view sample, bool complete, const SniffHints& hints,
                               const formats::TextInference& inference) {
  std::vector<char> delimiters =
      hints.delimiter ? std::vector<char>{*hints.delimiter} : std::vector<char>{',', '|', ';', '\t'};
  std::vector<char> quotes =
      hints.quote ? std::vector<char>{*hints.quote} : std::vector<char>{'"', '\'', '\0'};
  // Per delimiter: among the quote/escape choices that parse the sample
  // nearly as consistently as the best (within 5% of the records, or one
  // record: one broken quote must not turn quoting off), the one whose quote opened the most
  // fields; ties go to the earlier, so '"' and doubling first.
  std::vector<Candidate> best_per_delimiter;
  for (char delimiter : delimiters) {
    std::vector<Candidate> scored;
    for (char quote : quotes) {
      std::vector<char> escapes;
      if (hints.escape) {
        escapes = {*hints.escape};
      } else if (quote == '\0') {
        escapes = {'\0'};
      } else {
        escapes = {quote, '\\'};
      }
      for (char escape : escapes) {
        if (quote != '\0' && (quote == delimiter || escape == delimiter)) continue;
        Candidate candidate{CsvDialect{delimiter, quote, escape}, 0, 0, 0, 0};
        Score(sample, complete, hints.max_records, &candidate, nullptr);
        scored.push_back(candidate);
      }
    }
    double top = 0;
    for (const Candidate& c : scored) top = std::max(top, c.ratio());
    const Candidate* chosen = nullptr;
    for (const Candidate& c : scored) {
      // Within 5% of the records, or one record in a small sample.
      const double slack = std::max(0.05, 1.0 / static_cast<double>(std::max<int64_t>(c.total, 1)));
      if (c.ratio() < top - slack - 1e-9) continue;
      if (!chosen || c.quoted > chosen->quoted) chosen = &c;
    }
    if (chosen) best_per_delimiter.push_back(*chosen);
  }
  if (best_per_delimiter.empty()) best_per_delimiter.push_back(Candidate{CsvDialect{}, 0, 0, 0, 0});
  // Across delimiters: the most columns among those that split the sample
  // consistently (half of the records) into more than one column; else the
  // most consistent. A wrong delimiter rarely yields many columns on every
  // record, while it easily yields one.
  const Candidate* best = nullptr;
  for (const Candidate& candidate : best_per_delimiter) {
    if (candidate.columns < 2 || candidate.ratio() < 0.5) continue;
    if (!best || candidate.columns > best->columns ||
        (candidate.columns == best->columns && candidate.ratio() > best->ratio())) {
      best = &candidate;
    }
  }
  if (!best) {
    for (const Candidate& candidate : best_per_delimiter) {
      if (!best || candidate.ratio() > best->ratio() ||
          (candidate.ratio() == best->ratio() && candidate.columns > best->columns)) {
        best = &candidate;
      }
    }
  }
  SniffedDialect result;
  result.dialect = best->dialect;
  result.columns = best->columns;
  if (hints.header) {
    result.header = *hints.header;
  } else {
    Candidate winner = *best;
    std::vector<SampleRecord> records;
    Score(sample, complete, hints.max_records, &winner, &records);
    result.header = DetectHeader(records, winner.columns, inference);
  }
  return result;
}

}  // namespace floe::csv
