// `rigplan serve`: the command line over HTTP, and a web page that drives it.
//
// Each API endpoint runs the matching command in-process with --json and answers exactly what
// the command prints; bad parameters get HTTP 400 with the command's own message. The
// /report/... endpoints answer the command's --html page. The page, its script and style are
// compiled into the binary (web/); nothing else is served and nothing is read from disk.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/workload.h"

namespace rigplan::serve {

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// Query parameters, sorted by key; a repeated key keeps the order its values came in.
using Params = std::vector<std::pair<std::string, std::string>>;

// How much the answer cache keeps: at most `entries` answers and `bytes` of them (keys and
// bodies), least recently used first out. An answer larger than an eighth of `bytes` is not
// kept, so that one request cannot empty the cache. 0 entries or 0 bytes: no cache.
struct CacheLimits {
  size_t entries = 1024;
  size_t bytes = 64 << 20;
};

// What each path answers, without sockets: the server calls it from many threads at once.
class Handler {
 public:
  // The catalog and zoo do not change while serving, so an answer is reused until the date
  // changes.
  Handler(std::shared_ptr<const Catalog> catalog, std::shared_ptr<const Zoo> zoo,
          CacheLimits cache);

  Response get(std::string_view path, const Params& params) const;

  // What the cache holds now.
  size_t cached_entries() const;
  size_t cached_bytes() const;

 private:
  Response run(std::string_view path, const Params& params) const;
  void remember(std::string key, const Response& response) const;

  std::shared_ptr<const Catalog> catalog_;
  std::shared_ptr<const Zoo> zoo_;
  CacheLimits limits_;
  mutable std::mutex cache_mutex_;
  mutable std::list<std::pair<std::string, Response>> cache_;  // most recent first
  mutable std::unordered_map<std::string, std::list<std::pair<std::string, Response>>::iterator>
      cache_index_;
  mutable size_t cache_bytes_ = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback: the API has no authentication
  int port = 8080;                 // 0: any free port
  CacheLimits cache;
};

// Limits on what a client may send and how long it may take (docs/serve.md). The request line is
// at most 8,192 bytes (httplib's CPPHTTPLIB_REQUEST_URI_MAX_LENGTH; longer is a 414).
inline constexpr size_t kMaxBodyBytes =
    size_t{16} * 1024;  // requests are GETs; bodies are refused above this
inline constexpr int kReadTimeoutS = 5;
inline constexpr int kWriteTimeoutS = 10;
inline constexpr size_t kKeepAliveRequests = 1000;
inline constexpr size_t kMaxParams = 64;     // query parameters of one request; more is a 400
inline constexpr size_t kMaxRangeParts = 1;  // byte ranges of one Range header; more is a 416

class Server {
 public:
  Server(const Handler& handler, const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the socket; returns the port (the one chosen when options.port is 0), or -1.
  int bind();
  // Serves until stop(); call after bind().
  void run();
  bool running() const;
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// For a process that answers request after request: memory one answer frees is kept for the next
// instead of being given back to the kernel and faulted in again, 4 KB at a time. mimalloc gives
// back what stays free for 25 ms: an uncached recommend then took about 400 page faults and
// twice the CPU time (docs/serve.md). What is kept is bounded by the most the server ever held
// at once. Without mimalloc (the sanitizer builds) it does nothing.
void keep_freed_memory_for_reuse();

}  // namespace rigplan::serve
