// libFuzzer target: a measurement file for `rigplan validate`.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "rigplan/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  const std::string csv(reinterpret_cast<const char*>(data), size);
  auto report = validate_measurements(fuzz::catalog(), fuzz::zoo(), "fuzz.csv", csv);
  if (!report) fuzz::check_message(report.status().message());
  return 0;
}
