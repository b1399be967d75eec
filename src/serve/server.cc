#include "serve/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/cli_context.h"
#include "util/embedded_file.h"
#include "util/strings.h"

#ifdef RIGPLAN_MIMALLOC
#include <mimalloc.h>
#endif

namespace rigplan::serve {
namespace {

// An endpoint: the path after /api/ (or /report/), the command it runs, the query parameter that
// is the command's positional argument, and whether it has an --html report.
struct Endpoint {
  std::string_view path;
  std::array<std::string_view, 3> args;  // command, subcommand or fixed flag; "" when unused
  std::string_view positional;
  bool report;
};
constexpr Endpoint kEndpoints[] = {
    {"overview", {"overview"}, "", false},
    {"gpus", {"gpus", "list"}, "", false},
    {"gpus/show", {"gpus", "show"}, "gpu", false},
    {"cpus", {"cpus", "list"}, "", false},
    {"cpus/show", {"cpus", "show"}, "cpu", false},
    {"offers", {"offers", "list"}, "", false},
    {"offers/show", {"offers", "show"}, "offer", false},
    {"regions", {"regions", "list"}, "", false},
    {"regions/show", {"regions", "show"}, "region", false},
    {"workloads", {"workloads", "list"}, "", false},
    {"workloads/show", {"workloads", "show"}, "workload", false},
    {"presets", {"recommend", "--presets"}, "", false},
    {"memory", {"memory"}, "workload", true},
    {"predict", {"predict"}, "workload", false},
    {"compare", {"compare"}, "workload", true},
    {"cost", {"cost"}, "workload", true},
    {"recommend", {"recommend"}, "workload", true},
    {"train-plan", {"train-plan"}, "workload", false},
    {"build/propose", {"build", "propose"}, "", true},
};

// Options that read or write files, or change what the server loaded: not accepted over HTTP.
constexpr std::string_view kRefused[] = {"hf-config", "build", "html", "catalog", "overlay",
                                         "workloads", "json",  "help", "version"};

Response json_error(int status, const std::string& message) {
  // Messages quote what the client sent: a byte that is not UTF-8 prints as U+FFFD.
  return {status, "application/json",
          nlohmann::json{{"error", message}}.dump(2, ' ', false,
                                                  nlohmann::json::error_handler_t::replace) +
              "\n"};
}

// A 400 for the first parameter that is not well-formed UTF-8, or for too many parameters.
std::optional<Response> check_params(const Params& params) {
  if (params.size() > kMaxParams) {
    return json_error(400,
                      fmt::format("rigplan serve: {} query parameters; at most {} are accepted",
                                  params.size(), kMaxParams));
  }
  for (const auto& [key, value] : params) {
    if (invalid_utf8_at(key)) {
      return json_error(400, "rigplan serve: a parameter name is not valid UTF-8");
    }
    if (const auto at = invalid_utf8_at(value)) {
      return json_error(
          400, fmt::format("rigplan serve: parameter '{}' is not valid UTF-8 (byte {} is 0x{:02x})",
                           shown(key), *at + 1, static_cast<unsigned char>(value[*at])));
    }
  }
  return std::nullopt;
}

bool valid_key(std::string_view key) {
  return !key.empty() && key.size() <= 32 && key.front() >= 'a' && key.front() <= 'z' &&
         std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

std::string_view content_type(std::string_view path) {
  if (path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

// The command line of `command`, built once per thread that serves it (ReusedCommandLine).
cli::ReusedCommandLine& command_line(std::string_view command) {
  thread_local std::unordered_map<std::string_view, std::unique_ptr<cli::ReusedCommandLine>> lines;
  auto& line = lines[command];
  if (!line) line = std::make_unique<cli::ReusedCommandLine>(std::string(command));
  return *line;
}

}  // namespace

Handler::Handler(std::shared_ptr<const Catalog> catalog, std::shared_ptr<const Zoo> zoo,
                 CacheLimits cache)
    : catalog_(std::move(catalog)), zoo_(std::move(zoo)), limits_(cache) {}

Response Handler::get(std::string_view path, const Params& params) const {
  // The page: only the embedded assets, by exact name.
  if (!path.starts_with("/api/") && !path.starts_with("/report/")) {
    const std::string_view name = path == "/" ? "/index.html" : path;
    for (const auto& f : embedded_web_files()) {
      if (f.path.substr(f.path.find('/')) == name)
        return {200, std::string(content_type(name)), std::string(f.text)};
    }
    return json_error(404, fmt::format("no such page: {}", shown(path)));
  }
  if (auto bad = check_params(params)) return *bad;
  if (limits_.entries == 0 || limits_.bytes == 0) return run(path, params);
  std::string key = cli::today().to_string() + ' ' + std::string(path);
  for (const auto& [k, v] : params) key += fmt::format("\n{}={}", k, v);
  {
    std::lock_guard lock(cache_mutex_);
    if (auto it = cache_index_.find(key); it != cache_index_.end()) {
      cache_.splice(cache_.begin(), cache_, it->second);
      return it->second->second;
    }
  }
  Response response = run(path, params);
  if (response.status == 200 || response.status == 400) remember(std::move(key), response);
  return response;
}

void Handler::remember(std::string key, const Response& response) const {
  const auto size = [](const std::string& k, const Response& r) {
    return k.size() + r.body.size() + r.content_type.size();
  };
  const size_t bytes = size(key, response);
  if (bytes > limits_.bytes / 8) return;
  std::lock_guard lock(cache_mutex_);
  if (cache_index_.contains(key)) return;  // another thread answered it meanwhile
  cache_.emplace_front(std::move(key), response);
  cache_index_[cache_.front().first] = cache_.begin();
  cache_bytes_ += bytes;
  while (cache_.size() > limits_.entries || cache_bytes_ > limits_.bytes) {
    cache_bytes_ -= size(cache_.back().first, cache_.back().second);
    cache_index_.erase(cache_.back().first);
    cache_.pop_back();
  }
}

size_t Handler::cached_entries() const {
  std::lock_guard lock(cache_mutex_);
  return cache_.size();
}

size_t Handler::cached_bytes() const {
  std::lock_guard lock(cache_mutex_);
  return cache_bytes_;
}

Response Handler::run(std::string_view path, const Params& params) const {
  const bool report = path.starts_with("/report/");
  const std::string_view name = path.substr(report ? 8 : 5);
  const auto endpoint =
      std::find_if(std::begin(kEndpoints), std::end(kEndpoints),
                   [&](const Endpoint& e) { return e.path == name && (e.report || !report); });
  if (endpoint == std::end(kEndpoints)) {
    std::vector<std::string> paths;
    for (const auto& e : kEndpoints) {
      if (e.report || !report) paths.push_back(std::string(e.path));
    }
    return json_error(404, fmt::format("no such endpoint: {}; accepted: {}", shown(path),
                                       fmt::join(paths, ", ")));
  }

  std::vector<std::string> args = {"rigplan"};
  if (!report) args.push_back("--json");
  for (std::string_view a : endpoint->args) {
    if (!a.empty()) args.emplace_back(a);
  }
  std::vector<std::string> positional;
  for (const auto& [key, value] : params) {
    if (!endpoint->positional.empty() && key == endpoint->positional) {
      positional.push_back(value);
      continue;
    }
    if (!valid_key(key))
      return json_error(400, fmt::format("rigplan serve: bad parameter name '{}'", shown(key)));
    if (std::find(std::begin(kRefused), std::end(kRefused), key) != std::end(kRefused)) {
      return json_error(400, fmt::format("rigplan serve: --{} is not accepted over HTTP", key));
    }
    // --key=value keeps a value that starts with '-' a value; a bare or "true" key is a flag,
    // passed as --key=true so that an option that needs a value cannot take the next argument.
    if (value != "false")
      args.push_back(fmt::format("--{}={}", key, value.empty() ? "true" : value));
  }
  if (report) {
    args.push_back("--html");
    args.push_back("-");
  }
  if (!positional.empty()) {
    args.push_back("--");
    args.insert(args.end(), positional.begin(), positional.end());
  }

  std::ostringstream out, err;
  cli::CliContext ctx{.out = &out, .err = &err, .shared_catalog = catalog_, .shared_zoo = zoo_};
  int code = cli::kExitInternal;
  try {
    code = command_line(endpoint->args[0]).run(args, ctx);
  } catch (const std::exception& e) {
    return json_error(500, fmt::format("rigplan: internal error: {}", e.what()));
  }
  if (code == cli::kExitOk) {
    return {200, report ? "text/html; charset=utf-8" : "application/json", out.str()};
  }
  std::string message = err.str();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return json_error(code == cli::kExitBadInput ? 400 : 500, message);
}

struct Server::Impl {
  Impl(const Handler& h, const ServerOptions& o) : handler(h), options(o) {}
  const Handler& handler;
  ServerOptions options;
  httplib::Server http;
};

Server::Server(const Handler& handler, const ServerOptions& options)
    : impl_(std::make_unique<Impl>(handler, options)) {
  httplib::Server& http = impl_->http;
  http.set_payload_max_length(kMaxBodyBytes);
  http.set_read_timeout(kReadTimeoutS, 0);
  http.set_write_timeout(kWriteTimeoutS, 0);
  http.set_keep_alive_max_count(kKeepAliveRequests);
  http.set_tcp_nodelay(true);  // answers go out whole at once; no 40 ms wait for a delayed ACK
  auto send = [](httplib::Response& res, const Response& r) {
    // A 200 is left for httplib to set: 206 when the request asked for a byte range.
    if (r.status != 200) res.status = r.status;
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    res.set_content(r.body, r.content_type.c_str());
  };
  http.Get(".*", [this, send](const httplib::Request& req, httplib::Response& res) {
    if (req.ranges.size() > kMaxRangeParts) {
      const size_t parts = req.ranges.size();
      // httplib applies the ranges to any answer, this refusal included; the request is its own
      // (non-const) object, handed to handlers as const.
      const_cast<httplib::Request&>(req).ranges.clear();
      return send(res, json_error(416, fmt::format("rigplan serve: {} byte ranges; at most {} is "
                                                   "accepted",
                                                   parts, kMaxRangeParts)));
    }
    const Params params(req.params.begin(), req.params.end());
    send(res, impl_->handler.get(req.path, params));
  });
  // A bug, not the client's fault: a JSON 500 without the exception's text, which can quote the
  // request, in the answer or its headers.
  http.set_exception_handler(
      [send](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        send(res, json_error(500, "rigplan serve: internal error"));
      });
}

Server::~Server() = default;

int Server::bind() {
  httplib::Server& http = impl_->http;
  if (impl_->options.port == 0) return http.bind_to_any_port(impl_->options.host.c_str());
  return http.bind_to_port(impl_->options.host.c_str(), impl_->options.port) ? impl_->options.port
                                                                             : -1;
}

void Server::run() { impl_->http.listen_after_bind(); }

bool Server::running() const { return impl_->http.is_running(); }

void Server::stop() { impl_->http.stop(); }

void keep_freed_memory_for_reuse() {
#ifdef RIGPLAN_MIMALLOC
  mi_option_disable(mi_option_allow_decommit);
#endif
}

}  // namespace rigplan::serve
