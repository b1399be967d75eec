#include <fmt/format.h>

#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

Json summary_json(const ValidationSummary& s) {
  auto opt = [](const std::optional<double>& v) -> Json {
    if (!v) return nullptr;
    return std::round(*v * 10000) / 10000;
  };
  return {{"group", s.group},
          {"n", s.n},
          {"skipped", s.skipped},
          {"median_rel_err", opt(s.median_rel_err)},
          {"mean_rel_err", opt(s.mean_rel_err)},
          {"max_rel_err", opt(s.max_rel_err)},
          {"mean_abs_pct_err", opt(s.mean_abs_pct_err)},
          {"mean_abs_err_gb", opt(s.mean_abs_err_gb)},
          {"fits_accuracy", opt(s.fits_accuracy)},
          {"median_abs_err", opt(s.median_abs_err)},
          {"baseline_median_rel_err", opt(s.baseline_median_rel_err)},
          {"baseline_mean_rel_err", opt(s.baseline_mean_rel_err)},
          {"n_absolute", s.n_absolute},
          {"median_abs_rel_err", opt(s.median_abs_rel_err)},
          {"mean_abs_rel_err", opt(s.mean_abs_rel_err)},
          {"throughput_rows", s.throughput_rows},
          {"memory_rows", s.memory_rows},
          {"fits_rows", s.fits_rows}};
}

std::string pct(const std::optional<double>& v, double scale) {
  return v ? fmt::format("{:.1f}%", *v * scale) : "-";
}

// The scored rows, one line each, then the rows that could not be predicted and why.
std::string scored_rows_text(const ValidationReport& report) {
  using A = Table::Align;
  Table rows({{"line", A::kRight},
              {"group"},
              {"gpu"},
              {"metric"},
              {"measured", A::kRight},
              {"predicted", A::kRight},
              {"error", A::kRight}});
  std::vector<const ValidationRow*> skipped;
  for (const auto& r : report.rows) {
    if (!r.predicted) {
      skipped.push_back(&r);
      continue;
    }
    std::string error = r.metric == "fits" ? (*r.error == 0 ? "right" : "WRONG")
                        : r.metric == "peak_memory_gb"
                            ? fmt::format("{:.1f}%{}", *r.error,
                                          r.fit_error == 1.0 ? " (predicted not to fit)" : "")
                            : fmt::format("{:.1f}%", *r.error * 100);
    if (r.absolute) error += " (abs)";
    rows.add_row({std::to_string(r.line), r.group, r.gpu, r.metric, format_number(r.measured),
                  fmt::format("{:.2f}", *r.predicted), error});
  }
  std::string out = rows.render();
  if (!skipped.empty()) {
    out += fmt::format("\n{} rows not predicted:\n", skipped.size());
    for (const auto* r : skipped)
      out += fmt::format("  line {} ({}, {}): {}\n", r->line, r->workload, r->gpu, r->skipped);
  }
  return out;
}

// A summary's row: its counts, the memory and fits errors, the speed errors against the ref rows
// and the spec-ratio baseline, and the absolute rows' errors.
std::vector<std::string> summary_row(const ValidationSummary& s) {
  return {s.group,
          std::to_string(s.n),
          std::to_string(s.skipped),
          pct(s.mean_abs_pct_err, 1),
          s.mean_abs_err_gb ? fmt::format("{:.2f}", *s.mean_abs_err_gb) : "-",
          pct(s.fits_accuracy, 100),
          pct(s.median_rel_err, 100),
          pct(s.mean_rel_err, 100),
          pct(s.max_rel_err, 100),
          pct(s.median_abs_err, 100),
          pct(s.baseline_median_rel_err, 100),
          pct(s.baseline_mean_rel_err, 100),
          s.n_absolute > 0 ? std::to_string(s.n_absolute) : "-",
          pct(s.median_abs_rel_err, 100),
          pct(s.mean_abs_rel_err, 100)};
}

// The summaries: each group, all rows, each workload class and each split.
Table summary_table(const ValidationReport& report) {
  using A = Table::Align;
  Table summary({{"group"},
                 {"n", A::kRight},
                 {"skipped", A::kRight},
                 {"memory MAPE", A::kRight},
                 {"memory MAE GB", A::kRight},
                 {"fits accuracy", A::kRight},
                 {"median rel err", A::kRight},
                 {"mean rel err", A::kRight},
                 {"max rel err", A::kRight},
                 {"median abs err", A::kRight},
                 {"baseline median", A::kRight},
                 {"baseline mean", A::kRight},
                 {"n abs", A::kRight},
                 {"abs median", A::kRight},
                 {"abs mean", A::kRight}});
  auto add = [&](const ValidationSummary& s) { summary.add_row(summary_row(s)); };
  for (const auto& g : report.groups) add(g);
  add(report.overall);
  if (!report.classes.empty()) {
    summary.add_row({"by workload class:"});
    for (const auto& c : report.classes) add(c);
  }
  if (!report.splits.empty()) {
    summary.add_row({"by split (fit: evidence a term was shaped on; held-out: not):"});
    for (const auto& c : report.splits) add(c);
  }
  return summary;
}

}  // namespace

Json to_json(const ValidationReport& report) {
  Json rows = Json::array();
  for (const auto& r : report.rows) {
    Json row = {{"line", r.line},         {"group", r.group},   {"gpu", r.gpu},
                {"workload", r.workload}, {"metric", r.metric}, {"measured", r.measured}};
    row["predicted"] = r.predicted ? Json(std::round(*r.predicted * 1000) / 1000) : Json(nullptr);
    row["error"] = r.error ? Json(std::round(*r.error * 10000) / 10000) : Json(nullptr);
    if (r.metric == "throughput" || r.metric == "ttft_ms" || r.metric == "tpot_ms") {
      row["is_ref"] = r.is_ref;
      row["absolute"] = r.absolute;
      row["batch_per_gpu"] = r.batch_per_gpu;
      row["ratio"] = r.ratio ? Json(std::round(*r.ratio * 10000) / 10000) : Json(nullptr);
      row["abs_error"] =
          r.abs_error ? Json(std::round(*r.abs_error * 10000) / 10000) : Json(nullptr);
      row["baseline_error"] =
          r.baseline_error ? Json(std::round(*r.baseline_error * 10000) / 10000) : Json(nullptr);
      row["class"] = r.workload_class;
    }
    if (r.fit_error) row["fit_error"] = *r.fit_error;
    if (!r.split.empty()) row["split"] = r.split;
    if (!r.skipped.empty()) row["skipped"] = r.skipped;
    rows.push_back(row);
  }
  Json groups = Json::array();
  for (const auto& g : report.groups) groups.push_back(summary_json(g));
  Json classes = Json::array();
  for (const auto& c : report.classes) classes.push_back(summary_json(c));
  Json splits = Json::array();
  for (const auto& c : report.splits) splits.push_back(summary_json(c));
  return {{"leave_one_gpu_out", report.leave_out == LeaveOut::kGpu},
          {"leave_one_architecture_out", report.leave_out == LeaveOut::kArchitecture},
          {"summary", summary_json(report.overall)},
          {"groups", groups},
          {"classes", classes},
          {"splits", splits},
          {"rows", rows}};
}

std::string validation_text(const ValidationReport& report) {
  std::string out = scored_rows_text(report);
  out += fmt::format(
      "\nThroughput, TTFT and TPOT errors are relative to each group's ref row{}; the absolute "
      "error is |predicted / measured - 1|; the baseline guesses throughput ∝ GPUs × memory "
      "bandwidth (latencies inversely). Rows of groups without a ref row are absolute rows "
      "(abs), summarized apart.\n",
      report.leave_out == LeaveOut::kGpu ? ", each GPU predicted by a calibration fitted without it"
      : report.leave_out == LeaveOut::kArchitecture
          ? ", each GPU predicted by a calibration fitted without any GPU of its architecture and "
            "class (its calibration key)"
          : "");
  return out + "\n" + summary_table(report).render();
}

}  // namespace rigplan::report
