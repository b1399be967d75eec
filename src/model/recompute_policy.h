// The activation-recompute policies a training run may name (`--recompute`, the `recompute`
// column; docs/scaleout.md, "Recompute"): the memory and performance models' one definition of
// what each keeps and what each runs again.
//
// - `none`: every layer keeps what its backward needs.
// - `selective`: Megatron-LM's selective recompute (Korthikanti et al. 2022 §5): the attention
//   core (scores, softmax, context) runs forward once more; with FlashAttention nothing else.
// - `selective-op`: torchtitan's per-op selective activation checkpointing ("selective op", the
//   default of its Llama configs, `selective_ac_option = "op"`), a policy of PyTorch's
//   create_selective_checkpoint_contexts around each transformer block. Its save list holds
//   aten.mm, the SDPA flash and efficient attention kernels, reduce_scatter_tensor and max, and it
//   "saves every other mm": of a block's matmuls, counted in the order its forward calls them,
//   the 1st, 3rd, 5th, ... keep their outputs and the others are recomputed, as is every op off
//   the list (the norms, rotary embedding, SiLU, the gate's product, residual adds). The block's
//   input is what the checkpoint itself keeps. (torchtitan torchtitan/models/llama/
//   parallelize_llama.py, `_save_list` and `_custom_policy`, 2024; recalled, not quoted in
//   shared/reference.) A Llama block calls wq, wk, wv, wo, w1 (gate), w3 (up), w2 (down), the
//   order of layer_linears, so q, v, gate and down keep their outputs, and k, o and up run again.
// - `full`: every layer's forward runs once more from its checkpointed input.
#pragma once

#include <cstddef>
#include <string_view>

namespace rigplan {
namespace recompute_policy {

constexpr std::string_view kNone = "none";
constexpr std::string_view kSelective = "selective";
constexpr std::string_view kSelectiveOp = "selective-op";
constexpr std::string_view kFull = "full";
// The values `--recompute` and the `recompute` column accept, in the order of the work they add.
constexpr std::string_view kPolicies[] = {kNone, kSelective, kSelectiveOp, kFull};
// The stack whose policy kSelectiveOp is: a layout search tries it under a framework that
// covers this stack ([[framework]] `covers` in data/calibration/perf.toml).
constexpr std::string_view kSelectiveOpStack = "torchtitan";

// torchtitan's policy saves one matmul output in this many ("only saves every other mm";
// parallelize_llama.py, recalled).
constexpr std::size_t kOpSacMmPeriod = 2;

// Under `selective-op`, whether the policy keeps the output of a transformer layer's linear
// `index` (0-based, in the order the forward calls them: layer_linears): the 1st, 3rd, ... are
// kept, the others recomputed.
constexpr bool op_sac_saves_linear(std::size_t index) { return index % kOpSacMmPeriod == 0; }

}  // namespace recompute_policy
}  // namespace rigplan
