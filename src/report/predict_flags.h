// A run as the flags of `rigplan predict`, for the answers that name a run predict can be asked
// about: recommend's "as predict flags" and train-plan's "#1 as predict flags".
#pragma once

#include <string>

#include "rigplan/memory.h"

namespace rigplan::report {

// The flags that, added to the flags that give predict the run `given`, give it `run`: each
// setting of the two that differs, in a fixed order (the GPUs and how they split the work, the
// batch and sequence, the formats, the recompute, the software, then the links and the network
// between machines). "" when they are the same run. `run` and `given` are alike resolved or
// not: a setting left empty compares as predict's default only where that default is fixed
// (the recompute, full with --checkpointing and none without; the engine, by the mode), and a
// setting `run` leaves unset (an optional, an empty name) is left to `given`. Settings no
// search varies (the mode, method, optimizer, LoRA) are not compared.
std::string predict_flags(const RunConfig& run, const RunConfig& given);

}  // namespace rigplan::report
