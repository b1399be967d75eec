// Parameter counts from the architecture (docs/workloads.md, "Parameter count").
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "rigplan/workload.h"

namespace rigplan {
namespace {

// Counts are summed in double, exact for every integer below 2^53 (9e15 parameters), so that no
// architecture a file can describe wraps a 64-bit integer; the loaders refuse models above
// kMaxModelParams before anything uses the count.
using I = double;

I norm_params(const TransformerConfig& t, I width) {
  return t.norm == "layernorm" ? 2 * width : width;
}
I norm_params(const TransformerConfig& t) { return norm_params(t, t.hidden_size); }

I attention_params(const TransformerConfig& t, int kv_heads) {
  const I d = t.hidden_size, q = static_cast<I>(t.num_heads) * t.head_size(),
          kv = static_cast<I>(kv_heads) * t.head_size();
  I p = d * q + 2 * d * kv + q * d;
  if (t.attention_bias.value_or(false)) {
    p += q + 2 * kv + d;
  } else if (t.qkv_bias.value_or(false)) {
    p += q + 2 * kv;
  }
  return p;
}

// Self-attention with its per-head query and key norms (qk_norm: one norm of head_dim each).
I self_attention_params(const TransformerConfig& t) {
  const I qk_norms = t.qk_norm.value_or(false) ? 2 * norm_params(t, t.head_size()) : 0;
  return attention_params(t, t.kv_heads()) + qk_norms;
}

I mlp_params(const TransformerConfig& t) {
  const I d = t.hidden_size, f = t.ffn_size;
  I p = (t.gated() ? 3 : 2) * d * f;
  if (t.mlp_bias.value_or(false)) p += (t.gated() ? 2 * f : f) + d;
  return p;
}

I exact_layer_params(const Layer& l) {
  const std::string_view op = l.op;
  const I kh = l.kernel_h.value_or(l.kernel), kw = l.kernel_w.value_or(l.kernel);
  if (op == "conv2d" || op == "conv_transpose2d") {
    const auto per_group = l.in_channels / l.groups;  // exact: the loader checks that they divide
    return static_cast<I>(l.out_channels) * per_group * kh * kw +
           (l.bias.value_or(false) ? l.out_channels : 0);
  }
  if (op == "linear") {
    return static_cast<I>(l.in_features) * l.out_features +
           (l.bias.value_or(true) ? l.out_features : 0);
  }
  if (op == "embedding") return static_cast<I>(l.num_embeddings) * l.dim;
  if (op == "lstm") {
    const I h = l.hidden_size;
    return (l.bidirectional ? 2 : 1) * 4 * (static_cast<I>(l.input_size) * h + h * h + 2 * h);
  }
  if (op == "norm") return static_cast<I>(l.norm_params_per_channel) * l.channels;
  return 0;
}

// A count as an integer; counts beyond int64 (refused by the loaders) saturate.
std::int64_t whole(I count) {
  constexpr double kMax = 9.2e18;
  return static_cast<std::int64_t>(std::min(count, kMax));
}

double layer_forward_flops(const Layer& l) {
  const std::string_view op = l.op;
  const double kh = l.kernel_h.value_or(l.kernel), kw = l.kernel_w.value_or(l.kernel);
  if (op == "conv2d" || op == "conv_transpose2d") {
    return 2.0 * l.out_h * l.out_w * l.out_channels *
           (static_cast<double>(l.in_channels) / l.groups) * kh * kw;
  }
  if (op == "linear") return 2.0 * static_cast<double>(l.tokens) * l.in_features * l.out_features;
  if (op == "lstm") {
    const double h = l.hidden_size;
    return 2.0 * static_cast<double>(l.steps) * (l.bidirectional ? 2 : 1) * 4 *
           (l.input_size * h + h * h);
  }
  if (op == "attention") {
    return 4.0 * l.heads * l.head_dim * static_cast<double>(l.query_len) *
           static_cast<double>(l.key_len);
  }
  // mean, variance, subtract, divide, scale and shift: about 5 FLOPs per element, by counting.
  if (op == "norm") return 5.0 * static_cast<double>(l.elements);
  if (op == "elementwise") return static_cast<double>(l.elements);
  return 0;  // embedding lookups move bytes, not FLOPs
}

}  // namespace

int TransformerConfig::sliding_layers() const {
  if (window() <= 0) return 0;
  const int period = sliding_window_pattern.value_or(0);
  return period > 0 ? num_layers - num_layers / period : num_layers;
}

double causal_keys(double tokens, int window) {
  if (window <= 0 || tokens <= window) return tokens * (tokens + 1) / 2;
  const double w = window;
  return w * (w + 1) / 2 + (tokens - w) * w;
}

std::int64_t layer_params(const Layer& layer) { return whole(exact_layer_params(layer)); }
std::int64_t norm_layer_params(const TransformerConfig& t) { return whole(norm_params(t)); }

FlopCounts count_flops(const Workload& w, int batch, int seq_len) {
  FlopCounts f;
  if (w.transformer) {
    const TransformerConfig& t = *w.transformer;
    const ParamCounts p = count_params(w);
    // Matrix multiplies touch every active non-embedding weight once per token (2 FLOPs each),
    // plus the LM head; attention scores and context add 2·2·s·q per token and layer, halved
    // by causal masking in decoders (Kaplan et al. 2020, table 1). A sliding layer's query
    // attends to at most its window: causal_keys(s, w)/s keys on average over a pass, min(s, w)
    // when decoding at a context of s.
    const double head = t.arch == "encoder" ? 0 : 2.0 * t.vocab_size * t.hidden_size;
    const double dense = 2.0 * static_cast<double>(p.active - p.embedding - p.head) + head;
    const double q = static_cast<double>(t.num_heads) * t.head_size();
    const double causal = t.arch == "encoder" ? 1.0 : 0.5;
    const double tokens = static_cast<double>(batch) * seq_len;
    const double s = seq_len;
    const int sliding = t.sliding_layers();
    const double attention = 4.0 * q *
                             ((t.total_layers() - sliding) * s * causal +
                              (s > 0 ? sliding * causal_keys(s, t.window()) / s : 0));
    f.forward = tokens * (dense + attention);
    if (t.arch != "encoder") {
      const double keys = (t.num_layers - sliding) * s + sliding * std::min<double>(s, t.window());
      f.decode_per_token = batch * (dense + 4.0 * keys * q);
    }
  } else {
    double per_sample = 0;
    for (const auto& l : w.layers) per_sample += layer_forward_flops(l) * l.count;
    f.forward = per_sample * batch;
  }
  f.backward = 2 * f.forward;
  f.train = f.forward + f.backward;
  f.train_recompute = f.train + f.forward;
  f.prefill = f.forward;
  return f;
}

std::vector<LinearShape> layer_linears(const TransformerConfig& t) {
  using L = std::int64_t;
  const L d = t.hidden_size, q = static_cast<L>(t.num_heads) * t.head_size(),
          kv = static_cast<L>(t.kv_heads()) * t.head_size(), f = t.ffn_size;
  std::vector<LinearShape> out = {{"q", d, q}, {"k", d, kv}, {"v", d, kv}, {"o", q, d}};
  if (t.gated()) out.push_back({"gate", d, f});
  out.push_back({"up", d, f});
  out.push_back({"down", f, d});
  return out;
}

ParamCounts count_params(const Workload& w) {
  ParamCounts c;
  if (!w.transformer) {
    I total = 0, embedding = 0;
    for (const auto& l : w.layers) {
      const I p = exact_layer_params(l) * l.count;
      total += p;
      if (std::string_view(l.op) == "embedding") embedding += p;
    }
    c.total = c.active = whole(total);
    c.embedding = whole(embedding);
    return c;
  }
  const TransformerConfig& t = *w.transformer;
  const I d = t.hidden_size, norm = norm_params(t);
  const I mlp = mlp_params(t);
  const I moe = t.experts() > 1 ? t.experts() * mlp + d * t.experts() : mlp;
  const I self_attention = self_attention_params(t);
  const I decoder_layer =
      self_attention + moe + t.norms_per_layer.value_or(2) * norm +
      (t.arch == "encoder-decoder" ? attention_params(t, t.num_heads) + norm : 0);
  const I encoder_layer = self_attention + moe + 2 * norm;
  const int stacks = t.arch == "encoder-decoder" ? 2 : 1;

  I embedding = static_cast<I>(t.vocab_size) * d;
  if (t.position == "learned") embedding += static_cast<I>(t.max_positions) * d;
  embedding += static_cast<I>(t.type_vocab_size.value_or(0)) * d;
  if (t.embedding_norm.value_or(false)) embedding += norm;
  I head = t.tied_embeddings ? 0 : static_cast<I>(t.vocab_size) * d;
  if (t.lm_head_bias.value_or(false)) head += t.vocab_size;

  I total = embedding + head + t.num_layers * decoder_layer + t.encoder_layers * encoder_layer;
  if (t.final_norm.value_or(true)) total += stacks * norm;
  if (t.pooler.value_or(false)) total += d * d + d;
  total += static_cast<I>(t.relative_attention_buckets.value_or(0)) * t.num_heads * stacks;
  total += static_cast<I>(t.extra_params.value_or(0));
  const I inactive_experts = t.experts() > 1 ? (t.experts() - t.top_k()) * mlp : 0;
  c.embedding = whole(embedding);
  c.head = whole(head);
  c.per_layer = whole(decoder_layer);
  c.total = whole(total);
  c.active = whole(total - t.total_layers() * inactive_experts);
  c.experts = t.experts() > 1 ? whole(t.total_layers() * t.experts() * mlp) : 0;
  return c;
}

Status check_model_size(const Workload& w) {
  const double total = static_cast<double>(count_params(w).total);
  if (total <= kMaxModelParams) return {};
  return Status::invalid_input(
      fmt::format("the architecture has {:.3g} parameters; rigplan plans models of up to {:.0e}",
                  total, kMaxModelParams));
}

}  // namespace rigplan
