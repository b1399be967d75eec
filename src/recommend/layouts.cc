// A training job larger than one machine: the layouts of train-plan's search (tensor, pipeline,
// context, data and, for a mixture of experts, expert parallel, virtual stages, micro-batch,
// recompute, ZeRO; training_layouts), the fastest of them that fits the candidate's GPU over its
// links and fabric (docs/recommend.md, "Jobs larger than a machine").
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>

#include "model/recompute_policy.h"
#include "recommend/steps.h"
#include "rigplan/train_plan.h"

namespace rigplan::recommend_steps {

namespace {

// Recompute in the order of the work it adds (recompute_policy.h): none, selective (attention's
// core), selective-op (every other matmul and the elementwise operators), full (every layer's
// forward again).
int recompute_rank(std::string_view recompute) {
  const auto& policies = recompute_policy::kPolicies;
  return static_cast<int>(std::find(std::begin(policies), std::end(policies), recompute) -
                          std::begin(policies));
}

// What a layout is apart from its recompute.
auto siblings(const RunConfig& c) {
  return std::make_tuple(c.tensor_parallel, c.pipeline_parallel, c.context_parallel,
                         c.expert_parallel, c.virtual_stages, c.micro_batch.value_or(0), c.zero);
}

}  // namespace

std::string layout_label(const RunConfig& c) {
  std::string out;
  auto it = std::back_inserter(out);
  const auto degree = [&it](std::string_view name, int n) {
    if (n > 1) fmt::format_to(it, "{}-{} ", name, n);
  };
  degree("tp", c.tensor_parallel);
  degree("pp", c.pipeline_parallel);
  degree("vp", c.virtual_stages);
  degree("cp", c.context_parallel);
  fmt::format_to(it, "dp-{}",
                 c.gpus / (c.tensor_parallel * c.pipeline_parallel * c.context_parallel));
  if (c.expert_parallel > 1) fmt::format_to(it, " ep-{}", c.expert_parallel);
  if (c.zero > 0) fmt::format_to(it, " zero-{}", c.zero);
  if (c.micro_batch) fmt::format_to(it, ", micro-batch {}", *c.micro_batch);
  if (!c.recompute.empty() && c.recompute != "none")
    fmt::format_to(it, ", {} recompute", c.recompute);
  return out;
}

bool DemandRuns::searches_layouts(size_t task_index, int count, const Topology& topology) const {
  const Task& task = demand_.tasks[task_index];
  const RunConfig& run = task.run;
  // A job that spans machines joined by a network (an owned rack's default NIC, or a rented
  // offer's cluster fabric), of a transformer trained in full, whose layout the task leaves open.
  return count > topology.gpus_per_node && topology.network_gbps_per_gpu != 0.0 &&
         task.workload.transformer && !demand_.serving && run.mode == "train" &&
         run.method == "full" && run.offload == "none" && run.tensor_parallel == 1 &&
         run.pipeline_parallel == 1 && run.context_parallel == 1 && run.expert_parallel == 1;
}

// The layouts of a task on `count` GPUs in machines of `gpus_per_node`, with their facts: those
// that split each sequence over several GPUs (cp > 1) or those that do not, sorted so that a
// layout's recompute variants follow each other, least recompute first. The global batch is the
// task's batch on each of the `count` GPUs, as its data-parallel run steps.
Result<std::vector<DemandRuns::Layout>*> DemandRuns::layouts_for(size_t task_index, const Gpu& gpu,
                                                                 int count, int gpus_per_node,
                                                                 bool split_sequences) {
  const auto key = std::make_tuple(task_index, count, gpus_per_node, split_sequences);
  if (auto it = layouts_.find(key); it != layouts_.end()) return &it->second;
  const Workload& w = demand_.tasks[task_index].workload;
  RunConfig base = demand_.tasks[task_index].run;
  base.gpus = count;
  base.gpus_per_node = gpus_per_node;
  base.seq_len = base.seq_len.value_or(w.default_seq_len.value_or(1));
  base.global_batch = base.batch.value_or(w.default_batch) * count;
  base.batch.reset();
  // The machine's size is set: the layouts do not depend on the GPU.
  std::vector<RunConfig> configs = training_layouts(w, gpu, base, calibration_);
  std::erase_if(configs, [split_sequences](const RunConfig& c) {
    return (c.context_parallel > 1) != split_sequences;
  });
  std::stable_sort(configs.begin(), configs.end(), [](const RunConfig& a, const RunConfig& b) {
    return std::make_tuple(siblings(a), recompute_rank(a.recompute)) <
           std::make_tuple(siblings(b), recompute_rank(b.recompute));
  });
  std::vector<Layout> made;
  made.reserve(configs.size());
  for (const RunConfig& c : configs) {
    auto facts = run_facts(w, gpu, c, shared_facts_);
    if (!facts) continue;  // a layout the memory model refuses, as train-plan skips it
    const bool first = made.empty() || siblings(made.back().facts.memory.config) != siblings(c);
    RunConfig config = c;
    config.seq_len = demand_.tasks[task_index].run.seq_len;
    made.push_back({std::move(facts).value(), std::move(config), first});
  }
  return &layouts_.emplace(key, std::move(made)).first->second;
}

// The fastest of `layouts` that fits `gpu` over the topology's links and network (nullptr: none
// fits). Of the recompute variants of a layout, only the one with the least recompute that fits
// is predicted: more recompute adds compute and changes nothing else.
Result<DemandRuns::Layout*> DemandRuns::fastest_layout(size_t task_index, const Gpu& gpu,
                                                       const Topology& topology,
                                                       std::vector<Layout>& layouts,
                                                       RunSpeed& fastest_speed) {
  const double capacity = capacity_gb(gpu);
  const Workload& w = demand_.tasks[task_index].workload;
  const bool own_link = demand_.tasks[task_index].run.link.empty();
  Layout* fastest = nullptr;
  bool group_done = false;
  for (Layout& layout : layouts) {
    if (layout.first_of_group) group_done = false;
    if (group_done || layout.facts.memory.total_gb > capacity) continue;
    group_done = true;
    // The facts are made once for every candidate of the count and machine size; what predict
    // reads of the candidate's links is set here (the task's own link, else the topology's).
    RunConfig& c = layout.facts.memory.config;
    if (own_link) c.link = topology.link;
    c.network_gbps_per_gpu = topology.network_gbps_per_gpu;
    auto p = speed(w, gpu, layout.facts);
    if (!p) return p.status();
    if (p->fits && p->throughput > fastest_speed.throughput) {
      fastest = &layout;
      fastest_speed = std::move(p).value();
    }
  }
  return fastest;
}

// The fastest layout that fits, when it is faster than `best` or `best` does not fit: then `best`
// becomes it, named by its layout. Layouts that split sequences (context parallel) are searched
// only when none other fits: with the global batch split over data-parallel replicas, a GPU given
// to context parallelism instead of a replica only adds the ring's communication, and what it
// buys is memory (docs/recommend.md, "Jobs larger than a machine").
Status DemandRuns::run_layouts(size_t task_index, const Gpu& gpu, int count,
                               const Topology& topology, TaskRun& best) {
  RunSpeed speed_of;
  Layout* fastest = nullptr;
  for (const bool split_sequences : {false, true}) {
    auto layouts = layouts_for(task_index, gpu, count, topology.gpus_per_node, split_sequences);
    if (!layouts) return layouts.status();
    auto found = fastest_layout(task_index, gpu, topology, **layouts, speed_of);
    if (!found) return found.status();
    if ((fastest = *found)) break;
  }
  if (!fastest || (best.fits && speed_of.throughput <= best.throughput)) return {};
  const RunFacts& f = fastest->facts;
  set_run(best, true, layout_label(f.memory.config), run_on(fastest->config, topology),
          f.memory.total_gb, speed_of.throughput);
  best.unit = std::move(speed_of.unit);
  return {};
}

}  // namespace rigplan::recommend_steps
