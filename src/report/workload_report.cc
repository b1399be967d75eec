#include <fmt/format.h>

#include "rigplan/report.h"
#include "util/figures.h"
#include "util/strings.h"

namespace rigplan::report {

Json to_json(const Workload& w) {
  const ParamCounts p = count_params(w);
  Json out = {{"id", w.id},
              {"name", w.name},
              {"aliases", w.aliases},
              {"task", w.task},
              {"params", p.total},
              {"active_params", p.active},
              {"published_params", w.published_params},
              {"params_source", w.params_source},
              {"default_precision", w.default_precision},
              {"default_batch", w.default_batch},
              {"throughput_unit", w.throughput_unit},
              {"architecture", w.transformer ? "transformer"
                               : w.resnet    ? "resnet"
                                             : "layers"},
              {"source", w.provenance.source},
              {"confidence", w.provenance.confidence}};
  if (w.default_seq_len) out["default_seq_len"] = *w.default_seq_len;
  const FlopCounts f = count_flops(w, 1, w.default_seq_len.value_or(1));
  out["flops_per_sample"] = {{"forward", f.forward},
                             {"train", f.train},
                             {"train_recompute", f.train_recompute},
                             {"decode_per_token", f.decode_per_token}};
  if (w.transformer) {
    const auto& t = *w.transformer;
    out["transformer"] = {{"arch", t.arch},
                          {"hidden_size", t.hidden_size},
                          {"num_layers", t.num_layers},
                          {"encoder_layers", t.encoder_layers},
                          {"num_heads", t.num_heads},
                          {"num_kv_heads", t.kv_heads()},
                          {"head_dim", t.head_size()},
                          {"ffn_size", t.ffn_size},
                          {"ffn_type", t.ffn_type},
                          {"vocab_size", t.vocab_size},
                          {"num_experts", t.experts()},
                          {"experts_top_k", t.top_k()}};
    if (t.sliding_layers() > 0) {
      out["transformer"]["sliding_window"] = t.window();
      out["transformer"]["sliding_layers"] = t.sliding_layers();
    }
  } else {
    out["layers"] = w.layers.size();
  }
  if (!w.provenance.notes.empty()) out["notes"] = w.provenance.notes;
  return out;
}

std::string show_text(const Workload& w) {
  const ParamCounts p = count_params(w);
  std::string out = fmt::format("{} ({}), {}\n", w.name, w.id, w.task);
  out += fmt::format(
      "parameters: {} computed, {} published ({:+.2f}%; {})\n", p.total, w.published_params,
      (static_cast<double>(p.total) / static_cast<double>(w.published_params) - 1) * 100,
      w.params_source);
  if (p.active != p.total) out += fmt::format("active per token: {}\n", p.active);
  if (w.transformer) {
    const auto& t = *w.transformer;
    out += fmt::format(
        "transformer: {}, d {}, {} layers{}{}, {} heads ({} KV, head dim {}), FFN {} {}, vocab "
        "{}{}\n",
        t.arch, t.hidden_size, t.num_layers,
        t.encoder_layers ? fmt::format(" + {} encoder", t.encoder_layers) : "",
        t.sliding_layers() > 0 ? fmt::format(" ({} attend through a window of {} tokens)",
                                             t.sliding_layers(), t.window())
                               : "",
        t.num_heads, t.kv_heads(), t.head_size(), t.ffn_size, t.ffn_type, t.vocab_size,
        t.experts() > 1 ? fmt::format(", {} experts top-{}", t.experts(), t.top_k()) : "");
  } else {
    out += fmt::format("{} layers\n", w.layers.size());
  }
  const FlopCounts f = count_flops(w, 1, w.default_seq_len.value_or(1));
  out +=
      fmt::format("FLOPs per sample{}: forward {} G, training step {} G ({} G with recomputation)",
                  w.default_seq_len ? fmt::format(" of {} tokens", *w.default_seq_len) : "",
                  significant(f.forward / 1e9), significant(f.train / 1e9),
                  significant(f.train_recompute / 1e9));
  out += f.decode_per_token > 0
             ? fmt::format(", decode {} G per token\n", significant(f.decode_per_token / 1e9))
             : "\n";
  out += fmt::format(
      "defaults: {}, batch {}{}; throughput in {}\n", w.default_precision, w.default_batch,
      w.default_seq_len ? fmt::format(", seq {}", *w.default_seq_len) : "", w.throughput_unit);
  out += fmt::format("source: {} ({})\n", w.provenance.source, w.provenance.confidence);
  if (!w.provenance.notes.empty()) out += fmt::format("notes: {}\n", w.provenance.notes);
  return out;
}

}  // namespace rigplan::report
