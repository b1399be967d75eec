// Throughput of a workload on N GPUs of a kind: a per-operator roofline (docs/performance.md).
// Each operator's time is the larger of its FLOPs at the compute rate the precision uses and its
// bytes at the memory bandwidth, each scaled by an efficiency: a size-dependent GEMM efficiency
// (wave quantization over the SMs) times a per-architecture efficiency fitted to measurements.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/input_pipeline.h"
#include "rigplan/memory.h"
#include "rigplan/workload.h"

namespace rigplan {

// Fitted parameters of one GPU architecture generation (data/calibration/perf.toml).
// The defaults are the priors when no architecture is fitted at all: large GEMMs at 80% of the
// dense peak (the MAMF table of shared/data: 51-97%) and streaming kernels at 80% of the memory
// bandwidth (models.md section 1, Habitat's devices.yml: measured 0.68-0.85 of the datasheet's).
struct ArchCalibration {
  std::string architecture;
  double gemm_efficiency = 0.8;    // of the dense tensor (or FP32) peak, for large GEMMs
  double memory_efficiency = 0.8;  // of the memory bandwidth, for streaming kernels
  double tf32_efficiency = 1.0;    // extra factor for fp32 training on TF32 tensor cores
  std::string fitted_on;           // what the values were fitted to
  // For a key no measurement covers (Calibration::for_gpu): the class whose memory efficiency it
  // takes (hbm, gddr, geforce), or kMeanOfFitted; empty when the values are the key's own.
  std::string borrowed_from;
};
inline constexpr std::string_view kMeanOfFitted = "mean";

// How fast a measured workload's reference implementation runs against the operator model:
// measured / predicted throughput, the median over its measurements. It scales the operators'
// time and cancels in every ratio between GPUs; it sets the absolute level, which the operator
// model alone misses for implementations far from the roofline (Python-driven decoder loops,
// unfused kernels).
struct WorkloadCalibration {
  std::string workload;
  double efficiency = 1;
  int rows = 0;           // measurements behind it
  std::string fitted_on;  // what it was fitted to
  // The framework all its rows named (a FrameworkCalibration id); empty when they named none.
  // A run of another framework scales its speed by the ratio of the two levels.
  std::string framework;
};

// The speed a training framework's implementation reaches against the operator model
// ([[framework]] of data/calibration/perf.toml): the level of a workload that has no measured
// speed of its own (a measured workload's speed is its own implementation's, framework
// included). Fitted by `rigplan calibrate` on the rows of its stacks; the reference level,
// with no rows, is the one the operator model reaches (docs/performance.md, "Frameworks").
struct FrameworkCalibration {
  std::string framework;            // id: megatron, torchtitan, eager-fsdp
  std::vector<std::string> covers;  // the stacks it stands for, accepted as names of it
  double level = 1;                 // of the operator model's speed
  int rows = 0;                     // measurements behind it; 0: not fitted
  std::string fitted_on;            // what it was fitted to, or why it is what it is
  // How its model code runs a transformer layer's RMSNorm, rotary embedding and gated
  // activation without torch.compile: "fused" (one kernel each, as Transformer Engine's and
  // Apex's) or "decomposed" (PyTorch ops, each a kernel through FP32; docs/performance.md,
  // "Frameworks").
  std::string pointwise = "fused";
};
// The framework of a training run that names none.
inline constexpr std::string_view kDefaultFramework = "megatron";

// How far a software stack lags the silicon on one calibration key ([[maturity]] of
// data/calibration/perf.toml; docs/performance.md, "Software maturity"): a training run of the
// stack on a GPU of the key runs at `factor` of the speed the model gives it. The model's
// efficiencies describe a mature stack; a new architecture's kernels, libraries and scripts reach
// that later, and where measurements show a stack still behind, its factor says by how much.
struct StackMaturity {
  std::string architecture;  // a calibration key (calibration_key): blackwell-hbm
  // What runs the step: a [[framework]] id, or kReferenceStack, the reference implementations
  // whose measured rows named no framework (ResNet-50, BERT, GNMT, ... in their scripts).
  std::string stack;
  double factor = 1;       // of the model's speed, in (0, 1]
  std::string confidence;  // low, medium, high
  Date date;               // when it was set
  std::string fitted_on;   // how the factor was derived from the source
  std::string source;      // the measurement behind it
};
// The stack of a measured workload's reference implementation (its rows named no framework).
inline constexpr std::string_view kReferenceStack = "reference";

// Fitted efficiencies of an inference engine on one calibration key
// (data/calibration/inference.toml): fractions of the weight format's tensor rate and of the
// memory bandwidth its kernels reach.
struct EngineCalibration {
  std::string engine;
  std::string architecture;    // a calibration key
  double gemm_efficiency = 0;  // required in data/calibration/inference.toml
  double memory_efficiency = 0;
  int rows = 0;  // measurements behind it
  std::string fitted_on;
};

struct Calibration {
  std::vector<ArchCalibration> archs;
  std::vector<EngineCalibration> engines;
  std::vector<WorkloadCalibration> workloads;
  std::vector<FrameworkCalibration> frameworks;
  std::vector<StackMaturity> maturities;  // a key and stack at most once each
  // Error band of the absolute throughput per workload class (cnn, transformer, rnn, recsys): what
  // 68% of the leave-one-GPU-out single-GPU predictions stayed within.
  std::map<std::string, double, std::less<>> error_band;
  // The same of the leave-one-architecture-out predictions: the band of a GPU whose architecture
  // borrows another's efficiencies (for_gpu).
  std::map<std::string, double, std::less<>> borrowed_error_band;
  // The most of its dense tensor rate a GEMM on a GPU of each calibration key has been measured
  // to reach (data/calibration/gemm_ceiling.toml): the upper bound of a fitted gemm_efficiency.
  std::map<std::string, double, std::less<>> gemm_ceilings;
  std::string source;

  // The parameters of a calibration key (calibration_key); the prior (ArchCalibration's
  // defaults) for a key without its own.
  ArchCalibration for_arch(std::string_view key) const;
  // The parameters a GPU runs at: its calibration key's. A key no measurement covers (a new
  // architecture, such as Ada GeForce or Blackwell) takes the median GEMM and TF32 efficiencies
  // of all fitted keys, no higher than its own measured GEMM ceiling, and the median memory
  // efficiency of the fitted keys of its class (hbm, gddr, geforce), else the mean of all. Leave
  // one architecture out (`rigplan validate --loo-arch`) chose this rule: docs/performance.md.
  ArchCalibration for_gpu(const Gpu& gpu) const;
  // The fitted efficiency of a workload; 1 (the operator model alone) for one never measured.
  double workload_efficiency(std::string_view workload) const;
  // The gemm_ceilings bound of a key; 1 for a key no measurement covers.
  double gemm_ceiling(std::string_view key) const;
  // The framework `name` names, by its id or a stack it covers, in any case; empty names
  // kDefaultFramework. Another name is a kInvalidInput Status with the accepted names and a
  // "did you mean".
  Result<const FrameworkCalibration*> framework(std::string_view name) const;
  // The maturity of `stack` on calibration key `key`; nullptr where none is known to lag.
  const StackMaturity* maturity(std::string_view key, std::string_view stack) const;
};

const Calibration& embedded_calibration();
Result<Calibration> load_calibration(const std::vector<CatalogFile>& files);

// Serving under continuous batching (mode "serve", docs/inference.md), for the whole setup.
struct ServingPrediction {
  double ttft_ms = 0;  // time to the first token of a request
  double tpot_ms = 0;  // time per output token after the first
  double output_tokens_per_s = 0;
  double requests_per_s = 0;
  double concurrency = 0;   // sequences in flight per replica (mean)
  int max_concurrency = 0;  // the most the KV cache and the engine hold per replica
  int replicas = 1;
  bool saturated = false;  // the request rate is beyond what the setup serves
  std::string limited_by;  // what caps max_concurrency: kv-cache or the engine's max-seqs
  std::string load;        // how the load was set: max-load, concurrency, request-rate
  // The wait for a slot, in ttft_ms: the requests asked in flight beyond max_concurrency (load
  // concurrency) each wait for as many to finish ahead of them; at a request rate, an M/D/1
  // queue's mean wait. `queued`: the requests waiting per replica (0 at a request rate).
  int queued = 0;
  double queue_wait_ms = 0;
  // A finite run (RunConfig::requests; 0: an unending stream): its requests, and the seconds
  // from the first send to the last send and to the last completion. Its throughput is the
  // output tokens over `drained_s`; TTFT, TPOT and the wait are means over its requests, and
  // `queued` the most that waited for a slot at once, per replica.
  int requests = 0;
  double last_sent_s = 0;
  double drained_s = 0;
};

// Time of one class of operators in a step.
struct PerfTerm {
  std::string name;  // gemm, attention, elementwise, optimizer, communication, offload
  double seconds = 0;
  double flops = 0;
  double bytes = 0;
  std::string bound;  // compute/memory/l2/communication/capacity/pipeline/overhead/host/input
};

// What torch.compile (RunConfig::compile) or CUDA graphs changed in a training step against the
// same step in PyTorch eager, on one GPU: the kernels, their launch time, and the bytes the
// pointwise and normalization operators move (DRAM and L2).
struct CompileEffect {
  // The chains fused into one kernel each, by the names of their operators ("bn3 + add_relu").
  std::vector<std::string> fused;
  double eager_kernels = 0, kernels = 0;
  double eager_launch_s = 0, launch_s = 0;
  double eager_elementwise_bytes = 0, elementwise_bytes = 0;
  double eager_step_time_s = 0;
};

struct Prediction {
  // Defaults resolved. Training: config.framework is the framework whose level or measured rows
  // set the speed; empty when a measured workload's rows name none and the run named none.
  RunConfig config;
  double step_time_s = 0;
  double samples_per_step = 0;  // over all GPUs
  double throughput = 0;        // in `unit`, all GPUs
  std::string unit;             // tokens/s, images/s, sequences/s, ...
  std::string bound;            // compute, memory, communication, capacity
  double mfu = 0;               // model FLOPs / (step time × peak of all GPUs)
  double error_band = 0;  // relative, from held-out validation residuals of the workload class
  std::string workload_class;
  // Training: the speed of the implementation against the operator model, and where it comes
  // from: "workload" (the workload's measured speed) or "framework" (config.framework's level,
  // for a workload with no measured speed).
  double implementation_speed = 1;
  std::string speed_source;
  // Training: the software maturity of the run's stack on the GPU's calibration key, which
  // implementation_speed includes; none where the stack is not known to lag the silicon.
  std::optional<StackMaturity> maturity;
  std::vector<PerfTerm> terms;
  bool fits = true;
  // Training: the memory the run needs per GPU and what the GPU holds, in GB (1e9 bytes). A run
  // that does not fit (and is not offloaded with --offload cpu) has no throughput or step time:
  // `max_batch` is then the largest batch per GPU that fits (0: not even one), and
  // `fits_with` the changes that make batch 1 fit (estimate_memory's suggestions).
  double memory_gb = 0;
  double capacity_gb = 0;
  int max_batch = 0;
  std::vector<std::string> fits_with;
  std::string note;                          // e.g. why a run is offloaded or does not fit
  std::vector<std::string> warnings;         // of the memory estimate (run_warnings)
  std::optional<ServingPrediction> serving;  // mode serve
  // With a host CPU (with_input_pipeline): what the input pipeline feeds against what the GPUs
  // take; bound "input" when it is short.
  std::optional<PipelineEstimate> pipeline;
  // Training with --compile or --cuda-graphs, with its terms: against the eager step.
  std::optional<CompileEffect> compile;

  // Adds a clause to `note`, after a "; " where it has one.
  void add_note(std::string_view clause);
};

// How a training run's step is compiled, as answers say it: "torch.compile", "CUDA graphs",
// "torch.compile and CUDA graphs", or "" for PyTorch eager (RunConfig::compile, cuda_graphs).
std::string compiled_with(const RunConfig& run);
// --compile and --cuda-graphs model a training step in PyTorch: a run of another mode that asks
// for either is a kInvalidInput Status naming its engine instead (predict, recommend).
Status check_compile_mode(const RunConfig& run);

// mode "train": a training step; "infer"/"prefill": a forward pass over the prompt;
// "decode": one generated token per sequence. A malformed configuration is an error; a run
// that does not fit in memory is a prediction with `fits` false and bound "capacity": training
// runs have then no throughput, and say the largest batch that fits, unless the run asks for
// --offload cpu, which streams what does not fit from host memory over PCIe each step.
Result<Prediction> predict(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog);
// The operators of one step of a run, as the per-operator model times them on any GPU (perf.cc).
struct StepOperators;
// What a prediction needs that does not depend on the GPU. Callers that predict one workload and
// configuration on many GPUs (recommend) make it once and pass it to predict.
struct RunFacts {
  MemoryEstimate memory;  // estimate_memory without searches; only its total is used
  ParamCounts params;
  FlopCounts flops;  // at the configuration's batch and sequence
  std::string workload_class;
  // Made by run_facts for the per-operator model (not for an LLM served by an engine); immutable,
  // so copies of the facts share it. nullptr: predict makes them.
  std::shared_ptr<const StepOperators> operators;
};
// `gpu`: any GPU (the facts do not depend on it; estimate_memory needs one for its capacity).
Result<RunFacts> run_facts(const Workload& workload, const Gpu& gpu, const RunConfig& config);
Result<Prediction> predict(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog,
                           const RunFacts& facts);

// As predict, but a run whose batch does not fit runs at the largest batch per GPU that does
// when `shrink_batch` is set, as its owner would; when not even one fits, the prediction says so
// (or is offloaded, with --offload cpu).
Result<Prediction> predict_largest_fitting(const Workload& workload, const Gpu& gpu,
                                           const RunConfig& config, const Calibration& calibration,
                                           const Catalog& catalog, bool shrink_batch);

// The software a run needs, checked against the stack of its GPU's family (Family, data/catalog/
// families.toml): what does not run refuses the run, with what runs there instead; what runs
// only partly is said.
struct StackCheck {
  const Family* family = nullptr;  // nullptr: the catalog has no family for the GPU
  std::string partly;   // what of the run runs only partly there, and how; "" when nothing
  std::string refusal;  // why the run does not run there, and what does; "" when it does
};
// The software of a run as resolved (engine and formats set): its engine (training: pytorch) and
// bitsandbytes for QLoRA, NF4 weights, 8-bit and paged optimizers and PyTorch's int8 weights
// (LLM.int8()). FlashAttention is not needed: where it does not run, PyTorch's own fused
// attention stands in, so check_stack only says so for a transformer run in PyTorch.
std::vector<std::string> software_needed(const RunConfig& resolved);
// The stack check of a run on `gpu`, from its facts (run_facts): their configuration is the run
// as resolved, and the workload says whether it is a transformer.
StackCheck check_stack(const Workload& workload, const Gpu& gpu, const RunFacts& facts,
                       const Catalog& catalog);
// predict with the run's facts and its GPU's stack check made beforehand (run_facts and
// check_stack for this GPU): the same answer, for callers that predict one run under many
// calibrations (calibrate, validate --loo).
Result<Prediction> predict(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog,
                           const RunFacts& facts, const StackCheck& stack);
// "ROCm on AMD CDNA 2 (Instinct MI200), a less common stack than CUDA: runs pytorch, vllm;
// partly bitsandbytes; not tensorrt-llm (as of 2025-08-01, recall)".
std::string stack_summary(const Family& family);

// The calibration key of a GPU: its architecture and class, "ampere-hbm" (GA100),
// "ampere-gddr" (GA102 and smaller at full tensor rate) or "ampere-geforce" (FP32-accumulate
// tensor math at half rate): chips of one generation differ in caches, memory systems and what
// their 16-bit kernels reach against the rated peak.
std::string calibration_key(const Gpu& gpu);

// cnn, transformer, rnn or recsys.
std::string workload_class(const Workload& workload);

}  // namespace rigplan
