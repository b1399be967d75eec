#include "catalog/name_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace rigplan {
namespace {

// Vendor and brand words users often add or leave out ("GeForce RTX 4090", "Tesla T4").
constexpr std::string_view kBrandPrefixes[] = {"nvidia", "geforce",  "tesla", "amd",
                                               "radeon", "instinct", "intel"};

// Linear in the length: "nvidianvidia..." a megabyte long is read once, not erased from the front
// once per word.
std::string strip_brands(const std::string& key) {
  std::string_view rest = key;
  bool stripped = true;
  while (stripped) {
    stripped = false;
    for (std::string_view prefix : kBrandPrefixes) {
      if (rest.size() > prefix.size() && rest.starts_with(prefix)) {
        rest.remove_prefix(prefix.size());
        stripped = true;
      }
    }
  }
  return std::string(rest);
}

}  // namespace

NameIndex::NameIndex(std::string kind, std::string list_command)
    : kind_(std::move(kind)), list_command_(std::move(list_command)) {}

std::string NameIndex::normalize(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}

void NameIndex::insert(const std::string& key, size_t index) {
  auto& entries = keys_[key];
  if (std::find(entries.begin(), entries.end(), index) == entries.end()) entries.push_back(index);
}

void NameIndex::add_entry(std::string id) {
  const size_t index = ids_.size();
  ids_.push_back(std::move(id));
  add_name(index, ids_.back());
}

std::string NameIndex::add_name(size_t index, std::string_view name) {
  const std::string key = normalize(name);
  if (key.empty()) return "";
  if (auto it = keys_.find(key); it != keys_.end()) {
    for (size_t other : it->second) {
      if (other != index) return ids_[other];
    }
  }
  insert(key, index);
  if (std::string bare = strip_brands(key); bare != key) insert(bare, index);
  return "";
}

Result<size_t> NameIndex::find(std::string_view query) const {
  const std::string key = normalize(query);
  for (const std::string& candidate : {key, strip_brands(key)}) {
    auto it = keys_.find(candidate);
    if (it == keys_.end()) continue;
    if (it->second.size() == 1) return it->second.front();
    std::vector<std::string> ids;
    for (size_t i : it->second) ids.push_back(ids_[i]);
    return Status::not_found(fmt::format("'{}' names more than one {}: {}; use the id",
                                         shown(query), kind_, quoted_list(ids)));
  }
  // Suggest ids whose id or any name is close to the query.
  std::vector<std::pair<std::string, size_t>> pairs;
  for (const auto& [k, entries] : keys_) {
    for (size_t e : entries) pairs.emplace_back(k, e);
  }
  std::sort(pairs.begin(), pairs.end());  // deterministic order among equally close names
  std::vector<std::string> key_names;
  std::vector<size_t> key_entries;
  for (auto& [k, e] : pairs) {
    key_names.push_back(k);
    key_entries.push_back(e);
  }
  std::vector<std::string> suggestions;
  for (const auto& match : closest_matches(key, key_names, key_names.size())) {
    for (size_t i = 0; i < key_names.size(); ++i) {
      if (key_names[i] != match) continue;
      const std::string& id = ids_[key_entries[i]];
      if (std::find(suggestions.begin(), suggestions.end(), id) == suggestions.end()) {
        suggestions.push_back(id);
      }
    }
    if (suggestions.size() >= 3) break;
  }
  if (suggestions.size() > 3) suggestions.resize(3);
  std::string hint =
      suggestions.empty() ? "" : fmt::format(" (did you mean {}?)", quoted_list(suggestions));
  return Status::not_found(fmt::format("unknown {} '{}'{}; `{}` shows them all", kind_,
                                       shown(query), hint, list_command_));
}

}  // namespace rigplan
