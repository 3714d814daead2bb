#include "formats/rescued_data.h"

#include "columnar/json_format.h"
#include "common/json.h"

namespace floe::formats {

std::optional<std::string> BrokenRecordError(std::string_view rescued) {
  auto parsed = json::ParseJson(rescued);
  if (!parsed.ok() || !parsed->is_object() || !parsed->contains("_raw")) return std::nullopt;
  const auto error = parsed->find("_error");
  if (error == parsed->end() || !error->is_string()) return std::nullopt;
  return error->get<std::string>();
}

RescuedDataBuilder::Entry& RescuedDataBuilder::EntryFor(int64_t row, int64_t position) {
  if (entries_.empty() || entries_.back().row != row) entries_.push_back(Entry{row, position, {}});
  return entries_.back();
}

void RescuedDataBuilder::AddJsonValue(int64_t row, int64_t position, std::string_view field,
                                      std::string_view json_value) {
  Entry& entry = EntryFor(row, position);
  if (!entry.members.empty()) entry.members.push_back(',');
  AppendJsonString(field, &entry.members);
  entry.members.push_back(':');
  entry.members.append(json_value);
}

void RescuedDataBuilder::AddText(int64_t row, int64_t position, std::string_view field,
                                 std::string_view text) {
  std::string quoted;
  AppendJsonString(text, &quoted);
  AddJsonValue(row, position, field, quoted);
}

void RescuedDataBuilder::AddBroken(int64_t row, int64_t position, std::string_view raw,
                                   std::string_view error) {
  Entry& entry = EntryFor(row, position);
  entry.members.clear();  // a broken record keeps only its raw text
  entry.members.append("\"_raw\":");
  AppendJsonString(raw, &entry.members);
  entry.members.append(",\"_error\":");
  AppendJsonString(error, &entry.members);
}

void RescuedDataBuilder::Truncate(int64_t row) {
  while (!entries_.empty() && entries_.back().row >= row) entries_.pop_back();
}

Column RescuedDataBuilder::Finish(int64_t num_rows) {
  Column column(String());
  std::string object;
  size_t next = 0;
  for (int64_t row = 0; row < num_rows; ++row) {
    if (next < entries_.size() && entries_[next].row == row) {
      const Entry& entry = entries_[next++];
      object.assign("{");
      object.append(entry.members);
      if (!entry.members.empty()) object.push_back(',');
      AppendJsonString(location_.unit_key, &object);
      object.push_back(':');
      AppendJsonString(location_.unit, &object);
      object.push_back(',');
      AppendJsonString(location_.position_key, &object);
      object.push_back(':');
      object.append(std::to_string(entry.position));
      object.push_back('}');
      column.AppendBytes(object);
    } else {
      column.AppendNull();
    }
  }
  entries_.clear();
  return column;
}

}  // namespace floe::formats
