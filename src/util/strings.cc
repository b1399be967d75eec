#include "util/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <tuple>

namespace rigplan {

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(std::span<const std::string> parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t end = std::min(text.find(separator), text.size());
    std::string_view item = text.substr(0, end);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the cut sequence.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string format_number(double value) { return fmt::format("{}", value); }

int edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::vector<std::string> closest_matches(std::string_view query,
                                         std::span<const std::string> candidates, size_t limit) {
  const std::string q = to_lower(query);
  // Ranked by (primary, secondary): a name that contains the query first (shortest first),
  // then plausible typos by edit distance.
  struct Scored {
    int primary;
    int secondary;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const auto& candidate : candidates) {
    const std::string c = to_lower(candidate);
    // A typo changes at most about a third of a name.
    const int tolerance = std::max<int>(2, static_cast<int>(q.size()) / 3);
    if (q.size() >= 3 && c.find(q) != std::string::npos) {
      scored.push_back({0, static_cast<int>(c.size() - q.size()), candidate});
    } else if (const int distance = edit_distance(q, c); distance <= tolerance) {
      scored.push_back({distance, 0, candidate});
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return std::tie(a.primary, a.secondary) < std::tie(b.primary, b.secondary);
  });
  // Names that contain the query are the likely targets; keep only the closest typos with them.
  if (!scored.empty() && scored.front().primary == 0) {
    std::erase_if(scored, [](const Scored& s) { return s.primary > 1; });
  }
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (std::find(out.begin(), out.end(), s.name) != out.end()) continue;
    out.push_back(s.name);
    if (out.size() == limit) break;
  }
  return out;
}

std::string did_you_mean(std::string_view query, std::span<const std::string> candidates) {
  const auto matches = closest_matches(query, candidates);
  if (matches.empty()) return "";
  return fmt::format(" (did you mean {}?)", quoted_list(matches));
}

std::string quoted_list(std::span<const std::string> items, std::string_view last_word) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? fmt::format(" {} ", last_word) : ", ";
    out += fmt::format("'{}'", items[i]);
  }
  return out;
}

}  // namespace rigplan
