#include "util/csv.h"

namespace rigplan {

std::vector<CsvRecord> parse_csv(std::string_view text) {
  std::vector<CsvRecord> records;
  CsvRecord record{1, {}};
  std::string field;
  bool quoted = false, any = false;
  int line = 1;
  auto end_record = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
    if (!(record.fields.size() == 1 && record.fields[0].empty()))
      records.push_back(std::move(record));
    record = CsvRecord{line, {}};
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      record.fields.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n') {
      ++line;
      end_record();
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) end_record();
  return records;
}

}  // namespace rigplan
