// Loading data/engines/*.toml: engines, weight formats and KV-cache formats.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <span>

#include "catalog/entry_files.h"
#include "catalog/name_index.h"
#include "catalog/toml_decode.h"
#include "model/calibration_key.h"
#include "rigplan/engine.h"
#include "rigplan/schema.h"
#include "util/embedded_file.h"

namespace rigplan {

using namespace toml_decode;

namespace {

constexpr std::string_view kComputeTypes[] = {"fp32", "fp16", "fp16acc", "bf16",
                                              "fp8",  "int8", "fp4"};

// What a sliding-window layer's attention kernel may read (Engine::sliding_reads).
constexpr std::string_view kSlidingReads[] = {"window", "context"};

const std::vector<FieldSpec<Engine>>& engine_fields() {
  using E = Engine;
  static const Range kFraction{0, 1, false};
  static const Range kNonNegative{0, 1e6, true};
  static const std::vector<std::string_view> kReads(std::begin(kSlidingReads),
                                                    std::end(kSlidingReads));
  static const std::vector<FieldSpec<E>> kFields = {
      {"id", &E::id, true},
      {"name", &E::name, true},
      {"aliases", &E::aliases},
      {"version", &E::version, true},
      {"as_of", &E::as_of, true},
      {"stacks", &E::stacks, true, "", {"cuda", "rocm"}},
      {"budget", &E::budget, true, "", {"total", "free", "none"}},
      {"memory_utilization", &E::memory_utilization, true, "", {}, kFraction},
      {"cuda_context_gb", &E::cuda_context_gb, true, "GB", {}, kNonNegative},
      {"fragmentation", &E::fragmentation, true, "", {}, {0, 1, true}},
      {"nccl_buffers_gb", &E::nccl_buffers_gb, true, "GB", {}, kNonNegative},
      {"cuda_graph_gb", &E::cuda_graph_gb, true, "GB", {}, kNonNegative},
      {"kv_reserve", &E::kv_reserve, true, "", {"request", "context"}},
      {"kv_block_tokens", &E::kv_block_tokens, true, "", {}, {1, 1e6, true}},
      {"kv_formats", &E::kv_formats, true},
      {"sliding_kv", &E::sliding_kv, true, "", {"window", "pool"}},
      {"sliding_pool_ratio", &E::sliding_pool_ratio, false, "", {}, kFraction},
      {"sliding_reads", &E::sliding_reads, true, "", kReads},
      {"prefill_chunk_tokens", &E::prefill_chunk_tokens, true, "", {}, kNonNegative},
      {"prefill_chunk_tokens_small", &E::prefill_chunk_tokens_small, true, "", {}, kNonNegative},
      {"max_seqs", &E::max_seqs, true, "", {}, kNonNegative},
      {"max_seqs_small", &E::max_seqs_small, true, "", {}, kNonNegative},
      {"max_seqs_flag", &E::max_seqs_flag, false},
      {"large_gpu_gb", &E::large_gpu_gb, true, "GB", {}, kNonNegative},
      {"logits_rows", &E::logits_rows, true, "", {"batch", "max-seqs", "chunk"}},
      {"split", &E::split, true, "", {"tensor", "layer"}},
      {"offload", &E::offload, true, "", {"pcie-stream", "cpu-compute", "none"}},
      {"weight_formats", &E::weight_formats, true},
      {"cuda_graphs", &E::cuda_graphs, true},
      {"moe_kernel", &E::moe_kernel, true, "", {"grouped", "per-expert"}},
      {"moe_expert_overhead_us", &E::moe_expert_overhead_us, false, "us", {}, kNonNegative},
      {"moe_tile", &E::moe_tile, true, "", {"expert", "step"}},
      {"dense_tile", &E::dense_tile, false, "", {"choose", "fixed"}},
      {"moe_layer_overhead_us", &E::moe_layer_overhead_us, false, "us", {}, kNonNegative},
      {"moe_pick_overhead_us", &E::moe_pick_overhead_us, false, "us", {}, kNonNegative},
      {"moe_copy_bytes", &E::moe_copy_bytes, false, "B", {}, kNonNegative},
      {"moe_pick_bytes", &E::moe_pick_bytes, false, "B", {}, kNonNegative},
      {"bias_add_us", &E::bias_add_us, false, "us", {}, kNonNegative},
      {"expert_parallel", &E::expert_parallel, false},
      {"layer_overhead_us", &E::layer_overhead_us, true, "us", {}, kNonNegative},
      {"step_overhead_ms", &E::step_overhead_ms, true, "ms", {}, kNonNegative},
      {"host_sequence_us", &E::host_sequence_us, false, "us", {}, kNonNegative},
      {"pipeline_host", &E::pipeline_host, false, "", {"overlap", "serial"}},
      {"request_overhead_ms", &E::request_overhead_ms, true, "ms", {}, kNonNegative},
      {"gemm_efficiency", &E::gemm_efficiency, true, "", {}, kFraction},
      {"memory_efficiency", &E::memory_efficiency, true, "", {}, kFraction},
      {"rocm_gemm_efficiency", &E::rocm_gemm_efficiency, true, "", {}, kFraction},
      {"rocm_memory_efficiency", &E::rocm_memory_efficiency, true, "", {}, kFraction},
  };
  return kFields;
}

// What an expert GEMM entry's `architecture` may name: a calibration key (perf.h
// calibration_key), an architecture a catalog GPU may have and a memory class.
constexpr std::string_view kMemoryClasses[] = {"hbm", "gddr", "geforce"};

// The architectures the catalog's schema accepts for a GPU (gpu_fields, catalog/schema.cc).
std::span<const std::string_view> gpu_architectures() {
  static const std::vector<std::string_view> kNone;
  for (const auto& f : gpu_fields()) {
    if (f.key == "architecture") return f.choices;
  }
  return kNone;
}

const std::vector<FieldSpec<ExpertGemm>>& expert_gemm_fields() {
  using X = ExpertGemm;
  static const std::vector<std::string_view> kCompute(std::begin(kComputeTypes),
                                                      std::end(kComputeTypes));
  static const std::vector<FieldSpec<X>> kFields = {
      {"format", &X::format, true},
      {"architecture", &X::architecture, true},
      {"compute", &X::compute, true, "", kCompute},
      {"efficiency", &X::efficiency, true, "", {}, {0, 1, false}},
      {"source", &X::source, true},
      {"fitted_on", &X::fitted_on, false},
  };
  return kFields;
}

const std::vector<FieldSpec<EngineRelease>>& release_fields() {
  using R = EngineRelease;
  static const std::vector<std::string_view> kReads(std::begin(kSlidingReads),
                                                    std::end(kSlidingReads));
  static const std::vector<FieldSpec<R>> kFields = {
      {"version", &R::version, true},
      {"backend", &R::backend, true},
      {"sliding_reads", &R::sliding_reads, true, "", kReads},
      {"host_sequence_us", &R::host_sequence_us, false, "us", {}, {0, 1e6, true}},
      {"pipeline_host", &R::pipeline_host, false, "", {"overlap", "serial"}},
      {"source", &R::source, true},
  };
  return kFields;
}

const std::vector<FieldSpec<HostCpu>>& host_fields() {
  using H = HostCpu;
  static const std::vector<FieldSpec<H>> kFields = {
      {"id", &H::id, true},
      {"name", &H::name, true},
      {"gpus", &H::gpus, true},
      {"single_thread", &H::single_thread, true, "", {}, {0, 10, false}},
      {"source", &H::source, true},
      {"fitted_on", &H::fitted_on, false},
  };
  return kFields;
}

// A [[host]] table: a host CPU, the GPUs that only come with it and its single-thread speed;
// a GPU comes with one host at most, and a host is given once.
HostCpu decode_host(const EntryContext& ctx, const std::vector<HostCpu>& earlier) {
  HostCpu h;
  decode_fields(ctx, ctx.table(), host_fields(), h, {});
  h.line = static_cast<int>(ctx.table().source().begin.line);
  for (const auto& e : earlier) {
    if (e.id == h.id) ctx.error("id", fmt::format("'{}' is given twice", shown(h.id)));
    for (const auto& g : h.gpus) {
      if (std::find(e.gpus.begin(), e.gpus.end(), g) != e.gpus.end())
        ctx.error("gpus", fmt::format("'{}' comes with host '{}' already", shown(g), e.id));
    }
  }
  return h;
}

const std::vector<FieldSpec<WeightFormat>>& format_fields() {
  using F = WeightFormat;
  static const std::vector<std::string_view> kCompute(std::begin(kComputeTypes),
                                                      std::end(kComputeTypes));
  static const std::vector<FieldSpec<F>> kFields = {
      {"id", &F::id, true},
      {"name", &F::name, true},
      {"aliases", &F::aliases},
      {"bits_per_weight", &F::bits_per_weight, true, "bits", {}, {1, 32, true}},
      {"compute", &F::compute, true, "", kCompute},
      {"fallback_compute", &F::fallback_compute, true, "", kCompute},
      {"dequant", &F::dequant, true, "", {"none", "fused", "separate"}},
      {"dequant_efficiency", &F::dequant_efficiency, true, "", {}, {0, 1, false}},
      {"call_overhead_us", &F::call_overhead_us, false, "us", {}, {0, 1e6, true}},
      {"covers", &F::covers, true, "", {"all", "linear", "experts"}},
      {"rest", &F::rest, false},
  };
  return kFields;
}

const std::vector<FieldSpec<KvFormat>>& kv_fields() {
  using K = KvFormat;
  static const std::vector<FieldSpec<K>> kFields = {
      {"id", &K::id, true},
      {"name", &K::name, true},
      {"aliases", &K::aliases},
      {"bits_per_element", &K::bits_per_element, true, "bits", {}, {1, 32, true}},
  };
  return kFields;
}

// Each name an engine lists must be an entry of `known`.
template <class T>
void check_names(const EntryContext& ctx, std::string_view field,
                 const std::vector<std::string>& names, const std::vector<T>& known) {
  std::vector<std::string> ids;
  for (const auto& k : known) ids.push_back(k.id);
  for (const auto& name : names) {
    if (std::find(ids.begin(), ids.end(), name) == ids.end()) {
      ctx.error(field, fmt::format("'{}' is not a format of the engine files; expected {}{}", name,
                                   quoted_list(ids), did_you_mean(name, ids)));
    }
  }
}

// An engine that loops over the experts pays a cost per expert, and one that runs them as one
// grouped kernel pays none: the overhead is stated exactly when the loop is there to pay it.
void check_expert_overhead(const EntryContext& ctx, const RawEntry& raw, const Engine& e) {
  const bool stated = raw.table.contains("moe_expert_overhead_us");
  if (e.moe_kernel == "per-expert" && !stated) {
    ctx.error("moe_kernel",
              "'per-expert' needs moe_expert_overhead_us, the host and launch time per touched "
              "expert per layer");
  } else if (e.moe_kernel == "grouped" && stated) {
    ctx.error("moe_expert_overhead_us",
              "only an engine whose moe_kernel is 'per-expert' pays a time per expert; remove it "
              "or set moe_kernel = \"per-expert\"");
  }
}

// A pool of sliding-layer tokens has a size, and a window per sequence has none: the ratio is
// stated exactly when sliding_kv is "pool".
void check_sliding_pool(const EntryContext& ctx, const RawEntry& raw, const Engine& e) {
  const bool stated = raw.table.contains("sliding_pool_ratio");
  if (e.sliding_kv == "pool" && !stated) {
    ctx.error("sliding_kv",
              "'pool' needs sliding_pool_ratio, the tokens a sliding layer holds per token of a "
              "full layer (1: the whole context)");
  } else if (e.sliding_kv == "window" && stated) {
    ctx.error("sliding_pool_ratio",
              "only an engine whose sliding_kv is 'pool' sizes a pool; remove it or set "
              "sliding_kv = \"pool\"");
  }
}

// A kernel reads no more keys than the cache holds: reading the whole context of a sliding
// layer needs an engine that caches it (sliding_kv "pool" with a ratio of 1).
void check_sliding_reads(const EntryContext& ctx, std::string_view reads, const Engine& e) {
  if (reads != "context" || (e.sliding_kv == "pool" && e.sliding_pool_ratio >= 1)) return;
  ctx.error("sliding_reads",
            fmt::format("'context' reads every cached token of a sliding layer, but sliding_kv "
                        "'{}' keeps {}; set sliding_reads = \"window\" or keep the whole context "
                        "(sliding_kv = \"pool\", sliding_pool_ratio = 1)",
                        e.sliding_kv,
                        e.sliding_kv == "window" ? "each sequence's window"
                                                 : "a pool smaller than the context"));
}

// A format of the experts alone may name the format its other tensors are stored in (GGUF's
// MXFP4_MOE keeps them in Q8_0); that format must exist and cover a whole model itself.
void check_rest(const EntryContext& ctx, const WeightFormat& f,
                const std::vector<WeightFormat>& formats) {
  if (f.rest.empty()) return;
  if (f.covers != "experts") {
    ctx.error("rest",
              "only a format whose covers is 'experts' stores the other tensors apart; "
              "remove it or set covers = \"experts\"");
    return;
  }
  std::vector<std::string> ids;
  for (const auto& k : formats)
    if (k.covers != "experts") ids.push_back(k.id);
  if (std::find(ids.begin(), ids.end(), f.rest) == ids.end()) {
    ctx.error("rest", fmt::format("'{}' is not a format of a whole model; expected {}{}", f.rest,
                                  quoted_list(ids), did_you_mean(f.rest, ids)));
  }
}

}  // namespace

void check_calibration_key(const EntryContext& ctx, const std::string& key) {
  std::vector<std::string> keys;
  for (auto a : gpu_architectures())
    for (auto m : kMemoryClasses) keys.push_back(fmt::format("{}-{}", a, m));
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return;
  ctx.field_failed("architecture",
                   fmt::format("'{}' is not a calibration key; expected an architecture ({}) and "
                               "a memory class ({}) joined by '-', as 'hopper-hbm'{}",
                               shown(key), quoted_list(to_strings(gpu_architectures())),
                               quoted_list(to_strings(kMemoryClasses)), did_you_mean(key, keys)));
}

namespace {

// An engine's [[engine.expert_gemm]] tables, each naming a format the engine runs, once per
// architecture.
void decode_expert_gemms(const EntryContext& ctx, Engine& e) {
  const toml::node* node = ctx.table().get("expert_gemm");
  if (!node) return;
  const auto* list = node->as_array();
  if (!list || !list->is_array_of_tables()) {
    ctx.error("expert_gemm", "expected [[engine.expert_gemm]] tables");
    return;
  }
  for (const auto& item : *list) {
    const toml::table& table = *item.as_table();
    const EntryContext in =
        ctx.within(table, fmt::format("expert_gemm {}", e.expert_gemms.size() + 1));
    ExpertGemm x;
    decode_fields(in, table, expert_gemm_fields(), x, {});
    x.line = static_cast<int>(table.source().begin.line);
    if (in.read_well({"architecture"})) check_calibration_key(in, x.architecture);
    if (in.read_well({"format"}) && !x.format.empty() && !e.runs(x.format)) {
      in.error("format", fmt::format("'{}' is not a format this engine runs; expected {}{}",
                                     shown(x.format), quoted_list(e.weight_formats),
                                     did_you_mean(x.format, e.weight_formats)));
    }
    if (in.all_read_well() && e.expert_gemm(x.format, x.architecture)) {
      in.error("architecture",
               fmt::format("'{}' on '{}' is given twice", shown(x.format), shown(x.architecture)));
    }
    e.expert_gemms.push_back(std::move(x));
  }
}

// An engine's [[engine.release]] tables: each a version a run may name after '@', once, and
// the attention it runs, which a kernel must be able to read from the engine's cache.
void decode_releases(const EntryContext& ctx, Engine& e) {
  const toml::node* node = ctx.table().get("release");
  if (!node) return;
  const auto* list = node->as_array();
  if (!list || !list->is_array_of_tables()) {
    ctx.error("release", "expected [[engine.release]] tables");
    return;
  }
  for (const auto& item : *list) {
    const toml::table& table = *item.as_table();
    const EntryContext in = ctx.within(table, fmt::format("release {}", e.releases.size() + 1));
    EngineRelease r;
    decode_fields(in, table, release_fields(), r, {});
    r.line = static_cast<int>(table.source().begin.line);
    if (in.read_well({"version"})) {
      const bool twice =
          std::any_of(e.releases.begin(), e.releases.end(),
                      [&](const EngineRelease& o) { return o.version == r.version; });
      if (r.version.empty() || r.version.find('@') != std::string::npos) {
        in.error("version", fmt::format("'{}' is not a version a run can name after '@'; expected "
                                        "a non-empty version without '@', as \"0.17\"",
                                        shown(r.version)));
      } else if (twice) {
        in.error("version", fmt::format("'{}' is given twice", shown(r.version)));
      }
    }
    if (in.read_well({"sliding_reads"})) check_sliding_reads(in, r.sliding_reads, e);
    e.releases.push_back(std::move(r));
  }
}

// An engine's fields, its provenance and its expert GEMM and release tables.
Engine decode_engine(const EntryContext& ctx) {
  constexpr std::string_view kAccepted[] = {"source",        "confidence",  "notes",
                                            "field_sources", "expert_gemm", "release"};
  static_assert(std::size(kProvenanceKeys) + 2 == std::size(kAccepted));
  Engine e;
  decode_fields(ctx, ctx.table(), engine_fields(), e, kAccepted);
  decode_provenance(ctx, engine_fields(), e.provenance);
  const auto& where = ctx.table().source();
  e.provenance.file = where.path ? *where.path : "";
  e.provenance.line = static_cast<int>(where.begin.line);
  decode_expert_gemms(ctx, e);
  decode_releases(ctx, e);
  return e;
}

// The engine a run gets when it names release `r` of `base`: the base's figures with the
// release's version and attention, whose source stands for the field's.
Engine release_engine(const Engine& base, const EngineRelease& r) {
  Engine e = base;
  e.release = r.version;
  e.version = fmt::format("{} ({})", r.version, r.backend);
  e.sliding_reads = r.sliding_reads;
  e.provenance.field_sources["sliding_reads"] = r.source;
  if (r.host_sequence_us) {
    e.host_sequence_us = *r.host_sequence_us;
    e.provenance.field_sources["host_sequence_us"] = r.source;
  }
  if (!r.pipeline_host.empty()) {
    e.pipeline_host = r.pipeline_host;
    e.provenance.field_sources["pipeline_host"] = r.source;
  }
  e.provenance.line = r.line;
  e.releases.clear();
  return e;
}

template <class T>
std::unique_ptr<NameIndex> index_of(const std::vector<T>& entries, std::string kind,
                                    std::string command) {
  auto index = std::make_unique<NameIndex>(std::move(kind), std::move(command));
  for (const auto& e : entries) index->add_entry(e.id);
  for (size_t i = 0; i < entries.size(); ++i) {
    index->add_name(i, entries[i].name);
    for (const auto& alias : entries[i].aliases) index->add_name(i, alias);
  }
  return index;
}

template <class T>
Result<const T*> find_in(const NameIndex* index, const std::vector<T>& entries,
                         std::string_view name) {
  if (!index) return Status::internal("engine indexes not built");
  auto i = index->find(name);
  if (!i) return Status::invalid_input(i.status().message());
  return &entries[*i];
}

}  // namespace

std::string_view default_engine(std::string_view mode) {
  return mode == "train" ? "pytorch" : "vllm";
}

int Engine::chunk_tokens(double gpu_memory_gb) const {
  return gpu_memory_gb >= large_gpu_gb ? prefill_chunk_tokens : prefill_chunk_tokens_small;
}

int Engine::max_sequences(double gpu_memory_gb) const {
  return gpu_memory_gb >= large_gpu_gb ? max_seqs : max_seqs_small;
}

bool Engine::runs(std::string_view weight_format) const {
  return std::find(weight_formats.begin(), weight_formats.end(), weight_format) !=
         weight_formats.end();
}

const ExpertGemm* Engine::expert_gemm(std::string_view weight_format,
                                      std::string_view architecture) const {
  for (const auto& x : expert_gemms) {
    if (x.format == weight_format && x.architecture == architecture) return &x;
  }
  return nullptr;
}

Engines::Engines() = default;
Engines::~Engines() = default;
Engines::Engines(Engines&&) noexcept = default;
Engines& Engines::operator=(Engines&&) noexcept = default;

void Engines::build_indexes() {
  release_engines_.clear();
  for (const auto& e : engines)
    for (const auto& r : e.releases) release_engines_.push_back(release_engine(e, r));
  engine_index_ = index_of(engines, "engine", "rigplan engines list");
  format_index_ = index_of(formats, "weight format", "rigplan engines list");
  kv_index_ = index_of(kv_formats, "KV-cache format", "rigplan engines list");
}

Result<const Engine*> Engines::find_engine(std::string_view name) const {
  const size_t at = name.find('@');
  auto base = find_in(engine_index_.get(), engines, name.substr(0, at));
  if (!base || at == std::string_view::npos) return base;
  const std::string_view version = name.substr(at + 1);
  std::vector<std::string> versions;
  for (const auto& e : release_engines_) {
    if (e.id != (*base)->id) continue;
    if (e.release == version) return &e;
    versions.push_back(e.release);
  }
  return Status::invalid_input(fmt::format(
      "engine '{}' has no release '{}'; {}{} (rigplan engines show {})", (*base)->id, version,
      versions.empty() ? "it names none: drop '@' and what follows"
                       : fmt::format("expected {}", quoted_list(versions)),
      versions.size() > 1 ? did_you_mean(version, versions) : "", (*base)->id));
}
const HostCpu* Engines::host_of(std::string_view gpu_id) const {
  for (const auto& h : hosts) {
    if (std::find(h.gpus.begin(), h.gpus.end(), gpu_id) != h.gpus.end()) return &h;
  }
  return nullptr;
}

Result<const WeightFormat*> Engines::find_format(std::string_view name) const {
  return find_in(format_index_.get(), formats, name);
}
Result<const KvFormat*> Engines::find_kv_format(std::string_view name) const {
  return find_in(kv_index_.get(), kv_formats, name);
}

Result<Engines> load_engines(const std::vector<CatalogFile>& files) {
  Problems problems;
  Engines out;
  std::vector<RawEntry> engine_raws, format_raws;
  static constexpr std::string_view kSections[] = {"engine", "format", "kv_format", "host"};
  for_each_entry(files, kSections, problems, [&](std::string_view section, RawEntry raw) {
    const EntryContext ctx(section, raw, problems);
    if (section == "engine") {
      out.engines.push_back(decode_engine(ctx));
      engine_raws.push_back(std::move(raw));
    } else if (section == "host") {
      out.hosts.push_back(decode_host(ctx, out.hosts));
    } else if (section == "format") {
      out.formats.push_back(decode_sourced_entry(ctx, format_fields()));
      format_raws.push_back(std::move(raw));
    } else {
      out.kv_formats.push_back(decode_sourced_entry(ctx, kv_fields()));
    }
  });
  for (size_t i = 0; i < out.engines.size(); ++i) {
    const EntryContext ctx("engine", engine_raws[i], problems);
    check_names(ctx, "weight_formats", out.engines[i].weight_formats, out.formats);
    check_names(ctx, "kv_formats", out.engines[i].kv_formats, out.kv_formats);
    check_expert_overhead(ctx, engine_raws[i], out.engines[i]);
    check_sliding_pool(ctx, engine_raws[i], out.engines[i]);
    check_sliding_reads(ctx, out.engines[i].sliding_reads, out.engines[i]);
  }
  for (size_t i = 0; i < out.formats.size(); ++i)
    check_rest(EntryContext("format", format_raws[i], problems), out.formats[i], out.formats);
  if (!problems.empty()) return problems.to_status();
  out.build_indexes();
  return out;
}

std::vector<CatalogFile> embedded_engine_files_list() {
  return catalog_files(embedded_engine_files());
}

const Engines& embedded_engines() {
  // Parsed once: every estimate of a `rigplan serve` process shares it.
  static const Engines kEngines = [] {
    auto loaded = load_engines(embedded_engine_files_list());
    assert(loaded.ok() && "the embedded engines are checked by their tests");
    return loaded.ok() ? std::move(loaded).value() : Engines{};
  }();
  return kEngines;
}

}  // namespace rigplan
