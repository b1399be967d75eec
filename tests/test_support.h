// The embedded catalog and zoo, loaded once per test binary.
#pragma once

#include <gtest/gtest.h>

#include "rigplan/catalog.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan::testing {

// The value of a load that must succeed; a failure is a test failure that shows its message.
template <typename T>
T loaded(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().message();
  return std::move(result).value();
}

inline const Catalog& default_catalog() {
  static const Catalog kCatalog = loaded(load_catalog(embedded_catalog()));
  return kCatalog;
}

inline const Zoo& default_zoo() {
  static const Zoo kZoo = loaded(load_zoo(embedded_workloads()));
  return kZoo;
}

}  // namespace rigplan::testing
