#include "report/json_writer.h"

#include <gtest/gtest.h>

#include <limits>

namespace rigplan::report {
namespace {

// A tree with what answers hold (nested objects and arrays, empty ones, every kind of number,
// strings that need escapes, UTF-8 and invalid UTF-8) is written exactly as Json::dump(2) prints
// it, whether written piece by piece or handed over as a tree.
Json varied_tree() {
  Json tree = Json::object();
  tree["doubles"] = {0.0,  -0.0, 1.0,  893.3,         24.81, 0.1,    1e-5,  1e-4,
                     1e15, 1e16, -2.5, 123456789.123, 1e300, 5e-324, 0.333, 1.0 / 3.0};
  tree["integers"] = {0, -1, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<uint64_t>::max(), 458};
  tree["not_finite"] = {std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN()};
  tree["strings"] = {"plain",
                     "quote \" and \\ backslash",
                     "tab\tnew\nline\r\b\f",
                     std::string("nul \0 and \x1f", 11),
                     "\x7f del",
                     "ü × 😀",
                     "bad \xff\xfe utf-8",
                     "cut \xe2\x82"};
  tree["empty_object"] = Json::object();
  tree["empty_array"] = Json::array();
  tree["nested"] = {{"a", {{"b", Json::array({Json::object(), Json::array(), nullptr})}}},
                    {"flag", true},
                    {"off", false}};
  return tree;
}

TEST(JsonWriter, WritesATreeAsDumpPrintsIt) {
  const Json tree = varied_tree();
  JsonWriter w;
  w.value(tree);
  EXPECT_EQ(w.take(), tree.dump(2, ' ', false, Json::error_handler_t::replace));
}

TEST(JsonWriter, WritesPieceByPieceAsDumpPrintsTheTree) {
  JsonWriter w;
  w.begin_object();
  w.key("rank").value(uint64_t{3});
  w.key("count").value(-2);
  w.key("wall_w").value(458.0);
  w.key("fabric").null();
  w.key("offers").begin_array();
  w.value("runpod-rtx-3090");
  w.value(std::string("a \"quoted\" id"));
  w.end_array();
  w.key("none").begin_array();
  w.end_array();
  w.key("fits").value(true);
  w.end_object();
  EXPECT_EQ(w.take(),
            "{\n"
            "  \"rank\": 3,\n"
            "  \"count\": -2,\n"
            "  \"wall_w\": 458.0,\n"
            "  \"fabric\": null,\n"
            "  \"offers\": [\n"
            "    \"runpod-rtx-3090\",\n"
            "    \"a \\\"quoted\\\" id\"\n"
            "  ],\n"
            "  \"none\": [],\n"
            "  \"fits\": true\n"
            "}");
}

TEST(JsonWriter, ATopLevelScalarStandsAlone) {
  JsonWriter w;
  w.value(1e16);
  EXPECT_EQ(w.take(), "1e+16");
}

}  // namespace
}  // namespace rigplan::report
