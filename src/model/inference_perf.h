// The speed of an LLM served by an engine, per phase (docs/inference.md): chunked prefill,
// decode steps that read the weights once for the whole batch and the KV cache of every
// sequence, layer splits that run stages in turn or pipeline many streams, tensor-parallel
// all-reduces over the real link, and serving under continuous batching. perf.cc calls it for
// transformer inference.
#pragma once

#include "rigplan/engine.h"
#include "rigplan/perf.h"

namespace rigplan {

// A prediction for mode infer (= prefill), prefill, decode or serve of a transformer.
Result<Prediction> predict_inference(const Workload& workload, const Gpu& gpu,
                                     const Calibration& calibration, const Catalog& catalog,
                                     const RunFacts& facts);

// The efficiencies of an engine on a GPU: fitted for its calibration key where measured, else
// for another key of its generation, else the engine's GEMM prior for the GPU's software stack
// and the median memory efficiency of its fitted keys of that stack (the catalog says which
// stack a key's GPUs run; its memory prior where none is fitted).
EngineCalibration engine_efficiency(const Calibration& calibration, const Engine& engine,
                                    const Gpu& gpu, const Catalog& catalog);

}  // namespace rigplan
