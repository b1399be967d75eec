#include "rigplan/date.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>

namespace rigplan {
namespace {

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

}  // namespace

// Compiled once: recommend writes a date into the notes of thousands of options.
std::string Date::to_string() const {
  return fmt::format(FMT_COMPILE("{:04}-{:02}-{:02}"), year, month, day);
}

bool Date::valid() const {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

std::optional<Date> Date::parse(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  Date d;
  auto number = [&](size_t pos, size_t len, int& out) {
    auto [ptr, ec] = std::from_chars(text.data() + pos, text.data() + pos + len, out);
    return ec == std::errc() && ptr == text.data() + pos + len;
  };
  if (!number(0, 4, d.year) || !number(5, 2, d.month) || !number(8, 2, d.day)) return std::nullopt;
  if (!d.valid()) return std::nullopt;
  return d;
}

long Date::days_since_epoch() const {
  // Howard Hinnant's days_from_civil.
  const int y = year - (month <= 2 ? 1 : 0);
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace rigplan
