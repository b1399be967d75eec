// Build step: loads and checks the embedded catalog (data/catalog/*.toml) and workload zoo
// (data/workloads/*.toml) and writes their images as one C++ source (src/catalog/catalog_image.h,
// src/workload/zoo_image.h). Usage: catalog_image_gen OUTPUT.cc. A catalog or zoo with problems
// stops the build with them, file:line:column each. The output is rewritten only when it
// changes, so that unchanged data recompiles nothing.
#include <fstream>
#include <iostream>
#include <iterator>

#include "catalog/catalog_image.h"
#include "workload/zoo_image.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: catalog_image_gen OUTPUT.cc\n";
    return 2;
  }
  auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  if (!catalog) {
    std::cerr << "catalog_image_gen: the embedded catalog does not load:\n"
              << catalog.status().message() << "\n";
    return 1;
  }
  auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  if (!zoo) {
    std::cerr << "catalog_image_gen: the embedded workloads do not load:\n"
              << zoo.status().message() << "\n";
    return 1;
  }
  const std::string source = rigplan::embedded_images_source(rigplan::write_catalog_image(*catalog),
                                                             rigplan::write_zoo_image(*zoo));
  std::ifstream old(argv[1], std::ios::binary);
  if (old && std::string(std::istreambuf_iterator<char>(old), {}) == source) return 0;
  std::ofstream out(argv[1], std::ios::binary);
  if (!(out << source)) {
    std::cerr << "catalog_image_gen: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
