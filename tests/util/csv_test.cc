#include "util/csv.h"

#include <gtest/gtest.h>

namespace rigplan {
namespace {

TEST(Csv, ReadsQuotedFieldsWithCommasQuotesAndNewlines) {
  const auto records = parse_csv("a,b,c\n1,\"x, \"\"y\"\"\",\"two\nlines\"\n\n3,,\r\n");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].fields, (std::vector<std::string>{"1", "x, \"y\"", "two\nlines"}));
  EXPECT_EQ(records[1].line, 2);
  EXPECT_EQ(records[2].fields, (std::vector<std::string>{"3", "", ""}));
  EXPECT_EQ(records[2].line, 5);  // the quoted newline and the blank line count
}

}  // namespace
}  // namespace rigplan
