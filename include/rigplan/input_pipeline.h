// The input pipeline: how many samples a machine's CPU decodes and augments per second with a
// data loader (PyTorch's DataLoader, DALI on the CPU, DALI with GPU decode), from the rates of
// data/pipeline/*.toml, and what that does to a training step: a step cannot run faster than the
// pipeline feeds it (docs/performance.md, "The input pipeline").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

struct Prediction;
struct RunConfig;

// A kind of training input the loaders' rates describe (imagenet-jpeg); a workload names the
// one it reads in its `input` field.
struct PipelineInput {
  std::string id;
  std::string name;
  // The zoo workload that stands for the input's training (resnet50): `build check` feeds the
  // build's GPUs at the speed they train it.
  std::string reference_workload;
  Date as_of;
  Provenance provenance;
};

// One data loader's rates on one input (data/pipeline/loaders.toml documents the fields).
struct Loader {
  std::string id;  // pytorch, pytorch-pillow-simd, dali, dali-gpu
  std::string name;
  std::vector<std::string> aliases;
  std::string input;                 // a PipelineInput id
  std::string decode;                // cpu, gpu
  double images_per_s_per_core = 0;  // at reference_clock_ghz
  double reference_clock_ghz = 0;
  double gpu_images_per_s = 0;  // decode = gpu: one GPU's decode ceiling; 0 otherwise
  Date as_of;
  Provenance provenance;
};

class NameIndex;

class InputPipelines {
 public:
  InputPipelines();
  ~InputPipelines();
  InputPipelines(InputPipelines&&) noexcept;
  InputPipelines& operator=(InputPipelines&&) noexcept;

  std::vector<PipelineInput> inputs;
  std::vector<Loader> loaders;

  // By id or alias, case-insensitively; an unknown name is a kInvalidInput Status with the
  // accepted ids and a "did you mean".
  Result<const Loader*> find_loader(std::string_view name) const;
  const PipelineInput* find_input(std::string_view id) const;
  void build_index();

 private:
  std::unique_ptr<NameIndex> index_;
};

// The pipelines compiled into the binary (data/pipeline/*.toml), parsed once.
const InputPipelines& embedded_input_pipelines();
// The embedded files, for `catalog check`.
std::vector<CatalogFile> embedded_pipeline_files_list();
// Parses and checks pipeline files; every problem is reported as "file:line:column: message",
// including a loader whose input no file defines.
Result<InputPipelines> load_input_pipelines(const std::vector<CatalogFile>& files);

// The machine's host as the pipeline sees it: its CPU, the sockets of it, and the loader.
struct HostSpec {
  const Cpu* cpu = nullptr;
  int cpu_count = 1;
  std::string loader = "pytorch";  // a loader id or alias
};

// The loader a run uses when it names none.
inline constexpr std::string_view kDefaultLoader = "pytorch";

// The host of --cpu NAME [--loader NAME]: nullopt without a CPU; a loader without a CPU, an
// unknown CPU or an unknown loader is a kInvalidInput Status with the accepted names. The
// loader defaults to kDefaultLoader. The loaders are embedded_input_pipelines(), read only
// when a CPU is named.
Result<std::optional<HostSpec>> host_spec(const Catalog& catalog, std::string_view cpu_name,
                                          std::string_view loader_name);

// What the pipeline of one machine feeds, against what its GPUs take.
struct PipelineEstimate {
  int machines = 1;            // of the run, each with the same CPU and its share of the GPUs
  std::string cpu;             // catalog id
  std::string loader;          // loader id
  std::string input;           // input id
  std::string decode;          // cpu, gpu
  std::string confidence;      // of the loader's row: cited, mixed, recall
  Date as_of;                  // of the loader's row
  int cores = 0;               // physical cores of all the CPUs
  int training_cores = 0;      // kept for the training processes, one per GPU
  int loader_cores = 0;        // left for the loader (at least 1; see shares_core)
  bool shares_core = false;    // fewer cores than GPUs + 1: the loader shares one
  double clock_scale = 1;      // the CPU's boost clock over the loader's reference clock
  double per_core = 0;         // images/s a core of this CPU delivers
  double cpu_rate = 0;         // images/s of all loader cores
  double gpu_decode_rate = 0;  // decode = gpu: images/s of all the GPUs' decoders; 0 otherwise
  double rate = 0;             // samples/s the pipeline feeds: the smaller of the two
  double demand = 0;   // samples/s the machine's GPUs take without it (the prediction before)
  bool bound = false;  // rate < demand: the run waits for its input
  // The cores (of this CPU's speed) that would feed the GPUs with this loader; 0 when no count
  // of cores does (a GPU decoder's ceiling is below the demand).
  int cores_to_lift = 0;
  // The first loader of the data, on these cores, that feeds the GPUs; empty when none does.
  std::string loader_to_lift;
};

// Images/s one core of `cpu` delivers with `loader`.
double per_core_rate(const Loader& loader, const Cpu& cpu);

// The pipeline of one machine against `demand` samples/s of its `gpus` GPUs, with `loader`.
PipelineEstimate estimate_pipeline(const Loader& loader, const Cpu& cpu, int cpu_count, int gpus,
                                   double demand, const InputPipelines& pipelines);

// Samples/s one GPU trains `input`'s reference workload at (the embedded zoo's, at its default
// precision and batch, or the largest batch that fits): what a loader must feed each GPU.
Result<double> reference_demand(const PipelineInput& input, const Gpu& gpu, const Catalog& catalog);

// How a host feeds a run: the pipeline of each of its machines, or why it is not modelled.
struct InputFeed {
  std::optional<PipelineEstimate> estimate;  // empty: not modelled, for `not_modelled`'s reason
  std::string not_modelled;
  double step_time_s = 0;  // the step with its input: the GPUs' step, or longer when input-bound
};

// The feed of a run of `workload` under `config` whose GPUs take `samples_per_step` samples every
// `step_time_s` seconds (> 0), as with_input_pipeline decides it, on those numbers alone
// (recommend ranks runs so).
Result<InputFeed> input_feed(const Workload& workload, const RunConfig& config,
                             double samples_per_step, double step_time_s, const HostSpec& host,
                             const InputPipelines& pipelines);

// The prediction with its input pipeline: for a training run of a workload that names an input,
// the step takes max(GPU step, samples per step / pipeline rate), and an input-bound run has
// bound "input" and a term "input_wait". A workload without an input, or a run that is not
// training, is returned with a note that its pipeline is not modelled. A run over several
// machines (more GPUs than the run's gpus_per_node, else 8: a machine is never a whole NVLink
// rack) has the CPU in each. A loader that is not one of the workload's input is a
// kInvalidInput Status.
Result<Prediction> with_input_pipeline(const Workload& workload, Prediction prediction,
                                       const HostSpec& host, const InputPipelines& pipelines);

}  // namespace rigplan
