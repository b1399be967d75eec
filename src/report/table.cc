#include <algorithm>

#include "rigplan/report.h"

namespace rigplan::report {
namespace {

// Display width of UTF-8 text: one column per code point.
size_t width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<size_t> widths;
  for (const auto& c : columns_) widths.push_back(width(c.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width(row[i]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(widths[i] - width(cells[i]), ' ');
      if (i > 0) line += "  ";
      line += columns_[i].align == Align::kRight ? pad + cells[i] : cells[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::vector<std::string> headers;
  std::vector<std::string> rule;
  for (size_t i = 0; i < columns_.size(); ++i) {
    headers.push_back(columns_[i].header);
    rule.emplace_back(widths[i], '-');
  }
  emit(headers);
  emit(rule);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace rigplan::report
