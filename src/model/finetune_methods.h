// What each fine-tuning method (RunConfig::method) trains and what it adds to a transformer's
// training step beside the frozen base weights: LoRA's adapters, LLaMA-Adapter and LLaMA-Adapter
// v2 as LitGPT builds them, and bitsandbytes' 4-bit base weights. docs/memory.md, "Fine-tuning
// methods", derives each number.
#pragma once

#include <string>
#include <string_view>

#include "rigplan/memory.h"
#include "rigplan/workload.h"

namespace rigplan {

// LitGPT's LLaMA-Adapter defaults (litgpt/adapter.py, Config: adapter_prompt_length: int = 10,
// adapter_start_layer: int = 2; adapter_v2.py inherits them).
struct LitgptAdapterDefaults {
  static constexpr int kPromptLength = 10;  // learned prompt tokens per adapted layer
  static constexpr int kStartLayer = 2;     // layers 0 and 1 keep no adapter
};

bool is_lora(std::string_view method);     // lora, qlora: low-rank adapters on targeted linears
bool is_adapter(std::string_view method);  // adapter, adapter-v2: LLaMA-Adapter (LitGPT)

// A training run whose frozen base weights bitsandbytes stores in 4 bits (nf4, nf4-dq): QLoRA,
// LoRA or an adapter over LitGPT's --quantize bnb.nf4. Each matmul dequantizes its weight and
// keeps its input for the backward pass (memory.cc, "4-bit").
bool trains_on_4bit(const RunConfig& c);

// The layers of a transformer that carry an adapter prompt: those from kStartLayer on.
int adapter_layers(const TransformerConfig& t);

// Parameters LLaMA-Adapter trains: per adapted layer a prompt of kPromptLength · d and a gating
// factor per head. v2 adds a bias and a scale (2 · out_features) on every Linear, lm_head
// included, and trains every norm's parameters (litgpt/adapter_v2.py, adapter_filter).
double adapter_params(const TransformerConfig& t, bool v2);

// Bytes per token a layer keeps for the backward pass because of the adapters, averaged over
// the layers (adapter_layers of total_layers carry a prompt), at `beta` bytes per activation;
// `formula` (when not null) is set to the text added to a layer's formula.
double adapter_layer_bytes(const TransformerConfig& t, bool v2, double beta, bool flash,
                           std::string* formula);

// v2: bytes per token the lm_head's scale keeps, the unscaled logits (beta · V); 0 for v1.
double adapter_head_bytes(const TransformerConfig& t, bool v2, double beta);

// Output features of one layer's Linears (q, k and v, LitGPT's fused attn, count as their sum),
// the MLP's counted `mlp_copies` times (a mixture: its experts, or the top_k a token runs) plus
// a mixture's router: what v2 gives a scale and a bias, and what it scales per token.
double layer_linear_outputs(const TransformerConfig& t, double mlp_copies);

}  // namespace rigplan
