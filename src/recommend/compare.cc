// compare_gpus(): one prediction and one value per GPU (or whole system of several), relative to
// the reference's throughput.
#include "rigplan/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "model/framework_speed.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan {
namespace {

// One entry of --gpus: "rtx-4090" (one GPU) or "2x rtx-3090" (a system of two).
struct Entry {
  const Gpu* gpu = nullptr;
  int count = 1;
  bool counted = false;  // written with a count
  bool operator==(const Entry& o) const { return gpu == o.gpu && count == o.count; }
};

// "2x rtx-3090", "2 x rtx-3090" or "2×rtx-3090" split into the count and the name, or nullopt:
// ^\s*([-+0-9.eE]+)\s*(x|×)\s*(.+)$, read by hand, since std::regex recurses per character and
// overflows the stack on a long name.
std::optional<std::pair<std::string, std::string>> split_count(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const auto skip = [&](size_t from, std::string_view chars) {
    return std::min(text.find_first_not_of(chars, from), text.size());
  };
  const size_t count = skip(0, kSpace);
  const size_t count_end = skip(count, "-+0123456789.eE");
  if (count_end == count) return std::nullopt;
  std::string_view rest = text.substr(skip(count_end, kSpace));
  constexpr std::string_view kTimes = "×";
  if (rest.starts_with('x')) {
    rest.remove_prefix(1);
  } else if (rest.starts_with(kTimes)) {
    rest.remove_prefix(kTimes.size());
  } else {
    return std::nullopt;
  }
  const std::string_view name = rest.substr(std::min(rest.find_first_not_of(kSpace), rest.size()));
  if (name.empty() || name.find_first_of("\n\r") != std::string_view::npos) return std::nullopt;
  return std::pair{std::string(text.substr(count, count_end - count)), std::string(name)};
}

// The count of "2x rtx-3090", "2 x rtx-3090" or "2×rtx-3090", checked as predict's --gpus.
Result<Entry> parse_entry(const std::string& text, const Catalog& catalog) {
  Entry e;
  std::string name = text;
  if (const auto counted = split_count(text)) {
    const std::string& count = counted->first;
    char* end = nullptr;
    const double value = std::strtod(count.c_str(), &end);
    const std::string why =
        end != count.c_str() + count.size()
            ? fmt::format("is not a number; expected {}", input::kGpus.accepted())
            : input::problem(input::kGpus, value);
    if (!why.empty()) {
      return Status::invalid_input(
          fmt::format("--gpus {}: the count {} {}", shown(text), shown(count), why));
    }
    e.count = static_cast<int>(value);
    e.counted = true;
    name = counted->second;
  }
  auto g = catalog.find_gpu(trim(name));
  if (!g) return g.status();
  e.gpu = *g;
  return e;
}

// The entries in order, the reference first when --reference names one not among them.
Result<std::vector<Entry>> resolve_entries(const CompareRequest& r, const Catalog& catalog,
                                           Entry* reference) {
  if (Status s = input::check_list("gpus", r.gpus.size()); !s.ok()) return s;
  std::vector<Entry> entries;
  for (const auto& text : r.gpus) {
    auto e = parse_entry(text, catalog);
    if (!e) return e.status();
    entries.push_back(*e);
  }
  if (!entries.empty()) *reference = entries.front();
  if (!r.reference.empty()) {
    auto e = parse_entry(r.reference, catalog);
    if (!e) return e.status();
    *reference = *e;
    if (std::find(entries.begin(), entries.end(), *e) == entries.end())
      entries.insert(entries.begin(), *e);
  }
  if (entries.empty()) return Status::invalid_input("--gpus names no GPU");
  return entries;
}

std::string entry_name(const ComparedGpu& g, bool systems) {
  return systems ? fmt::format("{}x {}", g.count, g.gpu->id) : g.gpu->id;
}

// The reference's throughput. A reference that cannot hold even one sample gives its place to the
// first compared GPU that can, and the comparison says so; 0 when none can.
double reference_throughput(Comparison& c) {
  auto has_speed = [](const ComparedGpu& g) { return g.prediction.throughput > 0; };
  auto ref = std::find_if(c.gpus.begin(), c.gpus.end(), [&](const ComparedGpu& g) {
    return g.gpu == c.reference && g.count == c.reference_count;
  });
  if (has_speed(*ref)) return ref->prediction.throughput;
  auto other = std::find_if(c.gpus.begin(), c.gpus.end(), has_speed);
  if (other == c.gpus.end()) {
    c.notes.push_back(
        fmt::format("No compared GPU holds {} at batch 1: {}", c.workload, ref->prediction.note));
    return 0;
  }
  c.notes.push_back(
      fmt::format("{} cannot hold {} at batch 1 ({:.1f} GB of {:.1f} GB); relative "
                  "to {}, the first GPU that can",
                  entry_name(*ref, c.systems), c.workload, ref->prediction.memory_gb,
                  ref->prediction.capacity_gb, entry_name(*other, c.systems)));
  c.reference = other->gpu;
  c.reference_count = other->count;
  return other->prediction.throughput;
}

// What a comparison under --compile or --cuda-graphs ran: every GPU's step alike.
std::string compiled_note(const RunConfig& run) {
  std::vector<std::string> how;
  if (run.compile) how.emplace_back("torch.compile (pointwise and norm chains fused)");
  if (run.cuda_graphs) how.emplace_back("CUDA graphs (0.5 µs a launch)");
  return fmt::format(
      "every GPU's training step under {}; `rigplan predict --explain` shows what changed against "
      "eager PyTorch",
      join(how, " and "));
}

}  // namespace

Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& r,
                                const Catalog& catalog, const Calibration& calibration) {
  Comparison out;
  Entry reference;
  auto entries = resolve_entries(r, catalog, &reference);
  if (!entries) return entries.status();
  out.reference = reference.gpu;
  out.reference_count = reference.count;
  out.systems =
      std::any_of(entries->begin(), entries->end(), [](const Entry& e) { return e.counted; });
  out.workload = workload.id;
  out.requested_batch = r.run.batch.value_or(workload.default_batch);
  out.batch_given = r.run.batch.has_value();
  // A card that cannot hold the batch runs the largest batch it can hold, as its owner would (and
  // as Lambda's benchmarks do); only --offload cpu runs it offloaded at the batch asked.
  out.offload = r.run.offload == "cpu";
  const bool shrink_batch = !out.offload;
  for (const Entry& e : *entries) {
    RunConfig run = r.run;
    run.gpus = e.count;
    auto p = predict_largest_fitting(workload, *e.gpu, run, calibration, catalog, shrink_batch);
    if (!p) return p.status();
    // An LLM served that does not fit keeps its engine's times (inference_perf.cc); compared, it
    // has no speed unless offloaded, as a training run that does not fit.
    if (!p->fits && !out.offload) p->throughput = 0;
    out.gpus.push_back({e.gpu, e.count, std::move(p).value(), {}});
  }
  const double ref_throughput = reference_throughput(out);
  if (r.run.compile || r.run.cuda_graphs) out.notes.push_back(compiled_note(r.run));
  for (const ComparedGpu& c : out.gpus) {  // a stack that lags a GPU's silicon, once per GPU
    const auto& m = c.prediction.maturity;
    const std::string note = m ? maturity_note(*m, c.gpu->id) : "";
    if (m && std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end())
      out.notes.push_back(note);
  }
  out.precision = out.gpus.front().prediction.config.precision;
  for (ComparedGpu& c : out.gpus) {
    const Prediction& p = c.prediction;
    if (out.systems) {
      c.value =
          system_value(workload, *c.gpu, c.count, p.config, p.throughput, ref_throughput, catalog);
      continue;
    }
    auto v = gpu_value(workload, *c.gpu, p.config, p.throughput, ref_throughput, catalog,
                       calibration, shrink_batch);
    if (!v) return v.status();
    c.value = std::move(v).value();
  }
  return out;
}

}  // namespace rigplan
