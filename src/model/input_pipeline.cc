// The input pipeline: loading data/pipeline/*.toml, a CPU's rate with a loader, and the step
// bound it puts on a training run (docs/performance.md, "The input pipeline").
#include "rigplan/input_pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "catalog/entry_files.h"
#include "catalog/name_index.h"
#include "catalog/toml_decode.h"
#include "model/links.h"
#include "model/perf_constants.h"
#include "rigplan/perf.h"
#include "util/embedded_file.h"

namespace rigplan {

using namespace toml_decode;

namespace {

const std::vector<FieldSpec<PipelineInput>>& input_fields() {
  using I = PipelineInput;
  static const std::vector<FieldSpec<I>> kFields = {
      {"id", &I::id, true},
      {"name", &I::name, true},
      {"reference_workload", &I::reference_workload, true},
      {"as_of", &I::as_of, true},
  };
  return kFields;
}

const std::vector<FieldSpec<Loader>>& loader_fields() {
  using L = Loader;
  static const Range kRate{0, 1e7, false};
  static const std::vector<FieldSpec<L>> kFields = {
      {"id", &L::id, true},
      {"name", &L::name, true},
      {"aliases", &L::aliases},
      {"input", &L::input, true},
      {"decode", &L::decode, true, "", {"cpu", "gpu"}},
      {"images_per_s_per_core", &L::images_per_s_per_core, true, "images/s", {}, kRate},
      {"reference_clock_ghz", &L::reference_clock_ghz, true, "GHz", {}, {0, 10, false}},
      {"gpu_images_per_s", &L::gpu_images_per_s, false, "images/s", {}, kRate},
      {"as_of", &L::as_of, true},
  };
  return kFields;
}

// A GPU-decode loader has its GPU's ceiling; a CPU loader has none. Checked as the loader is
// decoded, with the context that recorded its fields (EntryContext::read_well keys them by their
// table, which is moved afterwards), and only when both read well: a ceiling already reported
// (out of range, or written as text) is not also "required".
void check_decode(const EntryContext& ctx, const Loader& l) {
  if (!ctx.read_well({"decode", "gpu_images_per_s"})) return;
  if (l.decode == "gpu" && l.gpu_images_per_s <= 0) {
    ctx.error("gpu_images_per_s", "is required where decode = \"gpu\"");
  }
  if (l.decode == "cpu" && l.gpu_images_per_s > 0) {
    ctx.error("gpu_images_per_s", "applies only where decode = \"gpu\"");
  }
}

template <class T>
void check_unique_ids(const std::vector<T>& entries, const std::vector<RawEntry>& raws,
                      std::string_view kind, Problems& problems) {
  for (size_t i = 0; i < entries.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (!entries[i].id.empty() && entries[i].id == entries[j].id) {
        EntryContext(kind, raws[i], problems)
            .error("id", fmt::format("duplicate id, first defined at line {}",
                                     entries[j].provenance.line));
      }
    }
  }
}

}  // namespace

InputPipelines::InputPipelines() = default;
InputPipelines::~InputPipelines() = default;
InputPipelines::InputPipelines(InputPipelines&&) noexcept = default;
InputPipelines& InputPipelines::operator=(InputPipelines&&) noexcept = default;

void InputPipelines::build_index() {
  index_ = std::make_unique<NameIndex>("loader", "rigplan predict --help");
  for (const auto& l : loaders) index_->add_entry(l.id);
  for (size_t i = 0; i < loaders.size(); ++i) {
    index_->add_name(i, loaders[i].name);
    for (const auto& alias : loaders[i].aliases) index_->add_name(i, alias);
  }
}

Result<const Loader*> InputPipelines::find_loader(std::string_view name) const {
  if (!index_) return Status::internal("loader index not built");
  auto i = index_->find(name);
  if (!i) return Status::invalid_input(i.status().message());
  return &loaders[*i];
}

const PipelineInput* InputPipelines::find_input(std::string_view id) const {
  for (const auto& input : inputs) {
    if (input.id == id) return &input;
  }
  return nullptr;
}

Result<InputPipelines> load_input_pipelines(const std::vector<CatalogFile>& files) {
  Problems problems;
  InputPipelines out;
  std::vector<RawEntry> input_raws, loader_raws;
  static constexpr std::string_view kSections[] = {"input", "loader"};
  for_each_entry(files, kSections, problems, [&](std::string_view section, RawEntry raw) {
    const EntryContext ctx(section, raw, problems);
    if (section == "input") {
      out.inputs.push_back(decode_sourced_entry(ctx, input_fields()));
      input_raws.push_back(std::move(raw));
    } else {
      out.loaders.push_back(decode_sourced_entry(ctx, loader_fields()));
      check_decode(ctx, out.loaders.back());
      loader_raws.push_back(std::move(raw));
    }
  });
  for (size_t i = 0; i < out.loaders.size(); ++i) {
    check_reference(out.loaders[i].input, "input", "input", out.inputs,
                    EntryContext("loader", loader_raws[i], problems));
  }
  check_unique_ids(out.inputs, input_raws, "input", problems);
  check_unique_ids(out.loaders, loader_raws, "loader", problems);
  if (!problems.empty()) return problems.to_status();
  out.build_index();
  return out;
}

std::vector<CatalogFile> embedded_pipeline_files_list() {
  return catalog_files(embedded_pipeline_files());
}

const InputPipelines& embedded_input_pipelines() {
  // Parsed once: every prediction of a `rigplan serve` process shares it.
  static const InputPipelines kPipelines = [] {
    auto loaded = load_input_pipelines(embedded_pipeline_files_list());
    assert(loaded.ok() && "the embedded pipelines are checked by their tests");
    return loaded.ok() ? std::move(loaded).value() : InputPipelines{};
  }();
  return kPipelines;
}

Result<std::optional<HostSpec>> host_spec(const Catalog& catalog, std::string_view cpu_name,
                                          std::string_view loader_name) {
  if (cpu_name.empty()) {
    if (loader_name.empty()) return std::optional<HostSpec>();
    return Status::invalid_input(fmt::format(
        "--loader '{}' needs --cpu: the loader's rate depends on the CPU", shown(loader_name)));
  }
  auto cpu = catalog.find_cpu(cpu_name);
  if (!cpu) return cpu.status();
  auto loader =
      embedded_input_pipelines().find_loader(loader_name.empty() ? kDefaultLoader : loader_name);
  if (!loader) return loader.status();
  return std::optional<HostSpec>(HostSpec{*cpu, 1, (*loader)->id});
}

double per_core_rate(const Loader& loader, const Cpu& cpu) {
  return loader.images_per_s_per_core * cpu.boost_clock_ghz / loader.reference_clock_ghz;
}

namespace {

// Images/s of `loader` on `loader_cores` cores of `cpu` feeding `gpus` GPUs.
double loader_rate(const Loader& loader, const Cpu& cpu, int loader_cores, int gpus) {
  const double cpu_rate = loader_cores * per_core_rate(loader, cpu);
  return loader.decode == "gpu" ? std::min(cpu_rate, gpus * loader.gpu_images_per_s) : cpu_rate;
}

}  // namespace

PipelineEstimate estimate_pipeline(const Loader& loader, const Cpu& cpu, int cpu_count, int gpus,
                                   double demand, const InputPipelines& pipelines) {
  PipelineEstimate e;
  e.cpu = cpu.id;
  e.loader = loader.id;
  e.input = loader.input;
  e.decode = loader.decode;
  e.confidence = loader.provenance.confidence;
  e.as_of = loader.as_of;
  e.cores = cpu.cores * cpu_count;
  e.training_cores = perf_constants::kTrainingCoresPerGpu * gpus;
  e.shares_core = e.cores - e.training_cores < 1;
  e.loader_cores = std::max(e.cores - e.training_cores, 1);
  e.clock_scale = cpu.boost_clock_ghz / loader.reference_clock_ghz;
  e.per_core = per_core_rate(loader, cpu);
  e.cpu_rate = e.loader_cores * e.per_core;
  e.gpu_decode_rate = loader.decode == "gpu" ? gpus * loader.gpu_images_per_s : 0;
  e.rate = loader_rate(loader, cpu, e.loader_cores, gpus);
  e.demand = demand;
  e.bound = e.rate < demand;
  const bool decoder_short = loader.decode == "gpu" && e.gpu_decode_rate < demand;
  // 1e-9: a demand that is an exact multiple of the per-core rate needs no extra core.
  e.cores_to_lift =
      decoder_short ? 0
                    : static_cast<int>(std::ceil(demand / e.per_core - 1e-9)) + e.training_cores;
  for (const auto& other : pipelines.loaders) {
    if (other.input == loader.input && loader_rate(other, cpu, e.loader_cores, gpus) >= demand) {
      e.loader_to_lift = other.id;
      break;
    }
  }
  return e;
}

Result<double> reference_demand(const PipelineInput& input, const Gpu& gpu,
                                const Catalog& catalog) {
  // Parsed once, as embedded_engines(): the zoo compiled into the binary.
  static const Result<Zoo> kZoo = load_zoo(embedded_workloads());
  if (!kZoo) return kZoo.status();
  auto w = kZoo->find(input.reference_workload);
  if (!w) return w.status();
  auto p = predict_largest_fitting(**w, gpu, RunConfig{}, embedded_calibration(), catalog,
                                   /*shrink_batch=*/true);
  if (!p) return p.status();
  return p->throughput;
}

namespace {

// The loader the host names, checked against the workload's input.
Result<const Loader*> loader_for(const Workload& w, const Loader* loader,
                                 const InputPipelines& pipelines) {
  if (!pipelines.find_input(w.input)) {
    std::vector<std::string> ids;
    for (const auto& i : pipelines.inputs) ids.push_back(i.id);
    return Status::invalid_input(
        fmt::format("workload '{}': input '{}' is not an input of the pipeline data; expected {}",
                    w.id, shown(w.input), quoted_list(ids)));
  }
  if (loader->input != w.input) {
    std::vector<std::string> ids;
    for (const auto& l : pipelines.loaders) {
      if (l.input == w.input) ids.push_back(l.id);
    }
    return Status::invalid_input(
        fmt::format("loader '{}' has rates for input '{}', not for {}'s '{}'; expected {}",
                    loader->id, loader->input, w.id, w.input, quoted_list(ids)));
  }
  return loader;
}

}  // namespace

Result<InputFeed> input_feed(const Workload& w, const RunConfig& config, double samples_per_step,
                             double step_time_s, const HostSpec& host,
                             const InputPipelines& pipelines) {
  assert(host.cpu && "input_feed needs the host's CPU");
  InputFeed out;
  out.step_time_s = step_time_s;
  auto named = pipelines.find_loader(host.loader);
  if (!named) return named.status();
  if (w.input.empty()) {
    out.not_modelled = fmt::format(
        "input pipeline not modelled: {} names no input in the pipeline data (data/pipeline)",
        w.id);
    return out;
  }
  auto loader = loader_for(w, *named, pipelines);
  if (!loader) return loader.status();
  if (config.mode != "train") {
    out.not_modelled = fmt::format(
        "input pipeline not modelled for mode {}: the loaders' rates are for training's decode "
        "and augmentation",
        config.mode);
    return out;
  }
  // Each machine of the run has its own CPU and feeds its own GPUs; an NVLink domain larger than
  // a machine (a GB200 NVL72 rack) is fed by many hosts, so a machine here is never the domain.
  const int in_machine = std::min(config.gpus, machine_gpus(config));
  const int machines = (config.gpus + in_machine - 1) / in_machine;
  const double demand = samples_per_step / step_time_s / machines;
  PipelineEstimate& e = out.estimate.emplace(
      estimate_pipeline(**loader, *host.cpu, host.cpu_count, in_machine, demand, pipelines));
  e.machines = machines;
  if (e.bound) out.step_time_s = samples_per_step / (e.rate * machines);
  return out;
}

Result<Prediction> with_input_pipeline(const Workload& w, Prediction p, const HostSpec& host,
                                       const InputPipelines& pipelines) {
  if (p.step_time_s <= 0) return p;  // a run that does not fit has no speed for a CPU to bound
  auto feed = input_feed(w, p.config, p.samples_per_step, p.step_time_s, host, pipelines);
  if (!feed) return feed.status();
  if (!feed->estimate) {
    p.add_note(feed->not_modelled);
    return p;
  }
  if (feed->estimate->bound) {
    const double step = feed->step_time_s;
    p.terms.push_back({"input_wait", step - p.step_time_s, 0, 0, "input"});
    p.throughput *= p.step_time_s / step;
    p.mfu *= p.step_time_s / step;
    p.step_time_s = step;
    p.bound = "input";
  }
  p.pipeline = std::move(feed->estimate);
  return p;
}

}  // namespace rigplan
