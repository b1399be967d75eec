// The memory terms of an LLM served by an engine (docs/inference.md): the KV cache in the
// engine's blocks and format, the activations of one prefill chunk, the logits the engine holds,
// and the engine's own overheads and budget. memory.cc calls these for inference runs.
#pragma once

#include <vector>

#include "rigplan/engine.h"
#include "rigplan/memory.h"
#include "rigplan/workload.h"

namespace rigplan {

// A resolved inference run of a transformer, per model replica.
struct InferenceShape {
  const TransformerConfig* t = nullptr;
  const Engine* engine = nullptr;
  const WeightFormat* format = nullptr;
  double kv_bits = 16;   // bits per cached key or value element
  double act_bytes = 2;  // bytes per activation element
  int batch = 1;         // sequences
  int seq = 1;           // prompt tokens
  int gen_tokens = 0;    // generated tokens
  int tp = 1, pp = 1;
  int ep = 1;              // expert parallel: GPUs whose tokens a GPU's experts take (DEP<ep>)
  double capacity_gb = 0;  // of one GPU, for the engine's GPU-dependent defaults
};

// Bytes of keys and values per cached token on one GPU: the layers of its pipeline stage and
// its share of the KV heads (a head is replicated when the tensor-parallel degree exceeds them).
double kv_bytes_per_token(const TransformerConfig& t, double kv_bits, int tp, int pp);

// Tokens a sequence of `tokens` occupies in the engine's cache: whole blocks.
double kv_tokens_held(const Engine& engine, double tokens);

// The KV cache, the activations of one prefill chunk, the logits and, for formats dequantized
// to 16 bit before use, the dequantized matrix, per GPU.
std::vector<MemoryTerm> inference_terms(const InferenceShape& s);

// The engine's fixed costs per GPU: fragmentation of `allocated_gb`, the CUDA context, captured
// CUDA graphs and, when a replica spans GPUs, communicator buffers.
std::vector<MemoryTerm> engine_overhead_terms(const Engine& engine, double allocated_gb,
                                              bool model_parallel);

// What the engine lets a run use of a GPU of `capacity_gb`: all of it, `utilization` of it
// (budget "total"), or everything but (1 - utilization) of what its weights and buffers leave
// (budget "free"); `fixed_gb` is the run's total without the KV cache.
double engine_available_gb(const Engine& engine, double utilization, double capacity_gb,
                           double fixed_gb);

}  // namespace rigplan
