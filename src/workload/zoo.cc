// Loading workload files: [[workload]] entries, each with one architecture table.
#include <map>

#include "catalog/entry_files.h"
#include "catalog/name_index.h"
#include "catalog/toml_decode.h"
#include "rigplan/input.h"
#include "util/embedded_file.h"
#include "workload/diffusion.h"
#include "workload/resnet.h"
#include "workload/workload_schema.h"

namespace rigplan {

using namespace toml_decode;

namespace {

// Fields each layer op needs (besides `op`).
const std::map<std::string, std::vector<std::string_view>, std::less<>>& layer_requirements() {
  static const std::map<std::string, std::vector<std::string_view>, std::less<>> kNeeds = {
      {"conv2d", {"in_channels", "out_channels", "out_h", "out_w"}},
      {"conv_transpose2d", {"in_channels", "out_channels", "out_h", "out_w"}},
      {"linear", {"in_features", "out_features"}},
      {"embedding", {"num_embeddings", "dim"}},
      {"lstm", {"input_size", "hidden_size", "steps"}},
      {"norm", {"kind", "channels", "elements"}},
      {"attention", {"heads", "head_dim", "query_len", "key_len"}},
      {"elementwise", {"elements"}},
  };
  return kNeeds;
}

void check_layer(const Layer& layer, const toml::table& table, const EntryContext& ctx) {
  auto needs = layer_requirements().find(layer.op);
  if (needs == layer_requirements().end()) return;  // already reported as not accepted
  for (std::string_view key : needs->second) {
    if (!table.get(key)) {
      ctx.error_in(table, fmt::format("a '{}' layer needs '{}'", layer.op, key));
    }
  }
  const bool conv = layer.op == "conv2d" || layer.op == "conv_transpose2d";
  if (conv && ctx.read_well({"kernel", "kernel_h", "kernel_w"}) && layer.kernel == 0 &&
      !(layer.kernel_h && layer.kernel_w)) {
    ctx.error_in(table, "a convolution needs 'kernel', or 'kernel_h' and 'kernel_w'");
  }
  // 0 groups is out of range, reported by the field: not read, so not divided by.
  if (conv && ctx.read_well({"groups", "in_channels"}) && layer.in_channels % layer.groups != 0) {
    ctx.error(
        table.get("groups") ? "groups" : "",
        fmt::format("{} groups do not divide {} input channels", layer.groups, layer.in_channels));
  }
}

// The rules across a transformer's fields, each on fields that read well: 0 heads or 0
// key/value heads are out of range, reported by the field, and never divided by.
void check_transformer(const TransformerConfig& t, const EntryContext& ctx) {
  if (!t.head_dim && ctx.read_well({"head_dim", "num_heads", "hidden_size"}) &&
      t.hidden_size % t.num_heads != 0) {
    ctx.error("num_heads", fmt::format("{} heads do not divide hidden_size {}; give 'head_dim' if "
                                       "the model's heads are not hidden_size / num_heads wide",
                                       t.num_heads, t.hidden_size));
  }
  if (t.num_kv_heads && ctx.read_well({"num_kv_heads", "num_heads"}) &&
      (*t.num_kv_heads > t.num_heads || t.num_heads % *t.num_kv_heads != 0)) {
    ctx.error("num_kv_heads", fmt::format("{} key/value heads must divide the {} attention heads",
                                          *t.num_kv_heads, t.num_heads));
  }
  if (ctx.read_well({"arch", "encoder_layers"}) &&
      (t.arch == "encoder-decoder") != (t.encoder_layers > 0)) {
    ctx.error("encoder_layers",
              "an encoder-decoder needs encoder_layers > 0, and only it has them");
  }
  if (t.sliding_window_pattern && !t.sliding_window && ctx.read_well({"sliding_window_pattern"})) {
    ctx.error("sliding_window_pattern",
              "a pattern of sliding layers needs 'sliding_window', the window in tokens");
  }
  if (t.sliding_window && ctx.read_well({"sliding_window", "arch"}) && t.arch != "decoder") {
    ctx.error("sliding_window", fmt::format("sliding-window attention is modelled for decoders "
                                            "only; arch is '{}'",
                                            t.arch));
  }
  if (ctx.read_well({"experts_top_k", "num_experts"}) && t.top_k() > t.experts()) {
    ctx.error("experts_top_k",
              fmt::format("{} experts per token, but only {} experts", t.top_k(), t.experts()));
  }
}

constexpr std::string_view kArchitectureKeys[] = {"transformer", "resnet", "diffusion", "layers"};

// [workload.diffusion] with its [[workload.diffusion.component]] tables (and a UNet's or
// autoencoder's [[...component.level]] tables), built into layers at its resolution.
void decode_diffusion(const toml::table& table, const EntryContext& ctx, Workload& w) {
  w.diffusion.emplace();
  const EntryContext sub = ctx.within(table, "diffusion");
  constexpr std::string_view kComponents[] = {"component"};
  decode_fields(sub, table, diffusion_fields(), *w.diffusion, kComponents);
  // The layers are built from every field of every table: only when each read well.
  bool read_well = sub.all_read_well();
  const auto* list = table.get_as<toml::array>("component");
  if (!list || !list->is_array_of_tables() || list->empty()) {
    sub.error("component", "needs [[workload.diffusion.component]] tables");
    return;
  }
  for (const auto& node : *list) {
    const toml::table& c = *node.as_table();
    DiffusionComponent component;
    const EntryContext in =
        ctx.within(c, fmt::format("diffusion component {}", w.diffusion->components.size() + 1));
    constexpr std::string_view kLevels[] = {"level"};
    decode_fields(in, c, diffusion_component_fields(), component, kLevels);
    read_well = read_well && in.all_read_well();
    if (const auto* levels = c.get_as<toml::array>("level")) {
      for (const auto& level_node : *levels) {
        const auto* level_table = level_node.as_table();
        if (!level_table) {
          in.error("level", "expected [[...component.level]] tables");
          break;
        }
        UNetLevel level;
        const EntryContext at =
            ctx.within(*level_table, fmt::format("diffusion component {} level {}",
                                                 w.diffusion->components.size() + 1,
                                                 component.levels.size() + 1));
        decode_fields(at, *level_table, unet_level_fields(), level, {});
        read_well = read_well && at.all_read_well();
        component.levels.push_back(level);
      }
    }
    w.diffusion->components.push_back(std::move(component));
  }
  if (!read_well) return;
  auto layers = diffusion_layers(*w.diffusion);
  if (layers) {
    w.layers = std::move(layers).value();
  } else {
    sub.error("", layers.status().message());
  }
}

Workload decode_workload(const EntryContext& ctx) {
  Workload w;
  std::vector<std::string_view> also(std::begin(kProvenanceKeys), std::end(kProvenanceKeys));
  also.insert(also.end(), std::begin(kArchitectureKeys), std::end(kArchitectureKeys));
  decode_fields(ctx, ctx.table(), workload_fields(), w, also);
  decode_provenance(ctx, workload_fields(), w.provenance);
  const auto& where = ctx.table().source();
  w.provenance.file = where.path ? *where.path : "";
  w.provenance.line = static_cast<int>(where.begin.line);

  int architectures = 0;
  if (const auto* t = ctx.table().get_as<toml::table>("transformer")) {
    ++architectures;
    w.transformer.emplace();
    const EntryContext sub = ctx.within(*t, "transformer");
    decode_fields(sub, *t, transformer_fields(), *w.transformer, {});
    check_transformer(*w.transformer, sub);
  }
  if (const auto* r = ctx.table().get_as<toml::table>("resnet")) {
    ++architectures;
    w.resnet.emplace();
    const EntryContext sub = ctx.within(*r, "resnet");
    decode_fields(sub, *r, resnet_fields(), *w.resnet, {});
    // Built from every field: only when each read well.
    if (sub.all_read_well()) {
      auto layers = resnet_layers(*w.resnet);
      if (layers) {
        w.layers = std::move(layers).value();
      } else {
        sub.error("depth", layers.status().message());
      }
    }
  }
  if (const auto* d = ctx.table().get_as<toml::table>("diffusion")) {
    ++architectures;
    decode_diffusion(*d, ctx, w);
  }
  if (const auto* list = ctx.table().get_as<toml::array>("layers")) {
    ++architectures;
    for (const auto& node : *list) {
      const auto* table = node.as_table();
      if (!table) {
        ctx.error("layers", "expected [[workload.layers]] tables");
        break;
      }
      const EntryContext sub = ctx.within(*table, fmt::format("layer {}", w.layers.size() + 1));
      Layer layer;
      decode_fields(sub, *table, layer_fields(), layer, {});
      check_layer(layer, *table, sub);
      w.layers.push_back(std::move(layer));
    }
  }
  if (architectures != 1) {
    ctx.error("",
              "needs exactly one architecture: [workload.transformer], [workload.resnet], "
              "[workload.diffusion] or [[workload.layers]]");
  }
  return w;
}

}  // namespace

Result<Workload> at_resolution(const Workload& workload, int pixels) {
  if (Status s = input::check(input::kResolution, pixels); !s.ok()) return s;
  Workload out = workload;
  if (workload.diffusion) {
    out.diffusion->resolution = pixels;
    auto layers = diffusion_layers(*out.diffusion);
    if (!layers) return layers.status();
    out.layers = std::move(layers).value();
    return out;
  }
  if (workload.resnet) {
    if (pixels < 32) {  // five stride-2 stages
      return Status::invalid_input(fmt::format(
          "--resolution {} is not accepted for {}; expected at least 32 px", pixels, workload.id));
    }
    out.resnet->image_size = pixels;
    auto layers = resnet_layers(*out.resnet);
    if (!layers) return layers.status();
    out.layers = std::move(layers).value();
    return out;
  }
  return Status::invalid_input(
      fmt::format("--resolution applies to image models built from their configuration (the "
                  "diffusion models and the ResNets); {} has a fixed input shape",
                  workload.id));
}

Zoo::Zoo() = default;
Zoo::~Zoo() = default;
Zoo::Zoo(Zoo&&) noexcept = default;
Zoo& Zoo::operator=(Zoo&&) noexcept = default;

void Zoo::build_index(const Catalog::ClashHandler& on_clash) {
  index_ = std::make_unique<NameIndex>("workload", "rigplan workloads list");
  for (const auto& w : workloads) index_->add_entry(w.id);
  for (size_t i = 0; i < workloads.size(); ++i) {
    auto add = [&](std::string_view field, const std::string& name) {
      const std::string other = index_->add_name(i, name);
      if (!other.empty() && on_clash) on_clash("workload", i, field, name, other);
    };
    add("name", workloads[i].name);
    for (const auto& alias : workloads[i].aliases) add("aliases", alias);
  }
}

Result<const Workload*> Zoo::find(std::string_view name) const {
  assert(index_ && "build_index() runs before lookups");
  auto found = index_->find(name);
  if (!found) return found.status();
  return &workloads[*found];
}

std::vector<CatalogFile> embedded_workloads() { return catalog_files(embedded_workload_files()); }

Result<Zoo> load_zoo(const std::vector<CatalogFile>& files) {
  Problems problems;
  std::vector<RawEntry> raws;
  static constexpr std::string_view kSections[] = {"workload"};
  for_each_entry(files, kSections, problems,
                 [&](std::string_view, RawEntry raw) { raws.push_back(std::move(raw)); });
  Zoo zoo;
  std::map<std::string, size_t> seen;
  for (const auto& raw : raws) {
    const EntryContext ctx("workload", raw, problems);
    if (!raw.id.empty()) {
      auto [it, fresh] = seen.emplace(raw.id, zoo.workloads.size());
      if (!fresh) {
        const auto& first = zoo.workloads[it->second].provenance;
        ctx.error("id",
                  fmt::format("duplicate id; first defined at {}:{}", first.file, first.line));
      }
    }
    Workload w = decode_workload(ctx);
    if (problems.empty()) {
      if (Status s = check_model_size(w); !s.ok()) ctx.error("", s.message());
    }
    zoo.workloads.push_back(std::move(w));
  }
  zoo.build_index([&](std::string_view, size_t index, std::string_view field,
                      const std::string& name, const std::string& other_id) {
    EntryContext("workload", raws[index], problems)
        .error(field, fmt::format("'{}' also names workload '{}'; ids, names and aliases must be "
                                  "unique",
                                  shown(name), other_id));
  });
  if (!problems.empty()) return problems.to_status();
  return zoo;
}

}  // namespace rigplan
