#include "cli/cli_context.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace rigplan::cli {

std::string default_overlay_dir() {
  if (const char* dir = std::getenv("RIGPLAN_OVERLAY"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/rigplan/overlay";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.config/rigplan/overlay";
  }
  return "";
}

Result<Catalog> CliContext::load() const {
  std::vector<CatalogFile> base;
  if (catalog_dir.empty()) {
    base = embedded_catalog();
  } else {
    auto files = read_catalog_dir(catalog_dir);
    if (!files) return files.status();
    base = std::move(files).value();
  }
  std::vector<CatalogFile> overlay;
  // An explicit --overlay must exist; the default location is used only when present.
  const bool explicit_overlay = !overlay_dir.empty();
  const std::string dir = explicit_overlay ? overlay_dir : default_overlay_dir();
  std::error_code ec;
  if (explicit_overlay || (!dir.empty() && std::filesystem::is_directory(dir, ec))) {
    auto files = read_catalog_dir(dir);
    if (!files) return files.status();
    overlay = std::move(files).value();
  }
  return load_catalog(base, overlay);
}

int CliContext::fail(const Status& status) const {
  *err << "rigplan: " << status.message() << "\n";
  return status.is_user_error() ? kExitBadInput : kExitInternal;
}

void CliContext::print_json(const report::Json& value) const { *out << value.dump(2) << "\n"; }

}  // namespace rigplan::cli
