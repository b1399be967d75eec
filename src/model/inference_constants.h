// Named constants of the inference model, each with its source (docs/inference.md). Facts about
// engines and formats are data (data/engines/engines.toml); these are properties of the
// hardware and of the kernels every engine shares.
#pragma once

#include "model/perf_constants.h"

namespace rigplan::inference_constants {

// Latency of one small all-reduce among the GPUs of a replica, per link kind: the one-shot
// custom all-reduce kernels that vLLM, SGLang and TensorRT-LLM use for decode-sized messages take
// 5-10 µs over NVLink/NVSwitch (vLLM custom_all_reduce PR #2192; TensorRT-LLM allreduce
// plugin docs); NCCL's ring over PCIe peer-to-peer about 20-30 µs, staged through host memory
// (GeForce cards, no P2P) 50-100 µs (nccl-tests latency columns, recalled); across nodes over
// InfiniBand about 30 µs.
constexpr double kAllReduceNvlinkS = 8e-6;
constexpr double kAllReducePcieS = 25e-6;
constexpr double kAllReduceHostS = 70e-6;
constexpr double kAllReduceNetworkS = 30e-6;
// Handing a micro-batch's activations to the next pipeline stage: one point-to-point send, the
// per-hop latency of a collective step within a node (perf_constants.h kIntraNodeLatencyS:
// llm-analysis, Calculon).
constexpr double kStageHandoffS = perf_constants::kIntraNodeLatencyS;

// INT8 on GPUs without INT8 tensor cores: NVIDIA Pascal GP10x (compute capability 6.1) runs four
// 8-bit multiply-adds per FP32 lane with dp4a (NVIDIA Pascal GP104 whitepaper); llama.cpp's MMQ
// kernels use it for quantized weights.
constexpr double kDp4aPerFp32 = 4;
constexpr double kDp4aComputeCapability = 6.1;

// llama.cpp's MMQ kernels choose their column tile (tokens per tile) in steps of 8 up to the
// 128 of perf_constants.h kTile on GPUs with tensor-core MMA (ggml-cuda/mmq.cuh,
// mul_mat_q_case and get_mmq_x_max_host).
constexpr double kMmqColumnStep = 8;

// Elements read and written per token per layer by the norms, residual adds, rotary embedding and
// activation function, in units of the hidden size and of the (per-GPU) MLP width:
// derived by counting: 2 norms × 2 + 2 residual adds × 3 + rotary on q and k ≈ 12 d, and the
// gated activation's three tensors of F.
constexpr double kElementwiseHidden = 12;
constexpr double kElementwiseFfn = 3;

// Requests arriving at a fixed rate wait for a slot and for the chunks ahead of them: a queue
// with deterministic service (M/D/1) waits ρ/(2(1-ρ)) service times on average (Kleinrock,
// Queueing Systems vol. 1, Pollaczek-Khinchine formula); above this utilisation rigplan reports
// the setup as saturated rather than a latency that depends on how long the run lasts.
constexpr double kMaxUtilisation = 0.98;

}  // namespace rigplan::inference_constants
