#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "rigplan/catalog.h"
#include "rigplan/input.h"
#include "util/embedded_file.h"

namespace rigplan {

std::vector<CatalogFile> catalog_files(std::span<const EmbeddedFile> files) {
  std::vector<CatalogFile> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back({std::string(f.path), std::string(f.text)});
  return out;
}

std::vector<CatalogFile> embedded_catalog() { return catalog_files(embedded_catalog_files()); }

Result<std::vector<CatalogFile>> read_catalog_dir(const std::string& dir, bool required) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::io_error(fmt::format("{}: not a directory", dir));
  }
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml")
      paths.push_back(entry.path());
  }
  if (ec) return Status::io_error(fmt::format("{}: {}", dir, ec.message()));
  if (required && paths.empty()) {
    return Status::io_error(fmt::format("{}: the directory holds no *.toml files", dir));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<CatalogFile> files;
  for (const auto& path : paths) {
    auto text = input::read_file(path.string());
    if (!text) return text.status();
    files.push_back({path.string(), std::move(text).value()});
  }
  return files;
}

}  // namespace rigplan
