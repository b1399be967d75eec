// libFuzzer target: one catalog file, as a --catalog directory or an overlay gives it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  const CatalogFile file{"fuzz.toml", std::string(reinterpret_cast<const char*>(data), size)};
  // As a whole catalog, and as an overlay over the embedded one.
  auto alone = load_catalog({file});
  if (!alone) fuzz::check_message(alone.status().message());
  auto overlaid = load_catalog(embedded_catalog(), {file});
  if (!overlaid) fuzz::check_message(overlaid.status().message());
  return 0;
}
