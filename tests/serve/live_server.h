// A `rigplan serve` on a free loopback port in this process, for the API and browser tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_context.h"
#include "serve/server.h"

namespace rigplan::testing {

class LiveServer {
 public:
  explicit LiveServer(serve::CacheLimits cache = {}) {
    cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
    catalog_ = *ctx.load();
    zoo_ = *ctx.load_zoo();
    handler_ = std::make_unique<serve::Handler>(catalog_, zoo_, cache);
    server_ = std::make_unique<serve::Server>(*handler_, serve::ServerOptions{.port = 0});
    port_ = server_->bind();
    EXPECT_GT(port_, 0);
    thread_ = std::thread([this] { server_->run(); });
    while (!server_->running()) std::this_thread::yield();
  }
  ~LiveServer() {
    server_->stop();
    thread_.join();
  }

  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // What the command line prints for `args` (without the program name): exit code, stdout, stderr.
  struct Run {
    int code;
    std::string out, err;
  };
  Run cli(std::vector<std::string> args) const {
    args.insert(args.begin(), "rigplan");
    std::ostringstream out, err;
    cli::CliContext ctx{.out = &out, .err = &err};
    const int code = cli::run_command_line(args, ctx);
    return {code, out.str(), err.str()};
  }

 private:
  std::shared_ptr<const Catalog> catalog_;
  std::shared_ptr<const Zoo> zoo_;
  std::unique_ptr<serve::Handler> handler_;
  std::unique_ptr<serve::Server> server_;
  int port_ = -1;
  std::thread thread_;
};

}  // namespace rigplan::testing
