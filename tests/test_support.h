// The embedded catalog and zoo, loaded once per test binary.
#pragma once

#include <gtest/gtest.h>

#include "rigplan/catalog.h"
#include "rigplan/workload.h"

namespace rigplan::testing {

inline const Catalog& default_catalog() {
  static const Catalog kCatalog = [] {
    auto loaded = load_catalog(embedded_catalog());
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return std::move(loaded).value();
  }();
  return kCatalog;
}

inline const Zoo& default_zoo() {
  static const Zoo kZoo = [] {
    auto loaded = load_zoo(embedded_workloads());
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return std::move(loaded).value();
  }();
  return kZoo;
}

}  // namespace rigplan::testing
