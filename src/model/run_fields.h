// The settings of a run (RunConfig) as a field table, shared by the files that describe runs:
// recipes (data/recipes/) and preset tasks (data/presets/). One declaration per setting, with
// its accepted values, so a typo is reported with file, line and a suggestion.
#pragma once

#include <vector>

#include "rigplan/memory.h"
#include "rigplan/schema.h"

namespace rigplan {

const std::vector<FieldSpec<RunConfig>>& run_config_fields();

}  // namespace rigplan
