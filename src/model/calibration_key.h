// Checking a calibration key (perf.h calibration_key) that a data file names.
#pragma once

#include <string>

#include "catalog/toml_decode.h"

namespace rigplan {

// Reports, at `ctx`'s field "architecture", a key that is not an architecture a catalog GPU may
// have and a memory class (hbm, gddr, geforce) joined by '-', as "hopper-hbm", with the accepted
// values and a "did you mean".
void check_calibration_key(const toml_decode::EntryContext& ctx, const std::string& key);

}  // namespace rigplan
