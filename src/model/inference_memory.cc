// The memory terms of an LLM served by an engine (docs/inference.md).
#include "model/inference_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/memory_constants.h"
#include "util/strings.h"

namespace rigplan {
namespace {

namespace mc = memory_constants;

std::string num(double x) { return format_number(x); }

// Layers of the largest pipeline stage.
double stage_layers(const TransformerConfig& t, int pp) {
  return std::ceil(static_cast<double>(t.num_layers) / pp);
}

// KV heads one GPU holds: its share, at least one (replicated beyond the KV heads).
double kv_heads_per_gpu(const TransformerConfig& t, int tp) {
  return std::max(1.0, static_cast<double>(t.kv_heads()) / tp);
}

// A mixture of experts' layer at prefill. The fused MoE kernels keep every routed copy of a
// token: vLLM's fused_experts (model_executor/layers/fused_moe/fused_moe.py) allocates
// intermediate_cache1 [M, k, 2F/tp] and intermediate_cache3 [M, k, d] in one buffer and
// intermediate_cache2 [M·k, F/tp] beside it; llama.cpp's mul_mat_id graph and TensorRT-LLM's MoE
// workspace hold the same [tokens, k, ·] tensors. The attention's live tensors are the dense
// layer's, β·3d/tp; the larger of the two is the layer's peak. With expert parallelism (DEP<ep>)
// a GPU's MoE kernel takes the tokens of every GPU of the group, up to ep chunks in a step, and
// its buffers are sized for them: TensorRT-LLM's attention-DP MoE gathers them (its
// moe_max_num_tokens defaults to max_num_tokens times the attention-DP size), and an all-to-all
// dispatch may route every GPU's tokens to one GPU. Qwen3 235B A22B at DEP8 with 8,192-token
// chunks: 8 · 8,192 · 8 · (4,096 + 1,536) · 2 B = 5.91 GB, where one GPU alone holds 0.74 GB.
template <class Add>
void add_expert_activations(const TransformerConfig& t, const InferenceShape& s, double tokens,
                            const std::string& rows, Add& add) {
  const double f = static_cast<double>(t.ffn_size) / s.tp;
  const double d = t.hidden_size;
  const double moe = s.ep * t.top_k() * (std::max(2 * f, d) + f);
  const double attention = mc::kPrefillLiveTensors * 3 * d / s.tp;
  const std::string ep = s.ep > 1 ? "ep·" : "", ep_value = s.ep > 1 ? num(s.ep) + "·" : "";
  add("activations", tokens * std::max(moe, attention) * s.act_bytes,
      fmt::format("{}·max({}k·(max(2F/tp, d) + F/tp), β·3d/tp)·2 (one layer's live tensors: the "
                  "fused MoE kernel's [tokens, k, ·] buffers)",
                  rows, ep),
      fmt::format("{}·max({}{}·(max({}, {}) + {}), {})·{}", num(tokens), ep_value, t.top_k(),
                  num(2 * f), num(d), num(f), num(attention), num(s.act_bytes)));
}

// Tokens the sliding-window layers hold, each, for a batch whose full layers hold `held`
// (Engine::sliding_kv): each sequence's last window in whole blocks (a window that straddles
// a block boundary spans one block more), as vLLM's sliding-window manager frees the blocks
// that leave it; llama.cpp's sliding cache, window·n_seq + n_ubatch cells in its padding; or a
// pool of sliding_pool_ratio tokens per full-layer token (SGLang's swa_full_tokens_ratio; 1:
// the whole context).
double sliding_tokens_held(const InferenceShape& s, double context, double held) {
  const Engine& e = *s.engine;
  if (e.sliding_kv == "pool") return e.sliding_pool_ratio * held;
  const double window = s.t->window();
  if (e.kv_reserve == "context") {
    const double ubatch = std::max(e.chunk_tokens(s.capacity_gb), 1);
    return kv_tokens_held(e, std::min(s.batch * context, s.batch * window + ubatch));
  }
  const double block = std::max(1, e.kv_block_tokens);
  return s.batch * kv_tokens_held(e, std::min(context, window + block - 1));
}

// The KV cache of a model with sliding-window layers: the full layers of a stage hold the
// context, the sliding ones sliding_tokens_held; a stage's layers slide in the model's share.
template <class Add>
void add_sliding_kv(const InferenceShape& s, double context, double held, double per_token,
                    Add& add) {
  const TransformerConfig& t = *s.t;
  const Engine& e = *s.engine;
  const double layers = stage_layers(t, s.pp);
  const double sliding = layers * t.sliding_layers() / t.num_layers, full = layers - sliding;
  const double sliding_held = sliding_tokens_held(s, context, held);
  const double per_layer = per_token / layers;
  const std::string rule =
      e.sliding_kv == "pool"
          ? fmt::format("{} of the full layers' tokens", num(e.sliding_pool_ratio))
      : e.kv_reserve == "context"
          ? "min(b·(s + n_gen), b·window + n_ubatch)"
          : fmt::format("b·ceil(min(s + n_gen, window + {} - 1))", e.kv_block_tokens);
  add("kv_cache", (full * held + sliding * sliding_held) * per_layer,
      fmt::format("(L_full·tokens + L_sliding·tokens_sliding)·2·max(1, n_kv/tp)·d_head·bits/8 "
                  "(a stage's layers; the full layers hold the context, the sliding ones {}, in "
                  "{}'s blocks of {} tokens)",
                  rule, e.name, e.kv_block_tokens),
      fmt::format("({}·{} + {}·{})·2·{}·{}·{}/8", num(full), num(held), num(sliding),
                  num(sliding_held), num(kv_heads_per_gpu(t, s.tp)), t.head_size(),
                  num(s.kv_bits)));
}

// The KV cache of a decoder's sequences. A paged cache holds whole blocks per sequence;
// llama.cpp holds the whole context of every slot, rounded up to its padding.
template <class Add>
void add_kv_cache(const InferenceShape& s, Add& add) {
  const TransformerConfig& t = *s.t;
  const Engine& e = *s.engine;
  const double context = s.seq + s.gen_tokens;
  const bool whole = e.kv_reserve == "context";
  const double held =
      whole ? kv_tokens_held(e, s.batch * context) : s.batch * kv_tokens_held(e, context);
  const double per_token = kv_bytes_per_token(t, s.kv_bits, s.tp, s.pp);
  if (t.sliding_layers() > 0) {
    add_sliding_kv(s, context, held, per_token, add);
    return;
  }
  add("kv_cache", held * per_token,
      fmt::format("{}·2·(L/pp)·max(1, n_kv/tp)·d_head·bits/8 ({}{} tokens per block)",
                  whole ? "ceil(b·(s + n_gen))" : "b·ceil(s + n_gen)", e.name,
                  whole ? "'s whole context," : ":", e.kv_block_tokens),
      fmt::format("{} tokens·2·{}·{}·{}·{}/8", num(held), num(stage_layers(t, s.pp)),
                  num(kv_heads_per_gpu(t, s.tp)), t.head_size(), num(s.kv_bits)));
}

}  // namespace

double kv_bytes_per_token(const TransformerConfig& t, double kv_bits, int tp, int pp) {
  return 2.0 * stage_layers(t, pp) * kv_heads_per_gpu(t, tp) * t.head_size() * kv_bits / 8;
}

double kv_tokens_held(const Engine& engine, double tokens) {
  const double block = std::max(1, engine.kv_block_tokens);
  return std::ceil(tokens / block) * block;
}

std::vector<MemoryTerm> inference_terms(const InferenceShape& s) {
  const TransformerConfig& t = *s.t;
  const Engine& e = *s.engine;
  std::vector<MemoryTerm> out;
  auto add = [&](std::string name, double bytes, std::string formula, std::string values) {
    if (bytes > 0)
      out.push_back({std::move(name), bytes / 1e9, std::move(formula), std::move(values)});
  };
  const double d = t.hidden_size;
  if (t.arch != "encoder") add_kv_cache(s, add);
  // One prefill chunk's live tensors in a layer: the engines reserve them for their chunk size
  // (vLLM profiles a pass at max_num_batched_tokens; llama.cpp sizes its compute buffer for a
  // micro-batch); PyTorch runs the whole prompts at once.
  const int chunk = e.chunk_tokens(s.capacity_gb);
  const double tokens = chunk > 0 ? chunk : static_cast<double>(s.batch) * s.seq;
  const std::string chunk_rows = chunk > 0 ? "chunk" : "b·s";
  if (t.experts() > 1) {
    add_expert_activations(t, s, tokens, chunk_rows, add);
  } else {
    const double widest =
        std::max<double>(3.0 * d, static_cast<double>(t.ffn_size) * (t.gated() ? 2 : 1)) / s.tp;
    add("activations", tokens * widest * s.act_bytes * mc::kPrefillLiveTensors,
        fmt::format("{}·max(3d, F·(2 if gated))/tp·β·2 (one layer's live tensors)", chunk_rows),
        fmt::format("{}·{}·{}·2", num(tokens), num(widest), num(s.act_bytes)));
  }
  if (t.arch != "encoder" && t.vocab_size > 0) {
    const double rows = e.logits_rows == "chunk"      ? tokens
                        : e.logits_rows == "max-seqs" ? std::max(e.max_sequences(s.capacity_gb), 1)
                                                      : s.batch;
    add("logits", rows * t.vocab_size * mc::kLossFp32BytesPerLogit,
        fmt::format("{}·V·4 B (fp32 logits of the last positions)",
                    e.logits_rows == "chunk"      ? "chunk"
                    : e.logits_rows == "max-seqs" ? "max_seqs"
                                                  : "b"),
        fmt::format("{}·{}·4", num(rows), t.vocab_size));
  }
  if (s.format->dequant == "separate") {
    const double widest_matrix = static_cast<double>(t.hidden_size) * t.ffn_size;
    add("dequantized_matrix", widest_matrix * 2, "d·F·2 B (one matrix dequantized to compute)",
        fmt::format("{}·{}·2", t.hidden_size, t.ffn_size));
  }
  return out;
}

std::vector<MemoryTerm> engine_overhead_terms(const Engine& engine, double allocated_gb,
                                              bool model_parallel) {
  std::vector<MemoryTerm> out;
  auto add = [&](std::string name, double gb, std::string formula, std::string values) {
    if (gb > 0) out.push_back({std::move(name), gb, std::move(formula), std::move(values)});
  };
  add("allocator_fragmentation", allocated_gb * engine.fragmentation,
      fmt::format("{}% of the allocated total ({})", num(engine.fragmentation * 100), engine.name),
      fmt::format("{} × {:.2f} GB", num(engine.fragmentation), allocated_gb));
  add("cuda_context", engine.cuda_context_gb,
      fmt::format("CUDA context, kernels and library handles ({})", engine.name),
      fmt::format("{} GB", num(engine.cuda_context_gb)));
  add("cuda_graphs", engine.cuda_graph_gb, fmt::format("captured CUDA graphs ({})", engine.name),
      fmt::format("{} GB", num(engine.cuda_graph_gb)));
  if (model_parallel) {
    add("nccl_buffers", engine.nccl_buffers_gb, "communicator buffers of a replica over GPUs",
        fmt::format("{} GB", num(engine.nccl_buffers_gb)));
  }
  return out;
}

double engine_available_gb(const Engine& engine, double utilization, double capacity_gb,
                           double fixed_gb) {
  if (engine.budget == "total") return utilization * capacity_gb;
  if (engine.budget == "free")
    return capacity_gb - (1 - utilization) * std::max(0.0, capacity_gb - fixed_gb);
  return capacity_gb;
}

}  // namespace rigplan
