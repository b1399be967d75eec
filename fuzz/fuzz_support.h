// What the fuzz targets share: the embedded catalog and zoo, loaded once per process.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "rigplan/catalog.h"
#include "rigplan/workload.h"

namespace rigplan::fuzz {

inline std::shared_ptr<const Catalog> shared_catalog() {
  static const auto kCatalog = [] {
    auto loaded = load_catalog(embedded_catalog());
    if (!loaded) std::abort();
    return std::make_shared<const Catalog>(std::move(loaded).value());
  }();
  return kCatalog;
}
inline const Catalog& catalog() { return *shared_catalog(); }

inline std::shared_ptr<const Zoo> shared_zoo() {
  static const auto kZoo = [] {
    auto loaded = load_zoo(embedded_workloads());
    if (!loaded) std::abort();
    return std::make_shared<const Zoo>(std::move(loaded).value());
  }();
  return kZoo;
}
inline const Zoo& zoo() { return *shared_zoo(); }

// Each line of a Status message (a problem) must be bounded whatever the input: a message that
// quotes a value whole is a finding (issue 20: one that dumped a nested value overflowed the
// stack). Files with many problems list them all, a line each.
inline void check_message(const std::string& message) {
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    if (end - start > 2048) std::abort();
    start = end + 1;
  }
}

}  // namespace rigplan::fuzz
