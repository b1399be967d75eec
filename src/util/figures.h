// Figures as the text reports print them.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace rigplan {

// `value` to `digits` significant digits and never in exponent notation from 1 up: 29350
// where fmt's {:.4g} writes "2.935e+04", 243800 for 243,812, 10000 for 9,999.7. Below 1 it is
// {:.4g}'s text ("0.0125", and "1.2e-05" below 1e-4).
inline std::string significant(double value, int digits = 4) {
  std::string text = fmt::format("{:.{}g}", value, digits);
  const double magnitude = std::abs(value);
  if (text.find('e') == std::string::npos || magnitude < 1) return text;
  const double unit = std::pow(10.0, std::floor(std::log10(magnitude)) - digits + 1);
  return fmt::format("{:.0f}", std::round(value / unit) * unit);
}

}  // namespace rigplan
