// The memory model (docs/memory.md). Every term is bytes per GPU; the estimate reports GB.
#include "rigplan/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>
#include <type_traits>
#include <utility>

#include "model/components.h"
#include "model/finetune_methods.h"
#include "model/fp8_training.h"
#include "model/framework_speed.h"
#include "model/inference_memory.h"
#include "model/links.h"
#include "model/memory_constants.h"
#include "model/memory_numbers.h"
#include "model/recompute_policy.h"
#include "rigplan/engine.h"
#include "rigplan/input.h"
#include "rigplan/schema.h"
#include "util/figures.h"
#include "util/strings.h"
#include "workload/diffusion.h"

namespace rigplan {
namespace {

namespace mc = memory_constants;

constexpr std::string_view kModes[] = {"train", "infer", "prefill", "decode", "serve"};
constexpr std::string_view kPrecisions[] = {"fp32", "tf32",  "fp16", "bf16",
                                            "fp8",  "mxfp8", "nvfp4"};
constexpr std::string_view kOptimizers[] = {
    "adamw", "adam8bit", "paged-adamw", "paged-adamw8bit", "sgd", "sgd-momentum", "adafactor"};
constexpr std::string_view kTargets[] = {"q", "k", "v", "o", "gate", "up", "down", "all"};
constexpr std::string_view kOffloads[] = {"none", "optimizer", "cpu"};

Status check_choice(std::string_view option, const std::string& value,
                    std::span<const std::string_view> accepted) {
  if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return {};
  std::vector<std::string> names(accepted.begin(), accepted.end());
  return Status::invalid_input(fmt::format("--{} '{}' is not accepted; expected {}{}", option,
                                           shown(value), quoted_list(names),
                                           did_you_mean(value, names)));
}

std::string gb(double bytes) { return fmt::format("{:.2f} GB", bytes / 1e9); }
std::string num(double x) { return format_number(x); }
std::string big(double x) {  // 6.74e9 -> "6.74B", 1.008e12 -> "1010B"
  if (x >= 1e9) return significant(x / 1e9, 3) + "B";
  if (x >= 1e6) return significant(x / 1e6, 3) + "M";
  return format_number(x);
}

bool is_quantized(const std::string& weights) { return bits_per_weight(weights).value_or(16) < 16; }

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
  // Layer lists: what each layer does in this run (model/components.h).
  ComponentPlan plan;
  double base_trained = 0;  // parameters a full fine-tune trains
  double loaded = 0;        // parameters in GPU memory
  double capacity_gb = 0;   // of the GPU, for the engine's defaults that depend on it
  const Engine* engine = nullptr;
  const WeightFormat* format = nullptr;
  const KvFormat* kv = nullptr;
  // The terms' formulas and values written, for a reader; false: the numbers alone (the searches,
  // and estimate_memory_numbers).
  bool explain = true;
  const ParamCounts* params = nullptr;  // count_params(w), when the caller has it
};

// Whether LoRA has layers to adapt: a transformer's projections, or the tagged attention and
// MLP linears of a layer list (diffusion models); a CNN has none.
bool has_adapter_targets(const Workload& w) {
  if (w.transformer) return true;
  return std::any_of(w.layers.begin(), w.layers.end(),
                     [](const Layer& l) { return !l.lora.empty(); });
}

// A term's formula or values: a string, or a function that writes it, called only when the
// terms are explained.
template <class T>
std::string text(T&& x) {
  if constexpr (std::is_invocable_v<T>) {
    return x();
  } else {
    return std::string(std::forward<T>(x));
  }
}

struct Terms {
  bool explain = true;  // Run::explain
  std::vector<MemoryTerm> list;
  template <class F, class V>
  void add(std::string_view name, double bytes, F&& formula, V&& values) {
    if (bytes <= 0) return;
    if (!explain) {
      list.push_back({std::string(name), bytes / 1e9, {}, {}});
      return;
    }
    list.push_back({std::string(name), bytes / 1e9, text(std::forward<F>(formula)),
                    text(std::forward<V>(values))});
  }
  double bytes() const {
    double sum = 0;
    for (const auto& t : list) sum += t.gb * 1e9;
    return sum;
  }
};

// Whether LoRA adapts the linear of this target name (q, k, v, o, gate, up, down).
bool lora_targeted(const RunConfig& c, std::string_view name) {
  const auto& targets = c.lora_targets;
  return std::find(targets.begin(), targets.end(), "all") != targets.end() ||
         std::find(targets.begin(), targets.end(), name) != targets.end();
}

// LoRA adds r·(in + out) trainable parameters per targeted matrix per layer.
double lora_params(const Run& r) {
  auto targeted = [&](std::string_view name) { return lora_targeted(r.c, name); };
  double per_layer = 0;
  if (r.w.transformer) {
    for (const auto& lin : layer_linears(*r.w.transformer)) {
      if (targeted(lin.name))
        per_layer += static_cast<double>(r.c.lora_rank) * static_cast<double>(lin.in + lin.out);
    }
    return per_layer * r.w.transformer->total_layers();
  }
  // A layer list: LoRA on the trained components' linears that answer to a target name (or on
  // every linear layer of a list that names none).
  const bool tagged = has_adapter_targets(r.w);
  double total = 0;
  for (size_t i = 0; i < r.w.layers.size(); ++i) {
    const Layer& l = r.w.layers[i];
    if (l.op != "linear" || r.plan.roles[i] != LayerRole::kTrained) continue;
    if (tagged && (l.lora.empty() || !targeted(l.lora))) continue;
    total += static_cast<double>(r.c.lora_rank) * (l.in_features + l.out_features) * l.count;
  }
  return total;
}

// The parameters a training run trains: all of a full fine-tune, LoRA's adapters, or
// LLaMA-Adapter's (finetune_methods.h adapter_params; resolve checks that it has a transformer).
double trained_params(const Run& r) {
  if (!r.train) return 0;
  if (r.c.method == "full") return r.base_trained;
  if (is_adapter(r.c.method)) return adapter_params(*r.w.transformer, r.c.method == "adapter-v2");
  return lora_params(r);
}

// Bytes per trained parameter of the optimizer state, and how to say it.
struct OptimizerState {
  double bytes = 0;
  std::string formula;
  bool paged = false;  // bitsandbytes paged: host-pageable unified memory
};
OptimizerState optimizer_state(const Run& r, double state) {
  const std::string& o = r.c.optimizer;
  const bool paged = o.rfind("paged-", 0) == 0;
  if (o == "adamw" || o == "paged-adamw")
    return {2 * state, fmt::format("2 moments × {} B", num(state)), paged};
  if (o == "adam8bit" || o == "paged-adamw8bit")
    return {mc::kAdam8bitBytes, "2 moments × 1 B (8-bit)", paged};
  if (o == "sgd-momentum") return {state, fmt::format("1 momentum × {} B", num(state))};
  if (o == "adafactor") {
    // Factored second moment: rows + columns per matrix, about 4 B / sqrt(matrix size).
    return {r.w.transformer ? 4.0 * 2 / r.w.transformer->hidden_size : mc::kAdafactorBytesPerParam,
            "factored second moment: 4 B·(rows + cols) per matrix"};
  }
  return {0, "plain SGD keeps no state"};
}

// The frozen weights in their storage format: quantized formats keep embeddings and the LM head
// in 16 bit (bitsandbytes and GPTQ quantize linear layers only), and a format of the experts
// (mxfp4, as gpt-oss ships) keeps everything but a mixture of experts' expert MLPs in 16 bit, or
// in its `rest` format (GGUF's MXFP4_MOE keeps them in Q8_0).
// `experts`: the frozen experts' parameters among `frozen`.
struct FrozenWeights {
  double bytes = 0;
  std::string formula, values;
};
FrozenWeights frozen_weights(const Run& r, const ParamCounts& p, double frozen, double experts) {
  const std::string& fmt_w = r.c.weights;
  const double bits = *bits_per_weight(fmt_w);
  if (frozen <= 0) return {};
  if (is_quantized(fmt_w) && r.format->covers == "experts") {
    // The other tensors in 16 bit, or in the format's `rest` (GGUF's MXFP4_MOE: Q8_0).
    const double rest = r.format->rest.empty() ? 16 : *bits_per_weight(r.format->rest);
    const double bytes = experts * bits / 8 + (frozen - experts) * rest / 8;
    if (!r.explain) return {bytes};
    return {bytes, "P_experts·bits/8 + (P - P_experts)·bits_rest/8",
            fmt::format("{}·{}/8 + ({} - {})·{}/8", big(experts), num(bits), big(frozen),
                        big(experts), num(rest))};
  }
  if (is_quantized(fmt_w) && r.format->covers == "linear") {  // GGUF bits average all tensors
    const double kept = static_cast<double>(p.embedding + p.head);
    const double bytes = (frozen - kept) * bits / 8 + kept * 2;
    if (!r.explain) return {bytes};
    return {bytes, "(P - P_embed - P_head)·bits/8 + (P_embed + P_head)·2",
            fmt::format("({} - {})·{}/8 + {}·2", big(frozen), big(kept), num(bits), big(kept))};
  }
  if (!r.explain) return {frozen * bits / 8};
  return {frozen * bits / 8, "P·bits/8", fmt::format("{}·{}/8", big(frozen), num(bits))};
}

// The largest single parameter tensor, in parameters: what optimizer-in-backward keeps of the
// gradients.
double largest_tensor(const Workload& w) {
  if (w.transformer) {
    const TransformerConfig& t = *w.transformer;
    double largest = static_cast<double>(t.vocab_size) * t.hidden_size;
    for (const auto& lin : layer_linears(t))
      largest = std::max(largest, static_cast<double>(lin.in) * static_cast<double>(lin.out));
    return largest;
  }
  double largest = 0;
  for (const auto& l : w.layers) {
    largest = std::max({largest, static_cast<double>(l.in_features) * l.out_features,
                        static_cast<double>(l.in_channels) / std::max(l.groups, 1) *
                            l.out_channels * std::max(l.kernel, 1) * std::max(l.kernel, 1),
                        static_cast<double>(l.num_embeddings) * l.dim});
  }
  return largest;
}

// How a run holds its parameters: the trained and frozen counts, the bytes of a trained weight,
// gradient or optimizer state, and ZeRO's shards. With the optimizer offloaded (ZeRO-Offload)
// the fp32 master weights and the states live in host memory and the GPU keeps 16-bit weights
// and gradients.
//
// A mixture of experts trained with expert parallelism (Megatron-Core MoE, its documentation
// and Shen et al. 2024 "MoE parallel folding"; DeepSpeed-MoE, Rajbhandari et al. 2022 §4): each
// GPU holds experts / ep of every MoE layer's experts, their matrices split by tp and their
// layers by pp as the dense ones; the attention, router, norms and embeddings stay replicated
// over the data-parallel GPUs. An expert's replicas are the expert-data-parallel group of
// dp · cp / ep GPUs, over which its gradients are reduced and ZeRO (Megatron's distributed
// optimizer) shards its state; the dense parameters shard over dp as before. Expert parallelism
// serves too (docs/inference.md): with --ep each GPU holds experts / ep of the frozen experts and
// the attention and dense weights whole (attention data parallel, TensorRT-LLM's DEP<n>).
struct ParameterLayout {
  double trainable = 0;  // parameters trained: all of a full fine-tune, or the adapters
  double frozen = 0;     // parameters loaded and not trained
  // Of those, the experts' (ParamCounts::experts; LoRA's and the adapters' count as dense).
  double trained_experts = 0, frozen_experts = 0;
  double ep = 1;      // expert parallel: each GPU holds 1/ep of the experts
  double state = 4;   // bytes of a weight, gradient or state
  double on_gpu = 4;  // bytes of a working weight or gradient on the GPU
  bool offload_optimizer = false;
  bool offload_weights = false;
  // The GPUs that hold the same dense weights, over which ZeRO shards their state: dp · cp
  // (weight_replicas), named "dp" in the formulas, "(dp·cp)" with context parallelism.
  int replicas = 1;
  std::string_view replicas_name = "dp";
  double shard_opt = 1, shard_grad = 1, shard_w = 1;  // ZeRO-1, -2 and -3 divide by replicas
  // The same for the experts' parameters: ZeRO divides by dp · cp / ep.
  double expert_opt = 1, expert_grad = 1, expert_w = 1;

  // Trained parameters a GPU holds before the model-parallel split: the dense ones / `shard`,
  // the experts' / ep / `expert_shard`.
  double trained_local(double shard, double expert_shard) const {
    return (trainable - trained_experts) / shard + trained_experts / ep / expert_shard;
  }
};
// The GPUs that hold the same weights: the data-parallel ones times the context-parallel ones,
// which split the sequence and keep whole replicas. Megatron-Core reduces the gradients and
// shards its distributed optimizer over the data-parallel group "with context parallel"
// (parallel_state.get_data_parallel_group(with_context_parallel=True)), and torchtitan's FSDP
// shards over its dp_shard × cp mesh; the data-parallel traffic (perf.cc data_parallel_s) runs
// over the same dp · cp GPUs.
int weight_replicas(const Run& r) { return r.dp * r.c.context_parallel; }

ParameterLayout parameter_layout(const Run& r, const ParamCounts& p) {
  const bool full = r.c.method == "full";
  ParameterLayout l;
  l.trainable = trained_params(r);
  l.frozen = r.loaded - (r.train && full ? r.base_trained : 0);
  if (r.w.transformer) {
    // Inference keeps the experts frozen; with --ep each GPU holds experts/ep of them (DEP).
    const double experts = static_cast<double>(p.experts);
    (r.train && full ? l.trained_experts : l.frozen_experts) = experts;
    l.ep = r.c.expert_parallel;
  }
  l.offload_optimizer = r.c.offload != "none";
  l.offload_weights = r.c.offload == "cpu" && r.c.zero >= 3;
  const bool pure = r.c.pure_16bit || !r.mixed;
  l.state = pure && r.act_bytes == 2 ? 2 : 4;
  l.on_gpu = l.offload_optimizer && r.mixed ? 2 : l.state;
  l.replicas = weight_replicas(r);
  l.replicas_name = r.c.context_parallel > 1 ? "(dp·cp)" : "dp";
  l.shard_opt = r.c.zero >= 1 ? l.replicas : 1;
  l.shard_grad = r.c.zero >= 2 ? l.replicas : 1;
  l.shard_w = r.c.zero >= 3 ? l.replicas : 1;
  // resolve_parallel_layout checks that ep divides dp · cp.
  const double expert_dp = l.replicas / l.ep;
  l.expert_opt = r.c.zero >= 1 ? expert_dp : 1;
  l.expert_grad = r.c.zero >= 2 ? expert_dp : 1;
  l.expert_w = r.c.zero >= 3 ? expert_dp : 1;
  return l;
}

// The trained parameters of a term, for a reader: "P_train" (and " / dp" when ZeRO shards the
// term), or for a mixture of experts its dense and expert shares, "(P_dense/dp + P_experts/ep/
// edp)", edp = dp · cp / ep the experts' data-parallel GPUs; dp reads (dp·cp) with context
// parallelism.
std::string trained_formula(const ParameterLayout& l, bool sharded) {
  if (l.trained_experts <= 0) return "P_train";
  return sharded ? fmt::format("(P_dense/{} + P_experts/ep/edp)", l.replicas_name)
                 : "(P_dense + P_experts/ep)";
}
std::string trained_values(const ParameterLayout& l, bool sharded, double expert_shard) {
  if (l.trained_experts <= 0) return big(l.trainable);
  const double dense = l.trainable - l.trained_experts;
  if (!sharded) return fmt::format("({} + {}/{})", big(dense), big(l.trained_experts), num(l.ep));
  return fmt::format("({}/{} + {}/{}/{})", big(dense), l.replicas, big(l.trained_experts),
                     num(l.ep), num(expert_shard));
}
// " / dp" after a dense model's term that ZeRO shards (a mixture's is inside trained_formula),
// and its value.
std::string dense_shard_text(const ParameterLayout& l, bool sharded) {
  return sharded && l.trained_experts <= 0 ? fmt::format(" / {}", l.replicas_name) : "";
}
std::string dense_shard_value(const ParameterLayout& l, bool sharded) {
  return sharded && l.trained_experts <= 0 ? fmt::format(" / {}", l.replicas) : "";
}

// What DeepSpeed ZeRO-3 with its parameters offloaded (offload_param cpu) keeps on the GPU
// (docs/memory.md, "DeepSpeed ZeRO-3 with parameters offloaded"), `bytes` a parameter as stored:
// - live_parameters: the forward's last modules, which are used again in the backward within
//   stage3_max_reuse_distance elements (the rest of the forward and the backward back to them,
//   twice what follows them) and so stay gathered: the last max_reuse_distance / 2 parameters,
//   or the last module alone when it is larger (an LLM's head, V·d, largest_tensor);
// - gather_buffer: an offloaded partition is copied to the GPU to be gathered into the full
//   tensor, two copies at once; the largest tensor's partition, largest / dp;
// - reduce_bucket: the contiguous gradient bucket, reduce_bucket_size in the gradient type.
void offloaded_parameter_terms(const Run& r, const ParameterLayout& l, double bytes, Terms& t) {
  const double largest = std::min(largest_tensor(r.w), r.loaded);
  const double live = std::min(r.loaded, std::max(mc::kZero3MaxReuseDistance / 2, largest));
  t.add(
      "live_parameters", live * bytes / r.mp,
      "min(P, max(max_reuse_distance / 2, largest tensor)) × bytes (DeepSpeed ZeRO-3 default 1e9)",
      [&] {
        return fmt::format("min({}, max({}, {})) × {}", big(r.loaded),
                           big(mc::kZero3MaxReuseDistance / 2), big(largest), num(bytes));
      });
  t.add("gather_buffer", largest / l.replicas * bytes / r.mp,
        "largest tensor / dp × bytes (its offloaded partition copied to the GPU to be gathered)",
        [&] { return fmt::format("{} / {} × {}", big(largest), l.replicas, num(bytes)); });
  if (l.trainable <= 0) return;
  t.add("reduce_bucket", mc::kZero3ReduceBucketElements * l.on_gpu,
        "reduce_bucket_size × gradient bytes (DeepSpeed ZeRO-3 default 5e8)",
        [&] { return fmt::format("{} × {}", big(mc::kZero3ReduceBucketElements), num(l.on_gpu)); });
}

// The weights (frozen in their storage format, trained at `on_gpu` bytes), and what ZeRO-3
// keeps of them whole at a time: DeepSpeed's live parameters under parameter offload, or the
// layers FSDP gathers.
void weight_terms(const Run& r, const ParamCounts& p, const ParameterLayout& l, Terms& t,
                  Terms& host) {
  const double bits = *bits_per_weight(r.c.weights);
  // The frozen experts (LoRA on a mixture) split as the trained ones: each GPU keeps 1/ep of them,
  // sharded by ZeRO-3 over the experts' data-parallel GPUs; they are linear layers, stored at the
  // format's bits, so they enter frozen_weights as that many parameters of the dense shard.
  const double experts_local = l.frozen_experts / l.ep * l.shard_w / l.expert_w;
  const double frozen_local = l.frozen - l.frozen_experts + experts_local;
  const FrozenWeights fw = frozen_weights(r, p, frozen_local, experts_local);
  const double mp = r.mp;
  const bool frozen = l.frozen > 0, trained = l.trainable > 0;
  const double weight_bytes =
      fw.bytes / mp / l.shard_w + l.trained_local(l.shard_w, l.expert_w) * l.on_gpu / mp;
  const bool moe = l.trained_experts > 0;
  const auto weight_formula = [&] {
    return fmt::format(
        "({}{}) / model_parallel{}{}", frozen ? fw.formula : "",
        trained ? fmt::format("{}{}·{} B", frozen ? " + " : "",
                              trained_formula(l, moe && r.c.zero >= 3), num(l.on_gpu))
                : "",
        r.c.zero >= 3 && !moe ? fmt::format(" / {} (ZeRO-3)", l.replicas_name) : std::string(),
        l.frozen_experts > 0 && l.ep > 1 ? " (the frozen experts / ep)" : "");
  };
  const auto weight_values = [&] {
    return fmt::format(
        "({}{}) / {}{}", frozen ? fw.values : "",
        trained ? fmt::format("{}{}·{}", frozen ? " + " : "",
                              trained_values(l, moe && r.c.zero >= 3, l.expert_w), num(l.on_gpu))
                : "",
        num(mp), dense_shard_value(l, r.c.zero >= 3));
  };
  (l.offload_weights ? host : t).add("weights", weight_bytes, weight_formula, weight_values);
  // A layer's parameters on this GPU: its experts / ep.
  const TransformerConfig* tc = r.w.transformer ? &*r.w.transformer : nullptr;
  const double layer_experts =
      tc ? static_cast<double>(p.experts) / tc->total_layers() * (1 - 1 / l.ep) : 0;
  const double layer_params = static_cast<double>(p.per_layer) - layer_experts;
  const double layer_bytes = layer_params * (r.train && r.c.method == "full" ? 2 : bits / 8);
  if (l.offload_weights) {
    offloaded_parameter_terms(r, l, bits / 8, t);
  } else if (r.c.zero >= 3 && l.replicas > 1 && r.w.transformer) {
    // FSDP / ZeRO-3 gather one layer's full weights (and prefetch the next) to compute, in the
    // format they are stored in: 16 bit, or 4 bit under FSDP-QLoRA.
    t.add(
        "gathered_layers", mc::kGatheredLayers * layer_bytes / mp,
        [&] {
          return fmt::format("{} layers × P_layer × bytes (ZeRO-3 all-gather and prefetch)",
                             num(mc::kGatheredLayers));
        },
        [&] {
          return fmt::format("{} × {} × {}", num(mc::kGatheredLayers), big(layer_params),
                             num(layer_bytes / layer_params));
        });
  }
}

// The gradients of the trained parameters: all of them, or only the largest tensor's when each
// is applied as soon as it is made (torchtune optimizer_in_bwd, PyTorch
// register_post_accumulate_grad_hook).
void gradient_term(const Run& r, const ParameterLayout& l, Terms& t) {
  const double mp = r.mp;
  if (r.c.optimizer_in_backward) {
    const double largest = std::min(largest_tensor(r.w), l.trainable);
    t.add(
        "gradients", largest * l.on_gpu / mp,
        [&] {
          return fmt::format("largest tensor × {} B (optimizer step in the backward)",
                             num(l.on_gpu));
        },
        [&] { return fmt::format("{} × {}", big(largest), num(l.on_gpu)); });
    return;
  }
  const bool sharded = r.c.zero >= 2;
  t.add(
      "gradients", l.trained_local(l.shard_grad, l.expert_grad) * l.on_gpu / mp,
      [&] {
        return fmt::format("{} × {} B{}", trained_formula(l, sharded), num(l.on_gpu),
                           dense_shard_text(l, sharded));
      },
      [&] {
        return fmt::format("{} × {}{}", trained_values(l, sharded, l.expert_grad), num(l.on_gpu),
                           dense_shard_value(l, sharded));
      });
}

// The optimizer state of the trained parameters, on the GPU, paged, or offloaded to the host
// with the fp32 master weights.
void optimizer_terms(const Run& r, const ParameterLayout& l, Terms& t, Terms& host) {
  const double mp = r.mp;
  const OptimizerState opt = optimizer_state(r, l.state);
  const bool sharded = r.c.zero >= 1;
  const double local = l.trained_local(l.shard_opt, l.expert_opt);
  const double opt_bytes = local * opt.bytes / mp;
  const auto opt_formula = [&](std::string_view where) {
    return fmt::format("{} × {}{}{}", trained_formula(l, sharded), opt.formula,
                       dense_shard_text(l, sharded), where);
  };
  const auto opt_values = [&] {
    return fmt::format("{} × {}{}", trained_values(l, sharded, l.expert_opt), num(opt.bytes),
                       dense_shard_value(l, sharded));
  };
  if (l.offload_optimizer) {
    host.add(
        "optimizer", opt_bytes, [&] { return opt_formula(" (offloaded)"); }, opt_values);
    if (r.mixed && !r.c.pure_16bit) {
      host.add("master_weights", local * 4 / mp, "P_train × 4 B (fp32, offloaded)",
               [&] { return fmt::format("{} × 4", big(l.trainable)); });
    }
    return;
  }
  (opt.paged ? host : t)
      .add(
          opt.paged ? "optimizer_paged" : "optimizer", opt_bytes,
          [&] {
            return opt_formula(opt.paged ? " (paged: host memory when the GPU runs short)" : "");
          },
          opt_values);
}

// Bytes of the parameter state: weights, 16-bit copies, gradients, optimizer, per GPU; what is
// offloaded or paged goes to `host`.
void parameter_terms(const Run& r, const ParamCounts& p, Terms& t, Terms& host) {
  const ParameterLayout l = parameter_layout(r, p);
  weight_terms(r, p, l, t, host);
  if (l.trainable <= 0) return;
  if (r.mixed && !r.c.pure_16bit && !l.offload_optimizer) {
    const double mp = r.mp;
    const bool moe = l.trained_experts > 0, sharded = moe && r.c.zero >= 3;
    t.add(
        "half_precision_copies", l.trained_local(l.shard_w, l.expert_w) * 2 / mp,
        [&] {
          return fmt::format("{} × 2 B (16-bit copies autocast keeps for the backward pass)",
                             trained_formula(l, sharded));
        },
        [&] { return fmt::format("{} × 2", trained_values(l, sharded, l.expert_w)); });
  }
  gradient_term(r, l, t);
  optimizer_terms(r, l, t, host);
}

// 4-bit base weights (QLoRA, and LoRA or an adapter over NF4: trains_on_4bit) with
// bitsandbytes: each 4-bit matmul dequantizes its weight to 16 bit to compute, one matrix at a
// time, in the forward and again in the backward. Its autograd function (MatMul4Bit,
// bitsandbytes/autograd/_functions.py, 0.41-0.43) also saves its input for the backward pass
// where a frozen 16-bit nn.Linear saves none, whatever trains beside it; the inputs of a layer's
// quantized linears are x for q/k/v, the attention output for o, x for gate/up and the MLP's
// activation for down. docs/memory.md, "QLoRA", checks both against the LitGPT QLoRA peaks.
double four_bit_saved_input_bytes(const Run& r) {
  if (!trains_on_4bit(r.c) || !r.w.transformer) return 0;
  const TransformerConfig& t = *r.w.transformer;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  return r.act_bytes * (2.0 * t.hidden_size + q + static_cast<double>(t.ffn_size) * t.top_k());
}

void four_bit_terms(const Run& r, Terms& t) {
  if (!trains_on_4bit(r.c) || !r.w.transformer) return;
  const TransformerConfig& tc = *r.w.transformer;
  double widest = 0;
  for (const auto& lin : layer_linears(tc))
    widest = std::max(widest, static_cast<double>(lin.in) * static_cast<double>(lin.out));
  t.add("dequantized_matrix", widest * 2 / r.c.tensor_parallel,
        "widest matrix × 2 B (a 4-bit weight dequantized to compute, one at a time)",
        [&] { return fmt::format("{} × 2", big(widest)); });
}

// FP8 training (docs/memory.md, "FP8 training"; model/fp8_training.h): only the linear layers of
// a transformer's layers compute in FP8, the embeddings, attention, norms, loss and LM head stay in
// 16 bit; what the FP8 linears keep depends on the stack that runs them, and rigplan takes the one
// that runs a run of its sharding, as framework_speed.h default_framework does:
// - Transformer Engine (Megatron-LM, NeMo; weights not sharded, ZeRO 0 to 2): te.Linear casts each
//   weight to FP8 in both layouts Hopper's FP8 GEMMs need (fp8_training.h kCastLayouts: the weight
//   and its transpose) and keeps the two copies from one micro-batch to the next (its weight
//   cache, which Megatron-Core refills on the first micro-batch of a step, TE's
//   `is_first_microbatch`); and saves a linear's input for the backward as the FP8 cast it
//   computed with, not in 16 bit (TE 1.x _Linear and LayerNormLinear forward; recalled, not quoted
//   in shared/reference, which names "+1 B fp8 copy on top of bf16 recipe" for the weights,
//   shared/reference/models.md §2.6, without the transpose).
// - torchao Float8Linear (torchtitan on FSDP2; weights sharded, ZeRO-3): casts the weight and the
//   input every step with dynamic scaling and saves the 16-bit input and weight for the backward,
//   casting them again there (torchao float8 matmul_with_hp_or_float8_args; recalled): it keeps
//   no FP8 copy and saves what a 16-bit linear saves. FSDP2's float8 all-gather is off by default
//   (torchtitan enable_fsdp_float8_all_gather = false; recalled), so the gathered layers stay
//   16 bit.
// Both cast one linear at a time; the casts of the largest live beside the peak (fp8_cast_term).
// MXFP8 and NVFP4 (fp8_training.h Format) follow the same rule: Transformer Engine's recipes
// without ZeRO-3; with it, what torchao's MXLinear does for MXFP8 (casts each step, saves the
// 16-bit inputs; recalled), taken for NVFP4 too, whose torchao training is a prototype.
enum class Fp8Stack { kNone, kTransformerEngine, kTorchao };

Fp8Stack fp8_stack(const Run& r) {
  if (!r.train || !fp8_training::training_format(r.c.precision) || !r.w.transformer ||
      r.c.method != "full")
    return Fp8Stack::kNone;
  return default_framework(r.c.zero) == kDefaultShardedFramework ? Fp8Stack::kTorchao
                                                                 : Fp8Stack::kTransformerEngine;
}

// The format of a run whose fp8_stack is not kNone.
const fp8_training::Format& format_of(const Run& r) {
  return *fp8_training::training_format(r.c.precision);
}

// The share of a transformer's layers whose linears the format keeps in BF16 (NVFP4's recipe).
double bf16_layer_share(const Run& r) {
  const double layers = r.w.transformer->total_layers();
  return fp8_training::kept_in_bf16(format_of(r), layers) / layers;
}

// Whether the layer whose tensors a_layer counts is one the format keeps in BF16: it keeps some,
// and one or a few layers' tensors are live at once (checkpointing, activation offload), the
// largest of them a BF16 one's.
bool bf16_layer_live(const Run& r) {
  return (r.c.checkpointing || r.c.activation_offload) && bf16_layer_share(r) > 0;
}

// Bytes an element of a linear's input that Transformer Engine saves for the backward: the
// format's with its scale, averaged over the layers with β in those kept in BF16; β where the
// layer counted is a BF16 one (bf16_layer_live).
double saved_linear_input_bytes(const Run& r) {
  if (bf16_layer_live(r)) return r.act_bytes;
  const double bf16 = bf16_layer_share(r);
  return (1 - bf16) * format_of(r).bytes() + bf16 * r.act_bytes;
}

bool is_mlp_linear(std::string_view name) {
  return name == "gate" || name == "up" || name == "down";
}

// Bytes per token and layer that Transformer Engine's FP8 linears save beyond what 16-bit ones do
// (negative: fewer): the inputs that a linear alone saves, the two norm outputs (2d) and the down
// projection's input (F = ffn·top_k), in FP8 instead of β; the attention output (q), which
// FlashAttention also saves in 16 bit for its own backward, once more in FP8 for the o
// projection (without FlashAttention the o projection alone saves it, in FP8).
// MXFP8 and NVFP4 save theirs in their formats, with their scales (saved_linear_input_bytes).
double fp8_saved_input_change(const Run& r) {
  if (fp8_stack(r) != Fp8Stack::kTransformerEngine || bf16_layer_live(r)) return 0;
  const TransformerConfig& t = *r.w.transformer;
  const double fp8 = saved_linear_input_bytes(r), d = t.hidden_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double f = static_cast<double>(t.ffn_size) * t.top_k();
  const double attention_output = r.c.flash_attention ? fp8 * q : (fp8 - r.act_bytes) * q;
  return (fp8 - r.act_bytes) * (2 * d + f) + attention_output;
}

// The text fp8_saved_input_change adds to a layer's formula; `change` its bytes.
std::string fp8_saved_input_text(const Run& r, double change) {
  if (change == 0) return "";
  const std::string_view precision = r.c.precision;
  if (precision == "fp8") {
    return r.c.flash_attention ? " − (β−1)(2d + F) + q (FP8 linear inputs, Transformer Engine)"
                               : " − (β−1)(2d + F + q) (FP8 linear inputs, Transformer Engine)";
  }
  const double bf16 = kept_in_bf16(format_of(r), r.w.transformer->total_layers());
  return fmt::format(
      " − (β−β_f)(2d + F{}){} ({} linear inputs, Transformer Engine; β_f = {} B an element with "
      "its scale{})",
      r.c.flash_attention ? "" : " + q", r.c.flash_attention ? " + β_f·q" : "", precision,
      format_number(saved_linear_input_bytes(r)),
      bf16 > 0 ? fmt::format(", averaged over {} layers kept in BF16", num(bf16)) : "");
}

// Bytes per token a layer keeps for the backward pass because of the fine-tuning method, beside
// what the frozen layer keeps, and the text added to the layer's formula: LoRA's dropout on each
// target's input (a mask and the dropped input), or LLaMA-Adapter's (finetune_methods.h).
double method_layer_bytes(const Run& r, std::string* formula) {
  const TransformerConfig& t = *r.w.transformer;
  const double b = r.act_bytes;
  if (is_adapter(r.c.method)) {
    return adapter_layer_bytes(t, r.c.method == "adapter-v2", b, r.c.flash_attention, formula);
  }
  if (!is_lora(r.c.method)) return 0;
  double bytes = 0;
  for (const auto& lin : layer_linears(t)) {
    if (lora_targeted(r.c, lin.name)) bytes += (b + 1) * static_cast<double>(lin.in);
  }
  if (formula) *formula = " + (β+1)·in per LoRA target";
  return bytes;
}

// Bytes a transformer layer keeps per token for the backward pass (docs/memory.md):
// Korthikanti et al. 2022 generalised to GQA, gated MLPs and frozen weights.
double transformer_layer_bytes(const Run& r, std::string* formula) {
  const TransformerConfig& t = *r.w.transformer;
  const double b = r.act_bytes, d = t.hidden_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const double f = static_cast<double>(t.ffn_size) * t.top_k();
  const bool dropout = t.dropout.value_or(true);
  // Attention: two norm inputs, the norm output, Q, K, V, the attention output.
  double attention = b * (2 * d + d + q + 2 * kv + q);
  // Selective recompute (Korthikanti et al. 2022) recomputes the attention core instead of
  // keeping its s×s tensors, as FlashAttention does.
  if (r.c.flash_attention || r.c.recompute == "selective") {
    attention += 4.0 * t.num_heads;  // fp32 log-sum-exp per head
  } else {
    attention += static_cast<double>(t.num_heads) * r.seq * (dropout ? 2 * b + 1 : b);
  }
  // MLP: the input, the activation's input and output (gated: gate, up, act(gate), product).
  // Frozen base weights keep the same tensors: the measured LoRA peaks grow per sample as
  // full training does (validation/memory.csv, litgpt-lora rows at batch 1, 2 and 4).
  const double mlp = b * d + (t.gated() ? 4 : 2) * b * f;
  std::string method_text;
  const double method = method_layer_bytes(r, formula ? &method_text : nullptr);
  const double masks = dropout ? 2 * d : 0;
  const double fp8 = fp8_saved_input_change(r);
  if (formula) {
    const std::string fp8_text = fp8_saved_input_text(r, fp8);
    *formula = fmt::format(
        "β(3d + 2q + 2kv) + {} + β(d + {}F){}{}{} = {} B/token/layer",
        r.c.flash_attention || r.c.recompute == "selective" ? "4H (flash)" : "H·s·(2β+1)",
        t.gated() ? 4 : 2, method_text, dropout ? " + 2d masks" : "", fp8_text,
        num(std::round(attention + mlp + method + masks + fp8)));
  }
  return attention + mlp + method + masks + fp8;
}

// The logits of one micro-batch in the activation type, and the fp32 copy the loss works on:
// whole, one chunk at a time (torchtune CEWithChunkedOutputLoss), or never (a fused kernel);
// split over the tensor-parallel ranks (Megatron's vocabulary-parallel loss).
void logits_term(const Run& r, double tokens, const std::string& toks, Terms& t) {
  const TransformerConfig& tc = *r.w.transformer;
  const double fp32 = r.c.loss_chunks > 0 ? mc::kLossFp32BytesPerLogit / r.c.loss_chunks : 0;
  const double tp = r.c.tensor_parallel;
  // Adapter v2 scales lm_head's output too, keeping the unscaled logits beside the scaled ones.
  const bool unscaled = adapter_head_bytes(tc, r.c.method == "adapter-v2", r.act_bytes) > 0;
  const double copies = unscaled ? 2 : 1;
  const double logits = tokens * tc.vocab_size * (copies * r.act_bytes + fp32) / tp;
  std::string loss = r.c.loss_chunks == 0   ? "logits; a fused loss keeps no fp32 copy"
                     : r.c.loss_chunks == 1 ? "logits and the fp32 loss"
                                            : "logits and one fp32 chunk of the loss";
  if (unscaled) loss += "; adapter v2 keeps the unscaled logits for its scale";
  const std::string copies_text = unscaled ? "2" : "";
  t.add(
      "logits", logits,
      [&] {
        return fmt::format("b·s·V·({}β + {}){} ({})", copies_text,
                           r.c.loss_chunks > 1 ? "4/chunks" : num(fp32), tp > 1 ? " / tp" : "",
                           loss);
      },
      [&] {
        return fmt::format("{}·{}·({}{} + {}){}", toks, tc.vocab_size, unscaled ? "2·" : "",
                           num(r.act_bytes), num(fp32),
                           tp > 1 ? fmt::format(" / {}", num(tp)) : std::string());
      });
}

// Where a transformer's training activations live on the GPU that holds the most: the tokens of
// one micro-batch (seq/cp of each sequence under context parallelism), the layers whose
// activations it keeps, and the bytes per token of a layer a tensor-parallel rank keeps whole.
struct ActivationShape {
  double tokens = 0;
  std::string tokens_text;  // b·s, or the micro-batch's tokens
  double layers = 0;
  double unsplit = 0;  // B/token/layer not divided by tp (Korthikanti et al. 2022's 10·s·b·h)
  std::string how;     // the layers, as a formula
};

// Pipelines (Korthikanti et al. 2022 §4.2.3): the first stage holds min(pp, m) micro-batches of
// its L/pp layers in flight under 1F1B, × (1 + (pp − 1)/(pp·vp)) under the interleaved schedule
// (vp > 1), whose warm-up runs 2(pp − 1) + (vp − 1)·pp chunks ahead. Without --micro-batch the
// batch is one micro-batch, held pp times.
ActivationShape activation_shape(const Run& r) {
  const TransformerConfig& tc = *r.w.transformer;
  const RunConfig& c = r.c;
  ActivationShape a;
  const double micro = c.micro_batch.value_or(r.batch);
  a.tokens = micro * r.seq / c.context_parallel;
  if (r.explain) {
    a.tokens_text = c.micro_batch || c.context_parallel > 1 ? num(a.tokens)
                                                            : fmt::format("{}·{}", r.batch, r.seq);
    a.how = "L";
  }
  a.layers = tc.total_layers();
  if (c.pipeline_parallel > 1 && c.micro_batch) {
    const double pp = c.pipeline_parallel, vp = c.virtual_stages;
    const double in_flight = std::min(pp, r.batch / micro);
    const double interleave = in_flight == pp && vp > 1 ? 1 + (pp - 1) / (pp * vp) : 1;
    a.layers = tc.total_layers() / pp * in_flight * interleave;
    if (r.explain) {
      a.how =
          fmt::format("L/pp·{}{}", num(in_flight), interleave > 1 ? "·(1 + (pp−1)/(pp·vp))" : "");
    }
  }
  // Without sequence parallelism each tensor-parallel rank keeps the norms' inputs, the inputs
  // of the QKV and first MLP projections and the dropout masks whole.
  // Transformer Engine keeps the two projections' inputs in FP8 (fp8_saved_input_change).
  if (!c.sequence_parallel && c.tensor_parallel > 1) {
    const double linear_input =
        fp8_stack(r) == Fp8Stack::kTransformerEngine ? saved_linear_input_bytes(r) : r.act_bytes;
    a.unsplit = (2 * r.act_bytes + 2 * linear_input) * tc.hidden_size +
                (tc.dropout.value_or(true) ? 2 * tc.hidden_size : 0);
  }
  return a;
}

// The formula of a transformer's training activations and its values, for a reader; `formula`
// is a layer's bytes per token (transformer_layer_bytes).
std::pair<std::string, std::string> activation_text(const Run& r, const ActivationShape& shape,
                                                    double per_layer, const std::string& formula) {
  const double tp = r.c.tensor_parallel, d = r.w.transformer->hidden_size;
  const std::string& toks = shape.tokens_text;
  const std::string a_layer = fmt::format("{}·{}", toks, num(std::round(per_layer)));
  const std::string input =
      fmt::format("{}·{}·{}{}", toks, num(r.act_bytes), num(d),
                  r.c.sequence_parallel && tp > 1 ? fmt::format(" / {}", num(tp)) : std::string());
  const double kept = mc::kOffloadedLayersInFlight;
  if (r.c.checkpointing && r.c.activation_offload) {
    return {fmt::format("{}·b·s·β·d (layer inputs in flight, the rest in host memory) + "
                        "b·s·a_layer (one layer recomputed)",
                        num(kept)),
            fmt::format("{}·{} + {}", num(kept), input, a_layer)};
  }
  if (r.c.checkpointing) {
    return {shape.how + "·b·s·β·d (checkpointed layer inputs) + b·s·a_layer (one layer recomputed)",
            fmt::format("{}·{} + {}", num(shape.layers), input, a_layer)};
  }
  if (r.c.activation_offload) {
    return {fmt::format("{}·b·s·a_layer (layers in flight, the rest in host memory)", num(kept)),
            fmt::format("{}·{}", num(kept), a_layer)};
  }
  return {
      shape.how + "·b·s·a_layer, a_layer = " + formula +
          (trains_on_4bit(r.c) ? " + β(2d + q + F) (4-bit matmul inputs)" : "") +
          (tp > 1 ? (shape.unsplit > 0 ? ", 10·d of it whole and the rest / tp" : " / tp") : ""),
      fmt::format("{}·{}", num(shape.layers), a_layer)};
}

// Parameters of the linear layers that compute in FP8 on this GPU: every layer's projections (a
// mixture's expert MLPs, experts / ep of them), split over tp · pp, less those of the layers the
// format keeps in BF16 (NVFP4's recipe). Not the embeddings or the LM head, which stay 16 bit
// (torchtitan's float8 filter skips `output`; Megatron-Core builds its output layer without FP8;
// recalled).
double fp8_linear_params(const Run& r) {
  const TransformerConfig& t = *r.w.transformer;
  double attention = 0, mlp = 0;
  for (const auto& lin : layer_linears(t))
    (is_mlp_linear(lin.name) ? mlp : attention) +=
        static_cast<double>(lin.in) * static_cast<double>(lin.out);
  const double experts = static_cast<double>(t.experts()) / r.c.expert_parallel;
  const double layers =
      t.total_layers() - fp8_training::kept_in_bf16(format_of(r), t.total_layers());
  return layers * (attention + mlp * experts) / r.mp;
}

// The largest operands an FP8 linear casts on a tensor-parallel rank: the widest activation per
// token (q, k, v, gate and up split their outputs over tp, o and down their inputs, as Megatron
// splits them) and the largest weight.
struct Fp8Operands {
  double activation_per_token = 0;
  double weight = 0;
};
Fp8Operands fp8_largest_operands(const Run& r) {
  const double tp = r.c.tensor_parallel;
  Fp8Operands o;
  for (const auto& lin : layer_linears(*r.w.transformer)) {
    const bool row = lin.name == "o" || lin.name == "down";
    const double in = static_cast<double>(lin.in) / (row ? tp : 1);
    const double out = static_cast<double>(lin.out) / (row ? 1 : tp);
    o.activation_per_token = std::max({o.activation_per_token, in, out});
    o.weight = std::max(o.weight, in * out);
  }
  return o;
}

// The FP8 copies Transformer Engine keeps of the weights (fp8_stack): each linear weight and its
// transpose, 1 B an element; MXFP8's and NVFP4's row- and column-wise copies with their scales
// (fp8_training.h Format::weight_bytes).
void fp8_weight_term(const Run& r, Terms& t) {
  const fp8_training::Format& f = format_of(r);
  const double params = fp8_linear_params(r);
  const double copies = fp8_training::kCastLayouts, bytes = f.weight_bytes();
  const bool fp8 = f.precision == "fp8";
  t.add(
      fmt::format("{}_weights", f.precision), params * copies * bytes,
      [&] {
        return fmt::format(
            "P_linear × {} × {} B / model_parallel (Transformer Engine's {} copy of each linear "
            "weight and its {}, kept across micro-batches{})",
            num(copies), num(bytes), fp8 ? "FP8" : f.precision,
            fp8 ? "transpose" : "column-wise copy, with their scales",
            kept_in_bf16(f, r.w.transformer->total_layers()) > 0 ? "; not the layers kept in BF16"
                                                                 : "");
      },
      [&] {
        return fmt::format("{} × {} × {} / {}", big(params * r.mp), num(copies), num(bytes), r.mp);
      });
}

// The casts of the largest FP8 linear, live beside what the step keeps: its activation (an input
// or, in the backward, an output gradient) in both layouts and, with torchao, which casts the
// weights each step, its weight in both layouts too; MXFP8's and NVFP4's with their scales.
void fp8_cast_term(const Run& r, Terms& t) {
  const fp8_training::Format& f = format_of(r);
  const Fp8Operands o = fp8_largest_operands(r);
  const double tokens = activation_shape(r).tokens;
  const bool weights = fp8_stack(r) == Fp8Stack::kTorchao;
  const double layouts = fp8_training::kCastLayouts, bytes = f.bytes();
  const double weight_bytes = f.weight_bytes();
  const double cast =
      bytes * tokens * o.activation_per_token + (weights ? weight_bytes * o.weight : 0);
  t.add(
      fmt::format("{}_cast_buffers", f.precision), layouts * cast,
      [&] {
        return fmt::format(
            "{} layouts × {} B × (tokens × widest linear activation{}) (the largest {} linear's "
            "casts)",
            num(layouts), num(bytes), weights ? " + largest linear weight" : "",
            f.precision == "fp8" ? "FP8" : f.precision);
      },
      [&] {
        return fmt::format("{} × {} × ({}·{}{})", num(layouts), num(bytes), num(tokens),
                           num(o.activation_per_token),
                           weights ? fmt::format(" + {}", big(o.weight)) : std::string());
      });
}

// What FP8 training adds to a transformer's memory (fp8_stack); its saved inputs are
// fp8_saved_input_change's.
void fp8_terms(const Run& r, Terms& t) {
  const Fp8Stack stack = fp8_stack(r);
  if (stack == Fp8Stack::kNone) return;
  if (stack == Fp8Stack::kTransformerEngine) fp8_weight_term(r, t);
  fp8_cast_term(r, t);
}

// Bytes a transformer layer keeps per token under torchtitan's per-op selective checkpointing
// (recompute_policy.h), all of it split over the tensor-parallel ranks: the outputs of the
// linears the policy saves (a mixture's MLP ones for each of a token's top_k experts) and the
// flash attention kernel's output with its fp32 log-sum-exp per head. The layer's input, which
// the checkpoint itself keeps, is op_sac_activations'.
double op_sac_saved_bytes(const Run& r) {
  const TransformerConfig& t = *r.w.transformer;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  double bytes = r.act_bytes * q + 4.0 * t.num_heads;
  const std::vector<LinearShape> linears = layer_linears(t);
  for (size_t i = 0; i < linears.size(); ++i) {
    if (!recompute_policy::op_sac_saves_linear(i)) continue;
    const bool mlp =
        linears[i].name == "gate" || linears[i].name == "up" || linears[i].name == "down";
    bytes += r.act_bytes * static_cast<double>(linears[i].out) * (mlp ? t.top_k() : 1);
  }
  return bytes;
}

// Activations of the shape's layers under the per-op policy: each keeps its input (whole on each
// tensor-parallel rank without SP) and op_sac_saved_bytes; the layer whose backward runs holds
// what it recomputes beside them, the rest of a layer without recompute (`per_layer`).
void op_sac_activations(const Run& r, const ActivationShape& shape, double per_layer, Terms& t) {
  const double tp = r.c.tensor_parallel;
  const double input =
      r.act_bytes * r.w.transformer->hidden_size / (r.c.sequence_parallel ? tp : 1);
  const double kept = input + op_sac_saved_bytes(r) / tp;
  const double recomputed = std::max(per_layer - kept, 0.0);
  const double bytes = shape.layers * shape.tokens * kept + shape.tokens * recomputed;
  t.add(
      "activations", bytes,
      [&] {
        return shape.how +
               "·b·s·a_kept (per-op selective: the layer input, the outputs of every other "
               "linear, the attention output and its log-sum-exp) + b·s·(a_layer − a_kept) (one "
               "layer recomputed)";
      },
      [&] {
        return fmt::format("{}·{}·{} + {}·{}", num(shape.layers), shape.tokens_text,
                           num(std::round(kept)), shape.tokens_text, num(std::round(recomputed)));
      });
}

// Training activations of a transformer: what the backward pass needs, by recompute policy and
// activation offloading, and the logits the loss reads.
void transformer_training_activations(const Run& r, Terms& t) {
  const TransformerConfig& tc = *r.w.transformer;
  const ActivationShape shape = activation_shape(r);
  const double tokens = shape.tokens, layers = shape.layers, tp = r.c.tensor_parallel;
  const double d = tc.hidden_size;
  std::string formula;
  const double whole =
      transformer_layer_bytes(r, r.explain ? &formula : nullptr) + four_bit_saved_input_bytes(r);
  const double per_layer = shape.unsplit + (whole - shape.unsplit) / tp;
  // A checkpointed layer input, split over the tensor-parallel ranks only with SP.
  const double input_bytes = r.act_bytes * d / (r.c.sequence_parallel ? tp : 1);
  const double kept = mc::kOffloadedLayersInFlight;
  if (r.c.recompute == recompute_policy::kSelectiveOp && !r.c.activation_offload) {
    op_sac_activations(r, shape, per_layer, t);
    if (tc.arch != "encoder") logits_term(r, tokens, shape.tokens_text, t);
    return;
  }
  double bytes = layers * tokens * per_layer;
  if (r.c.checkpointing && r.c.activation_offload) {
    bytes = kept * tokens * input_bytes + tokens * per_layer;
  } else if (r.c.checkpointing) {
    bytes = layers * tokens * input_bytes + tokens * per_layer;
  } else if (r.c.activation_offload) {
    bytes = kept * tokens * per_layer;
  }
  if (r.explain) {
    auto [what, values] = activation_text(r, shape, per_layer, formula);
    t.add("activations", bytes, std::move(what), std::move(values));
  } else {
    t.add("activations", bytes, "", "");
  }
  if (tc.arch != "encoder") logits_term(r, tokens, shape.tokens_text, t);
}

// Elements one layer of a layer list outputs per sample.
double layer_output(const Layer& l, bool flash) {
  const std::string_view op = l.op;
  if (op == "conv2d" || op == "conv_transpose2d")
    return static_cast<double>(l.out_channels) * l.out_h * l.out_w;
  if (op == "linear") return static_cast<double>(l.tokens) * l.out_features;
  if (op == "embedding") return static_cast<double>(l.lookups) * l.dim;
  if (op == "lstm")
    return static_cast<double>(l.steps) * (l.bidirectional ? 2 : 1) * l.hidden_size *
           6;  // 4 gates, c, h
  if (op == "attention") {
    // Memory-efficient attention keeps the output and a log-sum-exp per query and head; plain
    // attention keeps the scores and their softmax.
    return flash
               ? static_cast<double>(l.heads) * static_cast<double>(l.query_len) * (l.head_dim + 2)
               : 2.0 * l.heads * static_cast<double>(l.query_len) * static_cast<double>(l.key_len);
  }
  return static_cast<double>(l.elements);
}

// Elements per sample of a layer's output that the backward pass keeps. As layer_output, except
// for plain attention (diffusers' AttnProcessor: baddbmm with beta 0, softmax, bmm; transformers'
// CLIP attention the same): baddbmm saves Q and K, not its scores, which are freed once the
// softmax has run; the softmax and the product with V save its probabilities, one score-sized
// tensor; the output projection saves the attention's output. No attention dropout in these
// models, so no mask either.
double kept_output(const Layer& l, bool flash) {
  if (l.op != "attention" || flash) return layer_output(l, flash);
  return static_cast<double>(l.heads) * static_cast<double>(l.query_len) *
         (static_cast<double>(l.key_len) + l.head_dim);
}

// Whether the backward pass keeps layer i's output (Layer::kept): under LoRA, not when only
// frozen linears read it (workload/diffusion.h saved_only_by_linears), since PyTorch saves a
// linear's input only for its weight's gradient; a targeted linear's adapter saves it.
bool output_kept(const Run& r, size_t i) {
  const Layer& l = r.w.layers[i];
  if (!l.kept) return false;
  if (!r.w.diffusion || !is_lora(r.c.method)) return true;
  const std::vector<std::string> readers = saved_only_by_linears(*r.w.diffusion, l);
  return readers.empty() || std::any_of(readers.begin(), readers.end(), [&](const std::string& t) {
           return lora_targeted(r.c, t);
         });
}

// Elements per sample of the largest plain attention's scores among the trained layers; 0 with
// memory-efficient attention. At the start of the backward pass (and at the last attention of
// the forward) two such tensors live beside the kept probabilities: the gradient of the
// probabilities (bmm's backward) and of the scores (softmax's backward), or, in the forward,
// the scores and baddbmm's uninitialized input (torch.empty of the scores' shape, beta 0).
double largest_plain_scores(const Run& r) {
  if (r.c.flash_attention) return 0;
  double largest = 0;
  for (size_t i = 0; i < r.w.layers.size(); ++i) {
    const Layer& l = r.w.layers[i];
    if (r.plan.roles[i] != LayerRole::kTrained || l.op != "attention") continue;
    largest = std::max(largest, static_cast<double>(l.heads) * static_cast<double>(l.query_len) *
                                    static_cast<double>(l.key_len));
  }
  return largest;
}

// The score-sized tensors of the largest plain attention that live at the peak beside what the
// trained layers keep; no term with memory-efficient attention.
void attention_workspace_term(const Run& r, Terms& t) {
  const double scores = largest_plain_scores(r);
  t.add(
      "attention_workspace", r.batch * mc::kPlainAttentionLiveScores * scores * r.act_bytes,
      [] {
        return fmt::format(
            "b·{}·h·n·m·β (the largest plain attention's score-sized tensors, beside its kept "
            "probabilities)",
            num(mc::kPlainAttentionLiveScores));
      },
      [&] {
        return fmt::format("{}·{}·{}·{}", r.batch, num(mc::kPlainAttentionLiveScores), big(scores),
                           num(r.act_bytes));
      });
}

// Elements per sample that a diffusers model (a UNet, or a Flux or SD 3 transformer) trained
// with gradient checkpointing keeps: each tensor that leaves a checkpointed module (a resnet or
// one transformer block, workload/diffusion.h checkpoint_module; both streams of a joint block,
// block_streams) or that a layer outside them keeps, and the kept outputs of the one module the
// backward pass recomputes at a time, the largest (docs/memory.md, "Diffusion models"). 0 when
// no trained layer is in such a module.
double diffusers_checkpointed_kept(const Run& r) {
  if (!r.w.diffusion) return 0;
  const std::vector<Layer>& layers = r.w.layers;
  std::vector<std::string> module(layers.size() + 1);
  for (size_t i = 0; i < layers.size(); ++i) {
    if (r.plan.roles[i] == LayerRole::kTrained)
      module[i] = checkpoint_module(*r.w.diffusion, layers[i]);
  }
  std::map<std::string, double> recomputed;  // one repetition of each module
  double boundary = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (r.plan.roles[i] != LayerRole::kTrained) continue;
    const Layer& l = layers[i];
    const double out = kept_output(l, r.c.flash_attention);
    if (!module[i].empty()) {
      recomputed[module[i]] += output_kept(r, i) ? out : 0;
      // The module's output: the next module's saved input, or kept by the layer after it.
      if (module[i + 1] != module[i]) {
        const double streams = block_streams(*r.w.diffusion, module[i]);
        boundary += (streams > 0 ? streams : out) * l.count;
      }
    } else if (output_kept(r, i) || !module[i + 1].empty()) {
      boundary += out * l.count;  // kept, or the input a checkpoint saves
    }
  }
  double largest = 0;
  for (const auto& [name, kept] : recomputed) largest = std::max(largest, kept);
  return recomputed.empty() ? 0 : boundary + largest;
}

// A transformer's inference: the KV cache, one prefill chunk's activations and the logits the
// engine holds (model/inference_memory.h).
void transformer_inference_activations(const Run& r, Terms& t) {
  InferenceShape shape{&*r.w.transformer,
                       r.engine,
                       r.format,
                       r.kv->bits_per_element,
                       r.act_bytes,
                       r.batch,
                       r.seq,
                       r.c.gen_tokens,
                       r.c.tensor_parallel,
                       r.c.pipeline_parallel,
                       0};
  shape.capacity_gb = r.capacity_gb;
  shape.ep = r.c.expert_parallel;
  if (r.c.precision == "fp32" && r.kv->id == "auto") shape.kv_bits = 32;
  for (auto& term : inference_terms(shape)) t.list.push_back(std::move(term));
}

void activation_terms(const Run& r, Terms& t) {
  if (r.w.transformer) {
    return r.train ? transformer_training_activations(r, t)
                   : transformer_inference_activations(r, t);
  }
  // A layer list: the outputs the backward pass keeps (the trained components' layers), and the
  // live tensors of a layer that only runs forward (frozen components, and inference).
  double kept = 0, widest_trained = 0, widest_forward = 0;
  for (size_t i = 0; i < r.w.layers.size(); ++i) {
    const Layer& l = r.w.layers[i];
    const LayerRole role = r.plan.roles[i];
    if (role == LayerRole::kCached || role == LayerRole::kIdle) continue;
    if (r.train && role == LayerRole::kTrained) {
      const double out = kept_output(l, r.c.flash_attention);
      if (output_kept(r, i)) kept += out * l.count;
      widest_trained = std::max(widest_trained, out);
    } else {
      widest_forward = std::max(widest_forward, layer_output(l, r.c.flash_attention));
    }
  }
  const double forward_bytes = r.batch * widest_forward * 2 * r.act_bytes;
  const auto forward_values = [&] {
    return fmt::format("{}·2·{}·{}", r.batch, big(widest_forward), num(r.act_bytes));
  };
  if (!r.train) {
    t.add("activations", forward_bytes, "b·2·(widest layer output)·β", forward_values);
    return;
  }
  std::string_view how = "Σ kept layer outputs";
  if (const double blocks = r.c.checkpointing ? diffusers_checkpointed_kept(r) : 0; blocks > 0) {
    kept = blocks;
    how = "(Σ outputs kept outside checkpoints + largest checkpointed module's) (diffusers)";
  } else if (r.c.checkpointing) {
    kept = 2 * std::sqrt(kept * widest_trained);  // sqrt(n) segments (Chen et al. 2016)
    how = "2·sqrt(Σ kept outputs · widest output) (checkpointed segments, Chen et al. 2016)";
  }
  const double kept_bytes = r.batch * kept * r.act_bytes;
  if (forward_bytes > kept_bytes) {
    // A frozen component's forward (a VAE encoding its images) peaks above what the trained
    // layers keep; it runs before them, so the larger of the two is the peak.
    t.add("activations", forward_bytes,
          "b·2·(widest output of a frozen component's forward)·β, above what the trained layers "
          "keep",
          forward_values);
    return;
  }
  t.add(
      "activations", kept_bytes, [&] { return fmt::format("b·{}·β", how); },
      [&] { return fmt::format("{}·{}·{}", r.batch, big(kept), num(r.act_bytes)); });
  attention_workspace_term(r, t);
}

// `checkpointing` is full recompute; `recompute` names the policy and agrees with it.
Status resolve_recompute(RunConfig& c) {
  if (c.recompute.empty()) {
    c.recompute = c.checkpointing ? "full" : "none";
    return {};
  }
  if (Status s = check_choice("recompute", c.recompute, recompute_policy::kPolicies); !s.ok())
    return s;
  if (c.checkpointing && c.recompute != "full") {
    return Status::invalid_input(fmt::format(
        "--checkpointing recomputes every layer; it contradicts --recompute {}", c.recompute));
  }
  c.checkpointing = c.recompute == "full";
  return {};
}

// "1, 2, 4 or 8": the divisors of n.
std::string divisors(int n) {
  std::vector<std::string> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(std::to_string(d));
  }
  const std::string last = out.back();
  out.pop_back();
  return out.empty() ? last : fmt::format("{} or {}", join(out, ", "), last);
}

// An LLM served by an engine is modelled with every layer in GPU memory (docs/inference.md,
// "Offload"): --offload would be silently ignored, so it is refused with what the engine would do
// (Engine::offload) and what to ask instead.
Status check_inference_offload(const Run& r) {
  if (!r.w.transformer || r.c.offload == "none") return {};
  const Engine& e = *r.engine;
  const std::string way =
      e.offload == "none"
          ? fmt::format("{} does not offload", e.id)
          : fmt::format("{}'s offload ({}) is not modelled", e.id,
                        e.offload == "cpu-compute"
                            ? "the layers left in host memory run on the CPU, -ngl"
                            : "the weights left in host memory stream over PCIe each step");
  return Status::invalid_input(fmt::format(
      "--offload {}: rigplan predicts an LLM served for inference with every layer in GPU memory, "
      "and reports a model that does not fit as not fitting, with the layouts that hold it "
      "(`rigplan memory`: --gpus N with --tp N or --pp N, or a smaller --weights format); {}; "
      "give --offload none",
      r.c.offload, way));
}

// The engine, weight format and KV-cache format of a run (data/engines), checked against each
// other: an engine serves models (training runs in PyTorch) and runs only its formats.
Status resolve_engine(Run& r) {
  RunConfig& c = r.c;
  const Engines& engines = embedded_engines();
  if (Status s = input::check(input::kMemoryUtilization, c.memory_utilization); !s.ok()) return s;
  if (Status s = input::check(input::kMaxSeqs, c.max_seqs); !s.ok()) return s;
  if (Status s = input::check(input::kRequestRate, c.request_rate); !s.ok()) return s;
  if (Status s = input::check(input::kRequests, c.requests); !s.ok()) return s;
  if (c.engine.empty()) c.engine = default_engine(c.mode);
  auto engine = engines.find_engine(c.engine);
  if (!engine) return Status::invalid_input("--engine: " + engine.status().message());
  r.engine = *engine;
  c.engine = r.engine->run_name();
  if (r.train && c.engine != "pytorch") {
    return Status::invalid_input(fmt::format(
        "--engine {} serves models; training runs in pytorch (give --mode infer, prefill, decode "
        "or serve)",
        c.engine));
  }
  auto format = engines.find_format(c.weights);
  if (!format) return Status::invalid_input("--weights: " + format.status().message());
  r.format = *format;
  c.weights = r.format->id;
  if (c.kv_cache.empty()) c.kv_cache = "auto";
  auto kv = engines.find_kv_format(c.kv_cache);
  if (!kv) return Status::invalid_input("--kv-cache: " + kv.status().message());
  r.kv = *kv;
  c.kv_cache = r.kv->id;
  if (r.train) return {};
  const Engine& e = *r.engine;
  if (Status s = check_inference_offload(r); !s.ok()) return s;
  if (c.mode == "serve" && c.gen_tokens < 1) {
    return Status::invalid_input(fmt::format(
        "--mode serve: every request generates --output-len tokens after its prompt, and {} "
        "generates none; give --output-len 1 or more",
        c.gen_tokens));
  }
  if (!e.runs(c.weights)) {
    return Status::invalid_input(fmt::format("{} does not run {} weights; it runs {}", e.name,
                                             c.weights, quoted_list(e.weight_formats, "and")));
  }
  if (std::find(e.kv_formats.begin(), e.kv_formats.end(), c.kv_cache) == e.kv_formats.end()) {
    return Status::invalid_input(fmt::format("{} does not keep its KV cache in {}; it keeps {}",
                                             e.name, c.kv_cache, quoted_list(e.kv_formats, "or")));
  }
  return {};
}

// The sequences of one data-parallel replica per step: the batch, or the global batch over the
// replicas; either splits into whole micro-batches. --batch beside --global-batch may give the
// batch of a replica or of each GPU (recommend's layouts keep a task's batch per GPU); the two
// differ whenever a replica spans several GPUs, so either reading is unambiguous.
Status resolve_batches(Run& r) {
  RunConfig& c = r.c;
  if (c.global_batch) {
    const int per_replica = *c.global_batch / r.dp;
    const bool per_gpu = c.batch && static_cast<std::int64_t>(*c.batch) * c.gpus == *c.global_batch;
    if (*c.global_batch % r.dp != 0 || (c.batch && *c.batch != per_replica && !per_gpu)) {
      return Status::invalid_input(fmt::format(
          "--global-batch {} must be --batch × data parallel {}{}", *c.global_batch, r.dp,
          c.batch ? fmt::format(" or --batch × GPUs {} (--batch {})", c.gpus, *c.batch)
                  : std::string()));
    }
    c.batch = per_replica;
  }
  r.batch = c.batch.value_or(r.w.default_batch);
  c.batch = r.batch;
  if (c.micro_batch && r.batch % *c.micro_batch != 0) {
    return Status::invalid_input(
        fmt::format("--micro-batch {} must divide the batch of a data-parallel replica, {}",
                    *c.micro_batch, r.batch));
  }
  return {};
}

// Inference with expert parallelism serves as TensorRT-LLM's DEP<n> (docs/inference.md, "Expert
// parallelism"): attention data parallel over the ep GPUs of a stage, the experts split over
// them. It needs an engine that serves that way (data/engines expert_parallel) and tensor and
// context parallel 1; layers may still split (--pp).
Status check_inference_expert_parallel(const Run& r) {
  const RunConfig& c = r.c;
  if (!r.engine->expert_parallel) {
    std::vector<std::string> serving;
    for (const Engine& e : embedded_engines().engines) {
      if (e.expert_parallel) serving.push_back(e.id);
    }
    return Status::invalid_input(fmt::format(
        "--ep {}: {} does not serve a mixture of experts with expert parallelism; {} do "
        "(attention data parallel, the experts split)",
        c.expert_parallel, r.engine->name, join(serving, ", ")));
  }
  if (c.tensor_parallel > 1 || c.context_parallel > 1) {
    return Status::invalid_input(fmt::format(
        "--ep {} serves attention data parallel over the {} GPUs that split the experts (DEP{}): "
        "it takes --tp 1 and --cp 1, with --gpus a multiple of ep × pp (--pp splits the layers); "
        "got --tp {} --cp {}",
        c.expert_parallel, c.expert_parallel, c.expert_parallel, c.tensor_parallel,
        c.context_parallel));
  }
  return {};
}

// Expert parallelism splits a mixture of experts' experts whole over data parallel × context
// parallel GPUs; inference has its own conditions (check_inference_expert_parallel).
Status check_expert_parallel(const Run& r) {
  const RunConfig& c = r.c;
  if (c.expert_parallel == 1) return {};
  const int experts = r.w.transformer ? r.w.transformer->experts() : 1;
  if (experts == 1) {
    return Status::invalid_input(fmt::format(
        "--ep {} splits a mixture of experts; {} has no experts", c.expert_parallel, r.w.id));
  }
  if (!r.train) {
    if (Status s = check_inference_expert_parallel(r); !s.ok()) return s;
  }
  if (experts % c.expert_parallel != 0 ||
      (static_cast<std::int64_t>(r.dp) * c.context_parallel) % c.expert_parallel != 0) {
    return Status::invalid_input(fmt::format(
        "--ep {} must divide the model's {} experts and data parallel {} × context parallel {}",
        c.expert_parallel, experts, r.dp, c.context_parallel));
  }
  return {};
}

// The parallel layout (docs/scaleout.md): the degrees split the GPUs whole, the model's heads,
// layers and experts whole, and the global batch into whole micro-batches of every replica.
// Sets the data- and model-parallel degrees and the batch of a replica.
Status resolve_parallel_layout(Run& r) {
  RunConfig& c = r.c;
  // Each degree is at most 2^20 and vp at most 1024, so the products are exact in 64 bits.
  const std::int64_t model_parallel =
      static_cast<std::int64_t>(c.tensor_parallel) * c.pipeline_parallel;
  const std::int64_t split = model_parallel * c.context_parallel;
  if (c.gpus % split != 0) {
    return Status::invalid_input(
        c.context_parallel == 1
            ? fmt::format(
                  "--gpus {} must be a multiple of tensor parallel {} × pipeline parallel {}",
                  c.gpus, c.tensor_parallel, c.pipeline_parallel)
            : fmt::format("--gpus {} must be a multiple of tensor parallel {} × pipeline parallel "
                          "{} × context parallel {}",
                          c.gpus, c.tensor_parallel, c.pipeline_parallel, c.context_parallel));
  }
  if (Status s = check_layout(r.w, c.tensor_parallel, c.pipeline_parallel, !r.train); !s.ok())
    return s;
  r.mp = static_cast<int>(model_parallel);
  r.dp = static_cast<int>(c.gpus / split);
  if (c.virtual_stages > 1) {
    const int layers = r.w.transformer ? r.w.transformer->total_layers() : 0;
    if (c.pipeline_parallel == 1 || layers % (c.pipeline_parallel * c.virtual_stages) != 0) {
      return Status::invalid_input(fmt::format(
          "--vp {} needs --pp above 1 and pipeline parallel × vp dividing the model's {} layers",
          c.virtual_stages, layers));
    }
  }
  if (Status s = check_expert_parallel(r); !s.ok()) return s;
  return resolve_batches(r);
}

// --lora-targets as the targets of kTargets: module names as PEFT, LitGPT and Hugging Face models
// spell them map to the projections they name.
Status resolve_lora_targets(RunConfig& c) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kTargetNames = {
      {"query", {"q"}},        {"key", {"k"}},      {"value", {"v"}},
      {"q_proj", {"q"}},       {"k_proj", {"k"}},   {"v_proj", {"v"}},
      {"o_proj", {"o"}},       {"dense", {"o"}},    {"query_key_value", {"q", "k", "v"}},
      {"gate_proj", {"gate"}}, {"up_proj", {"up"}}, {"down_proj", {"down"}},
      {"to_q", {"q"}},         {"to_k", {"k"}},     {"to_v", {"v"}},
      {"to_out", {"o"}},       {"to_out.0", {"o"}}};
  if (Status s = input::check_list("lora-targets", c.lora_targets.size()); !s.ok()) return s;
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
  return {};
}

// The weights' storage format without --weights: QLoRA's, or the one the precision computes in.
std::string default_weights(const RunConfig& c, bool train) {
  if (c.method == "qlora") return "nf4-dq";  // QLoRA as Dettmers et al. 2023 define it
  return c.precision == "fp32" || c.precision == "tf32" ? "fp32"
         : c.precision == "fp16"                        ? "f16"
         : c.precision == "fp8" && !train               ? "fp8"
                                                        : "bf16";
}

// MXFP8 and NVFP4 are Transformer Engine's training recipes (fp8_training.h): an inference run
// names its weights' format instead.
Status check_training_precision(const RunConfig& c, bool train) {
  const fp8_training::Format* f = fp8_training::training_format(c.precision);
  if (train || !f || !f->block_scaled) return {};
  return Status::invalid_input(fmt::format(
      "--precision {} is a training precision (Transformer Engine's {} recipe); for {} give the "
      "weights' format (--weights fp8, nvfp4, mxfp4, ...) and --precision bf16 or fp8",
      c.precision, f->recipe, c.mode));
}

// A method trains what the weights' format and the model allow: full training updates
// unquantized weights, QLoRA trains adapters over NF4, LLaMA-Adapter needs attention layers.
Status check_method_weights(const Run& r) {
  const RunConfig& c = r.c;
  if (r.train && c.method == "full" && is_quantized(c.weights)) {
    return Status::invalid_input(fmt::format(
        "full training cannot update {} weights; use --method qlora to train adapters on them",
        c.weights));
  }
  if (c.method == "qlora" && c.weights != "nf4" && c.weights != "nf4-dq") {
    return Status::invalid_input("--method qlora stores the base weights in nf4 or nf4-dq");
  }
  // LLaMA-Adapter puts its prompt into a transformer's attention layers.
  if (r.train && is_adapter(c.method) && !r.w.transformer) {
    return Status::invalid_input(fmt::format(
        "--method {} (LLaMA-Adapter) adapts a transformer's attention layers; {} has none",
        c.method, r.w.id));
  }
  return {};
}

// Each number of a run within its range (rigplan/input.h).
Status check_run_numbers(const RunConfig& c) {
  return input::check_all({{&input::kBatch, c.batch},
                           {&input::kSeq, c.seq_len},
                           {&input::kGenTokens, c.gen_tokens},
                           {&input::kZero, c.zero},
                           {&input::kGpus, c.gpus},
                           {&input::kTensorParallel, c.tensor_parallel},
                           {&input::kPipelineParallel, c.pipeline_parallel},
                           {&input::kContextParallel, c.context_parallel},
                           {&input::kExpertParallel, c.expert_parallel},
                           {&input::kVirtualStages, c.virtual_stages},
                           {&input::kMicroBatch, c.micro_batch},
                           {&input::kGlobalBatch, c.global_batch},
                           {&input::kGpusPerNode, c.gpus_per_node},
                           {&input::kLossChunks, c.loss_chunks},
                           {&input::kGradAccum, c.grad_accum},
                           {&input::kLoraRank, c.lora_rank}});
}

// What the precision and the components make of the run: mixed precision, bytes per
// activation, the sequence length, and the parameters trained and loaded.
// `plan`: plan_components of the run, when the caller has it (nullptr: made here).
Status resolve_components(Run& r, const ComponentPlan* plan) {
  RunConfig& c = r.c;
  const Workload& w = r.w;
  r.mixed = r.train && (c.precision == "fp16" || c.precision == "bf16" ||
                        fp8_training::training_format(c.precision));
  r.act_bytes = c.precision == "fp32" || c.precision == "tf32" ? 4 : 2;
  r.seq = c.seq_len.value_or(w.default_seq_len.value_or(1));
  c.seq_len = r.seq;
  if (plan) {
    r.plan = *plan;
  } else {
    auto made = plan_components(w, c);
    if (!made) return made.status();
    r.plan = std::move(made).value();
  }
  if (w.diffusion && r.train) c.train_components = r.plan.trained;
  if (w.layers.empty()) {
    r.base_trained = r.loaded = static_cast<double>(count_params(w).total);
  } else {
    r.base_trained = r.plan.trained_params;
    r.loaded = r.plan.loaded_params;
  }
  return {};
}

Result<Run> resolve(const Workload& w, const RunConfig& in, const ComponentPlan* plan = nullptr) {
  Run r{w, in};
  RunConfig& c = r.c;
  if (Status s = check_choice("mode", c.mode, kModes); !s.ok()) return s;
  if (c.precision.empty()) c.precision = w.default_precision;
  if (Status s = check_choice("precision", c.precision, kPrecisions); !s.ok()) return s;
  if (Status s = check_choice("method", c.method, kFineTuneMethods); !s.ok()) return s;
  if (Status s = check_choice("optimizer", c.optimizer, kOptimizers); !s.ok()) return s;
  if (Status s = check_choice("offload", c.offload, kOffloads); !s.ok()) return s;
  if (Status s = check_link(c.link); !s.ok()) return s;
  if (Status s = resolve_recompute(c); !s.ok()) return s;
  if (Status s = resolve_lora_targets(c); !s.ok()) return s;
  r.train = c.mode == "train";
  if (Status s = check_training_precision(c, r.train); !s.ok()) return s;
  if (c.weights.empty()) c.weights = default_weights(c, r.train);
  if (Status s = resolve_engine(r); !s.ok()) return s;
  if (Status s = check_method_weights(r); !s.ok()) return s;
  if (Status s = check_run_numbers(c); !s.ok()) return s;
  if (Status s = resolve_parallel_layout(r); !s.ok()) return s;
  if (Status s = resolve_components(r, plan); !s.ok()) return s;
  return r;
}

// Overheads beyond the allocated tensors: the training model's for training, the engine's for
// inference.
void overhead_terms(const Run& r, double allocated_gb, Terms& t) {
  if (!r.train) {
    // A replica over GPUs, or expert parallelism's all-to-all group, holds communicator buffers.
    for (auto& term :
         engine_overhead_terms(*r.engine, allocated_gb, r.mp > 1 || r.c.expert_parallel > 1))
      t.list.push_back(std::move(term));
    return;
  }
  const double frag = allocated_gb * mc::kFragmentation;
  t.add(
      "allocator_fragmentation", frag * 1e9,
      [] { return fmt::format("{}% of the allocated total", num(mc::kFragmentation * 100)); },
      [&] { return fmt::format("{} × {}", num(mc::kFragmentation), gb(allocated_gb * 1e9)); });
  t.add("cuda_context", mc::kCudaContextGb * 1e9, "CUDA context, kernels and library handles",
        [] { return fmt::format("{} GB", num(mc::kCudaContextGb)); });
  if (r.c.gpus > 1) {
    t.add("nccl_buffers", mc::kNcclBuffersGb * 1e9, "NCCL communicator buffers",
          [] { return fmt::format("{} GB", num(mc::kNcclBuffersGb)); });
  }
}

// Allocated bytes, fragmentation and context for a resolved run.
MemoryEstimate evaluate(const Run& r, double capacity_gb) {
  Terms t, host;
  t.explain = host.explain = r.explain;
  const ParamCounts params = r.params ? *r.params : count_params(r.w);
  parameter_terms(r, params, t, host);
  four_bit_terms(r, t);
  fp8_terms(r, t);
  activation_terms(r, t);
  MemoryEstimate e;
  e.config = r.c;
  e.trainable_params = trained_params(r);
  if (r.c.full_state_load && r.c.zero >= 3 && weight_replicas(r) > 1) {
    // A full state dict loaded into the sharded model (PyTorch FSDP FULL_STATE_DICT, as LitGPT's
    // 2024 scripts load their checkpoints): the measured LitGPT FSDP peaks are the step plus the
    // unsharded 16-bit weights on every GPU, at 2 and at 4 GPUs alike (docs/memory.md).
    const double full = static_cast<double>(params.total) * 2;
    t.add("full_state_dict", full / r.mp,
          "P·2 B (the unsharded 16-bit weights of the full-state-dict load, on every GPU)",
          [&] { return fmt::format("{}·2", big(full / 2)); });
  }
  e.allocated_gb = t.bytes() / 1e9;
  overhead_terms(r, e.allocated_gb, t);
  e.terms = std::move(t.list);
  e.host_gb = host.bytes() / 1e9;
  e.host_terms = std::move(host.list);
  e.total_gb = 0;
  double kv_gb = 0;
  for (const auto& term : e.terms) {
    e.total_gb += term.gb;
    if (term.name == "kv_cache") kv_gb = term.gb;
  }
  e.capacity_gb = capacity_gb;
  e.available_gb = capacity_gb;
  if (!r.train) {
    e.available_gb = engine_available_gb(
        *r.engine, r.c.memory_utilization.value_or(r.engine->memory_utilization), capacity_gb,
        e.total_gb - kv_gb);
    // The room for the cache and the sequences of this length it holds, within the engine's limit.
    e.kv_room_gb = std::max(0.0, e.available_gb - (e.total_gb - kv_gb));
    if (kv_gb > 0 && r.w.transformer) {
      const double per_sequence = kv_gb / r.batch;
      const int limit = r.c.max_seqs.value_or(r.engine->max_sequences(capacity_gb));
      e.kv_sequences = static_cast<int>(std::min(1e6, std::floor(e.kv_room_gb / per_sequence)));
      e.engine_max_sequences = std::max(limit, 0);
      e.max_sequences = limit > 0 ? std::min(e.kv_sequences, limit) : e.kv_sequences;
      e.max_seqs_flag = r.engine->max_seqs_flag;
    }
  }
  e.fits = e.total_gb <= e.available_gb;
  e.headroom_gb = e.available_gb - e.total_gb;
  return e;
}

// Whether a replica of the run can be split over n GPUs: tensor parallelism divides the
// attention heads, a layer split needs a layer per GPU.
bool splits(const Run& r, int n, const std::string& how) {
  if (!r.w.transformer) return n == 1;
  const TransformerConfig& t = *r.w.transformer;
  return how == "tensor" ? n <= t.num_heads && t.num_heads % n == 0 : n <= t.num_layers;
}

// Splits each replica of the run over n GPUs, by tensor parallelism or by layers.
void set_split(Run& r, int n, const std::string& how) {
  r.c.tensor_parallel = how == "tensor" ? n : 1;
  r.c.pipeline_parallel = how == "tensor" ? 1 : n;
  r.mp = n;
  r.dp = r.c.gpus / n;
}

Run split_over(Run r, int n, const std::string& how) {
  set_split(r, n, how);
  return r;
}

// `--gpus N` alone, for inference: each replica on as few GPUs as hold it, split the engine's
// way (vLLM and TensorRT-LLM by tensor parallelism, llama.cpp and PyTorch by layers), and the
// other GPUs running more replicas. Said in the notes.
void choose_split(Run& r, std::vector<std::string>& notes) {
  if (r.c.gpus == 1 || r.c.tensor_parallel > 1 || r.c.pipeline_parallel > 1 ||
      r.c.expert_parallel > 1)
    return;
  const std::string& how = r.engine->split;
  const char* flag = how == "tensor" ? "--tp" : "--pp";
  if (evaluate(r, r.capacity_gb).fits) {
    notes.push_back(fmt::format(
        "{} GPUs run {} replicas of the model, one per GPU ({} or --pp splits one over several)",
        r.c.gpus, r.c.gpus, flag));
    return;
  }
  int chosen = 0;
  for (int n = 2; n <= r.c.gpus; n *= 2) {
    if (r.c.gpus % n != 0 || !splits(r, n, how)) continue;
    chosen = n;
    if (evaluate(split_over(r, n, how), r.capacity_gb).fits) break;
  }
  if (chosen == 0) return;
  set_split(r, chosen, how);
  notes.push_back(fmt::format("{} splits the model over {} GPUs by {} ({} {}){}", r.engine->name,
                              chosen, how == "tensor" ? "tensor parallelism" : "layers", flag,
                              chosen,
                              r.dp > 1 ? fmt::format(", {} replicas", r.dp) : std::string()));
}

// Serving without a batch: as many sequences in flight as the KV cache and the engine hold.
void serve_at_capacity(Run& r, std::vector<std::string>& notes) {
  Run one = r;
  one.batch = 1;
  const MemoryEstimate e = evaluate(one, r.capacity_gb);
  r.batch = std::max(1, e.max_sequences);
  r.c.batch = r.batch;
  notes.push_back(fmt::format(
      "{} sequences in flight per replica: the most the KV cache holds at {} + {} tokens{}",
      r.batch, r.seq, r.c.gen_tokens,
      e.max_sequences == r.c.max_seqs.value_or(r.engine->max_sequences(r.capacity_gb))
          ? fmt::format(" within {}'s limit", r.engine->name)
          : std::string()));
}

// Memory is affine in the batch: the largest batch whose total fits what the run may use.
int largest_batch(const Run& run) {
  Run one = run, two = run;
  // A pipelined run holds its micro-batches: the largest micro-batch at the same batch.
  if (run.c.micro_batch) {
    one.c.micro_batch = 1;
    two.c.micro_batch = 2;
  } else {
    one.batch = 1;
    two.batch = 2;
  }
  const MemoryEstimate a = evaluate(one, run.capacity_gb), b = evaluate(two, run.capacity_gb);
  const double margin = a.available_gb - a.total_gb;
  const double slope = (b.available_gb - b.total_gb) - margin;
  if (margin < 0) return 0;
  if (slope >= 0) return 1'000'000;
  return static_cast<int>(std::min(1e6, 1 + std::floor(margin / -slope)));
}

// Inference: formats with fewer bits the engine runs, best quality first (at most
// kFormatSuggestions of them), and a smaller KV cache.
constexpr int kFormatSuggestions = 3;
template <class TryChange>
void inference_suggestions(const Run& r, TryChange& try_change) {
  const Engines& engines = embedded_engines();
  std::vector<const WeightFormat*> smaller;
  for (const auto& f : engines.formats) {
    if (r.engine->runs(f.id) && f.bits_per_weight < r.format->bits_per_weight)
      smaller.push_back(&f);
  }
  std::sort(smaller.begin(), smaller.end(), [](const WeightFormat* a, const WeightFormat* b) {
    return a->bits_per_weight > b->bits_per_weight;
  });
  int found = 0;
  for (const WeightFormat* f : smaller) {
    if (found < kFormatSuggestions &&
        try_change(fmt::format("--weights {}", f->id), [&](Run& a) { a.c.weights = f->id; }))
      ++found;
  }
  if (r.c.kv_cache == "auto" && r.engine->kv_formats.size() > 1) {
    const std::string kv = r.engine->kv_formats[1];
    try_change(fmt::format("--kv-cache {}", kv), [&](Run& a) { a.c.kv_cache = kv; });
  }
}

// The longest sequence (context) that fits at the run's batch: memory grows with s
// (quadratically without flash attention), so search. Bounded by the model's context.
int longest_sequence(const Run& run) {
  const int limit = std::max(run.w.transformer->max_positions, 1);
  auto fits_at = [&](int s) {
    Run longer = run;
    longer.seq = s;
    return evaluate(longer, run.capacity_gb).fits;
  };
  int lo = 0, hi = limit;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (fits_at(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The run on `n` GPUs sharded as far as it goes: ZeRO-3 (training) or split the model the
// engine's way (inference). Training keeps the run's context parallelism, so `n` is a multiple
// of it and the data-parallel GPUs are n / cp.
MemoryEstimate on_gpus(const Run& run, int n) {
  Run many = run;
  many.c.gpus = n;
  if (many.train) {
    many.c.zero = 3;
    // Expert parallelism as the run has it where it divides the GPUs, else none.
    if (n % many.c.expert_parallel != 0) many.c.expert_parallel = 1;
    many.c.tensor_parallel = many.c.pipeline_parallel = 1;
    many.mp = 1;
    many.dp = n / many.c.context_parallel;
    return evaluate(many, run.capacity_gb);
  }
  return evaluate(split_over(many, n, run.engine->split), run.capacity_gb);
}

// The fewest GPUs that hold the run: a power of two up to 1024 (training: times the run's
// context-parallel degree, whose GPUs split each sequence), sharded as on_gpus shards it; a run
// that fits and holds on no fewer: its own count (0: not within).
int fewest_gpus(const Run& run, bool fits) {
  const int step = run.train ? run.c.context_parallel : 1;
  const int most = fits ? run.c.gpus - 1 : 1024;
  for (int n = step; n <= most; n *= 2) {
    if ((run.train || splits(run, n, run.engine->split)) && on_gpus(run, n).fits) return n;
  }
  return fits ? run.c.gpus : 0;
}

// A transformer's lightest partial recompute beyond the run's own that fits: each runs less of
// the forward again than full recompute (recompute_policy::kPolicies, in the order of the work
// they add), which --checkpointing offers.
template <class TryChange>
void partial_recompute_suggestion(const Run& r, TryChange& try_change) {
  const auto& policies = recompute_policy::kPolicies;
  const auto* own = std::find(std::begin(policies), std::end(policies), r.c.recompute);
  if (!r.w.transformer || own == std::end(policies)) return;
  for (const auto* p = own + 1; p != std::end(policies) && *p != recompute_policy::kFull; ++p) {
    const std::string policy(*p);
    if (try_change("--recompute " + policy, [&](Run& a) { a.c.recompute = policy; })) return;
  }
}

// Host memory last, as it is the slowest (each step crosses PCIe, docs/memory.md): the optimizer
// state (ZeRO-Offload, which DeepSpeed runs from ZeRO stage 1 on), then the weights too, which
// DeepSpeed and FSDP offload only when they shard them (ZeRO-3, ZeRO-Infinity's offload_param).
template <class TryChange>
void offload_suggestions(const Run& r, TryChange& try_change) {
  if (r.c.offload == "none") {
    const bool sharded = r.c.zero >= 1;
    if (try_change(sharded ? "--offload optimizer" : "--zero 2 --offload optimizer", [&](Run& a) {
          a.c.zero = sharded ? r.c.zero : 2;
          a.c.offload = "optimizer";
        }))
      return;
  }
  if (r.c.offload == "cpu" && r.c.zero >= 3) return;
  try_change(r.c.zero >= 3 ? "--offload cpu" : "--zero 3 --offload cpu", [](Run& a) {
    a.c.zero = 3;
    a.c.offload = "cpu";
  });
}

// Training: sequence parallelism (no slower, docs/scaleout.md), partial then full recompute,
// adapters, a smaller optimizer state, a chunked loss, offloaded activations, then offloaded
// state, in the order a user would try them.
template <class TryChange>
void training_suggestions(const Run& r, TryChange& try_change) {
  auto checkpoint = [](Run& a) {
    a.c.checkpointing = true;
    a.c.recompute = "full";
  };
  if (r.c.tensor_parallel > 1 && !r.c.sequence_parallel)
    try_change("--sequence-parallel", [](Run& a) { a.c.sequence_parallel = true; });
  partial_recompute_suggestion(r, try_change);
  if (!r.c.checkpointing) try_change("--checkpointing", checkpoint);
  const bool adapters = has_adapter_targets(r.w);
  if (r.c.method == "full" && adapters) {
    try_change("--method lora", [](Run& a) {
      a.c.method = "lora";
      a.c.weights.clear();
    });
  }
  if (r.c.method != "qlora" && adapters) {
    try_change("--method qlora", [](Run& a) {
      a.c.method = "qlora";
      a.c.weights.clear();
    });
    try_change("--method qlora --checkpointing", [&](Run& a) {
      a.c.method = "qlora";
      a.c.weights.clear();
      checkpoint(a);
    });
  }
  if (r.c.optimizer == "adamw")
    try_change("--optimizer adam8bit", [](Run& a) { a.c.optimizer = "adam8bit"; });
  if (r.c.loss_chunks == 1 && r.w.transformer)
    try_change("--loss-chunks 8", [](Run& a) { a.c.loss_chunks = 8; });
  if (r.c.checkpointing && !r.c.activation_offload)
    try_change("--activation-offload", [](Run& a) { a.c.activation_offload = true; });
  offload_suggestions(r, try_change);
}

// What would make a run that does not fit fit, each with the total it needs: changes to the
// run (training_suggestions, inference_suggestions), then a smaller batch, then more GPUs.
std::vector<std::string> fitting_changes(const Run& run, int max_batch, int min_gpus) {
  std::vector<std::string> out;
  // A change that moves state to host memory says how much a GPU's process keeps there.
  const double own_host_gb = evaluate(run, run.capacity_gb).host_gb;
  auto try_change = [&](std::string label, auto change) {
    Run alt = run;
    change(alt);
    auto changed = resolve(run.w, alt.c);
    if (!changed) return false;
    changed->capacity_gb = run.capacity_gb;
    changed->explain = false;
    const MemoryEstimate m = evaluate(*changed, run.capacity_gb);
    if (!m.fits) return false;
    out.push_back(m.host_gb > own_host_gb + 0.05
                      ? fmt::format("{} ({:.1f} GB; {:.1f} GB in host memory per GPU)", label,
                                    m.total_gb, m.host_gb)
                      : fmt::format("{} ({:.1f} GB)", label, m.total_gb));
    return true;
  };
  if (run.train) {
    training_suggestions(run, try_change);
  } else {
    inference_suggestions(run, try_change);
  }
  if (run.c.micro_batch) {
    if (max_batch >= 1 && max_batch < *run.c.micro_batch)
      out.push_back(fmt::format("--micro-batch {}", max_batch));
  } else if (max_batch >= 1 && max_batch < run.batch) {
    out.push_back(fmt::format("--batch {}", max_batch));
  }
  if (min_gpus > 1) {
    const bool tensor = run.engine->split == "tensor";
    out.push_back(run.train
                      ? fmt::format("{} GPUs with --zero 3 ({:.1f} GB each)", min_gpus,
                                    on_gpus(run, min_gpus).total_gb)
                      : fmt::format("--gpus {} --{} {} ({} split, {:.1f} GB each)", min_gpus,
                                    tensor ? "tp" : "pp", min_gpus, tensor ? "tensor" : "layer",
                                    on_gpus(run, min_gpus).total_gb));
  }
  return out;
}
}  // namespace

std::optional<double> bits_per_weight(std::string_view format) {
  auto found = embedded_engines().find_format(format);
  if (!found) return std::nullopt;
  return (*found)->bits_per_weight;
}

std::vector<std::string> run_warnings(const Workload& workload, const RunConfig& config) {
  std::vector<std::string> out;
  const fp8_training::Format* low = fp8_training::training_format(config.precision);
  if (config.mode == "train" && low && low->block_scaled) {
    out.push_back(fmt::format(
        "{} training assumes Transformer Engine's {} recipe (docs/performance.md, \"MXFP8 "
        "and NVFP4 training\"); no measured run in validation/ checks {} training, its speed or "
        "its memory",
        config.precision, low->recipe, config.precision));
  }
  if (!workload.transformer) return out;
  const int context = workload.transformer->max_positions;
  const std::int64_t seq = config.seq_len.value_or(workload.default_seq_len.value_or(1));
  const std::int64_t tokens = seq + std::max(config.gen_tokens, 0);
  if (tokens > context) {
    out.push_back(fmt::format(
        "{} tokens{} are beyond {}'s context of {}: the model was not trained on sequences this "
        "long; memory and speed are computed as asked",
        tokens,
        config.gen_tokens > 0 ? fmt::format(" ({} + {} generated)", seq, config.gen_tokens) : "",
        workload.id, context));
  }
  return out;
}

Status check_link(std::string_view link) {
  // The catalog's GPU-to-GPU links (its gpu_link field), and PCIe, which every GPU has.
  static const std::vector<std::string> kLinks = [] {
    std::vector<std::string> out = {"pcie"};
    for (std::string_view l : find_field(gpu_fields(), "gpu_link")->choices) {
      if (l != "none") out.emplace_back(l);
    }
    return out;
  }();
  if (link.empty() || std::find(kLinks.begin(), kLinks.end(), link) != kLinks.end()) return {};
  return Status::invalid_input(fmt::format("--link '{}' is not accepted; expected {}{}",
                                           shown(link), quoted_list(kLinks),
                                           did_you_mean(link, kLinks)));
}

Status check_layout(const Workload& workload, int tensor_parallel, int pipeline_parallel,
                    bool inference) {
  if (!workload.transformer) return {};
  const TransformerConfig& t = *workload.transformer;
  if (inference) {
    // The engines (vLLM, TensorRT-LLM) give each rank a copy of a key/value head when the ranks
    // outnumber them (the KV cache counts the copies, inference_memory.cc), and spread layers
    // unevenly over pipeline stages (405B's 126 layers over 8).
    const bool heads = t.num_heads % tensor_parallel == 0 &&
                       (t.kv_heads() % tensor_parallel == 0 || tensor_parallel % t.kv_heads() == 0);
    if (heads && pipeline_parallel <= t.total_layers()) return {};
    if (heads) {
      return Status::invalid_input(fmt::format("--pp {} is more than {}'s {} layers",
                                               pipeline_parallel, workload.id, t.total_layers()));
    }
    return check_layout(workload, tensor_parallel, 1, false);
  }
  // Megatron-LM splits heads and key/value groups whole across the tensor-parallel ranks, and
  // whole layers across the pipeline stages.
  if (t.num_heads % tensor_parallel != 0 || t.kv_heads() % tensor_parallel != 0) {
    const int both = std::gcd(t.num_heads, t.kv_heads());
    return Status::invalid_input(fmt::format(
        "--tp {} must divide {}'s {} attention heads and {} key/value heads; accepted: {}",
        tensor_parallel, workload.id, t.num_heads, t.kv_heads(), divisors(both)));
  }
  if (t.total_layers() % pipeline_parallel != 0) {
    return Status::invalid_input(fmt::format("--pp {} must divide {}'s {} layers; accepted: {}",
                                             pipeline_parallel, workload.id, t.total_layers(),
                                             divisors(t.total_layers())));
  }
  return {};
}

double capacity_gb(const Gpu& gpu) { return gpu.memory_gb * mc::kBytesPerMarketedGb / 1e9; }

namespace {

// A mixture of experts in training: how its experts are split, so that a reader can check the
// expert share of the terms (parameter_layout).
void expert_note(const Run& r, std::vector<std::string>& notes) {
  const double experts = static_cast<double>(count_params(r.w).experts);
  if (experts <= 0) return;
  const int e = r.w.transformer->experts(), ep = r.c.expert_parallel;
  const double edp = static_cast<double>(weight_replicas(r)) / ep;
  notes.push_back(fmt::format(
      "the experts are {} of the {} parameters (P_experts); each GPU holds {} of each MoE layer's "
      "{} experts (ep {}), and each expert's replicas, edp = dp · cp / ep = {} GPUs, reduce its "
      "gradients{}",
      big(experts), big(r.loaded), e / ep, e, ep, num(edp),
      r.c.zero >= 1 ? " and shard its state (ZeRO)" : ""));
}

// A mixture of experts served with expert parallelism (attention data parallel): what each GPU
// holds, so that a reader can check the weights term.
void serving_expert_note(const Run& r, std::vector<std::string>& notes) {
  const ParamCounts p = count_params(r.w);
  const int e = r.w.transformer->experts(), ep = r.c.expert_parallel;
  notes.push_back(fmt::format(
      "expert parallel {0} with attention data parallel (DEP{0}): each GPU runs attention for its "
      "own {1} sequences with its own KV cache, holds the {2} dense parameters (attention, "
      "router, norms, embeddings) whole and {3} of each MoE layer's {4} experts, {5} of the {6} "
      "expert parameters",
      ep, r.batch, big(static_cast<double>(p.total - p.experts)), e / ep, e,
      big(static_cast<double>(p.experts) / ep), big(static_cast<double>(p.experts))));
}

// A recipe that leaves the sequence length to the data (torchtune's and LitGPT's: the longest
// sample) and a run that does not give it: the workload's default length is an assumption.
void recipe_sequence_note(const Run& r, const RunConfig& given, std::vector<std::string>& notes) {
  if (given.recipe.empty() || given.seq_len || !r.train || !r.w.transformer) return;
  notes.push_back(fmt::format(
      "recipe {} leaves the sequence length to the data (the longest sample); seq {} is {}'s "
      "default: --seq sets the length of your samples",
      given.recipe, r.seq, r.w.id));
}

// estimate_memory, its terms' formulas and values written when `explain`; the searches read
// the numbers alone.
Result<MemoryEstimate> estimate(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                                bool with_searches, bool explain,
                                const ParamCounts* params = nullptr,
                                const ComponentPlan* plan = nullptr) {
  auto resolved = resolve(workload, config, plan);
  if (!resolved) return resolved.status();
  Run& run = resolved.value();
  if (Status s = check_node(gpu, run.c); !s.ok()) return s;
  run.params = params;
  run.capacity_gb = capacity_gb(gpu);
  run.explain = false;
  std::vector<std::string> notes;
  if (!run.train && workload.transformer) {
    choose_split(run, notes);
    if (run.c.mode == "serve" && !config.batch) serve_at_capacity(run, notes);
  }
  run.explain = explain;
  MemoryEstimate e = evaluate(run, run.capacity_gb);
  if (explain && run.train) expert_note(run, notes);
  if (explain) recipe_sequence_note(run, config, notes);
  if (explain && !run.train && run.c.expert_parallel > 1) serving_expert_note(run, notes);
  e.notes = std::move(notes);
  e.warnings = run_warnings(workload, run.c);
  const fp8_training::Format* low = fp8_training::training_format(run.c.precision);
  if (run.train && low && !fp8_training::runs_on(gpu, *low)) {
    e.warnings.push_back(
        fmt::format("{} training needs {}, which {} has not: this is the memory the run would "
                    "take, and `rigplan predict` refuses it there",
                    run.c.precision, fp8_training::hardware_needed(*low), gpu.id));
  }
  if (!with_searches) return e;
  run.explain = false;
  e.max_batch = largest_batch(run);
  if (workload.transformer) e.max_seq_len = longest_sequence(run);
  e.min_gpus = fewest_gpus(run, e.fits);
  if (!e.fits) e.suggestions = fitting_changes(run, e.max_batch, e.min_gpus);
  return e;
}

}  // namespace

Result<MemoryEstimate> estimate_memory(const Workload& workload, const Gpu& gpu,
                                       const RunConfig& config, bool with_searches) {
  return estimate(workload, gpu, config, with_searches, /*explain=*/true);
}

Result<MemoryEstimate> estimate_memory_numbers(const Workload& workload, const Gpu& gpu,
                                               const RunConfig& config, const ParamCounts* params,
                                               const ComponentPlan* plan) {
  return estimate(workload, gpu, config, /*with_searches=*/false, /*explain=*/false, params, plan);
}

}  // namespace rigplan
