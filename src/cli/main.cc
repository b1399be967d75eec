// rigplan: plans the hardware for deep learning. The executable is the library plus this
// front end: parse options, call the library, render.
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/cli_context.h"
#include "cli/start_up.h"
#include "rigplan/date.h"
#include "util/strings.h"

int main(int argc, char** argv) {
  rigplan::cli::use_huge_pages_for_the_heap();
  if (const char* fixed = std::getenv("RIGPLAN_TODAY");
      fixed && *fixed && !rigplan::Date::parse(fixed)) {
    std::cerr << "rigplan: RIGPLAN_TODAY '" << rigplan::shown(fixed)
              << "' is not a date; expected YYYY-MM-DD (or unset it for the system date)\n";
    return rigplan::cli::kExitBadInput;
  }
  try {
    rigplan::cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
    const int code =
        rigplan::cli::run_command_line(std::vector<std::string>(argv, argv + argc), ctx);
    // The process ends here without destroying `ctx`: the catalog and zoo it kept are thousands
    // of blocks that the kernel takes back at once, and freeing them one by one was a tenth of a
    // command's instructions (4.5 of 37 million for `predict`). std::exit flushes the streams.
    std::exit(code);
  } catch (const std::exception& e) {
    std::cerr << "rigplan: internal error: " << e.what() << "\n";
    return rigplan::cli::kExitInternal;
  }
}
