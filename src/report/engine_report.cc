// `rigplan engines list` and `show`: the engines and formats of data/engines with their sources.
#include <fmt/format.h>

#include "rigplan/engine.h"
#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

Json provenance_json(const Provenance& p) {
  Json sources = Json::object();
  for (const auto& [field, source] : p.field_sources) sources[field] = source;
  return {{"source", p.source},
          {"confidence", p.confidence},
          {"notes", p.notes},
          {"field_sources", sources},
          {"defined_at", fmt::format("{}:{}", p.file, p.line)}};
}

std::string chunk_text(int large, int small, double large_gb) {
  if (large == 0) return "whole prompt";
  if (large == small || large_gb == 0) return std::to_string(large);
  return fmt::format("{} ({} below {} GB)", large, small, format_number(large_gb));
}

std::string seqs_text(int large, int small, double large_gb) {
  if (large == 0) return "no limit";
  if (large == small || large_gb == 0) return std::to_string(large);
  return fmt::format("{} ({} below {} GB)", large, small, format_number(large_gb));
}

std::string budget_text(const Engine& e) {
  if (e.budget == "total") return fmt::format("{} of the GPU", format_number(e.memory_utilization));
  if (e.budget == "free") {
    return fmt::format("KV cache: {} of what is free after loading",
                       format_number(e.memory_utilization));
  }
  return "what it allocates";
}

// The weight formats an engine runs, each with its bits and how it computes.
Json formats_json(const Engine& e, const Engines& engines) {
  Json formats = Json::array();
  for (const auto& id : e.weight_formats) {
    auto f = engines.find_format(id);
    if (f) {
      formats.push_back({{"id", (*f)->id},
                         {"bits_per_weight", (*f)->bits_per_weight},
                         {"compute", (*f)->compute},
                         {"dequant", (*f)->dequant}});
    }
  }
  return formats;
}

// The releases whose attention or host time differ from the engine's own figures.
Json releases_json(const Engine& e) {
  Json releases = Json::array();
  for (const auto& r : e.releases) {
    Json release = {{"version", r.version},
                    {"backend", r.backend},
                    {"sliding_reads", r.sliding_reads},
                    {"source", r.source}};
    if (r.host_sequence_us) release["host_sequence_us"] = *r.host_sequence_us;
    if (!r.pipeline_host.empty()) release["pipeline_host"] = r.pipeline_host;
    releases.push_back(std::move(release));
  }
  return releases;
}

}  // namespace

Json to_json(const Engine& e, const Engines& engines) {
  Json out = {{"id", e.id},
              {"name", e.name},
              {"aliases", e.aliases},
              {"version", e.version},
              {"as_of", e.as_of.to_string()},
              {"stacks", e.stacks},
              {"budget", e.budget},
              {"memory_utilization", e.memory_utilization},
              {"cuda_context_gb", e.cuda_context_gb},
              {"fragmentation", e.fragmentation},
              {"nccl_buffers_gb", e.nccl_buffers_gb},
              {"cuda_graph_gb", e.cuda_graph_gb},
              {"kv_reserve", e.kv_reserve},
              {"kv_block_tokens", e.kv_block_tokens},
              {"kv_formats", e.kv_formats},
              {"sliding_kv", e.sliding_kv},
              {"sliding_pool_ratio", e.sliding_pool_ratio},
              {"sliding_reads", e.sliding_reads},
              {"prefill_chunk_tokens", e.prefill_chunk_tokens},
              {"prefill_chunk_tokens_small", e.prefill_chunk_tokens_small},
              {"max_seqs", e.max_seqs},
              {"max_seqs_small", e.max_seqs_small},
              {"max_seqs_flag", e.max_seqs_flag},
              {"large_gpu_gb", e.large_gpu_gb},
              {"logits_rows", e.logits_rows},
              {"split", e.split},
              {"offload", e.offload},
              {"weight_formats", formats_json(e, engines)},
              {"cuda_graphs", e.cuda_graphs},
              {"moe_kernel", e.moe_kernel},
              {"moe_expert_overhead_us", e.moe_expert_overhead_us},
              {"moe_tile", e.moe_tile},
              {"dense_tile", e.dense_tile},
              {"moe_layer_overhead_us", e.moe_layer_overhead_us},
              {"moe_pick_overhead_us", e.moe_pick_overhead_us},
              {"moe_copy_bytes", e.moe_copy_bytes},
              {"moe_pick_bytes", e.moe_pick_bytes},
              {"bias_add_us", e.bias_add_us},
              {"expert_parallel", e.expert_parallel},
              {"layer_overhead_us", e.layer_overhead_us},
              {"step_overhead_ms", e.step_overhead_ms},
              {"host_sequence_us", e.host_sequence_us},
              {"pipeline_host", e.pipeline_host},
              {"request_overhead_ms", e.request_overhead_ms},
              {"gemm_efficiency", e.gemm_efficiency},
              {"memory_efficiency", e.memory_efficiency},
              {"rocm_gemm_efficiency", e.rocm_gemm_efficiency},
              {"rocm_memory_efficiency", e.rocm_memory_efficiency}};
  out["releases"] = releases_json(e);
  out.update(provenance_json(e.provenance));
  return out;
}

std::string engines_text(const Engines& engines) {
  using A = Table::Align;
  Table table({{"id"},
               {"version"},
               {"as of"},
               {"memory"},
               {"KV block", A::kRight},
               {"prefill chunk"},
               {"max sequences"},
               {"split"},
               {"stacks"}});
  for (const auto& e : engines.engines) {
    table.add_row(
        {e.id, e.version, e.as_of.to_string(), budget_text(e), std::to_string(e.kv_block_tokens),
         chunk_text(e.prefill_chunk_tokens, e.prefill_chunk_tokens_small, e.large_gpu_gb),
         seqs_text(e.max_seqs, e.max_seqs_small, e.large_gpu_gb), e.split, join(e.stacks, "/")});
  }
  Table formats({{"format"}, {"bits/weight", A::kRight}, {"compute"}, {"dequant"}, {"name"}});
  for (const auto& f : engines.formats) {
    formats.add_row({f.id, format_number(f.bits_per_weight), f.compute, f.dequant, f.name});
  }
  return table.render() + "\n" + formats.render() +
         "\n`rigplan engines show ID` gives every figure with its source (data/engines).\n";
}

std::string show_text(const Engine& e, const Engines& engines) {
  const Json json = to_json(e, engines);
  std::string out =
      fmt::format("{} ({}), {} as of {}\n\n", e.name, e.id, e.version, e.as_of.to_string());
  Table table({{"field"}, {"value"}, {"source"}});
  for (const auto& [key, value] : json.items()) {
    if (key == "source" || key == "confidence" || key == "notes" || key == "field_sources" ||
        key == "defined_at" || key == "weight_formats" || key == "releases")
      continue;
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    table.add_row({key, text,
                   e.provenance.field_sources.count(key)
                       ? e.provenance.field_sources.find(key)->second
                       : ""});
  }
  out += table.render();
  std::vector<std::string> formats;
  for (const auto& id : e.weight_formats) {
    auto f = engines.find_format(id);
    if (f) formats.push_back(fmt::format("{} ({} bits)", id, format_number((*f)->bits_per_weight)));
  }
  out += fmt::format("\nweight formats: {}\n", join(formats, ", "));
  // How its MoE kernels multiply a format's experts where that differs from its dense GEMMs.
  for (const auto& g : e.expert_gemms) {
    out += fmt::format(
        "expert GEMM: {} experts on {} GPUs run at the {} rate, {} of the engine's GEMM "
        "efficiency; source: {}\n",
        g.format, g.architecture, g.compute, format_number(g.efficiency), g.source);
  }
  // Releases whose attention differs, each named as id@version.
  for (const auto& r : e.releases) {
    out += fmt::format("release {}@{} ({}): sliding_reads {}; source: {}\n", e.id, r.version,
                       r.backend, r.sliding_reads, r.source);
  }
  out += fmt::format("source: {} ({})\n", e.provenance.source, e.provenance.confidence);
  if (!e.provenance.notes.empty()) out += fmt::format("notes: {}\n", e.provenance.notes);
  return out;
}

}  // namespace rigplan::report
