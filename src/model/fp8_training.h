// FP8 training as the frameworks run it (docs/performance.md, "FP8 training"): the performance
// model's and its tests' one definition of what an FP8 linear layer costs beyond its GEMMs.
//
// Only the linear layers' GEMMs run in FP8: Transformer Engine replaces nn.Linear (te.Linear,
// LayerNormLinear, LayerNormMLP) and torchao's convert_to_float8_training swaps nn.Linear for
// Float8Linear; attention (FlashAttention), norms, softmax, the loss and, by torchtitan's default
// filter of the `output` module, the LM head stay BF16 (TE and torchao documentation, torchtitan
// docs/float8.md; recalled, not quoted in shared/reference). Forward operands are E4M3 and
// gradients E5M2 in TE's HYBRID recipe (Micikevicius et al. 2022, "FP8 Formats for Deep
// Learning", §3), each tensor scaled by its own factor from its absolute maximum (§4.3).
#pragma once

namespace rigplan {
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

// The bytes of the casts of one FP8 linear layer's GEMM of m×k by k×n (tokens m, inputs k,
// outputs n): forward, its input (m×k) and its weight (k×n); backward, its output gradient (m×n).
struct Fp8CastBytes {
  double forward = 0;
  double backward = 0;
};
// The same from the elements of the GEMM's operands (m·k + k·n) and of its output (m·n).
inline Fp8CastBytes fp8_cast_bytes_of(double operand_elements, double output_elements) {
  return {operand_elements * kCastBytesPerElement, output_elements * kCastBytesPerElement};
}
inline Fp8CastBytes fp8_cast_bytes(double m, double n, double k) {
  return fp8_cast_bytes_of(m * k + k * n, m * n);
}

}  // namespace fp8_training
}  // namespace rigplan
