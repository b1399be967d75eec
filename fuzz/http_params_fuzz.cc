// libFuzzer target: the HTTP parameter layer of `rigplan serve`. The first byte picks a path, the
// rest is the query string as a client sends it; httplib decodes it as the server does, and the
// handler answers. Every answer is a 2xx or 4xx with a JSON body for /api/ paths: a 5xx, an
// exception or a body that is not JSON is a finding.
#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_support.h"
#include "serve/server.h"

namespace {

constexpr const char* kPaths[] = {
    "/api/memory",        "/api/predict",    "/api/compare",   "/api/cost",   "/api/recommend",
    "/api/build/propose", "/api/gpus",       "/api/gpus/show", "/api/offers", "/api/workloads/show",
    "/report/memory",     "/report/compare", "/api/nope",
};

const rigplan::serve::Handler& handler() {
  static const rigplan::serve::Handler kHandler(rigplan::fuzz::shared_catalog(),
                                                rigplan::fuzz::shared_zoo(),
                                                rigplan::serve::CacheLimits{.entries = 0});
  return kHandler;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = kPaths[data[0] % std::size(kPaths)];
  const std::string query(reinterpret_cast<const char*>(data) + 1, size - 1);
  httplib::Params decoded;
  httplib::detail::parse_query_text(query, decoded);
  const rigplan::serve::Params params(decoded.begin(), decoded.end());
  const rigplan::serve::Response r = handler().get(path, params);
  if (r.status >= 500) std::abort();
  if (path.starts_with("/api/") && !nlohmann::json::accept(r.body))  // also refuses invalid UTF-8
    std::abort();
  return 0;
}
