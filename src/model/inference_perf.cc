// The speed of an LLM served by an engine (docs/inference.md).
#include "model/inference_perf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/finite_run.h"
#include "model/gemm_waves.h"
#include "model/inference_constants.h"
#include "model/inference_memory.h"
#include "model/links.h"
#include "model/moe_gemm.h"
#include "model/perf_constants.h"
#include "util/stats.h"
#include "util/strings.h"

namespace rigplan {
namespace {

namespace ic = inference_constants;
namespace pc = perf_constants;

// Prompt tokens below which what is left of a serving cycle's prompts after its full chunks is
// the floating-point rounding of a whole number of chunks, not a chunk of its own.
constexpr double kPromptTokenTolerance = 1e-6;

// How close the in-flight count that serves a request rate is found, relative: far below what
// an answer prints (5 significant digits), reached in about 35 halvings of the geometric
// bisection from 1e-6 to the slots where 60 fixed ones went on to double precision.
constexpr double kInFlightTolerance = 1e-9;

// The tensor rate of a compute type on a GPU, TFLOPS (TOPS for int8); nullopt where it has none.
std::optional<double> compute_tflops(const Gpu& g, std::string_view type) {
  if (type == "fp32") return g.fp32_tflops;
  if (!g.tensor_cores) {
    // Pascal: 16-bit math at the FP32 rate, 8-bit dot products with dp4a from compute 6.1.
    if (type == "fp16" || type == "fp16acc" || type == "bf16") return g.fp32_tflops;
    if (type == "int8" && g.vendor == "nvidia" &&
        std::stod(g.compute_capability) >= ic::kDp4aComputeCapability)
      return g.fp32_tflops * ic::kDp4aPerFp32;
    return std::nullopt;
  }
  const double fp16 = g.fp16_tflops.value_or(g.fp32_tflops);
  if (type == "fp16") return fp16;
  if (type == "fp16acc") return g.fp16_fp16acc_tflops.value_or(fp16);
  if (type == "bf16") return g.bf16_tflops.value_or(fp16);
  if (type == "fp8") return g.fp8_tflops;
  if (type == "int8") return g.int8_tops;
  if (type == "fp4") return g.fp4_tflops;
  return std::nullopt;
}

// One linear layer of a transformer layer on one GPU: output and input widths, and whether it is
// an expert of a mixture-of-experts MLP.
struct Linear {
  double n = 0, k = 0;
  bool expert = false;
};

// What the step model needs of a run, computed once per prediction.
struct Model {
  const TransformerConfig* t = nullptr;
  const Engine* engine = nullptr;
  int tp = 1, pp = 1, replicas = 1;
  int ep = 1;  // expert parallel: each GPU of a stage holds experts/ep, attention data parallel
  double normal_max = 0;    // expected_max_normal(ep): the busiest GPU's rows, for the note
  double layers = 0;        // decoder layers
  double beta = 2;          // bytes per activation element
  double weight_bytes = 2;  // bytes streamed per weight of a linear layer
  // The same and the GEMM rate for the linear layers outside the experts: a format of the
  // experts alone (mxfp4) leaves them in 16 bit.
  double dense_weight_bytes = 2, dense_gemm_rate = 0;
  double dequant_bytes = 0;    // more per weight when several rows are multiplied (bitsandbytes)
  double call_overhead_s = 0;  // host time per quantized linear call
  double head_bytes = 2;       // bytes per weight of the LM head
  double gemm_rate = 0;        // FLOP/s the linear layers reach (peak x efficiencies)
  double head_rate = 0;        // the LM head's: the dense layers' for a format of the experts
  // The experts' GEMM rate: gemm_rate, or as the engine's MoE kernels run the format on GPUs of
  // this calibration key (Engine::expert_gemm, then `expert_gemm`).
  double expert_gemm_rate = 0;
  const ExpertGemm* expert_gemm = nullptr;
  double attention_rate = 0;  // FLOP/s of attention
  double bandwidth = 0;       // bytes/s the kernels stream
  double sms = 1;
  double kv_token_layer = 0;  // bytes of one cached token of one layer on one GPU
  // The share of the layers whose attention reads through a window, and the window (tokens):
  // the model's sliding layers where the engine's kernel reads only the window, none where it
  // reads every cached token (Engine::sliding_reads "context").
  double sliding = 0;
  int window = 0;
  double q_dim = 0;  // query width on one GPU
  double experts = 1, top_k = 1;
  bool per_expert = false;    // a mixture of experts whose engine launches each expert on its own
  bool step_tiles = false;    // ... whose kernel pads every expert's rows to the step's tile
  bool choose_tiles = true;   // dense GEMMs in 64- or 128-row tiles (Engine::dense_tile)
  double moe_overhead_s = 0;  // launches a MoE layer adds to a dense MLP's, per layer
  // Bytes per token and layer that the engine's MoE routing kernels move outside the GEMMs
  // (model/moe_gemm.h moe_routing_bytes; Engine::moe_copy_bytes and moe_pick_bytes).
  double moe_routing_bytes = 0;
  // The biases of a layer that the engine adds with kernels of their own (layer_biases), and
  // their launches per layer (Engine::bias_add_us).
  int bias_adds = 0;
  double bias_add_s = 0;
  double ffn_local = 0;         // MLP width on one GPU (times top-k)
  std::vector<Linear> linears;  // of one layer
  double allreduce_latency_s = 0, allreduce_gbps = 0;
  // Among the ep GPUs (expert parallel): one of an all-to-all's ep − 1 rounds (set_expert_links).
  double all_to_all_round_s = 0, all_to_all_gbps = 0;
  std::string expert_link;
  double handoff_gbps = 0;
  std::string link;
  int chunk = 0;  // prefill tokens per step (0: whole prompts)
  // The engine's host time per sequence in a step on this GPU's host (Engine::host_sequence_us
  // over the host's single-thread speed), and that host where the GPU comes with one.
  double host_sequence_s = 0;
  const HostCpu* host = nullptr;
};

// Work of one step (or one stage of it).
struct Work {
  double tokens = 0;     // new tokens: rows of the linear layers
  double sequences = 0;  // rows of the LM head: sequences sampling a token
  double context = 0;    // sum over new tokens of the tokens each attends to
  double kv_read = 0;    // cached tokens read from memory by attention
  // The same two on a sliding-window layer, each token attending to at most the window.
  double window_context = 0, window_kv_read = 0;
  Work divided(double n) const {
    return {tokens / n,  sequences / n,      context / n,
            kv_read / n, window_context / n, window_kv_read / n};
  }
};

// Keys a sequence's queries attend to on a sliding layer when decoding at `context` tokens, and
// its prompt's of `length` tokens, summed over the prompt (docs/inference.md).
double window_keys(const Model& m, double context) {
  return m.window > 0 ? std::min<double>(context, m.window) : context;
}
double prompt_keys(const Model& m, double length) { return causal_keys(length, m.window); }

// Seconds of a step by operator class. `host`: how much longer the host's work for the step
// takes than the rest, which it overlaps.
struct Times {
  double linear = 0, attention = 0, elementwise = 0, head = 0, overhead = 0, comm = 0, host = 0;
  double compute_bound = 0, memory_bound = 0;
  double total() const { return linear + attention + elementwise + head + overhead + comm + host; }
  void add(const Times& o, double scale) {
    for (auto [a, b] : {std::pair{&linear, o.linear},
                        {&host, o.host},
                        {&attention, o.attention},
                        {&elementwise, o.elementwise},
                        {&head, o.head},
                        {&overhead, o.overhead},
                        {&comm, o.comm},
                        {&compute_bound, o.compute_bound},
                        {&memory_bound, o.memory_bound}}) {
      *a += b * scale;
    }
  }
};

// Roofline of one operator: the larger of its FLOPs at `rate` and its bytes at the bandwidth.
double roofline(double flops, double bytes, double rate, const Model& m, Times& t) {
  const double compute = flops / rate, memory = bytes / m.bandwidth;
  (compute >= memory ? t.compute_bound : t.memory_bound) += std::max(compute, memory);
  return std::max(compute, memory);
}

// Wave quantization of a GEMM's output tiles over the SMs, the padding of its partly filled
// tiles, and a short inner dimension (gemm_waves.h). An engine whose libraries choose a tile per
// GEMM (Engine::dense_tile "choose") runs more rows than half a tile in tiles of 128 rows (one
// fitted to at most 128) or of 64, whichever is faster: each tiling alone never gets faster with
// one more row, so neither does the faster of the two.
double shape_efficiency(const Model& m, double rows, double n, double k) {
  const double k_efficiency = gemm_k_efficiency(k);
  const double whole = gemm_shape_efficiency(gemm_shape(rows, n), k_efficiency, m.sms);
  const double half = pc::kTile / 2;
  if (!m.choose_tiles || rows <= half) return whole;
  return std::max(whole, gemm_shape_efficiency(gemm_shape(rows, n, 1, half), k_efficiency, m.sms));
}

// The linear layers of one layer for a step of `tokens` rows, per GPU: each a roofline of its
// FLOPs at the GEMM rate and shape efficiency and of its weights and activations at the
// bandwidth. A mixture of experts' projection is one grouped GEMM over the experts the tokens
// pick (model/moe_gemm.h), as the engines' fused MoE kernels run it, or one GEMM per touched
// expert where the engine loops over them (Engine::moe_kernel). An engine whose kernel takes one
// tile width for the step (Engine::moe_tile "step") sizes it to the step's tokens. With expert
// parallelism the step waits for the GPU whose experts get the most rows (ExpertShare::busiest).
double linear_time(const Model& m, double tokens, Times& t) {
  const double row_tile =
      m.step_tiles
          ? std::min(pc::kTile, std::ceil(tokens / ic::kMmqColumnStep) * ic::kMmqColumnStep)
          : 0;
  double linear = 0;
  // With expert parallelism a GPU runs its experts/ep over the tokens every GPU routes to them.
  const ExpertShare e = expert_share(tokens, m.experts, m.top_k, m.ep);
  const double expert_tokens = e.tokens * e.busiest;
  for (const Linear& l : m.linears) {
    if (l.expert) {
      const GroupedExpertGemm g =
          m.per_expert
              ? per_expert_gemms(expert_tokens, e.experts, e.top_k, l.n, l.k, m.sms)
              : grouped_expert_gemm(expert_tokens, e.experts, e.top_k, l.n, l.k, m.sms, row_tile);
      const double per_weight = m.weight_bytes + (g.rows > 1 ? m.dequant_bytes : 0);
      linear += roofline(g.flops, g.weights * per_weight + g.activations * m.beta,
                         m.expert_gemm_rate * g.shape_efficiency, m, t);
      continue;
    }
    const double per_weight = m.dense_weight_bytes + (tokens > 1 ? m.dequant_bytes : 0);
    const double bytes = l.n * l.k * per_weight + tokens * (l.n + l.k) * m.beta;
    linear += roofline(2 * tokens * l.n * l.k, bytes,
                       m.dense_gemm_rate * shape_efficiency(m, tokens, l.n, l.k), m, t);
  }
  return linear;
}

// The collectives of `layers` layers for a step of `tokens` tokens on each GPU, seconds.
// Tensor parallelism: two all-reduces per layer of the step's activations (attention output,
// MLP output), a latency plus the ring's 2(tp-1)/tp of the bytes over the link; never the
// context. Expert parallelism: a dispatch and a combine all-to-all per MoE layer
// (pc::kAllToAllsPerMoeLayer), each ep − 1 rounds of latency (set_expert_links) plus the bytes
// that leave the GPU (moe_all_to_all_bytes) at the link's bandwidth, not overlapped with the
// GEMMs. An all-to-all ends when the GPU with the most to move has moved it, each GPU sending
// and receiving over its own port (the per-port bound of a personalized all-to-all: Thakur,
// Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 19(1), 2005): the GPU whose experts get the most rows receives ExpertShare::busiest times the
// mean in the dispatch and sends as much back in the combine.
double comm_time(const Model& m, double tokens, double layers) {
  const TransformerConfig& tc = *m.t;
  double comm = 0;
  if (m.tp > 1) {
    const double bytes = tokens * tc.hidden_size * m.beta;
    comm += 2 * layers *
            (m.allreduce_latency_s + 2.0 * (m.tp - 1) / m.tp * bytes / (m.allreduce_gbps * 1e9));
  }
  if (m.ep > 1) {
    const double busiest = expert_share(tokens, m.experts, m.top_k, m.ep).busiest;
    const double bytes =
        moe_all_to_all_bytes(tokens * busiest, m.top_k, tc.hidden_size, m.beta, m.ep);
    comm += pc::kAllToAllsPerMoeLayer * layers *
            ((m.ep - 1) * m.all_to_all_round_s + bytes / (m.all_to_all_gbps * 1e9));
  }
  return comm;
}

// One stage's layers (all of them without a layer split) for a step's work; the LM head when
// `head`. Per GPU: tensor parallelism divides the widths, and adds two all-reduces per layer.
Times stage_time(const Model& m, const Work& w, double layers, bool head) {
  Times t;
  if (w.tokens <= 0) return t;
  const TransformerConfig& tc = *m.t;
  const double linear = linear_time(m, w.tokens, t);
  double attention = 0;
  if (m.sliding > 0) {
    // A layer's mean: the full layers' roofline and the sliding layers', by their shares.
    Times full, sliding;
    attention =
        (1 - m.sliding) * roofline(4 * w.context * m.q_dim, w.kv_read * m.kv_token_layer,
                                   m.attention_rate, m, full) +
        m.sliding * roofline(4 * w.window_context * m.q_dim, w.window_kv_read * m.kv_token_layer,
                             m.attention_rate, m, sliding);
    t.compute_bound += (1 - m.sliding) * full.compute_bound + m.sliding * sliding.compute_bound;
    t.memory_bound += (1 - m.sliding) * full.memory_bound + m.sliding * sliding.memory_bound;
  } else {
    attention =
        roofline(4 * w.context * m.q_dim, w.kv_read * m.kv_token_layer, m.attention_rate, m, t);
  }
  // The MoE's routing kernels (gather, quantize, weight, sum) stream as elementwise ops do.
  const double elementwise = roofline(
      0,
      w.tokens *
          ((ic::kElementwiseHidden * tc.hidden_size + ic::kElementwiseFfn * m.ffn_local) * m.beta +
           m.moe_routing_bytes),
      1, m, t);
  t.compute_bound *= layers;
  t.memory_bound *= layers;
  t.linear = linear * layers;
  t.attention = attention * layers;
  t.elementwise = elementwise * layers;
  if (head && tc.vocab_size > 0 && w.sequences > 0) {
    const double v = static_cast<double>(tc.vocab_size) / m.tp, d = tc.hidden_size;
    t.head = roofline(2 * w.sequences * v * d, v * d * m.head_bytes + w.sequences * v * 4,
                      m.head_rate * shape_efficiency(m, w.sequences, v, d), m, t);
  }
  // An engine that loops over the experts pays host and launch time for each touched one.
  const ExpertShare e = expert_share(w.tokens, m.experts, m.top_k, m.ep);
  const double experts_launched = m.per_expert ? experts_touched(e.tokens, e.experts, e.top_k) : 0;
  t.overhead = (m.engine->layer_overhead_us * 1e-6 + m.moe_overhead_s + m.bias_add_s +
                static_cast<double>(m.linears.size()) * m.call_overhead_s +
                experts_launched * m.engine->moe_expert_overhead_us * 1e-6) *
               layers;
  t.comm = comm_time(m, w.tokens, layers);
  return t;
}

// Whether the engine's host work runs between the GPUs' work instead of beside it: a layer
// split under an engine whose pipeline loop has no overlap scheduler (Engine::pipeline_host).
bool serial_host(const Model& m) { return m.pp > 1 && m.engine->pipeline_host == "serial"; }

// The engine's host work for a step of `sequences` sequences, done for the next step while the
// GPUs run this one (TensorRT-LLM's overlap scheduler): the step takes the longer of the two.
// Without the overlap (serial_host) the step takes both.
void overlap_host(const Model& m, double sequences, Times& t) {
  const double host = sequences * m.host_sequence_s;
  t.host = serial_host(m) ? host : std::max(0.0, host - t.total());
}

// A step of `w` over the whole replica: stages in turn for one stream; with a layer split and
// several sequences, micro-batches of them pipeline through the stages. Each micro-batch is a
// step of the engine's loop on every stage (scheduled, launched and, on the last, sampled on its
// own), so a step of `micro` micro-batches pays the engine's fixed step time `micro` times on
// each stage, as a prefill pays it once per chunk.
Times step_time(const Model& m, const Work& w) {
  Times out;
  double engine_steps = 1;
  if (m.pp == 1) {
    out = stage_time(m, w, m.layers, true);
  } else {
    const double micro = std::clamp(std::floor(w.sequences), 1.0, static_cast<double>(m.pp));
    const Work part = w.divided(micro);
    const Times body = stage_time(m, part, m.layers / m.pp, false);
    const Times head = stage_time(m, {part.sequences, part.sequences}, 0, true);
    out.add(body, std::max(micro, static_cast<double>(m.pp)));
    out.head = head.head * micro;
    out.comm += (m.pp - 1) * (ic::kStageHandoffS +
                              part.tokens * m.t->hidden_size * m.beta / (m.handoff_gbps * 1e9));
    engine_steps = micro;
  }
  out.overhead += engine_steps * m.engine->step_overhead_ms * 1e-3;
  overlap_host(m, w.sequences, out);
  return out;
}

// Decode: every sequence of the batch adds a token at a mean context of `context` tokens.
Times decode_step(const Model& m, double batch, double context) {
  const double window = batch * window_keys(m, context);
  return step_time(m, {batch, batch, batch * context, batch * context, window, window});
}

// Prefill of `prompts` prompts of `length` tokens in the engine's chunks: each chunk reads the
// weights once; attention is causal within a prompt and re-reads the keys and values of the
// earlier chunks. A layer split pipelines the chunks. On a sliding layer a query attends to at
// most the window, and each chunk after a prompt's first re-reads at most the window's keys.
Times prefill(const Model& m, double prompts, double length) {
  const double tokens = prompts * length;
  const double chunk = m.chunk > 0 ? std::min<double>(m.chunk, tokens) : tokens;
  const double chunks = std::ceil(tokens / chunk);
  const double per_prompt_chunk = std::min(chunk, length);
  const double context = prompts * length * (length + 1) / 2;
  const double later_chunks = std::max(0.0, length / per_prompt_chunk - 1);
  const double kv_read = prompts * length * later_chunks / 2;
  const double window_context = prompts * prompt_keys(m, length);
  const double window_kv_read =
      std::min(kv_read, prompts * later_chunks * std::min<double>(m.window, per_prompt_chunk));
  const Work each =
      Work{tokens, prompts, context, kv_read, window_context, window_kv_read}.divided(chunks);
  Times out;
  if (m.pp == 1) {
    out.add(step_time(m, each), chunks);
    return out;
  }
  const Times body = stage_time(m, each, m.layers / m.pp, false);
  const Times head = stage_time(m, {each.sequences, each.sequences}, 0, true);
  out.add(body, chunks + m.pp - 1);
  out.head = head.head * chunks;
  out.comm +=
      chunks * (m.pp - 1) *
      (ic::kStageHandoffS + each.tokens * m.t->hidden_size * m.beta / (m.handoff_gbps * 1e9));
  out.overhead += chunks * m.engine->step_overhead_ms * 1e-3;
  return out;
}

// The latency of one small collective among a replica's GPUs over a link of `kind`.
double collective_latency_s(std::string_view kind) {
  return kind == "pcie"        ? ic::kAllReducePcieS
         : kind == "pcie-host" ? ic::kAllReduceHostS
                               : ic::kAllReduceNvlinkS;
}

// A collective whose GPUs span nodes: no faster than the network's share per GPU, and no sooner
// than a collective across nodes. predict checked the fabric before it came here.
void cross_network(const RunConfig& c, const Catalog& catalog, double& gbps, double& latency_s) {
  const auto network = network_for(c, catalog);
  const double per_gpu = network ? network->gbps_per_gpu : pc::kNetworkGbpsPerGpu;
  gbps = std::min(gbps, per_gpu * pc::kNetworkEfficiency);
  latency_s = std::max(latency_s, ic::kAllReduceNetworkS);
}

// The all-to-all link of an expert-parallel group: its ep GPUs of a stage, in one node while
// the run's GPUs fit one, else over the network. An all-to-all among ep GPUs runs in ep − 1
// rounds, each GPU exchanging with one peer a round (the pairwise exchange of Thakur,
// Rabenseifner and Gropp, IJHPCA 19(1), 2005; NCCL schedules a group of sends and receives to
// every peer, as nccl-tests' alltoall posts them, in rounds of one peer distance each, and its
// ring all-gather and reduce-scatter take ep − 1 steps), so its latency is ep − 1 times a small
// exchange's on the link (collective_latency_s: 8 µs over NVLink, the per-hop 8-10 µs of
// perf_constants.h kIntraNodeLatencyS), as the training model counts it (perf.cc
// expert_parallel_s). Qwen3 235B A22B at DEP8 over NVSwitch: 7 · 8 = 56 µs an all-to-all.
void set_expert_links(Model& m, const Gpu& gpu, const RunConfig& c, const Catalog& catalog) {
  if (m.ep == 1) return;
  const int node = node_gpus(gpu, c);
  const Link link = link_for(gpu, c, std::min(c.gpus, node), catalog);
  m.expert_link = link.name;
  m.all_to_all_gbps = link.busbw_gbps;
  m.all_to_all_round_s = collective_latency_s(link.kind);
  if (m.ep * m.pp > node) cross_network(c, catalog, m.all_to_all_gbps, m.all_to_all_round_s);
}

// The all-reduce link of a replica of `tp` GPUs, and the link stages hand activations over.
void set_links(Model& m, const Gpu& gpu, const RunConfig& c, const Catalog& catalog) {
  set_expert_links(m, gpu, c, catalog);
  const int group = m.tp * m.pp;
  if (group == 1) return;
  const Link link = link_for(gpu, c, std::min(group, node_gpus(gpu, c)), catalog);
  m.link = link.name;
  m.allreduce_gbps = link.busbw_gbps;
  m.handoff_gbps = link.busbw_gbps;
  m.allreduce_latency_s = collective_latency_s(link.kind);
  if (group > node_gpus(gpu, c)) cross_network(c, catalog, m.allreduce_gbps, m.allreduce_latency_s);
}

// The GEMM rate of the weight format on the GPU: natively, or dequantized into its fallback.
double format_rate(const Gpu& gpu, const WeightFormat& f, double efficiency) {
  if (auto native = compute_tflops(gpu, f.compute)) {
    return *native * 1e12 * efficiency * (f.dequant == "none" ? 1.0 : f.dequant_efficiency);
  }
  return compute_tflops(gpu, f.fallback_compute).value_or(gpu.fp32_tflops) * 1e12 * efficiency *
         f.dequant_efficiency;
}

// The GEMM rates of the linear layers, the experts and the LM head. A format of the experts alone
// leaves the other layers and the head in 16 bit or in its `rest` format; the engine's MoE
// kernels may run the experts' format at a rate of their own on this GPU's calibration key
// (Engine::expert_gemm: the rate of its `compute` type at its share of the engine's efficiency).
void set_gemm_rates(Model& m, const Gpu& gpu, const RunConfig& c, const WeightFormat& format,
                    const WeightFormat* rest, const EngineCalibration& eff) {
  m.gemm_rate = format_rate(gpu, format, eff.gemm_efficiency);
  m.dense_gemm_rate =
      format.covers != "experts" ? m.gemm_rate
      : rest
          ? format_rate(gpu, *rest, eff.gemm_efficiency)
          : compute_tflops(gpu, c.precision == "fp32" ? "fp32" : "bf16").value_or(gpu.fp32_tflops) *
                1e12 * eff.gemm_efficiency;
  m.head_rate = format.covers == "experts" ? m.dense_gemm_rate : m.gemm_rate;
  m.expert_gemm_rate = m.gemm_rate;
  m.expert_gemm = m.experts > 1 ? m.engine->expert_gemm(format.id, calibration_key(gpu)) : nullptr;
  if (!m.expert_gemm) return;
  const auto rate = compute_tflops(gpu, m.expert_gemm->compute);
  if (!rate) {
    m.expert_gemm = nullptr;  // a type the GPU lacks: the format's own fallback
    return;
  }
  m.expert_gemm_rate = *rate * 1e12 * eff.gemm_efficiency * m.expert_gemm->efficiency;
}

// The bytes of a weight in `format` (m.beta set): of the tensors it covers, the others (in 16 bit
// or its `rest` format) and the LM head; and what its multiplications cost beyond them.
void set_weight_bytes(Model& m, const WeightFormat& format, const WeightFormat* rest) {
  m.weight_bytes = format.bits_per_weight / 8;
  m.dense_weight_bytes = format.covers != "experts" ? m.weight_bytes
                         : rest                     ? rest->bits_per_weight / 8
                                                    : m.beta;
  // Dequantized to 16 bit, written and read again, before a multiplication of several rows.
  m.dequant_bytes = format.dequant == "separate" ? 4 : 0;
  m.call_overhead_s = format.call_overhead_us * 1e-6;
  m.head_bytes = format.covers == "all" ? format.bits_per_weight / 8
                 : rest                 ? m.dense_weight_bytes
                                        : m.beta;
}

// How `engine` runs a mixture-of-experts layer (m.experts and m.top_k set): one kernel per
// expert or grouped, its tiles per step, and its per-layer overhead and routing traffic.
void set_moe_kernel(Model& m, const Engine& engine) {
  m.per_expert = m.experts > 1 && engine.moe_kernel == "per-expert";
  m.step_tiles = m.experts > 1 && engine.moe_tile == "step";
  if (m.experts > 1) {
    m.moe_overhead_s =
        (engine.moe_layer_overhead_us + (m.top_k - 1) * engine.moe_pick_overhead_us) * 1e-6;
    m.moe_routing_bytes = moe_routing_bytes(1, m.top_k, m.t->hidden_size, engine.moe_copy_bytes,
                                            engine.moe_pick_bytes);
  }
}

// The bias vectors a layer adds to its linear layers' outputs: q, k, v and o with attention
// biases, q, k and v with biases on those alone (Qwen2), gate, up and down (up and down without a
// gate) with MLP biases, an expert's own for a mixture of experts (workload/counts.cc counts the
// same vectors as parameters).
int layer_biases(const TransformerConfig& t) {
  const int attention = t.attention_bias.value_or(false) ? 4 : t.qkv_bias.value_or(false) ? 3 : 0;
  const int mlp = t.mlp_bias.value_or(false) ? (t.gated() ? 3 : 2) : 0;
  return attention + mlp;
}

Model make_model(const Workload& w, const Gpu& gpu, const RunConfig& c, const Engine& engine,
                 const EngineCalibration& eff, const Catalog& catalog) {
  const Engines& engines = embedded_engines();
  const WeightFormat& format = **engines.find_format(c.weights);
  const TransformerConfig& t = *w.transformer;
  Model m;
  m.t = &t;
  m.engine = &engine;
  m.tp = c.tensor_parallel;
  m.pp = c.pipeline_parallel;
  m.ep = c.expert_parallel;
  m.normal_max = expected_max_normal(m.ep);
  m.replicas = c.gpus / (m.tp * m.pp);
  m.layers = t.num_layers;
  m.beta = c.precision == "fp32" ? 4 : 2;
  // A format of the experts alone leaves every other tensor in 16 bit or in its `rest` format.
  const WeightFormat* rest = format.rest.empty() ? nullptr : *engines.find_format(format.rest);
  set_weight_bytes(m, format, rest);
  m.attention_rate = compute_tflops(gpu, c.precision == "fp32" ? "fp32" : "bf16").value_or(1) *
                     1e12 * eff.gemm_efficiency * pc::kAttentionVsGemm;
  m.bandwidth = gpu.mem_bandwidth_gbps * 1e9 * eff.memory_efficiency;
  m.sms = std::max(1, gpu.sm_count);
  const double kv_bits = (*engines.find_kv_format(c.kv_cache))->bits_per_element;
  m.kv_token_layer =
      kv_bytes_per_token(t, c.kv_cache == "auto" ? m.beta * 8 : kv_bits, m.tp, 1) / t.num_layers;
  m.q_dim = static_cast<double>(t.num_heads) * t.head_size() / m.tp;
  if (engine.sliding_reads == "window") {
    m.sliding = static_cast<double>(t.sliding_layers()) / t.num_layers;
    m.window = t.window();
  }
  m.experts = t.experts();
  m.top_k = t.top_k();
  set_gemm_rates(m, gpu, c, format, rest, eff);
  set_moe_kernel(m, engine);
  m.choose_tiles = engine.dense_tile == "choose";
  m.bias_adds = engine.bias_add_us > 0 ? layer_biases(t) : 0;
  m.bias_add_s = m.bias_adds * engine.bias_add_us * 1e-6;
  m.ffn_local = static_cast<double>(t.ffn_size) * t.top_k() / m.tp;
  for (const auto& lin : layer_linears(t)) {
    const bool mlp = lin.name == "gate" || lin.name == "up" || lin.name == "down";
    const bool row_parallel = lin.name == "o" || lin.name == "down";
    m.linears.push_back({static_cast<double>(lin.out) / (row_parallel ? 1 : m.tp),
                         static_cast<double>(lin.in) / (row_parallel ? m.tp : 1),
                         mlp && m.experts > 1});
  }
  m.chunk = engine.chunk_tokens(capacity_gb(gpu));
  m.host = engines.host_of(gpu.id);
  m.host_sequence_s = engine.host_sequence_us * 1e-6 / (m.host ? m.host->single_thread : 1.0);
  set_links(m, gpu, c, catalog);
  return m;
}

// Serving with `n` sequences in flight per replica under continuous batching (vLLM, SGLang and
// TensorRT-LLM with chunked prefill): every step each decoding sequence adds a token, and prompt
// chunks fill at most the rest of the engine's token budget. A cycle, in which each of the n
// finishes one request, has max(O, ⌈n(I+O)/budget⌉) steps with n·O/steps decoding sequences in
// each. A prompt runs in chunks of the `room` the decodes leave: ⌊I/room⌋ that fill a step and
// its rest. The n rests spread over the cycle's other steps as evenly as whole rests allow, so
// with fewer prompts than steps most steps only decode; a step holds at most `room`. Each kind
// of step is timed at its own rows, as the GEMMs of those rows run.
struct ServeCycle {
  double steps = 0;
  double decoding = 0;  // sequences decoding in each step
  double room = 0;      // prompt tokens a step holds beside them: the budget less `decoding`
  double whole = 0;     // chunks of `room` tokens in each prompt
  double rest = 0;      // the prompt's last chunk, tokens (0: none)
  // Steps of the cycle and the prompt tokens in each: the prompts' whole chunks, then the steps
  // over which the rests spread, carrying more of them and fewer (none in the decode-only steps).
  std::pair<double, double> chunks, more, fewer;
};

// How the prompts' rests spread over `steps` steps: n rests of `rest` tokens, ⌊n/steps⌋ or one
// more in a step, a step holding at most `room`.
void spread_rests(ServeCycle& c, double n, double steps) {
  const double fewer = c.rest * std::floor(n / steps);
  const double more = std::min(c.room, fewer + c.rest);
  const double with_more = more > fewer ? (n * c.rest - steps * fewer) / (more - fewer) : 0;
  c.more = {with_more, more};
  c.fewer = {steps - with_more, fewer};
}

ServeCycle serve_cycle(const Model& m, double n, double in, double out) {
  const double budget = m.chunk > 0 ? m.chunk : n * (in + out);
  ServeCycle c;
  c.steps = std::max(out, std::ceil(n * (in + out) / budget));
  c.decoding = n * out / c.steps;
  c.room = budget - c.decoding;
  if (in <= 0 || c.room <= 0) {
    c.fewer = {c.steps, 0};
    return c;
  }
  c.whole = std::floor(in / c.room);
  c.rest = in - c.whole * c.room;
  if (c.rest < kPromptTokenTolerance) c.rest = 0;  // rounding of a whole number of chunks
  c.chunks = {n * c.whole, c.room};
  const double others = std::max(0.0, c.steps - c.chunks.first);
  if (c.rest > 0 && others > 0) {
    spread_rests(c, n, others);
  } else {
    c.fewer = {others, 0};
  }
  return c;
}

// The work of a cycle's step that carries `prompt` prompt tokens beside its decodes: a decoding
// sequence attends to its prompt and half its output on average, a prompt token to half its
// prompt (causal); a prompt samples its first token in the step of its last chunk.
Work cycle_step(const Model& m, const ServeCycle& c, double in, double out, double prompt,
                double prompts_ending) {
  const double context = in + out / 2, d = c.decoding;
  const double window = d * window_keys(m, context);
  return {d + prompt,
          d + prompts_ending,
          d * context + prompt * (in + 1) / 2,
          d * context,
          window + (in > 0 ? prompt * prompt_keys(m, in) / in : 0),
          window};
}

// The serving cycle's times with n in flight. `step` is the cycle's steps mixed by their count,
// a mean step's times: its total is the TPOT, the mean time between a sequence's tokens over
// every step it decodes in (what vLLM's benchmark reports as mean TPOT).
struct ServeState {
  Times step;
  double step_s = 0;   // the mean step: the time per output token
  double cycle_s = 0;  // until the n sequences in flight have each finished a request
  double ttft_s = 0;   // a prompt's chunks in the steps that carry them, or its own prefill
};

ServeState serve_at(const Model& m, double n, double in, double out) {
  const ServeCycle c = serve_cycle(m, n, in, out);
  ServeState s;
  double chunk_s = 0, rest_tokens = 0, rest_s = 0;  // the steps of a prompt's chunks
  for (const auto* kind : {&c.chunks, &c.more, &c.fewer}) {
    const auto [count, prompt] = *kind;
    if (count <= 0) continue;
    // A rest ends its prompt; where whole chunks are all a prompt has, its last one does.
    const double ending = kind != &c.chunks ? prompt / std::max(c.rest, 1.0)
                          : c.rest > 0      ? 0
                                            : 1 / c.whole;
    const Times t = step_time(m, cycle_step(m, c, in, out, prompt, ending));
    s.step.add(t, count / c.steps);
    s.cycle_s += count * t.total();
    if (kind == &c.chunks) chunk_s = t.total();
    if (kind != &c.chunks && prompt > 0) {
      rest_tokens += count * prompt;
      rest_s += count * prompt * t.total();
    }
  }
  s.step_s = s.cycle_s / c.steps;
  const double own = c.whole * chunk_s + (rest_tokens > 0 ? rest_s / rest_tokens : 0);
  s.ttft_s = std::max(prefill(m, 1, in).total(), own);
  return s;
}

// Requests per second of one replica with n in flight.
double request_rate_at(const Model& m, double n, double in, double out) {
  return n / serve_at(m, n, in, out).cycle_s;
}

// The answer of a finite run (RunConfig::requests, finite_run.h): each replica serves an equal
// share of the requests, rounded up, at its share of the rate, or `batch` outstanding at a time,
// or all sent at once; the replica with the most sets the run's time. The step's terms are those
// of the run's mean in-flight count.
ServingPrediction serve_finite(const Model& m, const RunConfig& c, int limit, Times& step) {
  const double in = *c.seq_len, out = std::max(1, c.gen_tokens);
  ServingPrediction sp;
  sp.replicas = m.replicas;
  sp.max_concurrency = limit;
  FiniteLoad load;
  load.requests = (*c.requests + m.replicas - 1) / m.replicas;
  load.slots = limit;
  if (c.request_rate) {
    sp.load = "request-rate";
    load.rate = *c.request_rate / m.replicas;
  } else if (c.batch && *c.batch > 0) {
    sp.load = "concurrency";
    load.senders = *c.batch;
  } else {
    sp.load = "max-load";
  }
  const FiniteRun r = simulate_finite_run(load, [&](int n) {
    const ServeState s = serve_at(m, n, in, out);
    return ServePoint{s.cycle_s, s.step_s, s.ttft_s};
  });
  step = serve_at(m, std::max(1.0, std::round(r.mean_in_flight)), in, out).step;
  sp.requests = *c.requests;
  sp.last_sent_s = r.last_sent_s;
  sp.drained_s = r.drained_s;
  sp.concurrency = r.mean_in_flight;
  sp.queued = r.most_waiting;
  sp.tpot_ms = r.tpot_s * 1e3;
  sp.queue_wait_ms = r.wait_s * 1e3;
  sp.ttft_ms = r.ttft_s * 1e3 + m.engine->request_overhead_ms;
  sp.requests_per_s = *c.requests / r.drained_s;
  sp.output_tokens_per_s = sp.requests_per_s * out;
  return sp;
}

// The serving answer for the load the run asks: a request rate, a concurrency, or as many
// sequences as fit (max load), sent without end or, with RunConfig::requests, a finite run.
// `limit`: the most sequences a replica holds.
ServingPrediction serve(const Model& m, const RunConfig& c, int limit, Times& step) {
  if (c.requests) return serve_finite(m, c, limit, step);
  const double in = *c.seq_len, out = std::max(1, c.gen_tokens);
  ServingPrediction sp;
  sp.replicas = m.replicas;
  sp.max_concurrency = limit;
  const ServeState full = serve_at(m, limit, in, out);
  const double capacity = limit / full.cycle_s;  // requests per second of a replica
  double n = limit, wait = 0;                    // the wait for a slot, in seconds
  if (c.request_rate) {
    sp.load = "request-rate";
    const double rate = *c.request_rate / m.replicas;
    if (rate >= capacity * ic::kMaxUtilisation) {
      sp.saturated = true;
    } else {
      double lo = 1e-6, hi = limit;
      while (hi > lo * (1 + kInFlightTolerance)) {
        const double mid = std::sqrt(lo * hi);
        (request_rate_at(m, mid, in, out) < rate ? lo : hi) = mid;
      }
      n = hi;
      const double rho = rate / capacity;
      wait = rho / (2 * (1 - rho)) / capacity;  // M/D/1 queue for a slot
    }
  } else if (c.batch && c.mode == "serve" && *c.batch > 0) {
    sp.load = "concurrency";
    n = std::min<double>(*c.batch, limit);
    // Beyond the slots, requests wait for earlier ones to finish.
    sp.queued = std::max(0, *c.batch - limit);
    wait = sp.queued / capacity;
  } else {
    sp.load = "max-load";
  }
  const ServeState s = n == limit ? full : serve_at(m, n, in, out);
  step = s.step;
  sp.concurrency = n;
  sp.tpot_ms = s.step_s * 1e3;
  sp.queue_wait_ms = wait * 1e3;
  sp.ttft_ms = s.ttft_s * 1e3 + sp.queue_wait_ms + m.engine->request_overhead_ms;
  // A setup that keeps up serves what arrives (the in-flight count that the search lands on may
  // sit just past a step in the step time, where its own rate is a little higher).
  sp.requests_per_s =
      c.request_rate && !sp.saturated ? *c.request_rate : n / s.cycle_s * m.replicas;
  sp.output_tokens_per_s = sp.requests_per_s * out;
  return sp;
}

// What the step spends, as the prediction's terms, and what bounds it.
void report_terms(const Times& t, double step_s, Prediction& p) {
  const double scale = t.total() > 0 ? step_s / t.total() : 0;
  p.terms.push_back({"gemm", t.linear * scale, 0, 0, "compute"});
  p.terms.push_back({"attention", t.attention * scale, 0, 0, "memory"});
  p.terms.push_back({"elementwise", (t.elementwise + t.head) * scale, 0, 0, "memory"});
  p.terms.push_back({"launch_and_host", t.overhead * scale, 0, 0, "overhead"});
  if (t.host > 0) p.terms.push_back({"host_scheduling", t.host * scale, 0, 0, "host"});
  if (t.comm > 0) p.terms.push_back({"communication", t.comm * scale, 0, 0, "communication"});
  const std::pair<double, const char*> shares[] = {{t.compute_bound, "compute"},
                                                   {t.memory_bound, "memory"},
                                                   {t.comm, "communication"},
                                                   {t.overhead, "overhead"}};
  p.bound = std::max_element(std::begin(shares), std::end(shares))->second;
  if (t.host > 0) p.bound = "host";  // the GPUs wait for the host
}

// The run's phase: a stream of requests served, a decode step or a prefill. Sets whether it
// fits, its throughput, step time, samples per step and MFU, and returns the step's times.
Times predict_phase(const Model& m, const RunFacts& facts, const Gpu& gpu, Prediction& p) {
  const MemoryEstimate& memory = facts.memory;
  const RunConfig& c = memory.config;
  const double batch = *c.batch, seq = *c.seq_len;
  Times t;
  if (c.mode == "serve") {
    p.fits = memory.max_sequences >= 1 || c.known_to_fit;
    const int limit = std::max(1, memory.max_sequences);
    p.serving = serve(m, c, limit, t);
    p.throughput = p.serving->output_tokens_per_s;
    p.step_time_s = p.serving->tpot_ms / 1e3;
    p.samples_per_step = p.serving->concurrency * m.replicas;
    p.mfu = facts.flops.decode_per_token / batch * p.throughput /
            (compute_tflops(gpu, "bf16").value_or(1) * 1e12 * c.gpus);
  } else if (c.mode == "decode") {
    p.fits = memory.fits || c.known_to_fit;
    t = decode_step(m, batch, seq + c.gen_tokens / 2.0);
    p.step_time_s = t.total();
    p.samples_per_step = batch * m.replicas;
    p.throughput = p.samples_per_step / p.step_time_s;
    p.mfu = facts.flops.decode_per_token * m.replicas /
            (p.step_time_s * compute_tflops(gpu, "bf16").value_or(1) * 1e12 * c.gpus);
  } else {
    p.fits = memory.fits || c.known_to_fit;
    t = prefill(m, batch, seq);
    p.step_time_s = t.total();
    p.samples_per_step = batch * m.replicas;
    p.throughput = p.samples_per_step * seq / p.step_time_s;
    p.mfu = facts.flops.prefill * m.replicas /
            (p.step_time_s * compute_tflops(gpu, "bf16").value_or(1) * 1e12 * c.gpus);
  }
  return t;
}

// Expert parallelism with attention data parallelism, as the prediction says it.
std::string expert_parallel_note(const Model& m) {
  return fmt::format(
      "experts split over {0} GPUs (expert parallel {0}, attention data parallel: TensorRT-LLM's "
      "DEP{0}): each GPU runs attention for its own sequences and {1} of the {2} experts over the "
      "tokens all {0} route to them, a dispatch and a combine all-to-all of (ep − 1)/ep of its "
      "tokens·{3}·{4}·β bytes per MoE layer over {5}, each in {7} rounds of {8} µs, not "
      "overlapped; a step waits for the GPU whose experts get the most rows under uniform "
      "routing, T·{3} + σ·{6} ({6}: the expected largest of {0} standard normals; a real "
      "router's skew is not modelled)",
      m.ep, format_number(m.experts / m.ep), format_number(m.experts), format_number(m.top_k),
      m.t->hidden_size, m.expert_link, format_number(std::round(m.normal_max * 1e4) / 1e4),
      m.ep - 1, format_number(m.all_to_all_round_s * 1e6));
}

// How a mixture of experts' MLP is timed and the routing it assumes; for a decode step of one
// stage, how many experts its batch reads.
std::string moe_note(const Model& m, const RunConfig& c) {
  const std::string e = format_number(m.experts), k = format_number(m.top_k);
  std::string note = fmt::format(
      "mixture of experts: {2}; routing assumed uniform: a step of T tokens reads "
      "{0}·(1 - (1 - {1}/{0})^T) of the {0} experts",
      e, k,
      m.per_expert ? fmt::format("each touched expert's GEMMs run on their own, {} µs of launches "
                                 "an expert and layer (a loop over the experts)",
                                 format_number(m.engine->moe_expert_overhead_us))
                   : "a layer's experts run as one grouped GEMM per projection (fused MoE)");
  if (m.step_tiles) {
    note += fmt::format(
        "; each expert's rows run in whole tiles of the step's width, min({}, T rounded up to {}) "
        "rows, padding included",
        format_number(pc::kTile), format_number(ic::kMmqColumnStep));
  }
  if (m.expert_gemm) {
    const ExpertGemm& x = *m.expert_gemm;
    note += fmt::format(
        "; {} runs the {} experts' GEMMs on {} at the {} rate, {} of its GEMM efficiency ({}, "
        "{}:{})",
        m.engine->name, c.weights, x.architecture, x.compute, format_number(x.efficiency),
        x.fitted_on.empty() ? "sourced" : "fitted", m.engine->provenance.file, x.line);
  }
  if (m.moe_routing_bytes > 0) {
    note += fmt::format(
        "; its routing kernels move {} B a token and layer outside the GEMMs (hidden {} · ({} "
        "copies · {} B + {} more picks · {} B))",
        format_number(std::round(m.moe_routing_bytes)), m.t->hidden_size, k,
        format_number(m.engine->moe_copy_bytes), format_number(m.top_k - 1),
        format_number(m.engine->moe_pick_bytes));
  }
  if (m.moe_overhead_s > 0) {
    note += fmt::format("; routing and combining add {} µs of launches a layer",
                        format_number(std::round(m.moe_overhead_s * 1e7) / 10));
  }
  if (c.mode == "decode" && m.pp == 1 && c.batch) {
    const ExpertShare share = expert_share(*c.batch, m.experts, m.top_k, m.ep);
    const double touched =
        std::round(experts_touched(share.tokens, share.experts, share.top_k) * 10) / 10;
    note += m.ep > 1 ? fmt::format(" (a GPU reads {} of its {} at a batch of {} on each GPU)",
                                   format_number(touched), format_number(share.experts), *c.batch)
                     : fmt::format(" ({} at a batch of {})", format_number(touched), *c.batch);
  }
  if (m.ep > 1) note += "; " + expert_parallel_note(m);
  return note;
}

// What the engine caches and reads of a model's sliding-window layers (Engine::sliding_kv and
// sliding_reads).
std::string sliding_note(const Engine& engine, const TransformerConfig& t) {
  const std::string kept =
      engine.sliding_kv == "window" ? "each sequence's window of them"
      : engine.sliding_pool_ratio >= 1
          ? "the whole context for them, as for a full layer"
          : fmt::format("{} of the full layers' tokens for them (its sliding pool)",
                        format_number(engine.sliding_pool_ratio));
  const std::string head =
      fmt::format("sliding-window attention: {} of the {} layers attend to the last {} tokens",
                  t.sliding_layers(), t.num_layers, t.window());
  if (engine.sliding_reads == "window") {
    return fmt::format("{}, whose keys and values are all they read; {} keeps {}", head,
                       engine.name, kept);
  }
  return fmt::format(
      "{}, but {} {} reads every cached key of them, the older ones masked; it keeps {}", head,
      engine.name, engine.version, kept);
}

// The engine's host time per sequence, the host it runs on, and whether it bounds the step `t`:
// for serving, the cycle's mean step (serve_at), whose host time is what the steps that wait for
// the host add.
std::string host_note(const Model& m, const Times& t, bool serving) {
  const Engine& e = *m.engine;
  const auto us = [](double s) { return format_number(std::round(s * 1e8) / 100); };
  const auto ms = [](double s) { return format_number(std::round(s * 1e5) / 100); };
  const std::string host =
      m.host ? fmt::format("{} µs on an x86 server's host / {}, the single-thread speed of {}",
                           format_number(e.host_sequence_us), format_number(m.host->single_thread),
                           m.host->name)
             : "on an x86 server's host";
  const std::string step = serving ? "the serving cycle's mean step" : "a step";
  if (serial_host(m)) {
    return fmt::format(
        "host: {} {} prepares each step on the host, {} µs a sequence in the step ({}); with the "
        "layers split its pipeline loop does not overlap that with the GPUs' step, so a step "
        "takes both: {} ms of host and {} ms of GPUs in {}",
        e.name, e.version, us(m.host_sequence_s), host, ms(t.host), ms(t.total() - t.host), step);
  }
  return fmt::format(
      "host: {} {} prepares each step on the host while the GPUs run the one before, {} µs a "
      "sequence in the step ({}); a step takes the longer of the two, here {}",
      e.name, e.version, us(m.host_sequence_s), host,
      t.host <= 0 ? "the GPUs'"
      : serving   ? fmt::format("{} ms in {}, {} ms of it the GPUs waiting for the host",
                                ms(t.total()), step, ms(t.host))
                  : fmt::format("the host's {} ms (the GPUs' {} ms wait for it)", ms(t.total()),
                                ms(t.total() - t.host)));
}

// The prediction's note: the memory notes, the engine with the efficiencies it runs at, the link
// and the pipeline; first, for a run that does not fit, by how much.
std::string inference_note(const MemoryEstimate& memory, const Engine& engine,
                           const EngineCalibration& eff, const Model& m, const Times& t,
                           bool fits) {
  const RunConfig& c = memory.config;
  std::vector<std::string> notes = memory.notes;
  notes.push_back(fmt::format(
      "{} {} ({}): {} of the {} peak, {} of the memory bandwidth ({})", engine.name, engine.version,
      join(engine.stacks, "/"), format_number(std::round(eff.gemm_efficiency * 100) / 100),
      c.weights, format_number(std::round(eff.memory_efficiency * 100) / 100),
      eff.rows > 0 ? fmt::format("fitted on {} runs", eff.rows) : eff.fitted_on));
  if (m.experts > 1) notes.push_back(moe_note(m, c));
  if (m.bias_adds > 0) {
    notes.push_back(fmt::format(
        "biases: {} adds each of the {} biases of a layer with a kernel of its own, {} µs each",
        engine.name, m.bias_adds, format_number(engine.bias_add_us)));
  }
  if (m.host_sequence_s > 0) notes.push_back(host_note(m, t, c.mode == "serve"));
  if (m.t->sliding_layers() > 0) notes.push_back(sliding_note(engine, *m.t));
  if (!m.link.empty()) notes.push_back(fmt::format("GPU-to-GPU: {}", m.link));
  if (m.pp > 1) {
    notes.push_back(fmt::format(
        "layers split over {} GPUs: one stream runs the stages in turn, several pipeline", m.pp));
  }
  if (!fits) {
    notes.insert(notes.begin(),
                 fmt::format("does not fit: needs {:.1f} GB of the {:.1f} GB {} may use "
                             "(`rigplan memory` says what would fit)",
                             memory.total_gb, memory.available_gb, engine.name));
  }
  return join(notes, "; ");
}

// Whether the catalog's GPUs of calibration key `key` run ROCm (AMD's); none known: CUDA.
bool rocm_key(const std::string& key, const Catalog& catalog) {
  for (const auto& g : catalog.gpus) {
    if (calibration_key(g) == key) return g.vendor == "amd";
  }
  return false;
}

// The efficiencies of `engine` on a GPU whose generation it was never measured on: its GEMM
// efficiency prior for the GPU's stack, and the median memory efficiency of its fitted keys of
// that stack (its memory prior where it has none). Held out one GPU at a time, the fitted keys'
// median memory efficiency is nearer a key's own than the prior for 5 of the 6 keys it applies
// to, and their median GEMM efficiency no nearer than the prior (docs/inference.md, "What a GPU
// of an unmeasured generation takes").
EngineCalibration unmeasured_efficiency(const Calibration& calibration, const Engine& engine,
                                        const Gpu& gpu, const std::string& key,
                                        const Catalog& catalog) {
  const bool rocm = gpu.vendor == "amd";
  const std::string stack = rocm ? "ROCm" : "CUDA";
  EngineCalibration out{engine.id,
                        key,
                        rocm ? engine.rocm_gemm_efficiency : engine.gemm_efficiency,
                        rocm ? engine.rocm_memory_efficiency : engine.memory_efficiency,
                        0,
                        fmt::format("{} priors for {} (data/engines)", engine.id, stack)};
  std::vector<double> memory;
  for (const auto& e : calibration.engines) {
    if (e.engine == engine.id && rocm_key(e.architecture, catalog) == rocm)
      memory.push_back(e.memory_efficiency);
  }
  if (memory.empty()) return out;
  out.memory_efficiency = median(memory);
  out.fitted_on = fmt::format(
      "{} GEMM prior for {} (data/engines), memory efficiency the median of its {} fitted {} keys",
      engine.id, stack, memory.size(), stack);
  return out;
}

}  // namespace

EngineCalibration engine_efficiency(const Calibration& calibration, const Engine& engine,
                                    const Gpu& gpu, const Catalog& catalog) {
  const std::string key = calibration_key(gpu);
  const std::string_view generation = std::string_view(key).substr(0, key.find('-'));
  const EngineCalibration* same_generation = nullptr;
  for (const auto& e : calibration.engines) {
    if (e.engine != engine.id) continue;
    if (e.architecture == key) return e;
    if (std::string_view(e.architecture).substr(0, e.architecture.find('-')) == generation)
      same_generation = &e;
  }
  if (same_generation) {
    EngineCalibration out = *same_generation;
    out.architecture = key;
    return out;
  }
  return unmeasured_efficiency(calibration, engine, gpu, key, catalog);
}

Result<Prediction> predict_inference(const Workload& w, const Gpu& gpu,
                                     const Calibration& calibration, const Catalog& catalog,
                                     const RunFacts& facts) {
  const MemoryEstimate& memory = facts.memory;
  const RunConfig& c = memory.config;
  auto engine = embedded_engines().find_engine(c.engine);
  if (!engine) return engine.status();
  const EngineCalibration eff = engine_efficiency(calibration, **engine, gpu, catalog);
  const Model m = make_model(w, gpu, c, **engine, eff, catalog);
  Prediction p;
  p.config = c;
  p.workload_class = facts.workload_class;
  p.error_band = calibration.error_band.count("inference") ? calibration.error_band.at("inference")
                                                           : pc::kUnfittedErrorBand;
  p.unit = "tokens/s";
  p.warnings = memory.warnings;
  p.memory_gb = memory.total_gb;
  p.capacity_gb = memory.available_gb;
  const Times t = predict_phase(m, facts, gpu, p);
  report_terms(t, p.step_time_s, p);
  if (!p.fits) p.bound = "capacity";
  p.note = inference_note(memory, **engine, eff, m, t, p.fits);
  return p;
}

}  // namespace rigplan
