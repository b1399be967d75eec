// Predictions against measurements: the validation contract of PRODUCT.md. A measurement file
// is a CSV with the header group,ref,gpu,num_gpus,workload,mode,precision,weights,method,
// optimizer,lora_rank,batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source in any
// order; the optional columns lora_targets, zero, offload, pure_bf16, flash_attention,
// full_state_load, compile, cuda_graphs and memory_metric refine the run, and engine, input_len,
// output_len, concurrency, request_rate, requests, tp, pp and kv_cache describe inference runs
// (metrics throughput, ttft_ms and tpot_ms; `requests`: a finite run of that many). Speed rows
// of a group without a ref row are absolute rows. Rows rigplan cannot predict are counted and
// listed with the reason.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rigplan/calibrate.h"
#include "rigplan/catalog.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

struct ValidationRow {
  int line = 0;  // in the CSV file
  std::string group, gpu, workload, metric, unit;
  double measured = 0;
  std::optional<double> predicted;
  std::optional<double>
      error;  // relative (throughput), absolute percentage (memory), 0/1 miss (fits)
  std::optional<double> abs_error;  // throughput: |predicted / measured - 1|
  // Speed rows: predicted over measured, each as a ratio to the group's ref row (an absolute
  // row: on its own); error = |ratio - 1|. Above 1: throughput predicted too high, a latency
  // too long.
  std::optional<double> ratio;
  std::optional<double> baseline_error;  // throughput: relative error of the bandwidth-ratio guess
  bool is_ref = false;         // the group's reference row (relative error 0 by definition)
  bool absolute = false;       // a speed row of a group without a ref: scored on its own
  int batch_per_gpu = 0;       // throughput: the batch predicted, published or assumed
  std::string workload_class;  // throughput: "cnn, 1 GPU", "transformer, multi-GPU", ...
  std::string skipped;         // why there is no prediction; empty when predicted
  // peak_memory_gb: the measured run fit its GPU; 1 when rigplan predicts it does not, else 0.
  std::optional<double> fit_error;
  // The `split` cell: "fit" for a row a model term was shaped on, "held-out" for one that was
  // not; empty when the file does not say.
  std::string split;
};

struct ValidationSummary {
  std::string group;  // a group prefix (the part before '/'), or "all"
  int n = 0;          // rows predicted
  int skipped = 0;    // rows not predicted
  std::optional<double> median_rel_err, mean_rel_err,
      max_rel_err;                       // throughput rows (refs excluded)
  std::optional<double> median_abs_err;  // |predicted / measured - 1|, ratio rows
  // Absolute rows (groups without a ref row): |predicted / measured - 1|.
  int n_absolute = 0;
  std::optional<double> median_abs_rel_err, mean_abs_rel_err;
  std::optional<double> baseline_median_rel_err, baseline_mean_rel_err;  // memory-bandwidth ratio
  std::optional<double> mean_abs_pct_err;                                // peak_memory_gb rows
  std::optional<double> mean_abs_err_gb;                                 // peak_memory_gb rows
  std::optional<double> fits_accuracy;  // fits rows, and memory rows (each measured run fit)
  int memory_rows = 0, fits_rows = 0, throughput_rows = 0;
};

// What a leave-one-out validation holds out of each calibration it fits: one GPU, or every GPU
// of one calibration key (calibration_key: an architecture and its class), as for a GPU whose
// architecture no measurement covers.
enum class LeaveOut { kNothing, kGpu, kArchitecture };

struct ValidationReport {
  std::vector<ValidationRow> rows;
  ValidationSummary overall;
  std::vector<ValidationSummary> groups;   // one per group prefix, in first-seen order
  std::vector<ValidationSummary> classes;  // throughput rows by workload class and GPU count
  // Rows by their `split` cell, per group prefix and overall ("litgpt-qlora, held-out").
  std::vector<ValidationSummary> splits;
  LeaveOut leave_out = LeaveOut::kNothing;
  // Told (fits done, fits in all) as the held-out fits go, the slow part; last (n, n).
  std::function<void(size_t, size_t)> progress;
};

struct ValidateOptions {
  // Predicts the rows (default: the embedded calibration); --loo fits its own from the fixed prior.
  const Calibration* calibration = nullptr;
  // Throughput: predict each GPU's rows (kGpu), or the rows of each calibration key's GPUs
  // (kArchitecture), with a calibration fitted without those rows.
  LeaveOut leave_out = LeaveOut::kNothing;
  // Told (fits done, fits in all) as the held-out fits go, the slow part; last (n, n).
  std::function<void(size_t, size_t)> progress;
};

// `path` names the file in messages. A malformed file (missing column, a value that is not a
// number) is a kInvalidInput Status naming path:line and the column.
Result<ValidationReport> validate_measurements(const Catalog& catalog, const Zoo& zoo,
                                               const std::string& path, const std::string& csv,
                                               const ValidateOptions& options = {});

// The throughput rows of a measurement file as samples (rows that cannot be predicted are left
// out), with the index of each sample's row in `report_rows` order. Used by calibration.
Result<std::vector<ThroughputSample>> throughput_samples(
    const Catalog& catalog, const Zoo& zoo, const std::string& path, const std::string& csv,
    std::vector<std::string>* groups = nullptr);

}  // namespace rigplan
