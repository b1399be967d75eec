// `rigplan serve` in the rigplan executable: the server lives in rigplan-serve (so that every
// other command starts without the HTTP and TLS libraries), and this command runs it in place of
// rigplan, with the same arguments, options and help included.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/cli_context.h"

namespace rigplan::cli {
namespace {

constexpr const char* kServeExecutable = "rigplan-serve";

// rigplan-serve in the directory of the running executable.
std::filesystem::path serve_executable() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / kServeExecutable;
}

// Replaces this process by rigplan-serve with `args` (the program first); returns only when it
// cannot, with the exit code of the message it printed.
int exec_serve(const CliContext& ctx) {
  const std::string path = serve_executable().string();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (size_t i = 1; i < ctx.command_line.size(); ++i)
    argv.push_back(const_cast<char*>(ctx.command_line[i].c_str()));
  argv.push_back(nullptr);
  ctx.out->flush();
  ctx.err->flush();
  ::execv(path.c_str(), argv.data());
  return ctx.fail(Status::io_error(
      fmt::format("`serve` runs {}, which is installed beside rigplan, and it could not be run: "
                  "{} ({}); build it with `cmake --build` (target rigplan-serve)",
                  path, std::strerror(errno), kServeExecutable)));
}

}  // namespace

void add_serve_handoff(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("serve", kServeDescription);
  // Every argument, --help included, is rigplan-serve's to read: none reaches rigplan's own
  // options (no help flag here, and nothing falls through to the global ones).
  cmd->prefix_command();
  cmd->set_help_flag();
  cmd->fallthrough(false);
  cmd->callback([&ctx] { ctx.exit_code = exec_serve(ctx); });
}

}  // namespace rigplan::cli
