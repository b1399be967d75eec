// Named constants of the performance model, each with its source (docs/performance.md).
#pragma once

#include <string_view>

namespace rigplan::perf_constants {

// GEMM tiles: cuBLAS/CUTLASS tensor-core kernels compute 128×128 output tiles per SM
// (CUTLASS default threadblock shape); a GEMM with fewer tiles than SMs leaves SMs idle.
constexpr double kTile = 128;
// Below this inner dimension a GEMM cannot fill the tensor-core pipeline (one k-tile of 64 for
// 16-bit MMA, CUTLASS default); efficiency falls in proportion.
constexpr double kFullK = 64;
// Fraction of the GEMM efficiency that attention kernels reach, in training and inference alike:
// FlashAttention-2 runs at 50-73% of peak on A100 where large GEMMs reach 80-87% (Dao 2023,
// figure 4; MAMF table).
constexpr double kAttentionVsGemm = 0.75;
// Vector (non-tensor) arithmetic of elementwise kernels reaches at most this fraction of FP32
// peak: Calculon's vector efficiency for 1-16 GFLOP ops (models.md section 2.2). Elementwise
// kernels are memory-bound in practice, so the bound only matters for the few that are not.
constexpr double kVectorEfficiency = 0.5;
// Error band of a prediction whose workload class has no fitted band: 0.25, between the fitted
// bands of data/calibration/perf.toml (transformer 0.238, recsys 0.286) and above inference's
// 0.154 (data/calibration/inference.toml).
constexpr double kUnfittedErrorBand = 0.25;
// Launch and synchronisation cost per kernel in PyTorch eager mode: 3-10 µs (PyTorch
// performance tuning guide; Calculon uses 5 µs per op). rigplan takes the middle.
constexpr double kKernelOverheadS = 5e-6;
// The same per kernel replayed from a CUDA graph (--cuda-graphs; torch.compile
// mode="reduce-overhead"): no host launch, only the GPU's own gap between a graph's kernels,
// about 0.5 µs (NVIDIA's "Getting Started with CUDA Graphs", 2019: 20 short kernels took 3.4 µs
// each from a graph against 3.8 µs launched one by one from a stream, of which 2.9 µs ran;
// recalled, not quoted in shared/reference).
constexpr double kGraphKernelOverheadS = 0.5e-6;
// Values an LSTM's fused cell update moves per hidden unit per step (cuDNN's elementwise kernel
// between the recurrent GEMMs), counted: the forward reads the step's input-projection gates (4)
// and the recurrent GEMM's gates (4) and the cell state (1), writes the hidden and cell state (2)
// and keeps the four activated gates for the backward (4): 15. The backward reads the hidden
// state's gradient from the next step and from the layer above (2), the cell state's gradient
// (1), the kept gates (4) and the cell states (2), and writes the gates' gradient (4) and the
// cell state's (1): 14.
constexpr double kLstmCellForwardValues = 15;
constexpr double kLstmCellBackwardValues = 14;

// Bytes moved per trained parameter by the optimizer step (read and write of weights, gradients
// and states), derived by counting: AdamW with fp32 master weights and states 4+4+4+4 read, 4+4+4
// written, + 2 B half copy = 30; all-16-bit 15; SGD with momentum 20; plain SGD 12 (fused
// multi-tensor kernels).
constexpr double kAdamMixedBytes = 30;
constexpr double kAdamPure16Bytes = 15;
constexpr double kSgdMomentumBytes = 20;
constexpr double kSgdBytes = 12;

// Collective bandwidth as a fraction of the per-direction link rate that NCCL achieves on large
// messages: NVLink/NVSwitch 0.77 (A100 ~230 of 300 GB/s, nccl-tests #149), PCIe with
// peer-to-peer 0.7, PCIe staged through the host (GeForce: no P2P) 0.45 (8× RTX 5090 all-reduce
// 28 of 63 GB/s, NVIDIA/nccl #1639), InfiniBand 0.9 (Calculon; nccl-tests #175).
constexpr double kNvlinkEfficiency = 0.77;
constexpr double kPcieP2pEfficiency = 0.7;
constexpr double kPcieHostEfficiency = 0.45;
constexpr double kNetworkEfficiency = 0.9;
// Per-hop latency of a collective step: 8-10 µs within a node, 20 µs across (llm-analysis,
// Calculon).
constexpr double kIntraNodeLatencyS = 10e-6;
constexpr double kInterNodeLatencyS = 20e-6;
// GPUs per node of an HGX/DGX server: the baseboard's 8 SXM sockets (data/catalog/boards.toml,
// sxm_sockets = 8; systems.toml rack-8gpu and hgx-8gpu); beyond it traffic crosses the network.
// A GPU sold in a larger NVLink domain says so in the catalog (nvlink_domain_gpus: GB200 NVL72).
constexpr int kGpusPerNode = 8;
// GPUs an NVLink hybrid cube-mesh joins: the 8 SXM2 V100s of a DGX-1/HGX-1 board, each with 6
// NVLink 2.0 links to 4 of its 7 peers (data/catalog/gpus_datacenter.toml v100-sxm2-16gb notes).
// NCCL lays its rings over all 6 links of every GPU, so a ring over the whole mesh runs at the
// GPU's whole NVLink rate (recalled: NVIDIA's "DGX-1 with Tesla V100 System Architecture" white
// paper, 2017). A ring over 2 or 4 of the mesh's GPUs has fewer direct links; which GPUs an
// instance gets is not known, and the same rate is taken.
constexpr int kCubeMeshGpus = 8;
// The network between nodes when a run names none: one HDR InfiniBand port per GPU, the catalog's
// ib-hdr (the DGX A100 reference architecture: 8 ConnectX-6 HDR compute ports per node;
// llm-foundry's clusters: 1600 Gbit/s RoCE per 8-GPU node). kNetworkGbpsPerGpu is its rate,
// for catalogs without it.
constexpr std::string_view kDefaultFabric = "ib-hdr";
constexpr double kNetworkGbpsPerGpu = 25;
// Share of the backward pass that hides gradient all-reduce: DDP overlaps buckets with the
// remaining backward (PyTorch DDP paper, Li et al. 2020); the last bucket stays exposed.
constexpr double kBackwardOverlap = 0.9;
// DDP's gradient bucket: bucket_cap_mb = 25 by default (PyTorch DistributedDataParallel docs).
constexpr double kDdpBucketBytes = 25e6;
// Passes over each gradient that PyTorch DDP's bucket copies make in GPU memory, counted
// (torch/csrc/distributed/c10d/reducer.cpp, gradient_as_bucket_view=False, the default): the
// gradient is read and written into its bucket, divided by the world size on the way
// (mark_variable_ready_dense: at::mul_out(bucket_view, grad, 1 / world_size)), and after the
// all-reduce the bucket is read and written back into the gradient (finalize_backward:
// copy_bucket_to_grad). 2 reads + 2 writes.
constexpr double kDdpBucketCopyPasses = 4;
// All-to-alls of one MoE layer's forward under expert parallelism: one dispatches each token's
// hidden state to its top-k experts' GPUs, one combines their outputs back (GShard, Lepikhin et
// al. 2020 §2.2; DeepSpeed-MoE, Rajbhandari et al. 2022 §4; Megatron-Core MoE's alltoall
// dispatcher: token_permutation and token_unpermutation).
constexpr double kAllToAllsPerMoeLayer = 2;
// Pipeline micro-batches per step when not given: 4 per stage, an assumption of rigplan (a common
// 1F1B setting; the bubble is (stages - 1) / (micro-batches + stages - 1), Narayanan et al. 2021).
constexpr int kMicroBatchesPerStage = 4;
// Host memory streamed to the GPU when a model is offloaded: PCIe at this efficiency, the low end
// of usable DMA throughput, 80-90% of the encoded link rate (docs/reference/hardware.md section 5;
// data/catalog/interconnects.toml notes; recall).
constexpr double kOffloadEfficiency = 0.8;

// The input pipeline (input_pipeline.cc): the cores a machine keeps for its training processes,
// which the data loader cannot use. PyTorch DDP and NVIDIA's DeepLearningExamples run one Python
// process per GPU whose main thread launches the kernels and keeps one core busy (PyTorch DDP
// documentation; d2l "Selecting Servers and GPUs": Python is single-threaded, so a fast core per
// GPU matters).
constexpr int kTrainingCoresPerGpu = 1;

}  // namespace rigplan::perf_constants
