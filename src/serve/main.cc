// rigplan-serve: the rigplan command line with the server in it. `rigplan serve ...` runs this
// executable with its own command line, so the others start without loading the HTTP and TLS
// libraries; run directly, it takes every command that rigplan takes.
#include <exception>
#include <iostream>

#include "cli/cli_context.h"
#include "serve/serve_command.h"
#include "serve/server.h"

int main(int argc, char** argv) {
  rigplan::serve::keep_freed_memory_for_reuse();
  try {
    rigplan::cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
    ctx.add_serve = rigplan::serve::add_serve_command;
    return rigplan::cli::run_command_line(std::vector<std::string>(argv, argv + argc), ctx);
  } catch (const std::exception& e) {
    std::cerr << "rigplan: internal error: " << e.what() << "\n";
    return rigplan::cli::kExitInternal;
  }
}
