#include "report/predict_flags.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <utility>

#include "rigplan/engine.h"

namespace rigplan::report {
namespace {

// The recompute predict runs: --recompute, else full with --checkpointing and none without.
std::string_view recompute_of(const RunConfig& c) {
  if (!c.recompute.empty()) return c.recompute;
  return c.checkpointing ? "full" : "none";
}

// The engine predict runs: --engine, else the mode's default.
std::string_view engine_of(const RunConfig& c) {
  return c.engine.empty() ? default_engine(c.mode) : std::string_view(c.engine);
}

// Flags written one after the other, each only when `run`'s setting differs from `given`'s.
class Flags {
 public:
  void add(std::string_view name, std::string_view value) {
    append(fmt::format("--{} {}", name, value));
  }
  template <class T>
  void number(std::string_view name, T run, T given) {
    if (run != given) add(name, fmt::format("{}", run));
  }
  template <class T>
  void number(std::string_view name, const std::optional<T>& run, const std::optional<T>& given) {
    if (run && run != given) add(name, fmt::format("{}", *run));
  }
  void text(std::string_view name, std::string_view run, std::string_view given) {
    if (!run.empty() && run != given) add(name, run);
  }
  // A flag that takes no value: "--name" on, "--name=false" off.
  void flag(std::string_view name, bool run, bool given) {
    if (run != given) append(fmt::format("--{}{}", name, run ? "" : "=false"));
  }
  std::string take() { return std::move(out_); }

 private:
  void append(std::string_view flag) {
    if (!out_.empty()) out_ += ' ';
    out_ += flag;
  }

  std::string out_;
};

}  // namespace

std::string predict_flags(const RunConfig& run, const RunConfig& given) {
  Flags f;
  f.number("gpus", run.gpus, given.gpus);
  f.number("tp", run.tensor_parallel, given.tensor_parallel);
  f.number("pp", run.pipeline_parallel, given.pipeline_parallel);
  f.number("vp", run.virtual_stages, given.virtual_stages);
  f.number("cp", run.context_parallel, given.context_parallel);
  f.number("ep", run.expert_parallel, given.expert_parallel);
  f.number("zero", run.zero, given.zero);
  f.text("offload", run.offload, given.offload);
  f.number("batch", run.batch, given.batch);
  f.number("micro-batch", run.micro_batch, given.micro_batch);
  f.number("global-batch", run.global_batch, given.global_batch);
  f.number("seq", run.seq_len, given.seq_len);
  f.number("gen-tokens", run.gen_tokens, given.gen_tokens);
  f.text("precision", run.precision, given.precision);
  f.text("weights", run.weights, given.weights);
  f.text("kv-cache", run.kv_cache, given.kv_cache);
  f.text("recompute", recompute_of(run), recompute_of(given));
  f.flag("sequence-parallel", run.sequence_parallel, given.sequence_parallel);
  f.text("engine", engine_of(run), engine_of(given));
  f.number("request-rate", run.request_rate, given.request_rate);
  f.number("requests", run.requests, given.requests);
  f.text("framework", run.framework, given.framework);
  f.flag("compile", run.compile, given.compile);
  f.flag("cuda-graphs", run.cuda_graphs, given.cuda_graphs);
  f.text("link", run.link, given.link);
  f.number("gpus-per-node", run.gpus_per_node, given.gpus_per_node);
  f.text("fabric", run.fabric, given.fabric);
  f.number("gpus-per-nic", run.gpus_per_nic, given.gpus_per_nic);
  return f.take();
}

}  // namespace rigplan::report
