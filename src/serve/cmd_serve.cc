// rigplan serve [--host 127.0.0.1] [--port 8080]: the JSON API and the web page. It lives in
// rigplan-serve, which `rigplan serve` hands over to, so that the other commands start without the
// HTTP and TLS libraries.
#include <fmt/format.h>

#include "rigplan/input.h"
#include "serve/serve_command.h"
#include "serve/server.h"

namespace rigplan::serve {

using cli::CliContext;

void add_serve_command(CLI::App& app, CliContext& ctx) {
  auto& options = ctx.keep<ServerOptions>();
  auto* cmd = app.add_subcommand("serve", cli::kServeDescription);
  cmd->add_option("--host", options.host,
                  "Address to listen on; anything but loopback exposes an API with no "
                  "authentication")
      ->capture_default_str();
  cmd->add_option("--port", options.port, "Port (0: any free port)")->capture_default_str();
  cmd->add_option("--cache", options.cache.entries,
                  "Answers kept for repeated requests, at most (0: none)")
      ->capture_default_str();
  auto& cache_mb = ctx.keep<size_t>(options.cache.bytes >> 20);
  cmd->add_option("--cache-mb", cache_mb,
                  "MiB the kept answers may take, at most; an answer larger than an eighth of "
                  "this is not kept (0: no cache)")
      ->capture_default_str();
  cmd->callback([&ctx, &options, &cache_mb] {
    if (Status s =
            input::check_all({{&input::kPort, static_cast<double>(options.port)},
                              {&input::kCacheEntries, static_cast<double>(options.cache.entries)},
                              {&input::kCacheMegabytes, static_cast<double>(cache_mb)}});
        !s.ok())
      return void(ctx.exit_code = ctx.fail(s));
    options.cache.bytes = cache_mb << 20;
    auto catalog = ctx.load();
    if (!catalog) return void(ctx.exit_code = ctx.fail(catalog.status()));
    auto zoo = ctx.load_zoo();
    if (!zoo) return void(ctx.exit_code = ctx.fail(zoo.status()));
    const Handler handler(*catalog, *zoo, options.cache);
    Server server(handler, options);
    const int port = server.bind();
    if (port < 0) {
      return void(ctx.exit_code = ctx.fail(Status::io_error(fmt::format(
                      "cannot listen on {}:{} (in use, or not an address of this machine)",
                      options.host, options.port))));
    }
    if (options.host != "127.0.0.1" && options.host != "localhost" && options.host != "::1") {
      *ctx.err << "rigplan: warning: listening on " << options.host
               << ": anyone who can reach it can use the API; there is no authentication\n";
    }
    *ctx.err << fmt::format("rigplan: serving http://{}:{}/ (Ctrl-C stops)\n", options.host, port)
             << std::flush;
    server.run();
  });
}

}  // namespace rigplan::serve
