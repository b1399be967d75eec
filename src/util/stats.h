// Summary statistics shared by validation and calibration.
#pragma once

#include <algorithm>
#include <vector>

namespace rigplan {

// The middle value (the mean of the two middle values for an even count); `v` must not be empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace rigplan
