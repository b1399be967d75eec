// Fine-tuning methods: what LLaMA-Adapter (Zhang et al. 2023) and LLaMA-Adapter v2 (Gao et al.
// 2023) train and keep, read from LitGPT's code (litgpt/adapter.py, litgpt/adapter_v2.py,
// litgpt/model.py). docs/memory.md, "Fine-tuning methods".
#include "model/finetune_methods.h"

#include <fmt/format.h>

#include <algorithm>

namespace rigplan {
namespace {

using Defaults = LitgptAdapterDefaults;

// Bytes per fp32 element: LitGPT's RMSNorm normalizes in fp32 (litgpt/model.py RMSNorm.forward:
// x.float(), x_normed = x · rsqrt(mean(x²) + eps), (x_normed · weight.float()).to(dtype)).
constexpr double kRmsNormFp32Bytes = 4;
// The memory-efficient attention kernel keeps an fp32 log-sum-exp per query and head (as the
// flash term of memory.cc's layer bytes).
constexpr double kLogSumExpBytes = 4;

bool is_mlp(std::string_view linear) {
  return linear == "gate" || linear == "up" || linear == "down";
}

// Norm layers whose parameters v2 trains: norm_1 and norm_2 of every block and the final ln_f
// (litgpt/adapter_v2.py adapter_filter).
double trained_norms(const TransformerConfig& t) {
  return static_cast<double>(t.total_layers()) * t.norms_per_layer.value_or(2) +
         (t.final_norm.value_or(true) ? 1 : 0);
}

}  // namespace

bool is_lora(std::string_view method) { return method == "lora" || method == "qlora"; }
bool is_adapter(std::string_view method) { return method == "adapter" || method == "adapter-v2"; }

bool trains_on_4bit(const RunConfig& c) {
  return c.mode == "train" && c.method != "full" && (c.weights == "nf4" || c.weights == "nf4-dq");
}

int adapter_layers(const TransformerConfig& t) {
  return std::max(0, t.total_layers() - Defaults::kStartLayer);
}

double layer_linear_outputs(const TransformerConfig& t, double mlp_copies) {
  double outputs = t.experts() > 1 ? t.experts() : 0;  // the router, a Linear to the experts
  for (const auto& lin : layer_linears(t))
    outputs += static_cast<double>(lin.out) * (is_mlp(lin.name) ? mlp_copies : 1);
  return outputs;
}

// litgpt/adapter.py CausalSelfAttention: adapter_wte, an Embedding(adapter_prompt_length, n_embd),
// and gating_factor, zeros(1, n_head, 1, 1), in each block from adapter_start_layer on.
// adapter_v2.py AdapterV2Linear: adapter_bias and adapter_scale, each of out_features, on attn,
// proj, the MLP's Linears and lm_head; the norms' weights (and LayerNorm biases) train too.
double adapter_params(const TransformerConfig& t, bool v2) {
  const double d = t.hidden_size;
  double params = adapter_layers(t) * (Defaults::kPromptLength * d + t.num_heads);
  if (!v2) return params;
  const double linears =
      t.total_layers() * layer_linear_outputs(t, t.experts()) + static_cast<double>(t.vocab_size);
  params += 2 * linears;
  params += trained_norms(t) * static_cast<double>(norm_layer_params(t));
  return params;
}

// LLaMA-Adapter's gated prefix attention (litgpt/adapter.py scaled_dot_product_attention):
// ay = attention of the queries over the prompt's keys and values, y + gating_factor · ay.
// The product keeps ay (β·q per token) for the gate's gradient; the attention keeps its fp32
// log-sum-exp per head (memory-efficient kernel, which takes the prompt mask), or without it
// the probabilities over the prompt (H · prompt · β). The prompt's own keys and values are
// kPromptLength tokens per layer, a few kB.
// v2 (adapter_v2.py AdapterV2Linear.forward: adapter_scale · (linear(x) + adapter_bias)): the
// product with the trained scale keeps its other factor, linear(x) + bias, one activation per
// output feature of every Linear, none of which the frozen model keeps (it keeps the scaled
// outputs); with RMSNorm (LitGPT's, in fp32) the trained weight keeps x_normed, 4·d per norm.
// LitGPT's LayerNorm is torch.nn.LayerNorm, which keeps its input, mean and rstd either way.
double adapter_layer_bytes(const TransformerConfig& t, bool v2, double beta, bool flash,
                           std::string* formula) {
  const double heads = t.num_heads, q = heads * t.head_size();
  const double share = static_cast<double>(adapter_layers(t)) / t.total_layers();
  const double prefix = flash ? kLogSumExpBytes * heads : heads * Defaults::kPromptLength * beta;
  double bytes = share * (beta * q + prefix);
  const double outputs = v2 ? layer_linear_outputs(t, t.top_k()) : 0;
  const bool rms = v2 && t.norm == "rmsnorm";
  const double norms = t.norms_per_layer.value_or(2);
  bytes += beta * outputs + (rms ? norms * kRmsNormFp32Bytes * t.hidden_size : 0);
  if (formula) {
    *formula = fmt::format(
        " + {}/L·(βq + {}) (gated prompt attention){}{}", adapter_layers(t),
        flash ? "4H" : fmt::format("H·{}·β", Defaults::kPromptLength),
        v2 ? " + β·Σout (v2: the Linears' unscaled outputs)" : "",
        rms ? fmt::format(" + {}·4d (v2: trained RMSNorm inputs, fp32)", norms) : std::string());
  }
  return bytes;
}

double adapter_head_bytes(const TransformerConfig& t, bool v2, double beta) {
  return v2 && t.arch != "encoder" ? beta * t.vocab_size : 0;
}

}  // namespace rigplan
