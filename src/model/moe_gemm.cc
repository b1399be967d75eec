// The experts an inference step reads and their grouped GEMM (docs/inference.md).
#include "model/moe_gemm.h"

#include <algorithm>
#include <cmath>
#include <numbers>

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
  const double tile_rows = row_tile > 0 ? row_tile : gemm_fitted_tile_rows(g.rows);
  const GemmShape shape = gemm_shape(g.rows, n, g.experts, tile_rows);
  g.tiles = shape.tiles;
  g.shape_efficiency = gemm_shape_efficiency(shape, gemm_k_efficiency(k), sms);
  return g;
}

GroupedExpertGemm per_expert_gemms(double tokens, double experts, double top_k, double n, double k,
                                   double sms) {
  GroupedExpertGemm g = grouped_expert_gemm(tokens, experts, top_k, n, k, sms);
  if (g.experts <= 0) return g;
  const GemmShape alone = gemm_shape(g.rows, n);
  g.tiles = alone.tiles;
  g.shape_efficiency = gemm_shape_efficiency(alone, gemm_k_efficiency(k), sms);
  return g;
}

ExpertShare expert_share(double tokens, double experts, double top_k, int ep) {
  const double routed = tokens * top_k;
  const double busiest =
      routed > 0 ? busiest_expert_rows(tokens, experts, top_k, ep) / routed : 1.0;
  return {tokens * ep, experts / ep, top_k / ep, busiest};
}

double expected_max_normal(int n) {
  if (n <= 1) return 0;
  // Simpson's rule over ±kNormalTail standard deviations, where the integrand has vanished
  // below double precision; derived by comparison: steps of 0.05 agree with 20 times finer ones
  // to 1e-13 up to n = 1024.
  constexpr double kNormalTail = 10;
  constexpr int kIntervals = 400;
  const double h = 2 * kNormalTail / kIntervals;
  double sum = 0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double x = -kNormalTail + i * h;
    const double density = std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
    const double below = std::erfc(-x / std::numbers::sqrt2) / 2;
    const double weight = i == 0 || i == kIntervals ? 1 : (i % 2 == 1 ? 4 : 2);
    sum += weight * x * n * density * std::pow(below, n - 1);
  }
  return sum * h / 3;
}

double busiest_expert_rows(double tokens, double experts, double top_k, int ep) {
  const double mean = tokens * top_k;
  if (ep <= 1 || mean <= 0 || experts <= 1) return mean;
  const double spread = std::sqrt(mean * (experts - top_k) / (experts - 1));
  const double most = tokens * ep * std::min(top_k, experts / ep);
  return std::min(most, mean + spread * expected_max_normal(ep));
}

double moe_routing_bytes(double tokens, double top_k, double hidden, double copy_bytes,
                         double pick_bytes) {
  return tokens * hidden * (top_k * copy_bytes + std::max(0.0, top_k - 1) * pick_bytes);
}

double moe_all_to_all_bytes(double tokens, double top_k, double hidden, double bytes, int ep) {
  return (ep - 1.0) / ep * tokens * top_k * hidden * bytes;
}

}  // namespace rigplan
