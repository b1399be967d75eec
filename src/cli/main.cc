// rigplan: plans the hardware for deep learning. The executable is the library plus this
// front end: parse options, call the library, render.
#include <exception>
#include <iostream>

#include "cli/cli_context.h"

int main(int argc, char** argv) {
  try {
    rigplan::cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
    return rigplan::cli::run_command_line(std::vector<std::string>(argv, argv + argc), ctx);
  } catch (const std::exception& e) {
    std::cerr << "rigplan: internal error: " << e.what() << "\n";
    return rigplan::cli::kExitInternal;
  }
}
