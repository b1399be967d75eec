// The per-operator performance model (docs/performance.md).
#include "rigplan/perf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>

#include "model/components.h"
#include "model/finetune_methods.h"
#include "model/fp8_training.h"
#include "model/framework_speed.h"
#include "model/gemm_waves.h"
#include "model/inference_perf.h"
#include "model/links.h"
#include "model/memory_numbers.h"
#include "model/perf_constants.h"
#include "model/recompute_policy.h"
#include "model/run_speed.h"
#include "rigplan/cost.h"
#include "rigplan/schema.h"
#include "util/strings.h"

namespace rigplan {
namespace {

namespace pc = perf_constants;

enum class OpKind { kGemm, kAttention, kElementwise, kOptimizer, kDequantize };

// One operator (or `count` identical ones) of a step on one GPU.
struct Op {
  OpKind kind = OpKind::kElementwise;
  double flops = 0;
  double bytes = 0;
  // A GEMM's shape, for its size-dependent efficiency (gemm_split_k): its output tiling (the
  // group's tiles), its inner dimension and its output values (the group's sum), which a split-K
  // reduction re-reads.
  GemmShape shape;
  double k = 0;
  double outputs = 0;
  double count = 1;    // identical kernels (LSTM time steps, MoE layers)
  double kernels = 1;  // launches per instance
  // GEMMs of equal shape run as one grouped GEMM (a GPU's local experts): `flops`, `bytes`,
  // `output_bytes` and `shape.tiles` are the group's sums, each GEMM's operands spill from L2
  // alone.
  double group = 1;
  // A GEMM whose traffic depends on the GPU's L2 (gemm_bytes): `bytes` holds its operands'
  // bytes and `output_bytes` its output's, and time_ops adds the re-reads on each GPU.
  bool l2_traffic = false;
  double output_bytes = 0;
  double weight_elements = 0;  // a GEMM's: its weight operand's (k·n, the group's sum)
  // A layer list's norm or elementwise operator: the bytes of its input, the tensor the operator
  // before it has just written, which it reads from L2 instead of DRAM where it still is there
  // (l2_served_bytes). 0: every byte moves to and from DRAM.
  double l2_input_bytes = 0;
  // Which passes of a training step run it. Most operators run in the forward and again in the
  // backward at twice their forward's time (a GEMM's activation and weight gradients; an
  // elementwise operator's gradient), at the forward's shape. An operator whose backward moves
  // other bytes is written as its forward (kForward: each forward pass, recomputed ones too) and
  // its backward (kBackward: once, whether or not the weights train; kWeightGradient: once, when
  // they train), as an LSTM's cell update and recurrent GEMMs (lstm_ops).
  enum class Pass { kEvery, kForward, kBackward, kWeightGradient };
  Pass pass = Pass::kEvery;
  // A linear layer's GEMM: the GEMMs FP8, MXFP8 and NVFP4 training run in their format
  // (fp8_training.h).
  bool linear = false;
  // Run forward once more under torchtitan's per-op selective checkpointing (recompute
  // `selective-op`, recompute_policy.h): a transformer layer's elementwise operators and the
  // linear GEMMs whose outputs the policy does not keep, with their FP8 casts.
  bool op_sac_recomputed = false;
  bool operator==(const Op&) const = default;
};

struct Rates {
  double tensor_tflops = 0;  // the GEMM rate of the precision
  // The rate of linear layers' GEMMs: the format's rate in FP8, MXFP8 or NVFP4 training, where
  // tensor_tflops is the 16-bit rate of the rest (attention, the LM head); tensor_tflops
  // otherwise.
  double linear_tflops = 0;
  double vector_tflops = 0;
  double bandwidth_gbps = 0;
  double l2_bytes = 0;
  double sms = 1;
  // The share of its rated speed the card sustains (sustained_speed).
  double sustained = 1;
  // Launch and synchronisation per kernel: eager's, or a CUDA graph's (step_context).
  double kernel_s = pc::kKernelOverheadS;
};

// The share of its rated speed a card sustains when its board power holds its chip below its
// rated clocks (catalog full_clock_power_w): the chip runs as under a power cap of board power /
// full-clock power (power_limit_speed, Dettmers' measurement of a training step's speed under a
// cap), every operator, memory-bound ones too (the A10 runs NCF, which streams at its memory
// bandwidth, 0.61-0.66x the RTX A6000 where their bandwidths give 0.78x). 1 for every other card.
double sustained_speed(const Gpu& g) {
  if (!g.full_clock_power_w) return 1;
  return power_limit_speed(g.board_power_w / *g.full_clock_power_w);
}

// The catalog rate of a format's GEMMs (fp8_training.h, Format::rate): fp8_tflops or fp4_tflops.
std::optional<double> format_tflops(const Gpu& g, const fp8_training::Format& f) {
  return f.rate == "fp4" ? g.fp4_tflops : g.fp8_tflops;
}

// `training`: the format of a training run's linear layers (fp8_training.h); nullptr for 16 and 32
// bit, and for inference. A block-scaled format runs only where fp8_training::runs_on says so
// (predict refuses the rest).
Rates rates_for(const Gpu& g, std::string_view precision, const fp8_training::Format* training) {
  Rates r;
  r.vector_tflops = g.fp32_tflops;
  r.bandwidth_gbps = g.mem_bandwidth_gbps;
  r.l2_bytes = g.l2_cache_mb * 1e6;
  r.sms = g.sm_count;
  r.sustained = sustained_speed(g);
  r.tensor_tflops = r.linear_tflops = g.fp32_tflops;
  if (!g.tensor_cores) return r;  // Pascal runs 16-bit GEMMs at the FP32 rate (pseudo-fp16)
  if (precision == "fp32" || precision == "tf32") {
    r.tensor_tflops = g.tf32_tflops.value_or(g.fp32_tflops);  // TF32 by default from Ampere
  } else if (precision == "fp16") {
    r.tensor_tflops = g.fp16_tflops.value_or(g.fp32_tflops);
  } else if (precision == "bf16") {
    r.tensor_tflops = g.bf16_tflops.value_or(g.fp32_tflops);  // no BF16 tensor cores: emulated
  } else if (precision == "fp8" || training) {
    const double bf16 = g.bf16_tflops.value_or(g.fp16_tflops.value_or(g.fp32_tflops));
    r.tensor_tflops = (training ? format_tflops(g, *training) : g.fp8_tflops).value_or(bf16);
    r.linear_tflops = r.tensor_tflops;
    if (training) r.tensor_tflops = bf16;
    return r;
  }
  r.linear_tflops = r.tensor_tflops;
  return r;
}

// GEMM traffic: each operand once while they fit in L2, up to twice when they do not (tiles of
// the larger operand are re-read from DRAM); the output once.
double gemm_bytes(double operands, double output, double l2_bytes) {
  const double spill = std::clamp(1.0 - l2_bytes / operands, 0.0, 1.0);
  return operands * (1 + spill) + output;
}

// The share of L2 a tensor just written may fill and still be in L2 when the next operator reads
// it: a streaming operator's reuse distance is its input and its output, about twice the tensor
// (LRU: a line survives while fewer bytes than the L2 pass through after it), so it fits in half
// the L2. Derived from that argument, not fitted.
constexpr double kL2ResidentShare = 0.5;

// The bytes of an elementwise operator's input read from L2, not DRAM: all of its input when it
// fits in kL2ResidentShare of `l2_bytes`, none when it does not (a larger tensor streams through
// L2 and evicts its own first lines before they are read). L2's bandwidth is not in the catalog
// and is several times DRAM's, so the served bytes are counted as free.
double l2_served_bytes(const Op& op, double l2_bytes) {
  return op.l2_input_bytes > 0 && op.l2_input_bytes <= kL2ResidentShare * l2_bytes
             ? op.l2_input_bytes
             : 0;
}

// The bytes an operator moves to and from DRAM on a GPU of `l2_bytes` of L2.
double op_bytes(const Op& op, double l2_bytes) {
  if (!op.l2_traffic) return op.bytes - l2_served_bytes(op, l2_bytes);
  return op.group * gemm_bytes(op.bytes / op.group, op.output_bytes / op.group, l2_bytes);
}

// A GEMM of m×k by k×n, or a grouped GEMM of `group` of them in one kernel; its traffic is left
// to op_bytes, on the GPU that runs it.
Op gemm(double m, double n, double k, double beta, double count = 1, double group = 1) {
  Op op;
  op.kind = OpKind::kGemm;
  op.shape = gemm_shape(m, n, group);
  op.k = k;
  op.outputs = group * m * n;
  op.flops = group * 2 * m * n * k;
  op.bytes = group * (m * k + k * n) * beta;
  op.output_bytes = group * m * n * beta;
  op.weight_elements = group * k * n;
  op.l2_traffic = true;
  op.count = count;
  op.group = group;
  return op;
}

Op elementwise(double bytes, double count = 1) {
  Op op;
  op.kind = OpKind::kElementwise;
  op.bytes = bytes;
  op.flops = bytes / 4;  // a few operations per element
  op.count = count;
  return op;
}

struct Step {
  std::vector<Op> forward;  // backward is derived: 2× the GEMM FLOPs (1× for frozen weights)
  std::vector<Op> once;     // the optimizer and other per-step operators
};

// A transformer layer's pointwise and normalization operators, in elements read and written per
// token. Eager PyTorch runs each in kernels of its own, each reading its inputs and writing its
// output: two norms (a read and a write, 4·d), two residual adds (two reads and a write, 6·d),
// two dropouts (a read, a write and the mask, 6·d) in `hidden`; the MLP's activation (gate and up
// read, product written: 3·f a routed copy; 2·f ungated) and the rotary embedding (2·(q + 2·kv))
// in `split`, 8 kernels. Under torch.compile (`compile`) Inductor fuses each dropout, the
// residual add after it and the norm after that into one kernel that reads the sublayer's output
// and the residual stream and writes the new residual stream, the norm's output and the mask:
// 4·d (5·d with dropout) for eager's 5·d (8·d); the activation and the rotary embedding, each
// one chain between two GEMMs already, take one kernel each: 4 kernels. The GEMMs, attention and
// the norms' reductions stay as they were (Inductor fuses a norm's reduction over d into its
// pointwise kernel, as eager's norm kernel does).
struct LayerPointwise {
  double hidden = 0, split = 0, kernels = 0;
};
LayerPointwise layer_pointwise(const TransformerConfig& t, bool compile) {
  const double d = t.hidden_size, f = t.ffn_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const bool dropout = t.dropout.value_or(true);
  const double split = (t.gated() ? 3 : 2) * f * t.top_k() + 2 * (q + 2 * kv);
  if (compile) return {2 * (4 * d + (dropout ? d : 0)), split, 4};
  return {4 * d + 6 * d + (dropout ? 6 * d : 0), split, 8};
}

// What a framework whose model code is plain PyTorch (FrameworkCalibration::pointwise
// "decomposed": torchtitan's and Hugging Face's Llama code, as recalled, not in
// shared/reference) moves beyond layer_pointwise's one kernel per operator, in bytes per element
// at `beta` bytes an activation. Its RMSNorm is x.float(), pow, mean, rsqrt, a multiply,
// type_as and the weight's multiply: the two casts (2·(beta + 4) bytes, none in FP32), then
// 8 + 4 + 8 bytes of FP32 for the square, mean and scaling, against one kernel's read and write.
// Its rotary embedding goes through view_as_complex in FP32: the casts, and a complex multiply
// reading and writing 4 bytes, against one kernel's 2·beta. Its SwiGLU runs silu and the
// multiply apart, writing and re-reading the activation: 2·beta. Each adds kernels: 7 a norm,
// 2 for each of the queries and keys, 1 the activation.
struct EagerDecomposition {
  static constexpr double kNormFp32Bytes = 8 + 4 + 8;
  static constexpr double kRopeFp32Bytes = 4 + 4;
  static constexpr double kNormKernels = 7, kRopeKernels = 2, kGatedKernels = 1;
};

// A transformer layer's traffic in a "decomposed" framework beyond its fused operators
// (EagerDecomposition), in bytes per token: in `hidden` (the norms) and in `split` (the rotary
// embedding and the activation, split by tensor parallelism); none of what the layer does not
// have (LayerNorm is one kernel, ALiBi has no rotary embedding). `kernels` a layer.
struct DecomposedBytes {
  double hidden = 0, split = 0, kernels = 0;
  std::vector<std::string> operators;  // as the prediction's note names them
};
DecomposedBytes decomposed_pointwise(const TransformerConfig& t, double beta) {
  using E = EagerDecomposition;
  const double casts = beta < 4 ? 2 * (beta + 4) : 0;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  DecomposedBytes extra;
  if (t.norm == "rmsnorm") {
    extra.hidden = 2 * t.hidden_size * (casts + E::kNormFp32Bytes);
    extra.kernels += 2 * E::kNormKernels;
    extra.operators.emplace_back("RMSNorm");
  }
  if (t.position == "rope") {
    extra.split += (q + kv) * (casts + E::kRopeFp32Bytes - 2 * beta);
    extra.kernels += 2 * E::kRopeKernels;
    extra.operators.emplace_back("the rotary embedding");
  }
  if (t.gated()) {
    extra.split += static_cast<double>(t.ffn_size) * t.top_k() * 2 * beta;
    extra.kernels += E::kGatedKernels;
    extra.operators.emplace_back("the gated activation");
  }
  return extra;
}

// What torch.compile fused of a transformer layer (layer_pointwise), as --explain lists it.
std::vector<std::string> transformer_fusions(const TransformerConfig& t) {
  return {fmt::format("{}residual add + norm, twice a layer",
                      t.dropout.value_or(true) ? "dropout + " : ""),
          t.gated() ? "the MLP's activation × up" : "the MLP's activation",
          t.position == "rope" ? "the rotary embedding of queries and keys"
                               : "the queries', keys' and values' reshapes"};
}

// Operators of one forward pass of a transformer over `tokens` tokens of length `seq`.
// Without sequence parallelism (`sp`) every tensor-parallel rank runs the norms, residual adds
// and dropouts of the whole hidden state (Korthikanti et al. 2022).
// A mixture of experts routes each token to top_k of its experts; with the routing balanced each
// expert's GEMMs take tokens · top_k / experts rows. Expert parallelism over `ep` GPUs leaves
// experts / ep experts on each GPU, each fed the tokens of all ep GPUs of its group (the
// all-to-all of expert_parallel_s): ep times the rows, 1/ep of the experts, so a GPU's expert
// FLOPs are those of ep = 1 in fewer, taller GEMMs (DeepSpeed-MoE, Rajbhandari et al. 2022 §4;
// Megatron-Core MoE). A GPU's local experts run as one grouped GEMM per projection, one kernel
// whose waves hold all of their tiles together, as Megatron-Core's --moe-grouped-gemm (CUTLASS
// grouped GEMM, the default of its MoE recipes) runs them; the same FLOPs.
// `compile`: under torch.compile, the layer's pointwise operators fused (layer_pointwise).
void transformer_ops(const TransformerConfig& t, double tokens, double seq, double beta, bool flash,
                     int tp, bool sp, int ep, bool compile, std::vector<Op>& ops) {
  const double d = t.hidden_size;
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const double layers = t.total_layers();
  const double causal = t.arch == "encoder" ? 1.0 : 0.5;
  const std::vector<LinearShape> linears = layer_linears(t);
  for (size_t i = 0; i < linears.size(); ++i) {
    const LinearShape& lin = linears[i];
    const bool mlp = lin.name == "gate" || lin.name == "up" || lin.name == "down";
    const double experts = mlp ? t.experts() : 1;
    const double group = mlp ? ep : 1;  // the GPUs whose tokens each local expert runs
    const double rows = mlp ? tokens * t.top_k() / experts * group : tokens;
    ops.push_back(
        gemm(rows, static_cast<double>(lin.out) / (lin.name == "down" || lin.name == "o" ? 1 : tp),
             static_cast<double>(lin.in) / (lin.name == "down" || lin.name == "o" ? tp : 1), beta,
             layers, experts / group));
    ops.back().linear = true;
    ops.back().op_sac_recomputed = !recompute_policy::op_sac_saves_linear(i);
  }
  // Attention: scores and context, 4·s·q FLOPs per token (halved by causal masking). A sliding
  // layer's query attends to at most its window, causal_keys(s, w)/s keys on average, where
  // FlashAttention's window_size skips the tiles outside it; eager attention computes every
  // score and masks them.
  const double sliding = flash ? t.sliding_layers() : 0;
  const double keys =
      sliding > 0 && seq > 0
          ? ((layers - sliding) * seq * causal + sliding * causal_keys(seq, t.window()) / seq) /
                layers
          : seq * causal;
  Op attention;
  attention.kind = OpKind::kAttention;
  attention.flops = 4 * tokens * keys * q / tp;
  attention.bytes = tokens * (2 * q + 2 * kv) * beta / tp;
  if (!flash)
    attention.bytes += 6 * tokens * t.num_heads * seq * beta / tp;  // scores, softmax, dropout
  attention.count = layers;
  attention.kernels = flash ? 1 : 4;
  ops.push_back(attention);
  // Norms, residual adds, activation, rotary embedding and dropout: elements read and written.
  const LayerPointwise pointwise = layer_pointwise(t, compile);
  ops.push_back(elementwise(
      tokens * (pointwise.hidden / (sp ? tp : 1) + pointwise.split / tp) * beta, layers));
  ops.back().kernels = pointwise.kernels;
  ops.back().op_sac_recomputed = true;  // nothing of it is on the policy's save list
  // Embeddings, LM head and loss.
  if (t.arch != "encoder" && t.vocab_size > 0) {
    ops.push_back(gemm(tokens, t.vocab_size / static_cast<double>(tp), d, beta));
    ops.push_back(elementwise(tokens * t.vocab_size * (beta + 4) * 2 / tp));
  }
  ops.push_back(elementwise(tokens * d * beta * 2));
}

// Operators of an LSTM layer (cuDNN's, as PyTorch's nn.LSTM runs it; Appleyard, "Optimizing
// Recurrent Neural Networks in cuDNN 5", NVIDIA developer blog, 2016, recalled): the input
// projections of all steps as one GEMM, then per step one recurrent GEMM of `batch` rows × 4·hidden
// gates and the fused cell update, which reads and writes pc::kLstmCellForwardValues values per
// hidden unit and pc::kLstmCellBackwardValues in its backward. The backward runs per step one
// GEMM of the gates' gradient by the recurrent weights (`batch` × hidden, inner 4·hidden) and the
// recurrent weights' gradient once over all steps (4·hidden × hidden, inner batch · steps).
void lstm_ops(double batch, double input, double hidden, double steps, double dirs, double count,
              double beta, std::vector<Op>& ops) {
  const double h = hidden, per_step = count * steps * dirs;
  ops.push_back(gemm(batch * steps, 4 * h * dirs, input, beta, count));
  Op recurrent = gemm(batch, 4 * h, h, beta, per_step);
  recurrent.pass = Op::Pass::kForward;
  ops.push_back(recurrent);
  Op recurrent_data = gemm(batch, h, 4 * h, beta, per_step);
  recurrent_data.pass = Op::Pass::kBackward;
  ops.push_back(recurrent_data);
  Op recurrent_weights = gemm(4 * h, h, batch * steps, beta, count * dirs);
  recurrent_weights.pass = Op::Pass::kWeightGradient;
  ops.push_back(recurrent_weights);
  Op cell = elementwise(batch * h * pc::kLstmCellForwardValues * beta, per_step);
  cell.pass = Op::Pass::kForward;
  ops.push_back(cell);
  Op cell_backward = elementwise(batch * h * pc::kLstmCellBackwardValues * beta, per_step);
  cell_backward.pass = Op::Pass::kBackward;
  ops.push_back(cell_backward);
}

// A chain of a layer list's norm and elementwise layers, one after another with no GEMM,
// convolution, attention or embedding between them, which torch.compile fuses into one kernel
// (add_pointwise); `names` empty when no chain is open.
struct PointwiseChain {
  size_t op = 0;            // its operator in the list
  double output_bytes = 0;  // what its last layer writes
  std::vector<std::string> names;
  std::vector<std::string>* fused = nullptr;  // where a chain of two or more is listed
  void close() {
    if (names.size() > 1 && fused) fused->push_back(join(names, " + "));
    names.clear();
  }
};

// A norm or elementwise layer: it reads its input, the tensor the operator before it has just
// written (l2_served_bytes), and writes its output, in a kernel of its own. With a `chain`
// (torch.compile), a layer that follows one of the chain's, as often, joins its operator
// instead: the fused kernel reads the chain's first input and writes its last output, and the
// tensors between them never reach memory (TorchInductor's pointwise fusion: Ansel et al. 2024,
// "PyTorch 2", ASPLOS, its TorchInductor section; recalled). A batch norm adds a kernel: its
// statistics are a reduction over the batch, which Inductor runs before the pointwise kernel that
// normalizes.
void add_pointwise(const Layer& l, double batch, double beta, PointwiseChain* chain,
                   std::vector<Op>& ops) {
  const double tensor = batch * static_cast<double>(l.elements) * beta;
  const double extra_kernels = std::string_view(l.kind) == "batchnorm" ? 1 : 0;
  if (chain && !chain->names.empty() && chain->op + 1 == ops.size() &&
      ops.back().count == l.count) {
    Op& fused = ops.back();
    fused.bytes += tensor - chain->output_bytes;
    fused.flops += tensor * 2 / 4;  // elementwise's few operations an element
    fused.kernels += extra_kernels;
    chain->output_bytes = tensor;
    chain->names.push_back(l.name);
    return;
  }
  if (chain) chain->close();
  ops.push_back(elementwise(tensor * 2, l.count));
  ops.back().l2_input_bytes = tensor;
  if (!chain) return;
  ops.back().kernels += extra_kernels;
  chain->op = ops.size() - 1;
  chain->output_bytes = tensor;
  chain->names.push_back(l.name);
}

// Operators of one forward pass of the layers of a layer list that have `role` in the run (and
// an LSTM cell update's backward, which runs in the backward only: Op::pass). With `fused`
// (torch.compile), chains of norm and elementwise layers run fused (add_pointwise), each chain of
// two or more listed there.
void layer_ops(const Workload& w, const std::vector<LayerRole>& roles, LayerRole role, double batch,
               double beta, bool flash, std::vector<Op>& ops,
               std::vector<std::string>* fused = nullptr) {
  ops.reserve(ops.size() + static_cast<size_t>(std::count(roles.begin(), roles.end(), role)));
  std::optional<PointwiseChain> chain;
  if (fused) chain.emplace().fused = fused;
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    const std::string_view kind = l.op;
    const bool pointwise = kind == "norm" || kind == "elementwise";
    if (chain && (roles[i] != role || !pointwise)) chain->close();
    if (roles[i] != role) continue;
    const double count = l.count;
    if (kind == "conv2d" || kind == "conv_transpose2d") {
      const double kh = l.kernel_h.value_or(l.kernel), kw = l.kernel_w.value_or(l.kernel);
      const double m = batch * l.out_h * l.out_w;
      const double k = static_cast<double>(l.in_channels) / l.groups * kh * kw;
      Op op = gemm(m, l.out_channels, k, beta, count);
      // Implicit GEMM reads the input feature map, not the unfolded matrix, on any L2.
      op.l2_traffic = false;
      const double in_hw = static_cast<double>(l.out_h) * l.out_w * l.stride * l.stride;
      op.bytes =
          batch *
              (l.in_channels * in_hw + static_cast<double>(l.out_channels) * l.out_h * l.out_w) *
              beta +
          static_cast<double>(l.out_channels) * k * beta;
      ops.push_back(op);
    } else if (kind == "linear") {
      ops.push_back(
          gemm(batch * static_cast<double>(l.tokens), l.out_features, l.in_features, beta, count));
      ops.back().linear = true;
    } else if (kind == "lstm") {
      const double dirs = l.bidirectional ? 2 : 1, h = l.hidden_size,
                   steps = static_cast<double>(l.steps);
      lstm_ops(batch, l.input_size, h, steps, dirs, count, beta, ops);
    } else if (kind == "attention") {
      Op op;
      op.kind = OpKind::kAttention;
      op.flops = 4.0 * batch * l.heads * l.head_dim * static_cast<double>(l.query_len) *
                 static_cast<double>(l.key_len);
      op.bytes = batch * 4.0 * l.heads * l.head_dim * static_cast<double>(l.query_len) * beta;
      if (!flash)
        op.bytes += 6 * batch * l.heads * static_cast<double>(l.query_len) *
                    static_cast<double>(l.key_len) * beta;
      op.count = count;
      ops.push_back(op);
    } else if (kind == "embedding") {
      ops.push_back(elementwise(batch * static_cast<double>(l.lookups) * l.dim * beta * 2, count));
    } else {  // norm, elementwise: read and write each element
      add_pointwise(l, batch, beta, chain ? &*chain : nullptr, ops);
    }
  }
  if (chain) chain->close();
}

struct Timing {
  double gemm = 0, attention = 0, elementwise = 0, optimizer = 0, dequantize = 0;
  double gemm_flops = 0, other_flops = 0, bytes = 0;
  double compute_bound = 0, memory_bound = 0;
  // The kernels' launch and synchronisation (perf_constants.h kKernelOverheadS a kernel): time
  // no GPU shortens, apart from the operator classes above.
  double launch = 0, kernels = 0;
  // Elementwise operators' bytes: all they move, and those read from L2 (l2_served_bytes).
  double elementwise_bytes = 0, l2_served_bytes = 0;
};

// What time_ops reads of a GPU's calibration (ArchCalibration) at a run's precision.
struct OpEfficiency {
  double gemm_efficiency = 0;
  double memory_efficiency = 0;
};

// How many times a step runs its operators: `forward` passes (2 under checkpointing), and a
// backward that runs a GEMM's FLOPs `backward_gemm` more times (2 for trained weights, the
// activation and the weight gradient; 1 for frozen ones) and other operators' `backward_other`.
struct Passes {
  double forward = 1;
  double backward_gemm = 0;
  double backward_other = 0;
};
constexpr Passes kForwardPass{1, 0, 0};

// How many times `passes` run an operator (Op::pass).
double op_passes(const Op& op, const Passes& passes) {
  switch (op.pass) {
    case Op::Pass::kForward:
      return passes.forward;
    case Op::Pass::kBackward:
      return passes.backward_other > 0 ? 1 : 0;
    case Op::Pass::kWeightGradient:
      return passes.backward_gemm > 1 ? 1 : 0;
    case Op::Pass::kEvery:
      break;
  }
  return passes.forward + (op.kind == OpKind::kGemm ? passes.backward_gemm : passes.backward_other);
}

// Time of the operators over a step's `passes`.
void time_ops(std::span<const Op> ops, const Passes& step_passes, const Rates& rates,
              const OpEfficiency& cal, Timing& out) {
  for (const Op& op : ops) {
    const bool is_gemm = op.kind == OpKind::kGemm;
    const bool is_attention = op.kind == OpKind::kAttention;
    const double passes = op_passes(op, step_passes);
    if (passes == 0) continue;
    double compute = 0, reduction = 0, kernels = op.kernels;
    if (is_gemm) {
      const SplitK split = gemm_split_k(op.shape, op.k, rates.sms);
      compute = op.flops / ((op.linear ? rates.linear_tflops : rates.tensor_tflops) * 1e12 *
                            cal.gemm_efficiency * split.efficiency);
      reduction = split_k_reduction_bytes(split.slices, op.outputs);
      if (split.slices > 1) kernels += 1;
    } else if (is_attention) {
      compute =
          op.flops / (rates.tensor_tflops * 1e12 * cal.gemm_efficiency * pc::kAttentionVsGemm);
    } else {
      compute = op.flops / (rates.vector_tflops * 1e12 * pc::kVectorEfficiency);
    }
    const double bytes = op_bytes(op, rates.l2_bytes);
    const double bandwidth = rates.bandwidth_gbps * 1e9 * cal.memory_efficiency;
    const double memory = bytes / bandwidth;
    // A split-K GEMM's reduction kernel runs after it, at the memory bandwidth.
    const double seconds =
        (std::max(compute, memory) + reduction / bandwidth) / rates.sustained * op.count * passes;
    (compute >= memory ? out.compute_bound : out.memory_bound) += seconds;
    out.kernels += kernels * op.count * passes;
    out.launch += kernels * rates.kernel_s * op.count * passes;
    if (is_gemm) {
      out.gemm += seconds;
      out.gemm_flops += op.flops * op.count * passes;
    } else if (is_attention) {
      out.attention += seconds;
      out.other_flops += op.flops * op.count * passes;
    } else if (op.kind == OpKind::kOptimizer) {
      out.optimizer += seconds;
    } else if (op.kind == OpKind::kDequantize) {
      out.dequantize += seconds;
    } else {
      out.elementwise += seconds;
      const double served = l2_served_bytes(op, rates.l2_bytes);
      out.elementwise_bytes += (bytes + served) * op.count * passes;
      out.l2_served_bytes += served * op.count * passes;
    }
    out.bytes += (bytes + reduction) * op.count * passes;
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

ArchCalibration Calibration::for_arch(std::string_view key) const {
  for (const auto& a : archs) {
    if (a.architecture == key) return a;
  }
  return ArchCalibration{std::string(key)};
}

namespace {

// A calibration key's class: "hbm", "gddr" or "geforce" (calibration_key).
std::string_view key_class(std::string_view key) { return key.substr(key.find('-') + 1); }

// The median of `values` (not empty).
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// One efficiency of every fitted key, or of those of `of_class` when it is not empty.
std::vector<double> efficiencies(const std::vector<ArchCalibration>& archs,
                                 double ArchCalibration::*field, std::string_view of_class = {}) {
  std::vector<double> out;
  for (const auto& a : archs) {
    if (of_class.empty() || key_class(a.architecture) == of_class) out.push_back(a.*field);
  }
  return out;
}

}  // namespace

// A key no measurement covers: docs/performance.md ("Leave one architecture out") scores this
// rule against the others tried. A new generation's tensor cores are new, and the GEMM efficiency
// of the key released nearest in time is no better a guess than any other key's, so GEMM and TF32
// take the median of all fitted keys (a median, because several sit at the bound 1, which is not
// a measurement), no higher than the key's own measured GEMM ceiling. The memory efficiency
// follows the memory system, which the class names: the median of its class's fitted keys, else
// the mean of all.
ArchCalibration Calibration::for_gpu(const Gpu& gpu) const {
  const std::string key = calibration_key(gpu);
  for (const auto& a : archs) {
    if (a.architecture == key) return a;
  }
  if (archs.empty()) return ArchCalibration{key};
  ArchCalibration out{key};
  out.gemm_efficiency =
      std::min(median(efficiencies(archs, &ArchCalibration::gemm_efficiency)), gemm_ceiling(key));
  out.tf32_efficiency = median(efficiencies(archs, &ArchCalibration::tf32_efficiency));
  const std::string_view of_class = key_class(key);
  const auto same_class = efficiencies(archs, &ArchCalibration::memory_efficiency, of_class);
  if (!same_class.empty()) {
    out.memory_efficiency = median(same_class);
    out.borrowed_from = of_class;
  } else {
    const auto all = efficiencies(archs, &ArchCalibration::memory_efficiency);
    out.memory_efficiency =
        std::accumulate(all.begin(), all.end(), 0.0) / static_cast<double>(all.size());
    out.borrowed_from = kMeanOfFitted;
  }
  out.fitted_on = "no measured run: the median GEMM and TF32 efficiencies of the fitted keys";
  return out;
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
    if (std::string_view(l.op) == "lstm") return "rnn";
  }
  return "cnn";
}

Result<Prediction> predict_largest_fitting(const Workload& w, const Gpu& gpu,
                                           const RunConfig& config, const Calibration& calibration,
                                           const Catalog& catalog, bool shrink_batch) {
  auto p = predict(w, gpu, config, calibration, catalog);
  if (!p || p->fits || !shrink_batch || p->max_batch < 1) return p;
  RunConfig smaller = config;
  smaller.batch = p->max_batch;
  auto q = predict(w, gpu, smaller, calibration, catalog);
  return q && q->fits ? q : p;
}

std::vector<std::string> software_needed(const RunConfig& c) {
  std::vector<std::string> out = {c.engine.empty() ? std::string("pytorch") : c.engine};
  // bitsandbytes implements NF4 storage (QLoRA), the 8-bit and paged optimizers and, in
  // PyTorch (transformers' load_in_8bit), LLM.int8() weights (bitsandbytes documentation).
  const bool nf4 = c.weights == "nf4" || c.weights == "nf4-dq" || c.method == "qlora";
  const bool int8 = c.weights == "int8" && out.front() == "pytorch";
  const bool optimizer =
      c.mode == "train" && (c.optimizer == "adam8bit" || c.optimizer.rfind("paged-", 0) == 0);
  if (nf4 || int8 || optimizer) out.push_back("bitsandbytes");
  return out;
}

std::string stack_summary(const Family& f) {
  std::vector<std::string> parts;
  if (!f.runs.empty()) parts.push_back("runs " + join(f.runs, ", "));
  if (!f.runs_partly.empty()) parts.push_back("partly " + join(f.runs_partly, ", "));
  if (!f.does_not_run.empty()) parts.push_back("not " + join(f.does_not_run, ", "));
  return fmt::format("{} on {}{}: {} (as of {}, {})", f.stack_name, f.name,
                     f.common_stack ? "" : ", a less common stack than CUDA", join(parts, "; "),
                     f.as_of.to_string(), f.provenance.confidence);
}

namespace {

// "vllm does not run on gtx-1080-ti (NVIDIA Pascal, CUDA): <gaps> What runs there: ...".
std::string stack_refusal(const Gpu& gpu, const Family& f, const std::string& software,
                          const Catalog& catalog) {
  std::vector<std::string> there = f.runs, elsewhere;
  there.insert(there.end(), f.runs_partly.begin(), f.runs_partly.end());
  for (const Family& other : catalog.families) {
    const std::string_view level = other.support(software);
    if (level == "yes") elsewhere.push_back(other.id);
    if (level == "partial") elsewhere.push_back(other.id + " (partly)");
  }
  return fmt::format(
      "{} does not run on {} ({}, {}): {} What runs there: {}. {} runs on the families {} "
      "(`rigplan gpus list --architecture ID`). Source: {} (as of {}, {})",
      software, gpu.id, f.name, f.stack_name, f.gaps,
      there.empty() ? "nothing listed" : join(there, ", "), software,
      elsewhere.empty() ? "none of the catalog" : join(elsewhere, ", "), f.provenance.source,
      f.as_of.to_string(), f.provenance.confidence);
}

}  // namespace

bool fp8_training::runs_on(const Gpu& gpu, const Format& f) {
  if (!gpu.tensor_cores || !format_tflops(gpu, f)) return false;
  return !f.block_scaled || (gpu.vendor == "nvidia" &&
                             std::stod(gpu.compute_capability) >= kBlockScaledComputeCapability);
}

std::string fp8_training::hardware_needed(const Format& f) {
  if (!f.block_scaled) {
    return "FP8 tensor cores (Transformer Engine and torchao float8: Ada, Hopper, Blackwell, "
           "CDNA 3; an FP8 rate in the catalog, fp8_tflops)";
  }
  const bool fp4 = f.rate == "fp4";
  return fmt::format(
      "block-scaled {} tensor cores (Transformer Engine's {}, compute capability {:.1f} or "
      "later{})",
      fp4 ? "FP4" : "FP8", f.recipe, kBlockScaledComputeCapability,
      fp4 ? " with an FP4 rate, catalog fp4_tflops" : "");
}

std::string fp8_training::refusal(const Gpu& gpu, std::string_view precision,
                                  const Catalog& catalog) {
  const Format* f = training_format(precision);
  if (!f || runs_on(gpu, *f)) return "";
  std::vector<std::string> there;
  for (const Gpu& g : catalog.gpus) {
    if (runs_on(g, *f)) there.push_back(g.id);
  }
  const bool fp8_runs = runs_on(gpu, kFp8);
  return fmt::format(
      "{} training runs its linear layers' GEMMs on {}; {} ({}, compute capability {}) has none. "
      "GPUs that run it: {}. On {}: --precision {}",
      precision, hardware_needed(*f), gpu.id, gpu.architecture, gpu.compute_capability,
      there.empty() ? "none of the catalog" : join(there, ", "), gpu.id,
      fp8_runs ? "fp8 (per-tensor scaling, at its FP8 rate) or bf16" : "bf16");
}

StackCheck check_stack(const Workload& workload, const Gpu& gpu, const RunFacts& facts,
                       const Catalog& catalog) {
  const RunConfig& c = facts.memory.config;
  const bool transformer = workload.transformer.has_value();
  StackCheck out;
  if (c.mode == "train") out.refusal = fp8_training::refusal(gpu, c.precision, catalog);
  out.family = catalog.family_of(gpu);
  if (!out.family) return out;
  const Family& f = *out.family;
  std::vector<std::string> partly;
  for (const std::string& software : software_needed(c)) {
    const std::string_view level = f.support(software);
    if (level == "no" && out.refusal.empty())
      out.refusal = stack_refusal(gpu, f, software, catalog);
    if (level == "partial") partly.push_back(software);
  }
  const bool flash = transformer && c.flash_attention && c.engine == "pytorch";
  if (flash && f.support("flash-attention") != "yes") partly.push_back("flash-attention");
  if (!partly.empty()) {
    out.partly = fmt::format("{} {} only partly on {} ({}): {} (families.toml, as of {}, {})",
                             join(partly, " and "), partly.size() == 1 ? "runs" : "run", f.name,
                             f.stack_name, f.gaps, f.as_of.to_string(), f.provenance.confidence);
  }
  return out;
}

Result<Prediction> predict(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog) {
  auto facts = run_facts(w, gpu, config);
  if (!facts) return facts.status();
  return predict(w, gpu, config, calibration, catalog, *facts,
                 check_stack(w, gpu, *facts, catalog));
}

Result<Prediction> predict(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog,
                           const RunFacts& facts, const StackCheck& stack) {
  if (!stack.refusal.empty()) return Status::invalid_input(stack.refusal);
  auto p = predict(w, gpu, config, calibration, catalog, facts);
  if (p && !stack.partly.empty()) p->warnings.push_back(stack.partly);
  return p;
}

namespace {

// What the operators of a step depend on: the workload and the run as the memory model resolved
// it, not the GPU.
struct StepShape {
  const Workload& w;
  const RunConfig& c;  // the memory estimate's configuration, defaults resolved
  double beta = 2;     // bytes per element
  bool train = false;
  bool frozen = false;  // the base weights are not trained (LoRA, QLoRA, the adapters)
  // FP8, MXFP8 or NVFP4 training: the format of the linear layers' GEMMs (fp8_training.h);
  // nullptr otherwise.
  const fp8_training::Format* low = nullptr;
  int tp = 1, pp = 1, dp = 1, cp = 1, vp = 1;
  int ep = 1;  // expert parallel: a mixture's experts split over ep of the dp × cp GPUs
  double batch = 1, seq = 1;
  // Sequences of one pipeline micro-batch, and the micro-batches of a replica's step (without a
  // --micro-batch: the batch is one, and a pipeline assumes kMicroBatchesPerStage per stage).
  double micro = 1, micro_batches = 1;
  bool micro_given = false;
  double accum = 1;  // the steps an optimizer update is spread over
};

StepShape step_shape(const Workload& w, const RunConfig& c) {
  StepShape s{w, c};
  const std::string_view precision = c.precision;
  const bool fp32 = precision == "fp32" || precision == "tf32";
  s.beta = fp32 ? 4 : 2;
  s.train = std::string_view(c.mode) == "train";
  s.frozen = std::string_view(c.method) != "full";
  s.low = s.train ? fp8_training::training_format(precision) : nullptr;
  s.tp = c.tensor_parallel;
  s.pp = c.pipeline_parallel;
  s.cp = c.context_parallel;
  s.vp = c.virtual_stages;
  s.ep = c.expert_parallel;
  s.dp = c.gpus / (s.tp * s.pp * s.cp);
  s.batch = *c.batch;
  s.micro_given = c.micro_batch.has_value();
  s.micro = c.micro_batch.value_or(*c.batch);
  s.micro_batches = s.batch / s.micro;
  s.seq = *c.seq_len;
  s.accum = c.grad_accum;
  return s;
}

// What a prediction reads of its GPU beside its rates: the efficiencies of its architecture's
// calibration (Calibration::for_gpu) and, once a run spans GPUs, its PCIe bandwidth (links.h
// pcie_gbps). Looked up once per GPU when predictions keep their operator times (OperatorTimes).
struct GpuModel {
  double gemm_efficiency = 0, memory_efficiency = 0, tf32_efficiency = 1;
  std::optional<double> pcie_gbps;  // found at its first use
  std::string key, borrowed_from;   // ArchCalibration's
};
GpuModel gpu_model(const Gpu& gpu, const Calibration& calibration) {
  ArchCalibration cal = calibration.for_gpu(gpu);
  return {cal.gemm_efficiency, cal.memory_efficiency,       cal.tf32_efficiency,
          std::nullopt,        std::move(cal.architecture), std::move(cal.borrowed_from)};
}

// What every step of a prediction reads: the step's shape, and the GPU's rates and calibration
// at the run's precision.
struct StepContext : StepShape {
  const Gpu& gpu;
  const RunFacts& facts;
  const Catalog& catalog;
  Network network;  // between nodes
  Rates rates;
  OpEfficiency cal;
  GpuModel* model = nullptr;  // the GPU's, kept in `times` or for this prediction alone
  bool decode = false;        // one generated token per sequence
  // The parameters the run trains, as the memory model counts them (LoRA: r·(in + out) per
  // targeted matrix).
  double trained = 0;
  bool detail = true;  // the prediction's terms and notes are written, beside its numbers
  OperatorTimes* times = nullptr;  // operator times kept across predictions (predict_speed)
  // The run's framework runs a layer's pointwise operators as PyTorch ops
  // (FrameworkCalibration::pointwise): StepOperators::decomposed is timed.
  bool decomposed = false;
};

StepContext step_context(const Workload& w, const Gpu& gpu, const RunConfig& config,
                         GpuModel& model, const Catalog& catalog, const RunFacts& facts,
                         Network network, bool detail) {
  const RunConfig& c = facts.memory.config;
  StepContext s{step_shape(w, c), gpu, facts, catalog, std::move(network)};
  s.detail = detail;
  s.model = &model;
  s.cal = {model.gemm_efficiency, model.memory_efficiency};
  s.rates = rates_for(gpu, c.precision, s.low);
  if (c.cuda_graphs) s.rates.kernel_s = pc::kGraphKernelOverheadS;
  if (s.beta == 4 && gpu.tf32_tflops) s.cal.gemm_efficiency *= model.tf32_efficiency;  // fp32
  s.decode = std::string_view(config.mode) == "decode";
  s.trained = facts.memory.trainable_params;
  return s;
}

}  // namespace

// The operators of one step on one GPU: `ops` run forward (and, training, backward);
// `forward_only` are the frozen components beside trained ones. The same on every GPU: what
// depends on the GPU (its rates, the L2 a GEMM's operands spill from) is applied by time_ops.
struct StepOperators {
  std::vector<Op> ops, forward_only;
  // Under torch.compile: the chains of operators fused into one kernel each (CompileEffect).
  std::vector<std::string> fused;
  // A transformer trained without torch.compile: what a framework whose pointwise operators are
  // "decomposed" moves beyond `ops` (decomposed_pointwise), run as `ops` are, and the operators
  // it runs as PyTorch ops; empty otherwise.
  std::vector<Op> decomposed;
  std::vector<std::string> decomposed_operators;
};

namespace {

// The operators as the run's precision computes them, before FP8 training's casts.
Result<StepOperators> step_operators_in_precision(const StepShape& s) {
  StepOperators out;
  const bool compile = s.train && s.c.compile;
  if (s.w.transformer) {
    // One micro-batch's operators, run once per micro-batch. Context parallelism gives each GPU
    // seq/cp of every sequence's queries, attending over the whole sequence.
    const TransformerConfig& t = *s.w.transformer;
    const double tokens = s.micro * s.seq / s.cp;
    transformer_ops(t, tokens, s.seq, s.beta, s.c.flash_attention, s.tp, s.c.sequence_parallel,
                    s.ep, compile, out.ops);
    if (compile) out.fused = transformer_fusions(t);
    if (s.train && !compile) {
      DecomposedBytes extra = decomposed_pointwise(t, s.beta);
      if (extra.kernels > 0) {
        out.decomposed_operators = std::move(extra.operators);
        out.decomposed.push_back(elementwise(
            tokens * (extra.hidden / (s.c.sequence_parallel ? s.tp : 1) + extra.split / s.tp),
            t.total_layers()));
        out.decomposed.back().kernels = extra.kernels;
        out.decomposed.back().op_sac_recomputed = true;
      }
    }
    // Training pipelines keep every stage busy with micro-batches (the bubble is added by
    // pipeline_bubble); inference over split layers (llama.cpp-style) runs the stages one after
    // another, so a single stream is no faster than on one GPU.
    for (auto* list : {&out.ops, &out.decomposed}) {
      for (auto& op : *list) {
        op.count *= s.micro_batches;
        if (s.pp > 1 && s.train) op.count /= s.pp;
      }
    }
    return out;
  }
  // Trained layers run forward and backward; frozen ones (text encoders, a VAE encoding its
  // images) forward only; idle and cached components not at all.
  auto plan = plan_components(s.w, s.c);
  if (!plan) return plan.status();
  std::vector<std::string>* fused = compile ? &out.fused : nullptr;
  layer_ops(s.w, plan->roles, s.train ? LayerRole::kTrained : LayerRole::kFrozen, s.batch, s.beta,
            s.c.flash_attention, out.ops, fused);
  if (s.train) {
    layer_ops(s.w, plan->roles, LayerRole::kFrozen, s.batch, s.beta, s.c.flash_attention,
              out.forward_only, fused);
  }
  return out;
}

// Adds to `ops` the casts of its linear GEMMs to the run's format `f` (fp8_training.h):
// memory-bound passes that read BF16 and write the format's copies, for each GEMM one operator of
// its forward casts (input and weight), run with each forward pass (Op::Pass::kForward,
// recomputation too), and one of its backward cast (output gradient), run once (kBackward). The
// GEMMs then read the format's operands (FP8: 1 byte an element where `beta` counted 2); their
// BF16 output stays. `bf16_share` of each linear GEMM stays BF16, uncast, at the 16-bit rate
// (NVFP4's layers kept in BF16, Format::bf16_layer_share).
void add_low_precision_casts(std::vector<Op>& ops, double beta, const fp8_training::Format& f,
                             double bf16_share) {
  namespace f8 = fp8_training;
  std::vector<Op> added;
  for (Op& op : ops) {
    if (op.kind != OpKind::kGemm || !op.linear) continue;
    if (bf16_share > 0) {
      Op bf16 = op;
      bf16.count *= bf16_share;
      bf16.linear = false;
      added.push_back(bf16);
      op.count *= 1 - bf16_share;
    }
    const f8::Fp8CastBytes bytes =
        f8::cast_bytes_of(f, op.bytes / beta, op.weight_elements, op.output_bytes / beta);
    Op forward = elementwise(bytes.forward, op.count);
    forward.kernels = 2 * f.cast_kernels + f.hadamard_kernels;  // the input and the weight
    forward.pass = Op::Pass::kForward;
    forward.op_sac_recomputed = op.op_sac_recomputed;
    Op backward = elementwise(bytes.backward, op.count);
    backward.kernels = f.cast_kernels + f.hadamard_kernels;  // the output gradient
    backward.pass = Op::Pass::kBackward;
    added.push_back(forward);
    added.push_back(backward);
    op.bytes = op.bytes * (f.bytes() / beta) + op.weight_elements * (f.weight_bytes() - f.bytes());
  }
  ops.insert(ops.end(), added.begin(), added.end());
}

// Of a step's linear GEMMs, the share the run's format keeps in BF16: a transformer's layers
// kept whole (fp8_training.h kept_in_bf16).
double bf16_linear_share(const StepShape& s) {
  if (!s.w.transformer || s.low->bf16_layer_share == 0) return 0;
  const double layers = s.w.transformer->total_layers();
  return fp8_training::kept_in_bf16(*s.low, layers) / layers;
}

Result<StepOperators> step_operators(const StepShape& s) {
  auto out = step_operators_in_precision(s);
  if (!out || !s.low) return out;
  const double bf16 = bf16_linear_share(s);
  add_low_precision_casts(out->ops, s.beta, *s.low, bf16);
  // Run forward only: their kBackward casts do not run.
  add_low_precision_casts(out->forward_only, s.beta, *s.low, bf16);
  return out;
}

// What step_operators reads of a step's shape: runs whose keys are equal run the same operators.
struct OperatorsKey {
  const Workload* w = nullptr;
  bool train = false, flash = false, sequence_parallel = false, compile = false;
  const fp8_training::Format* low = nullptr;
  double beta = 0, batch = 0, seq = 0, micro = 0, micro_batches = 0;
  int tp = 0, pp = 0, cp = 0, ep = 0;
  std::vector<std::string> train_components, cached_components;  // plan_components reads them
  bool operator==(const OperatorsKey&) const = default;
};
OperatorsKey operators_key(const StepShape& s) {
  return {&s.w,
          s.train,
          s.c.flash_attention,
          s.c.sequence_parallel,
          s.c.compile,
          s.low,
          s.beta,
          s.batch,
          s.seq,
          s.micro,
          s.micro_batches,
          s.tp,
          s.pp,
          s.cp,
          s.ep,
          s.c.train_components,
          s.c.cached_components};
}

}  // namespace

struct SharedFacts::Entries {
  struct Counts {
    const Workload* w = nullptr;
    ParamCounts params;
    std::string workload_class;
  };
  std::deque<Counts> workloads;  // a deque: what was found stays where it is
  std::vector<std::tuple<const Workload*, int, int, FlopCounts>> flops;
  std::vector<std::pair<OperatorsKey, std::shared_ptr<const StepOperators>>> operators;
  // The layer roles of a workload's runs: by whether they train, and the components trained
  // and cached, as given.
  struct Plan {
    const Workload* w = nullptr;
    bool train = false;
    std::vector<std::string> train_components, cached_components;
    ComponentPlan plan;
  };
  std::deque<Plan> plans;

  const Counts& counts_of(const Workload& w) {
    for (const Counts& c : workloads) {
      if (c.w == &w) return c;
    }
    return workloads.emplace_back(Counts{&w, count_params(w), workload_class(w)});
  }
  // plan_components(w, c); nullptr when it is refused (the memory estimate says why).
  const ComponentPlan* plan_of(const Workload& w, const RunConfig& c) {
    const bool train = std::string_view(c.mode) == "train";
    for (const Plan& p : plans) {
      if (p.w == &w && p.train == train && p.train_components == c.train_components &&
          p.cached_components == c.cached_components)
        return &p.plan;
    }
    auto made = plan_components(w, c);
    if (!made) return nullptr;
    return &plans
                .emplace_back(Plan{&w, train, c.train_components, c.cached_components,
                                   std::move(made).value()})
                .plan;
  }
  FlopCounts flops_of(const Workload& w, int batch, int seq) {
    for (const auto& [workload, b, s, f] : flops) {
      if (workload == &w && b == batch && s == seq) return f;
    }
    return std::get<3>(flops.emplace_back(&w, batch, seq, count_flops(w, batch, seq)));
  }
  // The operators of a step, shared with the facts made before whose steps are shaped alike;
  // nullptr when they cannot be made (predict says why).
  std::shared_ptr<const StepOperators> operators_of(const StepShape& shape) {
    OperatorsKey key = operators_key(shape);
    for (const auto& [made, ops] : operators) {
      if (made == key) return ops;
    }
    auto ops = step_operators(shape);
    if (!ops) return nullptr;
    return operators
        .emplace_back(std::move(key), std::make_shared<const StepOperators>(std::move(ops).value()))
        .second;
  }
};

SharedFacts::SharedFacts() : entries_(std::make_unique<Entries>()) {}
SharedFacts::~SharedFacts() = default;

namespace {

// run_facts, with what the facts share kept in `shared` when given.
Result<RunFacts> make_facts(const Workload& w, const Gpu& gpu, const RunConfig& config,
                            SharedFacts::Entries* shared) {
  std::optional<SharedFacts::Entries::Counts> own;
  const SharedFacts::Entries::Counts& counts =
      shared ? shared->counts_of(w)
             : own.emplace(SharedFacts::Entries::Counts{&w, count_params(w), workload_class(w)});
  auto memory = estimate_memory_numbers(w, gpu, config, &counts.params,
                                        shared ? shared->plan_of(w, config) : nullptr);
  if (!memory) return memory.status();
  const int batch = *memory->config.batch, seq = *memory->config.seq_len;  // resolved
  const FlopCounts flops = shared ? shared->flops_of(w, batch, seq) : count_flops(w, batch, seq);
  RunFacts facts{std::move(memory).value(), counts.params, flops, counts.workload_class};
  // The operators, for every GPU the facts serve; an LLM served by an engine is modelled by its
  // phases instead (inference_perf.cc). Operators that cannot be made are left to predict, which
  // reports why.
  if (!w.transformer || facts.memory.config.mode == "train") {
    const StepShape shape = step_shape(w, facts.memory.config);
    if (shared) {
      facts.operators = shared->operators_of(shape);
    } else if (auto ops = step_operators(shape)) {
      facts.operators = std::make_shared<const StepOperators>(std::move(ops).value());
    }
  }
  return facts;
}

}  // namespace

Result<RunFacts> run_facts(const Workload& w, const Gpu& gpu, const RunConfig& config) {
  return make_facts(w, gpu, config, nullptr);
}

Result<RunFacts> run_facts(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           SharedFacts& shared) {
  return make_facts(w, gpu, config, &shared.entries());
}

namespace {

// Parameters of a mixture's experts split by expert parallelism in a training step: each GPU
// holds experts / ep of them (Megatron-Core MoE; DeepSpeed-MoE, Rajbhandari et al. 2022 §4), the
// memory model's parameter_layout. 0 for a dense model and for inference.
double expert_params(const StepContext& s) {
  return s.train ? static_cast<double>(s.facts.params.experts) : 0;
}
// Of the trained parameters, the experts' (a full fine-tune's; LoRA's adapters count as dense).
double trained_expert_params(const StepContext& s) { return s.frozen ? 0 : expert_params(s); }

// Parameters of which `experts` are a mixture's experts, on one GPU: the dense ones split by
// tp · pp and divided by `shard`, the experts' by tp · pp · ep and `expert_shard` (ZeRO over the
// dp · cp GPUs, and over the experts' dp · cp / ep).
double local_params(const StepContext& s, double params, double experts, double shard,
                    double expert_shard) {
  return ((params - experts) / shard + experts / s.ep / expert_shard) / (s.tp * s.pp);
}
// ZeRO's shards of stage `stage` and above: over the dp · cp GPUs that hold the same weights (as
// memory.cc weight_replicas), and for the experts over dp · cp / ep.
double zero_shard(const StepContext& s, int stage) {
  return s.c.zero >= stage ? static_cast<double>(s.dp) * s.cp : 1;
}
double expert_zero_shard(const StepContext& s, int stage) {
  return s.c.zero >= stage ? static_cast<double>(s.dp) * s.cp / s.ep : 1;
}

// 4-bit base weights (trains_on_4bit): each is dequantized to 16 bit before its matmul: packed
// codes read, 16-bit written.
Op dequantize_op(const StepContext& s) {
  const ParamCounts& params = s.facts.params;
  const double quantized = static_cast<double>(params.total - params.embedding - params.head);
  Op dequantize = elementwise(local_params(s, quantized, expert_params(s), 1, 1) *
                              (*bits_per_weight(s.c.weights) / 8 + 2));
  dequantize.kind = OpKind::kDequantize;
  dequantize.kernels = static_cast<double>(layer_linears(*s.w.transformer).size()) *
                       s.w.transformer->total_layers() / s.pp;
  return dequantize;
}

// The optimizer update on this GPU's share of the trained parameters, once per `accum` steps.
Op optimizer_op(const StepContext& s) {
  const RunConfig& c = s.c;
  const std::string_view o = c.optimizer;
  const double per_param =
      o == "adamw" || o == "adam8bit" || o == "paged-adamw" || o == "paged-adamw8bit"
          ? (c.pure_16bit ? pc::kAdamPure16Bytes : pc::kAdamMixedBytes)
      : o == "sgd-momentum" ? pc::kSgdMomentumBytes
                            : pc::kSgdBytes;
  Op optimizer;
  optimizer.kind = OpKind::kOptimizer;
  optimizer.bytes = local_params(s, s.trained, trained_expert_params(s), zero_shard(s, 1),
                                 expert_zero_shard(s, 1)) *
                    per_param / s.accum;
  optimizer.kernels = 4 / s.accum;
  return optimizer;
}

// Bytes PyTorch DDP's bucket copies move in GPU memory per step: kDdpBucketCopyPasses passes
// over the gradient of each trained parameter (fp32 under AMP, as gradient_bytes), once per
// `accum` steps with the all-reduce (no_sync). They run on the compute stream, so no overlap
// hides them, and a strong-scaling run's smaller per-GPU batch does not shrink them: NCF's 31.8M
// parameters, 99.7% of them dense embedding tables, give 509 MB a step at any batch. Layer-list
// networks only, which train with torch DDP (DeepLearningExamples, Lambda's benchmark):
// transformers keep Megatron-LM's contiguous gradient buffer, all-reduced in place, and ZeRO its
// own buffers, as their cluster fits were made with (validation/cluster.csv).
double ddp_copy_bytes(const StepContext& s) {
  if (!s.train || s.dp * s.cp <= 1 || s.c.zero > 0 || s.w.transformer) return 0;
  const double gradient = s.c.pure_16bit ? 2 : 4;
  return s.trained / (s.tp * s.pp) * gradient * pc::kDdpBucketCopyPasses / s.accum;
}

// The times of a step's operators on the context's GPU. Training: the forward, the backward
// (and a recomputed forward under checkpointing) of `ops`, then the forward of `forward_only`;
// else one forward pass.
Timing time_operators(const StepContext& s, const StepOperators& ops) {
  Timing timing;
  if (!s.train) {
    time_ops(ops.ops, kForwardPass, s.rates, s.cal, timing);
    return timing;
  }
  const double recompute = s.c.checkpointing ? 1 : 0;
  time_ops(ops.ops, {1 + recompute, s.frozen ? 1.0 : 2.0, 2}, s.rates, s.cal, timing);
  time_ops(ops.forward_only, kForwardPass, s.rates, s.cal, timing);
  return timing;
}

}  // namespace

struct OperatorTimes::Entries {
  // The operators of each facts asked about, and the first equal ones seen: configurations that
  // differ only in their data-parallel GPU count run the same operators on each GPU.
  std::map<const StepOperators*, const StepOperators*> first_equal;
  std::vector<const StepOperators*> distinct;
  // By the first equal operators, the GPU and how the step runs them (train, frozen,
  // checkpointing, CUDA graphs).
  std::map<std::tuple<const StepOperators*, const Gpu*, bool, bool, bool, bool>, Timing> times;
  // What the predictions read of each GPU and workload beside their operators, found once.
  std::map<const Gpu*, GpuModel> gpus;
  std::map<const Workload*, const WorkloadCalibration*> measured;
  // PCIe bandwidth per direction by generation and lanes, and the network between machines by
  // fabric and GPUs per port where the offer gives none, as the catalog has them.
  std::vector<std::tuple<int, int, double>> pcie;
  std::vector<std::tuple<std::string, int, double>> networks;
  // What predict_speed writes a prediction's numbers in, kept so that each call does not build
  // a Prediction.
  Prediction speed;

  GpuModel& model_of(const Gpu& gpu, const Calibration& calibration) {
    if (auto it = gpus.find(&gpu); it != gpus.end()) return it->second;
    return gpus.emplace(&gpu, gpu_model(gpu, calibration)).first->second;
  }
  double pcie_of(const Gpu& gpu, const Catalog& catalog) {
    for (const auto& [gen, lanes, gbps] : pcie) {
      if (gen == gpu.pcie_gen && lanes == gpu.pcie_lanes) return gbps;
    }
    return std::get<2>(pcie.emplace_back(gpu.pcie_gen, gpu.pcie_lanes, pcie_gbps(gpu, catalog)));
  }
  // network_for(c, catalog, /*named=*/false).
  Result<Network> network_of(const RunConfig& c, const Catalog& catalog) {
    if (c.network_gbps_per_gpu) return network_for(c, catalog, false);
    for (const auto& [fabric, per_nic, gbps] : networks) {
      if (per_nic == c.gpus_per_nic && fabric == c.fabric) return Network{"", gbps};
    }
    auto found = network_for(c, catalog, false);
    if (found) networks.emplace_back(c.fabric, c.gpus_per_nic, found->gbps_per_gpu);
    return found;
  }
  const WorkloadCalibration* measured_of(const Workload& w, const Calibration& calibration) {
    if (auto it = measured.find(&w); it != measured.end()) return it->second;
    return measured.emplace(&w, measured_speed(calibration, w.id)).first->second;
  }

  const StepOperators* first_equal_to(const StepOperators& ops) {
    if (auto it = first_equal.find(&ops); it != first_equal.end()) return it->second;
    for (const StepOperators* seen : distinct) {
      if (seen->ops == ops.ops && seen->forward_only == ops.forward_only)
        return first_equal.emplace(&ops, seen).first->second;
    }
    distinct.push_back(&ops);
    return first_equal.emplace(&ops, &ops).first->second;
  }
};

OperatorTimes::OperatorTimes() : entries_(std::make_unique<Entries>()) {}
OperatorTimes::~OperatorTimes() = default;

namespace {

// time_operators, kept in s.times when the prediction has them.
Timing operator_times(const StepContext& s, const StepOperators& ops) {
  if (!s.times) return time_operators(s, ops);
  OperatorTimes::Entries& entries = s.times->entries();
  const StepOperators* same = entries.first_equal_to(ops);
  auto& times = entries.times;
  const auto key =
      std::make_tuple(same, &s.gpu, s.train, s.frozen, s.c.checkpointing, s.c.cuda_graphs);
  if (auto it = times.find(key); it != times.end()) return it->second;
  return times.emplace(key, time_operators(s, ops)).first->second;
}

// LLaMA-Adapter's own operators in one training step (finetune_methods.h), run forward, twice
// backward and once more under checkpointing: each adapted layer's queries attend over the
// prompt's kPromptLength keys and values (4 · prompt · q FLOPs per token, no causal mask), and
// the gate's multiply-add reads two query-sized tensors and writes one; v2 adds a bias to every
// Linear's output and the logits and scales them, each read and written twice. The base
// weights' missing weight gradients are time_operators' (StepShape::frozen).
std::vector<Op> adapter_ops(const StepContext& s) {
  const TransformerConfig& t = *s.w.transformer;
  const double tokens = s.batch * s.seq / s.cp / s.pp / s.tp;  // per GPU, over the tp ranks
  const double q = static_cast<double>(t.num_heads) * t.head_size();
  const double layers = adapter_layers(t);
  Op prompt;
  prompt.kind = OpKind::kAttention;
  prompt.flops = 4 * tokens * LitgptAdapterDefaults::kPromptLength * q;
  prompt.bytes = tokens * 2 * q * s.beta;
  prompt.count = layers;
  std::vector<Op> ops = {prompt, elementwise(tokens * 3 * q * s.beta, layers)};
  if (std::string_view(s.c.method) == "adapter-v2") {
    ops.push_back(
        elementwise(tokens * layer_linear_outputs(t, t.top_k()) * 4 * s.beta, t.total_layers()));
    ops.push_back(elementwise(tokens * t.vocab_size * 4 * s.beta));
  }
  return ops;
}

// A training step's operator times: the forward, the backward (activation gradients and, for
// trained layers, weight gradients), a recomputed forward under checkpointing, the 4-bit
// weights' dequantization in each of them, the adapters' own operators, the optimizer when
// it runs on the GPU, and DDP's bucket copies of the gradients (ddp_copy_bytes).
Timing train_timing(const StepContext& s, const StepOperators& ops) {
  Timing timing = operator_times(s, ops);
  const double recompute = s.c.checkpointing ? 1 : 0;
  // Selective recompute (recompute_policy.h): Megatron-LM's runs the attention core forward once
  // more, torchtitan's per-op policy the operators it does not keep.
  const std::string_view policy = s.c.recompute;
  if (policy == recompute_policy::kSelective || policy == recompute_policy::kSelectiveOp) {
    const bool op_sac = policy == recompute_policy::kSelectiveOp;
    std::vector<Op> again;
    std::copy_if(ops.ops.begin(), ops.ops.end(), std::back_inserter(again), [&](const Op& op) {
      return op_sac ? op.op_sac_recomputed : op.kind == OpKind::kAttention;
    });
    time_ops(again, kForwardPass, s.rates, s.cal, timing);
  }
  if (s.decomposed) {  // recomputed as `ops` are, each of them on the per-op policy's list
    const double op_sac = policy == recompute_policy::kSelectiveOp ? 1 : 0;
    time_ops(ops.decomposed, {1 + recompute + op_sac, 0, 2}, s.rates, s.cal, timing);
  }
  if (trains_on_4bit(s.c) && s.w.transformer) {
    const Op dequantize = dequantize_op(s);
    time_ops({&dequantize, 1}, {1 + recompute, 1, 1}, s.rates, s.cal, timing);
  }
  if (is_adapter(s.c.method) && s.w.transformer) {
    const std::vector<Op> adapter = adapter_ops(s);
    time_ops(adapter, {1 + recompute, 2, 2}, s.rates, s.cal, timing);
  }
  if (std::string_view(s.c.offload) == "none") {
    const Op optimizer = optimizer_op(s);
    time_ops({&optimizer, 1}, kForwardPass, s.rates, s.cal, timing);
  }
  if (const double copies = ddp_copy_bytes(s); copies > 0) {
    Op copy = elementwise(copies);
    copy.kernels = 2;  // into the buckets, and back
    time_ops({&copy, 1}, kForwardPass, s.rates, s.cal, timing);
  }
  return timing;
}

// The operator times of a step (training, or one forward pass), divided by `implementation`, the
// workload's measured fraction of the operator model's speed.
Timing compute_timing(const StepContext& s, const StepOperators& ops, double implementation) {
  Timing timing = s.train ? train_timing(s, ops) : operator_times(s, ops);
  for (double* t :
       {&timing.gemm, &timing.attention, &timing.elementwise, &timing.optimizer, &timing.dequantize,
        &timing.compute_bound, &timing.memory_bound, &timing.launch}) {
    *t /= implementation;
  }
  return timing;
}

// Adds the compute terms of the step to `p` (with s.detail); returns their sum, in seconds.
double add_compute_terms(const Timing& timing, const StepContext& s, Prediction& p) {
  if (s.detail) {
    p.terms.push_back({"gemm", timing.gemm, timing.gemm_flops, 0, "compute"});
    p.terms.push_back({"attention", timing.attention, timing.other_flops, 0, "compute"});
    const double dram = timing.elementwise_bytes - timing.l2_served_bytes;
    p.terms.push_back({"elementwise", timing.elementwise, 0, dram, "memory"});
    // The elementwise reads L2 serves (l2_served_bytes): no time of their own.
    if (timing.l2_served_bytes > 0)
      p.terms.push_back({"elementwise from L2", 0, 0, timing.l2_served_bytes, "l2"});
    if (s.train) p.terms.push_back({"optimizer", timing.optimizer, 0, 0, "memory"});
    if (timing.dequantize > 0) p.terms.push_back({"dequantize", timing.dequantize, 0, 0, "memory"});
    p.terms.push_back({"launch", timing.launch, 0, 0, "launch"});
  }
  return timing.gemm + timing.attention + timing.elementwise + timing.optimizer +
         timing.dequantize + timing.launch;
}

// A collective's path: the GPU-to-GPU link within a node, the network between nodes.
struct Fabric {
  std::string_view link_name;
  double busbw_gbps = 0;
  double latency_s = 0;  // a hop's latency on the slowest link the group uses
  int nodes = 1;         // the nodes a ring of the group passes through (1: within a node)
  int per_node = 1;      // the group's GPUs on one node, sharing the node's network ports
};

// The GPU's PCIe bandwidth per direction, GB/s (links.h pcie_gbps), found once per GPU.
double pcie_of(const StepContext& s) {
  if (!s.model->pcie_gbps) {
    s.model->pcie_gbps =
        s.times ? s.times->entries().pcie_of(s.gpu, s.catalog) : pcie_gbps(s.gpu, s.catalog);
  }
  return *s.model->pcie_gbps;
}

Fabric node_link(const StepContext& s) {
  const int node = node_gpus(s.gpu, s.c);
  const Link link = link_for(s.gpu, s.c, std::min(s.c.gpus, node), pcie_of(s));
  return {link.name, link.busbw_gbps, pc::kIntraNodeLatencyS};
}

// The path of a group of `size` GPUs `stride` ranks apart. Ranks are laid out as Megatron-LM
// orders them (tensor fastest, then context, data, pipeline), nodes hold consecutive ranks: the
// groups stay within nodes when their span, stride × size, divides a node's GPUs; else some
// group straddles two nodes (TP 16 in racks of 72: ranks 64-79) and its ring runs at the
// network's rate, each GPU at its share of the node's NICs. `node_fabric`: the run's node_link.
Fabric group_fabric(const StepContext& s, const Fabric& node_fabric, int stride, int size) {
  Fabric f = node_fabric;
  const int node = node_gpus(s.gpu, s.c);
  const std::int64_t span = static_cast<std::int64_t>(stride) * size;
  if (s.c.gpus <= node || (span <= node && node % span == 0)) return f;
  f.busbw_gbps = std::min(f.busbw_gbps, s.network.gbps_per_gpu * pc::kNetworkEfficiency);
  f.latency_s = pc::kInterNodeLatencyS;
  f.link_name = s.network.name;
  f.nodes = size;
  return f;
}

// The path of an NCCL ring (an all-reduce, reduce-scatter or all-gather) over a group of `size`
// GPUs `stride` ranks apart. Across nodes the ring visits each node's g = node / stride GPUs of
// the group in turn over NVLink and crosses to the next node once per channel; NCCL gives each
// channel its own NIC (rail), so the group's rings leave a node through all g ports that its g
// GPUs own (a group that fills nodes unevenly, TP 6 on nodes of 8, by its fewest: gcd(size,
// node / stride)), and a GPU's bus bandwidth is min(the node's link, g × its port share × 0.9) (DGX
// A100, 8 HDR ports: nccl-tests' multi-node all-reduce bus bandwidth near the node's 8 × 25 GB/s,
// recalled). With a stride of a node or more (data parallel over TP 8) g = 1: a port per GPU.
// Point-to-point sends (pipeline, ring attention) and all-to-alls keep group_fabric's port.
Fabric ring_fabric(const StepContext& s, const Fabric& node_fabric, int stride, int size) {
  Fabric f = group_fabric(s, node_fabric, stride, size);
  const int node = node_gpus(s.gpu, s.c);
  if (f.nodes == 1 || stride >= node || node % stride != 0) return f;
  f.per_node = std::gcd(size, node / stride);  // the fewest of its GPUs a node holds
  f.nodes = (size + f.per_node - 1) / f.per_node;
  f.busbw_gbps = std::min(node_fabric.busbw_gbps,
                          f.per_node * s.network.gbps_per_gpu * pc::kNetworkEfficiency);
  return f;
}

// Bytes a data-parallel rank sends per step, ZeRO-3/FSDP: all-gather the `stored` parameters'
// weights as stored (16 bit; 4 bit under FSDP-QLoRA) for the forward and again for the backward,
// reduce-scatter the `trained` ones' gradients.
double zero3_bytes(const StepContext& s, double stored_params, double trained, double share) {
  const double weight_bytes = s.c.precision == "fp32" || s.c.precision == "tf32" ? 4 : 2;
  const double stored = s.frozen ? *bits_per_weight(s.c.weights) / 8 : weight_bytes;
  return (2 * stored_params * stored + trained * weight_bytes / s.accum) * share;
}

// Bytes a data-parallel rank sends per step, DDP and ZeRO-1/2: a ring all-reduce (or
// reduce-scatter + all-gather) of the `trained` parameters' gradients, fp32 under AMP. With
// accumulation only the last micro-batch's backward reduces (DDP no_sync).
double gradient_bytes(const StepContext& s, double trained, double share) {
  return 2 * trained * (s.c.pure_16bit ? 2 : 4) * share / s.accum;
}

// The data-parallel collectives of a step: the dense parameters' over the dp · cp GPUs that
// hold the same weights, and with expert parallelism the experts' over the dp · cp / ep GPUs
// that hold the same experts (Megatron-Core's expert-data-parallel group, ranks tp · ep apart;
// DeepSpeed-MoE, Rajbhandari et al. 2022 §4: expert parameters are reduced over the expert
// data-parallel group only). Each GPU holds 1/ep of the experts, so it sends their share of the
// bytes over its smaller ring.
struct DataParallel {
  double exposed_s = 0;
  double embeddings_s = 0;  // of exposed_s, the input embeddings' ring after the backward
  double copy_bytes = 0;    // DDP's bucket copies in GPU memory (ddp_copy_bytes), not in exposed_s
  int expert_ranks = 0;     // the experts' data-parallel GPUs (0: in the dense group, ep = 1)
  Fabric expert_fabric;
};

// Seconds of a ring over `ranks` GPUs that sends `bytes` per GPU (ring_s): bandwidth, and
// (ring_latency_s) 2 · (n − 1) steps of a hop's latency (reduce-scatter and all-gather). Across
// nodes, 2 · nodes of the steps cross the network and the rest stay on the node's link (NCCL's ring
// latency model, src/graph/tuning.cc: nInterSteps = 2 · nNodes of an all-reduce's 2 · (nRanks − 1),
// recalled).
double ring_latency_s(double ranks, const Fabric& f) {
  const double steps = 2.0 * (ranks - 1);
  if (f.nodes <= 1) return steps * f.latency_s;
  const double inter = std::min(steps, 2.0 * f.nodes);
  return inter * f.latency_s + (steps - inter) * pc::kIntraNodeLatencyS;
}

double ring_s(double bytes, double ranks, const Fabric& f) {
  return bytes / (f.busbw_gbps * 1e9) + ring_latency_s(ranks, f);
}

// Trained parameters whose gradients DDP reduces only once the backward pass has ended: the input
// embeddings of a layer-list network (NCF's tables, 99.7% of its parameters; GNMT's), whose layers
// come first in the forward and so last in the backward; their gradients are dense (nn.Embedding's
// default, sparse=False, as DeepLearningExamples' NCF trains). Under ZeRO-3 prefetching
// overlaps every collective with the step, and transformers keep the bucketed overlap their
// cluster fits were made with (validation/cluster.csv).
double tail_params(const StepContext& s) {
  if (s.c.zero >= 3 || s.w.transformer || s.frozen) return 0;
  return std::min(static_cast<double>(s.facts.params.embedding), s.trained);
}

// Exposed seconds of the data-parallel traffic of a step whose compute takes `compute_s`, the
// dense group on `f`: ZeRO-3 prefetching overlaps it with the whole step, DDP with the backward
// pass bucket by bucket (with micro-batches, the backward of the last, as Megatron-LM and DDP's
// no_sync reduce); the last bucket is never hidden.
DataParallel data_parallel(const StepContext& s, const Fabric& node, const Fabric& f,
                           double compute_s) {
  DataParallel out;
  out.copy_bytes = ddp_copy_bytes(s);
  const double ranks = static_cast<double>(s.dp) * s.cp;
  const bool zero3 = s.c.zero >= 3;
  // With ep 1 every GPU holds every expert: one group reduces them all.
  const double experts = s.ep > 1 ? expert_params(s) : 0;
  const double trained_experts = s.ep > 1 ? trained_expert_params(s) : 0;
  const auto traffic = [&](double stored, double trained, double share) {
    return zero3 ? zero3_bytes(s, stored, trained, share) : gradient_bytes(s, trained, share);
  };
  const double total = static_cast<double>(s.facts.params.total);
  const double share = (ranks - 1.0) / ranks / (s.tp * s.pp);
  const double tail = tail_params(s);
  double t_comm =
      ring_s(traffic(total - experts - tail, s.trained - trained_experts - tail, share), ranks, f);
  if (tail > 0) out.embeddings_s = ring_s(gradient_bytes(s, tail, share), ranks, f);
  if (s.ep > 1) {
    out.expert_ranks = s.dp * s.cp / s.ep;  // whole: resolve_parallel_layout
    const double e = out.expert_ranks;
    if (out.expert_ranks > 1) {
      out.expert_fabric = ring_fabric(s, node, s.tp * s.ep, out.expert_ranks);
      t_comm += ring_s(traffic(experts, trained_experts, (e - 1.0) / e / (s.tp * s.pp * s.ep)), e,
                       out.expert_fabric);
    }
  }
  // DDP hides the all-reduce behind the backward pass: 2 of a step's 3 forward-equivalents of
  // FLOPs (6N per token: 2N forward, 4N backward; Kaplan et al. 2020).
  const double hideable = zero3 ? compute_s : compute_s * 2.0 / 3.0 / s.micro_batches;
  const double last_bucket = std::min(pc::kDdpBucketBytes / (f.busbw_gbps * 1e9), t_comm);
  out.exposed_s =
      std::max(t_comm - pc::kBackwardOverlap * hideable, last_bucket) + out.embeddings_s;
  return out;
}

// Megatron tensor parallelism: two all-reduces (with sequence parallelism, all-gathers and
// reduce-scatters of the same volume) of each micro-batch's activations per layer forward, two
// backward, two more in a fully recomputed forward; seconds per step.
double tensor_parallel_s(const StepContext& s, const Fabric& f) {
  const TransformerConfig& t = *s.w.transformer;
  const double act = s.micro * s.seq / s.cp * t.hidden_size * s.beta;
  const double per = 2.0 * (s.tp - 1) / s.tp * act / (f.busbw_gbps * 1e9) + ring_latency_s(s.tp, f);
  const double passes = s.train ? 4 + (s.c.checkpointing ? 2 : 0) : 2;
  return per * passes * s.micro_batches * t.total_layers() / s.pp;
}

// Context parallelism (ring attention): each layer passes every GPU's keys and values around the
// ring of cp GPUs forward, and them with their gradients backward; counted as not overlapped.
double context_parallel_s(const StepContext& s, const Fabric& f) {
  const TransformerConfig& t = *s.w.transformer;
  const double kv = static_cast<double>(t.kv_heads()) * t.head_size();
  const double chunk = 2 * kv * s.micro * s.seq / s.cp * s.beta / s.tp;
  const double per = (s.cp - 1) * (chunk / (f.busbw_gbps * 1e9) + f.latency_s);
  return per * (s.train ? 3 : 1) * s.micro_batches * t.total_layers() / s.pp;
}

// Expert parallelism (DeepSpeed-MoE, Rajbhandari et al. 2022 §4; GShard, Lepikhin et al. 2020;
// Megatron-Core MoE's alltoall token dispatcher): each MoE layer's forward sends every token's
// hidden state to the GPUs of its top_k experts with one all-to-all and brings the experts'
// outputs back with another (kAllToAllsPerMoeLayer); the backward pass sends their gradients the
// same ways, and a fully recomputed forward dispatches again. In each, a GPU keeps 1/ep of its
// routed tokens and sends (ep − 1)/ep of tokens · top_k · h · β at the link's bus bandwidth
// (nccl-tests' all-to-all bus bandwidth is the algorithm bandwidth × (n − 1)/n), with ep − 1
// pairwise exchanges of latency each. Its tokens: a micro-batch's seq/cp of each sequence,
// split over the tensor-parallel GPUs by sequence parallelism (which Megatron-Core requires for
// MoE with TP; without it each rank is counted as sending all of them). Counted as not
// overlapped: neither Megatron-Core nor DeepSpeed-MoE overlaps the all-to-all with compute by
// default. Seconds per step.
double expert_parallel_s(const StepContext& s, const Fabric& f) {
  const TransformerConfig& t = *s.w.transformer;
  const double tokens = s.micro * s.seq / s.cp / (s.c.sequence_parallel ? s.tp : 1);
  const double bytes = (s.ep - 1.0) / s.ep * tokens * t.top_k() * t.hidden_size * s.beta;
  const double per = bytes / (f.busbw_gbps * 1e9) + (s.ep - 1) * f.latency_s;
  // Forward; training adds the backward (the transposed all-to-alls) and, under full recompute,
  // the forward again.
  const double passes = 1 + (s.train ? 1 + (s.c.checkpointing ? 1 : 0) : 0);
  return per * pc::kAllToAllsPerMoeLayer * passes * s.micro_batches * t.total_layers() / s.pp;
}

// Micro-batches a pipeline's replica runs per step: as given, or kMicroBatchesPerStage per stage.
double pipeline_micro_batches(const StepContext& s) {
  return s.micro_given ? s.micro_batches : s.pp * pc::kMicroBatchesPerStage;
}

// 1F1B pipeline bubble, interleaved over vp chunks a stage (Narayanan et al. 2021): the step
// takes 1 + (p - 1) / (v · m) of the ideal time.
double pipeline_bubble(const StepContext& s) {
  return 1 + (s.pp - 1) / (s.vp * pipeline_micro_batches(s));
}

// Pipeline point-to-point: each micro-batch's activations forward and their gradients back over
// each of a stage's vp chunk boundaries, each tensor-parallel rank sending its 1/tp slice
// (Megatron's scatter/gather, Narayanan et al. 2021 §4.1); on the critical path of 1F1B.
double pipeline_p2p_s(const StepContext& s, const Fabric& f) {
  const double m = pipeline_micro_batches(s);
  const double bytes = s.batch / m * s.seq / s.cp * s.w.transformer->hidden_size * s.beta / s.tp;
  return 2 * m * s.vp * (bytes / (f.busbw_gbps * 1e9) + f.latency_s);
}

// The communication of a step over several GPUs whose compute takes `compute_s`.
struct Communication {
  double exposed_s = 0;            // not overlapped with compute
  double pipeline_factor = 1;      // the compute time's stretch by the pipeline bubble
  std::string_view link_name;      // empty on one GPU
  std::vector<std::string> parts;  // each collective's exposed time and path (with detail)
  bool detail = true;

  // A ring whose GPUs share their nodes' ports says so: "over ib-hdr (...), the ring's 8 GPUs a
  // node share their ports: 180 GB/s".
  void add(std::string_view what, double seconds, const Fabric& f, std::string_view more = "") {
    exposed_s += seconds;
    if (!detail) return;
    const std::string shared =
        f.per_node > 1 ? fmt::format(", the ring's {} GPUs a node share their ports: {:.3g} GB/s",
                                     f.per_node, f.busbw_gbps)
                       : std::string();
    parts.push_back(
        fmt::format("{} {:.3g} s over {}{}{}", what, seconds, f.link_name, shared, more));
  }
};

// What --explain adds to the data-parallel time: where the experts' ring runs, and the input
// embeddings' share after the backward.
std::string data_parallel_detail(const DataParallel& d, const Fabric& f) {
  std::string out;
  if (d.expert_ranks > 1) {
    out = fmt::format(" (the experts' over {} GPUs{})", d.expert_ranks,
                      d.expert_fabric.link_name == f.link_name
                          ? std::string()
                          : fmt::format(", {}", d.expert_fabric.link_name));
  } else if (d.expert_ranks == 1) {
    out = " (the experts': none, each on one GPU)";
  }
  if (d.embeddings_s > 0) {
    out += fmt::format(" (of it {:.3g} s the input embeddings' gradients, after the backward)",
                       d.embeddings_s);
  }
  if (d.copy_bytes > 0) {
    out += fmt::format(
        " (and DDP copies {:.3g} GB of gradients into its buckets and back, in the "
        "elementwise time)",
        d.copy_bytes / 1e9);
  }
  return out;
}

Communication communication(const StepContext& s, double compute_s) {
  Communication out;
  out.detail = s.detail;
  if (s.c.gpus <= 1) return out;
  const Fabric node = node_link(s);
  out.link_name = node.link_name;
  if (s.train && s.dp * s.cp > 1) {
    const Fabric f = ring_fabric(s, node, s.tp, s.cp * s.dp);
    const DataParallel d = data_parallel(s, node, f, compute_s);
    out.add("data parallel", d.exposed_s, f, s.detail ? data_parallel_detail(d, f) : "");
  }
  if (s.tp > 1 && s.w.transformer) {
    const Fabric f = ring_fabric(s, node, 1, s.tp);
    out.add("tensor parallel", tensor_parallel_s(s, f), f);
  }
  if (s.cp > 1 && s.w.transformer) {
    const Fabric f = group_fabric(s, node, s.tp, s.cp);
    out.add("context parallel", context_parallel_s(s, f), f);
  }
  // The ep GPUs of an expert group are carved from the context- and data-parallel ranks
  // (resolve_parallel_layout), next to the tensor-parallel ones as Megatron-Core's expert ranks
  // are ordered (parallel_state: expert tensor parallel = tp, then ep): tp ranks apart.
  if (s.ep > 1 && s.w.transformer) {
    const Fabric f = group_fabric(s, node, s.tp, s.ep);
    out.add("expert parallel", expert_parallel_s(s, f), f);
  }
  if (s.pp > 1 && s.train) {
    out.pipeline_factor = pipeline_bubble(s);
    if (s.w.transformer) {
      const Fabric f = group_fabric(s, node, s.tp * s.cp * s.dp, s.pp);
      out.add("pipeline sends", pipeline_p2p_s(s, f), f);
    }
  }
  return out;
}

// Offload: the optimizer's gradients go to host memory and the updated 16-bit weights come
// back once per optimizer step (ZeRO-Offload); offloaded weights (ZeRO-3) cross PCIe for the
// forward and the backward of every step. Counted as not overlapped with compute; the CPU's
// optimizer arithmetic is not counted. Adds the term and a note to `p`; returns the seconds.
double add_offload_traffic(const StepContext& s, Prediction& p) {
  if (!s.train || std::string_view(s.c.offload) == "none") return 0;
  const double shard = zero_shard(s, 3), expert_shard = expert_zero_shard(s, 3);
  double bytes =
      2 * local_params(s, s.trained, trained_expert_params(s), shard, expert_shard) * 2 / s.accum;
  if (s.c.offload == "cpu" && s.c.zero >= 3) {
    const double stored = s.frozen ? *bits_per_weight(s.c.weights) / 8 : 2;
    bytes += 2 *
             local_params(s, static_cast<double>(s.facts.params.total), expert_params(s), shard,
                          expert_shard) *
             stored;
  }
  const double seconds = bytes / (pcie_of(s) * 1e9 * pc::kOffloadEfficiency);
  if (!s.detail) return seconds;
  p.terms.push_back({"offload_traffic", seconds, 0, bytes, "capacity"});
  p.add_note(
      fmt::format("{:.1f} GB per step over PCIe {}.0 x{} for the offload; the "
                  "optimizer step that the host's CPU runs is not counted",
                  bytes / 1e9, s.gpu.pcie_gen, s.gpu.pcie_lanes));
  return seconds;
}

// A run that does not fit in `capacity` GB with --offload cpu: what does not fit crosses PCIe
// each step (training: there and back; inference: once per forward or generated token). Adds the
// term and replaces the note of `p`; returns the seconds (0 when it fits).
double add_spill(const StepContext& s, double capacity, Prediction& p) {
  if (p.fits) return 0;
  const double total_gb = s.facts.memory.total_gb;
  const double excess = (total_gb - capacity) * 1e9;
  const double pcie = pcie_of(s) * pc::kOffloadEfficiency;
  const double offload = excess * (s.train ? 2 : 1) / (pcie * 1e9);
  if (!s.detail) return offload;
  p.terms.push_back({"offload", offload, 0, excess, "capacity"});
  p.note = fmt::format(
      "needs {:.1f} GB of {:.1f} GB: {:.1f} GB streamed from host memory over PCIe "
      "{}.0 x{} each step (--offload cpu)",
      total_gb, capacity, excess / 1e9, s.gpu.pcie_gen, s.gpu.pcie_lanes);
  return offload;
}

// Throughput in the workload's unit, over all data-parallel ranks, at `step` seconds a step.
void set_throughput(const StepContext& s, double step, Prediction& p) {
  const std::string_view unit = s.w.throughput_unit;
  const double units_per_sample =
      unit == "tokens" || unit == "mel-frames" || unit == "audio-samples" ? (s.decode ? 1.0 : s.seq)
                                                                          : 1.0;
  p.unit.assign(unit).append("/s");
  p.samples_per_step = s.batch * s.dp;
  p.throughput = p.samples_per_step * units_per_sample / step;
}

// What bounds the step: the largest of its compute-bound, memory-bound, kernel launch,
// communication and offload times.
const char* bound_of(const Timing& timing, double communication_s, double offload_s) {
  const std::pair<double, const char*> shares[] = {{timing.compute_bound, "compute"},
                                                   {timing.memory_bound, "memory"},
                                                   {timing.launch, "launch"},
                                                   {communication_s, "communication"},
                                                   {offload_s, "capacity"}};
  return std::max_element(std::begin(shares), std::end(shares))->second;
}

// Model FLOPs utilisation: the workload's FLOPs (6·N·tokens-style, no recomputation) over the
// peak of all GPUs in the step time.
double model_flops_utilisation(const StepContext& s, double step) {
  const FlopCounts& f = s.facts.flops;
  const double model_flops = s.decode ? f.decode_per_token : (s.train ? f.train : f.forward);
  return model_flops * s.dp / (step * s.rates.linear_tflops * 1e12 * s.c.gpus);
}

// What sets the speed of a training run's operators: its framework's level, or the workload's
// measured speed (docs/performance.md, "Frameworks"); said in every training prediction.
std::string speed_note(const StepContext& s, const ImplementationSpeed& speed,
                       const FrameworkCalibration& framework) {
  const std::string named = fmt::format("framework {}{}", framework.framework,
                                        default_framework_note(!s.c.framework.empty(), s.c.zero));
  // The speed a mature stack reaches; a maturity's factor is a note of its own (add_notes).
  const double mature = speed.maturity ? speed.speed / speed.maturity->factor : speed.speed;
  if (speed.source == kSpeedOfFramework) {
    return fmt::format(
        "operator times divided by {:.3g}, the level of {}: {} has no measured speed of its own",
        mature, named, s.w.id);
  }
  if (speed.measured_on.empty()) {  // a framework the run names does not move it
    return fmt::format(
        "operator times divided by {:.3g}, {}'s measured speed against the model{}", mature, s.w.id,
        s.c.framework.empty()
            ? ""
            : fmt::format(" (its rows name no framework, so the level of {} does not apply)",
                          named));
  }
  if (speed.measured_on == framework.framework) {
    return fmt::format(
        "operator times divided by {:.3g}, {}'s measured speed against the model, under "
        "framework {}{}",
        mature, s.w.id, framework.framework,
        s.c.framework.empty() ? " (its rows', the default for a measured workload)" : "");
  }
  return fmt::format(
      "operator times divided by {:.3g}: {}'s measured speed {:.3g} under {}, times the level "
      "of {} over {}'s",
      mature, s.w.id, speed.measured_speed, speed.measured_on, named, speed.measured_on);
}

// What a run in MXFP8 or NVFP4 assumed: Transformer Engine's recipe, the rate of its linear GEMMs,
// the layers kept in BF16, and that no measurement checks it.
std::string format_note(const StepContext& s) {
  const fp8_training::Format& f = *s.low;
  const double layers = s.w.transformer ? s.w.transformer->total_layers() : 0;
  const double bf16 = fp8_training::kept_in_bf16(f, layers);
  return fmt::format(
      "{}: Transformer Engine's {} recipe assumed, the linear layers' GEMMs at {}'s {} rate "
      "({} TFLOPS){}, attention and the LM head at BF16; no measured run in validation/ checks "
      "{} training",
      f.precision, f.recipe, s.gpu.id, f.rate == "fp4" ? "FP4" : "FP8",
      format_number(s.rates.linear_tflops),
      bf16 > 0 ? fmt::format(", {} of {} layers in BF16 as NVIDIA's NVFP4 recipe keeps them",
                             format_number(bf16), format_number(layers))
               : "",
      f.precision);
}

// What a "decomposed" framework's pointwise operators add to a step (StepOperators::decomposed,
// not empty), in its forward pass's bytes a token and layer.
std::string decomposed_note(const StepContext& s, const StepOperators& ops,
                            const FrameworkCalibration& framework) {
  std::vector<std::string> names = ops.decomposed_operators;
  const std::string last = names.back();
  names.pop_back();
  const Op& op = ops.decomposed.front();
  const double tokens = s.micro * s.seq / s.cp;
  return fmt::format(
      "framework {} runs {}{}{} as PyTorch ops: {:.0f} kB more a token and layer in the forward "
      "and {} more kernels a layer than fused ones (--compile fuses them)",
      framework.framework, join(names, ", "), names.empty() ? "" : " and ", last,
      op.bytes / tokens / 1e3, format_number(op.kernels));
}

// What the prediction assumed: the workload's measured speed or its framework's level, a
// borrowed calibration, a board power below the chip's, the GPU-to-GPU link, an inference split
// over pipeline stages.
void add_notes(const StepContext& s, const ImplementationSpeed& speed,
               const FrameworkCalibration& framework, const Communication& comm, Prediction& p) {
  if (s.train) {
    p.add_note(speed_note(s, speed, framework));
    if (speed.maturity) p.add_note(maturity_note(*speed.maturity, s.gpu.id));
  } else if (speed.speed != 1) {
    p.add_note(fmt::format(
        "operator times divided by {:.3g}, this workload's measured speed against the model",
        speed.speed));
  }
  if (!s.model->borrowed_from.empty()) {
    const std::string& from = s.model->borrowed_from;
    p.add_note(fmt::format(
        "no measured run covers {}'s architecture ({}): its GEMM efficiency "
        "is the median of the fitted architectures', its memory "
        "efficiency {}",
        s.gpu.id, s.model->key,
        from == kMeanOfFitted ? "their mean" : "the median of the fitted " + from + " ones'"));
  }

  if (s.rates.sustained < 1) {
    p.add_note(
        fmt::format("{} W holds {}'s chip below its rated clocks, which need {} W: it "
                    "runs at {:.0f}% of its rated speed",
                    format_number(s.gpu.board_power_w), s.gpu.id,
                    format_number(*s.gpu.full_clock_power_w), 100 * s.rates.sustained));
  }
  if (s.low && s.low->block_scaled) p.add_note(format_note(s));
  if (!comm.link_name.empty()) p.add_note(fmt::format("GPU-to-GPU: {}", comm.link_name));
  if (const std::string nodes = smaller_node_note(s.gpu, s.c); !nodes.empty()) p.add_note(nodes);
  if (!comm.parts.empty()) p.add_note("exposed: " + join(comm.parts, ", "));
  if (!s.train && s.pp > 1) {
    p.add_note(fmt::format(
        "layers split over {} GPUs: each runs in turn, so one stream is no faster", s.pp));
  }
}

// A training run that does not fit and is not offloaded: no throughput, bound "capacity", and
// what fits instead (the largest batch per GPU, else the changes that make batch 1 fit).
Result<Prediction> not_fitting(const Workload& w, const Gpu& gpu, const RunConfig& config,
                               Prediction p) {
  auto memory = estimate_memory(w, gpu, config);
  if (!memory) return memory.status();
  p.bound = "capacity";
  p.unit = w.throughput_unit + "/s";
  p.max_batch = memory->max_batch;
  if (p.max_batch < 1) p.fits_with = memory->suggestions;
  const std::string per_gpu = p.config.gpus > 1 ? " per GPU" : "";
  std::string instead =
      p.max_batch >= 1
          ? fmt::format("batch {}{} is the largest that fits (--batch {})", p.max_batch, per_gpu,
                        p.max_batch)
          : "not even batch 1 fits" +
                (p.fits_with.empty() ? "" : "; it would with " + join(p.fits_with, ", or "));
  p.note = fmt::format(
      "does not fit: needs {:.1f} GB{} of the {:.1f} GB of {}; {}; --offload cpu streams what does "
      "not fit from host memory over PCIe, slower",
      p.memory_gb, per_gpu, p.capacity_gb, gpu.id, instead);
  return p;
}

// The run as resolved, its memory warnings and its workload class's error band: the
// leave-one-architecture-out band when the GPU borrows another architecture's efficiencies.
void describe_run(const RunFacts& facts, const Calibration& calibration, bool borrowed,
                  Prediction& p) {
  p.config = facts.memory.config;
  p.warnings = facts.memory.warnings;
  p.workload_class = facts.workload_class;
  const auto& bands = borrowed && calibration.borrowed_error_band.count(p.workload_class)
                          ? calibration.borrowed_error_band
                          : calibration.error_band;
  p.error_band =
      bands.count(p.workload_class) ? bands.at(p.workload_class) : pc::kUnfittedErrorBand;
}

// `r`'s prediction, into `p`; or its error.
Status take(Result<Prediction> r, Prediction& p) {
  if (!r) return r.status();
  p = std::move(r).value();
  return {};
}

// The speed of the run's implementation against the operator model: a measured workload's
// fitted fraction of it, a training run of a workload never measured its framework's level;
// training, times the maturity of its stack on the GPU's calibration key where one is known.
ImplementationSpeed run_speed(const StepContext& s, const Calibration& calibration,
                              const WorkloadCalibration* measured,
                              const FrameworkCalibration& framework) {
  if (s.train) return implementation_speed(calibration, measured, framework, s.model->key);
  return {measured ? measured->efficiency : 1, measured ? kSpeedOfWorkload : ""};
}

// The time of a step whose operators run at `implementation` of the model's speed: compute,
// the pipeline bubble, exposed communication, offload traffic and spill, into `p` with the
// throughput, bound and MFU they give; the communication, which the notes describe.
Communication time_step(const StepContext& s, const StepOperators& ops, double implementation,
                        double capacity, Prediction& p) {
  const Timing timing = compute_timing(s, ops, implementation);
  double step = add_compute_terms(timing, s, p);
  Communication comm = communication(s, step);
  if (comm.pipeline_factor > 1) {
    const double bubble = step * (comm.pipeline_factor - 1);
    if (s.detail) p.terms.push_back({"pipeline_bubble", bubble, 0, 0, "pipeline"});
    step += bubble;
  }
  if (s.detail && s.c.gpus > 1)
    p.terms.push_back({"communication", comm.exposed_s, 0, 0, "communication"});
  step += comm.exposed_s;
  const double offload_traffic_s = add_offload_traffic(s, p);
  step += offload_traffic_s;
  const double spill_s = add_spill(s, capacity, p);
  step += spill_s;
  p.step_time_s = step;
  set_throughput(s, step, p);
  p.bound = bound_of(timing, comm.exposed_s, spill_s + offload_traffic_s);
  p.mfu = model_flops_utilisation(s, step);
  if (s.detail) {  // predict keeps it for a run under torch.compile or CUDA graphs alone
    CompileEffect& effect = p.compile.emplace();
    effect.fused = ops.fused;
    effect.kernels = timing.kernels;
    effect.launch_s = timing.launch;
    effect.elementwise_bytes = timing.elementwise_bytes;
  }
  return comm;
}

// predict with its facts made, into `p`; the terms, notes, warnings and resolved configuration
// only with `detail` (predict_speed ranks runs on the numbers alone).
Status predict_step(const Workload& w, const Gpu& gpu, const RunConfig& config,
                    const Calibration& calibration, const Catalog& catalog, const RunFacts& facts,
                    bool detail, OperatorTimes* times, Prediction& p) {
  if (Status s = check_link(config.link); !s.ok()) return s;
  if (Status s = check_compile_mode(facts.memory.config); !s.ok()) return s;
  if (facts.memory.config.mode == "train") {
    std::string refused = fp8_training::refusal(gpu, facts.memory.config.precision, catalog);
    if (!refused.empty()) return Status::invalid_input(std::move(refused));
  }
  const WorkloadCalibration* measured =
      times ? times->entries().measured_of(w, calibration) : measured_speed(calibration, w.id);
  auto framework =
      run_framework(calibration, facts.memory.config.framework, facts.memory.config.zero, measured);
  if (!framework) return framework.status();
  auto network = times && !detail ? times->entries().network_of(facts.memory.config, catalog)
                                  : network_for(facts.memory.config, catalog, detail);
  if (!network) return network.status();
  // An LLM served for inference: the engine's phases (inference_perf.cc).
  if (w.transformer && facts.memory.config.mode != "train")
    return take(predict_inference(w, gpu, calibration, catalog, facts), p);
  std::optional<GpuModel> own;  // without `times`: this prediction's alone
  GpuModel& model = times ? times->entries().model_of(gpu, calibration)
                          : own.emplace(gpu_model(gpu, calibration));
  StepContext s =
      step_context(w, gpu, config, model, catalog, facts, std::move(network).value(), detail);
  s.times = times;
  s.decomposed = (*framework)->pointwise == "decomposed";
  std::optional<StepOperators> made;  // facts made without their operators
  const StepOperators* ops = facts.operators.get();
  if (!ops) {
    auto m = step_operators(s);
    if (!m) return m.status();
    ops = &made.emplace(std::move(m).value());
  }
  if (detail) describe_run(facts, calibration, !model.borrowed_from.empty(), p);
  if (detail)
    p.config.framework = reported_framework(facts.memory.config.framework, measured, **framework);
  const double capacity = capacity_gb(gpu);  // the estimate may be for another GPU
  p.memory_gb = facts.memory.total_gb;
  p.capacity_gb = capacity;
  p.fits = facts.memory.total_gb <= capacity || s.c.known_to_fit;
  if (!p.fits && s.c.offload != "cpu") return take(not_fitting(w, gpu, config, std::move(p)), p);
  const ImplementationSpeed speed = run_speed(s, calibration, measured, **framework);
  if (detail) {
    p.implementation_speed = speed.speed;
    p.speed_source = std::string(speed.source);
    if (speed.maturity) p.maturity = *speed.maturity;
  }
  const Communication comm = time_step(s, *ops, speed.speed, capacity, p);
  if (detail) add_notes(s, speed, **framework, comm, p);
  if (detail && s.decomposed && !ops->decomposed.empty())
    p.add_note(decomposed_note(s, *ops, **framework));
  return {};
}

// A run under torch.compile or CUDA graphs: its CompileEffect completed with the same run's in
// PyTorch eager, and a note of the difference. `p` fits (it has a step time).
Status compare_with_eager(const Workload& w, const Gpu& gpu, const RunConfig& config,
                          const Calibration& calibration, const Catalog& catalog, Prediction& p) {
  RunConfig eager_config = config;
  eager_config.compile = eager_config.cuda_graphs = false;
  auto facts = run_facts(w, gpu, eager_config);
  if (!facts) return facts.status();
  Prediction eager;
  Status s = predict_step(w, gpu, eager_config, calibration, catalog, *facts, /*detail=*/true,
                          nullptr, eager);
  if (!s.ok()) return s;
  if (!eager.compile) return {};  // the same memory: it fits as `p` does
  CompileEffect& effect = *p.compile;
  effect.eager_kernels = eager.compile->kernels;
  effect.eager_launch_s = eager.compile->launch_s;
  effect.eager_elementwise_bytes = eager.compile->elementwise_bytes;
  effect.eager_step_time_s = eager.step_time_s;
  p.add_note(fmt::format("{}: {:.3g}× the eager step's speed ({} kernels a step for {})",
                         compiled_with(config), eager.step_time_s / p.step_time_s,
                         format_number(std::round(effect.kernels)),
                         format_number(std::round(effect.eager_kernels))));
  return {};
}

}  // namespace

void Prediction::add_note(std::string_view clause) {
  if (!note.empty()) note += "; ";
  note += clause;
}

std::string compiled_with(const RunConfig& run) {
  std::vector<std::string> how;
  if (run.compile) how.emplace_back("torch.compile");
  if (run.cuda_graphs) how.emplace_back("CUDA graphs");
  return join(how, " and ");
}

Status check_compile_mode(const RunConfig& run) {
  if (!(run.compile || run.cuda_graphs) || run.mode == "train") return {};
  return Status::invalid_input(
      "--compile and --cuda-graphs model a training step in PyTorch; an inference run's "
      "speed is its engine's (--engine, docs/inference.md)");
}

Result<Prediction> predict(const Workload& w, const Gpu& gpu, const RunConfig& config,
                           const Calibration& calibration, const Catalog& catalog,
                           const RunFacts& facts) {
  Prediction p;
  Status s = predict_step(w, gpu, config, calibration, catalog, facts, /*detail=*/true, nullptr, p);
  if (!s.ok()) return s;
  const bool compiled = config.compile || config.cuda_graphs;
  if (!compiled || !p.compile) {
    p.compile.reset();
    return p;
  }
  s = compare_with_eager(w, gpu, config, calibration, catalog, p);
  if (!s.ok()) return s;
  return p;
}

Result<RunSpeed> predict_speed(const Workload& w, const Gpu& gpu, const RunConfig& config,
                               const Calibration& calibration, const Catalog& catalog,
                               const RunFacts& facts, OperatorTimes* times) {
  std::optional<Prediction> own;
  Prediction& p = times ? times->entries().speed : own.emplace();
  // What a step that does not fit, or an inference run, may leave unwritten.
  p.throughput = p.step_time_s = 0;
  p.serving.reset();
  Status s = predict_step(w, gpu, config, calibration, catalog, facts, /*detail=*/false, times, p);
  if (!s.ok()) return s;
  return RunSpeed{p.fits, p.throughput, p.unit, p.serving, p.step_time_s, p.samples_per_step};
}

}  // namespace rigplan
