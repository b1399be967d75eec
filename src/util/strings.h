// Small string helpers shared by the loader, the name index and the renderers.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rigplan {

std::string to_lower(std::string_view text);
// The text without leading and trailing spaces.
std::string trim(std::string_view text);
std::string join(std::span<const std::string> parts, std::string_view separator);
// The non-empty items of a separated list, without surrounding spaces: "a, b,,c" -> a, b, c.
std::vector<std::string> split(std::string_view text, char separator);

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or nullopt when all of `text` is.
std::optional<size_t> invalid_utf8_at(std::string_view text);

// At most `max_bytes` of `text`, cut before a UTF-8 sequence rather than inside it.
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

// A user's value as a message quotes it: at most 64 bytes, with "..." when cut, so that no
// message grows with its input.
std::string shown(std::string_view value);

// The shortest decimal text that reads back as the same double: 82.6, 1000, 0.125.
std::string format_number(double value);

// Edit distance with adjacent transpositions (optimal string alignment).
int edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates closest to `query` (case-insensitive), best first; only candidates
// within a distance that makes them plausible typos, or that contain the query. None for a query
// longer than kMaxSuggestedQuery (no id is that long), so that a typo costs microseconds whatever
// its length.
inline constexpr size_t kMaxSuggestedQuery = 64;
std::vector<std::string> closest_matches(std::string_view query,
                                         std::span<const std::string> candidates, size_t limit = 3);

// " (did you mean 'a' or 'b'?)" for the closest matches, or "" when there are none.
std::string did_you_mean(std::string_view query, std::span<const std::string> candidates);

// "'a', 'b' or 'c'".
std::string quoted_list(std::span<const std::string> items, std::string_view last_word = "or");

}  // namespace rigplan
