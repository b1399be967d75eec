// The shape of an id (a catalog entry's, a provider's), shared by the loader and the importer.
#pragma once

#include <algorithm>
#include <string_view>

namespace rigplan {

// Whether `text` is [a-z0-9][a-z0-9.-]*, checked by hand: std::regex recurses per character and
// overflows the stack on some ten thousand characters.
inline bool id_shaped(std::string_view text) {
  const auto plain = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return !text.empty() && plain(text.front()) && std::all_of(text.begin(), text.end(), [&](char c) {
    return plain(c) || c == '.' || c == '-';
  });
}

}  // namespace rigplan
