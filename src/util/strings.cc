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

std::optional<size_t> invalid_utf8_at(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The length of the sequence and the range of its second byte (Unicode 15, table 3-7).
    size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + length > n || bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
    for (size_t k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the cut sequence.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string shown(std::string_view value) {
  constexpr size_t kShown = 64;
  if (value.size() <= kShown) return std::string(value);
  return std::string(utf8_prefix(value, kShown)) + "...";
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
  if (query.size() > kMaxSuggestedQuery) return {};
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
    } else if (c.size() > q.size() + tolerance || q.size() > c.size() + tolerance) {
      continue;  // the distance is at least the difference in length
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
