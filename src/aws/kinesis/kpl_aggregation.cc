#include "aws/kinesis/kpl_aggregation.h"

#include <cstring>
#include <map>
#include <optional>

#include "aws/digest.h"
#include "aws/kinesis/protobuf_wire.h"

namespace floe::aws::kinesis {
namespace {

constexpr size_t kMagicSize = sizeof(kKplMagic);
constexpr size_t kDigestSize = 16;

std::span<const uint8_t> AsBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

struct PendingRecord {
  std::optional<uint64_t> partition_key_index;
  std::optional<uint64_t> explicit_hash_key_index;
  std::optional<std::string_view> data;
};

Result<PendingRecord> ParseRecord(std::string_view bytes, size_t base) {
  PendingRecord record;
  ProtoReader reader(bytes, base);
  while (!reader.AtEnd()) {
    FLOE_ASSIGN_OR_RETURN(ProtoField field, reader.Next());
    if (field.number == 1 && field.type == WireType::kVarint) {
      record.partition_key_index = field.varint;
    } else if (field.number == 2 && field.type == WireType::kVarint) {
      record.explicit_hash_key_index = field.varint;
    } else if (field.number == 3 && field.type == WireType::kLengthDelimited) {
      record.data = field.bytes;
    } else if (field.number <= 3) {
      return Status::Corruption("KPL record at offset " + std::to_string(base) + ": field " +
                                std::to_string(field.number) + " has the wrong wire type");
    }  // tags (4) and unknown fields are skipped
  }
  return record;
}

// Appends a protobuf varint.
void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutBytesField(uint32_t number, std::string_view bytes, std::string* out) {
  PutVarint((static_cast<uint64_t>(number) << 3) | 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

}  // namespace

bool IsKplAggregate(std::string_view data) {
  if (data.size() < kMagicSize + kDigestSize) return false;
  if (std::memcmp(data.data(), kKplMagic, kMagicSize) != 0) return false;
  const std::string_view message = data.substr(kMagicSize, data.size() - kMagicSize - kDigestSize);
  const std::array<uint8_t, 16> digest = Md5(AsBytes(message));
  return std::memcmp(digest.data(), data.data() + data.size() - kDigestSize, kDigestSize) == 0;
}

Result<std::vector<UserRecord>> Deaggregate(std::string_view data, std::string_view partition_key,
                                            std::string_view explicit_hash_key) {
  std::vector<UserRecord> out;
  if (!IsKplAggregate(data)) {
    out.push_back(
        UserRecord{std::string(partition_key), std::string(explicit_hash_key), std::string(data), 0, false});
    return out;
  }
  const std::string_view message = data.substr(kMagicSize, data.size() - kMagicSize - kDigestSize);
  std::vector<std::string_view> partition_keys;
  std::vector<std::string_view> hash_keys;
  std::vector<std::pair<PendingRecord, size_t>> records;  // with their offsets
  ProtoReader reader(message, kMagicSize);
  while (!reader.AtEnd()) {
    const size_t at = reader.offset();
    FLOE_ASSIGN_OR_RETURN(ProtoField field, reader.Next());
    if (field.number >= 1 && field.number <= 3 && field.type != WireType::kLengthDelimited) {
      return Status::Corruption("KPL aggregate: field " + std::to_string(field.number) + " at offset " +
                                std::to_string(at) + " is not length-delimited");
    }
    if (field.number == 1 || field.number == 2) {
      // Records share table entries by index, so an oversized entry would
      // be copied once per record: refused at Kinesis's own limits.
      const size_t limit = field.number == 1 ? kMaxKplPartitionKeyBytes : kMaxKplExplicitHashKeyBytes;
      if (field.bytes.size() > limit) {
        return Status::Corruption("KPL aggregate: " +
                                  std::string(field.number == 1 ? "partition key" : "explicit hash key") +
                                  " at offset " + std::to_string(at) + " has " +
                                  std::to_string(field.bytes.size()) + " bytes, more than Kinesis allows (" +
                                  std::to_string(limit) + ")");
      }
      (field.number == 1 ? partition_keys : hash_keys).push_back(field.bytes);
    } else if (field.number == 3) {
      const size_t body = reader.offset() - field.bytes.size();
      FLOE_ASSIGN_OR_RETURN(PendingRecord record, ParseRecord(field.bytes, body));
      records.emplace_back(record, at);
    }
  }
  out.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& [record, at] = records[i];
    const std::string where =
        "KPL aggregate: record " + std::to_string(i) + " at offset " + std::to_string(at);
    if (!record.partition_key_index || !record.data) {
      return Status::Corruption(where + " lacks its required " +
                                std::string(record.data ? "partition_key_index" : "data"));
    }
    if (*record.partition_key_index >= partition_keys.size()) {
      return Status::Corruption(where + ": partition_key_index " +
                                std::to_string(*record.partition_key_index) + " is past the table of " +
                                std::to_string(partition_keys.size()) + " keys");
    }
    UserRecord user;
    user.partition_key = std::string(partition_keys[*record.partition_key_index]);
    if (record.explicit_hash_key_index) {
      if (*record.explicit_hash_key_index >= hash_keys.size()) {
        return Status::Corruption(where + ": explicit_hash_key_index " +
                                  std::to_string(*record.explicit_hash_key_index) + " is past the table of " +
                                  std::to_string(hash_keys.size()) + " hash keys");
      }
      user.explicit_hash_key = std::string(hash_keys[*record.explicit_hash_key_index]);
    }
    user.data = std::string(*record.data);
    user.subsequence_number = static_cast<int64_t>(i);
    user.aggregated = true;
    out.push_back(std::move(user));
  }
  return out;
}

std::string AggregateForTesting(const std::vector<UserRecord>& records) {
  std::map<std::string, uint64_t> partition_index;
  std::map<std::string, uint64_t> hash_index;
  std::string tables;
  std::string body;
  for (const UserRecord& record : records) {
    auto [pk, new_pk] = partition_index.emplace(record.partition_key, partition_index.size());
    if (new_pk) PutBytesField(1, record.partition_key, &tables);
    std::string encoded;
    PutVarint(1 << 3, &encoded);
    PutVarint(pk->second, &encoded);
    if (!record.explicit_hash_key.empty()) {
      auto [hk, new_hk] = hash_index.emplace(record.explicit_hash_key, hash_index.size());
      if (new_hk) PutBytesField(2, record.explicit_hash_key, &tables);
      PutVarint(2 << 3, &encoded);
      PutVarint(hk->second, &encoded);
    }
    PutBytesField(3, record.data, &encoded);
    PutBytesField(3, encoded, &body);
  }
  const std::string message = tables + body;
  std::string out(reinterpret_cast<const char*>(kKplMagic), kMagicSize);
  out += message;
  const std::array<uint8_t, 16> digest = Md5(AsBytes(message));
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return out;
}

}  // namespace floe::aws::kinesis
