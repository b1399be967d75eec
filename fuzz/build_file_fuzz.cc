// libFuzzer target: a build file, parsed and checked as `rigplan build check` does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "rigplan/build.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  const CatalogFile file{"fuzz.toml", std::string(reinterpret_cast<const char*>(data), size)};
  auto build = parse_build(file, fuzz::catalog());
  if (!build) {
    fuzz::check_message(build.status().message());
    return 0;
  }
  const BuildReport report = check_build(*build);
  if (report.verdict != "pass" && report.verdict != "warn" && report.verdict != "fail")
    std::abort();
  return 0;
}
