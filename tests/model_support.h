// The zoo's workloads and the catalog's GPUs by id, and the memory and speed models' answers for
// them, for the model tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "test_support.h"

namespace rigplan::testing {

// The embedded zoo's workload `id`; an id the zoo lacks fails the test.
inline const Workload& workload(std::string_view id) { return *loaded(default_zoo().find(id)); }

// The embedded catalog's GPU `id`; an id the catalog lacks ends the test binary with its name.
inline const Gpu& gpu(std::string_view id) {
  const Gpu* g = default_catalog().gpu(id);
  if (g == nullptr) {
    std::fprintf(stderr, "the catalog has no GPU '%.*s'\n", static_cast<int>(id.size()), id.data());
    std::abort();
  }
  return *g;
}

// The memory estimate of workload `w` on GPU `g`; a refusal fails the test.
inline MemoryEstimate estimate(std::string_view w, std::string_view g, const RunConfig& c) {
  return loaded(estimate_memory(workload(w), gpu(g), c));
}

// The prediction for workload `w` on GPU `g` with the priors alone (data/engines and no fitted
// calibration), so that expectations do not move with a refit; a refusal fails the test.
inline Prediction run(std::string_view w, std::string_view g, const RunConfig& c) {
  return loaded(predict(workload(w), gpu(g), c, Calibration{}, default_catalog()));
}

}  // namespace rigplan::testing
