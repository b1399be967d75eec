// The layout search (docs/scaleout.md, "Layout search").
#include "rigplan/train_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string>

#include "model/fp8_training.h"
#include "model/framework_speed.h"
#include "model/links.h"
#include "model/recompute_policy.h"
#include "rigplan/input.h"

namespace rigplan {
namespace {

// Sequences × length of a default optimizer step: about 4M tokens (Llama 2 trained on 4M-token
// batches, Touvron et al. 2023; GPT-3 175B on 3.2M, Brown et al. 2020).
constexpr double kDefaultBatchTokens = 4'194'304;
// Degrees tried: tensor parallel within a node; micro-batches, context-parallel degrees and
// virtual stages as the Megatron-LM and NeMo recipes set them.
constexpr int kMicroBatches[] = {1, 2, 4, 8};
constexpr int kContextDegrees[] = {1, 2, 4, 8};
constexpr int kMaxVirtualStages = 8;

// The divisors of n (n >= 1) up to `most`, ascending, in O(√n): a global batch may be up to 1e9
// sequences.
template <typename Int>
std::vector<Int> divisors(Int n, Int most) {
  std::vector<Int> out, above_root;
  for (Int d = 1; d <= n / d; ++d) {
    if (n % d != 0) continue;
    if (d <= most) out.push_back(d);
    if (d != n / d && n / d <= most) above_root.push_back(n / d);
  }
  out.insert(out.end(), above_root.rbegin(), above_root.rend());
  return out;
}

// Tensor × pipeline × context degrees that split the model and the GPUs whole.
struct Split {
  int tp = 1, pp = 1, cp = 1;
};

// Tensor parallelism stays within a node's GPU-to-GPU link (`node` GPUs). With `gpus` 0, the
// splits of any GPU count.
std::vector<Split> model_splits(const TransformerConfig& t, int gpus, int seq, int node) {
  std::vector<Split> out;
  const int heads = std::gcd(t.num_heads, t.kv_heads()), layers = t.total_layers();
  for (int tp : divisors(heads, gpus > 0 ? std::min(gpus, node) : node)) {
    for (int pp : divisors(layers, gpus > 0 ? gpus / tp : layers)) {
      for (int cp : kContextDegrees) {
        // Ring attention balances causal work over 2·cp chunks of each sequence.
        const std::int64_t split = static_cast<std::int64_t>(tp) * pp * cp;
        if ((gpus == 0 || gpus % split == 0) && seq % (2 * cp) == 0) out.push_back({tp, pp, cp});
      }
    }
  }
  return out;
}

// Expert-parallel degrees of a split with `dp` data-parallel replicas: the divisors of the
// experts that also divide dp × cp, whose GPUs an expert group is carved from
// (resolve_parallel_layout). A dense model (one "expert") has only 1.
std::vector<int> expert_degrees(const TransformerConfig& t, int dp, int cp) {
  std::vector<int> out;
  for (int ep : divisors(t.experts(), t.experts())) {
    if ((static_cast<std::int64_t>(dp) * cp) % ep == 0) out.push_back(ep);
  }
  return out;
}

// Whether a layout at each ZeRO stage (0 to 3) runs under a framework with torchtitan's per-op
// recompute: the framework the run names, else the one the workload was measured with, else the
// stage's default (run_framework).
using OpRecompute = std::array<bool, 4>;
OpRecompute op_recompute_by_zero(const Workload& w, const RunConfig& base,
                                 const Calibration& calibration) {
  OpRecompute out{};
  const WorkloadCalibration* measured = measured_speed(calibration, w.id);
  for (int zero = 0; zero < static_cast<int>(out.size()); ++zero) {
    auto framework = run_framework(calibration, base.framework, zero, measured);
    out[zero] = framework && offers_op_recompute(**framework);
  }
  return out;
}

// The remaining choices of one split: expert parallel, virtual stages, micro-batch, recompute
// (per-op only where `op_recompute` offers it), ZeRO stage.
std::vector<RunConfig> layouts_of(const TransformerConfig& t, const RunConfig& base, Split s,
                                  const OpRecompute& op_recompute) {
  std::vector<RunConfig> out;
  const int dp = base.gpus / (s.tp * s.pp * s.cp);
  if (*base.global_batch % dp != 0) return out;
  const int replica_batch = *base.global_batch / dp;
  const std::vector<int> experts = expert_degrees(t, dp, s.cp);
  std::vector<int> stages = {1};
  if (s.pp > 1) {
    for (int v = 2; v <= kMaxVirtualStages; ++v) {
      if (t.total_layers() % (s.pp * v) == 0) stages.push_back(v);
    }
  }
  // Megatron-LM does not combine pipelines with ZeRO-3; FSDP runs without them.
  const std::vector<int> zeros = s.pp > 1 ? std::vector<int>{0, 1} : std::vector<int>{0, 1, 3};
  for (int ep : experts) {
    for (int vp : stages) {
      for (int micro : kMicroBatches) {
        if (replica_batch % micro != 0) continue;
        for (std::string_view recompute : recompute_policy::kPolicies) {
          for (int zero : zeros) {
            if (recompute == recompute_policy::kSelectiveOp && !op_recompute[zero]) continue;
            RunConfig c = base;
            c.tensor_parallel = s.tp;
            c.pipeline_parallel = s.pp;
            c.context_parallel = s.cp;
            c.expert_parallel = ep;
            c.virtual_stages = vp;
            c.micro_batch = micro;
            c.recompute = std::string(recompute);
            c.checkpointing = false;
            c.sequence_parallel = s.tp > 1;  // never slower, and less memory (Korthikanti et al.)
            c.zero = zero;
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

// A fitting layout's speed, kept until the fastest are predicted again in full.
struct Candidate {
  double throughput = 0;
  RunConfig run;
};

double compute_s(const Prediction& p) {
  double sum = 0;
  for (const auto& t : p.terms) {
    if (t.bound == "compute" || t.bound == "memory" || t.bound == "launch") sum += t.seconds;
  }
  return sum;
}

double term_s(const Prediction& p, std::string_view name) {
  for (const auto& t : p.terms) {
    if (t.name == name) return t.seconds;
  }
  return 0;
}

// What a runner-up adds to the fastest layout's step: its share, and the part that grew most.
std::string why_slower(const Prediction& best, const Prediction& p) {
  const std::pair<const char*, double> parts[] = {
      {"compute", compute_s(p) - compute_s(best)},
      {"pipeline bubble", term_s(p, "pipeline_bubble") - term_s(best, "pipeline_bubble")},
      {"communication", term_s(p, "communication") - term_s(best, "communication")},
  };
  const auto* most =
      std::max_element(std::begin(parts), std::end(parts),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  return fmt::format("{:+.1f}% step time, most in {} ({:+.3g} s)",
                     (p.step_time_s / best.step_time_s - 1) * 100, most->first, most->second);
}

}  // namespace

namespace {

// The request's run with the global batch resolved; kInvalidInput for what no layout can fix.
Result<RunConfig> base_run(const Workload& w, const Gpu& gpu, const TrainPlanRequest& request,
                           const Catalog& catalog) {
  if (!w.transformer) {
    return Status::invalid_input(
        fmt::format("train-plan searches transformer layouts; {} is not a transformer", w.id));
  }
  const RunConfig& run = request.run;
  const auto optional = [](std::optional<int> v) {
    return v ? std::optional<double>(*v) : std::optional<double>();
  };
  if (Status s = input::check_all({{&input::kTop, static_cast<double>(request.top)},
                                   {&input::kTokens, request.tokens},
                                   {&input::kGpus, static_cast<double>(run.gpus)},
                                   {&input::kSeq, optional(run.seq_len)},
                                   {&input::kGlobalBatch, optional(run.global_batch)}});
      !s.ok())
    return s;
  RunConfig base = request.run;
  base.mode = "train";
  base.method = "full";
  base.batch.reset();
  const int seq = base.seq_len.value_or(w.default_seq_len.value_or(2048));
  base.seq_len = seq;
  if (!base.global_batch) {
    base.global_batch = std::max(1, static_cast<int>(kDefaultBatchTokens / seq));
  }
  // The plain run on one GPU checks the precision, sequence and batch whatever the layout.
  RunConfig probe = base;
  probe.gpus = 1;
  probe.global_batch.reset();
  if (auto checked = estimate_memory(w, gpu, probe, false); !checked) return checked.status();
  // A format the GPU has no tensor cores for is refused once, not skipped in each layout.
  if (std::string refused = fp8_training::refusal(gpu, base.precision, catalog); !refused.empty())
    return Status::invalid_input(std::move(refused));
  // The fabric is the same for every layout: a bad one is refused once, not skipped each time.
  if (auto network = network_for(base, catalog); !network) return network.status();
  return base;
}

// The GPUs of one data-parallel replica of each split of the model, whatever the GPU count.
std::vector<std::int64_t> replica_sizes(const TransformerConfig& t, int seq, int node) {
  std::vector<std::int64_t> out;
  for (const Split& s : model_splits(t, 0, seq, node)) {
    out.push_back(static_cast<std::int64_t>(s.tp) * s.pp * s.cp);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The data-parallel replicas each split leaves on `gpus` GPUs.
std::vector<std::int64_t> replica_counts(const std::vector<std::int64_t>& sizes, int gpus) {
  std::vector<std::int64_t> out;
  for (std::int64_t size : sizes) {
    if (gpus % size == 0) out.push_back(gpus / size);
  }
  return out;
}

// Of the values offered, the nearest to `asked` below it (above 0) and above it (under twice
// it); 0 where none was.
struct Nearest {
  std::int64_t below = 0, above = 0;
  void offer(std::int64_t value, std::int64_t asked) {
    if (value > 0 && value < asked) below = std::max(below, value);
    if (value > asked && value < 2 * asked && (above == 0 || value < above)) above = value;
  }
};

// The GPU counts nearest `gpus` at which some split leaves replicas that divide the global
// batch whole: a replica's size × a divisor of the batch (layouts_of's first test; micro-batch
// 1 then always divides).
Nearest nearest_gpu_counts(const std::vector<std::int64_t>& sizes, int global_batch, int gpus) {
  Nearest out;
  for (std::int64_t replicas : divisors<std::int64_t>(global_batch, global_batch)) {
    for (std::int64_t size : sizes) out.offer(size * replicas, gpus);
  }
  return out;
}

// The global batches nearest `asked` that some split on these GPUs divides whole: the
// multiples of its replicas next to it.
Nearest nearest_global_batches(const std::vector<std::int64_t>& replicas, int asked) {
  Nearest out;
  for (std::int64_t r : replicas) {
    out.offer((asked - 1) / r * r, asked);
    out.offer((asked / r + 1) * r, asked);
  }
  return out;
}

// Refuses a request no layout splits whole, with the nearest GPU counts that do and the nearest
// global batches that do on the GPUs asked.
Status check_splits_whole(const Workload& w, const Gpu& gpu, const RunConfig& base) {
  const TransformerConfig& t = *w.transformer;
  const int batch = *base.global_batch;
  const std::vector<std::int64_t> sizes = replica_sizes(t, *base.seq_len, node_gpus(gpu, base));
  const std::vector<std::int64_t> replicas = replica_counts(sizes, base.gpus);
  if (std::any_of(replicas.begin(), replicas.end(), [&](auto r) { return batch % r == 0; }))
    return Status();
  std::vector<std::string> counts;
  const Nearest gpus = nearest_gpu_counts(sizes, batch, base.gpus);
  const Nearest batches = nearest_global_batches(replicas, batch);
  if (gpus.below > 0) counts.push_back(fmt::format("--gpus {}", gpus.below));
  if (gpus.above > 0) counts.push_back(fmt::format("--gpus {}", gpus.above));
  if (batches.below > 0) counts.push_back(fmt::format("--global-batch {}", batches.below));
  if (batches.above > 0) counts.push_back(fmt::format("--global-batch {}", batches.above));
  return Status::invalid_input(fmt::format(
      "no layout splits {} ({} heads, {} layers, sequence {}) and its global batch of {} "
      "sequences over {} GPUs whole: tensor × pipeline × context parallel must divide the GPUs "
      "and the data-parallel replicas left must divide the global batch{}{}",
      w.id, t.num_heads, t.total_layers(), *base.seq_len, batch, base.gpus,
      counts.empty() ? "" : "; these would: ", fmt::join(counts, ", ")));
}

}  // namespace

std::vector<RunConfig> training_layouts(const Workload& w, const Gpu& gpu, const RunConfig& base,
                                        const Calibration& calibration) {
  std::vector<RunConfig> out;
  const TransformerConfig& t = *w.transformer;
  const OpRecompute op_recompute = op_recompute_by_zero(w, base, calibration);
  for (const Split& s : model_splits(t, base.gpus, *base.seq_len, node_gpus(gpu, base))) {
    std::vector<RunConfig> split = layouts_of(t, base, s, op_recompute);
    std::move(split.begin(), split.end(), std::back_inserter(out));
  }
  return out;
}

namespace {

// Every layout: the fitting ones' speeds, and the counts.
std::vector<Candidate> search(const Workload& w, const Gpu& gpu, const RunConfig& base,
                              const Calibration& calibration, const Catalog& catalog,
                              TrainPlan& plan) {
  std::vector<Candidate> out;
  plan.least_memory_gb = 0;
  const TransformerConfig& t = *w.transformer;
  const OpRecompute op_recompute = op_recompute_by_zero(w, base, calibration);
  for (const Split& s : model_splits(t, base.gpus, *base.seq_len, node_gpus(gpu, base))) {
    for (const RunConfig& c : layouts_of(t, base, s, op_recompute)) {
      auto facts = run_facts(w, gpu, c);
      if (!facts) continue;
      ++plan.evaluated;
      const double total = facts->memory.total_gb;
      if (plan.least_memory_gb == 0 || total < plan.least_memory_gb) plan.least_memory_gb = total;
      if (!facts->memory.fits) continue;
      ++plan.fitting;
      auto p = predict(w, gpu, c, calibration, catalog, *facts);
      if (p) out.push_back({p->throughput, c});
    }
  }
  return out;
}

}  // namespace

Result<TrainPlan> plan_training(const Workload& w, const Gpu& gpu, const TrainPlanRequest& request,
                                const Calibration& calibration, const Catalog& catalog) {
  auto base = base_run(w, gpu, request, catalog);
  if (!base) return base.status();
  // A framework named is the same for every layout, so an unknown one is refused once; named
  // none, each layout takes its default (framework_speed.h, default_framework).
  if (auto framework = calibration.framework(base->framework); !framework)
    return framework.status();
  if (Status s = check_splits_whole(w, gpu, *base); !s.ok()) return s;
  TrainPlan plan;
  plan.global_batch = *base->global_batch;
  std::vector<Candidate> found = search(w, gpu, *base, calibration, catalog, plan);
  const size_t keep = std::min(found.size(), static_cast<size_t>(std::max(request.top, 1)));
  std::partial_sort(
      found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
      [](const Candidate& a, const Candidate& b) { return a.throughput > b.throughput; });
  for (size_t i = 0; i < keep; ++i) {
    auto facts = run_facts(w, gpu, found[i].run);
    if (!facts) return facts.status();
    auto p = predict(w, gpu, found[i].run, calibration, catalog, *facts);
    if (!p) return p.status();
    LayoutOption o{facts->memory.config, facts->memory.total_gb, std::move(p).value()};
    if (request.tokens) o.days = *request.tokens / o.prediction.throughput / 86400;
    o.gpu_hours = 1e9 / o.prediction.throughput / 3600 * o.run.gpus;
    if (i > 0) o.why_slower = why_slower(plan.layouts.front().prediction, o.prediction);
    plan.layouts.push_back(std::move(o));
  }
  return plan;
}

}  // namespace rigplan
