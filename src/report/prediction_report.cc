#include <fmt/format.h>

#include <algorithm>

#include "model/perf_constants.h"
#include "rigplan/report.h"
#include "util/figures.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

double round4(double x) { return std::round(x * 1e4) / 1e4; }
double sig(double x) { return std::stod(fmt::format("{:.5g}", x)); }

Json serving_json(const ServingPrediction& s) {
  Json out = {{"ttft_ms", sig(s.ttft_ms)},
              {"tpot_ms", sig(s.tpot_ms)},
              {"output_tokens_per_s", sig(s.output_tokens_per_s)},
              {"requests_per_s", sig(s.requests_per_s)},
              {"concurrency", sig(s.concurrency)},
              {"max_concurrency", s.max_concurrency},
              {"replicas", s.replicas},
              {"saturated", s.saturated},
              {"load", s.load},
              {"queued", s.queued},
              {"queue_wait_ms", sig(s.queue_wait_ms)}};
  if (s.requests > 0) {
    out["requests"] = s.requests;
    out["last_sent_s"] = sig(s.last_sent_s);
    out["drained_s"] = sig(s.drained_s);
  }
  return out;
}

// A training run's parallel layout beyond data parallelism, as Megatron-LM names it.
std::string layout_text(const RunConfig& c) {
  const int split = c.tensor_parallel * c.pipeline_parallel * c.context_parallel;
  if (split == 1 && c.expert_parallel == 1) return "";
  std::string out = fmt::format(", TP {} × PP {}", c.tensor_parallel, c.pipeline_parallel);
  if (c.context_parallel > 1) out += fmt::format(" × CP {}", c.context_parallel);
  out += fmt::format(" × DP {}", c.gpus / split);
  // Expert parallelism splits the experts over ep of the data- × context-parallel GPUs.
  if (c.expert_parallel > 1) out += fmt::format(", EP {}", c.expert_parallel);
  if (c.virtual_stages > 1) out += fmt::format(", {} chunks a stage", c.virtual_stages);
  if (c.micro_batch) out += fmt::format(", micro-batch {}", *c.micro_batch);
  if (c.sequence_parallel) out += ", sequence parallel";
  if (c.recompute != "none" && !c.recompute.empty())
    out += fmt::format(", {} recompute", c.recompute);
  return out;
}

// ", torch.compile", ", CUDA graphs": how the training step runs, when not in eager PyTorch.
std::string compile_text(const RunConfig& c) {
  std::string out;
  if (c.compile) out += ", torch.compile";
  if (c.cuda_graphs) out += ", CUDA graphs";
  return out;
}

// "82.33 ms", and from 10 s on "151.2 s" (not "1.512e+05 ms").
std::string latency_text(double ms) {
  return ms < 1e4 ? fmt::format("{:.4g} ms", ms) : fmt::format("{:.4g} s", ms / 1e3);
}

// The serving answer: latency per request and throughput of the whole setup.
std::string serving_text(const ServingPrediction& s) {
  std::string out;
  // A saturated setup's queue grows without bound: its TTFT is that of the most it serves.
  const std::string ttft_note =
      s.saturated ? " at the most this setup serves; at the rate asked the queue grows, and so "
                    "does the wait, without bound"
      : s.queue_wait_ms > 0  ? fmt::format(", {} of it in the queue", latency_text(s.queue_wait_ms))
      : s.load == "max-load" ? " (the prompt's own chunks; a queue adds to it)"
                             : "";
  out += fmt::format("TTFT         {}{}\n", latency_text(s.ttft_ms), ttft_note);
  out += fmt::format("TPOT         {} ({:.4g} tokens/s per stream)\n", latency_text(s.tpot_ms),
                     1e3 / s.tpot_ms);
  out += fmt::format("requests     {} per second, {} output tokens/s\n",
                     significant(s.requests_per_s), significant(s.output_tokens_per_s));
  out += fmt::format("in flight    {:.4g} sequences per replica ({} replica{}); at most {}\n",
                     s.concurrency, s.replicas, s.replicas == 1 ? "" : "s", s.max_concurrency);
  if (s.requests > 0) {
    const std::string last = s.last_sent_s > 0 ? fmt::format(": the last arrives at {}, the run",
                                                             latency_text(s.last_sent_s * 1e3))
                                               : ", all sent at once: the run";
    out += fmt::format("run          {} requests{} drains by {}\n", s.requests, last,
                       latency_text(s.drained_s * 1e3));
    if (s.queued > 0) {
      out += fmt::format(
          "queue        at most {} wait for a slot at once{}; a request waits {} on average\n",
          s.queued, s.replicas == 1 ? "" : " per replica", latency_text(s.queue_wait_ms));
    }
  } else if (s.queued > 0) {
    out += fmt::format(
        "queue        {} of the {} asked{} wait for a slot: each request waits {} on average for "
        "the {} ahead of it to finish at {:.4g} requests/s\n",
        s.queued, s.queued + s.max_concurrency, s.replicas == 1 ? "" : " per replica",
        latency_text(s.queue_wait_ms), s.queued, s.requests_per_s / s.replicas);
  }
  if (s.saturated)
    out += "saturated    the request rate is beyond what this setup serves: the queue grows\n";
  return out;
}

Json pipeline_json(const PipelineEstimate& e) {
  return {{"machines", e.machines},
          {"cpu", e.cpu},
          {"loader", e.loader},
          {"input", e.input},
          {"decode", e.decode},
          {"confidence", e.confidence},
          {"as_of", e.as_of.to_string()},
          {"cores", e.cores},
          {"training_cores", e.training_cores},
          {"loader_cores", e.loader_cores},
          {"shares_core", e.shares_core},
          {"clock_scale", round4(e.clock_scale)},
          {"images_per_s_per_core", sig(e.per_core)},
          {"cpu_images_per_s", sig(e.cpu_rate)},
          {"gpu_decode_images_per_s", sig(e.gpu_decode_rate)},
          {"samples_per_s", sig(e.rate)},
          {"demand_samples_per_s", sig(e.demand)},
          {"input_bound", e.bound},
          {"cores_to_lift", e.cores_to_lift},
          {"loader_to_lift", e.loader_to_lift}};
}

// What would feed the GPUs: more cores of this CPU's speed, another loader, or neither.
std::string lift_text(const PipelineEstimate& e) {
  std::vector<std::string> ways;
  if (e.cores_to_lift > 0) {
    ways.push_back(fmt::format("{} cores of this speed", e.cores_to_lift));
  }
  if (!e.loader_to_lift.empty() && e.loader_to_lift != e.loader) {
    ways.push_back(fmt::format("--loader {} on these {} cores", e.loader_to_lift, e.cores));
  }
  if (ways.empty()) return "no loader on these cores, and no count of cores with this one";
  return join(ways, ", or ");
}

// The pipeline's lines: its rate against the GPUs', and what would lift an input-bound run.
std::string pipeline_text(const PipelineEstimate& e) {
  std::string out = fmt::format(
      "input        {} on {} of {} cores of {}: {} images/s; the GPUs take {}{}{}\n", e.loader,
      e.loader_cores, e.cores, e.cpu, significant(e.rate, 5), significant(e.demand, 5),
      e.machines > 1 ? fmt::format(" (each of {} machines)", e.machines) : "",
      e.bound ? "" : " (not the bound)");
  if (e.shares_core) {
    out += fmt::format(
        "warning      {} cores for {} training processes: the loader shares a core with them, "
        "counted as 1 core of its own\n",
        e.cores, e.training_cores);
  }
  if (e.bound) out += fmt::format("lift         {}\n", lift_text(e));
  return out;
}

// The chain of formulas behind the pipeline's rate, for --explain.
std::string pipeline_explain(const PipelineEstimate& e, const Prediction& p) {
  std::string out = fmt::format(
      "\nInput pipeline ({}, data/pipeline): {:.4g} images/s a core at this CPU's boost clock "
      "({:.4g} × the loader's reference clock) × {} cores ({} less {} kept for the training "
      "process of each GPU) = {} images/s",
      e.loader, e.per_core, e.clock_scale, e.loader_cores, e.cores, e.training_cores,
      significant(e.cpu_rate, 5));
  if (e.decode == "gpu") {
    out += fmt::format("; the GPUs' decoders {} images/s; the pipeline feeds the smaller, {}",
                       significant(e.gpu_decode_rate, 5), significant(e.rate, 5));
  }
  const double fed = e.rate * e.machines;  // samples/s of every machine's pipeline
  out +=
      fmt::format(".\nStep = max(GPU step {} ms, {} samples / {} samples/s{} = {} ms) = {} ms.\n",
                  significant(p.samples_per_step / (e.demand * e.machines) * 1e3),
                  significant(p.samples_per_step), significant(fed, 5),
                  e.machines > 1 ? fmt::format(" of {} machines", e.machines) : "",
                  significant(p.samples_per_step / fed * 1e3), significant(p.step_time_s * 1e3));
  out += fmt::format(
      "The {} row's confidence is {} (as of {}): its notes say how it was derived and how "
      "uncertain it is; the throughput's error band is the GPU model's alone.\n",
      e.loader, e.confidence, e.as_of.to_string());
  return out;
}

Json compile_json(const CompileEffect& e) {
  return {{"fused", e.fused},
          {"kernels", sig(e.kernels)},
          {"eager_kernels", sig(e.eager_kernels)},
          {"launch_s", sig(e.launch_s)},
          {"eager_launch_s", sig(e.eager_launch_s)},
          {"elementwise_bytes", sig(e.elementwise_bytes)},
          {"eager_elementwise_bytes", sig(e.eager_elementwise_bytes)},
          {"eager_step_time_s", sig(e.eager_step_time_s)}};
}

// How torch.compile or CUDA graphs changed the step against eager, for --explain: the chains
// fused (the first few of a long list), the kernels and their launch, the pointwise bytes.
std::string compile_explain(const CompileEffect& e, const RunConfig& c, double step_time_s) {
  std::string out;
  if (c.compile) {
    constexpr size_t kShown = 4;
    std::vector<std::string> shown(e.fused.begin(),
                                   e.fused.begin() + std::min(e.fused.size(), kShown));
    if (e.fused.size() > kShown) shown.push_back(fmt::format("{} more", e.fused.size() - kShown));
    out += fmt::format(
        "\ntorch.compile fuses each chain of pointwise and norm operators between two GEMMs, "
        "convolutions or attention kernels into one kernel, which reads the chain's input once "
        "and writes its output once; GEMMs, convolutions, attention, the optimizer and the FP8 "
        "casts (costed fused already) are unchanged. Fused: {}.\n",
        shown.empty() ? "nothing" : join(shown, "; "));
  }
  if (c.cuda_graphs) {
    out += fmt::format("CUDA graphs: each kernel costs {:g} µs of launch for eager's {:g} µs.\n",
                       perf_constants::kGraphKernelOverheadS * 1e6,
                       perf_constants::kKernelOverheadS * 1e6);
  }
  out += fmt::format(
      "Against eager: kernels {:.0f} → {:.0f} a step, launch {:.3f} → {:.3f} ms, pointwise and "
      "norm bytes {} → {} GB, step {} → {} ms ({:.3f}×).\n",
      e.eager_kernels, e.kernels, e.eager_launch_s * 1e3, e.launch_s * 1e3,
      significant(e.eager_elementwise_bytes / 1e9), significant(e.elementwise_bytes / 1e9),
      significant(e.eager_step_time_s * 1e3), significant(step_time_s * 1e3),
      e.eager_step_time_s / step_time_s);
  return out;
}

// `--explain`: the time of each operator class, the formula behind it, and what bounds it.
std::string explain_text(const Prediction& p) {
  Table table({{"operators"}, {"ms", Table::Align::kRight}, {"share", Table::Align::kRight}});
  double moved = 0;  // the bytes of the elementwise operators, from DRAM and from L2
  for (const auto& t : p.terms) {
    if (t.name == "elementwise" || t.bound == "l2") moved += t.bytes;
  }
  for (const auto& t : p.terms) {
    if (t.bound == "l2") {  // reads served by L2: a share of the elementwise bytes, not of time
      table.add_row({t.name, "-", fmt::format("{:.1f}% of bytes", t.bytes / moved * 100)});
      continue;
    }
    table.add_row({t.name, fmt::format("{:.3f}", t.seconds * 1e3),
                   fmt::format("{:.1f}%", t.seconds / p.step_time_s * 100)});
  }
  std::string out = "\n" + table.render();
  // A training step's launches are a row of their own; an engine's are in launch_and_host.
  const bool launch_row =
      std::any_of(p.terms.begin(), p.terms.end(), [](const auto& t) { return t.name == "launch"; });
  out += "\nEach operator takes max(FLOPs / (peak × efficiency), bytes / (bandwidth × efficiency))";
  const double kernel_s = p.config.cuda_graphs ? perf_constants::kGraphKernelOverheadS
                                               : perf_constants::kKernelOverheadS;
  out += launch_row ? fmt::format("; each of its kernels adds {:g} µs of launch (the launch row)",
                                  kernel_s * 1e6)
                    : std::string(" plus launch overhead");
  out += "; docs/performance.md.\n";
  if (p.bound == "launch") {
    out +=
        "The launches bound this step: its kernels are too short to hide them. A larger batch "
        "amortizes them; torch.compile (--compile) fuses some of them, and CUDA graphs "
        "(--cuda-graphs) take the host's launch out of each.\n";
  }
  if (p.compile) out += compile_explain(*p.compile, p.config, p.step_time_s);
  if (p.pipeline) out += pipeline_explain(*p.pipeline, p);
  return out;
}

}  // namespace

Json to_json(const Workload& workload, const Gpu& gpu, const Prediction& p) {
  // A term counts FLOPs or bytes where the model adds them up; null where it does not.
  const auto counted = [](double v) { return v > 0 ? Json(sig(v)) : Json(nullptr); };
  Json terms = Json::array();
  for (const auto& t : p.terms) {
    terms.push_back({{"name", t.name},
                     {"seconds", sig(t.seconds)},
                     {"flops", counted(t.flops)},
                     {"bytes", counted(t.bytes)},
                     {"bound", t.bound}});
  }
  const RunConfig& c = p.config;
  // Training: the framework that set the speed; none (null) where no framework did.
  const bool framework = c.mode == "train" && !c.framework.empty();
  Json out = {{"workload", workload.id},
              {"gpu", gpu.id},
              {"gpus", c.gpus},
              {"mode", c.mode},
              {"precision", c.precision},
              {"batch_per_gpu", *c.batch},
              {"seq_len", *c.seq_len},
              {"throughput", sig(p.throughput)},
              {"unit", p.unit},
              {"step_time_s", sig(p.step_time_s)},
              {"bound", p.bound},
              {"mfu", round4(p.mfu)},
              {"error_band", round4(p.error_band)},
              {"throughput_low", sig(p.throughput * (1 - p.error_band))},
              {"throughput_high", sig(p.throughput * (1 + p.error_band))},
              {"workload_class", p.workload_class},
              {"framework", framework ? Json(c.framework) : Json(nullptr)},
              {"implementation_speed", round4(p.implementation_speed)},
              {"speed_source", p.speed_source},
              {"fits", p.fits},
              {"memory_needed_gb", sig(p.memory_gb)},
              {"memory_capacity_gb", sig(p.capacity_gb)},
              {"max_batch", p.fits ? Json(nullptr) : Json(p.max_batch)},
              {"fits_with", p.fits_with},
              {"terms", terms},
              {"engine", c.engine},
              {"tp", c.tensor_parallel},
              {"pp", c.pipeline_parallel},
              {"weights", c.weights},
              {"serving", p.serving ? serving_json(*p.serving) : Json(nullptr)},
              {"note", p.note},
              {"warnings", p.warnings}};
  // Only with a host CPU: without one the answer is what it was before the pipeline existed.
  if (p.pipeline) out["pipeline"] = pipeline_json(*p.pipeline);
  // Only where the run's stack lags its GPU (Prediction::maturity), as the pipeline.
  if (p.maturity) {
    const StackMaturity& m = *p.maturity;
    out["software_maturity"] = Json{{"factor", m.factor},
                                    {"stack", m.stack},
                                    {"architecture", m.architecture},
                                    {"confidence", m.confidence},
                                    {"date", m.date.to_string()}};
  }
  // Only under --compile or --cuda-graphs, as the pipeline.
  if (p.compile) {
    out["compile"] = c.compile;
    out["cuda_graphs"] = c.cuda_graphs;
    out["compile_effect"] = compile_json(*p.compile);
  }
  return out;
}

std::string prediction_text(const Workload& workload, const Gpu& gpu, const Prediction& p,
                            bool explain) {
  const RunConfig& c = p.config;
  const bool inference = workload.transformer && c.mode != "train";
  std::string out =
      inference
          ? fmt::format(
                "{} on {} × {}: {} with {}, {} weights, {} sequences per replica, prompt "
                "{}{}{}\n\n",
                workload.id, c.gpus, gpu.id, c.mode, c.engine, c.weights, *c.batch, *c.seq_len,
                c.gen_tokens > 0 ? fmt::format(" + {} generated", c.gen_tokens) : "",
                c.tensor_parallel * c.pipeline_parallel > 1
                    ? fmt::format(", TP {} × PP {}", c.tensor_parallel, c.pipeline_parallel)
                    : "")
          : fmt::format("{} on {} × {}: {}, {}, batch {} per {}{}{}\n\n", workload.id, c.gpus,
                        gpu.id, c.mode, c.precision, *c.batch,
                        c.tensor_parallel * c.pipeline_parallel * c.context_parallel == 1
                            ? "GPU"
                            : "data-parallel replica",
                        workload.transformer ? fmt::format(", seq {}", *c.seq_len) : "",
                        layout_text(c) + compile_text(c));
  if (p.serving) out += serving_text(*p.serving);
  if (!p.fits && p.step_time_s == 0) {
    // A training run that does not fit has no speed (perf.h): the note says what fits.
    out += "fits         no: no throughput for a run that does not fit in memory\n";
    out += fmt::format("bound        {}\n", p.bound);
  } else {
    out += fmt::format("throughput   {} {} (±{:.0f}%: {} to {})\n", significant(p.throughput, 5),
                       p.unit, p.error_band * 100, significant(p.throughput * (1 - p.error_band)),
                       significant(p.throughput * (1 + p.error_band)));
    out += fmt::format("step time    {}\n", latency_text(p.step_time_s * 1e3));
    out += fmt::format("bound        {}\n", p.bound);
    if (p.pipeline) out += pipeline_text(*p.pipeline);
    out += fmt::format("MFU          {:.1f}%\n", p.mfu * 100);
  }
  if (!p.note.empty()) out += fmt::format("note         {}\n", p.note);
  for (const auto& w : p.warnings) out += fmt::format("warning      {}\n", w);
  if (explain && !p.terms.empty()) out += explain_text(p);
  return out;
}

}  // namespace rigplan::report
