// The memory model (docs/memory.md). Every term is bytes per GPU; the estimate reports GB.
#include "rigplan/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/memory_constants.h"
#include "util/strings.h"

namespace rigplan {
namespace {

namespace mc = memory_constants;

constexpr std::string_view kModes[] = {"train", "infer", "prefill", "decode"};
constexpr std::string_view kPrecisions[] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
constexpr std::string_view kMethods[] = {"full", "lora", "qlora"};
constexpr std::string_view kOptimizers[] = {"adamw", "adam8bit", "sgd", "sgd-momentum",
                                            "adafactor"};
constexpr std::string_view kTargets[] = {"q", "k", "v", "o", "gate", "up", "down", "all"};
constexpr std::string_view kOffloads[] = {"none", "cpu"};

Status check_choice(std::string_view option, const std::string& value,
                    std::span<const std::string_view> accepted) {
  if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return {};
  std::vector<std::string> names(accepted.begin(), accepted.end());
  return Status::invalid_input(fmt::format("--{} '{}' is not accepted; expected {}{}", option,
                                           value, quoted_list(names), did_you_mean(value, names)));
}

std::string gb(double bytes) { return fmt::format("{:.2f} GB", bytes / 1e9); }
std::string num(double x) { return format_number(x); }
std::string big(double x) {  // 6.74e9 -> "6.74B"
  if (x >= 1e9) return fmt::format("{:.3g}B", x / 1e9);
  if (x >= 1e6) return fmt::format("{:.3g}M", x / 1e6);
  return format_number(x);
}

bool is_quantized(const std::string& weights) {
  return weights != "fp32" && weights != "f16" && weights != "bf16" && weights != "fp16";
}

// The resolved run: defaults filled in, derived sizes computed once.
struct Run {
  const Workload& w;
  RunConfig c;
  bool train = true;
  bool mixed = false;    // 16-bit compute with an fp32 master copy (PyTorch AMP)
  double act_bytes = 2;  // bytes per activation element
  int batch = 1;
  int seq = 1;
  int dp = 1;  // data-parallel degree
  int mp = 1;  // model-parallel degree (tensor x pipeline)
};

struct Terms {
  std::vector<MemoryTerm> list;
  void add(std::string name, double bytes, std::string formula, std::string values) {
    if (bytes <= 0) return;
    list.push_back({std::move(name), bytes / 1e9, std::move(formula), std::move(values)});
  }
  double bytes() const {
    double sum = 0;
    for (const auto& t : list) sum += t.gb * 1e9;
    return sum;
  }
};

// LoRA adds r·(in + out) trainable parameters per targeted matrix per layer.
double lora_params(const Run& r) {
  const auto& targets = r.c.lora_targets;
  auto targeted = [&](std::string_view name) {
    return std::find(targets.begin(), targets.end(), "all") != targets.end() ||
           std::find(targets.begin(), targets.end(), name) != targets.end();
  };
  double per_layer = 0;
  if (r.w.transformer) {
    for (const auto& lin : layer_linears(*r.w.transformer)) {
      if (targeted(lin.name))
        per_layer += static_cast<double>(r.c.lora_rank) * static_cast<double>(lin.in + lin.out);
    }
    return per_layer * r.w.transformer->total_layers();
  }
  // A layer list: LoRA on every linear layer (attention projections in practice).
  double total = 0;
  for (const auto& l : r.w.layers) {
    if (l.op == "linear")
      total += static_cast<double>(r.c.lora_rank) * (l.in_features + l.out_features) * l.count;
  }
  return total;
}

// Bytes of the parameter state: weights, 16-bit copies, gradients, optimizer, per GPU.
void parameter_terms(const Run& r, const ParamCounts& p, Terms& t) {
  const bool full = r.c.method == "full";
  const double total = static_cast<double>(p.total);
  const double trainable = r.train ? (full ? total : lora_params(r)) : 0;
  const double frozen = r.train && full ? 0 : total;
  const std::string& fmt_w = r.c.weights;
  const double bits = *bits_per_weight(fmt_w);

  // Frozen weights in their storage format; quantized formats keep embeddings and the LM head
  // in 16 bit (bitsandbytes and GPTQ quantize linear layers only).
  double frozen_bytes = 0;
  std::string frozen_formula, frozen_values;
  if (frozen > 0) {
    if (is_quantized(fmt_w) && fmt_w.rfind("q", 0) != 0) {  // GGUF bits already average all tensors
      const double kept = static_cast<double>(p.embedding + p.head);
      frozen_bytes = (frozen - kept) * bits / 8 + kept * 2;
      frozen_formula = "(P - P_embed - P_head)·bits/8 + (P_embed + P_head)·2";
      frozen_values =
          fmt::format("({} - {})·{}/8 + {}·2", big(frozen), big(kept), num(bits), big(kept));
    } else {
      frozen_bytes = frozen * bits / 8;
      frozen_formula = "P·bits/8";
      frozen_values = fmt::format("{}·{}/8", big(frozen), num(bits));
    }
  }
  // Trainable parameters: the working weights, their gradients and the optimizer state.
  const bool pure = r.c.pure_16bit || !r.mixed;
  const double state = pure && r.act_bytes == 2 ? 2 : 4;  // bytes of a weight, gradient or state
  double optimizer_per_param = 0;
  std::string optimizer_formula;
  if (r.c.optimizer == "adamw") {
    optimizer_per_param = 2 * state;
    optimizer_formula = fmt::format("2 moments × {} B", num(state));
  } else if (r.c.optimizer == "sgd-momentum") {
    optimizer_per_param = state;
    optimizer_formula = fmt::format("1 momentum × {} B", num(state));
  } else if (r.c.optimizer == "adam8bit") {
    optimizer_per_param = mc::kAdam8bitBytes;
    optimizer_formula = "2 moments × 1 B (8-bit)";
  } else if (r.c.optimizer == "adafactor") {
    // Factored second moment: rows + columns per matrix, about 4 B / sqrt(matrix size).
    optimizer_per_param = r.w.transformer ? 4.0 * 2 / r.w.transformer->hidden_size : 0.01;
    optimizer_formula = "factored second moment: 4 B·(rows + cols) per matrix";
  } else {
    optimizer_formula = "plain SGD keeps no state";
  }

  const double shard_opt = r.c.zero >= 1 ? r.dp : 1;
  const double shard_grad = r.c.zero >= 2 ? r.dp : 1;
  const double shard_w = r.c.zero >= 3 ? r.dp : 1;
  const bool offload = r.c.offload == "cpu";
  const double mp = r.mp;

  const double weight_bytes =
      (frozen_bytes + trainable * state) / mp / shard_w * (offload && r.c.zero >= 3 ? 0 : 1);
  t.add("weights", weight_bytes,
        fmt::format(
            "({}{}) / model_parallel{}", frozen > 0 ? frozen_formula : "",
            trainable > 0 ? fmt::format("{}P_train·{} B", frozen > 0 ? " + " : "", num(state)) : "",
            r.c.zero >= 3 ? (offload ? " (offloaded to CPU with ZeRO-3)" : " / dp (ZeRO-3)") : ""),
        fmt::format("({}{}) / {}{}", frozen > 0 ? frozen_values : "",
                    trainable > 0 ? fmt::format("{}{}·{}", frozen > 0 ? " + " : "", big(trainable),
                                                num(state))
                                  : "",
                    num(mp), r.c.zero >= 3 ? fmt::format(" / {}", r.dp) : ""));
  if (offload && r.c.zero >= 3) {
    // DeepSpeed ZeRO-3 with parameter offload keeps up to stage3_max_live_parameters on the GPU.
    const double live = std::min(total, mc::kZero3MaxLiveParams) * bits / 8;
    t.add("live_parameters", live, "min(P, 1e9 live parameters) × bytes (DeepSpeed ZeRO-3 default)",
          fmt::format("min({}, 1e9) × {}", big(total), num(bits / 8)));
  } else if (r.c.zero >= 3 && r.dp > 1 && r.w.transformer) {
    // FSDP / ZeRO-3 gather one layer's full weights (and prefetch the next) to compute.
    const double working = 2.0 * static_cast<double>(p.per_layer) * 2 / mp;
    t.add("gathered_layers", working, "2 layers × P_layer × 2 B (ZeRO-3 all-gather and prefetch)",
          fmt::format("2 × {} × 2", big(static_cast<double>(p.per_layer))));
  }
  if (r.train && r.c.method == "qlora") {
    t.add("qlora_workspace", frozen * mc::kQloraWorkspaceBytesPerParam / mp,
          fmt::format("P × {} B (bitsandbytes 4-bit training, fitted)",
                      num(mc::kQloraWorkspaceBytesPerParam)),
          fmt::format("{} × {}", big(frozen), num(mc::kQloraWorkspaceBytesPerParam)));
  }
  if (trainable <= 0) return;
  if (r.mixed && !r.c.pure_16bit) {
    t.add("half_precision_copies", trainable * 2 / mp / shard_w,
          "P_train × 2 B (16-bit copies autocast keeps for the backward pass)",
          fmt::format("{} × 2", big(trainable)));
  }
  t.add("gradients", trainable * state / mp / shard_grad,
        fmt::format("P_train × {} B{}", num(state), r.c.zero >= 2 ? " / dp" : ""),
        fmt::format("{} × {}{}", big(trainable), num(state),
                    r.c.zero >= 2 ? fmt::format(" / {}", r.dp) : ""));
  t.add("optimizer", offload ? 0 : trainable * optimizer_per_param / mp / shard_opt,
        fmt::format("P_train × {}{}", optimizer_formula, r.c.zero >= 1 ? " / dp" : ""),
        fmt::format("{} × {}{}", big(trainable), num(optimizer_per_param),
                    r.c.zero >= 1 ? fmt::format(" / {}", r.dp) : ""));
}

// Bytes a transformer layer keeps per token for the backward pass (docs/memory.md):
// Korthikanti et al. 2022 generalised to GQA, gated MLPs and frozen weights.
double transformer_layer_bytes(const Run& r, std::string* formula) {
  const TransformerConfig& t = *r.w.transformer;
  const double b = r.act_bytes, d = t.hidden_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const double f = static_cast<double>(t.ffn_size) * t.top_k();
  const bool frozen = r.c.method != "full";
  const bool dropout = t.dropout.value_or(true);
  // Attention: two norm inputs, the norm output, Q, K, V, the attention output.
  double attention = b * (2 * d + d + q + 2 * kv + q);
  if (r.c.flash_attention) {
    attention += 4.0 * t.num_heads;  // fp32 log-sum-exp per head
  } else {
    attention += static_cast<double>(t.num_heads) * r.seq * (dropout ? 2 * b + 1 : b);
  }
  // MLP: the input, the activation's input and output (gated: gate, up, act(gate), product).
  // Frozen base weights keep the same tensors: the measured LoRA peaks grow per sample as
  // full training does (validation/memory.csv, litgpt-lora rows at batch 1, 2 and 4).
  const double mlp = b * d + (t.gated() ? 4 : 2) * b * f;
  // LoRA: dropout on the adapter's input keeps a mask and the dropped input per target.
  double adapters = 0;
  if (frozen) {
    for (const auto& lin : layer_linears(t)) {
      const auto& targets = r.c.lora_targets;
      if (std::find(targets.begin(), targets.end(), lin.name) != targets.end() ||
          std::find(targets.begin(), targets.end(), "all") != targets.end()) {
        adapters += (b + 1) * static_cast<double>(lin.in);
      }
    }
  }
  const double masks = dropout ? 2 * d : 0;
  if (formula) {
    *formula =
        fmt::format("β(3d + 2q + 2kv) + {} + β(d + {}F){}{} = {} B/token/layer",
                    r.c.flash_attention ? "4H (flash)" : "H·s·(2β+1)", t.gated() ? 4 : 2,
                    frozen ? " + (β+1)·in per LoRA target" : "", dropout ? " + 2d masks" : "",
                    num(std::round(attention + mlp + adapters + masks)));
  }
  return attention + mlp + adapters + masks;
}

void activation_terms(const Run& r, Terms& t) {
  const double tokens = static_cast<double>(r.batch) * r.seq;
  if (r.w.transformer) {
    const TransformerConfig& tc = *r.w.transformer;
    const double layers = tc.total_layers();
    const double d = tc.hidden_size;
    if (r.train) {
      std::string formula;
      const double per_layer = transformer_layer_bytes(r, &formula);
      double bytes;
      std::string what, values;
      if (r.c.checkpointing) {
        bytes = layers * tokens * r.act_bytes * d + tokens * per_layer;
        what = "L·b·s·β·d (checkpointed layer inputs) + b·s·a_layer (one layer recomputed)";
        values = fmt::format("{}·{}·{}·{}·{} + {}·{}·{}", num(layers), r.batch, r.seq,
                             num(r.act_bytes), num(d), r.batch, r.seq, num(std::round(per_layer)));
      } else {
        bytes = layers * tokens * per_layer;
        what = "L·b·s·a_layer, a_layer = " + formula;
        values =
            fmt::format("{}·{}·{}·{}", num(layers), r.batch, r.seq, num(std::round(per_layer)));
      }
      t.add("activations", bytes / r.c.tensor_parallel, what, values);
      if (tc.arch != "encoder") {
        const double logits = tokens * tc.vocab_size * (r.act_bytes + mc::kLossFp32BytesPerLogit);
        t.add("logits", logits, "b·s·V·(β + 4) (logits and the fp32 loss)",
              fmt::format("{}·{}·{}·({} + 4)", r.batch, r.seq, tc.vocab_size, num(r.act_bytes)));
      }
      return;
    }
    // Inference: the KV cache for prompt + generated tokens, one layer's live tensors, logits.
    const double context = r.seq + r.c.gen_tokens;
    const double kv_bytes = r.c.precision == "fp32" ? 4 : 2;
    const double kv = 2.0 * tc.num_layers * tc.kv_heads() * tc.head_size() * kv_bytes;
    if (tc.arch != "encoder") {
      t.add("kv_cache", r.batch * context * kv / r.c.tensor_parallel,
            "b·(s + n_gen)·2·L·n_kv·d_head·β_kv",
            fmt::format("{}·({} + {})·2·{}·{}·{}·{}", r.batch, r.seq, r.c.gen_tokens, tc.num_layers,
                        tc.kv_heads(), tc.head_size(), num(kv_bytes)));
    }
    const double widest =
        std::max<double>(3.0 * d, static_cast<double>(tc.ffn_size) * (tc.gated() ? 2 : 1));
    t.add("activations",
          tokens * widest * r.act_bytes * mc::kPrefillLiveTensors / r.c.tensor_parallel,
          "b·s·max(3d, F·(2 if gated))·β·2 (one layer's live tensors at prefill)",
          fmt::format("{}·{}·{}·{}·2", r.batch, r.seq, num(widest), num(r.act_bytes)));
    if (tc.arch != "encoder") {
      t.add("logits", tokens * tc.vocab_size * r.act_bytes, "b·s·V·β (logits of the prompt)",
            fmt::format("{}·{}·{}·{}", r.batch, r.seq, tc.vocab_size, num(r.act_bytes)));
    }
    if (is_quantized(r.c.weights)) {
      const double widest_matrix = static_cast<double>(tc.hidden_size) * tc.ffn_size;
      t.add("dequantized_matrix", widest_matrix * 2, "d·F·2 B (one matrix dequantized to compute)",
            fmt::format("{}·{}·2", tc.hidden_size, tc.ffn_size));
    }
    return;
  }
  // A layer list: what each layer outputs is kept for the backward pass.
  double per_sample = 0, widest = 0;
  for (const auto& l : r.w.layers) {
    double out = 0;
    if (l.op == "conv2d" || l.op == "conv_transpose2d")
      out = static_cast<double>(l.out_channels) * l.out_h * l.out_w;
    else if (l.op == "linear")
      out = static_cast<double>(l.tokens) * l.out_features;
    else if (l.op == "embedding")
      out = static_cast<double>(l.lookups) * l.dim;
    else if (l.op == "lstm")
      out = static_cast<double>(l.steps) * (l.bidirectional ? 2 : 1) * l.hidden_size *
            6;  // 4 gates, c, h
    else if (l.op == "attention") {
      // Memory-efficient attention keeps the output and a log-sum-exp per query and head;
      // plain attention keeps the scores and their softmax.
      out = r.c.flash_attention
                ? static_cast<double>(l.heads) * static_cast<double>(l.query_len) * (l.head_dim + 2)
                : 2.0 * l.heads * static_cast<double>(l.query_len) * static_cast<double>(l.key_len);
    } else
      out = static_cast<double>(l.elements);
    per_sample += out * l.count;
    widest = std::max(widest, out);
  }
  if (r.train) {
    double kept = per_sample;
    std::string how = "Σ layer outputs";
    if (r.c.checkpointing) {
      kept = 2 * std::sqrt(per_sample * widest);  // sqrt(n) segments (Chen et al. 2016)
      how = "2·sqrt(Σ outputs · widest output) (checkpointed segments, Chen et al. 2016)";
    }
    t.add("activations", r.batch * kept * r.act_bytes, "b·" + how + "·β",
          fmt::format("{}·{}·{}", r.batch, big(kept), num(r.act_bytes)));
  } else {
    t.add("activations", r.batch * widest * 2 * r.act_bytes, "b·2·(widest layer output)·β",
          fmt::format("{}·2·{}·{}", r.batch, big(widest), num(r.act_bytes)));
  }
}

Result<Run> resolve(const Workload& w, const RunConfig& in) {
  Run r{w, in};
  RunConfig& c = r.c;
  if (Status s = check_choice("mode", c.mode, kModes); !s.ok()) return s;
  if (c.precision.empty()) c.precision = w.default_precision;
  if (Status s = check_choice("precision", c.precision, kPrecisions); !s.ok()) return s;
  if (Status s = check_choice("method", c.method, kMethods); !s.ok()) return s;
  if (Status s = check_choice("optimizer", c.optimizer, kOptimizers); !s.ok()) return s;
  if (Status s = check_choice("offload", c.offload, kOffloads); !s.ok()) return s;
  // Module names as PEFT, LitGPT and Hugging Face models spell them.
  static const std::map<std::string, std::vector<std::string>, std::less<>> kTargetNames = {
      {"query", {"q"}},        {"key", {"k"}},      {"value", {"v"}},
      {"q_proj", {"q"}},       {"k_proj", {"k"}},   {"v_proj", {"v"}},
      {"o_proj", {"o"}},       {"dense", {"o"}},    {"query_key_value", {"q", "k", "v"}},
      {"gate_proj", {"gate"}}, {"up_proj", {"up"}}, {"down_proj", {"down"}},
      {"to_q", {"q"}},         {"to_k", {"k"}},     {"to_v", {"v"}},
      {"to_out", {"o"}},       {"to_out.0", {"o"}}};
  std::vector<std::string> targets;
  for (const auto& target : c.lora_targets) {
    auto known = kTargetNames.find(target);
    if (known != kTargetNames.end()) {
      targets.insert(targets.end(), known->second.begin(), known->second.end());
      continue;
    }
    if (Status s = check_choice("lora-targets", target, kTargets); !s.ok()) return s;
    targets.push_back(target);
  }
  c.lora_targets = std::move(targets);
  r.train = c.mode == "train";
  if (c.weights.empty()) {
    if (c.method == "qlora") {
      c.weights = "nf4";
    } else {
      c.weights = c.precision == "fp32" || c.precision == "tf32" ? "fp32"
                  : c.precision == "fp16"                        ? "f16"
                  : c.precision == "fp8" && !r.train             ? "fp8"
                                                                 : "bf16";
    }
  }
  if (c.weights == "fp16") c.weights = "f16";
  if (!bits_per_weight(c.weights)) {
    const std::vector<std::string> formats = {"fp32", "f16",    "bf16", "fp8",    "int8",   "int4",
                                              "nf4",  "nf4-dq", "q4_0", "q4_k_m", "q5_k_m", "q8_0"};
    return Status::invalid_input(fmt::format("--weights '{}' is not accepted; expected {}{}",
                                             c.weights, quoted_list(formats),
                                             did_you_mean(c.weights, formats)));
  }
  if (r.train && c.method == "full" && is_quantized(c.weights)) {
    return Status::invalid_input(fmt::format(
        "full training cannot update {} weights; use --method qlora to train adapters on them",
        c.weights));
  }
  if (c.method == "qlora" && c.weights != "nf4" && c.weights != "nf4-dq") {
    return Status::invalid_input("--method qlora stores the base weights in nf4 or nf4-dq");
  }
  if (c.method != "full" && c.lora_rank < 1) {
    return Status::invalid_input(
        fmt::format("--lora-rank {} is not accepted; expected at least 1", c.lora_rank));
  }
  if (c.batch && *c.batch < 1) {
    return Status::invalid_input(
        fmt::format("--batch {} is not accepted; expected at least 1", *c.batch));
  }
  if (c.seq_len && *c.seq_len < 1) {
    return Status::invalid_input(
        fmt::format("--seq {} is not accepted; expected at least 1", *c.seq_len));
  }
  if (c.gen_tokens < 0) return Status::invalid_input("--gen-tokens must not be negative");
  if (c.zero < 0 || c.zero > 3) {
    return Status::invalid_input(
        fmt::format("--zero {} is not accepted; expected 0, 1, 2 or 3", c.zero));
  }
  if (c.gpus < 1 || c.tensor_parallel < 1 || c.pipeline_parallel < 1 ||
      c.gpus % (c.tensor_parallel * c.pipeline_parallel) != 0) {
    return Status::invalid_input(fmt::format(
        "--gpus {} must be a positive multiple of tensor parallel {} × pipeline parallel {}",
        c.gpus, c.tensor_parallel, c.pipeline_parallel));
  }
  r.mixed = r.train && (c.precision == "fp16" || c.precision == "bf16" || c.precision == "fp8");
  r.act_bytes = c.precision == "fp32" || c.precision == "tf32" ? 4 : 2;
  r.batch = c.batch.value_or(w.default_batch);
  r.seq = c.seq_len.value_or(w.default_seq_len.value_or(1));
  c.batch = r.batch;
  c.seq_len = r.seq;
  r.mp = c.tensor_parallel * c.pipeline_parallel;
  r.dp = c.gpus / r.mp;
  return r;
}

// Allocated bytes, fragmentation and context for a resolved run.
MemoryEstimate evaluate(const Run& r, double capacity_gb) {
  Terms t;
  parameter_terms(r, count_params(r.w), t);
  activation_terms(r, t);
  MemoryEstimate e;
  e.config = r.c;
  if (r.c.full_state_load && r.c.zero >= 3 && r.dp > 1) {
    // Loading: the unsharded 16-bit weights beside the shards. Counted when it exceeds the step.
    const double full = static_cast<double>(count_params(r.w).total) * 2;
    const double load = full + full / r.dp;
    const double step = t.bytes();
    if (load > step) {
      t.add("full_state_load", load - step,
            "P·2 B (unsharded weights) + P·2 B / dp (shards) at load, above the step peak",
            fmt::format("{}·2 + {}·2/{} - step {}", big(full / 2), big(full / 2), r.dp, gb(step)));
    }
  }
  e.allocated_gb = t.bytes() / 1e9;
  const double frag = e.allocated_gb * mc::kFragmentation;
  t.add("allocator_fragmentation", frag * 1e9,
        fmt::format("{}% of the allocated total", num(mc::kFragmentation * 100)),
        fmt::format("{} × {}", num(mc::kFragmentation), gb(e.allocated_gb * 1e9)));
  t.add("cuda_context", mc::kCudaContextGb * 1e9, "CUDA context, kernels and library handles",
        fmt::format("{} GB", num(mc::kCudaContextGb)));
  if (r.c.gpus > 1) {
    t.add("nccl_buffers", mc::kNcclBuffersGb * 1e9, "NCCL communicator buffers",
          fmt::format("{} GB", num(mc::kNcclBuffersGb)));
  }
  e.terms = std::move(t.list);
  e.total_gb = 0;
  for (const auto& term : e.terms) e.total_gb += term.gb;
  e.capacity_gb = capacity_gb;
  e.fits = e.total_gb <= capacity_gb;
  e.headroom_gb = capacity_gb - e.total_gb;
  return e;
}

}  // namespace

std::optional<double> bits_per_weight(std::string_view format) {
  if (format == "fp32") return 32;
  if (format == "f16" || format == "fp16" || format == "bf16") return 16;
  if (format == "fp8" || format == "int8") return 8;
  if (format == "int4") return mc::kInt4G128Bits;
  if (format == "nf4") return mc::kNf4Bits;
  if (format == "nf4-dq") return mc::kNf4DqBits;
  if (format == "q4_0") return mc::kQ40Bits;
  if (format == "q4_k_m") return mc::kQ4KmBits;
  if (format == "q5_k_m") return mc::kQ5KmBits;
  if (format == "q8_0") return mc::kQ8Bits;
  return std::nullopt;
}

double capacity_gb(const Gpu& gpu) { return gpu.memory_gb * mc::kBytesPerMarketedGb / 1e9; }

Result<MemoryEstimate> estimate_memory(const Workload& workload, const Gpu& gpu,
                                       const RunConfig& config, bool with_searches) {
  auto run = resolve(workload, config);
  if (!run) return run.status();
  const double capacity = capacity_gb(gpu);
  MemoryEstimate e = evaluate(*run, capacity);
  if (!with_searches) return e;

  // Memory is affine in the batch: solve for the largest batch that fits.
  Run one = *run, two = *run;
  one.batch = 1;
  two.batch = 2;
  const double t1 = evaluate(one, capacity).total_gb, t2 = evaluate(two, capacity).total_gb;
  const double per_sample = t2 - t1;
  if (t1 > capacity) {
    e.max_batch = 0;
  } else if (per_sample <= 0) {
    e.max_batch = 1'000'000;
  } else {
    e.max_batch =
        static_cast<int>(std::min(1e6, std::floor((capacity - (t1 - per_sample)) / per_sample)));
  }

  // Longest sequence at this batch: memory grows with s (quadratically without flash
  // attention), so search. Bounded by the model's context where it has one.
  if (workload.transformer) {
    const int limit = std::max(workload.transformer->max_positions, 1);
    auto fits_at = [&](int s) {
      Run longer = *run;
      longer.seq = s;
      return evaluate(longer, capacity).fits;
    };
    int lo = 0, hi = limit;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (fits_at(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    e.max_seq_len = lo;
  }

  // Fewest GPUs: shard everything with ZeRO-3 (training) or split the layers (inference).
  auto on_gpus = [&](int n) {
    Run many = *run;
    many.c.gpus = n;
    if (many.train) {
      many.c.zero = 3;
      many.c.tensor_parallel = many.c.pipeline_parallel = 1;
      many.mp = 1;
      many.dp = n;
    } else {
      many.c.tensor_parallel = n;
      many.c.pipeline_parallel = 1;
      many.mp = n;
      many.dp = 1;
    }
    return evaluate(many, capacity);
  };
  if (e.fits) {
    e.min_gpus = run->c.gpus;
  } else {
    for (int n = 1; n <= 1024 && e.min_gpus == 0; n *= 2) {
      if (on_gpus(n).fits) e.min_gpus = n;
    }
  }
  if (e.fits) return e;

  // What would make it fit, in the order a user would try them.
  auto try_change = [&](std::string label, auto change) {
    Run alt = *run;
    change(alt);
    auto resolved = resolve(workload, alt.c);
    if (!resolved) return;
    const MemoryEstimate m = evaluate(*resolved, capacity);
    if (m.fits) e.suggestions.push_back(fmt::format("{} ({:.1f} GB)", label, m.total_gb));
  };
  if (run->train) {
    if (!run->c.checkpointing)
      try_change("--checkpointing", [](Run& a) { a.c.checkpointing = true; });
    if (run->c.method == "full") {
      try_change("--method lora", [](Run& a) {
        a.c.method = "lora";
        a.c.weights.clear();
      });
    }
    if (run->c.method != "qlora") {
      try_change("--method qlora", [](Run& a) {
        a.c.method = "qlora";
        a.c.weights.clear();
      });
      try_change("--method qlora --checkpointing", [](Run& a) {
        a.c.method = "qlora";
        a.c.weights.clear();
        a.c.checkpointing = true;
      });
    }
    if (run->c.optimizer == "adamw")
      try_change("--optimizer adam8bit", [](Run& a) { a.c.optimizer = "adam8bit"; });
  } else {
    for (const char* format : {"int8", "nf4", "q4_k_m"}) {
      if (*bits_per_weight(format) < *bits_per_weight(run->c.weights)) {
        try_change(fmt::format("--weights {}", format), [&](Run& a) { a.c.weights = format; });
      }
    }
  }
  if (e.max_batch >= 1 && e.max_batch < run->batch)
    e.suggestions.push_back(fmt::format("--batch {}", e.max_batch));
  if (e.min_gpus > 1) {
    e.suggestions.push_back(run->train
                                ? fmt::format("{} GPUs with --zero 3 ({:.1f} GB each)", e.min_gpus,
                                              on_gpus(e.min_gpus).total_gb)
                                : fmt::format("{} GPUs with the layers split ({:.1f} GB each)",
                                              e.min_gpus, on_gpus(e.min_gpus).total_gb));
  }
  return e;
}

}  // namespace rigplan
