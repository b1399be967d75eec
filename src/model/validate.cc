#include "rigplan/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>

#include "model/links.h"
#include "rigplan/engine.h"
#include "rigplan/input.h"
#include "rigplan/memory.h"
#include "util/csv.h"
#include "util/stats.h"
#include "util/strings.h"

namespace rigplan {
namespace {

constexpr std::string_view kRequiredColumns[] = {
    "group",   "ref",    "gpu",       "num_gpus",  "workload",      "mode",    "precision",
    "weights", "method", "optimizer", "lora_rank", "batch_per_gpu", "seq_len", "grad_checkpointing",
    "metric",  "value",  "unit",      "source"};
constexpr std::string_view kMetrics[] = {"throughput", "peak_memory_gb", "fits", "ttft_ms",
                                         "tpot_ms"};
constexpr size_t kShownCell = 40;  // bytes of a bad cell quoted in a message

// Metrics of speed, predicted by the performance models and compared as ratios within groups.
bool is_speed(std::string_view metric) {
  return metric == "throughput" || metric == "ttft_ms" || metric == "tpot_ms";
}

class Row {
 public:
  Row(const std::string& path, const CsvRecord& record,
      const std::map<std::string, size_t>& columns)
      : path_(path), record_(record), columns_(columns) {}

  std::string text(std::string_view column) const {
    auto it = columns_.find(std::string(column));
    if (it == columns_.end() || it->second >= record_.fields.size()) return "";
    return record_.fields[it->second];
  }
  // An integer or number cell; empty cells take `fallback`.
  Result<double> number(std::string_view column, double fallback) const {
    const std::string cell = text(column);
    if (cell.empty()) return fallback;
    double value = 0;
    auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (ec != std::errc() || ptr != cell.data() + cell.size() || !std::isfinite(value)) {
      return Status::invalid_input(fmt::format("{}:{}: column '{}': '{}' is not a number", path_,
                                               record_.line, column,
                                               utf8_prefix(cell, kShownCell)));
    }
    return value;
  }
  // A count cell checked against its field (input.h); empty cells (and 0 where `zero_is_empty`,
  // as files write an unpublished batch) are nullopt.
  Result<std::optional<int>> count(std::string_view column, const input::NumberField& field,
                                   bool zero_is_empty = false) const {
    auto value = number(column, std::nan(""));
    if (!value) return value.status();
    if (std::isnan(*value) || (zero_is_empty && *value == 0)) return std::optional<int>();
    const std::string why = input::problem(field, *value);
    if (!why.empty()) {
      return Status::invalid_input(fmt::format("{}:{}: column '{}': '{}' {}", path_, record_.line,
                                               column, utf8_prefix(text(column), kShownCell), why));
    }
    return std::optional<int>(static_cast<int>(*value));
  }
  // A yes/no cell: 0/1, true/false or yes/no in any case (pandas writes True/False); empty
  // cells take `fallback`.
  Result<bool> flag(std::string_view column, bool fallback) const {
    const std::string cell = to_lower(text(column));
    if (cell.empty()) return fallback;
    if (cell == "1" || cell == "true" || cell == "yes") return true;
    if (cell == "0" || cell == "false" || cell == "no") return false;
    return Status::invalid_input(
        fmt::format("{}:{}: column '{}': '{}' is not accepted; expected 0 or 1, true or false, yes "
                    "or no",
                    path_, record_.line, column, utf8_prefix(text(column), kShownCell)));
  }
  int line() const { return record_.line; }
  const std::string& path() const { return path_; }

 private:
  const std::string& path_;
  const CsvRecord& record_;
  const std::map<std::string, size_t>& columns_;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',' || c == ';' || c == ' ') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

// The choices of a measurement row's run (mode, precision, engine, method, ...) and its component
// lists, as the command line spells them.
void read_run_choices(const Row& row, RunConfig& c) {
  c.mode = row.text("mode");
  c.precision = row.text("precision");
  // A measurement without an engine ran in PyTorch, as every file written before engines did.
  c.engine = row.text("engine").empty() ? "pytorch" : row.text("engine");
  c.kv_cache = row.text("kv_cache");
  c.weights = row.text("weights");
  if (!row.text("method").empty()) c.method = row.text("method");
  if (!row.text("optimizer").empty()) c.optimizer = row.text("optimizer");
  if (!row.text("lora_targets").empty()) c.lora_targets = split_list(row.text("lora_targets"));
  if (!row.text("offload").empty()) c.offload = row.text("offload");
  if (const std::string link = row.text("link"); !link.empty())
    c.link = link == "nvlink" ? "nvlink-bridge" : link;
  if (!row.text("recompute").empty()) c.recompute = row.text("recompute");
  c.fabric = row.text("fabric");
  c.framework = row.text("framework");
  // Component lists, as --train-components takes them ("unet,text_encoder").
  c.train_components = split_list(row.text("train_components"));
  c.cached_components = split_list(row.text("cached_components"));
}

// The counts of a measurement row's run, each within its range (rigplan/input.h); an empty cell
// keeps the default.
Status read_run_counts(const Row& row, RunConfig& c) {
  auto rank = row.count("lora_rank", input::kLoraRank);
  auto batch = row.count("batch_per_gpu", input::kBatch, /*zero_is_empty=*/true);
  auto seq = row.count("seq_len", input::kSeq, /*zero_is_empty=*/true);
  auto gpus = row.count("num_gpus", input::kGpus);
  auto zero = row.count("zero", input::kZero);
  auto tp = row.count("tp", input::kTensorParallel);
  auto pp = row.count("pp", input::kPipelineParallel);
  auto cp = row.count("cp", input::kContextParallel);
  auto ep = row.count("ep", input::kExpertParallel);
  auto vp = row.count("vp", input::kVirtualStages);
  auto micro = row.count("micro_batch", input::kMicroBatch);
  auto global = row.count("global_batch", input::kGlobalBatch);
  auto per_nic = row.count("gpus_per_nic", input::kGpusPerNic);
  auto per_node = row.count("gpus_per_node", input::kGpusPerNode);
  auto chunks = row.count("loss_chunks", input::kLossChunks);
  auto accum = row.count("grad_accum", input::kGradAccum);
  // Inference: the prompt, the tokens generated, the sequences in flight of a serving run.
  auto prompt = row.count("input_len", input::kGenTokens);
  auto output = row.count("output_len", input::kGenTokens);
  auto concurrency = row.count("concurrency", input::kBatch, /*zero_is_empty=*/true);
  for (const auto* r : {&rank, &batch, &seq, &gpus, &zero, &tp, &pp, &cp, &ep, &vp, &micro, &global,
                        &per_nic, &per_node, &chunks, &accum, &prompt, &output, &concurrency}) {
    if (!r->ok()) return r->status();
  }
  c.lora_rank = rank->value_or(c.lora_rank);
  c.batch = *batch;
  c.seq_len = *seq;
  c.gpus = gpus->value_or(1);
  c.zero = zero->value_or(0);
  c.tensor_parallel = tp->value_or(1);
  c.pipeline_parallel = pp->value_or(1);
  c.context_parallel = cp->value_or(1);
  c.expert_parallel = ep->value_or(1);
  c.virtual_stages = vp->value_or(1);
  c.micro_batch = *micro;
  c.global_batch = *global;
  c.gpus_per_nic = per_nic->value_or(1);
  c.gpus_per_node = *per_node;
  c.loss_chunks = chunks->value_or(c.loss_chunks);
  c.grad_accum = accum->value_or(1);
  // Inference: the prompt (at least one token of context), the tokens generated and the
  // sequences in flight of a serving run.
  if (*prompt) c.seq_len = std::max(1, **prompt);
  c.gen_tokens = output->value_or(0);
  if (*concurrency) c.batch = *concurrency;
  return {};
}

// The request rate of a serving run, requests/s; 0 when the cell is empty.
Result<double> read_request_rate(const Row& row) {
  auto rate = row.number("request_rate", 0);
  if (!rate) return rate.status();
  if (*rate == 0) return 0.0;
  if (const std::string why = input::problem(input::kRequestRate, *rate); !why.empty()) {
    return Status::invalid_input(
        fmt::format("{}:{}: column 'request_rate': '{}' {}", row.path(), row.line(),
                    utf8_prefix(row.text("request_rate"), kShownCell), why));
  }
  return *rate;
}

// The switches of a measurement row's run: checkpointing, pure 16 bit, flash attention, ...
Status read_run_flags(const Row& row, RunConfig& c) {
  auto ckpt = row.flag("grad_checkpointing", false);
  auto pure = row.flag("pure_bf16", false);
  auto flash = row.flag("flash_attention", true);
  auto full_load = row.flag("full_state_load", false);
  auto act_offload = row.flag("activation_offload", false);
  auto in_backward = row.flag("optimizer_in_backward", false);
  auto sequence_parallel = row.flag("sequence_parallel", false);
  auto compile = row.flag("compile", false);
  auto cuda_graphs = row.flag("cuda_graphs", false);
  for (const auto* f : {&ckpt, &pure, &flash, &full_load, &act_offload, &in_backward,
                        &sequence_parallel, &compile, &cuda_graphs}) {
    if (!f->ok()) return f->status();
  }
  c.compile = *compile;
  c.cuda_graphs = *cuda_graphs;
  c.checkpointing = *ckpt;
  c.sequence_parallel = *sequence_parallel;
  c.pure_16bit = *pure;
  c.flash_attention = *flash;
  c.full_state_load = *full_load;
  c.activation_offload = *act_offload;
  c.optimizer_in_backward = *in_backward;
  return {};
}

// The run a measurement row describes.
Result<RunConfig> run_of(const Row& row) {
  RunConfig c;
  read_run_choices(row, c);
  if (Status s = read_run_counts(row, c); !s.ok()) return s;
  auto rate = read_request_rate(row);
  if (!rate) return rate.status();
  // A finite run's requests (a benchmark's count); empty: an unending stream.
  auto requests = row.count("requests", input::kRequests, /*zero_is_empty=*/true);
  if (!requests.ok()) return requests.status();
  if (Status s = read_run_flags(row, c); !s.ok()) return s;
  if (*rate > 0) c.request_rate = *rate;
  c.requests = *requests;
  return c;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

ValidationSummary summarize(std::string group, const std::vector<const ValidationRow*>& rows) {
  ValidationSummary s;
  s.group = std::move(group);
  std::vector<double> rel, abs_rel, base, pct, abs_gb, absolute;
  int fits_right = 0, fits_n = 0;
  for (const ValidationRow* r : rows) {
    if (!r->predicted) {
      ++s.skipped;
      continue;
    }
    ++s.n;
    if (is_speed(r->metric)) {
      ++s.throughput_rows;
      if (r->absolute) {
        ++s.n_absolute;
        absolute.push_back(*r->abs_error);
        continue;
      }
      if (!r->is_ref) {
        rel.push_back(*r->error);
        if (r->baseline_error) base.push_back(*r->baseline_error);
      }
      abs_rel.push_back(*r->abs_error);
    } else if (r->metric == "peak_memory_gb") {
      ++s.memory_rows;
      pct.push_back(*r->error);
      abs_gb.push_back(std::abs(*r->predicted - r->measured));
      ++fits_n;
      if (*r->fit_error == 0) ++fits_right;
    } else {
      ++s.fits_rows;
      ++fits_n;
      if (*r->error == 0) ++fits_right;
    }
  }
  if (!rel.empty()) {
    s.median_rel_err = median(rel);
    s.mean_rel_err = mean(rel);
    s.max_rel_err = *std::max_element(rel.begin(), rel.end());
  }
  if (!abs_rel.empty()) s.median_abs_err = median(abs_rel);
  if (!absolute.empty()) {
    s.median_abs_rel_err = median(absolute);
    s.mean_abs_rel_err = mean(absolute);
  }
  if (!base.empty()) {
    s.baseline_median_rel_err = median(base);
    s.baseline_mean_rel_err = mean(base);
  }
  if (!pct.empty()) {
    s.mean_abs_pct_err = mean(pct);
    s.mean_abs_err_gb = mean(abs_gb);
  }
  if (fits_n > 0) s.fits_accuracy = static_cast<double>(fits_right) / fits_n;
  return s;
}

// The rows marked fit or held-out, per group prefix that has them and overall.
std::vector<ValidationSummary> split_summaries(const std::vector<ValidationRow>& rows,
                                               const std::vector<std::string>& prefixes) {
  std::vector<ValidationSummary> out;
  for (const std::string_view split : {"fit", "held-out"}) {
    std::vector<const ValidationRow*> all;
    for (const auto& prefix : prefixes) {
      std::vector<const ValidationRow*> in;
      for (const auto& r : rows) {
        if (r.split == split && r.group.substr(0, r.group.find('/')) == prefix) in.push_back(&r);
      }
      if (in.empty()) continue;
      out.push_back(summarize(fmt::format("{}, {}", prefix, split), in));
      all.insert(all.end(), in.begin(), in.end());
    }
    if (!all.empty()) out.push_back(summarize(fmt::format("all, {}", split), all));
  }
  return out;
}

// A parsed measurement file: rows with their runs resolved against the catalog and zoo.
struct Parsed {
  std::vector<ValidationRow> rows;
  std::vector<const Gpu*> gpus;
  std::vector<const Workload*> workloads;
  std::vector<RunConfig> runs;
  std::vector<std::string> ref_flags;
  std::vector<bool> whole_process;  // memory measured by nvidia-smi: context and reserve included
  std::deque<Workload> resized;     // zoo workloads at a row's `resolution`
};

// A file that is not UTF-8 is refused at its first bad byte, by line and column.
Status check_utf8(const std::string& path, const std::string& csv) {
  const auto at = invalid_utf8_at(csv);
  if (!at) return {};
  const std::string_view before = std::string_view(csv).substr(0, *at);
  const size_t line_start =
      before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  return Status::invalid_input(
      fmt::format("{}:{}:{}: byte 0x{:02x} is not valid UTF-8; save the file as UTF-8", path,
                  std::count(before.begin(), before.end(), '\n') + 1, *at - line_start + 1,
                  static_cast<unsigned char>(csv[*at])));
}

// The header's columns by name, with every required column present.
Result<std::map<std::string, size_t>> header_columns(const std::string& path,
                                                     const std::vector<CsvRecord>& records) {
  if (records.empty())
    return Status::invalid_input(fmt::format("{}: empty file; expected a header", path));
  std::map<std::string, size_t> columns;
  for (size_t i = 0; i < records[0].fields.size(); ++i) columns[records[0].fields[i]] = i;
  std::vector<std::string> missing;
  for (auto column : kRequiredColumns) {
    if (!columns.count(std::string(column))) missing.emplace_back(column);
  }
  if (!missing.empty()) {
    return Status::invalid_input(
        fmt::format("{}:1: the header lacks {}", path, quoted_list(missing, "and")));
  }
  return columns;
}

// What a row measured: its group, GPU and workload as written, the split, the metric and the
// value, checked against the metric.
Result<ValidationRow> measurement_of(const Row& row) {
  ValidationRow out;
  out.line = row.line();
  out.group = row.text("group");
  out.gpu = row.text("gpu");
  out.workload = row.text("workload");
  out.split = row.text("split");
  if (!out.split.empty() && out.split != "fit" && out.split != "held-out") {
    return Status::invalid_input(
        fmt::format("{}:{}: column 'split': '{}' is not accepted; expected 'fit' or 'held-out'",
                    row.path(), out.line, out.split));
  }
  out.metric = row.text("metric");
  out.unit = row.text("unit");
  if (std::find(std::begin(kMetrics), std::end(kMetrics), out.metric) == std::end(kMetrics)) {
    const std::vector<std::string> metrics(std::begin(kMetrics), std::end(kMetrics));
    return Status::invalid_input(fmt::format(
        "{}:{}: column 'metric': '{}' is not accepted; expected {}{}", row.path(), out.line,
        shown(out.metric), quoted_list(metrics), did_you_mean(out.metric, metrics)));
  }
  auto value = row.number("value", std::nan(""));
  if (!value) return value.status();
  if (std::isnan(*value)) {
    return Status::invalid_input(
        fmt::format("{}:{}: column 'value' is empty", row.path(), out.line));
  }
  const bool fits = out.metric == "fits";
  if (const std::string why = input::problem(input::kMeasuredValue, *value);
      fits ? *value != 0 && *value != 1 : !why.empty()) {
    return Status::invalid_input(fmt::format(
        "{}:{}: column 'value': '{}' {}", row.path(), out.line,
        utf8_prefix(row.text("value"), kShownCell),
        fits ? "is not accepted for metric 'fits'; expected 0 (does not fit) or 1 (fits)" : why));
  }
  out.measured = *value;
  return out;
}

// A row's link "nvlink" is the GPU's own NVLink where its board wires one (the cube mesh of a
// DGX-1's SXM2 modules, which take no bridge); read_run_choices took it for a bridge.
void board_nvlink(const Row& row, const Gpu& gpu, RunConfig& run) {
  if (row.text("link") == "nvlink" && gpu.gpu_link == "nvlink-cube-mesh") run.link = gpu.gpu_link;
}

// Adds a row with its run, GPU and workload (at the row's `resolution`) resolved; a GPU or
// workload the catalog or zoo lacks skips the row with the reason.
Status add_row(const Catalog& catalog, const Zoo& zoo, const Row& row, Parsed& parsed) {
  auto measured = measurement_of(row);
  if (!measured) return measured.status();
  ValidationRow& out = measured.value();
  auto run = run_of(row);
  if (!run) return run.status();
  // The frameworks the shipped calibration defines (data/calibration/perf.toml).
  if (auto framework = embedded_calibration().framework(run->framework); !framework) {
    return Status::invalid_input(fmt::format("{}:{}: column 'framework': {}", row.path(), out.line,
                                             framework.status().message()));
  }
  if (auto network = network_for(*run, catalog); !network) {
    return Status::invalid_input(fmt::format("{}:{}: column 'fabric': {}", row.path(), out.line,
                                             network.status().message()));
  }
  auto gpu = catalog.find_gpu(out.gpu);
  auto workload = zoo.find(out.workload);
  auto resolution = row.count("resolution", input::kResolution);
  if (!resolution) return resolution.status();
  if (workload && *resolution) {
    auto resized = at_resolution(**workload, **resolution);
    if (!resized) {
      return Status::invalid_input(fmt::format("{}:{}: column 'resolution': {}", row.path(),
                                               out.line, resized.status().message()));
    }
    parsed.resized.push_back(std::move(resized).value());
    workload = &parsed.resized.back();
  }
  if (gpu) board_nvlink(row, **gpu, *run);
  if (!gpu)
    out.skipped = gpu.status().message();
  else if (!workload)
    out.skipped = workload.status().message();
  if (workload) out.workload_class = workload_class(**workload);
  // Inference rows are classed by engine and phase (or latency metric); a release of an engine
  // (tensorrt-llm@0.17) in its engine's class.
  if (workload && run->mode != "train" && (*workload)->transformer) {
    auto engine = embedded_engines().find_engine(run->engine);
    out.workload_class = fmt::format("{} {}", engine ? (*engine)->id : run->engine,
                                     out.metric == "throughput" ? run->mode : out.metric);
  }
  parsed.gpus.push_back(gpu ? *gpu : nullptr);
  parsed.workloads.push_back(workload ? *workload : nullptr);
  parsed.runs.push_back(*run);
  parsed.ref_flags.push_back(row.text("ref"));
  parsed.whole_process.push_back(row.text("memory_metric").find("nvidia-smi") != std::string::npos);
  parsed.rows.push_back(std::move(out));
  return {};
}

Result<Parsed> parse_file(const Catalog& catalog, const Zoo& zoo, const std::string& path,
                          const std::string& csv) {
  if (Status s = check_utf8(path, csv); !s.ok()) return s;
  const auto records = parse_csv(csv);
  auto columns = header_columns(path, records);
  if (!columns) return columns.status();
  Parsed parsed;
  for (size_t i = 1; i < records.size(); ++i) {
    if (Status s = add_row(catalog, zoo, Row(path, records[i], *columns), parsed); !s.ok())
      return s;
  }
  return parsed;
}

// Speed rows (throughput, TTFT, TPOT) as samples: those of groups with a predictable ref row,
// and those of groups without any ref, scored on their own (absolute rows); `row_of` maps
// sample -> row.
std::vector<ThroughputSample> samples_of(Parsed& parsed, std::vector<size_t>& row_of) {
  std::map<std::pair<std::string, std::string>, size_t> ref_row;
  for (size_t i = 0; i < parsed.rows.size(); ++i) {
    if (is_speed(parsed.rows[i].metric) && parsed.ref_flags[i] == "1")
      ref_row[{parsed.rows[i].group, parsed.rows[i].metric}] = i;
  }
  std::vector<ThroughputSample> samples;
  std::map<size_t, int> sample_of_row;
  // Refs first, so that every sample's ref has an index.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < parsed.rows.size(); ++i) {
      ValidationRow& r = parsed.rows[i];
      if (!is_speed(r.metric) || !r.skipped.empty()) continue;
      const bool is_ref = parsed.ref_flags[i] == "1";
      if ((pass == 0) != is_ref) continue;
      auto ref = ref_row.find({r.group, r.metric});
      r.absolute = ref == ref_row.end();
      if (!r.absolute &&
          (!parsed.rows[ref->second].skipped.empty() || !sample_of_row.count(ref->second))) {
        if (!is_ref) r.skipped = "its group has no predictable ref row";
        if (!is_ref) continue;
      }
      ThroughputSample s{parsed.workloads[i], parsed.gpus[i], parsed.runs[i], r.measured, -1};
      s.metric = r.metric;
      s.absolute = r.absolute;
      s.held_out = r.split == "held-out";
      // It was measured, so it ran: at the published batch, or where the batch was not published
      // and the workload's default does not fit, at the largest batch that does (as benchmarks
      // size their batches to the card).
      if (!s.run.batch) {
        auto memory = estimate_memory(*s.workload, *s.gpu, s.run);
        if (memory && !memory->fits && memory->max_batch >= 1) s.run.batch = memory->max_batch;
      }
      s.run.known_to_fit = true;
      r.batch_per_gpu = s.run.batch.value_or(s.workload->default_batch);
      sample_of_row[i] = static_cast<int>(samples.size());
      s.ref = is_ref || r.absolute ? static_cast<int>(samples.size()) : sample_of_row[ref->second];
      r.is_ref = is_ref;
      samples.push_back(s);
      row_of.push_back(i);
    }
  }
  return samples;
}

}  // namespace

std::vector<bool> calibration_set(const std::vector<ThroughputSample>& samples) {
  // A group compares GPUs (rather than GPU counts) when all its rows run on as many GPUs as
  // its ref row.
  std::map<int, bool> single;
  for (const auto& s : samples) {
    auto [it, fresh] = single.emplace(s.ref, true);
    it->second = it->second && s.run.gpus == samples[static_cast<size_t>(s.ref)].run.gpus;
  }
  std::vector<bool> out;
  for (const auto& s : samples) out.push_back(single[s.ref] && !s.held_out);
  return out;
}

namespace {

// Memory and fits rows: the memory model's estimate against the measurement.
void score_memory_rows(Parsed& parsed) {
  for (size_t i = 0; i < parsed.rows.size(); ++i) {
    ValidationRow& out = parsed.rows[i];
    if (is_speed(out.metric) || !out.skipped.empty()) continue;
    auto estimate = estimate_memory(*parsed.workloads[i], *parsed.gpus[i], parsed.runs[i], false);
    if (!estimate) {
      out.skipped = estimate.status().message();
    } else if (out.metric == "fits") {
      out.predicted = estimate->fits ? 1 : 0;
      out.error = (out.predicted == (out.measured != 0 ? 1 : 0)) ? 0 : 1;
    } else {
      // nvidia-smi measurements include the context and the allocator's reserve;
      // torch.cuda.max_memory_allocated (the default) counts tensors only.
      out.predicted = parsed.whole_process[i] ? estimate->total_gb : estimate->allocated_gb;
      out.error = std::abs(*out.predicted / out.measured - 1) * 100;
      out.fit_error = estimate->fits ? 0 : 1;  // it was measured, so it fit
    }
  }
}

// Speed predictions, and with a leave-one-out option each sample's ratio (ValidationRow::ratio)
// as the calibration that never saw its GPU (or its GPU's calibration key) predicts it.
struct SpeedPredictions {
  std::vector<double> predicted;
  std::vector<std::optional<double>> held_out_ratio;
};

// A speed sample's predicted over measured (ValidationRow::ratio): each as a ratio to its group's
// ref sample, or on its own for an absolute row.
double speed_ratio(const ThroughputSample& s, const ThroughputSample& ref, double predicted,
                   double predicted_ref) {
  return s.absolute ? predicted / s.measured
                    : (predicted / predicted_ref) / (s.measured / ref.measured);
}

// What a leave-one-out validation holds out together: the GPU's id, or its calibration key.
std::string held_out_key(const Gpu& gpu, LeaveOut leave_out) {
  return leave_out == LeaveOut::kArchitecture ? calibration_key(gpu) : gpu.id;
}

// The held-out samples (those whose key is `held_out`) and their refs, predicted by a
// calibration fitted, from the fixed prior as `rigplan calibrate` fits (`prior`: fit_prior of
// the calibration validated), on the cross-GPU samples of every other
// key: starting from a calibration fitted on every GPU would let the held-out rows in through
// the starting point.
void predict_held_out(const std::vector<ThroughputSample>& samples,
                      const std::vector<bool>& fit_set, LeaveOut leave_out,
                      const std::string& held_out, const Calibration& prior, const Catalog& catalog,
                      SpeedPredictions& out) {
  std::vector<bool> use(samples.size());
  for (size_t i = 0; i < samples.size(); ++i)
    use[i] = fit_set[i] && held_out_key(*samples[i].gpu, leave_out) != held_out;
  const Calibration fitted = fit_calibration(samples, use, prior, catalog);
  std::vector<ThroughputSample> pairs;
  std::vector<size_t> index;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (held_out_key(*samples[i].gpu, leave_out) != held_out) continue;
    for (size_t j : {i, static_cast<size_t>(samples[i].ref)}) {
      pairs.push_back(samples[j]);
      index.push_back(j);
    }
  }
  const auto values = predict_samples(pairs, fitted, catalog);
  for (size_t k = 0; k < values.size(); k += 2) {
    const size_t i = index[k], r = index[k + 1];
    out.predicted[i] = values[k];
    if (values[k] > 0 && values[k + 1] > 0) {
      out.held_out_ratio[i] = speed_ratio(samples[i], samples[r], values[k], values[k + 1]);
    }
  }
}

SpeedPredictions predict_speeds(const std::vector<ThroughputSample>& samples,
                                const Calibration& calibration, const ValidateOptions& options,
                                const Catalog& catalog) {
  SpeedPredictions out{std::vector<double>(samples.size(), 0),
                       std::vector<std::optional<double>>(samples.size())};
  if (options.leave_out == LeaveOut::kNothing) {
    out.predicted = predict_samples(samples, calibration, catalog);
    return out;
  }
  const std::vector<bool> fit_set = calibration_set(samples);
  std::vector<std::string> keys;
  for (const auto& s : samples) {
    std::string key = held_out_key(*s.gpu, options.leave_out);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  const Calibration prior = fit_prior(calibration);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (options.progress) options.progress(k, keys.size());
    predict_held_out(samples, fit_set, options.leave_out, keys[k], prior, catalog, out);
  }
  if (options.progress) options.progress(keys.size(), keys.size());
  return out;
}

// Why a speed row has no prediction, from what preparing its run found (prepare_samples): the
// run's own error or the refusal of its software stack.
std::string unpredictable(const ThroughputSample& s) {
  if (s.prepared && !s.prepared->facts) return s.prepared->facts.status().message();
  if (s.prepared && !s.prepared->stack.refusal.empty()) return s.prepared->stack.refusal;
  return "the run cannot be predicted";
}

// Speed rows: the prediction's error as a ratio to the group's ref row (or on its own, an
// absolute row), and the error of the spec-ratio guess.
void score_speed_rows(const std::vector<ThroughputSample>& samples,
                      const std::vector<size_t>& row_of, const SpeedPredictions& speeds,
                      bool held_out, std::vector<ValidationRow>& rows) {
  const std::vector<double>& predicted = speeds.predicted;
  for (size_t i = 0; i < samples.size(); ++i) {
    ValidationRow& out = rows[row_of[i]];
    const size_t r = static_cast<size_t>(samples[i].ref);
    const bool predictable =
        held_out ? speeds.held_out_ratio[i].has_value() : predicted[i] > 0 && predicted[r] > 0;
    if (!predictable) {
      const bool own = predicted[i] <= 0 || r == i;
      out.skipped = own ? unpredictable(samples[i])
                        : "its group's ref row cannot be predicted: " + unpredictable(samples[r]);
      continue;
    }
    out.predicted = predicted[i];
    out.abs_error = std::abs(predicted[i] / out.measured - 1);
    out.workload_class +=
        samples[i].run.gpus > 1 || samples[r].run.gpus > 1 ? ", multi-GPU" : ", 1 GPU";
    out.ratio = out.is_ref ? 1
                : held_out ? *speeds.held_out_ratio[i]
                           : speed_ratio(samples[i], samples[r], predicted[i], predicted[r]);
    out.error = std::abs(*out.ratio - 1);
    if (out.absolute) continue;
    // The spec-ratio guess: throughput proportional to GPUs × memory bandwidth (latencies
    // inversely).
    double guess = samples[i].run.gpus * samples[i].gpu->mem_bandwidth_gbps /
                   (samples[r].run.gpus * samples[r].gpu->mem_bandwidth_gbps);
    if (out.metric != "throughput") guess = 1 / guess;
    out.baseline_error = std::abs(guess / (out.measured / samples[r].measured) - 1);
  }
}

// The rows of `report` that `keep` selects, summarized as `group`.
template <typename Keep>
ValidationSummary summarize_where(const ValidationReport& report, std::string group, Keep keep) {
  std::vector<const ValidationRow*> rows;
  for (const auto& r : report.rows) {
    if (keep(r)) rows.push_back(&r);
  }
  return summarize(std::move(group), rows);
}

// The summaries of the scored rows: overall, per group prefix, per workload class of the speed
// rows, per split, and every class with one GPU and with several apart (the accuracy bars of
// docs/performance.md).
void summarize_report(ValidationReport& report) {
  std::vector<std::string> prefixes, classes;
  for (const auto& r : report.rows) {
    const std::string prefix = r.group.substr(0, r.group.find('/'));
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end())
      prefixes.push_back(prefix);
    if (is_speed(r.metric) && !r.workload_class.empty() &&
        std::find(classes.begin(), classes.end(), r.workload_class) == classes.end()) {
      classes.push_back(r.workload_class);
    }
  }
  report.overall = summarize_where(report, "all", [](const ValidationRow&) { return true; });
  for (const auto& prefix : prefixes) {
    report.groups.push_back(summarize_where(report, prefix, [&](const ValidationRow& r) {
      return r.group.substr(0, r.group.find('/')) == prefix;
    }));
  }
  for (const auto& cls : classes) {
    report.classes.push_back(summarize_where(report, cls, [&](const ValidationRow& r) {
      return is_speed(r.metric) && r.workload_class == cls;
    }));
  }
  report.splits = split_summaries(report.rows, prefixes);
  for (const std::string_view count : {", 1 GPU", ", multi-GPU"}) {
    auto in_class = [&](const ValidationRow& r) {
      return is_speed(r.metric) && r.workload_class.ends_with(count);
    };
    if (std::any_of(report.rows.begin(), report.rows.end(), in_class))
      report.classes.push_back(summarize_where(report, fmt::format("all{}", count), in_class));
  }
}

}  // namespace

Result<std::vector<ThroughputSample>> throughput_samples(const Catalog& catalog, const Zoo& zoo,
                                                         const std::string& path,
                                                         const std::string& csv,
                                                         std::vector<std::string>* groups) {
  auto parsed = parse_file(catalog, zoo, path, csv);
  if (!parsed) return parsed.status();
  std::vector<size_t> row_of;
  auto samples = samples_of(parsed.value(), row_of);
  prepare_samples(samples, catalog);
  if (groups) {
    for (size_t i : row_of) groups->push_back(parsed->rows[i].group);
  }
  return samples;
}

Result<ValidationReport> validate_measurements(const Catalog& catalog, const Zoo& zoo,
                                               const std::string& path, const std::string& csv,
                                               const ValidateOptions& options) {
  auto parsed_or = parse_file(catalog, zoo, path, csv);
  if (!parsed_or) return parsed_or.status();
  Parsed& parsed = parsed_or.value();
  const Calibration calibration =
      options.calibration ? *options.calibration : embedded_calibration();
  score_memory_rows(parsed);
  // Throughput rows: ratios to the group's ref row.
  std::vector<size_t> row_of;
  std::vector<ThroughputSample> samples = samples_of(parsed, row_of);
  prepare_samples(samples, catalog);
  const SpeedPredictions speeds = predict_speeds(samples, calibration, options, catalog);
  score_speed_rows(samples, row_of, speeds, options.leave_out != LeaveOut::kNothing, parsed.rows);
  ValidationReport report;
  report.rows = std::move(parsed.rows);
  report.leave_out = options.leave_out;
  summarize_report(report);
  return report;
}

}  // namespace rigplan
