#include "cli/cli_context.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>

#include "catalog/catalog_image.h"
#include "rigplan/gpu_link.h"
#include "rigplan/input.h"
#include "rigplan/recipe.h"
#include "util/strings.h"
#include "workload/zoo_image.h"

namespace rigplan::cli {

std::string default_overlay_dir() {
  if (const char* dir = std::getenv("RIGPLAN_OVERLAY"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/rigplan/overlay";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.config/rigplan/overlay";
  }
  return "";
}

Result<CliContext::CatalogSources> CliContext::overlay_sources() const {
  CatalogSources found;
  // An explicit --overlay must exist; the default location is used only when present.
  const bool explicit_overlay = !overlay_dir.empty();
  found.overlay_dir = explicit_overlay ? overlay_dir : default_overlay_dir();
  std::error_code ec;
  if (explicit_overlay ||
      (!found.overlay_dir.empty() && std::filesystem::is_directory(found.overlay_dir, ec))) {
    auto files = read_catalog_dir(found.overlay_dir);
    if (!files) return files.status();
    found.overlay = std::move(files).value();
  }
  return found;
}

Result<std::vector<CatalogFile>> CliContext::base_sources() const {
  if (catalog_dir.empty()) return embedded_catalog();
  return read_catalog_dir(catalog_dir, /*required=*/true);
}

Result<CliContext::CatalogSources> CliContext::catalog_sources() const {
  auto found = overlay_sources();
  if (!found) return found.status();
  auto base = base_sources();
  if (!base) return base.status();
  found->base = std::move(base).value();
  return found;
}

Result<std::shared_ptr<const Catalog>> CliContext::load() const {
  if (shared_catalog) return shared_catalog;
  auto sources = overlay_sources();
  if (!sources) return sources.status();
  // The embedded catalog alone is read from its image, checked when the binary was built;
  // --catalog and overlays are parsed and checked now.
  auto catalog = [&]() -> Result<Catalog> {
    if (catalog_dir.empty() && sources->overlay.empty())
      return read_catalog_image(embedded_catalog_image());
    auto base = base_sources();
    if (!base) return base.status();
    return load_catalog(*base, sources->overlay);
  }();
  if (!catalog) return catalog.status();
  shared_catalog = std::make_shared<const Catalog>(std::move(catalog).value());
  return shared_catalog;
}

Result<std::string> read_text_file(const std::string& path) { return input::read_file(path); }

Status write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!(out << text)) return Status::io_error(fmt::format("{}: cannot write the file", path));
  return {};
}

Result<std::shared_ptr<const Zoo>> CliContext::load_zoo() const {
  if (shared_zoo) return shared_zoo;
  // The embedded zoo alone is read from its image, checked when the binary was built; with
  // --workloads, the embedded files and the user's are parsed and checked together now.
  auto zoo = [&]() -> Result<Zoo> {
    if (workloads_dir.empty()) return read_zoo_image(embedded_zoo_image());
    auto mine = read_catalog_dir(workloads_dir, /*required=*/true);
    if (!mine) return mine.status();
    std::vector<CatalogFile> files = embedded_workloads();
    files.insert(files.end(), mine->begin(), mine->end());
    return rigplan::load_zoo(files);
  }();
  if (!zoo) return zoo.status();
  shared_zoo = std::make_shared<const Zoo>(std::move(zoo).value());
  return shared_zoo;
}

namespace {

// A workload by name from the zoo, or imported from a Hugging Face config.json.
Result<Workload> named_workload(const Zoo& zoo, const std::string& name,
                                const std::string& hf_config) {
  if (!hf_config.empty()) {
    if (!name.empty()) {
      return Status::invalid_input("give a workload name or --hf-config FILE, not both");
    }
    auto text = read_text_file(hf_config);
    if (!text) return text.status();
    return import_hf_config(hf_config, *text);
  }
  if (name.empty())
    return Status::invalid_input(
        "name a workload (`rigplan workloads list`) or give --hf-config FILE");
  auto found = zoo.find(name);
  if (!found) return found.status();
  return **found;
}

}  // namespace

Result<Workload> CliContext::resolve_workload(const Zoo& zoo, const std::string& name,
                                              const std::string& hf_config,
                                              std::optional<int> resolution) const {
  auto workload = named_workload(zoo, name, hf_config);
  if (!workload || !resolution) return workload;
  return at_resolution(*workload, *resolution);
}

Result<CliContext::RunInputs> CliContext::load_run_inputs(const std::string& name,
                                                          const std::string& hf_config,
                                                          std::optional<int> resolution) const {
  auto catalog = load();
  if (!catalog) return catalog.status();
  auto zoo = load_zoo();
  if (!zoo) return zoo.status();
  auto workload = resolve_workload(**zoo, name, hf_config, resolution);
  if (!workload) return workload.status();
  return RunInputs{std::move(catalog).value(), std::move(zoo).value(), std::move(workload).value()};
}

Result<CliContext::MeasurementInputs> CliContext::load_measurement_inputs(
    const std::string& path) const {
  auto catalog = load();
  if (!catalog) return catalog.status();
  auto zoo = load_zoo();
  if (!zoo) return zoo.status();
  auto text = read_text_file(path);
  if (!text) return text.status();
  return MeasurementInputs{std::move(catalog).value(), std::move(zoo).value(),
                           std::move(text).value()};
}

namespace {
// The options add_run_options adds that describe the run (not which workload).
constexpr std::string_view kRunOptions[] = {"--recipe",
                                            "--mode",
                                            "--precision",
                                            "--weights",
                                            "--method",
                                            "--optimizer",
                                            "--lora-rank",
                                            "--lora-targets",
                                            "--pure-16bit",
                                            "--batch",
                                            "--seq",
                                            "--checkpointing",
                                            "--recompute",
                                            "--activation-offload",
                                            "--optimizer-in-backward",
                                            "--loss-chunks",
                                            "--grad-accum",
                                            "--zero",
                                            "--offload",
                                            "--full-state-load",
                                            "--tp",
                                            "--pp",
                                            "--cp",
                                            "--ep",
                                            "--vp",
                                            "--micro-batch",
                                            "--global-batch",
                                            "--sequence-parallel",
                                            "--link",
                                            "--train-components",
                                            "--cached-components",
                                            "--resolution",
                                            "--engine",
                                            "--gen-tokens",
                                            "--kv-cache",
                                            "--max-seqs",
                                            "--request-rate",
                                            "--requests",
                                            "--gpu-memory-utilization"};

// The inference options of a run: engine, lengths, KV cache, serving load.
void add_inference_options(CLI::App* cmd, RunConfig& run) {
  cmd->add_option("--engine", run.engine,
                  "Inference engine: pytorch, vllm, sglang, tensorrt-llm, llama.cpp, ollama, "
                  "or a release as ID@VERSION, tensorrt-llm@0.17 (default: pytorch to train, "
                  "vllm for inference; `rigplan engines list`)");
  cmd->add_option("--gen-tokens,--output-len", run.gen_tokens,
                  "Inference: tokens generated after the prompt");
  cmd->add_option("--kv-cache", run.kv_cache, "KV-cache format: auto, fp8, int8, q8_0, q4_0");
  cmd->add_option("--max-seqs", run.max_seqs,
                  "Inference: the most sequences decoded together (default: the engine's)");
  cmd->add_option("--request-rate", run.request_rate,
                  "--mode serve: requests per second (default: as many sequences as fit)");
  cmd->add_option("--requests", run.requests,
                  "--mode serve: a finite run of this many requests, timed until the last "
                  "finishes, as a benchmark sends them (default: an unending stream)");
  cmd->add_option("--gpu-memory-utilization", run.memory_utilization,
                  "Share of each GPU the engine claims (default: the engine's, vLLM 0.9)");
}

}  // namespace

bool is_run_option(std::string_view name) {
  return std::find(std::begin(kRunOptions), std::end(kRunOptions), name) != std::end(kRunOptions);
}

// The options of a run's precision, method and memory savings.
void add_training_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option(
      "--precision", o.run.precision,
      "fp32, tf32, fp16, bf16, fp8; training also mxfp8, nvfp4 (default: the workload's)");
  cmd->add_option("--weights", o.run.weights,
                  "Weight format: f16, bf16, fp32, fp8, int8, int4 (awq, gptq), nvfp4, mxfp4, nf4, "
                  "nf4-dq, q4_0, q4_k_m, q5_k_m, q6_k, q8_0");
  cmd->add_option("--method", o.run.method,
                  "full, lora, qlora, adapter or adapter-v2 (LitGPT's LLaMA-Adapter and v2)")
      ->capture_default_str();
  cmd->add_option("--optimizer", o.run.optimizer,
                  "adamw, adam8bit, paged-adamw, paged-adamw8bit, sgd, sgd-momentum, adafactor")
      ->capture_default_str();
  cmd->add_option("--lora-rank", o.run.lora_rank, "LoRA rank")->capture_default_str();
  cmd->add_option("--lora-targets", o.lora_targets,
                  "Comma-separated: q,k,v,o,gate,up,down or all (default q,v)");
  cmd->add_option("--train-components", o.train_components,
                  "Diffusion models: the components trained, comma-separated (default: the UNet "
                  "or transformer; e.g. unet,text_encoder for DreamBooth)");
  cmd->add_option("--cached-components", o.cached_components,
                  "Diffusion models: frozen components whose outputs were precomputed (cached "
                  "latents, text embeddings), so not in GPU memory, e.g. text_encoder_2,vae");
  cmd->add_option("--resolution", o.resolution,
                  "Image models: the input resolution in pixels (default: the workload's, e.g. "
                  "1024 for SDXL and Flux)");
  cmd->add_flag("--pure-16bit", o.run.pure_16bit,
                "All state in 16 bit, no fp32 master copy (\"bf16-true\")");
  cmd->add_option("--batch,--concurrency", o.run.batch,
                  "Batch per GPU (default: the workload's); inference: sequences per model "
                  "replica, in flight when serving (default: as many as fit)");
  cmd->add_option("--seq,--input-len", o.run.seq_len,
                  "Sequence length; inference: prompt tokens (default: the workload's)");
  cmd->add_flag("--checkpointing", o.run.checkpointing,
                "Activation checkpointing of every layer (recomputes the forward)");
  cmd->add_option("--recompute", o.run.recompute,
                  "none, selective (Megatron-LM: the attention core), selective-op (torchtitan's "
                  "per-op policy: every other matmul and the elementwise ops) or full (= "
                  "--checkpointing)");
  cmd->add_flag("--activation-offload", o.run.activation_offload,
                "Saved activations streamed to host memory (torchtune, unsloth)");
  cmd->add_flag("--optimizer-in-backward", o.run.optimizer_in_backward,
                "Apply and free each gradient as the backward pass makes it");
  cmd->add_option("--loss-chunks", o.run.loss_chunks,
                  "The loss upcasts the logits to fp32 in this many chunks (0: a fused kernel)")
      ->capture_default_str();
  cmd->add_option("--grad-accum", o.run.grad_accum, "Micro-batches per optimizer step")
      ->capture_default_str();
  cmd->add_option("--zero", o.run.zero, "ZeRO stage 0-3 (3 = FSDP full shard)");
  cmd->add_option("--offload", o.run.offload,
                  "none, optimizer (ZeRO-Offload) or cpu (optimizer, and the weights with --zero "
                  "3)");
  cmd->add_flag("--full-state-load", o.run.full_state_load,
                "ZeRO-3/FSDP: the checkpoint loaded as a full state dict (LitGPT)");
}

// The options of how a run is spread: sharding, offload, parallel degrees and the link.
void add_parallel_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--tp", o.run.tensor_parallel, "Tensor-parallel degree");
  cmd->add_option("--pp", o.run.pipeline_parallel, "Pipeline-parallel degree");
  cmd->add_option("--cp", o.run.context_parallel,
                  "Context-parallel degree: each sequence split over this many GPUs");
  cmd->add_option("--ep", o.run.expert_parallel,
                  "Expert-parallel degree (mixtures of experts); inference: attention data "
                  "parallel over the same GPUs, TensorRT-LLM's DEP<n> (with --tp 1)");
  cmd->add_option("--vp", o.run.virtual_stages,
                  "Virtual pipeline stages: model chunks per stage (interleaved 1F1B)");
  cmd->add_option("--micro-batch", o.run.micro_batch,
                  "Sequences per pipeline micro-batch (default: the batch is one micro-batch)");
  cmd->add_option("--global-batch", o.run.global_batch,
                  "Sequences per optimizer step over every data-parallel replica (sets --batch)");
  cmd->add_flag("--sequence-parallel", o.run.sequence_parallel,
                "Megatron sequence parallelism: norms and dropout split over the TP GPUs");
  cmd->add_option("--link", o.run.link,
                  fmt::format("pcie, {} or {} (default: the GPU's link)",
                              fmt::join(kNvlinkKinds, ", "), kInfinityFabric));
}

void add_framework_option(CLI::App* cmd, RunConfig& run) {
  cmd->add_option(
      "--framework", run.framework,
      "Training framework: megatron (Megatron-LM, NeMo), torchtitan (FSDP2) or "
      "eager-fsdp (llm-foundry, composer, PyTorch FSDP): its level sets the speed of a "
      "workload with no measured speed of its own (default: eager-fsdp with --zero 3, else "
      "megatron; a measured workload runs under its rows' framework; "
      "docs/performance.md)");
}

void add_compile_options(CLI::App* cmd, RunConfig& run) {
  cmd->add_flag("--compile", run.compile,
                "Training under torch.compile (TorchInductor): chains of pointwise and norm "
                "operators fused into one kernel each (docs/performance.md, \"torch.compile\")");
  cmd->add_flag("--cuda-graphs", run.cuda_graphs,
                "Training with the step's kernels replayed from a CUDA graph (torch.compile "
                "mode=\"reduce-overhead\"): no host launch per kernel");
}

void add_run_options(CLI::App* cmd, RunOptions& o, const CliContext& ctx) {
  o.cmd = cmd;
  o.command_line = &ctx.command_line;
  cmd->add_option("workload", o.workload, "Zoo id or name (`rigplan workloads list`)");
  cmd->add_option("--hf-config", o.hf_config,
                  "A Hugging Face config.json instead of a zoo workload");
  cmd->add_option("--recipe", o.recipe,
                  "A fine-tuning tool's defaults (data/recipes/): a recipe id or a tool name "
                  "(torchtune, litgpt, peft-trl, unsloth, axolotl, deepspeed, fsdp-qlora); options "
                  "given here win");
  cmd->add_option("--mode", o.run.mode, "train, infer, prefill, decode or serve")
      ->capture_default_str();
  add_inference_options(cmd, o.run);
  add_training_options(cmd, o);
  add_parallel_options(cmd, o);
}

namespace {

// Whether a CLI11 option has a long name ("--batch"), as CLI::Option::check_name finds it without
// copying the name for each option (the options here match case and underscores exactly).
bool has_long_name(const CLI::Option& opt, std::string_view option) {
  if (!option.starts_with("--")) return false;
  const std::string_view name = option.substr(2);
  const auto& names = opt.get_lnames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// An alias (--concurrency for --batch, --input-len for --seq, --output-len for --gen-tokens) is
// refused as typed, before the run's checks name the value by its field.
Status check_typed_aliases(const RunOptions& o, std::span<const CLI::Option* const> given) {
  if (!o.command_line || !o.cmd) return {};
  for (const CLI::Option* opt : given) {
    const std::string typed = typed_name(*opt, *o.command_line);
    const input::NumberField* field = number_field(*o.cmd, *opt);
    if (!field || opt->results().empty() || typed == fmt::format("--{}", field->name)) continue;
    const std::string& text = opt->results().back();
    if (const std::string why = number_text_problem(*field, text); !why.empty())
      return Status::invalid_input(fmt::format("{} {} {}", typed, text, why));
  }
  return {};
}

// --request-rate is the load of --mode serve, and --concurrency another one: a rate given with
// another mode, or with a concurrency, would be ignored without a word; so would --requests in
// another mode.
Status check_serving_load(const RunConfig& run, bool concurrency_given) {
  if (run.requests && run.mode != "serve") {
    return Status::invalid_input(fmt::format(
        "--requests {} is a finite run of --mode serve; this run's mode is {} (give --mode serve, "
        "or leave --requests out)",
        *run.requests, run.mode));
  }
  if (!run.request_rate) return {};
  const std::string rate = format_number(*run.request_rate);
  if (run.mode != "serve") {
    return Status::invalid_input(fmt::format(
        "--request-rate {} is the load of --mode serve; this run's mode is {} (give --mode serve, "
        "or leave --request-rate out)",
        rate, run.mode));
  }
  if (concurrency_given) {
    return Status::invalid_input(fmt::format(
        "--request-rate {} and --concurrency {} each set the load of --mode serve: the rate finds "
        "the sequences in flight that serve it, --concurrency holds that many in flight; give one "
        "of them",
        rate, run.batch.value_or(0)));
  }
  return {};
}
}  // namespace

Result<RunConfig> run_config(const RunOptions& o) {
  RunConfig run = o.run;
  if (!o.lora_targets.empty()) run.lora_targets = split(o.lora_targets, ',');
  if (!o.train_components.empty()) run.train_components = split(o.train_components, ',');
  if (!o.cached_components.empty()) run.cached_components = split(o.cached_components, ',');
  // The RunConfig field each option sets, for the options a recipe may set.
  static const std::pair<const char*, const char*> kOptionKeys[] = {
      {"--mode", "mode"},
      {"--precision", "precision"},
      {"--weights", "weights"},
      {"--method", "method"},
      {"--optimizer", "optimizer"},
      {"--lora-rank", "lora_rank"},
      {"--lora-targets", "lora_targets"},
      {"--pure-16bit", "pure_16bit"},
      {"--batch", "batch"},
      {"--seq", "seq_len"},
      {"--gen-tokens", "gen_tokens"},
      {"--checkpointing", "checkpointing"},
      {"--recompute", "recompute"},
      {"--activation-offload", "activation_offload"},
      {"--optimizer-in-backward", "optimizer_in_backward"},
      {"--loss-chunks", "loss_chunks"},
      {"--grad-accum", "grad_accum"},
      {"--no-flash", "flash_attention"},
      {"--compile", "compile"},
      {"--cuda-graphs", "cuda_graphs"},
      {"--zero", "zero"},
      {"--offload", "offload"},
      {"--full-state-load", "full_state_load"},
      {"--train-components", "train_components"},
      {"--cached-components", "cached_components"}};
  // The command's options read in one pass: the few given, and whether it has --gpus.
  std::vector<const CLI::Option*> given_options;
  bool has_gpus = false;
  if (o.cmd) {
    for (const CLI::Option* opt : o.cmd->get_options()) {
      has_gpus = has_gpus || has_long_name(*opt, "--gpus");
      if (opt->count() > 0) given_options.push_back(opt);
    }
  }
  const auto given = [&](std::string_view option) {
    return std::any_of(given_options.begin(), given_options.end(),
                       [option](const CLI::Option* opt) { return has_long_name(*opt, option); });
  };
  if (Status s = check_typed_aliases(o, given_options); !s.ok()) return s;
  if (Status s = check_serving_load(run, given("--batch")); !s.ok()) return s;
  std::vector<std::string> explicit_keys;
  for (const auto& [option, key] : kOptionKeys) {
    if (given(option)) explicit_keys.emplace_back(key);
  }
  // A command without --gpus (memory, train-plan) counts as given: its run keeps 1 GPU.
  return resolve_run_options(std::move(run), !has_gpus || given("--gpus"), o.recipe, explicit_keys);
}

Result<WorkloadRun> resolve_run(const CliContext& ctx, const Zoo& zoo, const RunOptions& o) {
  auto workload = ctx.resolve_workload(zoo, o.workload, o.hf_config, o.resolution);
  if (!workload) return workload.status();
  auto run = run_config(o);
  if (!run) return run.status();
  return WorkloadRun{std::move(workload).value(), *run};
}

namespace {

// Fields that share their command-line name with another field, and the commands that take
// them; the other commands take the first field of the name in all_number_fields().
constexpr std::pair<std::string_view, const input::NumberField*> kCommandFields[] = {
    {"cost", &input::kMachineGpus},
    {"cost", &input::kBusyHoursPerMonth},
    {"build propose", &input::kBuildBudget},
    {"offers list", &input::kMaxHourlyPrice},
};

// The subcommands down to `command`: "build propose".
std::string command_path(const CLI::App& command) {
  std::vector<std::string> names = {command.get_name()};
  for (const CLI::App* up = command.get_parent(); up && up->get_parent(); up = up->get_parent())
    names.insert(names.begin(), up->get_name());
  return join(names, " ");
}

// 1000 rather than 1e+03: a whole number as an integer.
std::string whole(double value) { return fmt::format("{:.0f}", value); }

// The whole numbers nearest a fraction that `field` accepts: " (did you mean 2 or 3?)".
std::string nearest_whole(const input::NumberField& field, double value) {
  std::vector<std::string> near;
  for (const double v : {std::floor(value), std::ceil(value)}) {
    if (field.accepts(v)) near.push_back(whole(v));
  }
  if (near.empty()) return "";
  return fmt::format(" (did you mean {}?)", fmt::join(near, " or "));
}

// `text` read whole as a number; none when any of it is not part of one.
std::optional<double> read_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// Whether `text` is digits in groups of three after the first, 4,096 or 1_000_000, not a
// decimal comma (1,5).
bool digit_groups(const std::string& text) {
  size_t run = 0;
  bool grouped = false;
  for (const char c : text) {
    if (c == ',' || c == '_') {
      if (run == 0 || run > 3 || (grouped && run != 3)) return false;
      grouped = true;
      run = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      ++run;
    } else {
      return false;
    }
  }
  return grouped && run == 3;
}

}  // namespace

const input::NumberField* number_field(const CLI::App& command, const CLI::Option& option) {
  const auto& names = option.get_lnames();
  if (names.empty()) return nullptr;
  const std::string path = command_path(command);
  for (const auto& [name, field] : kCommandFields) {
    if (name == path && field->name == names.front()) return field;
  }
  for (const input::NumberField* field : input::all_number_fields()) {
    if (field->name == names.front()) return field;
  }
  return nullptr;
}

std::string typed_name(const CLI::Option& option, const std::vector<std::string>& args) {
  const auto& names = option.get_lnames();
  for (auto arg = args.rbegin(); arg != args.rend(); ++arg) {
    if (!arg->starts_with("--")) continue;
    const std::string name = arg->substr(2, arg->find('=') - 2);
    if (std::find(names.begin(), names.end(), name) != names.end()) return "--" + name;
  }
  return option.get_name();
}

std::string number_text_problem(const input::NumberField& field, const std::string& text) {
  const std::optional<double> value = read_number(text);
  if (!value) {
    // Digit groups, 4,096 or 4_096, are the number without them.
    std::string digits = text;
    std::erase_if(digits, [](char c) { return c == ',' || c == '_'; });
    const std::optional<double> grouped = digit_groups(text) ? read_number(digits) : std::nullopt;
    return fmt::format("is not a number; expected {}{}", field.accepted(),
                       grouped && field.accepts(*grouped)
                           ? fmt::format(" (did you mean {}?)", format_number(*grouped))
                           : "");
  }
  std::string why = input::problem(field, *value);
  if (why.empty() || !field.integer || !std::isfinite(*value) || *value == std::trunc(*value))
    return why;
  return why + nearest_whole(field, *value);
}

Date today() {
  // RIGPLAN_TODAY=YYYY-MM-DD fixes the date (price ages, report dates) so that an answer can be
  // reproduced later; the golden tests set it. main() refuses a value that is not a date.
  if (const char* fixed = std::getenv("RIGPLAN_TODAY"); fixed && *fixed) {
    if (const auto date = Date::parse(fixed)) return *date;
  }
  const auto now = std::chrono::system_clock::now();
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(now)};
  return {static_cast<int>(ymd.year()), static_cast<int>(static_cast<unsigned>(ymd.month())),
          static_cast<int>(static_cast<unsigned>(ymd.day()))};
}

int CliContext::fail(const Status& status) const {
  *err << "rigplan: " << status.message() << "\n";
  return status.is_user_error() ? kExitBadInput : kExitInternal;
}

void CliContext::print_json(const report::Json& value) const {
  // Inputs are checked to be UTF-8 where they enter; should a byte slip through, it prints as
  // U+FFFD rather than failing the whole answer.
  *out << value.dump(2, ' ', false, report::Json::error_handler_t::replace) << "\n";
}

Progress::Progress(const CliContext& ctx, std::string what) : what_(std::move(what)) {
  if (ctx.err == &std::cerr && ::isatty(STDERR_FILENO)) err_ = ctx.err;
}

Progress::~Progress() {
  if (err_) *err_ << "\r\033[K" << std::flush;  // clear the line
}

void Progress::operator()(size_t done, size_t total) {
  if (err_) *err_ << fmt::format("\rrigplan: {} {}/{}", what_, done, total) << std::flush;
}

bool CliContext::emit_html(const std::string& file, const std::string& html) {
  if (file == "-") {
    *out << html;
    return true;
  }
  if (Status s = write_text_file(file, html); !s.ok()) {
    exit_code = fail(s);
    return true;
  }
  *err << "rigplan: wrote " << file << "\n";
  return false;
}

}  // namespace rigplan::cli
