#include "rigplan/schema.h"

#include <fmt/format.h>

#include <cmath>

#include "rigplan/gpu_link.h"
#include "util/strings.h"

namespace rigplan {
namespace {

constexpr bool kRequired = true;
constexpr bool kOptional = false;

// Accepted ranges. Bounds are sanity limits, wide enough for any part of the coming decade,
// narrow enough to catch unit mistakes (MB for GB, MHz for GHz, W for kW).
constexpr Range positive(double hi) { return {0, hi, false}; }
constexpr Range at_least(double lo, double hi) { return {lo, hi, true}; }
constexpr Range kPrice = positive(10'000'000);
constexpr Range kPcieGen = at_least(1, 6);
constexpr Range kTflops = positive(50'000);

}  // namespace

std::string Range::describe() const {
  std::string lo_text = fmt::format("{} {}", lo_inclusive ? ">=" : ">", format_number(lo));
  if (std::isinf(hi)) return lo_text;
  return fmt::format("{} and <= {}", lo_text, format_number(hi));
}

namespace {

// The fields of a [[gpu]] entry, by group. gpu_fields keeps this order, the one in which `gpus
// show` prints them.

// What the GPU is: its names, maker, generation, form and release.
std::vector<FieldSpec<Gpu>> gpu_identity_fields() {
  using G = Gpu;
  return {
      {"id", &G::id, kRequired},
      {"vendor", &G::vendor, kRequired, "", {"nvidia", "amd", "intel"}},
      {"name", &G::name, kRequired},
      {"aliases", &G::aliases, kOptional},
      {"segment", &G::segment, kRequired, "", {"consumer", "workstation", "datacenter"}},
      {"architecture",
       &G::architecture,
       kRequired,
       "",
       {"pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell", "rdna3", "cdna2",
        "cdna3"}},
      {"compute_capability", &G::compute_capability, kRequired},
      {"form_factor",
       &G::form_factor,
       kRequired,
       "",
       {"pcie", "sxm", "oam", "superchip", "laptop"}},
      {"module", &G::module, kOptional, "", {"sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "oam"}},
      {"release_date", &G::release_date, kRequired},
  };
}

// What it costs, new and used, with the dates of the prices.
std::vector<FieldSpec<Gpu>> gpu_price_fields() {
  using G = Gpu;
  return {
      {"launch_price_usd", &G::launch_price_usd, kOptional, "USD", {}, kPrice},
      {"street_price_usd", &G::street_price_usd, kOptional, "USD", {}, kPrice},
      {"street_price_date", &G::street_price_date, kOptional},
      {"used_price_usd", &G::used_price_usd, kOptional, "USD", {}, kPrice},
      {"used_price_date", &G::used_price_date, kOptional},
  };
}

// Its compute: SMs, clock and the rated dense peaks per number format.
std::vector<FieldSpec<Gpu>> gpu_compute_fields() {
  using G = Gpu;
  return {
      {"sm_count", &G::sm_count, kRequired, "", {}, at_least(1, 1000)},
      {"boost_clock_mhz", &G::boost_clock_mhz, kRequired, "MHz", {}, at_least(100, 5000)},
      {"tensor_cores", &G::tensor_cores, kRequired},
      {"fp32_tflops", &G::fp32_tflops, kRequired, "TFLOPS", {}, kTflops},
      {"tf32_tflops", &G::tf32_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"fp16_tflops", &G::fp16_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"fp16_fp16acc_tflops", &G::fp16_fp16acc_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"bf16_tflops", &G::bf16_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"fp8_tflops", &G::fp8_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"fp4_tflops", &G::fp4_tflops, kOptional, "TFLOPS", {}, kTflops},
      {"int8_tops", &G::int8_tops, kOptional, "TOPS", {}, kTflops},
  };
}

// Its memory: capacity, type, width and bandwidth, and the on-chip caches.
std::vector<FieldSpec<Gpu>> gpu_memory_fields() {
  using G = Gpu;
  return {
      {"memory_gb", &G::memory_gb, kRequired, "GB", {}, positive(4096)},
      {"memory_type",
       &G::memory_type,
       kRequired,
       "",
       {"GDDR5", "GDDR5X", "GDDR6", "GDDR6X", "GDDR7", "HBM2", "HBM2e", "HBM3", "HBM3e",
        "LPDDR5X"}},
      {"memory_bus_bits", &G::memory_bus_bits, kRequired, "bit", {}, at_least(32, 16384)},
      {"mem_bandwidth_gbps", &G::mem_bandwidth_gbps, kRequired, "GB/s", {}, positive(50'000)},
      {"l2_cache_mb", &G::l2_cache_mb, kRequired, "MB", {}, positive(2048)},
      {"shared_mem_per_sm_kb", &G::shared_mem_per_sm_kb, kRequired, "KB", {}, positive(2048)},
  };
}

// The card in a case: power, embodied carbon, size, cooling and power connectors.
std::vector<FieldSpec<Gpu>> gpu_board_fields() {
  using G = Gpu;
  return {
      {"board_power_w", &G::board_power_w, kRequired, "W", {}, positive(5000)},
      {"full_clock_power_w", &G::full_clock_power_w, kOptional, "W", {}, positive(5000)},
      {"embodied_kgco2e", &G::embodied_kgco2e, kOptional, "kgCO2e", {}, at_least(0, 100'000)},
      {"slot_width", &G::slot_width, kOptional, "slots", {}, at_least(1, 5)},
      {"cooler", &G::cooler, kRequired, "", {"blower", "open-air", "passive", "liquid"}},
      {"power_connectors",
       &G::power_connectors,
       kRequired,
       "",
       {"6-pin", "8-pin", "eps-8pin", "12vhpwr", "12v-2x6"}},
      {"card_length_mm", &G::card_length_mm, kOptional, "mm", {}, positive(600)},
  };
}

// A GPU's own link to other GPUs, or none.
std::vector<std::string_view> gpu_link_choices() {
  std::vector<std::string_view> out = {"none"};
  out.insert(out.end(), kNvlinkKinds.begin(), kNvlinkKinds.end());
  out.push_back(kInfinityFabric);
  return out;
}

// How it connects: its PCIe slot and its own link to other GPUs.
std::vector<FieldSpec<Gpu>> gpu_link_fields() {
  using G = Gpu;
  return {
      {"pcie_gen", &G::pcie_gen, kRequired, "", {}, kPcieGen},
      {"pcie_lanes", &G::pcie_lanes, kRequired, "", {}, at_least(1, 16)},
      {"gpu_link", &G::gpu_link, kRequired, "", gpu_link_choices()},
      {"gpu_link_bw_gbps", &G::gpu_link_bw_gbps, kOptional, "GB/s", {}, positive(100'000)},
      {"nvlink_domain_gpus", &G::nvlink_domain_gpus, kOptional, "GPUs", {}, at_least(2, 1024)},
  };
}

}  // namespace

const std::vector<FieldSpec<Gpu>>& gpu_fields() {
  static const std::vector<FieldSpec<Gpu>> kFields = [] {
    std::vector<FieldSpec<Gpu>> fields;
    for (auto group : {gpu_identity_fields, gpu_price_fields, gpu_compute_fields, gpu_memory_fields,
                       gpu_board_fields, gpu_link_fields}) {
      for (auto& field : group()) fields.push_back(std::move(field));
    }
    return fields;
  }();
  return kFields;
}

const std::vector<FieldSpec<Cpu>>& cpu_fields() {
  using C = Cpu;
  static const std::vector<FieldSpec<C>> kFields = {
      {"id", &C::id, kRequired},
      {"vendor", &C::vendor, kRequired, "", {"amd", "intel"}},
      {"name", &C::name, kRequired},
      {"aliases", &C::aliases, kOptional},
      {"family",
       &C::family,
       kRequired,
       "",
       {"ryzen", "threadripper", "threadripper-pro", "epyc", "core", "core-ultra", "xeon-w",
        "xeon-scalable", "xeon-6"}},
      {"segment", &C::segment, kRequired, "", {"desktop", "hedt", "workstation", "server"}},
      {"socket", &C::socket, kRequired},
      {"release_date", &C::release_date, kRequired},
      {"cores", &C::cores, kRequired, "", {}, at_least(1, 1024)},
      {"threads", &C::threads, kRequired, "", {}, at_least(1, 2048)},
      {"base_clock_ghz", &C::base_clock_ghz, kRequired, "GHz", {}, positive(10)},
      {"boost_clock_ghz", &C::boost_clock_ghz, kRequired, "GHz", {}, positive(10)},
      {"pcie_lanes", &C::pcie_lanes, kRequired, "", {}, at_least(0, 512)},
      {"pcie_gen", &C::pcie_gen, kRequired, "", {}, kPcieGen},
      {"memory_channels", &C::memory_channels, kRequired, "", {}, at_least(1, 24)},
      {"max_memory_gb", &C::max_memory_gb, kRequired, "GB", {}, positive(65'536)},
      {"memory_type", &C::memory_type, kRequired, "", {"DDR4", "DDR5"}},
      {"ecc", &C::ecc, kRequired},
      {"max_sockets", &C::max_sockets, kRequired, "", {}, at_least(1, 8)},
      {"tdp_w", &C::tdp_w, kRequired, "W", {}, positive(1000)},
      {"price_usd", &C::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &C::price_date, kRequired},
      {"price_kind", &C::price_kind, kRequired, "", {"launch-msrp", "1ku", "street"}},
  };
  return kFields;
}

const std::vector<FieldSpec<Offer>>& offer_fields() {
  using O = Offer;
  static const std::vector<FieldSpec<O>> kFields = {
      {"id", &O::id, kRequired},
      {"provider", &O::provider, kRequired},
      {"provider_kind",
       &O::provider_kind,
       kRequired,
       "",
       {"hyperscaler", "gpu-cloud", "marketplace", "serverless"}},
      {"instance", &O::instance, kRequired},
      {"region", &O::region, kOptional},
      {"gpu", &O::gpu, kRequired},
      {"gpu_count", &O::gpu_count, kRequired, "", {}, at_least(1, kMaxOfferGpus)},
      {"vcpus", &O::vcpus, kOptional, "", {}, at_least(1, 4096)},
      {"ram_gb", &O::ram_gb, kOptional, "GB", {}, positive(65'536)},
      {"price_per_hour_usd", &O::price_per_hour_usd, kRequired, "USD/h", {}, positive(10'000)},
      {"spot_price_per_hour_usd",
       &O::spot_price_per_hour_usd,
       kOptional,
       "USD/h",
       {},
       positive(10'000)},
      {"billing",
       &O::billing,
       kRequired,
       "",
       {"on-demand", "serverless", "reserved-1y", "reserved-3y"}},
      {"price_date", &O::price_date, kRequired},
      {"gpu_link", &O::gpu_link, kOptional},
      {"fabric", &O::fabric, kOptional},
      {"fabric_gbit_per_gpu", &O::fabric_gbit_per_gpu, kOptional, "Gbit/s", {}, positive(100'000)},
      {"price_caveat", &O::price_caveat, kOptional},
  };
  return kFields;
}

const std::vector<FieldSpec<Region>>& region_fields() {
  using R = Region;
  static const std::vector<FieldSpec<R>> kFields = {
      {"id", &R::id, kRequired},
      {"name", &R::name, kRequired},
      {"kind", &R::kind, kRequired, "", {"world", "country", "us-state", "cloud-region"}},
      {"country", &R::country, kRequired},
      {"parent", &R::parent, kOptional},
      {"electricity_usd_per_kwh",
       &R::electricity_usd_per_kwh,
       kOptional,
       "USD/kWh",
       {},
       positive(5)},
      {"electricity_date", &R::electricity_date, kOptional},
      {"electricity_source", &R::electricity_source, kOptional},
      {"carbon_gco2_per_kwh",
       &R::carbon_gco2_per_kwh,
       kOptional,
       "gCO2/kWh",
       {},
       at_least(0, 2000)},
      {"carbon_year", &R::carbon_year, kOptional, "", {}, at_least(1990, 2100)},
      {"carbon_source", &R::carbon_source, kOptional},
      {"pue", &R::pue, kOptional, "", {}, at_least(1, 3)},
  };
  return kFields;
}

const std::vector<FieldSpec<Interconnect>>& interconnect_fields() {
  using I = Interconnect;
  static const std::vector<FieldSpec<I>> kFields = {
      {"id", &I::id, kRequired},
      {"family",
       &I::family,
       kRequired,
       "",
       {"pcie", "nvlink", "infinity-fabric", "infiniband", "ethernet"}},
      {"name", &I::name, kRequired},
      {"year", &I::year, kRequired, "", {}, at_least(1990, 2100)},
      {"lanes", &I::lanes, kOptional, "", {}, at_least(1, 1024)},
      {"bw_per_direction_gbps",
       &I::bw_per_direction_gbps,
       kRequired,
       "GB/s",
       {},
       positive(100'000)},
      {"line_rate_gbit", &I::line_rate_gbit, kOptional, "Gbit/s", {}, positive(100'000)},
  };
  return kFields;
}

const std::vector<FieldSpec<BaseSystem>>& system_fields() {
  using S = BaseSystem;
  static const std::vector<FieldSpec<S>> kFields = {
      {"id", &S::id, kRequired},
      {"name", &S::name, kRequired},
      {"form", &S::form, kRequired, "", {"tower", "rack"}},
      {"gpu_form_factors", &S::gpu_form_factors, kRequired, "", {"pcie", "sxm", "oam"}},
      {"gpu_coolers", &S::gpu_coolers, kRequired, "", {"blower", "open-air", "passive", "liquid"}},
      {"min_gpus", &S::min_gpus, kRequired, "", {}, at_least(1, 64)},
      {"max_gpus", &S::max_gpus, kRequired, "", {}, at_least(1, 64)},
      {"max_slot_width", &S::max_slot_width, kRequired, "slots", {}, positive(100)},
      {"cpu", &S::cpu, kRequired},
      {"cpu_count", &S::cpu_count, kRequired, "", {}, at_least(1, 8)},
      {"ram_gb", &S::ram_gb, kRequired, "GB", {}, positive(65'536)},
      {"storage_tb", &S::storage_tb, kRequired, "TB", {}, positive(10'000)},
      {"psu_w", &S::psu_w, kRequired, "W", {}, positive(100'000)},
      {"psu_efficiency", &S::psu_efficiency, kRequired, "", {}, at_least(0.5, 1)},
      {"base_power_w", &S::base_power_w, kRequired, "W", {}, positive(20'000)},
      {"price_usd", &S::price_usd, kRequired, "USD", {}, at_least(0, 10'000'000)},
      {"price_date", &S::price_date, kRequired},
      {"embodied_kgco2e", &S::embodied_kgco2e, kRequired, "kgCO2e", {}, at_least(0, 100'000)},
      {"existing", &S::existing, kOptional},
  };
  return kFields;
}

const std::vector<FieldSpec<Circuit>>& circuit_fields() {
  using C = Circuit;
  static const std::vector<FieldSpec<C>> kFields = {
      {"id", &C::id, kRequired},
      {"name", &C::name, kRequired},
      {"countries", &C::countries, kRequired},
      {"volts", &C::volts, kRequired, "V", {}, at_least(90, 480)},
      {"amps", &C::amps, kRequired, "A", {}, positive(400)},
      {"continuous_fraction", &C::continuous_fraction, kRequired, "", {}, positive(1)},
  };
  return kFields;
}

const std::vector<FieldSpec<Psu>>& psu_fields() {
  using P = Psu;
  static const std::vector<FieldSpec<P>> kFields = {
      {"id", &P::id, kRequired},
      {"name", &P::name, kRequired},
      {"vendor", &P::vendor, kRequired},
      {"form_factor", &P::form_factor, kRequired, "", {"atx", "sfx", "server"}},
      {"wattage_w", &P::wattage_w, kRequired, "W", {}, positive(10'000)},
      {"wattage_w_low_line", &P::wattage_w_low_line, kOptional, "W", {}, at_least(0, 10'000)},
      {"atx_version", &P::atx_version, kRequired, "", {"2.x", "3.0", "3.1", "server"}},
      {"efficiency", &P::efficiency, kRequired},
      {"connectors_12vhpwr", &P::connectors_12vhpwr, kRequired, "", {}, at_least(0, 16)},
      {"connectors_pcie_8pin", &P::connectors_pcie_8pin, kRequired, "", {}, at_least(0, 32)},
      {"price_usd", &P::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &P::price_date, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<Nic>>& nic_fields() {
  using N = Nic;
  static const std::vector<FieldSpec<N>> kFields = {
      {"id", &N::id, kRequired},
      {"name", &N::name, kRequired},
      {"kind", &N::kind, kRequired, "", {"ethernet", "infiniband"}},
      {"gbit_per_port", &N::gbit_per_port, kRequired, "Gbit/s", {}, positive(10'000)},
      {"ports", &N::ports, kRequired, "", {}, at_least(1, 16)},
      {"pcie_gen", &N::pcie_gen, kRequired, "", {}, kPcieGen},
      {"pcie_lanes", &N::pcie_lanes, kRequired, "", {}, at_least(1, 32)},
      {"price_usd", &N::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &N::price_date, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<Board>>& board_fields() {
  using B = Board;
  static const std::vector<FieldSpec<B>> kFields = {
      {"id", &B::id, kRequired},
      {"name", &B::name, kRequired},
      {"vendor", &B::vendor, kRequired},
      {"socket", &B::socket, kRequired},
      {"sockets", &B::sockets, kRequired, "", {}, at_least(1, 8)},
      {"chipset", &B::chipset, kRequired},
      {"form_factor",
       &B::form_factor,
       kRequired,
       "",
       {"atx", "eatx", "ceb", "ssi-eeb", "proprietary"}},
      {"memory_type", &B::memory_type, kRequired, "", {"DDR4", "DDR5"}},
      {"memory_slots", &B::memory_slots, kRequired, "", {}, at_least(1, 64)},
      {"max_memory_gb", &B::max_memory_gb, kRequired, "GB", {}, positive(65'536)},
      {"pcie_slots", &B::pcie_slots, kRequired},
      {"pcie_switch", &B::pcie_switch, kRequired},
      {"sxm_sockets", &B::sxm_sockets, kOptional, "", {}, at_least(1, 16)},
      {"gpu_module",
       &B::gpu_module,
       kOptional,
       "",
       {"sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "oam"}},
      {"nvswitch", &B::nvswitch, kOptional},
      {"m2_slots", &B::m2_slots, kRequired, "", {}, at_least(0, 32)},
      {"onboard_lan_gbit", &B::onboard_lan_gbit, kRequired, "Gbit/s", {}, at_least(0, 1000)},
      {"price_usd", &B::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &B::price_date, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<Chassis>>& chassis_fields() {
  using C = Chassis;
  static const std::vector<FieldSpec<C>> kFields = {
      {"id", &C::id, kRequired},
      {"name", &C::name, kRequired},
      {"vendor", &C::vendor, kRequired},
      {"form", &C::form, kRequired, "", {"tower", "open-frame", "rack"}},
      {"rack_units", &C::rack_units, kOptional, "U", {}, at_least(1, 20)},
      {"board_form_factors",
       &C::board_form_factors,
       kRequired,
       "",
       {"atx", "eatx", "ceb", "ssi-eeb", "proprietary"}},
      {"boards", &C::boards, kOptional},
      {"expansion_slots", &C::expansion_slots, kRequired, "", {}, at_least(1, 32)},
      {"max_gpu_length_mm", &C::max_gpu_length_mm, kRequired, "mm", {}, positive(1000)},
      {"psu_form_factor", &C::psu_form_factor, kRequired, "", {"atx", "sfx", "server"}},
      {"psu_bays", &C::psu_bays, kRequired, "", {}, at_least(1, 16)},
      {"airflow", &C::airflow, kRequired, "", {"desktop", "server"}},
      {"price_usd", &C::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &C::price_date, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<Part>>& part_fields() {
  using P = Part;
  static const std::vector<FieldSpec<P>> kFields = {
      {"id", &P::id, kRequired},
      {"name", &P::name, kRequired},
      {"kind", &P::kind, kRequired, "", {"ram", "ssd", "hdd", "gpu-cooling"}},
      {"unit", &P::unit, kRequired, "", {"gb", "tb", "each"}},
      {"price_usd", &P::price_usd, kRequired, "USD", {}, kPrice},
      {"price_date", &P::price_date, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<PsuEfficiency>>& psu_efficiency_fields() {
  using E = PsuEfficiency;
  static const std::vector<FieldSpec<E>> kFields = {
      {"id", &E::id, kRequired},
      {"name", &E::name, kRequired},
      {"half_load", &E::half_load, kRequired, "", {}, at_least(0.5, 1)},
  };
  return kFields;
}

const std::vector<FieldSpec<Family>>& family_fields() {
  using F = Family;
  const std::vector<std::string_view> software(std::begin(kStackSoftware),
                                               std::end(kStackSoftware));
  static const std::vector<FieldSpec<F>> kFields = {
      {"id", &F::id, kRequired},
      {"vendor", &F::vendor, kRequired, "", {"nvidia", "amd", "intel", "apple"}},
      {"name", &F::name, kRequired},
      {"stack", &F::stack, kRequired, "", {"cuda", "rocm", "oneapi", "metal"}},
      {"stack_name", &F::stack_name, kRequired},
      {"common_stack", &F::common_stack, kRequired},
      {"stack_versions", &F::stack_versions, kRequired},
      {"runs", &F::runs, kRequired, "", software},
      {"runs_partly", &F::runs_partly, kRequired, "", software},
      {"does_not_run", &F::does_not_run, kRequired, "", software},
      {"gaps", &F::gaps, kRequired},
      {"as_of", &F::as_of, kRequired},
  };
  return kFields;
}

std::optional<double> numeric(const FieldValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  if (const auto* d = std::get_if<Date>(&value)) return static_cast<double>(d->days_since_epoch());
  return std::nullopt;
}

std::string display_text(const FieldValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          return join(v, ", ");
        } else if constexpr (std::is_same_v<V, double>) {
          return format_number(v);
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "yes" : "no";
        } else {
          return v.to_string();
        }
      },
      value);
}

}  // namespace rigplan
