#include "demo/demo_tables.h"

#include <algorithm>
#include <span>

#include "common/strings.h"
#include "demo/demo_random.h"

namespace floe::demo {
namespace {

constexpr int kGwcbiColumns = 7;

using Words = std::span<const char* const>;

constexpr const char* kFirstNames[] = {"José",  "Zoë",   "Björn",   "François", "Łukasz", "Søren",  "Ana",
                                       "Mei",   "Yuki",  "Øystein", "Chloé",    "Dvořák", "Aiyana", "Jürgen",
                                       "Renée", "Ngozi", "陈伟",    "佐藤",     "Иван",   "Αλέξης", "Siobhán",
                                       "Maël",  "Ümit",  "Priya",   "민준",     "Tomás",  "Ingrid", "Kai"};
constexpr const char* kLastNames[] = {
    "García", "Müller",   "Nguyễn",   "O'Brien",   "Kowalski", "Smith", "Jensen",  "Dubois",
    "Rossi",  "Yamamoto", "Øvergård", "Novák",     "Schäfer",  "Silva", "Ivanova", "Papadopoulos",
    "王",     "高橋",     "김",       "Fernández", "Brontë",   "Çelik", "Lefèvre", "Johansson"};
constexpr const char* kCities[] = {"São Paulo", "Zürich",   "東京",     "Kraków",     "Montréal",
                                   "Reykjavík", "Ålesund",  "Köln",     "서울",       "Bogotá",
                                   "Chicago",   "Dublin",   "Łódź",     "Málaga",     "Nice",
                                   "Québec",    "İstanbul", "Göteborg", "Des Moines", "Αθήνα"};
constexpr const char* kCountries[] = {"US", "CA", "GB", "FR", "DE", "JP", "BR", "PL", "NO", "CH", "KR", "IE"};
constexpr const char* kClaimDescriptions[] = {"Water damage in kitchen 💧",
                                              "Rear-end collision on I-95 🚗",
                                              "Hail damage — roof & skylights",
                                              "Vol à l'étalage dans la boutique",
                                              "台風による屋根の損傷",
                                              "Incendie dans la cuisine 🔥",
                                              "Glass breakage, storefront",
                                              "Wasserschaden im Keller",
                                              "Slip and fall in lobby",
                                              "Robo de vehículo en estacionamiento",
                                              "Frozen pipe burst ❄️",
                                              "Lightning strike ⚡ — electrical surge",
                                              "차량 접촉 사고",
                                              "Tree fell on garage 🌳",
                                              "Theft of tools from van",
                                              "Dog bite claim 🐕"};
constexpr const char* kClaimStatuses[] = {"open", "closed", "reopened", "draft", "archived"};
constexpr const char* kExposureTypes[] = {"VehicleDamage", "BodilyInjury", "PropertyDamage", "Content",
                                          "LossOfUse",     "Medical",      "GeneralDamage"};
constexpr const char* kCoverages[] = {"Collision",        "Comprehensive", "Liability", "Dwelling",
                                      "PersonalProperty", "MedPay",        "Rental",    "Umbrella"};
constexpr const char* kCheckStatuses[] = {"requesting", "issued",  "cleared",
                                          "voided",     "stopped", "pendingapproval"};
constexpr const char* kLossTypeNames[] = {"Auto",           "Property", "General liability",
                                          "Workers' comp",  "Travel",   "Pet",
                                          "Marine",         "Cyber",    "Crop",
                                          "Inland marine",  "Énergie",  "Responsabilité civile",
                                          "自動車",         "Gebäude",  "Equine 🐎",
                                          "Aviation ✈️"};
constexpr const char* kSegments[] = {"auto_low", "auto_mid",  "auto_high", "prop_low",
                                     "prop_mid", "liab_high", "wc_mid",    "specialty"};
constexpr const char* kMemos[] = {
    "Payment for repairs",    "Règlement final",  "Rental reimbursement 🚙", "Medical bills — ER visit",
    "Erstattung Glasschaden", "支払い（修理費）", "Partial payment 1 of 3", "Replacement cost of contents"};
constexpr const char* kNoteSentences[] = {
    "Insured called to report the loss and confirmed the policy number.",
    "Adjuster visited the site; photos uploaded to the document store.",
    "Le client a envoyé les factures de réparation par courriel.",
    "Third party carrier acknowledged liability at 80%.",
    "Zeuge bestätigt den Unfallhergang; Polizeibericht angefordert.",
    "Subrogation potential flagged for review 🔍.",
    "Reserve increased after the contractor's estimate arrived.",
    "被保険者から追加の写真を受領しました。",
    "Rental car extended by five days pending parts delivery.",
    "Medical records requested from the clinic — HIPAA form signed ✅.",
    "Salvage title transferred; vehicle moved to the yard in Ålesund.",
    "Claimant disputes the valuation and asked for a second appraisal.",
    "Payment approved by supervisor; check to be mailed today 💌.",
    "Se solicitó el informe del perito a la oficina de Bogotá.",
    "No further action needed until the repair shop calls back."};

Words PoolWords(WordPool pool) {
  switch (pool) {
    case WordPool::kFirstName: return kFirstNames;
    case WordPool::kLastName: return kLastNames;
    case WordPool::kCity: return kCities;
    case WordPool::kCountry: return kCountries;
    case WordPool::kClaimDescription: return kClaimDescriptions;
    case WordPool::kClaimStatus: return kClaimStatuses;
    case WordPool::kExposureType: return kExposureTypes;
    case WordPool::kCoverage: return kCoverages;
    case WordPool::kCheckStatus: return kCheckStatuses;
    case WordPool::kLossTypeName: return kLossTypeNames;
    case WordPool::kSegment: return kSegments;
    case WordPool::kMemo: return kMemos;
    case WordPool::kNone: break;
  }
  return {};
}

// Business columns every non-typelist table starts with.
std::vector<DemoColumn> EntityColumns(std::vector<DemoColumn> own) {
  std::vector<DemoColumn> columns = {
      {.name = "id", .kind = ValueKind::kId},
      {.name = "publicid", .kind = ValueKind::kPublicId},
      {.name = "createtime", .kind = ValueKind::kCreateTime},
      {.name = "updatetime", .kind = ValueKind::kUpdateTime},
      {.name = "retired", .kind = ValueKind::kRetired},
      {.name = "beanversion", .kind = ValueKind::kBeanVersion},
  };
  columns.insert(columns.end(), own.begin(), own.end());
  return columns;
}

std::vector<DemoTable> BuildTables() {
  constexpr int64_t k2020 = 18262;  // 2020-01-01 in days since epoch
  constexpr int64_t k2025 = 20454;  // 2026-01-01
  std::vector<DemoTable> tables;
  tables.push_back(DemoTable{
      "cc_claim", false,
      EntityColumns({
          {.name = "claimnumber", .kind = ValueKind::kCode, .prefix = "CLM-"},
          {.name = "policyid", .kind = ValueKind::kForeignKey, .null_rate = 0.05, .lo = 1, .hi = 250000},
          {.name = "lossdate", .kind = ValueKind::kDate, .null_rate = 0.08, .lo = k2020, .hi = k2025},
          {.name = "status",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .per_version = true,
           .pool = WordPool::kClaimStatus},
          {.name = "description",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.12,
           .per_version = true,
           .pool = WordPool::kClaimDescription},
          {.name = "totalincurred",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.1,
           .per_version = true,
           .lo = -50000,
           .hi = 250000000,
           .precision = 18,
           .scale = 2},
          {.name = "deductible",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.15,
           .lo = 0,
           .hi = 500000,
           .precision = 9,
           .scale = 2},
          {.name = "notes", .kind = ValueKind::kLongText, .null_rate = 0.2, .per_version = true},
          {.name = "reporter_city",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.1,
           .pool = WordPool::kCity},
          {.name = "segment",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.1,
           .generation = 1,
           .per_version = true,
           .pool = WordPool::kSegment},
          {.name = "fraudscore",
           .kind = ValueKind::kSmallInt,
           .null_rate = 0.2,
           .generation = 1,
           .per_version = true,
           .lo = 0,
           .hi = 1000},
      })});
  tables.push_back(DemoTable{
      "cc_exposure", false,
      EntityColumns({
          {.name = "claimid", .kind = ValueKind::kForeignKey, .lo = 1, .hi = 20000},
          {.name = "exposuretype",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .pool = WordPool::kExposureType},
          {.name = "coverage", .kind = ValueKind::kPoolString, .null_rate = 0.1, .pool = WordPool::kCoverage},
          {.name = "claimantname",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.15,
           .pool = WordPool::kLastName},
          {.name = "reserveamount",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.1,
           .per_version = true,
           .lo = 0,
           .hi = 10000000000,
           .precision = 18,
           .scale = 2},
          {.name = "paidamount",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.2,
           .per_version = true,
           .lo = 0,
           .hi = 5000000000,
           .precision = 18,
           .scale = 2},
          {.name = "deductibleamount",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.12,
           .lo = 0,
           .hi = 250000,
           .precision = 9,
           .scale = 2},
          {.name = "incidentdate", .kind = ValueKind::kDate, .null_rate = 0.07, .lo = k2020, .hi = k2025},
          {.name = "state",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .per_version = true,
           .pool = WordPool::kClaimStatus},
          {.name = "jurisdiction",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.1,
           .generation = 1,
           .pool = WordPool::kCountry},
          {.name = "severity",
           .kind = ValueKind::kSmallInt,
           .null_rate = 0.15,
           .generation = 1,
           .per_version = true,
           .lo = 1,
           .hi = 5},
      })});
  tables.push_back(DemoTable{
      "cc_contact", false,
      EntityColumns({
          {.name = "firstname",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .pool = WordPool::kFirstName},
          {.name = "lastname",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .pool = WordPool::kLastName},
          {.name = "emailaddress", .kind = ValueKind::kEmail, .null_rate = 0.2, .per_version = true},
          {.name = "city",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.1,
           .per_version = true,
           .pool = WordPool::kCity},
          {.name = "country", .kind = ValueKind::kPoolString, .null_rate = 0.08, .pool = WordPool::kCountry},
          {.name = "dateofbirth", .kind = ValueKind::kDate, .null_rate = 0.15, .lo = -18262, .hi = 11000},
          {.name = "creditlimit",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.2,
           .per_version = true,
           .lo = 0,
           .hi = 2000000000,
           .precision = 18,
           .scale = 2},
          {.name = "rating",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.1,
           .per_version = true,
           .lo = 0,
           .hi = 9999,
           .precision = 9,
           .scale = 2},
          {.name = "preferredname",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.2,
           .generation = 1,
           .pool = WordPool::kFirstName},
          {.name = "loyaltypoints",
           .kind = ValueKind::kSmallInt,
           .null_rate = 0.1,
           .generation = 1,
           .per_version = true,
           .lo = 0,
           .hi = 100000},
      })});
  tables.push_back(DemoTable{"cctl_lossType",
                             true,
                             {
                                 {.name = "id", .kind = ValueKind::kId},
                                 {.name = "typecode", .kind = ValueKind::kTypecode},
                                 {.name = "name",
                                  .kind = ValueKind::kPoolString,
                                  .per_version = true,
                                  .pool = WordPool::kLossTypeName},
                                 {.name = "description",
                                  .kind = ValueKind::kPoolString,
                                  .null_rate = 0.1,
                                  .per_version = true,
                                  .pool = WordPool::kClaimDescription},
                                 {.name = "retired", .kind = ValueKind::kRetired},
                                 {.name = "priority",
                                  .kind = ValueKind::kSmallInt,
                                  .null_rate = 0.05,
                                  .generation = 1,
                                  .lo = 1,
                                  .hi = 100},
                                 {.name = "l10n_name",
                                  .kind = ValueKind::kPoolString,
                                  .null_rate = 0.15,
                                  .generation = 1,
                                  .pool = WordPool::kLossTypeName},
                             }});
  tables.push_back(DemoTable{
      "cc_check", false,
      EntityColumns({
          {.name = "checknumber", .kind = ValueKind::kCode, .prefix = "CHK-"},
          {.name = "payee", .kind = ValueKind::kPoolString, .null_rate = 0.05, .pool = WordPool::kLastName},
          {.name = "grossamount",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.05,
           .per_version = true,
           .lo = 100,
           .hi = 500000000,
           .precision = 18,
           .scale = 2},
          {.name = "netamount",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.1,
           .per_version = true,
           .lo = 100,
           .hi = 450000000,
           .precision = 18,
           .scale = 2},
          {.name = "taxrate",
           .kind = ValueKind::kDecimal,
           .null_rate = 0.15,
           .lo = 0,
           .hi = 3500,
           .precision = 9,
           .scale = 2},
          {.name = "issuedate",
           .kind = ValueKind::kDate,
           .null_rate = 0.1,
           .per_version = true,
           .lo = k2020,
           .hi = k2025},
          {.name = "status",
           .kind = ValueKind::kPoolString,
           .null_rate = 0.05,
           .per_version = true,
           .pool = WordPool::kCheckStatus},
          {.name = "memo", .kind = ValueKind::kPoolString, .null_rate = 0.18, .pool = WordPool::kMemo},
          {.name = "bankaccount",
           .kind = ValueKind::kCode,
           .null_rate = 0.1,
           .generation = 1,
           .prefix = "IBAN-"},
          {.name = "checkcount",
           .kind = ValueKind::kSmallInt,
           .null_rate = 0.05,
           .generation = 1,
           .per_version = true,
           .lo = 1,
           .hi = 12},
      })});
  return tables;
}

DataType TypeOf(const DemoColumn& column, int generation) {
  switch (column.kind) {
    case ValueKind::kId:
    case ValueKind::kRetired:
    case ValueKind::kForeignKey: return Int64();
    case ValueKind::kCreateTime:
    case ValueKind::kUpdateTime: return Timestamp(TimeUnit::kMicro, true);
    case ValueKind::kBeanVersion: return generation >= 1 ? Int64() : Int32();
    case ValueKind::kDecimal: return Decimal(column.precision, column.scale);
    case ValueKind::kDate: return Date();
    case ValueKind::kSmallInt: return Int32();
    case ValueKind::kPublicId:
    case ValueKind::kTypecode:
    case ValueKind::kPoolString:
    case ValueKind::kLongText:
    case ValueKind::kCode:
    case ValueKind::kEmail: return String();
  }
  return String();
}

std::string LongText(DemoRandom& random) {
  const size_t target = static_cast<size_t>(random.Between(200, 2000));
  std::string text;
  while (text.size() < target) {
    const char* sentence = kNoteSentences[random.Below(std::size(kNoteSentences))];
    if (text.size() >= 200 && text.size() + std::char_traits<char>::length(sentence) + 1 > 2000) break;
    if (!text.empty()) text += ' ';
    text += sentence;
  }
  return text;
}

// The letters (lower-cased) and digits of `text`: a code or an e-mail local part.
std::string LowerAlphanumerics(std::string_view text) {
  std::string out;
  for (char c : text) {
    c = AsciiLower(c);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
  }
  return out;
}

}  // namespace

const std::vector<DemoTable>& DemoTables() {
  static const std::vector<DemoTable> tables = BuildTables();
  return tables;
}

int64_t TargetIds(const DemoTable& table, int64_t rows) {
  return table.typelist ? std::min<int64_t>(rows, 24) : rows;
}

Schema DemoSchema(const DemoTable& table, int generation) {
  Schema schema = {
      MakeField("gwcbi___connector_ts_ms", Int64()), MakeField("gwcbi___lsn", Int64()),
      MakeField("gwcbi___operation", Int32()),       MakeField("gwcbi___payload_ts_ms", Int64()),
      MakeField("gwcbi___seqval", Int64()),          MakeField("gwcbi___seqval_hex", String()),
      MakeField("gwcbi___tx_id", Int64()),
  };
  for (const DemoColumn& column : table.columns) {
    if (column.generation <= generation) schema.push_back(MakeField(column.name, TypeOf(column, generation)));
  }
  return schema;
}

std::string SeqvalHex(uint64_t seqval) {
  std::string out;
  do {
    out.insert(out.begin(), kUpperHexDigits[seqval & 0xF]);
    seqval >>= 4;
  } while (seqval != 0);
  return out;
}

DemoBatchBuilder::DemoBatchBuilder(const DemoTable& table, int table_index, int generation, uint64_t seed)
    : table_(table),
      table_seed_(MixKey({seed, 0x7461626C65ULL, static_cast<uint64_t>(table_index)})),
      generation_(generation),
      schema_(DemoSchema(table, generation)) {
  for (const Field& field : schema_) columns_.push_back(MakeEmptyColumn(field.type));
  for (const DemoColumn& column : table.columns) {
    if (column.generation <= generation) business_.push_back(&column);
  }
}

void DemoBatchBuilder::Append(const RowImage& image, const ChangeColumns& change) {
  columns_[0].AppendValue<int64_t>(change.connector_ts_ms);
  columns_[1].AppendValue<int64_t>(change.lsn);
  columns_[2].AppendValue<int32_t>(change.operation);
  columns_[3].AppendValue<int64_t>(change.payload_ts_ms);
  columns_[4].AppendValue<int64_t>(static_cast<int64_t>(change.seqval));
  columns_[5].AppendBytes(SeqvalHex(change.seqval));
  columns_[6].AppendValue<int64_t>(change.tx_id);
  for (size_t i = 0; i < business_.size(); ++i) AppendBusinessValue(i, image);
  ++rows_;
}

void DemoBatchBuilder::AppendBusinessValue(size_t column_index, const RowImage& image) {
  const DemoColumn& spec = *business_[column_index];
  Column& column = columns_[kGwcbiColumns + column_index];
  const uint64_t position = static_cast<uint64_t>(&spec - table_.columns.data());
  DemoRandom random(MixKey({table_seed_, static_cast<uint64_t>(image.id),
                            spec.per_version ? static_cast<uint64_t>(image.version) : 0, position}));
  if (spec.null_rate > 0 && random.Chance(spec.null_rate)) {
    column.AppendNull();
    return;
  }
  switch (spec.kind) {
    case ValueKind::kId: column.AppendValue<int64_t>(image.id); break;
    case ValueKind::kPublicId: column.AppendBytes("cc:" + std::to_string(image.id)); break;
    case ValueKind::kCreateTime: column.AppendValue<int64_t>(image.createtime_us); break;
    case ValueKind::kUpdateTime: column.AppendValue<int64_t>(image.updatetime_us); break;
    case ValueKind::kRetired: column.AppendValue<int64_t>(0); break;
    case ValueKind::kBeanVersion:
      if (generation_ >= 1) {
        column.AppendValue<int64_t>(image.version);
      } else {
        column.AppendValue<int32_t>(static_cast<int32_t>(image.version));
      }
      break;
    case ValueKind::kTypecode: {
      const Words names = PoolWords(WordPool::kLossTypeName);
      std::string code = LowerAlphanumerics(names[static_cast<size_t>(image.id - 1) % names.size()]);
      if (static_cast<size_t>(image.id) > names.size()) code += "_" + std::to_string(image.id);
      column.AppendBytes(code.empty() ? "type_" + std::to_string(image.id) : code);
      break;
    }
    case ValueKind::kPoolString: {
      const Words words = PoolWords(spec.pool);
      column.AppendBytes(words[random.Below(words.size())]);
      break;
    }
    case ValueKind::kLongText: column.AppendBytes(LongText(random)); break;
    case ValueKind::kCode: {
      std::string digits = std::to_string(image.id);
      if (digits.size() < 8) digits.insert(0, 8 - digits.size(), '0');
      column.AppendBytes(spec.prefix + digits);
      break;
    }
    case ValueKind::kEmail: {
      const Words first = PoolWords(WordPool::kFirstName);
      std::string local = LowerAlphanumerics(first[random.Below(first.size())]);
      column.AppendBytes((local.empty() ? "contact" : local) + "." + std::to_string(image.id) +
                         "@example.com");
      break;
    }
    case ValueKind::kDecimal: column.AppendValue<__int128>(random.Between(spec.lo, spec.hi)); break;
    case ValueKind::kDate:
      column.AppendValue<int32_t>(static_cast<int32_t>(random.Between(spec.lo, spec.hi)));
      break;
    case ValueKind::kForeignKey: column.AppendValue<int64_t>(random.Between(spec.lo, spec.hi)); break;
    case ValueKind::kSmallInt:
      column.AppendValue<int32_t>(static_cast<int32_t>(random.Between(spec.lo, spec.hi)));
      break;
  }
}

RecordBatch DemoBatchBuilder::Finish() {
  RecordBatch batch;
  batch.schema = schema_;
  batch.columns = std::move(columns_);
  batch.num_rows = rows_;
  columns_.clear();
  for (const Field& field : schema_) columns_.push_back(MakeEmptyColumn(field.type));
  rows_ = 0;
  return batch;
}

}  // namespace floe::demo
