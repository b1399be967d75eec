// A small RFC 4180 CSV reader: quoted fields, doubled quotes, commas and newlines in quotes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rigplan {

struct CsvRecord {
  int line = 0;  // line where the record starts
  std::vector<std::string> fields;
};

// Splits CSV text into records. An unterminated quote ends the text as the last field.
std::vector<CsvRecord> parse_csv(std::string_view text);

}  // namespace rigplan
