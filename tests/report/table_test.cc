#include <gtest/gtest.h>

#include "rigplan/report.h"

namespace rigplan::report {
namespace {

TEST(Table, AlignsColumnsByDisplayWidth) {
  Table table({{"gpu"}, {"GB/s", Table::Align::kRight}});
  table.add_row({"rtx-4090", "1008"});
  table.add_row({"a100 × 8", "2039"});  // a multi-byte character counts as one column
  EXPECT_EQ(table.render(),
            "gpu       GB/s\n"
            "--------  ----\n"
            "rtx-4090  1008\n"
            "a100 × 8  2039\n");
}

}  // namespace
}  // namespace rigplan::report
