#include "rigplan/input.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <vector>

#include "util/strings.h"

namespace rigplan::input {
namespace {

constexpr const NumberField* kAll[] = {
    &kBatch,
    &kSeq,
    &kGenTokens,
    &kLoraRank,
    &kZero,
    &kGpus,
    &kTensorParallel,
    &kPipelineParallel,
    &kContextParallel,
    &kExpertParallel,
    &kVirtualStages,
    &kMicroBatch,
    &kGlobalBatch,
    &kGpusPerNic,
    &kGpusPerNode,
    &kLossChunks,
    &kGradAccum,
    &kResolution,
    &kMaxSeqs,
    &kMemoryUtilization,
    &kRequestRate,
    &kRequests,
    &kTokens,
    &kSamples,
    &kImages,
    &kEpochs,
    &kWork,
    &kHoursPerMonth,
    &kBusyHoursPerMonth,
    &kServeRate,
    &kMaxTtftMs,
    &kMaxTpotMs,
    &kServeHours,
    &kShare,
    &kUtilisation,
    &kHorizonMonths,
    &kBudget,
    &kMaxPower,
    &kMaxGpus,
    &kMaxPriceAge,
    &kPowerLimit,
    &kElectricity,
    &kPue,
    &kMachineGpus,
    &kMachinePrice,
    &kWallPower,
    &kRent,
    &kTop,
    &kBuildGpus,
    &kNodes,
    &kBuildBudget,
    &kMinMemory,
    &kMaxPrice,
    &kMaxHourlyPrice,
    &kMinCores,
    &kMeasuredValue,
    &kPort,
    &kCacheEntries,
    &kCacheMegabytes,
};

// 1048576 rather than 1.048576e+06; fractions as written.
std::string number_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::abs(value) < 1e15 && value == std::trunc(value)) return fmt::format("{:.0f}", value);
  return format_number(value);
}

}  // namespace

std::string NumberField::accepted() const {
  const std::string what = integer ? "an integer" : "a number";
  const std::string unit_text = unit.empty() ? "" : fmt::format(" {}", unit);
  if (!lo_open) {
    return fmt::format("{} from {} to {}{}", what, number_text(lo), number_text(hi), unit_text);
  }
  return fmt::format("{} > {} and <= {}{}", what, number_text(lo), number_text(hi), unit_text);
}

bool NumberField::accepts(double value) const {
  if (!std::isfinite(value)) return false;
  if (integer && value != std::trunc(value)) return false;
  return (lo_open ? value > lo : value >= lo) && value <= hi;
}

std::string problem(const NumberField& field, double value) {
  if (field.accepts(value)) return "";
  // Infinity is out of range: it is also what a number too large for a double reads as.
  if (std::isnan(value)) return fmt::format("is not a number; expected {}", field.accepted());
  if (field.integer && value != std::trunc(value)) {
    return fmt::format("is not a whole number; expected {}", field.accepted());
  }
  return fmt::format("is out of range; expected {}", field.accepted());
}

Status check(const NumberField& field, double value) {
  const std::string why = problem(field, value);
  if (why.empty()) return {};
  return Status::invalid_input(fmt::format("--{} {} {}", field.name, number_text(value), why));
}

Status check(const NumberField& field, std::optional<double> value) {
  return value ? check(field, *value) : Status{};
}

Status check(const NumberField& field, std::optional<int> value) {
  return value ? check(field, static_cast<double>(*value)) : Status{};
}

Status check_all(
    std::initializer_list<std::pair<const NumberField*, std::optional<double>>> values) {
  for (const auto& [field, value] : values) {
    if (Status s = check(*field, value); !s.ok()) return s;
  }
  return {};
}

std::span<const NumberField* const> all_number_fields() { return kAll; }

Status check_list(std::string_view option, std::size_t items) {
  if (items <= kMaxListItems) return {};
  return Status::invalid_input(
      fmt::format("--{} names {} items; at most {} are accepted", option, items, kMaxListItems));
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io_error(fmt::format("{}: cannot read the file", path));
  // Read in pieces up to the limit, so that a device or pipe without end is refused too.
  std::string text;
  std::vector<char> buffer(std::size_t{64} * 1024);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    text.append(buffer.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      return Status::invalid_input(
          fmt::format("{}: larger than {} MiB, the most rigplan reads", path, kMaxFileBytes >> 20));
    }
  }
  if (in.bad()) return Status::io_error(fmt::format("{}: cannot read the file", path));
  return text;
}

}  // namespace rigplan::input
