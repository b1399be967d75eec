// The embedded catalog compiled into the binary: at build time, catalog_image_gen loads and
// checks the TOML files under data/catalog/ (embedded_catalog()) and writes the catalog it got as
// an image, entry by entry and field by field after the schema's tables (rigplan/schema.h).
// A command reads the image back instead of parsing 1.2 MB of TOML. --catalog and overlays take
// the TOML path (load_catalog); tests/catalog/catalog_image_test.cc checks the image against it.
#pragma once

#include <string>
#include <string_view>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

// The catalog as an image: a magic line, then for each kind of entry (GPUs, CPUs, offers, ...,
// the members of Catalog in order) the count and every entry's fields and provenance. Numbers are
// in the byte order of the machine that writes them: the build writes the image that the same
// build reads.
std::string write_catalog_image(const Catalog& catalog);

// The catalog an image holds (its name indexes are built at their first lookup). A truncated or
// malformed image is a kInternal Status (the build made it; it cannot come from the user).
Result<Catalog> read_catalog_image(std::string_view image);

// A C++ source defining embedded_catalog_image() and embedded_zoo_image() (workload/zoo_image.h)
// to return the images.
std::string embedded_images_source(std::string_view catalog_image, std::string_view zoo_image);

// The image of load_catalog(embedded_catalog()), made at build time.
std::string_view embedded_catalog_image();

}  // namespace rigplan
