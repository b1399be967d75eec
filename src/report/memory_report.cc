#include <fmt/format.h>

#include <algorithm>

#include "rigplan/chart.h"
#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

double round2(double x) { return std::round(x * 100) / 100; }

std::string run_summary(const Workload& w, const RunConfig& c) {
  std::string out = fmt::format("{}, {}", c.mode, c.precision);
  if (c.mode != "train" || (c.weights != "bf16" && c.weights != "f16" && c.weights != "fp32"))
    out += ", weights " + c.weights;
  if (c.mode == "train") {
    if (!c.recipe.empty()) out += ", recipe " + c.recipe;
    out += fmt::format(", {}", c.method);
    if (c.method == "lora" || c.method == "qlora") out += fmt::format(" r={}", c.lora_rank);
    out += fmt::format(", {}", c.optimizer);
    if (c.optimizer_in_backward) out += " in backward";
    if (c.checkpointing) out += ", checkpointing";
    if (c.recompute == "selective") out += ", selective recompute";
    if (c.recompute == "selective-op") out += ", per-op selective recompute";
    if (c.activation_offload) out += ", activation offload";
    if (c.loss_chunks != 1)
      out +=
          c.loss_chunks == 0 ? ", fused loss" : fmt::format(", loss in {} chunks", c.loss_chunks);
    if (c.zero > 0) out += fmt::format(", ZeRO-{}", c.zero);
    if (c.offload != "none") out += fmt::format(", offload {}", c.offload);
    if (!c.train_components.empty())
      out += fmt::format(", training {}", join(c.train_components, " + "));
  }
  if (!c.cached_components.empty())
    out += fmt::format(", {} cached", join(c.cached_components, " + "));
  if (c.mode != "train") {
    out += fmt::format(", {}", c.engine);
    if (c.kv_cache != "auto") out += fmt::format(", KV cache {}", c.kv_cache);
  }
  // An image model's input is its resolution, not a sequence.
  out += w.diffusion ? fmt::format(", batch {}, {} px", *c.batch, w.diffusion->resolution)
                     : fmt::format(", batch {}, seq {}", *c.batch, *c.seq_len);
  if (c.mode != "train" && c.gen_tokens > 0) out += fmt::format(" + {} generated", c.gen_tokens);
  if (c.gpus > 1) out += fmt::format(", {} GPUs", c.gpus);
  if (c.tensor_parallel > 1) out += fmt::format(", TP {}", c.tensor_parallel);
  if (c.pipeline_parallel > 1) out += fmt::format(", PP {}", c.pipeline_parallel);
  return out;
}

// The sequences the KV cache room holds at once per replica. Where the engine's limit holds
// fewer than the room would (llama.cpp's one slot by default), the limit by the engine's own
// name for it, and how many the room holds: what --max-seqs (the engine's option) may raise it to.
std::string kv_room_text(const MemoryEstimate& e) {
  std::string out = fmt::format(
      "KV cache room: {:.1f} GB, {} sequence{} of {} tokens at once per "
      "replica",
      e.kv_room_gb, e.max_sequences, e.max_sequences == 1 ? "" : "s",
      *e.config.seq_len + e.config.gen_tokens);
  if (e.kv_sequences > e.max_sequences && e.engine_max_sequences == e.max_sequences) {
    const auto flag = [&](int n) {
      return e.max_seqs_flag.empty()
                 ? std::string()
                 : fmt::format(", {} {} in {}", e.max_seqs_flag, n, e.config.engine);
    };
    out += fmt::format(": {}'s limit (--max-seqs {}{}); the room holds {} (--max-seqs {}{})",
                       e.config.engine, e.max_sequences, flag(e.max_sequences), e.kv_sequences,
                       e.kv_sequences, flag(e.kv_sequences));
  }
  return out + ".\n";
}

// Whether it fits, the largest batch, the longest sequence, the fewest GPUs and the suggestions.
std::string verdict(const Workload& workload, const Gpu& gpu, const MemoryEstimate& e) {
  std::string out;
  const bool budget = e.config.mode != "train" && e.available_gb < e.capacity_gb - 1e-9;
  if (e.fits) {
    out += fmt::format(
        "Fits, with {:.2f} GB to spare{}. ", e.headroom_gb,
        budget ? fmt::format(" of the {:.1f} GB {} may use", e.available_gb, e.config.engine) : "");
  } else if (budget) {
    out +=
        fmt::format("Does not fit: needs {:.1f} GB, {} may use {:.1f} GB of the {}'s {:.1f} GB. ",
                    e.total_gb, e.config.engine, e.available_gb, gpu.id, e.capacity_gb);
  } else {
    out += fmt::format("Does not fit: needs {:.1f} GB, the {} has {:.1f} GB. ", e.total_gb, gpu.id,
                       e.capacity_gb);
  }
  out += e.max_batch > 0 ? fmt::format("Largest {}batch that fits: {}. ",
                                       e.config.micro_batch ? "micro-" : "", e.max_batch)
                         : std::string("Not even a batch of 1 fits. ");
  if (workload.transformer) {
    out += e.max_seq_len > 0 ? fmt::format("Longest sequence at this batch: {}. ", e.max_seq_len)
                             : std::string("No sequence length fits at this batch. ");
  }
  out += e.min_gpus > 0 ? fmt::format("Fewest GPUs that hold it: {}.\n", e.min_gpus)
                        : std::string("Not within 1024 GPUs.\n");
  if (e.config.mode != "train" && workload.transformer) out += kv_room_text(e);
  if (!e.suggestions.empty()) out += "Would fit with: " + join(e.suggestions, ", ") + ".\n";
  for (const auto& w : e.warnings) out += "Warning: " + w + ".\n";
  for (const auto& note : e.notes) out += "Assumed: " + note + ".\n";
  return out;
}

// Each term's name, size, formula and the values in it.
Json terms_json(const std::vector<MemoryTerm>& terms) {
  Json out = Json::array();
  for (const auto& t : terms) {
    out.push_back(
        {{"name", t.name}, {"gb", round2(t.gb)}, {"formula", t.formula}, {"values", t.values}});
  }
  return out;
}

// The configuration as estimated, defaults resolved.
Json config_json(const RunConfig& c) {
  return {{"mode", c.mode},
          {"precision", c.precision},
          {"weights", c.weights},
          {"method", c.method},
          {"optimizer", c.optimizer},
          {"lora_rank", c.lora_rank},
          {"batch", *c.batch},
          {"seq_len", *c.seq_len},
          {"checkpointing", c.checkpointing},
          {"zero", c.zero},
          {"gpus", c.gpus},
          {"offload", c.offload},
          {"recompute", c.recompute},
          {"activation_offload", c.activation_offload},
          {"optimizer_in_backward", c.optimizer_in_backward},
          {"loss_chunks", c.loss_chunks},
          {"grad_accum", c.grad_accum},
          {"full_state_load", c.full_state_load},
          {"train_components", c.train_components},
          {"cached_components", c.cached_components},
          {"tp", c.tensor_parallel},
          {"pp", c.pipeline_parallel},
          {"engine", c.engine},
          {"kv_cache", c.kv_cache},
          {"gen_tokens", c.gen_tokens}};
}

}  // namespace

Json to_json(const Workload& workload, const Gpu& gpu, const MemoryEstimate& e) {
  Json breakdown = Json::object();
  for (const auto& t : e.terms) breakdown[t.name] = round2(t.gb);
  return {{"workload", workload.id},
          {"gpu", gpu.id},
          {"config", config_json(e.config)},
          {"total_gb", round2(e.total_gb)},
          {"allocated_gb", round2(e.allocated_gb)},
          {"capacity_gb", round2(e.capacity_gb)},
          {"fits", e.fits},
          {"headroom_gb", round2(e.headroom_gb)},
          {"max_batch", e.max_batch},
          {"max_seq_len", e.max_seq_len},
          {"min_gpus", e.min_gpus},
          {"breakdown", breakdown},
          {"terms", terms_json(e.terms)},
          {"host_gb", round2(e.host_gb)},
          {"host_terms", terms_json(e.host_terms)},
          {"suggestions", e.suggestions},
          {"available_gb", round2(e.available_gb)},
          {"kv_room_gb", round2(e.kv_room_gb)},
          {"max_sequences", e.max_sequences},
          {"kv_sequences", e.kv_sequences},
          {"engine_max_sequences", e.engine_max_sequences},
          {"notes", e.notes},
          {"warnings", e.warnings}};
}

std::string memory_text(const Workload& workload, const Gpu& gpu, const MemoryEstimate& e,
                        bool explain) {
  std::string out =
      fmt::format("{} on {} ({} GB marketed = {:.2f} GB): {}\n\n", workload.id, gpu.id,
                  format_number(gpu.memory_gb), e.capacity_gb, run_summary(workload, e.config));
  std::vector<Table::Column> columns = {{"term"}, {"GB", Table::Align::kRight}};
  if (explain) {
    columns.push_back({"formula"});
    columns.push_back({"values"});
  }
  Table table(columns);
  for (const auto& t : e.terms) {
    std::vector<std::string> row = {t.name, fmt::format("{:.2f}", t.gb)};
    if (explain) {
      row.push_back(t.formula);
      row.push_back(t.values);
    }
    table.add_row(row);
  }
  table.add_row({"total", fmt::format("{:.2f}", e.total_gb)});
  out += table.render() + "\n";
  if (!e.host_terms.empty()) {
    std::vector<std::string> host;
    for (const auto& t : e.host_terms) host.push_back(fmt::format("{} {:.2f} GB", t.name, t.gb));
    out += fmt::format("In host memory, not on the GPU: {} ({:.2f} GB).\n", join(host, ", "),
                       e.host_gb);
  }
  out += verdict(workload, gpu, e);
  if (!explain) out += "Formulas: add --explain.\n";
  return out;
}

std::string memory_html(const Workload& workload, const Gpu& gpu,
                        const std::vector<std::pair<std::string, MemoryEstimate>>& estimates,
                        const std::string& date) {
  chart::StackedBarChart bars{
      fmt::format("Memory of {} on {}", workload.id, gpu.id),
      "memory per GPU (GB)",
      chart::dated("rigplan memory: formulas in docs/memory.md, validated against measured peaks",
                   date),
      {},
      {},
      0,
      ""};
  for (const auto& [label, e] : estimates) {
    for (const auto& t : e.terms) {
      if (std::find(bars.parts.begin(), bars.parts.end(), t.name) == bars.parts.end())
        bars.parts.push_back(t.name);
    }
  }
  for (const auto& [label, e] : estimates) {
    chart::StackedBarChart::Bar bar{label, std::vector<double>(bars.parts.size(), 0.0)};
    for (const auto& t : e.terms) {
      const auto at = std::find(bars.parts.begin(), bars.parts.end(), t.name) - bars.parts.begin();
      bar.values[static_cast<size_t>(at)] += t.gb;
    }
    bars.bars.push_back(std::move(bar));
    bars.limit = e.capacity_gb;
  }
  bars.limit_label = fmt::format("{} {:.1f} GB", gpu.id, bars.limit);
  std::vector<chart::Section> sections;
  if (!estimates.empty()) {
    const MemoryEstimate& e = estimates.front().second;
    chart::Section s{
        fmt::format("{} on {}: {}", workload.id, gpu.id, run_summary(workload, e.config)),
        {verdict(workload, gpu, e)},
        {},
        {chart::svg(bars)}};
    s.table.push_back({"term", "GB", "formula", "values"});
    for (const auto& t : e.terms)
      s.table.push_back({t.name, fmt::format("{:.2f}", t.gb), t.formula, t.values});
    s.table.push_back({"total", fmt::format("{:.2f}", e.total_gb), "", ""});
    sections.push_back(std::move(s));
  }
  return chart::html_page(
      "rigplan memory", sections,
      chart::dated("Generated by rigplan. GB are 1e9 bytes; the GPU's marketed GB are converted as "
                   "in docs/memory.md",
                   date));
}

}  // namespace rigplan::report
