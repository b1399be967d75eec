#include "rigplan/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rigplan::chart {
namespace {

// Layout, in SVG user units (pixels at 100%).
constexpr double kWidth = 760;
constexpr double kLeft = 190;  // room for bar labels
constexpr double kRight = 40;
constexpr double kTop = 44;  // title
constexpr double kBarHeight = 22;
constexpr double kBarGap = 6;
constexpr double kBottom = 64;     // axis label and footer
constexpr double kLegendRow = 16;  // a stacked bar chart's legend
constexpr int kLegendColumns = 3;
constexpr const char* kFont = "font-family=\"sans-serif\"";
constexpr const char* kBarColour = "#4C72B0";
constexpr const char* kHighlightColour = "#DD8452";
constexpr const char* kPalette[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B2",
                                    "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"};

// A "nice" axis maximum: 1, 2 or 5 times a power of ten at or above `value`.
double nice_ceiling(double value) {
  if (value <= 0) return 1;
  const double power = std::pow(10, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0, 10.0}) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

std::string number(double v) {
  if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-2)) return fmt::format("{:.2g}", v);
  if (std::abs(v) >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string header(double height, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" role=\"img\" aria-label=\"{}\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{:.0f}\" y=\"24\" {} font-size=\"16\" "
      "font-weight=\"bold\">{}</text>\n",
      kWidth, height, kWidth, height, escape(title), kLeft / 10, kFont, escape(title));
}

std::string footer_text(double height, const std::string& footer) {
  return fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"10\" fill=\"#555\">{}</text>\n", kLeft / 10,
      height - 8, kFont, escape(footer));
}

// The header and the value grid (five steps) of a horizontal bar chart.
std::string bar_frame(double height, const std::string& title, double plot_h, double axis_max) {
  const double plot_w = kWidth - kLeft - kRight;
  std::string out = header(height, title);
  for (int i = 0; i <= 5; ++i) {
    const double v = axis_max * i / 5;
    const double x = kLeft + v / axis_max * plot_w;
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"#ddd\"/>\n", x,
        kTop, x, kTop + plot_h);
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.0f}\" {} font-size=\"11\" text-anchor=\"middle\">{}</text>\n", x,
        kTop + plot_h + 16, kFont, number(v));
  }
  return out;
}

// The value axis's label, under the ticks of a horizontal bar chart.
std::string bar_axis_label(double plot_h, const std::string& label) {
  const double plot_w = kWidth - kLeft - kRight;
  return fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      kLeft + plot_w / 2, kTop + plot_h + 34, kFont, escape(label));
}

// Bar i's label, left of the plot; returns the bar's top edge.
double bar_row(size_t i, const std::string& label, std::string& out) {
  const double y = kTop + static_cast<double>(i) * (kBarHeight + kBarGap);
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.1f}\" {} font-size=\"12\" text-anchor=\"end\">{}</text>\n",
      kLeft - 8, y + kBarHeight * 0.7, kFont, escape(label));
  return y;
}

// A bar's value, right of its end at x; `y` is the bar's top edge.
std::string bar_value(double x, double y, double value) {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} font-size=\"11\">{}</text>\n", x + 4,
                     y + kBarHeight * 0.7, kFont, number(value));
}

// A stacked bar chart's legend: a swatch and the name of each part, kLegendColumns a row.
std::string stacked_legend(const std::vector<std::string>& parts, double plot_h) {
  std::string out;
  const double column_w = (kWidth - kLeft / 5) / kLegendColumns;
  for (size_t k = 0; k < parts.size(); ++k) {
    const size_t column = k % kLegendColumns, row = k / kLegendColumns;
    const double lx = kLeft / 10 + static_cast<double>(column) * column_w;
    const double ly = kTop + plot_h + 52 + static_cast<double>(row) * kLegendRow;
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"10\" height=\"10\" fill=\"{}\"/>\n",
                       lx, ly - 9, kPalette[k % std::size(kPalette)]);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\">{}</text>\n", lx + 14,
                       ly, kFont, escape(parts[k]));
  }
  return out;
}

// A limit across a stacked bar chart at x: a dashed red line, labelled above the plot.
std::string limit_line(double x, double plot_h, const std::string& label) {
  return fmt::format(
             "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"#C44E52\" "
             "stroke-width=\"2\" stroke-dasharray=\"4 3\"/>\n",
             x, kTop - 4, x, kTop + plot_h) +
         fmt::format(
             "<text x=\"{:.1f}\" y=\"{:.0f}\" {} font-size=\"11\" fill=\"#C44E52\" "
             "text-anchor=\"end\">{}</text>\n",
             x - 3, kTop - 8, kFont, escape(label));
}

// Where v falls between lo and hi, 0 to 1, on a log or a linear scale; 0.5 when the range is
// empty.
double unit_position(double v, double lo, double hi, bool log) {
  if (log) {
    lo = std::log10(std::max(lo, 1e-9));
    hi = std::log10(std::max(hi, 1e-9));
    v = std::log10(std::max(v, 1e-9));
  }
  return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

// A scatter chart's plot area and the range of its points; maps a point into the area with a
// 10-unit inset.
struct ScatterPlot {
  static constexpr double kPlotH = 360;
  static constexpr double kLeftMargin = 80;
  double plot_w = kWidth - kLeftMargin - kRight;
  double x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;  // 0 to 1 without points
  bool log_x = false, log_y = false;
  double x_of(double v) const {
    return kLeftMargin + 10 + unit_position(v, x_lo, x_hi, log_x) * (plot_w - 20);
  }
  double y_of(double v) const {
    return kTop + kPlotH - 10 - unit_position(v, y_lo, y_hi, log_y) * (kPlotH - 20);
  }
};

ScatterPlot scatter_plot(const ScatterChart& c) {
  ScatterPlot p;
  p.log_x = c.log_x;
  p.log_y = c.log_y;
  if (c.points.empty()) return p;
  p.x_lo = p.y_lo = HUGE_VAL;
  p.x_hi = p.y_hi = -HUGE_VAL;
  for (const auto& point : c.points) {
    p.x_lo = std::min(p.x_lo, point.x);
    p.x_hi = std::max(p.x_hi, point.x);
    p.y_lo = std::min(p.y_lo, point.y);
    p.y_hi = std::max(p.y_hi, point.y);
  }
  return p;
}

// The plot's frame and the numbers at the ends of both axes.
std::string scatter_frame(const ScatterPlot& p) {
  constexpr double kPlotH = ScatterPlot::kPlotH, kLeftMargin = ScatterPlot::kLeftMargin;
  std::string out = fmt::format(
      "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" "
      "stroke=\"#999\"/>\n",
      kLeftMargin, kTop, p.plot_w, kPlotH);
  out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\">{}</text>\n", kLeftMargin,
                     kTop + kPlotH + 14, kFont, number(p.x_lo));
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\" text-anchor=\"end\">{}</text>\n",
      kLeftMargin + p.plot_w, kTop + kPlotH + 14, kFont, number(p.x_hi));
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\" text-anchor=\"end\">{}</text>\n",
      kLeftMargin - 4, kTop + kPlotH, kFont, number(p.y_lo));
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\" text-anchor=\"end\">{}</text>\n",
      kLeftMargin - 4, kTop + 10, kFont, number(p.y_hi));
  return out;
}

// The Pareto front joined in x order, then every point; the front's points are larger and
// labelled, right of the point or left of it near the right edge.
std::string scatter_points(const ScatterPlot& p, const ScatterChart& c) {
  std::string out;
  std::vector<const ScatterChart::Point*> front;
  for (const auto& point : c.points) {
    if (point.front) front.push_back(&point);
  }
  std::sort(front.begin(), front.end(), [](auto* a, auto* b) { return a->x < b->x; });
  if (front.size() > 1) {
    std::string path;
    for (const auto* f : front) path += fmt::format("{:.1f},{:.1f} ", p.x_of(f->x), p.y_of(f->y));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       path, kHighlightColour);
  }
  for (const auto& point : c.points) {
    const double x = p.x_of(point.x), y = p.y_of(point.y);
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n", x,
        y, point.front ? 5 : 3, point.front ? kHighlightColour : kBarColour, escape(point.label));
    if (!point.front) continue;
    const bool left = x > ScatterPlot::kLeftMargin + p.plot_w * 0.75;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} font-size=\"10\"{}>{}</text>\n",
                       x + (left ? -7 : 7), y - 4, kFont, left ? " text-anchor=\"end\"" : "",
                       escape(point.label));
  }
  return out;
}

// The axes' labels: x under the plot, y turned along its left edge.
std::string scatter_axis_labels(const ScatterPlot& p, const ScatterChart& c) {
  constexpr double kPlotH = ScatterPlot::kPlotH;
  std::string out = fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"12\" text-anchor=\"middle\">{}{}</text>\n",
      ScatterPlot::kLeftMargin + p.plot_w / 2, kTop + kPlotH + 30, kFont, escape(c.x_label),
      c.log_x ? " (log scale)" : "");
  out += fmt::format(
      "<text x=\"14\" y=\"{:.0f}\" {} font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.0f})\">{}{}</text>\n",
      kTop + kPlotH / 2, kFont, kTop + kPlotH / 2, escape(c.y_label),
      c.log_y ? " (log scale)" : "");
  return out;
}

// A line chart's plot area: x from 0 to the largest x (1 without points), y from 0 to a nice
// ceiling of the largest y.
struct LinePlot {
  static constexpr double kPlotH = 320;
  static constexpr double kLeftMargin = 80;
  double plot_w = kWidth - kLeftMargin - kRight;
  double x_hi = 1, y_hi = 1;
  double x_of(double v) const { return kLeftMargin + v / x_hi * plot_w; }
  double y_of(double v) const { return kTop + kPlotH - v / y_hi * kPlotH; }
};

LinePlot line_plot(const LineChart& c) {
  double x_hi = 0, y_hi = 0;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      x_hi = std::max(x_hi, x);
      y_hi = std::max(y_hi, y);
    }
  }
  LinePlot p;
  p.x_hi = x_hi > 0 ? x_hi : 1;
  p.y_hi = nice_ceiling(y_hi);
  return p;
}

// The horizontal grid with the y ticks, and the x ticks, five steps each.
std::string line_grid(const LinePlot& p) {
  constexpr double kLeftMargin = LinePlot::kLeftMargin;
  std::string out;
  for (int i = 0; i <= 5; ++i) {
    const double v = p.y_hi * i / 5;
    out += fmt::format(
        "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n",
        kLeftMargin, p.y_of(v), kLeftMargin + p.plot_w, p.y_of(v));
    out += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.1f}\" {} font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        kLeftMargin - 4, p.y_of(v) + 4, kFont, number(v));
    const double xv = p.x_hi * i / 5;
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.0f}\" {} font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
        p.x_of(xv), kTop + LinePlot::kPlotH + 14, kFont, number(xv));
  }
  return out;
}

// Each series as a line, and its entry in the legend under the plot.
std::string line_series(const LinePlot& p, const LineChart& c) {
  constexpr const char* kColours[] = {"#DD8452", "#4C72B0", "#55A868",
                                      "#C44E52", "#8172B2", "#937860"};
  constexpr double kLeftMargin = LinePlot::kLeftMargin;
  std::string out;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const char* colour = kColours[i % std::size(kColours)];
    std::string path;
    for (const auto& [x, y] : s.points) path += fmt::format("{:.1f},{:.1f} ", p.x_of(x), p.y_of(y));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       path, colour);
    const double ly = kTop + LinePlot::kPlotH + 46 + 16.0 * static_cast<double>(i);
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"14\" height=\"4\" fill=\"{}\"/>\n",
                       kLeftMargin, ly - 4, colour);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"11\">{}</text>\n",
                       kLeftMargin + 20, ly, kFont, escape(s.name));
  }
  return out;
}

}  // namespace

std::string dated(const std::string& sources, const std::string& date) {
  return date.empty() ? sources : sources + ". Made on " + date + ".";
}

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg(const BarChart& c) {
  const double plot_h = static_cast<double>(c.bars.size()) * (kBarHeight + kBarGap);
  const double height = kTop + plot_h + kBottom;
  double top = c.reference;
  for (const auto& b : c.bars) top = std::max(top, b.value);
  const double axis_max = nice_ceiling(top);
  const double plot_w = kWidth - kLeft - kRight;
  auto x_of = [&](double v) { return kLeft + v / axis_max * plot_w; };
  std::string out = bar_frame(height, c.title, plot_h, axis_max);
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double y = bar_row(i, b.label, out);
    out += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\"/>\n", kLeft,
        y, std::max(0.0, x_of(b.value) - kLeft), kBarHeight,
        b.highlight ? kHighlightColour : kBarColour);
    out += bar_value(x_of(b.value), y, b.value);
  }
  if (c.reference > 0) {
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"#333\" "
        "stroke-dasharray=\"4 3\"/>\n",
        x_of(c.reference), kTop - 4, x_of(c.reference), kTop + plot_h);
  }
  out += bar_axis_label(plot_h, c.axis_label);
  out += footer_text(height, c.footer);
  out += "</svg>\n";
  return out;
}

std::string svg(const StackedBarChart& c) {
  const double plot_h = static_cast<double>(c.bars.size()) * (kBarHeight + kBarGap);
  const double legend_rows = std::ceil(static_cast<double>(c.parts.size()) / kLegendColumns);
  const double height = kTop + plot_h + kBottom + legend_rows * kLegendRow;
  double top = c.limit;
  for (const auto& b : c.bars) {
    double sum = 0;
    for (double v : b.values) sum += std::max(0.0, v);
    top = std::max(top, sum);
  }
  const double axis_max = nice_ceiling(top);
  const double plot_w = kWidth - kLeft - kRight;
  auto x_of = [&](double v) { return kLeft + v / axis_max * plot_w; };
  std::string out = bar_frame(height, c.title, plot_h, axis_max);
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double y = bar_row(i, b.label, out);
    double sum = 0;
    for (size_t k = 0; k < b.values.size() && k < c.parts.size(); ++k) {
      const double v = std::max(0.0, b.values[k]);
      if (v == 0) continue;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          x_of(sum), y, x_of(sum + v) - x_of(sum), kBarHeight, kPalette[k % std::size(kPalette)],
          escape(c.parts[k]), number(v));
      sum += v;
    }
    out += bar_value(x_of(sum), y, sum);
  }
  if (c.limit > 0) out += limit_line(x_of(c.limit), plot_h, c.limit_label);
  out += bar_axis_label(plot_h, c.axis_label);
  out += stacked_legend(c.parts, plot_h);
  out += footer_text(height, c.footer);
  out += "</svg>\n";
  return out;
}

std::string svg(const ScatterChart& c) {
  const double height = kTop + ScatterPlot::kPlotH + kBottom;
  const ScatterPlot plot = scatter_plot(c);
  std::string out = header(height, c.title);
  out += scatter_frame(plot);
  out += scatter_points(plot, c);
  out += scatter_axis_labels(plot, c);
  out += footer_text(height, c.footer);
  out += "</svg>\n";
  return out;
}

std::string svg(const LineChart& c) {
  constexpr double kPlotH = LinePlot::kPlotH, kLeftMargin = LinePlot::kLeftMargin;
  const double legend_h = 16.0 * static_cast<double>(c.series.size());
  const double height = kTop + kPlotH + kBottom + legend_h;
  const LinePlot plot = line_plot(c);
  std::string out = header(height, c.title);
  out += line_grid(plot);
  out += line_series(plot, c);
  if (c.marker_x >= 0 && c.marker_x <= plot.x_hi) {
    const double x = plot.x_of(c.marker_x);
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.0f}\" x2=\"{:.1f}\" y2=\"{:.0f}\" stroke=\"#333\" "
        "stroke-dasharray=\"4 3\"/>\n",
        x, kTop, x, kTop + kPlotH);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" {} font-size=\"11\">{}</text>\n", x + 4,
                       kTop + 12, kFont, escape(c.marker_label));
  }
  out += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" {} font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
      kLeftMargin + plot.plot_w / 2, kTop + kPlotH + 30, kFont, escape(c.x_label));
  out += fmt::format(
      "<text x=\"14\" y=\"{:.0f}\" {} font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {:.0f})\">{}</text>\n",
      kTop + kPlotH / 2, kFont, kTop + kPlotH / 2, escape(c.y_label));
  out += footer_text(height, c.footer);
  out += "</svg>\n";
  return out;
}

std::string html_page(const std::string& title, const std::vector<Section>& sections,
                      const std::string& footer) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<title>{}</title>\n<style>\n"
      "body {{ font-family: sans-serif; max-width: 980px; margin: 2em auto; color: #222; }}\n"
      "table {{ border-collapse: collapse; font-size: 13px; margin: 1em 0; }}\n"
      "th, td {{ border: 1px solid #ccc; padding: 3px 8px; text-align: left; }}\n"
      "th {{ background: #f3f3f3; }}\nfooter {{ color: #555; font-size: 12px; margin-top: 2em; }}\n"
      "</style>\n</head>\n<body>\n<h1>{}</h1>\n",
      escape(title), escape(title));
  for (const auto& s : sections) {
    out += fmt::format("<section>\n<h2>{}</h2>\n", escape(s.heading));
    for (const auto& p : s.paragraphs) out += fmt::format("<p>{}</p>\n", escape(p));
    if (!s.table.empty()) {
      out += "<table>\n";
      for (size_t r = 0; r < s.table.size(); ++r) {
        out += "<tr>";
        const char* tag = r == 0 ? "th" : "td";
        for (const auto& cell : s.table[r]) out += fmt::format("<{0}>{1}</{0}>", tag, escape(cell));
        out += "</tr>\n";
      }
      out += "</table>\n";
    }
    for (const auto& c : s.charts) out += "<figure>\n" + c + "</figure>\n";
    out += "</section>\n";
  }
  out += fmt::format("<footer>{}</footer>\n</body>\n</html>\n", escape(footer));
  return out;
}

}  // namespace rigplan::chart
