#include "rigplan/chart.h"

#include <gtest/gtest.h>

namespace rigplan::chart {
namespace {

TEST(Chart, EscapesMarkup) { EXPECT_EQ(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;"); }

// Bars scale to a "nice" axis maximum: values 1.0 and 1.6 give an axis to 2, so on the 530-unit
// plot (760 - 190 - 40) the bars are 265 and 424 units long.
TEST(Chart, BarLengthsByHand) {
  BarChart c{"Relative speed",
             "throughput relative to rtx-3090",
             "source: test",
             {{"rtx-3090", 1.0, true}, {"rtx-4090", 1.6, false}},
             1.0};
  const std::string s = svg(c);
  EXPECT_NE(s.find("width=\"265.0\" height=\"22\" fill=\"#DD8452\""), std::string::npos) << s;
  EXPECT_NE(s.find("width=\"424.0\" height=\"22\" fill=\"#4C72B0\""), std::string::npos) << s;
  EXPECT_NE(s.find("stroke-dasharray"), std::string::npos);  // the reference line
  EXPECT_NE(s.find(">throughput relative to rtx-3090<"), std::string::npos);
  EXPECT_NE(s.find(">source: test<"), std::string::npos);
  EXPECT_EQ(s, svg(c));  // deterministic
}

TEST(Chart, ScatterJoinsTheFrontInXOrder) {
  ScatterChart c{"Cost against time",
                 "total cost (USD)",
                 "hours",
                 "footer",
                 {{"b", 300, 1, true}, {"a", 100, 10, true}, {"c", 200, 20, false}},
                 false,
                 false};
  const std::string s = svg(c);
  // x: 90 + (v - 100) / 200 * 620; y: 394 - (v - 1) / 19 * 340, so a is at (90, 394 - 161.05).
  EXPECT_NE(s.find("<polyline points=\"90.0,232.9 710.0,394.0 \""), std::string::npos) << s;
  EXPECT_NE(s.find("<title>c</title>"), std::string::npos);
}

// Parts stack left to right: 6 + 9 = 15 GB against a 24 GB limit gives an axis to 50 (the nice
// ceiling of 24), so on the 530-unit plot the parts are 63.6 and 95.4 units long and the limit
// line stands at 190 + 24/50 * 530 = 444.4.
TEST(Chart, StackedPartsAndLimitByHand) {
  StackedBarChart c{
      "Memory",        "GB", "footer", {"weights", "activations"}, {{"batch 8", {6, 9}}}, 24,
      "rtx-4090 24 GB"};
  const std::string s = svg(c);
  EXPECT_NE(s.find("<rect x=\"190.0\" y=\"44.0\" width=\"63.6\" height=\"22\" "
                   "fill=\"#4C72B0\"><title>weights: 6</title>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<rect x=\"253.6\" y=\"44.0\" width=\"95.4\" height=\"22\" "
                   "fill=\"#DD8452\"><title>activations: 9</title>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("x1=\"444.4\""), std::string::npos) << s;
  EXPECT_NE(s.find(">rtx-4090 24 GB<"), std::string::npos);
  EXPECT_NE(s.find(">15<"), std::string::npos);           // the bar's total
  EXPECT_NE(s.find(">activations<"), std::string::npos);  // the legend
}

TEST(Chart, FootersCarryTheDate) {
  EXPECT_EQ(dated("rigplan compare: prices from data/catalog", "2026-11-22"),
            "rigplan compare: prices from data/catalog. Made on 2026-11-22.");
  EXPECT_EQ(dated("sources", ""), "sources");
}

TEST(Chart, HtmlPageIsSelfContained) {
  const std::string page =
      html_page("T", {{"H", {"p<1>"}, {{"a", "b"}, {"1", "2"}}, {"<svg></svg>\n"}}}, "f");
  EXPECT_NE(page.find("<th>a</th><th>b</th>"), std::string::npos);
  EXPECT_NE(page.find("<td>1</td><td>2</td>"), std::string::npos);
  EXPECT_NE(page.find("<p>p&lt;1&gt;</p>"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);  // nothing fetched from outside
}

}  // namespace
}  // namespace rigplan::chart

namespace rigplan::chart {
namespace {

// A line from (0, 0) to (12, 1000) on an axis to 1000 over 640 x 320 units: (80, 364) to (720, 44).
TEST(Chart, LineEndpointsAndMarker) {
  LineChart c{"Own vs rent", "months", "USD", "f", {{"rent", {{0, 0}, {12, 1000}}}}, 6,
              "break-even"};
  const std::string s = svg(c);
  EXPECT_NE(s.find("<polyline points=\"80.0,364.0 720.0,44.0 \""), std::string::npos) << s;
  EXPECT_NE(s.find("x1=\"400.0\" y1=\"44\" x2=\"400.0\" y2=\"364\""), std::string::npos) << s;
  EXPECT_NE(s.find(">break-even<"), std::string::npos);
}

}  // namespace
}  // namespace rigplan::chart
