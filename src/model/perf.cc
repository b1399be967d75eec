// The per-operator performance model (docs/performance.md).
#include "rigplan/perf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/components.h"
#include "model/inference_perf.h"
#include "model/links.h"
#include "model/perf_constants.h"
#include "rigplan/schema.h"
#include "util/strings.h"

namespace rigplan {
namespace {

namespace pc = perf_constants;

// One operator (or `count` identical ones) of a step on one GPU.
struct Op {
  std::string_view kind;  // gemm, attention, elementwise, optimizer
  double flops = 0;
  double bytes = 0;
  double m = 0, n = 0, k = 0;  // GEMM shape, for the size-dependent efficiency
  double count = 1;            // identical kernels (LSTM time steps, MoE experts)
  double kernels = 1;          // launches per instance
};

struct Rates {
  double tensor_tflops = 0;  // the GEMM rate of the precision
  double vector_tflops = 0;
  double bandwidth_gbps = 0;
  double l2_bytes = 0;
  double sms = 1;
};

Rates rates_for(const Gpu& g, const std::string& precision) {
  Rates r;
  r.vector_tflops = g.fp32_tflops;
  r.bandwidth_gbps = g.mem_bandwidth_gbps;
  r.l2_bytes = g.l2_cache_mb * 1e6;
  r.sms = g.sm_count;
  r.tensor_tflops = g.fp32_tflops;
  if (!g.tensor_cores) return r;  // Pascal runs 16-bit GEMMs at the FP32 rate (pseudo-fp16)
  if (precision == "fp32" || precision == "tf32") {
    r.tensor_tflops = g.tf32_tflops.value_or(g.fp32_tflops);  // TF32 by default from Ampere
  } else if (precision == "fp16") {
    r.tensor_tflops = g.fp16_tflops.value_or(g.fp32_tflops);
  } else if (precision == "bf16") {
    r.tensor_tflops = g.bf16_tflops.value_or(g.fp32_tflops);  // no BF16 tensor cores: emulated
  } else if (precision == "fp8") {
    r.tensor_tflops =
        g.fp8_tflops.value_or(g.bf16_tflops.value_or(g.fp16_tflops.value_or(g.fp32_tflops)));
  }
  return r;
}

// Wave quantization: a GEMM's tiles run in waves of one tile per SM; the last wave may leave
// SMs idle. A short inner dimension cannot fill the pipeline.
double gemm_shape_efficiency(const Op& op, double sms) {
  const double tiles = std::ceil(op.m / pc::kTile) * std::ceil(op.n / pc::kTile);
  const double waves = std::ceil(tiles / sms);
  const double wave_eff = tiles / (waves * sms);
  const double k_eff = std::min(1.0, op.k / pc::kFullK);
  return std::max(1e-3, wave_eff * k_eff);
}

// GEMM traffic: each operand once while they fit in L2, up to twice when they do not (tiles of
// the larger operand are re-read from DRAM); the output once.
double gemm_bytes(double m, double n, double k, double beta, double l2_bytes) {
  const double operands = (m * k + k * n) * beta;
  const double spill = std::clamp(1.0 - l2_bytes / operands, 0.0, 1.0);
  return operands * (1 + spill) + m * n * beta;
}

Op gemm(double m, double n, double k, double beta, const Rates& rates, double count = 1) {
  Op op;
  op.kind = "gemm";
  op.m = m;
  op.n = n;
  op.k = k;
  op.flops = 2 * m * n * k;
  op.bytes = gemm_bytes(m, n, k, beta, rates.l2_bytes);
  op.count = count;
  return op;
}

Op elementwise(double bytes, double count = 1) {
  Op op;
  op.kind = "elementwise";
  op.bytes = bytes;
  op.flops = bytes / 4;  // a few operations per element
  op.count = count;
  return op;
}

struct Step {
  std::vector<Op> forward;  // backward is derived: 2× the GEMM FLOPs (1× for frozen weights)
  std::vector<Op> once;     // the optimizer and other per-step operators
};

// Operators of one forward pass of a transformer over `tokens` tokens of length `seq`.
void transformer_ops(const TransformerConfig& t, double tokens, double seq, double beta, bool flash,
                     int tp, const Rates& rates, std::vector<Op>& ops) {
  const double d = t.hidden_size, f = t.ffn_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const double layers = t.total_layers();
  const double causal = t.arch == "encoder" ? 1.0 : 0.5;
  for (const auto& lin : layer_linears(t)) {
    const bool mlp = lin.name == "gate" || lin.name == "up" || lin.name == "down";
    const double experts = mlp ? t.experts() : 1;
    const double rows = mlp ? tokens * t.top_k() / experts : tokens;
    ops.push_back(
        gemm(rows, static_cast<double>(lin.out) / (lin.name == "down" || lin.name == "o" ? 1 : tp),
             static_cast<double>(lin.in) / (lin.name == "down" || lin.name == "o" ? tp : 1), beta,
             rates, layers * experts));
  }
  // Attention: scores and context, 4·s·q FLOPs per token (halved by causal masking).
  Op attention;
  attention.kind = "attention";
  attention.flops = 4 * tokens * seq * q * causal / tp;
  attention.bytes = tokens * (2 * q + 2 * kv) * beta / tp;
  if (!flash)
    attention.bytes += 6 * tokens * t.num_heads * seq * beta / tp;  // scores, softmax, dropout
  attention.count = layers;
  attention.kernels = flash ? 1 : 4;
  ops.push_back(attention);
  // Norms, residual adds, activation, rotary embedding and dropout: elements read and written.
  const double elements = 4 * d + 6 * d + (t.gated() ? 3 : 2) * f * t.top_k() + 2 * (q + 2 * kv) +
                          (t.dropout.value_or(true) ? 6 * d : 0);
  ops.push_back(elementwise(tokens * elements * beta / tp, layers));
  ops.back().kernels = 8;
  // Embeddings, LM head and loss.
  if (t.arch != "encoder" && t.vocab_size > 0) {
    ops.push_back(gemm(tokens, t.vocab_size / static_cast<double>(tp), d, beta, rates));
    ops.push_back(elementwise(tokens * t.vocab_size * (beta + 4) * 2 / tp));
  }
  ops.push_back(elementwise(tokens * d * beta * 2));
}

// Operators of one forward pass of the layers of a layer list that have `role` in the run.
void layer_ops(const Workload& w, const std::vector<LayerRole>& roles, LayerRole role, double batch,
               double beta, bool flash, const Rates& rates, std::vector<Op>& ops) {
  for (size_t i = 0; i < w.layers.size(); ++i) {
    if (roles[i] != role) continue;
    const Layer& l = w.layers[i];
    const double count = l.count;
    if (l.op == "conv2d" || l.op == "conv_transpose2d") {
      const double kh = l.kernel_h.value_or(l.kernel), kw = l.kernel_w.value_or(l.kernel);
      const double m = batch * l.out_h * l.out_w;
      const double k = static_cast<double>(l.in_channels) / l.groups * kh * kw;
      Op op = gemm(m, l.out_channels, k, beta, rates, count);
      // Implicit GEMM reads the input feature map, not the unfolded matrix.
      const double in_hw = static_cast<double>(l.out_h) * l.out_w * l.stride * l.stride;
      op.bytes =
          batch *
              (l.in_channels * in_hw + static_cast<double>(l.out_channels) * l.out_h * l.out_w) *
              beta +
          static_cast<double>(l.out_channels) * k * beta;
      ops.push_back(op);
    } else if (l.op == "linear") {
      ops.push_back(gemm(batch * static_cast<double>(l.tokens), l.out_features, l.in_features, beta,
                         rates, count));
    } else if (l.op == "lstm") {
      const double dirs = l.bidirectional ? 2 : 1, h = l.hidden_size,
                   steps = static_cast<double>(l.steps);
      // Input projections for all steps at once, then one small recurrent GEMM per step.
      ops.push_back(gemm(batch * steps, 4 * h * dirs, l.input_size, beta, rates, count));
      Op recurrent = gemm(batch, 4 * h, h, beta, rates, count * steps * dirs);
      recurrent.kernels = 2;  // the GEMM and the fused gate update
      ops.push_back(recurrent);
    } else if (l.op == "attention") {
      Op op;
      op.kind = "attention";
      op.flops = 4.0 * batch * l.heads * l.head_dim * static_cast<double>(l.query_len) *
                 static_cast<double>(l.key_len);
      op.bytes = batch * 4.0 * l.heads * l.head_dim * static_cast<double>(l.query_len) * beta;
      if (!flash)
        op.bytes += 6 * batch * l.heads * static_cast<double>(l.query_len) *
                    static_cast<double>(l.key_len) * beta;
      op.count = count;
      ops.push_back(op);
    } else if (l.op == "embedding") {
      ops.push_back(elementwise(batch * static_cast<double>(l.lookups) * l.dim * beta * 2, count));
    } else {  // norm, elementwise: read and write each element
      ops.push_back(elementwise(batch * static_cast<double>(l.elements) * beta * 2, count));
    }
  }
}

struct Timing {
  double gemm = 0, attention = 0, elementwise = 0, optimizer = 0, dequantize = 0;
  double gemm_flops = 0, other_flops = 0, bytes = 0;
  double compute_bound = 0, memory_bound = 0;
};

// Time of the operators, forward ×1 plus `backward_gemm` (2 for trained weights, 1 for frozen)
// and `backward_other` (2) times for the backward pass.
void time_ops(const std::vector<Op>& ops, double passes_gemm, double passes_other,
              const Rates& rates, const ArchCalibration& cal, Timing& out) {
  for (const Op& op : ops) {
    const bool is_gemm = op.kind == "gemm";
    const bool is_attention = op.kind == "attention";
    const double passes = is_gemm ? passes_gemm : passes_other;
    double compute = 0;
    if (is_gemm) {
      compute = op.flops / (rates.tensor_tflops * 1e12 * cal.gemm_efficiency *
                            gemm_shape_efficiency(op, rates.sms));
    } else if (is_attention) {
      compute =
          op.flops / (rates.tensor_tflops * 1e12 * cal.gemm_efficiency * pc::kAttentionVsGemm);
    } else {
      compute = op.flops / (rates.vector_tflops * 1e12 * pc::kVectorEfficiency);
    }
    const double memory = op.bytes / (rates.bandwidth_gbps * 1e9 * cal.memory_efficiency);
    const double seconds =
        (std::max(compute, memory) + op.kernels * pc::kKernelOverheadS) * op.count * passes;
    (compute >= memory ? out.compute_bound : out.memory_bound) += seconds;
    if (is_gemm) {
      out.gemm += seconds;
      out.gemm_flops += op.flops * op.count * passes;
    } else if (is_attention) {
      out.attention += seconds;
      out.other_flops += op.flops * op.count * passes;
    } else if (op.kind == "optimizer") {
      out.optimizer += seconds;
    } else if (op.kind == "dequantize") {
      out.dequantize += seconds;
    } else {
      out.elementwise += seconds;
    }
    out.bytes += op.bytes * op.count * passes;
  }
}

}  // namespace

std::string calibration_key(const Gpu& gpu) {
  if (gpu.memory_type.rfind("HBM", 0) == 0) return gpu.architecture + "-hbm";
  // GeForce tensor cores accumulate 16-bit products into FP32 at half the FP16-accumulate rate;
  // a Titan, like the workstation and datacenter cards of its chip, runs both at full rate.
  const bool half_rate_accumulate =
      gpu.fp16_tflops && gpu.fp16_fp16acc_tflops && *gpu.fp16_tflops < *gpu.fp16_fp16acc_tflops;
  return gpu.architecture + (half_rate_accumulate ? "-geforce" : "-gddr");
}

ArchCalibration Calibration::for_arch(std::string_view architecture) const {
  for (const auto& a : archs) {
    if (a.architecture == architecture) return a;
  }
  const std::string_view generation = architecture.substr(0, architecture.find('-'));
  for (const auto& a : archs) {
    if (std::string_view(a.architecture).substr(0, a.architecture.find('-')) == generation) {
      ArchCalibration same = a;
      same.architecture = std::string(architecture);
      return same;
    }
  }
  ArchCalibration mean{std::string(architecture), 0, 0, 0, "mean of the fitted architectures"};
  for (const auto& a : archs) {
    mean.gemm_efficiency += a.gemm_efficiency / static_cast<double>(archs.size());
    mean.memory_efficiency += a.memory_efficiency / static_cast<double>(archs.size());
    mean.tf32_efficiency += a.tf32_efficiency / static_cast<double>(archs.size());
  }
  if (archs.empty()) mean = ArchCalibration{std::string(architecture)};
  return mean;
}

double Calibration::workload_efficiency(std::string_view workload) const {
  for (const auto& w : workloads) {
    if (w.workload == workload) return w.efficiency;
  }
  return 1;
}

std::string workload_class(const Workload& w) {
  if (w.transformer) return "transformer";
  if (w.task == "recommendation") return "recsys";
  for (const auto& l : w.layers) {
    if (l.op == "lstm") return "rnn";
  }
  return "cnn";
}

Result<RunFacts> run_facts(const Workload& w, const Gpu& gpu, const RunConfig& config) {
  auto memory = estimate_memory(w, gpu, config, /*with_searches=*/false);
  if (!memory) return memory.status();
  const FlopCounts flops =
      count_flops(w, *memory->config.batch, *memory->config.seq_len);  // resolved
  return RunFacts{std::move(memory).value(), count_params(w), flops, workload_class(w)};
}

Result<Prediction> predict_largest_fitting(const Workload& w, const Gpu& gpu,
                                           const RunConfig& config, const Calibration& calibration,
                                           const Catalog& catalog, bool shrink_batch) {
  auto p = predict(w, gpu, config, calibration, catalog);
  if (!p || p->fits || !shrink_batch) return p;
  auto memory = estimate_memory(w, gpu, config);
  if (!memory || memory->max_batch < 1) return p;
  RunConfig smaller = config;
  smaller.batch = memory->max_batch;
  auto q = predict(w, gpu, smaller, calibration, catalog);
  return q && q->fits ? q : p;
}

Result<Prediction> predict(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog) {
  auto facts = run_facts(w, gpu, config);
  if (!facts) return facts.status();
  return predict(w, gpu, config, calibration, catalog, *facts);
}

Result<Prediction> predict(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog,
                           const RunFacts& facts) {
  if (Status s = check_link(config.link); !s.ok()) return s;
  // An LLM served for inference: the engine's phases (inference_perf.cc).
  if (w.transformer && facts.memory.config.mode != "train")
    return predict_inference(w, gpu, calibration, catalog, facts);
  const MemoryEstimate& estimate = facts.memory;
  const double capacity = capacity_gb(gpu);  // the estimate may be for another GPU
  Prediction p;
  p.config = estimate.config;
  p.warnings = estimate.warnings;
  const RunConfig& c = p.config;
  p.workload_class = facts.workload_class;
  p.error_band = calibration.error_band.count(p.workload_class)
                     ? calibration.error_band.at(p.workload_class)
                     : 0.25;
  ArchCalibration cal = calibration.for_arch(calibration_key(gpu));
  const Rates rates = rates_for(gpu, c.precision);
  if ((c.precision == "fp32" || c.precision == "tf32") && gpu.tf32_tflops)
    cal.gemm_efficiency *= cal.tf32_efficiency;
  const double beta = c.precision == "fp32" || c.precision == "tf32" ? 4 : 2;
  const bool train = c.mode == "train";
  const bool decode = config.mode == "decode";
  const int tp = c.tensor_parallel, pp = c.pipeline_parallel;
  const int dp = c.gpus / (tp * pp);
  const double batch = *c.batch, seq = *c.seq_len;

  std::vector<Op> ops, forward_only;
  if (w.transformer) {
    transformer_ops(*w.transformer, batch * seq, seq, beta, c.flash_attention, tp, rates, ops);
    // Training pipelines keep every stage busy with micro-batches (the bubble is added below);
    // inference over split layers (llama.cpp-style) runs the stages one after another, so a
    // single stream is no faster than on one GPU.
    if (pp > 1 && train) {
      for (auto& op : ops) op.count /= pp;
    }
  } else {
    // Trained layers run forward and backward; frozen ones (text encoders, a VAE encoding its
    // images) forward only; idle and cached components not at all.
    auto plan = plan_components(w, c);
    if (!plan) return plan.status();
    layer_ops(w, plan->roles, train ? LayerRole::kTrained : LayerRole::kFrozen, batch, beta,
              c.flash_attention, rates, ops);
    if (train) {
      layer_ops(w, plan->roles, LayerRole::kFrozen, batch, beta, c.flash_attention, rates,
                forward_only);
    }
  }

  Timing timing;
  const bool frozen = c.method != "full";
  // The parameters the run trains, as the memory model counts them (LoRA: r·(in + out) per
  // targeted matrix), and the steps an optimizer update is spread over.
  const double trained = estimate.trainable_params;
  const double accum = c.grad_accum;
  if (train) {
    // Backward: activation gradients and (trained layers) weight gradients; recomputation adds
    // a forward.
    const double recompute = c.checkpointing ? 1 : 0;
    time_ops(ops, 1 + (frozen ? 1 : 2) + recompute, 1 + 2 + recompute, rates, cal, timing);
    time_ops(forward_only, 1, 1, rates, cal, timing);
    if (c.method == "qlora" && w.transformer) {
      // Each 4-bit weight is dequantized to 16 bit before its matmul, in the forward, again for
      // the activation gradient, and in a recomputed forward: packed codes read, 16-bit written.
      const double quantized =
          static_cast<double>(facts.params.total - facts.params.embedding - facts.params.head);
      Op dequantize = elementwise(quantized * (*bits_per_weight(c.weights) / 8 + 2) / (tp * pp));
      dequantize.kind = "dequantize";
      dequantize.kernels = static_cast<double>(layer_linears(*w.transformer).size()) *
                           w.transformer->total_layers() / pp;
      time_ops({dequantize}, 2 + recompute, 2 + recompute, rates, cal, timing);
    }
    const double per_param = c.optimizer == "adamw" || c.optimizer == "adam8bit" ||
                                     c.optimizer == "paged-adamw" ||
                                     c.optimizer == "paged-adamw8bit"
                                 ? (c.pure_16bit ? pc::kAdamPure16Bytes : pc::kAdamMixedBytes)
                             : c.optimizer == "sgd-momentum" ? pc::kSgdMomentumBytes
                                                             : pc::kSgdBytes;
    if (c.offload == "none") {
      Op optimizer;
      optimizer.kind = "optimizer";
      optimizer.bytes = trained * per_param / (tp * pp) / (c.zero >= 1 ? dp : 1) / accum;
      optimizer.kernels = 4 / accum;
      time_ops({optimizer}, 1, 1, rates, cal, timing);
    }
  } else {
    time_ops(ops, 1, 1, rates, cal, timing);
  }
  // A measured workload runs at its fitted fraction of the operator model's speed.
  const double implementation = calibration.workload_efficiency(w.id);
  for (double* t : {&timing.gemm, &timing.attention, &timing.elementwise, &timing.optimizer,
                    &timing.dequantize, &timing.compute_bound, &timing.memory_bound}) {
    *t /= implementation;
  }
  double step =
      timing.gemm + timing.attention + timing.elementwise + timing.optimizer + timing.dequantize;
  p.terms.push_back({"gemm", timing.gemm, timing.gemm_flops, 0, "compute"});
  p.terms.push_back({"attention", timing.attention, timing.other_flops, 0, "compute"});
  p.terms.push_back({"elementwise", timing.elementwise, 0, 0, "memory"});
  if (train) p.terms.push_back({"optimizer", timing.optimizer, 0, 0, "memory"});
  if (timing.dequantize > 0) p.terms.push_back({"dequantize", timing.dequantize, 0, 0, "memory"});

  // Communication.
  double exposed = 0;
  std::string link_name;
  if (c.gpus > 1) {
    const int node = node_gpus(c);
    const Link link = link_for(gpu, c, std::min(c.gpus, node), catalog);
    link_name = link.name;
    double busbw = link.busbw_gbps;
    double latency = pc::kIntraNodeLatencyS;
    if (c.gpus > node) {
      busbw = std::min(busbw, network_gbps(c) * pc::kNetworkEfficiency);
      latency = pc::kInterNodeLatencyS;
    }
    const ParamCounts& pcount = facts.params;
    if (train && dp > 1) {
      const double share = (dp - 1.0) / dp / (tp * pp);
      double traffic = 0, hideable = 0;
      if (c.zero >= 3) {
        // ZeRO-3/FSDP: all-gather the weights as stored (16 bit; 4 bit under FSDP-QLoRA) for the
        // forward and again for the backward, reduce-scatter the gradients; prefetching overlaps
        // it with the whole step.
        const double weight_bytes = c.precision == "fp32" || c.precision == "tf32" ? 4 : 2;
        const double stored = frozen ? *bits_per_weight(c.weights) / 8 : weight_bytes;
        traffic =
            (2 * static_cast<double>(pcount.total) * stored + trained * weight_bytes / accum) *
            share;
        hideable = step;
      } else {
        // DDP and ZeRO-1/2: a ring all-reduce (or reduce-scatter + all-gather) of the gradients,
        // fp32 under AMP, overlapped with the backward pass bucket by bucket.
        // With accumulation only the last micro-batch's backward reduces (DDP no_sync).
        traffic = 2 * trained * (c.pure_16bit ? 2 : 4) * share / accum;
        hideable = step * 2.0 / 3.0;
      }
      const double t_comm = traffic / (busbw * 1e9) + 2.0 * (dp - 1) * latency;
      const double last_bucket = std::min(pc::kDdpBucketBytes / (busbw * 1e9), t_comm);
      exposed += std::max(t_comm - pc::kBackwardOverlap * hideable, last_bucket);
    }
    if (tp > 1 && w.transformer) {
      // Megatron: two all-reduces of the activations per layer forward, two backward.
      const double act = batch * seq * w.transformer->hidden_size * beta;
      const double per = 2.0 * (tp - 1) / tp * act / (busbw * 1e9) + 2.0 * (tp - 1) * latency;
      exposed += per * (train ? 4 : 2) * w.transformer->total_layers() / pp;
    }
    if (pp > 1 && train) {
      // 1F1B pipeline bubble: (p - 1) / m of the ideal time.
      const double micro = pp * pc::kMicroBatchesPerStage;
      step *= 1 + (pp - 1) / micro;
    }
    p.terms.push_back({"communication", exposed, 0, 0, "communication"});
  }
  step += exposed;

  // Offload: the optimizer's gradients go to host memory and the updated 16-bit weights come
  // back once per optimizer step (ZeRO-Offload); offloaded weights (ZeRO-3) cross PCIe for the
  // forward and the backward of every step. Counted as not overlapped with compute; the CPU's
  // optimizer arithmetic is not counted.
  double offload_traffic_s = 0;
  if (train && c.offload != "none") {
    const double shard = c.zero >= 3 ? dp : 1;
    double bytes = 2 * trained * 2 / (tp * pp) / shard / accum;
    if (c.offload == "cpu" && c.zero >= 3) {
      const double stored = frozen ? *bits_per_weight(c.weights) / 8 : 2;
      bytes += 2 * static_cast<double>(facts.params.total) * stored / (tp * pp) / shard;
    }
    offload_traffic_s = bytes / (pcie_gbps(gpu, catalog) * 1e9 * pc::kOffloadEfficiency);
    p.terms.push_back({"offload_traffic", offload_traffic_s, 0, bytes, "capacity"});
    step += offload_traffic_s;
    p.note += (p.note.empty() ? "" : "; ") +
              fmt::format("{:.1f} GB per step over PCIe {}.0 x{} for the offload", bytes / 1e9,
                          gpu.pcie_gen, gpu.pcie_lanes);
  }

  // A run that does not fit is offloaded: what does not fit crosses PCIe each step (training:
  // there and back; inference: once per forward or generated token).
  p.fits = estimate.total_gb <= capacity || c.known_to_fit;
  if (!p.fits) {
    const double excess = (estimate.total_gb - capacity) * 1e9;
    const double pcie = pcie_gbps(gpu, catalog) * pc::kOffloadEfficiency;
    const double offload = excess * (train ? 2 : 1) / (pcie * 1e9);
    p.terms.push_back({"offload", offload, 0, excess, "capacity"});
    step += offload;
    p.note = fmt::format(
        "needs {:.1f} GB of {:.1f} GB: {:.1f} GB streamed from host memory over PCIe "
        "{}.0 x{} each step",
        estimate.total_gb, capacity, excess / 1e9, gpu.pcie_gen, gpu.pcie_lanes);
  }
  p.step_time_s = step;

  // Throughput in the workload's unit.
  const double units_per_sample = w.throughput_unit == "tokens" ||
                                          w.throughput_unit == "mel-frames" ||
                                          w.throughput_unit == "audio-samples"
                                      ? (decode ? 1.0 : seq)
                                      : 1.0;
  p.unit = w.throughput_unit + "/s";
  p.samples_per_step = batch * dp;
  p.throughput = p.samples_per_step * units_per_sample / step;

  // What bounds it: the largest share of the step.
  const double communication = exposed;
  const double offload_time = (p.fits ? 0 : p.terms.back().seconds) + offload_traffic_s;
  const std::pair<double, const char*> shares[] = {{timing.compute_bound, "compute"},
                                                   {timing.memory_bound, "memory"},
                                                   {communication, "communication"},
                                                   {offload_time, "capacity"}};
  p.bound = std::max_element(std::begin(shares), std::end(shares))->second;

  // Model FLOPs utilisation: the workload's FLOPs (6·N·tokens-style, no recomputation) over the
  // peak of all GPUs in the step time.
  const FlopCounts& f = facts.flops;
  const double model_flops = decode ? f.decode_per_token : (train ? f.train : f.forward);
  p.mfu = model_flops * dp / (step * rates.tensor_tflops * 1e12 * c.gpus);
  if (implementation != 1) {
    p.note +=
        (p.note.empty() ? "" : "; ") +
        fmt::format(
            "operator times divided by {:.3g}, this workload's measured speed against the model",
            implementation);
  }
  if (!link_name.empty())
    p.note += (p.note.empty() ? "" : "; ") + fmt::format("GPU-to-GPU: {}", link_name);
  if (!train && pp > 1) {
    p.note +=
        (p.note.empty() ? "" : "; ") +
        fmt::format("layers split over {} GPUs: each runs in turn, so one stream is no faster", pp);
  }
  return p;
}

}  // namespace rigplan
