// GPU memory of a training or inference run: the breakdown by term, each with its formula,
// whether it fits, the largest batch that fits, and the fewest GPUs that would hold it.
// docs/memory.md derives every term.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

// The fine-tuning methods of RunConfig::method: full; LoRA; QLoRA (LoRA over NF4 weights);
// LLaMA-Adapter and LLaMA-Adapter v2 as LitGPT builds them (finetune_adapter, finetune_adapter_v2).
// docs/memory.md, "Fine-tuning methods".
inline constexpr std::string_view kFineTuneMethods[] = {"full", "lora", "qlora", "adapter",
                                                        "adapter-v2"};

// How a workload is run. Empty strings and zeros take the documented defaults.
struct RunConfig {
  std::string mode = "train";  // train, or inference: infer (= prefill), prefill, decode, serve
  std::string precision;       // fp32, tf32, fp16, bf16, fp8; default: the workload's
  std::string weights;         // storage of the weights: a format of data/engines (f16, bf16, fp32,
                               // fp8, int8, int4, nvfp4, nf4, q4_k_m, ...); default: per precision
  std::string method = "full";  // kFineTuneMethods
  // adamw, adam8bit, paged-adamw, paged-adamw8bit (bitsandbytes paged: host-pageable states),
  // sgd, sgd-momentum, adafactor
  std::string optimizer = "adamw";
  int lora_rank = 8;
  std::vector<std::string> lora_targets = {"q", "v"};  // q, k, v, o, gate, up, down, all
  bool pure_16bit = false;     // all state in 16-bit, no fp32 master copy (Lightning "bf16-true")
  std::optional<int> batch;    // per GPU; default: the workload's
  std::optional<int> seq_len;  // training sequence or prompt; default: the workload's
  int gen_tokens = 0;          // inference: tokens generated after the prompt (KV cache grows)
  bool checkpointing = false;
  bool flash_attention = true;
  int zero = 0;  // 0 none; 1 optimizer states, 2 + gradients, 3 + weights (FSDP full shard)
  int gpus = 1;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  // The parallel layout as Megatron-LM, NeMo and torchtitan run it (docs/scaleout.md); the
  // data-parallel degree is gpus / (tensor_parallel · pipeline_parallel · context_parallel).
  int context_parallel = 1;  // cp: each sequence split over this many GPUs (ring attention)
  int expert_parallel = 1;   // ep: a mixture of experts' experts split over this many GPUs
  int virtual_stages = 1;    // vp: model chunks per pipeline stage (interleaved 1F1B)
  // Sequences per pipeline micro-batch and per optimizer step over every data-parallel replica;
  // default: the batch is one micro-batch, as without a pipeline.
  std::optional<int> micro_batch;
  std::optional<int> global_batch;
  bool sequence_parallel = false;  // Megatron SP: norms and dropout split over the TP GPUs
  // none; optimizer: the optimizer state and fp32 master weights in host RAM (ZeRO-Offload);
  // cpu: that, and the weights too with zero 3 (ZeRO-Infinity, FSDP CPUOffload).
  std::string offload = "none";
  // Fine-tuning as the tools run it (docs/memory.md, "Fine-tuning"); a recipe sets these.
  std::string recompute;  // none, selective, selective-op, full; default: per `checkpointing`
  bool activation_offload = false;     // saved activations streamed to host memory
  bool optimizer_in_backward = false;  // each gradient applied and freed as the backward makes it
  // The loss reads the logits in this many chunks, upcasting one chunk at a time to fp32
  // (torchtune: 8); 0: a fused kernel that never upcasts them (unsloth, Liger).
  int loss_chunks = 1;
  int grad_accum = 1;  // micro-batches per optimizer step
  // Models made of components (diffusion: unet or transformer, text encoders, vae): the ones
  // trained (default: the workload's, the UNet or transformer) and the frozen ones whose outputs
  // were computed before training (cached latents, precomputed text embeddings), so that they
  // are not in GPU memory.
  std::vector<std::string> train_components, cached_components;
  // ZeRO-3/FSDP: the checkpoint is loaded as a full state dict into the sharded model, which
  // materializes the unsharded weights on every GPU beside its shard (PyTorch FSDP
  // FULL_STATE_DICT loading, as LitGPT's 2024 fine-tuning scripts did). The peak is the larger
  // of that load and a training step.
  bool full_state_load = false;
  // GPU-to-GPU link for several GPUs: pcie, nvlink-bridge, nvswitch; default: the GPU's own
  // (gpu_link), PCIe when it has none.
  std::string link;
  // Machines of several GPUs: the GPUs of one node, a machine or cloud instance whose GPUs the
  // GPU-to-GPU link joins (--gpus-per-node; none: the GPU's NVLink domain, nvlink_domain_gpus, as
  // a GB200 NVL72 rack's 72, else an HGX node's 8; links.h node_gpus; never more than the GPU's
  // NVLink domain), and the network between machines, GB/s per GPU and direction (none: one 200
  // Gbit/s NIC per GPU, perf_constants.h kNetworkGbpsPerGpu). recommend sets them from a rented
  // offer's instance.
  std::optional<int> gpus_per_node;
  std::optional<double> network_gbps_per_gpu;
  // The network between machines as a catalog interconnect of the infiniband or ethernet family
  // (ib-hdr, ib-ndr, eth-400g, ...) and the GPUs that share one of its ports (1: a rail per GPU,
  // as DGX and HGX nodes are cabled). Default: ib-hdr, one per GPU (docs/scaleout.md). An
  // offer's network_gbps_per_gpu wins over both.
  std::string fabric;
  int gpus_per_nic = 1;
  // Throughput of a run known to have run (a measurement): skip the offload penalty even when
  // the memory model says it does not fit.
  bool known_to_fit = false;
  // Training: the software that runs the step, a [[framework]] of data/calibration/perf.toml by
  // its id or a stack it covers (megatron: Megatron-LM, NeMo, Megatron-Core; eager-fsdp:
  // torchtitan, llm-foundry, PyTorch FSDP). Its level sets the speed of a workload that has no
  // measured speed of its own (docs/performance.md, "Frameworks"). Default: kDefaultFramework.
  std::string framework;
  // Training under torch.compile (TorchInductor): each chain of pointwise and normalization
  // operators between two GEMMs, convolutions or attention kernels runs as one fused kernel that
  // reads the chain's input once and writes its output once (docs/performance.md,
  // "torch.compile"). Default: PyTorch eager, a kernel for each operator.
  bool compile = false;
  // The step's kernels replayed from a CUDA graph (torch.compile mode="reduce-overhead",
  // torch.cuda.graphs): no host launch per kernel.
  bool cuda_graphs = false;

  // Inference (docs/inference.md). The engine that runs it, an id or alias of data/engines
  // (pytorch, vllm, sglang, tensorrt-llm, llama.cpp, ollama); default: pytorch for training,
  // vllm for inference. `seq_len` is the prompt, `gen_tokens` the tokens generated after it and
  // `batch` the sequences of one model replica (serve: those in flight; default: the most the
  // KV cache holds).
  std::string engine;
  std::string kv_cache;                      // KV-cache format: auto, fp8, int8, q8_0, q4_0
  std::optional<int> max_seqs;               // the most sequences decoded together
  std::optional<double> request_rate;        // serve: requests per second, per setup
  std::optional<double> memory_utilization;  // vLLM --gpu-memory-utilization and the like
  // serve: a benchmark's finite run of this many requests, sent at the request rate, or `batch`
  // outstanding at a time, or else as many outstanding as the KV cache holds, and timed until
  // the last finishes; empty: an unending stream (docs/inference.md, "Finite runs").
  std::optional<int> requests;

  // The recipe whose settings the run took (rigplan/recipe.h, apply_recipe), named in the
  // answers; empty: none.
  std::string recipe;
};

struct MemoryTerm {
  std::string name;     // weights, gradients, optimizer, master_weights, activations, ...
  double gb = 0;        // 1e9 bytes, per GPU
  std::string formula;  // symbolic
  std::string values;   // the formula with the numbers filled in
};

struct MemoryEstimate {
  RunConfig config;  // with defaults resolved
  std::vector<MemoryTerm> terms;
  // What the run keeps in host memory instead: offloaded state, paged optimizer state (in GPU
  // memory while it has room, paged out when it runs short). Not part of total_gb.
  std::vector<MemoryTerm> host_terms;
  double host_gb = 0;
  // full: every parameter; LoRA: r·(in + out) per targeted matrix; adapters: adapter_params
  double trainable_params = 0;
  double allocated_gb = 0;  // sum of the tensor terms (what max_memory_allocated reports)
  double total_gb = 0;      // + allocator fragmentation + CUDA context: what the GPU must hold
  double capacity_gb = 0;   // the GPU's memory in GB (1e9 bytes)
  bool fits = false;
  double headroom_gb = 0;  // capacity - total (negative: short by that much)
  int max_batch = 0;       // largest batch per GPU that fits (0: not even one)
  int max_seq_len = 0;     // transformers: longest sequence (context) that fits at this batch
  int min_gpus = 0;        // fewest GPUs that hold it (training: ZeRO-3; inference: split layers);
                           // 0: not within 1024
  std::vector<std::string> suggestions;  // when it does not fit: changes that make it fit
  std::vector<std::string> warnings;     // computed as asked, but unusual (run_warnings)
  // Inference: what the engine lets the run use (its memory_utilization of the GPU, or all of it),
  // the room left there for the KV cache, and the most sequences of seq + gen_tokens tokens
  // the room holds, within the engine's limit.
  double available_gb = 0;
  double kv_room_gb = 0;
  int max_sequences = 0;
  // Of those: the sequences the room holds before the engine's limit, that limit (the engine's
  // max_seqs or --max-seqs; 0: none), and the engine's own option for it ("--parallel").
  int kv_sequences = 0;
  int engine_max_sequences = 0;
  std::string max_seqs_flag;
  std::vector<std::string> notes;  // defaults the estimate assumed (engine, split), one each
};

// A malformed configuration (zero batch, negative rank, unknown precision) is a kInvalidInput
// Status naming the option and the accepted values. Not fitting is a result, not an error.
// `with_searches` = false skips max_batch, max_seq_len, min_gpus and suggestions (left 0/empty),
// for callers that only need the breakdown and whether it fits.
Result<MemoryEstimate> estimate_memory(const Workload& workload, const Gpu& gpu,
                                       const RunConfig& config, bool with_searches = true);

// What is computed as asked but deserves a word, one sentence each: a sequence beyond the model's
// context.
std::vector<std::string> run_warnings(const Workload& workload, const RunConfig& config);

// kInvalidInput when a parallel layout does not split a transformer whole: the tensor-parallel
// degree must divide its attention heads and key/value heads, the pipeline-parallel degree its
// layers. For inference (`replicate_kv`), a degree that divides the attention heads may also be
// a multiple of the key/value heads: the engines replicate them. estimate_memory checks it;
// callers that choose a layout use it to pick one that does.
Status check_layout(const Workload& workload, int tensor_parallel, int pipeline_parallel,
                    bool replicate_kv = false);

// kInvalidInput unless `link` is empty, "pcie" or one of the catalog's GPU-to-GPU links (the
// gpu_link field of docs/catalog.md). estimate_memory and predict check it.
Status check_link(std::string_view link);

// The GPU's memory in GB (1e9 bytes): the marketed figure converted as the driver reports it.
// An estimate's terms do not depend on the GPU, only this capacity: callers that weigh one
// configuration on many GPUs estimate it once and compare its total with each capacity.
double capacity_gb(const Gpu& gpu);

// Bits per weight of a storage format of data/engines (nf4: 4.5 with its fp32 block scales),
// nullopt if unknown.
std::optional<double> bits_per_weight(std::string_view format);

}  // namespace rigplan
