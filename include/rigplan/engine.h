// Inference engines as data: how vLLM, SGLang, TensorRT-LLM, llama.cpp and PyTorch eager size
// their memory, cache keys and values, schedule prompts and decode, and the weight and KV-cache
// formats they run (data/engines/engines.toml, docs/inference.md). The loader produces these
// plain structs; the inference models never see TOML.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

// How an engine's MoE kernels multiply a weight format's experts on one kind of GPU, where
// that differs from its dense GEMMs ([[engine.expert_gemm]] in data/engines/engines.toml): the
// tensor rate the kernel runs at, which its activations' type sets (weight-only W4A16 kernels
// dequantize the weights to bf16; W4A8 multiplies FP4 weights with FP8 activations at the FP8
// rate), and the share of the engine's GEMM efficiency it reaches there, dequantization included.
struct ExpertGemm {
  std::string format;        // a weight format id
  std::string architecture;  // a calibration key: hopper-hbm, blackwell-hbm, ... (perf.h)
  std::string compute;       // fp16, bf16, fp8, int8, fp4
  double efficiency = 1;     // of the engine's GEMM efficiency at that rate
  std::string source;
  std::string fitted_on;  // the rows it was fitted to and held out on; empty when not fitted
  int line = 0;           // in its file
};

// A release (version and backend) of an engine whose attention or host time differs from the
// engine's default ([[engine.release]] in data/engines/engines.toml); a run names it as
// `id@version` ("tensorrt-llm@0.17") and gets the engine with these values in place of its own.
struct EngineRelease {
  std::string version;        // as the run names it after '@': "0.17"
  std::string backend;        // what runs the model in that release: "TensorRT engines"
  std::string sliding_reads;  // window, context (Engine::sliding_reads)
  // Engine::host_sequence_us in that release; none: the engine's.
  std::optional<double> host_sequence_us;
  std::string pipeline_host;  // Engine::pipeline_host in that release; empty: the engine's
  std::string source;
  int line = 0;  // in its file
};

// A host CPU that some GPUs only come with (a superchip's: GB200's Grace), and its
// single-thread speed relative to the x86 hosts of HGX and PCIe servers, which the engines'
// host times describe ([[host]] in data/engines/engines.toml). A GPU no host names is taken to
// sit in such an x86 server (speed 1).
struct HostCpu {
  std::string id;
  std::string name;
  std::vector<std::string> gpus;  // catalog GPU ids
  double single_thread = 1;       // host time on it is the engines' times divided by this
  std::string source;
  std::string fitted_on;  // the rows it was fitted to and held out on; empty when not fitted
  int line = 0;           // in its file
};

struct Engine {
  std::string id;  // pytorch, vllm, sglang, tensorrt-llm, llama.cpp
  // The release a run named (`id@release`); empty: the engine's own figures.
  std::string release;
  std::string name;
  std::vector<std::string> aliases;
  std::string version;  // the release its figures describe
  Date as_of;
  std::vector<std::string> stacks;  // cuda, rocm
  // Memory.
  std::string budget;  // total, free, none (see engines.toml)
  double memory_utilization = 1;
  double cuda_context_gb = 0;
  double fragmentation = 0;  // of the allocated total
  double nccl_buffers_gb = 0;
  double cuda_graph_gb = 0;
  // KV cache.
  std::string kv_reserve;  // request, context
  int kv_block_tokens = 1;
  std::vector<std::string> kv_formats;
  // What a sliding-window layer caches: "window" (each sequence's last window of tokens, in
  // whole blocks) or "pool" (a pool of sliding_pool_ratio tokens per token of the full layers'
  // pool, as SGLang's swa_full_tokens_ratio; 1: the whole context, as a full layer).
  std::string sliding_kv;
  double sliding_pool_ratio = 0;
  // The keys a sliding-window layer's attention kernel reads at decode and prefill: "window"
  // (the last window of tokens, as FlashAttention's window_size) or "context" (every cached
  // token, the old ones masked out but read and computed: transformers' SDPA, TensorRT-LLM's
  // TensorRT engines without max_attention_window). "context" needs the whole context cached.
  std::string sliding_reads;
  std::vector<EngineRelease> releases;  // where a release's attention differs from these
  // Scheduling.
  int prefill_chunk_tokens = 0;  // 0: the whole prompt in one step
  int prefill_chunk_tokens_small = 0;
  int max_seqs = 0;  // 0: no limit but memory
  int max_seqs_small = 0;
  // The engine's own option that sets max_seqs, as a user gives it ("--parallel" for llama.cpp's
  // slots); empty where not recorded.
  std::string max_seqs_flag;
  double large_gpu_gb = 0;  // GPUs with at least this much memory take the large defaults
  std::string logits_rows;  // batch, max-seqs, chunk: rows of fp32 logits held
  std::string split;        // tensor, layer: how --gpus N alone spreads one model
  std::string offload;      // pcie-stream, cpu-compute, none: what --offload cpu does
  std::vector<std::string> weight_formats;
  // Speed priors.
  bool cuda_graphs = false;
  // How a mixture of experts' projection runs: "grouped" (one kernel over the touched experts)
  // or "per-expert" (a loop launching each touched expert's GEMMs, as PyTorch eager does).
  std::string moe_kernel;
  double moe_expert_overhead_us = 0;  // host and launch time per touched expert per layer
  // How the grouped kernel tiles each expert's rows: "expert" (tiles fitted to its rows) or
  // "step" (one tile width for the step, from its token count; each expert's rows padded to it).
  std::string moe_tile;
  // How its dense GEMMs tile more than 64 rows: "choose" (the library's heuristics pick 64- or
  // 128-row tiles, whichever runs faster in its waves over the SMs) or "fixed" (128-row tiles,
  // the last one padded).
  std::string dense_tile = "choose";
  double moe_layer_overhead_us = 0;  // launches a MoE layer adds to a dense MLP's (routing)
  double moe_pick_overhead_us = 0;   // more per expert a token picks beyond its first
  // Memory traffic of the routing kernels outside the expert GEMMs, bytes per hidden-width
  // value: per routed copy of a token (gathering it to its expert, quantizing it for the GEMM,
  // weighting the expert's output), and per expert a token picks beyond its first (summing the
  // experts' outputs one add at a time). 0: fused into the GEMMs' operand loads and epilogues.
  double moe_copy_bytes = 0;
  double moe_pick_bytes = 0;
  // Launch time of a bias that the engine adds to a linear layer's output with a kernel of its
  // own (llama.cpp's ggml_add and ggml_add_id nodes), per bias and layer of the model; 0: the
  // GEMMs add their biases in their epilogues.
  double bias_add_us = 0;
  // Serves a mixture of experts with expert parallelism and attention data parallelism (--ep,
  // TensorRT-LLM's DEP<n>): each GPU runs attention for its own sequences, the experts split.
  bool expert_parallel = false;
  std::vector<ExpertGemm> expert_gemms;  // by format and architecture; none: as dense GEMMs
  double layer_overhead_us = 0;
  double step_overhead_ms = 0;
  // Host time per sequence in a step (scheduling, sampling and bookkeeping in the engine's
  // Python executor), on an x86 server's host; the engine prepares the next step while the GPU
  // runs this one, so a step takes the longer of the two. 0: none modelled.
  double host_sequence_us = 0;
  // Whether that host time still overlaps the GPUs' step when the layers are split over
  // pipeline stages (--pp): "overlap", or "serial" where the engine's pipeline loop has no
  // overlap scheduler, so a step takes the GPUs' time plus the host's.
  std::string pipeline_host = "overlap";
  double request_overhead_ms = 0;  // in the server, added to the time to first token
  double gemm_efficiency = 0;      // the four: required in data/engines/engines.toml
  double memory_efficiency = 0;
  double rocm_gemm_efficiency = 0;
  double rocm_memory_efficiency = 0;
  Provenance provenance;

  // The name a run gives to get this engine back: its id, or `id@release`.
  std::string run_name() const { return release.empty() ? id : id + "@" + release; }
  // The defaults that depend on the GPU's memory (GB, 1e9 bytes).
  int chunk_tokens(double gpu_memory_gb) const;
  int max_sequences(double gpu_memory_gb) const;
  bool runs(std::string_view weight_format) const;
  // How its MoE kernels run `weight_format`'s experts on GPUs of a calibration key (hopper-hbm);
  // nullptr: as its dense GEMMs run the format.
  const ExpertGemm* expert_gemm(std::string_view weight_format,
                                std::string_view architecture) const;
};

struct WeightFormat {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;
  double bits_per_weight = 16;
  std::string compute;           // fp32, fp16, fp16acc, bf16, fp8, int8, fp4
  std::string fallback_compute;  // where the GPU lacks `compute`
  std::string dequant;           // none, fused (in the kernel), separate (to 16 bit first)
  double dequant_efficiency = 1;
  double call_overhead_us = 0;  // host time per quantized linear call (bitsandbytes)
  std::string covers;           // all, linear, experts (a mixture of experts' MLPs only)
  std::string rest;             // covers "experts": the format of every other tensor; empty: 16 bit
  Provenance provenance;
};

struct KvFormat {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;
  double bits_per_element = 16;
  Provenance provenance;
};

class NameIndex;

class Engines {
 public:
  Engines();
  ~Engines();
  Engines(Engines&&) noexcept;
  Engines& operator=(Engines&&) noexcept;

  std::vector<Engine> engines;
  std::vector<WeightFormat> formats;
  std::vector<KvFormat> kv_formats;
  std::vector<HostCpu> hosts;

  // The host CPU a GPU only comes with; nullptr: an x86 server's (single-thread speed 1).
  const HostCpu* host_of(std::string_view gpu_id) const;
  // By id or alias, case-insensitively ("ollama" is llama.cpp), optionally with a release
  // after '@' ("tensorrt-llm@0.17": the engine with that release's values); an unknown name or
  // release is a kInvalidInput Status with the accepted ones and a "did you mean".
  Result<const Engine*> find_engine(std::string_view name) const;
  Result<const WeightFormat*> find_format(std::string_view name) const;
  Result<const KvFormat*> find_kv_format(std::string_view name) const;
  void build_indexes();

 private:
  std::unique_ptr<NameIndex> engine_index_, format_index_, kv_index_;
  // Each engine's releases as whole engines, in the order of `engines` and their releases.
  std::vector<Engine> release_engines_;
};

// The engines compiled into the binary (data/engines/*.toml), parsed once.
const Engines& embedded_engines();

// The engine a run uses when it names none: PyTorch to train (mode "train"), vLLM to infer.
std::string_view default_engine(std::string_view mode);
// The embedded engine files, for `catalog check`.
std::vector<CatalogFile> embedded_engine_files_list();

// Parses and checks engine files; every problem is reported as "file:line:column: message",
// including an engine that names a weight or KV format no file defines.
Result<Engines> load_engines(const std::vector<CatalogFile>& files);

}  // namespace rigplan
