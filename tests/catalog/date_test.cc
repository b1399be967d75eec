#include "rigplan/date.h"

#include <gtest/gtest.h>

namespace rigplan {
namespace {

TEST(Date, ParsesAndPrintsIso8601) {
  const auto d = Date::parse("2024-02-29");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, (Date{2024, 2, 29}));
  EXPECT_EQ(d->to_string(), "2024-02-29");
}

TEST(Date, RejectsNonCalendarDates) {
  EXPECT_FALSE(Date::parse("2023-02-29"));  // not a leap year
  EXPECT_FALSE(Date::parse("2024-13-01"));
  EXPECT_FALSE(Date::parse("2024-1-01"));
  EXPECT_FALSE(Date::parse("20240101"));
}

TEST(Date, CountsDaysSinceTheEpoch) {
  EXPECT_EQ((Date{1970, 1, 1}).days_since_epoch(), 0);
  EXPECT_EQ((Date{2000, 3, 1}).days_since_epoch(), 11017);
  // 2020 is a leap year: 366 days from 2020-01-01 to 2021-01-01.
  EXPECT_EQ((Date{2021, 1, 1}).days_since_epoch() - (Date{2020, 1, 1}).days_since_epoch(), 366);
}

}  // namespace
}  // namespace rigplan
