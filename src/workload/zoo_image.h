// The embedded workload zoo compiled into the binary: at build time, catalog_image_gen loads and
// checks the TOML files under data/workloads/ (embedded_workloads()) and writes the zoo it got as
// an image, workload by workload and field by field after the workload file format's tables
// (workload/workload_schema.h), the layers built for ResNets and diffusion models included. A
// command reads the image back instead of parsing the TOML; --workloads takes the TOML path
// (load_zoo). tests/workload/zoo_image_test.cc checks the image against it.
#pragma once

#include <string>
#include <string_view>

#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

// The zoo as an image: a magic line, the count of workloads, then each workload's fields and
// provenance, its architecture tables (each optional one behind a presence byte) and its layers.
std::string write_zoo_image(const Zoo& zoo);

// The zoo an image holds, with its name index built. A truncated or malformed image is a
// kInternal Status (the build made it; it cannot come from the user).
Result<Zoo> read_zoo_image(std::string_view image);

// The image of load_zoo(embedded_workloads()), made at build time.
std::string_view embedded_zoo_image();

}  // namespace rigplan
