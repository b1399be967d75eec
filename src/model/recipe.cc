// Recipes as data (data/recipes/*.toml), decoded with the catalog's strict field tables.
#include "rigplan/recipe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "catalog/entry_files.h"
#include "catalog/toml_decode.h"
#include "model/recompute_policy.h"
#include "model/run_fields.h"
#include "rigplan/input.h"
#include "util/embedded_file.h"

namespace rigplan {

const std::vector<FieldSpec<RunConfig>>& run_config_fields() {
  using R = RunConfig;
  constexpr bool kOptional = false;
  static const std::vector<FieldSpec<R>> kFields = {
      {"mode", &R::mode, kOptional, "", {"train", "infer", "prefill", "decode", "serve"}},
      {"precision",
       &R::precision,
       kOptional,
       "",
       {"fp32", "tf32", "fp16", "bf16", "fp8", "mxfp8", "nvfp4"}},
      {"weights", &R::weights, kOptional},
      {"method",
       &R::method,
       kOptional,
       "",
       {std::begin(kFineTuneMethods), std::end(kFineTuneMethods)}},
      {"optimizer",
       &R::optimizer,
       kOptional,
       "",
       {"adamw", "adam8bit", "paged-adamw", "paged-adamw8bit", "sgd", "sgd-momentum", "adafactor"}},
      {"lora_rank", &R::lora_rank, kOptional, "", {}, input::kLoraRank.range()},
      {"lora_targets",
       &R::lora_targets,
       kOptional,
       "",
       {"q", "k", "v", "o", "gate", "up", "down", "all"}},
      {"pure_16bit", &R::pure_16bit, kOptional},
      {"batch", &R::batch, kOptional, "", {}, input::kBatch.range()},
      {"seq_len", &R::seq_len, kOptional, "", {}, input::kSeq.range()},
      {"gen_tokens", &R::gen_tokens, kOptional, "", {}, input::kGenTokens.range()},
      {"checkpointing", &R::checkpointing, kOptional},
      {"recompute",
       &R::recompute,
       kOptional,
       "",
       {std::begin(recompute_policy::kPolicies), std::end(recompute_policy::kPolicies)}},
      {"activation_offload", &R::activation_offload, kOptional},
      {"optimizer_in_backward", &R::optimizer_in_backward, kOptional},
      {"loss_chunks", &R::loss_chunks, kOptional, "", {}, input::kLossChunks.range()},
      {"grad_accum", &R::grad_accum, kOptional, "", {}, input::kGradAccum.range()},
      {"flash_attention", &R::flash_attention, kOptional},
      {"compile", &R::compile, kOptional},
      {"cuda_graphs", &R::cuda_graphs, kOptional},
      {"zero", &R::zero, kOptional, "", {}, input::kZero.range()},
      {"offload", &R::offload, kOptional, "", {"none", "optimizer", "cpu"}},
      {"full_state_load", &R::full_state_load, kOptional},
      {"train_components", &R::train_components, kOptional},
      {"cached_components", &R::cached_components, kOptional},
      {"tp", &R::tensor_parallel, kOptional, "", {}, {1, 1024, true}},
      {"pp", &R::pipeline_parallel, kOptional, "", {}, {1, 1024, true}},
      // Inference (data/engines): checked against the engine files when the run is resolved.
      {"engine", &R::engine, kOptional},
      {"kv_cache", &R::kv_cache, kOptional},
      {"max_seqs", &R::max_seqs, kOptional, "", {}, {1, 1e6, true}},
  };
  return kFields;
}

namespace {

using namespace toml_decode;

struct RecipeRecord {
  std::string id, tool, name, devices, config_file, as_of, model;
};

const std::vector<FieldSpec<RecipeRecord>>& recipe_fields() {
  using R = RecipeRecord;
  constexpr bool kRequired = true, kOptional = false;
  static const std::vector<FieldSpec<R>> kFields = {
      {"id", &R::id, kRequired},
      {"tool",
       &R::tool,
       kRequired,
       "",
       {"torchtune", "litgpt", "peft-trl", "unsloth", "axolotl", "deepspeed", "fsdp-qlora",
        "diffusers", "ai-toolkit"}},
      {"name", &R::name, kRequired},
      {"devices", &R::devices, kRequired, "", {"single", "multi"}},
      {"config_file", &R::config_file, kRequired},
      {"as_of", &R::as_of, kRequired},
      {"model", &R::model, kOptional},
  };
  return kFields;
}

template <class T>
std::vector<std::string_view> keys_of(const std::vector<FieldSpec<T>>& fields) {
  std::vector<std::string_view> out;
  for (const auto& f : fields) out.push_back(f.key);
  return out;
}

void decode_recipe(RawEntry raw, Problems& problems, std::vector<Recipe>& out) {
  const EntryContext ctx("recipe", raw, problems);
  RecipeRecord record;
  std::vector<std::string_view> also = keys_of(run_config_fields());
  also.insert(also.end(), std::begin(kProvenanceKeys), std::end(kProvenanceKeys));
  decode_fields(ctx, raw.table, recipe_fields(), record, also);
  Recipe recipe{record.id,
                record.tool,
                record.name,
                record.devices,
                record.config_file,
                record.as_of,
                record.model,
                {},
                {},
                {}};
  std::vector<std::string_view> present;
  for (auto&& [k, v] : raw.table) present.push_back(k.str());
  // Unknown keys are reported by the first pass only.
  decode_fields(ctx, raw.table, run_config_fields(), recipe.run, present);
  for (const auto& f : run_config_fields()) {
    if (raw.table.get(f.key)) recipe.keys.emplace_back(f.key);
  }
  decode_provenance(ctx, run_config_fields(), recipe.provenance);
  recipe.provenance.file = raw.table.source().path ? *raw.table.source().path : "";
  recipe.provenance.line = static_cast<int>(raw.table.source().begin.line);
  if (recipe.keys.empty()) ctx.error("", "a recipe sets at least one run setting");
  for (const auto& r : out) {
    if (ctx.read_well({"id"}) && r.id == recipe.id) ctx.error("id", "duplicate recipe id");
  }
  out.push_back(std::move(recipe));
}

// Copies the field `key` of `from` into `to`.
void copy_field(std::string_view key, const RunConfig& from, RunConfig& to) {
  for (const auto& f : run_config_fields()) {
    if (f.key != key) continue;
    std::visit([&](auto member) { to.*member = from.*member; }, f.member);
  }
}

}  // namespace

std::vector<std::string_view> recipe_run_keys() { return keys_of(run_config_fields()); }

Result<std::vector<Recipe>> load_recipes(const std::vector<CatalogFile>& files) {
  Problems problems;
  std::vector<Recipe> out;
  static constexpr std::string_view kSections[] = {"recipe"};
  for_each_entry(files, kSections, problems, [&](std::string_view, RawEntry raw) {
    decode_recipe(std::move(raw), problems, out);
  });
  if (!problems.empty()) return problems.to_status();
  return out;
}

const std::vector<Recipe>& embedded_recipes() {
  // Parsed once; the embedded recipes are checked by the tests, so a failure is a programming
  // error.
  static const std::vector<Recipe> kRecipes = [] {
    auto loaded = load_recipes(catalog_files(embedded_recipe_files()));
    if (!loaded) throw std::runtime_error(loaded.status().message());
    return std::move(loaded).value();
  }();
  return kRecipes;
}

Result<const Recipe*> find_recipe(const std::vector<Recipe>& recipes, std::string_view name,
                                  const std::string& method, bool method_given, int gpus) {
  std::vector<std::string> names;
  const Recipe* first = nullptr;
  const Recipe* best = nullptr;
  for (const auto& r : recipes) {
    if (r.id == name) return &r;
    names.push_back(r.id);
    if (r.tool != name) continue;
    if (!first) first = &r;
    const bool method_ok = !method_given || r.run.method == method;
    const bool devices_ok = (r.devices == "single") == (gpus == 1);
    if (method_ok && devices_ok && !best) best = &r;
  }
  if (best) return best;
  if (first) {
    // The tool has no recipe for this method and device count: say which it has.
    std::vector<std::string> ids;
    for (const auto& r : recipes) {
      if (r.tool == name) ids.push_back(r.id);
    }
    return Status::invalid_input(
        fmt::format("--recipe {}: no {} recipe for {}{} on {}; its recipes are {}", name, name,
                    method_given ? "--method " : "the default method", method_given ? method : "",
                    gpus == 1 ? "one GPU" : fmt::format("{} GPUs", gpus), quoted_list(ids)));
  }
  for (const auto& r : recipes) {
    if (std::find(names.begin(), names.end(), r.tool) == names.end()) names.push_back(r.tool);
  }
  return Status::invalid_input(fmt::format("unknown recipe '{}'; expected {}{}", shown(name),
                                           quoted_list(names),
                                           did_you_mean(std::string(name), names)));
}

Result<RunConfig> apply_recipe(const Recipe& recipe, const RunConfig& given,
                               std::span<const std::string> explicit_keys,
                               const std::vector<Recipe>& all) {
  if (recipe.devices == "single" && given.gpus > 1) {
    std::vector<std::string> multi;
    for (const auto& r : all) {
      if (r.tool == recipe.tool && r.devices == "multi") multi.push_back(r.id);
    }
    return Status::invalid_input(fmt::format(
        "recipe '{}' runs on one GPU, not {}{}", recipe.id, given.gpus,
        multi.empty() ? std::string()
                      : fmt::format("; for several GPUs use {}", quoted_list(multi, "or"))));
  }
  RunConfig out = given;
  out.recipe = recipe.id;
  for (const auto& key : recipe.keys) {
    if (std::find(explicit_keys.begin(), explicit_keys.end(), key) != explicit_keys.end()) continue;
    copy_field(key, recipe.run, out);
  }
  // A recipe that checkpoints names its policy; an explicit --checkpointing or --recompute
  // replaces both.
  const bool policy_given =
      std::find(explicit_keys.begin(), explicit_keys.end(), "checkpointing") !=
          explicit_keys.end() ||
      std::find(explicit_keys.begin(), explicit_keys.end(), "recompute") != explicit_keys.end();
  if (policy_given) {
    out.checkpointing = given.checkpointing;
    out.recompute = given.recompute;
  }
  // Quantized weights belong to QLoRA: an explicit --method other than qlora drops them.
  const bool method_given =
      std::find(explicit_keys.begin(), explicit_keys.end(), "method") != explicit_keys.end();
  const bool weights_given =
      std::find(explicit_keys.begin(), explicit_keys.end(), "weights") != explicit_keys.end();
  if (method_given && !weights_given && given.method != recipe.run.method) out.weights.clear();
  return out;
}

Result<RunConfig> resolve_run_options(RunConfig run, bool gpus_given, const std::string& recipe,
                                      std::span<const std::string> explicit_keys) {
  const std::int64_t layout = static_cast<std::int64_t>(run.tensor_parallel) *
                              run.pipeline_parallel * std::max(1, run.context_parallel);
  if (!gpus_given && run.gpus == 1 && run.tensor_parallel >= 1 && run.pipeline_parallel >= 1 &&
      input::kGpus.accepts(static_cast<double>(layout)))
    run.gpus = static_cast<int>(layout);
  if (recipe.empty()) return run;
  const auto& recipes = embedded_recipes();
  const bool method_given =
      std::find(explicit_keys.begin(), explicit_keys.end(), "method") != explicit_keys.end();
  auto found = find_recipe(recipes, recipe, run.method, method_given, run.gpus);
  if (!found) return found.status();
  return apply_recipe(**found, run, explicit_keys, recipes);
}

}  // namespace rigplan
