// Calendar dates for as-of stamps, release dates and price dates.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace rigplan {

struct Date {
  int year = 0;
  int month = 0;  // 1..12
  int day = 0;    // 1..31

  // NOLINTNEXTLINE(modernize-use-nullptr): clang 14 flags the 0 of a defaulted <=> it writes itself
  auto operator<=>(const Date&) const = default;

  // ISO 8601, "2024-06-01".
  std::string to_string() const;
  // Parses "YYYY-MM-DD"; nullopt when malformed or not a calendar date.
  static std::optional<Date> parse(std::string_view text);
  // Days since 1970-01-01 (proleptic Gregorian), for age computations.
  long days_since_epoch() const;
  bool valid() const;
};

}  // namespace rigplan
