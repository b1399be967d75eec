// The terms of a prediction or a memory estimate, found by name, for the model tests.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "rigplan/memory.h"
#include "rigplan/perf.h"

namespace rigplan::testing {

// The seconds of a prediction's term `name`; a prediction without it fails the test.
inline double term(const Prediction& p, std::string_view name) {
  for (const PerfTerm& t : p.terms) {
    if (t.name == name) return t.seconds;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

// The GB of a memory term `name`; terms without it fail the test.
inline double term(const std::vector<MemoryTerm>& terms, std::string_view name) {
  for (const MemoryTerm& t : terms) {
    if (t.name == name) return t.gb;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

inline double term(const MemoryEstimate& e, std::string_view name) { return term(e.terms, name); }

// Whether a prediction or an estimate has a term `name`, for the tests that a term is left out.
template <typename Terms>
bool has_term(const Terms& terms, std::string_view name) {
  for (const auto& t : terms) {
    if (t.name == name) return true;
  }
  return false;
}

// The operator time of a step: its compute terms and kernel launches, without communication and
// the pipeline's bubble. A term the step lacks (the optimizer of an inference step) counts 0.
inline double compute_s(const Prediction& p) {
  double s = 0;
  for (const std::string_view name : {"gemm", "attention", "elementwise", "optimizer", "launch"}) {
    if (has_term(p.terms, name)) s += term(p, name);
  }
  return s;
}

}  // namespace rigplan::testing
