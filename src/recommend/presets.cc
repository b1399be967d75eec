// Presets: Dettmers' personas as data (data/presets/*.toml), decoded with the catalog's strict
// field tables so a typo is reported with its file, line and a suggestion.
#include <fmt/format.h>

#include "catalog/entry_files.h"
#include "catalog/toml_decode.h"
#include "model/run_fields.h"
#include "rigplan/input.h"
#include "rigplan/recipe.h"
#include "rigplan/recommend.h"
#include "util/embedded_file.h"

namespace rigplan {
namespace {

using namespace toml_decode;

// A [[preset]] table as written, before its tasks and constraints are assembled.
struct PresetRecord {
  std::string id, name, description, dettmers_pick, dettmers_source;
  std::string reference_gpu = "rtx-4090";
  std::optional<double> hours_per_month, work, budget_usd, utilisation, max_power_w;
  // A serving job (docs/recommend.md): requests/s, latency targets, hours a month up.
  std::optional<double> serve_rate, max_ttft_ms, max_tpot_ms, serve_hours;
  std::string region = "us", acquire = "both", condition = "any", circuit, system;
  double horizon_months = 36;
  int max_gpus = 8;
  std::vector<std::string> gpus_allowed;
  std::vector<std::string> have;  // the GPUs the persona owns (--have)
};

struct TaskRecord {
  std::string workload;
  double share = 1;
  std::string recipe;  // a recipe id or tool name (data/recipes/); the task's own settings win
  std::optional<int> resolution;
  RunConfig run;
};

const std::vector<FieldSpec<PresetRecord>>& preset_fields() {
  using P = PresetRecord;
  constexpr bool kRequired = true, kOptional = false;
  static const std::vector<FieldSpec<P>> kFields = {
      {"id", &P::id, kRequired},
      {"name", &P::name, kRequired},
      {"description", &P::description, kRequired},
      // Serving personas have no counterpart in the guide.
      {"dettmers_pick", &P::dettmers_pick, kOptional},
      {"dettmers_source", &P::dettmers_source, kOptional},
      {"reference_gpu", &P::reference_gpu, kOptional},
      {"hours_per_month", &P::hours_per_month, kOptional, "h", {}, input::kHoursPerMonth.range()},
      {"work", &P::work, kOptional, "", {}, input::kWork.range()},
      {"serve_rate", &P::serve_rate, kOptional, "requests/s", {}, input::kServeRate.range()},
      {"max_ttft_ms", &P::max_ttft_ms, kOptional, "ms", {}, input::kMaxTtftMs.range()},
      {"max_tpot_ms", &P::max_tpot_ms, kOptional, "ms", {}, input::kMaxTpotMs.range()},
      {"serve_hours", &P::serve_hours, kOptional, "h", {}, input::kServeHours.range()},
      {"budget_usd", &P::budget_usd, kOptional, "USD", {}, input::kBudget.range()},
      {"utilisation", &P::utilisation, kOptional, "", {}, input::kUtilisation.range()},
      {"max_power_w", &P::max_power_w, kOptional, "W", {}, input::kMaxPower.range()},
      {"region", &P::region, kOptional},
      {"acquire", &P::acquire, kOptional, "", {"own", "rent", "both"}},
      {"condition", &P::condition, kOptional, "", {"new", "used", "any"}},
      {"circuit", &P::circuit, kOptional},
      {"system", &P::system, kOptional},
      {"horizon_months",
       &P::horizon_months,
       kOptional,
       "months",
       {},
       input::kHorizonMonths.range()},
      {"max_gpus", &P::max_gpus, kOptional, "", {}, input::kMaxGpus.range()},
      {"gpus_allowed", &P::gpus_allowed, kOptional},
      {"have", &P::have, kOptional},
  };
  return kFields;
}

// A task reads its run settings straight into a RunConfig (model/run_fields.h).
const std::vector<FieldSpec<TaskRecord>>& task_fields() {
  using T = TaskRecord;
  constexpr bool kRequired = true, kOptional = false;
  static const std::vector<FieldSpec<T>> kFields = {
      {"workload", &T::workload, kRequired},
      {"share", &T::share, kOptional, "", {}, input::kShare.range()},
      {"recipe", &T::recipe, kOptional},
      {"resolution", &T::resolution, kOptional, "px", {}, input::kResolution.range()},
  };
  return kFields;
}

template <class T>
std::vector<std::string_view> keys_of(const std::vector<FieldSpec<T>>& fields) {
  std::vector<std::string_view> out;
  for (const auto& f : fields) out.push_back(f.key);
  return out;
}

Preset assemble(const PresetRecord& r) {
  Preset p;
  p.id = r.id;
  p.name = r.name;
  p.description = r.description;
  p.dettmers_pick = r.dettmers_pick;
  p.dettmers_source = r.dettmers_source;
  p.hours_per_month = r.hours_per_month;
  p.work = r.work;
  if (r.serve_rate) {
    p.serving = ServingJob{*r.serve_rate, r.max_ttft_ms, r.max_tpot_ms,
                           r.serve_hours.value_or(ServingJob{}.hours_per_month)};
  }
  p.reference_gpu = r.reference_gpu;
  Constraints& c = p.constraints;
  c.budget_usd = r.budget_usd;
  c.region = r.region;
  c.horizon_months = r.horizon_months;
  c.utilisation = r.utilisation;
  c.acquire = r.acquire;
  c.condition = r.condition;
  c.max_power_w = r.max_power_w;
  c.circuit = r.circuit;
  c.max_gpus = r.max_gpus;
  c.gpus_allowed = r.gpus_allowed;
  c.have = r.have;
  c.system = r.system;
  return p;
}

// The task's recipe under the run settings the task writes itself.
void apply_task_recipe(const toml::table& table, const EntryContext& ctx, TaskRecord& task) {
  std::vector<std::string> given;
  for (const auto& f : run_config_fields()) {
    if (table.get(f.key)) given.emplace_back(f.key);
  }
  const bool method_given = table.get("method") != nullptr;
  const auto& recipes = embedded_recipes();
  auto recipe = find_recipe(recipes, task.recipe, task.run.method, method_given, task.run.gpus);
  if (!recipe) return ctx.error("recipe", recipe.status().message());
  auto run = apply_recipe(**recipe, task.run, given, recipes);
  if (!run) return ctx.error("recipe", run.status().message());
  task.run = std::move(run).value();
}

// One job size; a serving job's targets only with its rate, its one task served. Each rule runs
// only when the fields it reads read well (EntryContext::read_well; `modes_read`: every task's
// mode): a size written as text is not stored, and is reported once, by its field.
void check_job(const EntryContext& ctx, const PresetRecord& r, const Preset& p, bool modes_read) {
  if (ctx.read_well({"hours_per_month", "work", "serve_rate"}) &&
      p.hours_per_month.has_value() + p.work.has_value() + p.serving.has_value() != 1) {
    ctx.error("", "a preset needs one of 'hours_per_month', 'work' or 'serve_rate'");
  }
  if (ctx.read_well({"serve_rate", "max_ttft_ms", "max_tpot_ms", "serve_hours"}) && !r.serve_rate &&
      (r.max_ttft_ms || r.max_tpot_ms || r.serve_hours)) {
    ctx.error("serve_rate", "'max_ttft_ms', 'max_tpot_ms' and 'serve_hours' need 'serve_rate'");
  }
  if (p.serving && modes_read && ctx.read_well({"serve_rate"}) &&
      (p.tasks.size() != 1 || p.tasks[0].run.mode != "serve")) {
    ctx.error("serve_rate", "a serving preset has one task, with mode = \"serve\"");
  }
}

// The [[preset.task]] tables of a preset; false when a task's mode could not be read.
bool decode_tasks(const EntryContext& ctx, const RawEntry& raw, Preset& preset) {
  const auto* tasks = raw.table.get_as<toml::array>("task");
  if (!tasks || !tasks->is_array_of_tables() || tasks->empty()) {
    ctx.error("", "a preset needs at least one [[preset.task]]");
    return true;
  }
  bool modes_read = true;
  for (auto&& t : *tasks) {
    const toml::table& table = *t.as_table();
    const EntryContext sub = ctx.within(table, fmt::format("task {}", preset.tasks.size() + 1));
    TaskRecord task;
    // Unknown keys are reported by the first pass only.
    std::vector<std::string_view> present;
    for (auto&& [k, v] : table) present.push_back(k.str());
    decode_fields(sub, table, task_fields(), task, keys_of(run_config_fields()));
    decode_fields(sub, table, run_config_fields(), task.run, present);
    modes_read = modes_read && sub.read_well({"mode"});
    // A recipe is chosen by its tool and the task's method: not by a method already reported.
    if (!task.recipe.empty() && sub.read_well({"recipe", "method"})) {
      apply_task_recipe(table, sub, task);
    }
    if (Status s = check_compile_mode(task.run);
        !s.ok() && sub.read_well({"mode", "compile", "cuda_graphs"})) {
      sub.error(task.run.compile ? "compile" : "cuda_graphs", s.message());
    }
    preset.tasks.push_back({task.workload, task.run, task.share, task.resolution});
  }
  return modes_read;
}

void decode_preset(const RawEntry& raw, Problems& problems, std::vector<Preset>& out) {
  const EntryContext ctx("preset", raw, problems);
  PresetRecord record;
  const std::string_view also[] = {"task"};
  decode_fields(ctx, raw.table, preset_fields(), record, also);
  Preset preset = assemble(record);
  const bool modes_read = decode_tasks(ctx, raw, preset);
  check_job(ctx, record, preset, modes_read);
  for (const auto& p : out) {
    if (ctx.read_well({"id"}) && p.id == preset.id) ctx.error("id", "duplicate preset id");
  }
  out.push_back(std::move(preset));
}

}  // namespace

Result<std::vector<Preset>> load_presets(const std::vector<CatalogFile>& files) {
  Problems problems;
  std::vector<Preset> out;
  static constexpr std::string_view kSections[] = {"preset"};
  for_each_entry(files, kSections, problems,
                 [&](std::string_view, const RawEntry& raw) { decode_preset(raw, problems, out); });
  if (!problems.empty()) return problems.to_status();
  return out;
}

const std::vector<Preset>& embedded_presets() {
  // Parsed once; the embedded presets are checked by the tests, so a failure is a programming
  // error.
  static const std::vector<Preset> kPresets = [] {
    auto loaded = load_presets(catalog_files(embedded_preset_files()));
    if (!loaded) throw std::runtime_error(loaded.status().message());
    return std::move(loaded).value();
  }();
  return kPresets;
}

Result<const Preset*> find_preset(const std::vector<Preset>& presets, std::string_view id) {
  std::vector<std::string> ids;
  for (const auto& p : presets) {
    if (p.id == id) return &p;
    ids.push_back(p.id);
  }
  return Status::invalid_input(fmt::format("unknown preset '{}'; expected {}{}", shown(id),
                                           quoted_list(ids), did_you_mean(std::string(id), ids)));
}

Result<Demand> preset_demand(const Preset& preset, const Zoo& zoo) {
  Demand d;
  d.hours_per_month = preset.hours_per_month;
  d.work = preset.work;
  d.serving = preset.serving;
  d.reference_gpu = preset.reference_gpu;
  for (const auto& t : preset.tasks) {
    auto w = zoo.find(t.workload);
    if (!w) {
      return Status::invalid_input(fmt::format("preset '{}': {}", preset.id, w.status().message()));
    }
    if (!t.resolution) {
      d.tasks.push_back({**w, t.run, t.share});
      continue;
    }
    auto sized = at_resolution(**w, *t.resolution);
    if (!sized) {
      return Status::invalid_input(
          fmt::format("preset '{}': {}", preset.id, sized.status().message()));
    }
    d.tasks.push_back({std::move(sized).value(), t.run, t.share});
  }
  return d;
}

}  // namespace rigplan
