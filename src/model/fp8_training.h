// FP8 training as the frameworks run it (docs/performance.md, "FP8 training"), and Blackwell's
// block-scaled MXFP8 and NVFP4 recipes built on it ("MXFP8 and NVFP4 training"): the performance
// and memory models' and their tests' one definition of what a linear layer in one of these
// formats costs beyond its GEMMs (Format).
//
// Only the linear layers' GEMMs run in FP8: Transformer Engine replaces nn.Linear (te.Linear,
// LayerNormLinear, LayerNormMLP) and torchao's convert_to_float8_training swaps nn.Linear for
// Float8Linear; attention (FlashAttention), norms, softmax, the loss and, by torchtitan's default
// filter of the `output` module, the LM head stay BF16 (TE and torchao documentation, torchtitan
// docs/float8.md; recalled, not quoted in shared/reference). Forward operands are E4M3 and
// gradients E5M2 in TE's HYBRID recipe (Micikevicius et al. 2022, "FP8 Formats for Deep
// Learning", §3), each tensor scaled by its own factor from its absolute maximum (§4.3).
#pragma once

#include <cmath>
#include <string>
#include <string_view>

namespace rigplan {

struct Gpu;
class Catalog;

namespace fp8_training {

// Bytes of one element of a BF16 tensor, as the cast reads it (the format's 16 bits, by
// definition: Kalamkar et al. 2019).
constexpr double kBf16Bytes = 2;
// Bytes of one FP8 element (E4M3 or E5M2), as the cast writes it and the GEMM reads it
// (Micikevicius et al. 2022, §3: 8-bit formats).
constexpr double kFp8Bytes = 1;
// Passes over a BF16 tensor to cast it with dynamic (current) scaling: one reduction for its
// absolute maximum, one to scale and cast (torchao float8 "dynamic" tensorwise scaling, the
// scaling torchtitan runs; Micikevicius et al. 2022 §4.3). TE's delayed scaling takes the amax
// from earlier steps and reads once (recalled); rigplan costs the dynamic recipe.
constexpr double kCastReads = 2;
// FP8 copies each cast tensor is written in: row- and column-major. Hopper's FP8 tensor-core
// GEMMs take only the "TN" operand layout (cuBLASLt FP8 documentation; recalled), and each of the
// input, the weight and the output gradient is an operand of two of a linear layer's three GEMMs
// in different orientations (Y = X·Wᵀ, dX = dY·W, dW = dYᵀ·X), so each is written twice (TE's
// fused cast_transpose writes both in one pass; recalled).
constexpr double kCastLayouts = 2;
// Kernels per cast tensor: the amax reduction and the scaled cast, as dynamic scaling runs them
// (torchao float8 documentation; recalled).
constexpr double kCastKernels = 2;

// Bytes one cast moves per element: the BF16 reads and the FP8 copies written (6 B).
constexpr double kCastBytesPerElement = kCastReads * kBf16Bytes + kCastLayouts * kFp8Bytes;

// Blackwell's block-scaled recipes (Transformer Engine 2.x; docs/performance.md, "FP8 training").
// MXFP8 (MXFP8BlockScaling): E4M3 elements, one E8M0 scale of 1 B per 32 consecutive elements
// along K (OCP Microscaling Formats (MX) Specification v1.0, §5.2, MXFP8: block size 32, E8M0
// scale; recalled). Its scales run along the GEMM's inner dimension, so each tensor that is an
// operand of two GEMMs reducing over different dimensions is quantized twice, row- and
// column-wise (kCastLayouts copies, each with its scales; TE's MXFP8Quantizer rowwise and
// columnwise usage; recalled).
constexpr double kMxBlock = 32;
constexpr double kE8m0Bytes = 1;
// A block's scale is the block's own amax, found where the block is cast: one read of the BF16
// tensor, one fused kernel writing both copies (TE's MXFP8 cast kernel; recalled), where FP8's
// per-tensor dynamic scaling reads twice (kCastReads).
constexpr double kMxfp8CastReads = 1;
constexpr double kMxfp8CastKernels = 1;
// NVFP4 (NVFP4BlockScaling): E2M1 elements (4 bits), one E4M3 scale of 1 B per 16 elements and
// an FP32 scale per tensor (NVIDIA, "Pretraining Large Language Models with NVFP4", 2025, §2 and
// §4; TE documentation of NVFP4BlockScaling; recalled). The per-tensor scale needs the tensor's
// amax first: two reads, as kCastReads. Weights are scaled in 2D blocks of 16×16 (§4), so a
// weight and its transpose share their scales, 1 B per 256 elements. The FP32 scale, 4 B a
// tensor, is not counted.
constexpr double kFp4Bytes = 0.5;
constexpr double kNvfp4Block = 16;
constexpr double kNvfp4WeightBlock = 16 * 16;
constexpr double kE4m3Bytes = 1;
// Random Hadamard transforms (16×16) on the inputs of the weight-gradient GEMM, the input and
// the output gradient (§4): the transformed tensor's amax is one more read of the BF16 tensor
// and one more kernel (TE's hadamard-transform amax kernel; recalled). Its 32 FLOPs an element
// run far below the tensor rate and are not counted; nor is the stochastic rounding of the
// gradients (§4), which draws its random bits in registers and moves no bytes.
constexpr double kHadamardReads = 1;
constexpr double kHadamardKernels = 1;
// The layers NVIDIA's NVFP4 pretraining recipe keeps in BF16: the first two and the last eight
// blocks of its 12B model of 62 blocks, about 16% of the linear layers (NVIDIA 2025, §4;
// recalled). rigplan keeps the same share of any transformer's layers, rounded to whole layers
// (kept_in_bf16); Transformer Engine itself keeps none, so a run without them is faster.
constexpr double kNvfp4Bf16Layers = 2 + 8;
constexpr double kNvfp4RecipeLayers = 62;

// A precision that trains a transformer's linear layers below 16 bit, as Transformer Engine's
// recipe for it runs them: its GEMM rate, element and scale bytes, and what its casts read.
struct Format {
  std::string_view precision;  // --precision: fp8, mxfp8, nvfp4
  std::string_view recipe;  // Transformer Engine's recipe class (transformer_engine.common.recipe)
  std::string_view rate;    // the catalog rate of its GEMMs: fp8 (fp8_tflops), fp4 (fp4_tflops)
  bool block_scaled = false;  // needs Blackwell's block-scaled tensor cores
  double element_bytes = 0;
  double scale_bytes = 0;                           // per element of an input or output gradient
  double weight_scale_bytes = 0;                    // per element of a weight
  double cast_reads = 0, cast_kernels = 0;          // per tensor cast
  double hadamard_reads = 0, hadamard_kernels = 0;  // per weight-gradient input
  double bf16_layer_share = 0;  // of the transformer's layers, kept in BF16 (kNvfp4Bf16Layers)

  // Bytes of one element of an input or output gradient as cast and saved, with its scale.
  double bytes() const { return element_bytes + scale_bytes; }
  double weight_bytes() const { return element_bytes + weight_scale_bytes; }
  // Bytes one cast moves per element: the BF16 reads and the copies written; an input's and an
  // output gradient's with the Hadamard transform's read.
  double activation_cast_bytes() const {
    return (cast_reads + hadamard_reads) * kBf16Bytes + kCastLayouts * bytes();
  }
  double weight_cast_bytes() const {
    return cast_reads * kBf16Bytes + kCastLayouts * weight_bytes();
  }
};

inline constexpr Format kFp8{.precision = "fp8",
                             .recipe = "Float8CurrentScaling",
                             .rate = "fp8",
                             .element_bytes = kFp8Bytes,
                             .cast_reads = kCastReads,
                             .cast_kernels = kCastKernels};
inline constexpr Format kMxfp8{.precision = "mxfp8",
                               .recipe = "MXFP8BlockScaling",
                               .rate = "fp8",
                               .block_scaled = true,
                               .element_bytes = kFp8Bytes,
                               .scale_bytes = kE8m0Bytes / kMxBlock,
                               .weight_scale_bytes = kE8m0Bytes / kMxBlock,
                               .cast_reads = kMxfp8CastReads,
                               .cast_kernels = kMxfp8CastKernels};
inline constexpr Format kNvfp4{.precision = "nvfp4",
                               .recipe = "NVFP4BlockScaling",
                               .rate = "fp4",
                               .block_scaled = true,
                               .element_bytes = kFp4Bytes,
                               .scale_bytes = kE4m3Bytes / kNvfp4Block,
                               .weight_scale_bytes = kE4m3Bytes / kNvfp4WeightBlock,
                               .cast_reads = kCastReads,
                               .cast_kernels = kCastKernels,
                               .hadamard_reads = kHadamardReads,
                               .hadamard_kernels = kHadamardKernels,
                               .bf16_layer_share = kNvfp4Bf16Layers / kNvfp4RecipeLayers};
inline constexpr const Format* kFormats[] = {&kFp8, &kMxfp8, &kNvfp4};

// The format a training run of `precision` casts its linear layers to; nullptr for 16 and 32 bit.
inline const Format* training_format(std::string_view precision) {
  for (const Format* f : kFormats) {
    if (f->precision == precision) return f;
  }
  return nullptr;
}

// The compute capability from which Transformer Engine runs its block-scaled recipes, MXFP8 and
// NVFP4: Blackwell's tensor cores, which scale blocks in hardware (TE's check_mxfp8_support and
// check_nvfp4_support, "compute capability 10.0 or higher"; recalled).
constexpr double kBlockScaledComputeCapability = 10.0;

// Whether `gpu` runs format `f`'s GEMMs at its rate: the catalog's rate of the format
// (fp8_tflops, fp4_tflops), and for a block-scaled format an NVIDIA GPU of
// kBlockScaledComputeCapability. FP8 training needs FP8 tensor cores: Transformer Engine and
// torchao's float8 run it from compute capability 8.9, Ada and Hopper (their support checks;
// recalled), and ROCm's Transformer Engine on CDNA 3 — the GPUs whose catalog entry has an FP8
// rate. Defined in perf.cc.
bool runs_on(const Gpu& gpu, const Format& f);
// What format `f` needs of a GPU, as refusals and warnings say it.
std::string hardware_needed(const Format& f);
// Why a training run of `precision` does not run on `gpu`, naming the GPUs of `catalog` that run
// it and what runs on `gpu` instead; "" when it runs.
std::string refusal(const Gpu& gpu, std::string_view precision, const Catalog& catalog);

// Of a transformer's `layers`, those the format keeps in BF16: its share, rounded to whole layers.
inline double kept_in_bf16(const Format& f, double layers) {
  return std::round(f.bf16_layer_share * layers);
}

// The bytes of the casts of one FP8 linear layer's GEMM of m×k by k×n (tokens m, inputs k,
// outputs n): forward, its input (m×k) and its weight (k×n); backward, its output gradient (m×n).
struct Fp8CastBytes {
  double forward = 0;
  double backward = 0;
};
// The same from the elements of the GEMM's operands (m·k + k·n), of its weight (k·n) and of its
// output (m·n), in format `f`: the weight's elements cost what the input's do, less the
// difference of their scales and of the Hadamard transform, which only the input takes.
inline Fp8CastBytes cast_bytes_of(const Format& f, double operand_elements, double weight_elements,
                                  double output_elements) {
  const double activation = f.activation_cast_bytes();
  return {operand_elements * activation + weight_elements * (f.weight_cast_bytes() - activation),
          output_elements * activation};
}
inline Fp8CastBytes fp8_cast_bytes(double m, double n, double k, const Format& f = kFp8) {
  return cast_bytes_of(f, m * k + k * n, k * n, m * n);
}

}  // namespace fp8_training
}  // namespace rigplan
