// Name lookup for catalog entries: ids, aliases and names, case-insensitive, ignoring
// punctuation and spacing ("RTX 4090" = "rtx-4090" = "rtx_4090") and vendor prefixes
// ("GeForce RTX 4090", "NVIDIA H100 SXM"). Unknown names get the closest ids as suggestions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rigplan/status.h"

namespace rigplan {

class NameIndex {
 public:
  // `kind` names the entries in messages: "GPU", "CPU", "offer".
  // `list_command` is the command that lists them all: "rigplan gpus list".
  NameIndex(std::string kind, std::string list_command);

  // Registers entry `index` with its id. Call in index order, before add_name.
  void add_entry(std::string id);
  // Registers another name of entry `index`. Returns the id of another entry that this name
  // already stands for, or "" when the name is free (or already this entry's).
  std::string add_name(size_t index, std::string_view name);

  Result<size_t> find(std::string_view query) const;

  // The canonical form names are compared in: lowercase letters and digits only.
  static std::string normalize(std::string_view name);

 private:
  void insert(const std::string& key, size_t index);

  std::string kind_;
  std::string list_command_;
  std::vector<std::string> ids_;
  // Normalized name -> entries it stands for (more than one: an ambiguous derived name).
  std::unordered_map<std::string, std::vector<size_t>> keys_;
};

}  // namespace rigplan
