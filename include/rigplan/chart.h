// Charts as SVG text and self-contained HTML reports. Deterministic: the same input gives the
// same bytes (fixed number formats, no clocks, no random ids), so reports can be diffed and
// tested. Nothing is fetched from outside: styles are inline.
#pragma once

#include <string>
#include <vector>

namespace rigplan::chart {

// Horizontal bars, one per label, with an optional reference line (1.0 for relative charts).
struct BarChart {
  std::string title;
  std::string axis_label;  // with its unit: "throughput relative to rtx-3090"
  std::string footer;      // sources and date
  struct Bar {
    std::string label;
    double value = 0;
    bool highlight = false;  // the reference or the pick
  };
  std::vector<Bar> bars;
  double reference = 0;  // a vertical line at this value; 0: none
};

// Horizontal bars split into named parts (a memory breakdown, a power budget), with a legend and
// an optional limit line (the GPU's memory, the PSU's rating).
struct StackedBarChart {
  std::string title;
  std::string axis_label;  // with its unit
  std::string footer;
  std::vector<std::string> parts;  // legend, in stacking order
  struct Bar {
    std::string label;
    std::vector<double> values;  // one per part
  };
  std::vector<Bar> bars;
  double limit = 0;  // a vertical line at this value; 0: none
  std::string limit_label;
};

// Points in a plane with the Pareto front joined: cost against time, price against performance.
struct ScatterChart {
  std::string title;
  std::string x_label;  // with units
  std::string y_label;
  std::string footer;
  struct Point {
    std::string label;
    double x = 0;
    double y = 0;
    bool front = false;  // on the Pareto front
  };
  std::vector<Point> points;
  bool log_x = false;
  bool log_y = false;
};

// Lines over a shared x axis, with an optional vertical marker (a break-even).
struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string footer;
  struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // x ascending
  };
  std::vector<Series> series;
  double marker_x = -1;  // < 0: none
  std::string marker_label;
};

std::string svg(const BarChart& chart);
std::string svg(const LineChart& chart);
std::string svg(const ScatterChart& chart);
std::string svg(const StackedBarChart& chart);

// A footer: the sources, then the date the report was made (none when `date` is empty), so that
// a chart pasted on its own still says where its numbers come from and when.
std::string dated(const std::string& sources, const std::string& date);

// Text escaped for HTML and SVG.
std::string escape(std::string_view text);

// One self-contained HTML page: a title, then sections of headings, paragraphs, tables (rows
// of cells, the first row the header) and inline SVG charts.
struct Section {
  std::string heading;
  std::vector<std::string> paragraphs;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> charts;  // SVG text
};
std::string html_page(const std::string& title, const std::vector<Section>& sections,
                      const std::string& footer);

}  // namespace rigplan::chart
