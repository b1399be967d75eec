#include "rigplan/validate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "rigplan/memory.h"
#include "util/csv.h"
#include "util/strings.h"

namespace rigplan {
namespace {

constexpr std::string_view kRequiredColumns[] = {
    "group", "ref", "gpu", "num_gpus", "workload", "mode", "precision", "weights", "method",
    "optimizer", "lora_rank", "batch_per_gpu", "seq_len", "grad_checkpointing", "metric",
    "value", "unit", "source"};
constexpr std::string_view kMetrics[] = {"throughput", "peak_memory_gb", "fits"};

class Row {
 public:
  Row(const std::string& path, const CsvRecord& record, const std::map<std::string, size_t>& columns)
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
                                               record_.line, column, cell));
    }
    return value;
  }
  int line() const { return record_.line; }

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

// The run a measurement row describes.
Result<RunConfig> run_of(const Row& row) {
  RunConfig c;
  c.mode = row.text("mode");
  if (c.mode == "prefill" || c.mode == "decode") c.mode = "infer";
  c.precision = row.text("precision");
  c.weights = row.text("weights");
  if (!row.text("method").empty()) c.method = row.text("method");
  if (!row.text("optimizer").empty()) c.optimizer = row.text("optimizer");
  if (!row.text("lora_targets").empty()) c.lora_targets = split_list(row.text("lora_targets"));
  if (!row.text("offload").empty()) c.offload = row.text("offload");
  auto rank = row.number("lora_rank", 8);
  auto batch = row.number("batch_per_gpu", 0);
  auto seq = row.number("seq_len", 0);
  auto gpus = row.number("num_gpus", 1);
  auto ckpt = row.number("grad_checkpointing", 0);
  auto zero = row.number("zero", 0);
  auto pure = row.number("pure_bf16", 0);
  auto flash = row.number("flash_attention", 1);
  auto full_load = row.number("full_state_load", 0);
  for (const auto* r : {&rank, &batch, &seq, &gpus, &ckpt, &zero, &pure, &flash, &full_load}) {
    if (!r->ok()) return r->status();
  }
  c.lora_rank = static_cast<int>(*rank);
  if (*batch > 0) c.batch = static_cast<int>(*batch);
  if (*seq > 0) c.seq_len = static_cast<int>(*seq);
  c.gpus = static_cast<int>(*gpus);
  c.checkpointing = *ckpt != 0;
  c.zero = static_cast<int>(*zero);
  c.pure_16bit = *pure != 0;
  c.flash_attention = *flash != 0;
  c.full_state_load = *full_load != 0;
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ValidationSummary summarize(std::string group, const std::vector<const ValidationRow*>& rows) {
  ValidationSummary s;
  s.group = std::move(group);
  std::vector<double> rel, pct, abs_gb;
  int fits_right = 0, fits_n = 0;
  for (const ValidationRow* r : rows) {
    if (!r->predicted) {
      ++s.skipped;
      continue;
    }
    ++s.n;
    if (r->metric == "throughput") {
      ++s.throughput_rows;
      rel.push_back(*r->error);
    } else if (r->metric == "peak_memory_gb") {
      ++s.memory_rows;
      pct.push_back(*r->error);
      abs_gb.push_back(std::abs(*r->predicted - r->measured));
    } else {
      ++s.fits_rows;
      ++fits_n;
      if (*r->error == 0) ++fits_right;
    }
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  if (!rel.empty()) {
    s.median_rel_err = median(rel);
    s.mean_rel_err = mean(rel);
    s.max_rel_err = *std::max_element(rel.begin(), rel.end());
  }
  if (!pct.empty()) {
    s.mean_abs_pct_err = mean(pct);
    s.mean_abs_err_gb = mean(abs_gb);
  }
  if (fits_n > 0) s.fits_accuracy = static_cast<double>(fits_right) / fits_n;
  return s;
}

}  // namespace

Result<ValidationReport> validate_measurements(const Catalog& catalog, const Zoo& zoo,
                                               const std::string& path, const std::string& csv) {
  const auto records = parse_csv(csv);
  if (records.empty()) return Status::invalid_input(fmt::format("{}: empty file; expected a header", path));
  std::map<std::string, size_t> columns;
  for (size_t i = 0; i < records[0].fields.size(); ++i) columns[records[0].fields[i]] = i;
  std::vector<std::string> missing;
  for (auto column : kRequiredColumns) {
    if (!columns.count(std::string(column))) missing.emplace_back(column);
  }
  if (!missing.empty()) {
    return Status::invalid_input(fmt::format("{}:1: the header lacks {}", path, quoted_list(missing, "and")));
  }

  ValidationReport report;
  for (size_t i = 1; i < records.size(); ++i) {
    const Row row(path, records[i], columns);
    ValidationRow out;
    out.line = row.line();
    out.group = row.text("group");
    out.gpu = row.text("gpu");
    out.workload = row.text("workload");
    out.metric = row.text("metric");
    out.unit = row.text("unit");
    if (std::find(std::begin(kMetrics), std::end(kMetrics), out.metric) == std::end(kMetrics)) {
      const std::vector<std::string> metrics(std::begin(kMetrics), std::end(kMetrics));
      return Status::invalid_input(fmt::format("{}:{}: column 'metric': '{}' is not accepted; expected {}{}",
                                               path, out.line, out.metric, quoted_list(metrics),
                                               did_you_mean(out.metric, metrics)));
    }
    auto value = row.number("value", std::nan(""));
    if (!value) return value.status();
    if (std::isnan(*value)) {
      return Status::invalid_input(fmt::format("{}:{}: column 'value' is empty", path, out.line));
    }
    out.measured = *value;
    auto run = run_of(row);
    if (!run) return run.status();

    auto gpu = catalog.find_gpu(out.gpu);
    auto workload = zoo.find(out.workload);
    if (!gpu) {
      out.skipped = gpu.status().message();
    } else if (!workload) {
      out.skipped = workload.status().message();
    } else if (out.metric == "throughput") {
      out.skipped = "no throughput model yet";
    } else {
      auto estimate = estimate_memory(**workload, **gpu, *run);
      if (!estimate) {
        out.skipped = estimate.status().message();
      } else if (out.metric == "fits") {
        out.predicted = estimate->fits ? 1 : 0;
        out.error = (out.predicted == (out.measured != 0 ? 1 : 0)) ? 0 : 1;
      } else {
        // Measurements by nvidia-smi include the context and the allocator's reserve; those by
        // torch.cuda.max_memory_allocated (the default) count tensors only.
        const bool whole_process = row.text("memory_metric").find("nvidia-smi") != std::string::npos;
        out.predicted = whole_process ? estimate->total_gb : estimate->allocated_gb;
        out.error = std::abs(*out.predicted / out.measured - 1) * 100;
      }
    }
    report.rows.push_back(std::move(out));
  }
  std::vector<const ValidationRow*> all;
  std::vector<std::string> prefixes;
  for (const auto& r : report.rows) {
    all.push_back(&r);
    const std::string prefix = r.group.substr(0, r.group.find('/'));
    if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end()) prefixes.push_back(prefix);
  }
  report.overall = summarize("all", all);
  for (const auto& prefix : prefixes) {
    std::vector<const ValidationRow*> rows;
    for (const auto& r : report.rows) {
      if (r.group.substr(0, r.group.find('/')) == prefix) rows.push_back(&r);
    }
    report.groups.push_back(summarize(prefix, rows));
  }
  return report;
}

}  // namespace rigplan
