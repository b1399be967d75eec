// `rigplan serve`, the command that runs the server: registered by rigplan-serve's main in place
// of the hand-over that the rigplan executable registers (cli::add_serve_handoff).
#pragma once

#include "cli/cli_context.h"

namespace rigplan::serve {

void add_serve_command(CLI::App& app, cli::CliContext& ctx);

}  // namespace rigplan::serve
