// The numbers a user gives rigplan, and what each accepts: one table for every front end (the
// command line, the HTTP API, measurement files, build files and presets). A value is refused
// when it is not finite, not whole where a count is meant, or out of its range, with a message
// naming the field, the value and what is accepted. docs/input.md lists every field.
//
// Adding an input: declare its NumberField below (the command line's spelling as `name`, the
// range, integer or not), add it to all_number_fields() in src/input/input.cc, check it with
// check() where the library first sees it, and use range() in FieldSpec tables for files.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "rigplan/schema.h"
#include "rigplan/status.h"

namespace rigplan::input {

struct NumberField {
  std::string_view name;  // as the command line spells it, without the dashes
  double lo = 0;
  double hi = 0;
  bool integer = false;
  bool lo_open = false;  // lo itself is refused ("> 0")
  std::string_view unit;

  // "an integer from 1 to 1048576", "a number > 0 and <= 1".
  std::string accepted() const;
  bool accepts(double value) const;
  // The same bounds for a FieldSpec table (schema.h).
  Range range() const { return {lo, hi, !lo_open}; }
};

// Why `value` is refused, or "" when accepted: "is out of range; expected an integer from 1 to
// 1000000", "is not a number; expected ...", "is not a whole number; expected ...".
std::string problem(const NumberField& field, double value);

// kInvalidInput "--tp 65536 is out of range; expected an integer from 1 to 4096", or ok.
Status check(const NumberField& field, double value);
Status check(const NumberField& field, std::optional<double> value);
Status check(const NumberField& field, std::optional<int> value);
// The first refusal among several fields and their values (those not given are skipped), or ok.
Status check_all(
    std::initializer_list<std::pair<const NumberField*, std::optional<double>>> values);

// Every field, in the order docs/input.md lists them.
std::span<const NumberField* const> all_number_fields();

// --- The run of a workload (RunConfig; memory, predict, compare, cost, recommend, validate) ---
// Counts are bounded so that every product of them fits in 64 bits; sizes beyond these are not
// a training or serving run of this decade.
inline constexpr NumberField kBatch{"batch", 1, 1'000'000'000,
                                    true};  // recommender batches reach 1e7
inline constexpr NumberField kSeq{"seq", 1, 100'000'000, true, false, "tokens"};
inline constexpr NumberField kGenTokens{"gen-tokens", 0, 100'000'000, true, false, "tokens"};
inline constexpr NumberField kLoraRank{"lora-rank", 1, 65'536, true};
inline constexpr NumberField kZero{"zero", 0, 3, true};
inline constexpr NumberField kGpus{"gpus", 1, 1'048'576, true};
inline constexpr NumberField kTensorParallel{"tp", 1, 1'048'576, true};
inline constexpr NumberField kPipelineParallel{"pp", 1, 1'048'576, true};
inline constexpr NumberField kContextParallel{"cp", 1, 1'048'576, true};
inline constexpr NumberField kExpertParallel{"ep", 1, 1'048'576, true};
inline constexpr NumberField kVirtualStages{"vp", 1, 1024, true};
inline constexpr NumberField kMicroBatch{"micro-batch", 1, 1'000'000'000, true};
inline constexpr NumberField kGlobalBatch{"global-batch", 1, 1'000'000'000, true};
inline constexpr NumberField kGpusPerNic{"gpus-per-nic", 1, 64, true};
// The GPUs of one node (a machine, an instance, an NVLink domain): an HGX board's 8, a GB200
// NVL72 rack's 72; 1024 is beyond any NVLink domain announced (NVL576).
inline constexpr NumberField kGpusPerNode{"gpus-per-node", 1, 1024, true};
inline constexpr NumberField kLossChunks{"loss-chunks", 0, 1024, true};  // 0: a fused loss
inline constexpr NumberField kGradAccum{"grad-accum", 1, 1'000'000, true};
// Image models: a diffusion model's training resolution or a ResNet's image size (square).
inline constexpr NumberField kResolution{"resolution", 16, 16384, true, false, "px"};
// Inference (docs/inference.md): sequences an engine decodes together, the share of each GPU it
// claims, and the load of a serving run.
inline constexpr NumberField kMaxSeqs{"max-seqs", 1, 1'000'000, true};
inline constexpr NumberField kMemoryUtilization{"gpu-memory-utilization", 0, 1, false, true};
inline constexpr NumberField kRequestRate{"request-rate", 0, 1e9, false, true, "requests/s"};
// A finite serving run's requests: a million is beyond any published serving benchmark (vLLM's
// and TensorRT-LLM's send hundreds to tens of thousands), and keeps its simulation in milliseconds.
inline constexpr NumberField kRequests{"requests", 1, 1'000'000, true};

// --- The job and its constraints (recommend, cost; presets) ---
inline constexpr NumberField kTokens{"tokens", 0, 1e18, false, true};
inline constexpr NumberField kSamples{"samples", 0, 1e18, false, true};
inline constexpr NumberField kImages{"images", 0, 1e18, false, true};
inline constexpr NumberField kEpochs{"epochs", 0, 1e6, false, true};
inline constexpr NumberField kWork{"work", 0, 1e18, false, true};  // a preset's job size
// Usage: hours of work a month on one reference GPU (may exceed a month: several GPUs' work).
inline constexpr NumberField kHoursPerMonth{"hours-per-month", 0, 1e7, false, true, "h"};
// An owned machine's busy hours a month: at most the hours of an average month (365 × 24 / 12).
inline constexpr NumberField kBusyHoursPerMonth{"hours-per-month", 0, 730, false, true, "h"};
// A serving job (recommend --serve-rate): the requests per second the setup must serve, its
// latency targets, and the hours a month the service is up (at most an average month's 730).
inline constexpr NumberField kServeRate{"serve-rate", 0, 1e9, false, true, "requests/s"};
inline constexpr NumberField kMaxTtftMs{"max-ttft-ms", 0, 1e7, false, true, "ms"};
inline constexpr NumberField kMaxTpotMs{"max-tpot-ms", 0, 1e7, false, true, "ms"};
inline constexpr NumberField kServeHours{"serve-hours", 0, 730, false, true, "h"};
inline constexpr NumberField kShare{"share", 0, 1e6, false, true};  // a preset task's share
inline constexpr NumberField kUtilisation{"utilisation", 0, 1, false, true};
inline constexpr NumberField kHorizonMonths{"horizon-months", 0, 240, false, true, "months"};
inline constexpr NumberField kBudget{"budget", 0, 1e12, false, true, "USD"};
inline constexpr NumberField kMaxPower{"max-power", 0, 1e6, false, true, "W"};
inline constexpr NumberField kMaxGpus{"max-gpus", 1, 1'048'576, true};
// Months after which an option's price is flagged as old (docs/prices.md); ten years at most.
inline constexpr NumberField kMaxPriceAge{"max-price-age", 0, 120, false, true, "months"};
// A GPU capped below 30% of its board power is not a setting drivers allow (nvidia-smi -pl).
inline constexpr NumberField kPowerLimit{"power-limit", 0.3, 1, false, true};
inline constexpr NumberField kElectricity{"electricity", 0, 10, false, false, "USD/kWh"};
// Power usage effectiveness: 1 is a site with no cooling or conversion loss at all.
inline constexpr NumberField kPue{"pue", 1, 5};
inline constexpr NumberField kMachineGpus{"gpus", 1, 8, true};  // GPUs in one owned machine
inline constexpr NumberField kMachinePrice{"price", 0, 1e9, false, true, "USD"};
inline constexpr NumberField kWallPower{"power", 0, 1e6, false, true, "W"};
inline constexpr NumberField kRent{"rent", 0, 1e6, false, true, "USD/h"};
inline constexpr NumberField kTop{"top", 0, 100'000, true};

// --- Builds (build propose, build files) ---
inline constexpr NumberField kBuildGpus{"gpus", 1, 64, true};  // GPUs in one built machine
inline constexpr NumberField kNodes{"nodes", 1, 4096, true};
inline constexpr NumberField kBuildBudget{"budget", 0, 1e9, false, true, "USD"};

// --- Catalog listings (gpus, cpus, offers, overview) ---
inline constexpr NumberField kMinMemory{"min-memory", 0, 100'000, false, false, "GB"};
inline constexpr NumberField kMaxPrice{"max-price", 0, 1e9, false, false, "USD"};
inline constexpr NumberField kMaxHourlyPrice{"max-price", 0, 1e6, false, false, "USD/h"};
inline constexpr NumberField kMinCores{"min-cores", 0, 100'000, true};

// --- Measurement files (validate) ---
// A measured throughput or peak memory; a `fits` row's value is 0 or 1.
inline constexpr NumberField kMeasuredValue{"value", 0, 1e12, false, true};

// --- rigplan serve ---
inline constexpr NumberField kPort{"port", 0, 65'535, true};
inline constexpr NumberField kCacheEntries{"cache", 0, 1'000'000, true};
inline constexpr NumberField kCacheMegabytes{"cache-mb", 0, 65'536, true, false, "MiB"};

// --- Text and file inputs ---
// The most nested arrays and objects a JSON input (a Hugging Face config.json) may have.
inline constexpr int kMaxJsonDepth = 64;
// The most items of a comma-separated list option (compare --gpus, cost --offer, ...).
inline constexpr std::size_t kMaxListItems = 64;
// kInvalidInput "--gpus names 65 items; at most 64 are accepted", or ok.
Status check_list(std::string_view option, std::size_t items);
// The longest name a file may give an entry (a model's _name_or_path).
inline constexpr std::size_t kMaxNameBytes = 256;
// The largest input file rigplan reads (config.json, measurement CSV, catalog and build files).
inline constexpr std::size_t kMaxFileBytes = std::size_t{64} * 1024 * 1024;

// The whole text of a file of at most kMaxFileBytes: a kIoError Status naming it when it cannot
// be read, kInvalidInput when it is larger (a device or pipe without end included).
Result<std::string> read_file(const std::string& path);

}  // namespace rigplan::input
