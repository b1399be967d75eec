// The experts an inference step reads and their grouped GEMM (docs/inference.md).
#include "model/moe_gemm.h"

#include <cmath>

#include "model/gemm_waves.h"

namespace rigplan {

double experts_touched(double tokens, double experts, double top_k) {
  if (tokens <= 0) return 0;
  return experts * (1 - std::pow(1 - top_k / experts, tokens));
}

GroupedExpertGemm grouped_expert_gemm(double tokens, double experts, double top_k, double n,
                                      double k, double sms, double row_tile) {
  GroupedExpertGemm g;
  g.experts = experts_touched(tokens, experts, top_k);
  if (g.experts <= 0) return g;
  const double routed = tokens * top_k;  // rows of all the experts together
  g.rows = routed / g.experts;
  g.flops = 2 * routed * n * k;
  g.weights = g.experts * n * k;
  g.activations = routed * (n + k);
  const double padded = row_tile > 0 ? std::ceil(g.rows / row_tile) * row_tile : g.rows;
  g.tiles = gemm_tiles(padded, n, g.experts);
  g.shape_efficiency = gemm_shape_efficiency(g.tiles, gemm_k_efficiency(k), sms) * g.rows / padded;
  return g;
}

GroupedExpertGemm per_expert_gemms(double tokens, double experts, double top_k, double n, double k,
                                   double sms) {
  GroupedExpertGemm g = grouped_expert_gemm(tokens, experts, top_k, n, k, sms);
  if (g.experts <= 0) return g;
  g.tiles = gemm_tiles(g.rows, n);
  g.shape_efficiency = gemm_shape_efficiency(g.tiles, gemm_k_efficiency(k), sms);
  return g;
}

ExpertShare expert_share(double tokens, double experts, double top_k, int ep) {
  return {tokens * ep, experts / ep, top_k / ep};
}

double moe_all_to_all_bytes(double tokens, double top_k, double hidden, double bytes, int ep) {
  return (ep - 1.0) / ep * tokens * top_k * hidden * bytes;
}

}  // namespace rigplan
