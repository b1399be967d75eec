// Fine-tuning recipes: the defaults of the tools people fine-tune with (torchtune, LitGPT,
// PEFT + TRL, Unsloth, Axolotl, DeepSpeed ZeRO-3, FSDP-QLoRA) as data (data/recipes/), each
// with its source. A recipe sets the run options it names; options given explicitly win.
// docs/memory.md, "Recipes", sets each recipe's terms beside the tool's published numbers.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/memory.h"
#include "rigplan/status.h"

namespace rigplan {

struct Recipe {
  std::string id;           // torchtune-lora-single-device, fsdp-qlora, ...
  std::string tool;         // torchtune, litgpt, peft-trl, unsloth, axolotl, deepspeed, fsdp-qlora
  std::string name;         // one line
  std::string devices;      // single (one GPU) or multi (sharded over several)
  std::string config_file;  // the tool's file or script the defaults come from
  std::string as_of;        // when the source was read, YYYY-MM
  std::string model;        // the zoo workload its config was written for; empty: any LLM
  RunConfig run;            // the settings below, in a run
  std::vector<std::string> keys;  // the run settings the recipe sets (RunConfig field names)
  Provenance provenance;
};

const std::vector<Recipe>& embedded_recipes();
// Parses recipe files; every problem is reported as "file:line:column: message".
Result<std::vector<Recipe>> load_recipes(const std::vector<CatalogFile>& files);

// A recipe by id, or by tool name: the tool's recipe for the method given explicitly (else its
// first), on one GPU or several as `gpus` says. Unknown names list the ids with a suggestion.
Result<const Recipe*> find_recipe(const std::vector<Recipe>& recipes, std::string_view name,
                                  const std::string& method, bool method_given, int gpus);

// `given` with the recipe's settings applied, except those in `explicit_keys` (RunConfig field
// names, as in the recipe files) which keep their given value. A single-device recipe asked for
// several GPUs is a kInvalidInput Status naming the tool's multi-GPU recipe.
Result<RunConfig> apply_recipe(const Recipe& recipe, const RunConfig& given,
                               std::span<const std::string> explicit_keys,
                               const std::vector<Recipe>& all);

// The run a command line or an API request describes: `run` as given, where --tp, --pp and --cp
// without --gpus (`gpus_given` false) make one replica of that split, tp x pp x cp GPUs, as the
// engines' --tensor-parallel-size does (degrees out of range are left for check_layout to
// refuse), then the recipe named (none: "") applied under the settings given explicitly
// (`explicit_keys`, RunConfig field names; "method" among them picks the tool's recipe for it).
Result<RunConfig> resolve_run_options(RunConfig run, bool gpus_given, const std::string& recipe,
                                      std::span<const std::string> explicit_keys);

// The RunConfig field names a recipe may set, for documentation and the CLI's option mapping.
std::vector<std::string_view> recipe_run_keys();

}  // namespace rigplan
