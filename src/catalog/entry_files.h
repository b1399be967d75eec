// The [[section]] entries of the data files under data/ that are not the catalog (recipes,
// presets, engines, input pipelines, the workload zoo): one walk over their files for every
// loader, so that each reports a syntax error or an unknown section the same way.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/toml_decode.h"
#include "util/strings.h"

namespace rigplan::toml_decode {

// "unknown section 'recipes'; expected [[recipe]] (did you mean 'recipe'?)".
inline std::string unknown_section(std::string_view key,
                                   std::span<const std::string_view> sections) {
  std::string expected;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (i > 0) expected += i + 1 == sections.size() ? " or " : ", ";
    expected += fmt::format("[[{}]]", sections[i]);
  }
  const std::vector<std::string> names(sections.begin(), sections.end());
  return fmt::format("unknown section '{}'; expected {}{}", shown(key), expected,
                     did_you_mean(key, names));
}

// Calls `visit(section, raw)` for each table of each [[section]] list in `files`, in file order,
// `section` being one of `sections` and `raw.id` the table's string `id` (empty without one). A
// syntax error, or a top-level key that is not one of `sections` as a list of tables, is added to
// `problems` and skipped.
template <class Visit>
void for_each_entry(const std::vector<CatalogFile>& files,
                    std::span<const std::string_view> sections, Problems& problems, Visit&& visit) {
  for (const auto& file : files) {
    auto parsed = parse_file(file, problems);
    if (!parsed) continue;
    for (auto&& [key, node] : *parsed) {
      const auto known = std::find(sections.begin(), sections.end(), key.str());
      auto* array = node.as_array();
      if (known == sections.end() || !array || !array->is_array_of_tables()) {
        problems.add(node.source(), unknown_section(key.str(), sections));
        continue;
      }
      for (auto&& item : *array) {
        RawEntry raw{std::move(*item.as_table()), ""};
        if (const auto* id = raw.table.get_as<std::string>("id")) raw.id = id->get();
        visit(*known, std::move(raw));
      }
    }
  }
}

}  // namespace rigplan::toml_decode
