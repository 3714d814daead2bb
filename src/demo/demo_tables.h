// The demo export's tables: their columns per schema generation and the
// values of a row image.
//
// Contract: DemoTables() lists the five tables in the order `tables` takes
// them (cc_claim, cc_exposure, cc_contact, cctl_lossType, cc_check).
// Generation 0 is the first fingerprint's schema; generation 1 (the second
// fingerprint) appends two columns per table and widens beanversion from
// int32 to int64. Every column is nullable, as in CDA files; the gwcbi___
// change columns come first. A row image's business values are a pure
// function of (seed, table, id, beanversion), so a before image (operation
// 3) can be rebuilt from the previous version alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"

namespace floe::demo {

enum class ValueKind {
  kId,           // int64 primary key
  kPublicId,     // string "cc:<id>"
  kCreateTime,   // timestamp[us, utc]
  kUpdateTime,   // timestamp[us, utc]
  kRetired,      // int64, always 0
  kBeanVersion,  // int32 in generation 0, int64 from generation 1
  kTypecode,     // string, unique per id (typelists)
  kPoolString,   // string drawn from a word pool (non-ASCII included)
  kLongText,     // string of 200-2000 bytes (claim notes)
  kCode,         // string "<prefix><zero-padded id>"
  kEmail,        // string built from the id
  kDecimal,      // decimal(precision, scale) in [lo, hi] unscaled
  kDate,         // date in [lo, hi] days since epoch
  kForeignKey,   // int64 in [lo, hi]
  kSmallInt,     // int32 in [lo, hi]
};

enum class WordPool {
  kNone,
  kFirstName,
  kLastName,
  kCity,
  kCountry,
  kClaimDescription,
  kClaimStatus,
  kExposureType,
  kCoverage,
  kCheckStatus,
  kLossTypeName,
  kSegment,
  kMemo,
};

struct DemoColumn {
  const char* name = "";
  ValueKind kind = ValueKind::kId;
  double null_rate = 0;      // share of nulls among the images (business columns only)
  int generation = 0;        // first schema generation holding the column
  bool per_version = false;  // value changes with beanversion (else fixed per id)
  int64_t lo = 0;
  int64_t hi = 0;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;
  WordPool pool = WordPool::kNone;
  const char* prefix = "";  // kCode
};

struct DemoTable {
  std::string name;
  bool typelist = false;
  std::vector<DemoColumn> columns;  // business columns, generation-1 additions last
};

const std::vector<DemoTable>& DemoTables();

// Ids a table holds at the end of the initial export for `rows` requested:
// typelists stay small.
int64_t TargetIds(const DemoTable& table, int64_t rows);

// The Parquet schema of `table`'s files under schema generation 0 or 1.
Schema DemoSchema(const DemoTable& table, int generation);

// One row image: the business state of an id at one beanversion.
struct RowImage {
  int64_t id = 0;
  int64_t version = 1;  // beanversion
  int64_t createtime_us = 0;
  int64_t updatetime_us = 0;
};

// The gwcbi___ columns of one change row.
struct ChangeColumns {
  int32_t operation = 0;
  uint64_t seqval = 0;
  int64_t lsn = 0;
  int64_t tx_id = 0;
  int64_t connector_ts_ms = 0;
  int64_t payload_ts_ms = 0;
};

// Builds the RecordBatch of one part file, row by row.
class DemoBatchBuilder {
 public:
  DemoBatchBuilder(const DemoTable& table, int table_index, int generation, uint64_t seed);
  void Append(const RowImage& image, const ChangeColumns& change);
  RecordBatch Finish();

 private:
  void AppendBusinessValue(size_t column_index, const RowImage& image);

  const DemoTable& table_;
  uint64_t table_seed_;
  int generation_;
  Schema schema_;
  std::vector<Column> columns_;
  std::vector<const DemoColumn*> business_;  // the table's columns present in this generation
  int64_t rows_ = 0;
};

// "1A2B3C": upper-case hex without leading zeros, as CDA writes seqval_hex.
std::string SeqvalHex(uint64_t seqval);

}  // namespace floe::demo
