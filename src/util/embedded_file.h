// Files compiled into the binary by cmake/embed_files.cmake.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace rigplan {

struct CatalogFile;

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root, e.g. "data/catalog/gpus.toml"
  std::string_view text;
};

// The default catalog: every data/catalog/*.toml file, in name order.
std::span<const EmbeddedFile> embedded_catalog_files();
// The default workload zoo: every data/workloads/*.toml file, in name order.
std::span<const EmbeddedFile> embedded_workload_files();
// The fitted performance-model calibration: data/calibration/*.toml.
std::span<const EmbeddedFile> embedded_calibration_files();
// The recommend presets: data/presets/*.toml.
std::span<const EmbeddedFile> embedded_preset_files();
// The fine-tuning recipes: data/recipes/*.toml.
std::span<const EmbeddedFile> embedded_recipe_files();
// The web page of `rigplan serve`: web/*.html, *.js and *.css.
std::span<const EmbeddedFile> embedded_web_files();
// The inference engines and their formats: data/engines/*.toml.
std::span<const EmbeddedFile> embedded_engine_files();
// How public price lists are read: data/import/*.toml.
std::span<const EmbeddedFile> embedded_import_files();
// The input pipelines' rates (data loaders on training inputs): data/pipeline/*.toml.
std::span<const EmbeddedFile> embedded_pipeline_files();

// Embedded files as the loaders take them (src/catalog/catalog_files.cc).
std::vector<CatalogFile> catalog_files(std::span<const EmbeddedFile> files);

}  // namespace rigplan
