// The memory estimate as callers that weigh many configurations need it: the numbers, without
// what only a reader needs.
#pragma once

#include "rigplan/memory.h"

namespace rigplan {

struct ComponentPlan;  // model/components.h

// estimate_memory(workload, gpu, config, /*with_searches=*/false) without the formulas and
// values of its terms: the same terms by name and GB, totals, fit and KV-cache room, from the
// same code (run_facts, for recommend's hundreds of runs per request). `params` and `plan`: the
// workload's count_params and the configuration's plan_components, when the caller has them
// (nullptr: made here).
Result<MemoryEstimate> estimate_memory_numbers(const Workload& workload, const Gpu& gpu,
                                               const RunConfig& config,
                                               const ParamCounts* params = nullptr,
                                               const ComponentPlan* plan = nullptr);

}  // namespace rigplan
