// A mixture of experts' MLP in an inference step (docs/inference.md, "Speed, per phase"): the
// experts a step's tokens pick, and the one grouped GEMM per projection that the engines' fused
// MoE kernels run over them, or the per-expert GEMMs of an engine that loops over the experts.
// inference_perf.cc times it; the training model's grouped GEMM is perf.cc's `gemm(..., group)`,
// with the same wave arithmetic (model/gemm_waves.h).
#pragma once

namespace rigplan {

// Distinct experts that `tokens` tokens hit when each picks `top_k` of `experts` under uniform
// routing (every expert equally likely, which load-balanced routers aim for):
// E·(1 - (1 - k/E)^tokens), the expectation over the experts of the chance that one is picked
// at least once. One token reads top_k experts; many tokens read nearly all of them.
double experts_touched(double tokens, double experts, double top_k);

// One projection (gate, up or down) of a MoE layer on one GPU, for a step of `tokens` tokens: an
// output width `n` and inner dimension `k` per expert. vLLM's and SGLang's fused_moe,
// TensorRT-LLM's MoE plugin and llama.cpp's mul_mat_id run all the experts the tokens pick in
// one kernel: its output tiles (each expert's rows in tiles of their own) share the SMs' waves,
// and each touched expert's weights are read once. Rows are spread evenly over the touched
// experts (uniform routing; a real step's imbalance adds tiles, not FLOPs). Each expert's rows
// run in ⌈rows/128⌉ tiles fitted to them (gemm_fitted_tile_rows: kernels that pick a tile per
// token count, Engine::moe_tile "expert"), or with `row_tile` > 0 in whole tiles of that many
// rows, chosen for the step rather than for the expert (llama.cpp's MMQ, Engine::moe_tile
// "step"): the padding's work is done and thrown away, and `shape_efficiency` counts only the
// rows that are real.
struct GroupedExpertGemm {
  double experts = 0;      // experts touched, whose weights the step reads
  double rows = 0;         // tokens per touched expert: tokens·top_k / experts
  double flops = 0;        // 2·tokens·top_k·n·k, as many as top_k dense MLPs
  double weights = 0;      // weight elements read: experts·n·k
  double activations = 0;  // input and output elements: tokens·top_k·(n + k)
  double tiles = 0;        // of the grouped GEMM: experts·⌈rows/Tm⌉·⌈n/128⌉ (gemm_shape)
  double shape_efficiency = 0;  // the tiles' waves over the SMs, times the real share of their
                                // padded work and the inner dimension's fill
};
GroupedExpertGemm grouped_expert_gemm(double tokens, double experts, double top_k, double n,
                                      double k, double sms, double row_tile = 0);

// The same projection where each touched expert's GEMM is a kernel of its own, as PyTorch eager
// runs it (Hugging Face transformers' MoE blocks loop over the experts in Python): the FLOPs,
// weights and activations of grouped_expert_gemm, but `tiles` and `shape_efficiency` are one
// expert's GEMM as a dense GEMM of its rows runs (gemm_shape), ⌈rows/Tm⌉·⌈n/128⌉ tiles alone
// over the SMs. Every touched expert has the same rows, so the projection's time is the roofline
// of the totals at that efficiency.
GroupedExpertGemm per_expert_gemms(double tokens, double experts, double top_k, double n, double k,
                                   double sms);

// What one GPU of an expert-parallel group of `ep` GPUs runs of a MoE layer, each GPU holding
// experts/ep of the experts and running attention for its own sequences (attention data
// parallel, TensorRT-LLM's DEP<ep>; vLLM's --enable-expert-parallel with --data-parallel-size;
// SGLang's --enable-dp-attention with --ep-size), for a step of `tokens` tokens on every GPU.
// Its grouped GEMM takes the tokens all ep GPUs route to its experts: under uniform routing a
// token picks each expert with chance top_k/experts, so the GPU's experts see `tokens`·ep tokens,
// each picking top_k/ep of its experts/ep on average: tokens·top_k rows in all, as many as the
// GPU would route without expert parallelism. ep = 1 gives the arguments back.
//
// A step waits for the busiest GPU (the dispatch and combine all-to-alls are collectives every
// GPU joins): `busiest` is the routed rows of the GPU whose experts get the most over the mean,
// busiest_expert_rows / (tokens·top_k), and `tokens`·`busiest` the tokens its grouped GEMM runs.
struct ExpertShare {
  double tokens = 0;   // tokens whose routing reaches this GPU's experts: tokens·ep
  double experts = 0;  // experts on this GPU: experts/ep
  double top_k = 0;    // experts of this GPU a token picks on average: top_k/ep
  double busiest = 1;  // the busiest GPU's routed rows over the mean; 1 for ep = 1
};
ExpertShare expert_share(double tokens, double experts, double top_k, int ep);

// The expected largest of n independent standard normal variables, E[max(Z_1..Z_n)] =
// ∫ x·n·φ(x)·Φ(x)^(n-1) dx, by numerical integration: 0 for n = 1, 1/√π = 0.5642 for n = 2,
// 1.0294 for 4, 1.4236 for 8 (Tippett, "On the extreme individuals and the range of samples
// taken from a normal population", Biometrika 17, 1925, Table; the √(2 ln n) of the balls-into-
// bins bound is its limit for large n and overstates it for small n: 2.04 for 8).
double expected_max_normal(int n);

// Routed rows the busiest GPU of an expert-parallel group of `ep` GPUs gets, each GPU holding
// experts/ep experts, for a step of `tokens` tokens on every GPU each picking top_k distinct
// experts under uniform routing. A token puts a hypergeometric count of its top_k picks on a
// GPU (top_k draws of the experts, experts/ep of them the GPU's): mean top_k/ep, and over the
// tokens·ep tokens of the step a GPU's rows have mean tokens·top_k and the covariance of
// Y_i - mean(Y) for independent Y_i of variance s² = tokens·top_k·(experts - top_k)/(experts - 1)
// (the counts sum to the group's routed rows; a multinomial's Poisson-normal representation,
// Mitzenmacher and Upfal, "Probability and Computing", 2005, section 5.4). The busiest of the ep
// GPUs then expects tokens·top_k + s·expected_max_normal(ep) rows (Raab and Steger, "Balls into
// Bins: A Simple and Tight Analysis", RANDOM 1998: for m ≫ n ln n balls in n bins the fullest
// holds m/n + Θ(√(m ln n / n))), at most tokens·ep·min(top_k, experts/ep). Qwen3 235B A22B at
// DEP8 with 64 tokens a GPU: 512 + √(512·120/127)·1.4236 = 543.3 rows, 6.1% over the mean. A real
// router is less even than uniform (DeepSeek-V3 technical report, 2024, section 3.4: EPLB
// replicates the heaviest experts for that), which this leaves out: it is a lower bound.
double busiest_expert_rows(double tokens, double experts, double top_k, int ep);

// Bytes the routing kernels of one MoE layer move outside the expert GEMMs for a step of
// `tokens` tokens, each picking `top_k` experts, on a `hidden`-wide model: `copy_bytes` per
// hidden-width value of each routed copy (gathering a token to its expert, quantizing it for the
// GEMM, weighting the expert's output) and `pick_bytes` per value for each expert a token picks
// beyond its first (summing the outputs one add at a time), Engine::moe_copy_bytes and
// moe_pick_bytes: tokens · hidden · (top_k · copy_bytes + (top_k - 1) · pick_bytes). llama.cpp's
// graph (18.25 and 12 B) for Qwen3 30B A3B (hidden 2048, top-8) moves 2048 · (8 · 18.25 + 7 ·
// 12) = 471,040 bytes a token and layer; a dense MLP has none of it.
double moe_routing_bytes(double tokens, double top_k, double hidden, double copy_bytes,
                         double pick_bytes);

// Bytes one GPU sends in one all-to-all of a MoE layer under expert parallelism over `ep` GPUs:
// each of its `tokens` tokens goes, as `hidden` elements of `bytes` each, to the GPU of each of
// its top_k experts (dispatch), and the experts' outputs come back the same way (combine); the
// (ep - 1)/ep of the copies whose expert is on another GPU cross the link (uniform routing).
// (ep - 1)/ep · tokens · top_k · hidden · bytes; 0 for ep = 1.
double moe_all_to_all_bytes(double tokens, double top_k, double hidden, double bytes, int ep);

}  // namespace rigplan
