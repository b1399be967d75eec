#include "util/strings.h"

#include <gtest/gtest.h>

#include "util/figures.h"

namespace rigplan {
namespace {

TEST(Strings, EditDistanceCountsATranspositionAsOneEdit) {
  EXPECT_EQ(edit_distance("4090", "4900"), 1);
  EXPECT_EQ(edit_distance("consumr", "consumer"), 1);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("", "abc"), 3);
}

TEST(Strings, FormatsNumbersInTheirShortestExactForm) {
  EXPECT_EQ(format_number(82.6), "82.6");
  EXPECT_EQ(format_number(1000.0), "1000");
  EXPECT_EQ(format_number(0.125), "0.125");
  EXPECT_EQ(format_number(-15000), "-15000");
}

TEST(Strings, SignificantFiguresNeverUseAnExponentFromOneUp) {
  EXPECT_EQ(significant(29350.4), "29350");  // {:.4g} writes 2.935e+04
  EXPECT_EQ(significant(243812), "243800");  // rounded to 4 significant digits
  EXPECT_EQ(significant(9999.7), "10000");   // {:.4g} writes 1e+04
  EXPECT_EQ(significant(-53771.2), "-53770");
  EXPECT_EQ(significant(1458.33, 5), "1458.3");
  EXPECT_EQ(significant(123456, 5), "123460");
  EXPECT_EQ(significant(82.333), "82.33");
  EXPECT_EQ(significant(0.0125), "0.0125");
  EXPECT_EQ(significant(0.0000123), "1.23e-05");  // below 1: as {:.4g}
}

TEST(Strings, DidYouMeanListsOnlyPlausibleMatches) {
  const std::vector<std::string> accepted = {"consumer", "workstation", "datacenter"};
  EXPECT_EQ(did_you_mean("consumr", accepted), " (did you mean 'consumer'?)");
  EXPECT_EQ(did_you_mean("laptop", accepted), "");
}

TEST(Strings, QuotedListUsesTheLastWord) {
  const std::vector<std::string> items = {"a", "b", "c"};
  EXPECT_EQ(quoted_list(items), "'a', 'b' or 'c'");
  EXPECT_EQ(quoted_list(items, "and"), "'a', 'b' and 'c'");
}

}  // namespace
}  // namespace rigplan
