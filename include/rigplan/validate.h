// Predictions against measurements: the validation contract of PRODUCT.md. A measurement file
// is a CSV with the header group,ref,gpu,num_gpus,workload,mode,precision,weights,method,
// optimizer,lora_rank,batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source in any
// order; the optional columns lora_targets, zero, offload, pure_bf16, flash_attention, full_state_load and memory_metric refine
// the run. Rows rigplan cannot predict are counted and listed with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

struct ValidationRow {
  int line = 0;  // in the CSV file
  std::string group, gpu, workload, metric, unit;
  double measured = 0;
  std::optional<double> predicted;
  std::optional<double> error;  // relative (throughput), absolute percentage (memory), 0/1 miss (fits)
  std::string skipped;          // why there is no prediction; empty when predicted
};

struct ValidationSummary {
  std::string group;  // a group prefix (the part before '/'), or "all"
  int n = 0;          // rows predicted
  int skipped = 0;    // rows not predicted
  std::optional<double> median_rel_err, mean_rel_err, max_rel_err;  // throughput rows
  std::optional<double> mean_abs_pct_err;                           // peak_memory_gb rows
  std::optional<double> mean_abs_err_gb;                            // peak_memory_gb rows
  std::optional<double> fits_accuracy;  // fits rows, and memory rows read as fits / OOM
  int memory_rows = 0, fits_rows = 0, throughput_rows = 0;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  ValidationSummary overall;
  std::vector<ValidationSummary> groups;  // one per group prefix, in first-seen order
};

// `path` names the file in messages. A malformed file (missing column, a value that is not a
// number) is a kInvalidInput Status naming path:line and the column.
Result<ValidationReport> validate_measurements(const Catalog& catalog, const Zoo& zoo,
                                               const std::string& path, const std::string& csv);

}  // namespace rigplan
