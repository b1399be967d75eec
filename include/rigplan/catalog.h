// The hardware catalog: GPUs, CPUs, cloud offers, regions and interconnects, each figure with
// its source and date. The loader (catalog_loader.h) produces these plain structs from the
// TOML files under data/catalog/; models never see TOML. Units are in the field names; `_gbps`
// is GB/s (1e9 bytes per second) everywhere in rigplan. See docs/catalog.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/date.h"
#include "rigplan/status.h"

namespace rigplan {

// Where an entry's figures come from.
struct Provenance {
  std::string source;      // where the entry's figures come from
  std::string confidence;  // "cited", "mixed" or "recall" (docs/catalog.md)
  std::string notes;       // conflicts between sources and the choices made
  std::map<std::string, std::string, std::less<>> field_sources;  // field -> its own source
  std::string file;  // catalog file the entry was read from (last one, for overlays)
  int line = 0;      // line of the entry in that file

  // The source of one field: its own when it has one, else the entry's.
  const std::string& source_of(std::string_view field) const;
};

struct Gpu {
  std::string id;
  std::string vendor;  // nvidia, amd, intel
  std::string name;
  std::vector<std::string> aliases;
  std::string segment;       // consumer, workstation, datacenter
  std::string architecture;  // pascal ... blackwell, rdna3, cdna2, cdna3
  std::string compute_capability;
  std::string form_factor;  // pcie, sxm, oam, superchip, laptop
  std::string module;       // sxm and oam: the module generation a baseboard takes (sxm2-sxm6, oam)
  Date release_date;
  std::optional<double> launch_price_usd;
  std::optional<double> street_price_usd;
  std::optional<Date> street_price_date;
  std::optional<double> used_price_usd;
  std::optional<Date> used_price_date;
  int sm_count = 0;
  double boost_clock_mhz = 0;
  bool tensor_cores = false;
  double fp32_tflops = 0;
  std::optional<double> tf32_tflops;          // dense tensor TF32
  std::optional<double> fp16_tflops;          // dense tensor FP16, FP32 accumulate
  std::optional<double> fp16_fp16acc_tflops;  // dense tensor FP16, FP16 accumulate
  std::optional<double> bf16_tflops;          // dense tensor BF16
  std::optional<double> fp8_tflops;           // dense tensor FP8
  std::optional<double> fp4_tflops;           // dense tensor FP4 (Blackwell: NVFP4, MXFP4)
  std::optional<double> int8_tops;            // dense tensor INT8
  double memory_gb = 0;
  std::string memory_type;
  int memory_bus_bits = 0;
  double mem_bandwidth_gbps = 0;
  double l2_cache_mb = 0;
  double shared_mem_per_sm_kb = 0;
  double board_power_w = 0;
  // The board power the card's chip needs to hold its rated clocks under a training load, where
  // that is above board_power_w (a chip sold in a lower-power card than its siblings): the card
  // then runs as that chip capped at board_power_w (perf.cc, power_limit_speed). Absent: the
  // board power holds the rated clocks.
  std::optional<double> full_clock_power_w;
  std::optional<double> embodied_kgco2e;  // manufacturing footprint of one card
  std::optional<double> slot_width;
  std::string cooler;                         // blower, open-air, passive, liquid
  std::vector<std::string> power_connectors;  // 6-pin, 8-pin, eps-8pin, 12vhpwr, 12v-2x6
  std::optional<double> card_length_mm;
  int pcie_gen = 0;
  int pcie_lanes = 0;
  std::string gpu_link;  // none, or a kind of rigplan/gpu_link.h (NVLink, Infinity Fabric)
  std::optional<double> gpu_link_bw_gbps;
  // GPUs one NVLink/NVSwitch domain joins as the product is sold (GB200 NVL72: 72); absent: an
  // HGX board's 8 (perf_constants::kGpusPerNode). Only on a GPU with gpu_link = "nvswitch".
  std::optional<int> nvlink_domain_gpus;
  Provenance provenance;
};

struct Cpu {
  std::string id;
  std::string vendor;
  std::string name;
  std::vector<std::string> aliases;
  std::string family;
  std::string segment;  // desktop, hedt, workstation, server
  std::string socket;
  Date release_date;
  int cores = 0;
  int threads = 0;
  double base_clock_ghz = 0;
  double boost_clock_ghz = 0;
  int pcie_lanes = 0;  // CPU lanes usable for devices
  int pcie_gen = 0;
  int memory_channels = 0;
  double max_memory_gb = 0;
  std::string memory_type;
  bool ecc = false;
  int max_sockets = 1;
  double tdp_w = 0;
  double price_usd = 0;
  Date price_date;
  std::string price_kind;  // launch-msrp, 1ku, street
  Provenance provenance;
};

class Catalog;

// The most GPUs one instance of an offer may have: the loader's bound on gpu_count, which the
// price-list importers check before a count becomes an int.
inline constexpr int kMaxOfferGpus = 1024;

struct Offer {
  std::string id;
  std::string provider;
  std::string provider_kind;  // hyperscaler, gpu-cloud, marketplace, serverless
  std::string instance;
  std::string region;  // a Region id, or empty
  std::string gpu;     // a Gpu id
  int gpu_count = 0;
  std::optional<int> vcpus;
  std::optional<double> ram_gb;
  double price_per_hour_usd = 0;  // whole instance, on demand
  std::optional<double> spot_price_per_hour_usd;
  std::string billing;  // on-demand, serverless, reserved-1y, reserved-3y
  Date price_date;
  // How the GPUs of one instance talk to each other: an Interconnect id of family pcie, nvlink
  // or infinity-fabric (nvlink-4 on an 8 x H100 SXM board); empty for a 1-GPU instance.
  std::string gpu_link;
  // The network that joins instances into one training cluster, where the provider sells them
  // so: an Interconnect id of family infiniband or ethernet (EFA, RoCE). Empty: instances share
  // only the provider's ordinary network and are not offered for multi-node training.
  std::string fabric;
  std::optional<double> fabric_gbit_per_gpu;  // fabric line rate per GPU, Gbit/s
  // Why the price needs checking before anyone relies on it ("far below every other provider's:
  // verify", "the GPUs alone: the host VM is billed on top"); empty when there is no doubt.
  std::string price_caveat;
  Provenance provenance;

  double price_per_gpu_hour_usd() const { return price_per_hour_usd / gpu_count; }
  // Fabric bandwidth per GPU and direction, GB/s; 0 when the offer is not sold as a cluster.
  double fabric_gbps_per_gpu() const { return fabric.empty() ? 0 : *fabric_gbit_per_gpu / 8; }
};

// How the GPUs of an offer's instance talk, in the vocabulary of RunConfig::link: "pcie",
// "nvlink-bridge" (pairs), "nvswitch" (all to all) or "infinity-fabric"; "" for a 1-GPU
// instance. An NVLink instance link takes the GPU's own NVLink topology (gpu_link of the GPU).
// A view of the GPU's gpu_link or of a literal: it lives as long as the catalog's entries.
std::string_view offer_link_kind(const Offer& offer, const Catalog& catalog);

struct Region {
  std::string id;
  std::string name;
  std::string kind;     // world, country, us-state, cloud-region
  std::string country;  // ISO 3166-1 alpha-2, lowercase
  std::string parent;   // a Region id, or empty
  std::optional<double> electricity_usd_per_kwh;
  std::optional<Date> electricity_date;
  std::string electricity_source;
  std::optional<double> carbon_gco2_per_kwh;
  std::optional<int> carbon_year;
  std::string carbon_source;
  std::optional<double> pue;
  Provenance provenance;
};

struct Interconnect {
  std::string id;
  std::string family;  // pcie, nvlink, infinity-fabric, infiniband, ethernet
  std::string name;
  int year = 0;
  std::optional<int> lanes;
  double bw_per_direction_gbps = 0;
  std::optional<double> line_rate_gbit;
  Provenance provenance;
};

// Everything of a machine but its GPUs (CPU, board, RAM, storage, PSU, chassis), for N GPUs of a
// form factor and cooler: what an owned option adds to the price of its GPUs (docs/cost.md).
struct BaseSystem {
  std::string id;
  std::string name;
  std::string form;                           // tower, rack
  std::vector<std::string> gpu_form_factors;  // pcie, sxm, oam
  std::vector<std::string> gpu_coolers;       // coolers it keeps cool at max_gpus
  int min_gpus = 1;
  int max_gpus = 1;
  double max_slot_width = 2;  // widest card, in slots, at max_gpus without risers or water blocks
  std::string cpu;            // a Cpu id
  int cpu_count = 1;
  double ram_gb = 0;
  double storage_tb = 0;
  double psu_w = 0;           // total rating of the PSUs sharing the load
  double psu_efficiency = 0;  // DC out / AC in near half load
  double base_power_w = 0;    // DC draw of everything but the GPUs while training
  double price_usd = 0;
  Date price_date;
  double embodied_kgco2e = 0;  // manufacturing footprint without the GPUs
  // A machine the user already has (a desktop to put a GPU in): used only when named.
  bool existing = false;
  Provenance provenance;
};

// A wall circuit: what one machine may draw from it continuously.
struct Circuit {
  std::string id;
  std::string name;
  std::vector<std::string> countries;  // ISO 3166-1 alpha-2 codes where it is the usual outlet
  double volts = 0;
  double amps = 0;
  double continuous_fraction = 0;  // of volts x amps, for loads lasting hours (NEC: 0.8)
  Provenance provenance;

  double continuous_w() const { return volts * amps * continuous_fraction; }
};

// A power supply unit.
struct Psu {
  std::string id;
  std::string name;
  std::string vendor;
  std::string form_factor;                   // atx, sfx, server
  double wattage_w = 0;                      // at high line (200-240 V), or its only rating
  std::optional<double> wattage_w_low_line;  // at 100-127 V when lower (server modules)
  std::string atx_version;                   // 2.x, 3.0, 3.1, server
  std::string efficiency;                    // a PsuEfficiency id: bronze ... titanium (80 PLUS)
  int connectors_12vhpwr = 0;
  int connectors_pcie_8pin = 0;
  double price_usd = 0;
  Date price_date;
  Provenance provenance;
};

// An 80 PLUS efficiency tier, which a Psu's `efficiency` names.
struct PsuEfficiency {
  std::string id;  // bronze, silver, gold, platinum, titanium
  std::string name;
  double half_load = 0;  // DC out / AC in at 50% load, 115 V internal
  Provenance provenance;
};

// A network card.
struct Nic {
  std::string id;
  std::string name;
  std::string kind;  // ethernet, infiniband
  double gbit_per_port = 0;
  int ports = 0;
  int pcie_gen = 0;
  int pcie_lanes = 0;
  double price_usd = 0;
  Date price_date;
  Provenance provenance;
};

// One GPU-capable PCIe slot of a board: electrical lanes with every listed slot populated, PCIe
// generation, and its expansion-slot position from the top (one position = 20.32 mm).
struct PcieSlot {
  int lanes = 0;
  int gen = 0;
  int position = 0;
};

// A motherboard or server board.
struct Board {
  std::string id;
  std::string name;
  std::string vendor;
  std::string socket;  // a Cpu socket
  int sockets = 1;
  std::string chipset;
  std::string form_factor;  // atx, eatx, ceb, ssi-eeb, proprietary
  std::string memory_type;
  int memory_slots = 0;
  double max_memory_gb = 0;
  std::vector<std::string> pcie_slots;  // "x16/5@1": lanes/gen@position (parse_pcie_slot)
  bool pcie_switch = false;
  std::optional<int> sxm_sockets;  // SXM/OAM GPU sockets of an HGX/UBB baseboard
  std::string gpu_module;          // with sxm_sockets: the module generation (sxm2-sxm6, oam)
  std::optional<bool> nvswitch;
  int m2_slots = 0;
  double onboard_lan_gbit = 0;
  double price_usd = 0;
  Date price_date;
  Provenance provenance;

  std::vector<PcieSlot> slots() const;  // pcie_slots parsed (the loader rejects bad ones)
};
// The GPU module a GPU is or a board takes: "pcie" for PCIe cards and boards with GPU slots,
// else the SXM generation or "oam"; a superchip or laptop part is its form factor.
std::string_view module_of(const Gpu& gpu);
std::string_view module_of(const Board& board);

// "x16/5@1" -> {16, 5, 1}; nullopt when malformed.
std::optional<PcieSlot> parse_pcie_slot(std::string_view text);

// A case, open frame or rack chassis.
struct Chassis {
  std::string id;
  std::string name;
  std::string vendor;
  std::string form;  // tower, open-frame, rack
  std::optional<int> rack_units;
  std::vector<std::string> board_form_factors;
  std::vector<std::string> boards;  // server barebones: the only boards it takes
  int expansion_slots = 0;
  double max_gpu_length_mm = 0;
  std::string psu_form_factor;  // atx, sfx, server
  int psu_bays = 1;
  std::string airflow;  // desktop, server
  double price_usd = 0;
  Date price_date;
  Provenance provenance;
};

// A part that builds and owned machines buy by quantity: RAM by the GB, drives by the TB, GPU
// water blocks and PCIe riser cables each (data/catalog/parts.toml).
struct Part {
  std::string id;
  std::string name;
  std::string kind;      // ram, ssd, hdd, gpu-cooling
  std::string unit;      // gb, tb, each: what price_usd buys
  double price_usd = 0;  // per unit
  Date price_date;
  Provenance provenance;
};

// A price with its date and kind, as chosen for display and filtering.
struct PriceQuote {
  double usd = 0;
  std::optional<Date> date;
  std::string_view kind;  // "street", "launch" or "used"
};

// The best-known new price of a GPU: street price when the catalog has one, else launch price.
std::optional<PriceQuote> new_price(const Gpu& gpu);

class Catalog;

// GB/s per direction of a PCIe link of generation `gen` with `lanes` lanes, after encoding, from
// the catalog's interconnects (data/catalog/interconnects.toml, ids pcie-<gen>-x<lanes>): that
// row, else another width of the generation scaled to `lanes`, else the nearest generation's row
// doubled or halved per generation (PCI-SIG: each of generations 1-6 doubles the transfer rate).
// nullopt when the catalog has no PCIe row at all.
std::optional<double> pcie_gbps(const Catalog& catalog, int gen, int lanes);

// A GPU family (an architecture) and the software stack its GPUs run: the stack, whether it is
// the common one, and which software runs on it fully, partly or not at all, as of a date
// (data/catalog/families.toml, docs/catalog.md "[[family]]").
struct Family {
  std::string id;              // an architecture of Gpu: pascal ... blackwell, rdna3, cdna2, cdna3
  std::string vendor;          // nvidia, amd, intel, apple
  std::string name;            // "AMD CDNA 2 (Instinct MI200)"
  std::string stack;           // cuda, rocm, oneapi, metal
  std::string stack_name;      // as users write it: "CUDA", "ROCm"
  bool common_stack = false;   // the stack most deep-learning code is written and tested on first
  std::string stack_versions;  // the releases of the stack that support the family
  std::vector<std::string> runs;          // software (kStackSoftware) that runs fully
  std::vector<std::string> runs_partly;   // runs with gaps, which `gaps` names
  std::vector<std::string> does_not_run;  // does not run at all
  std::string gaps;                       // what does not work, and what does instead
  Date as_of;                             // when the support levels were read
  Provenance provenance;

  // "yes", "partial" or "no"; "" for software the family does not list.
  std::string_view support(std::string_view software) const;
};

// The software whose support each family states, every one in exactly one of its lists: the
// inference engines of data/engines, the FlashAttention-2 package and bitsandbytes.
inline constexpr std::string_view kStackSoftware[] = {
    "pytorch", "flash-attention", "vllm", "sglang", "tensorrt-llm", "llama.cpp", "bitsandbytes"};

class NameIndex;

// One kind's name index in a Catalog, built once: by Catalog::build_indexes or at the first
// lookup (thread-safe: rigplan serve looks names up from several threads).
struct LazyNameIndex {
  std::unique_ptr<std::once_flag> once = std::make_unique<std::once_flag>();
  std::unique_ptr<NameIndex> index;
};

struct EntryFacts;

// What is found of the catalog's offers and GPUs on every recommend: each offer's GPU and link
// kind and each GPU's family, found once, at the first question (thread-safe, as LazyNameIndex).
// `built` says they are, so that the lookups of every candidate skip std::call_once.
struct LazyEntryFacts {
  std::unique_ptr<std::once_flag> once = std::make_unique<std::once_flag>();
  std::unique_ptr<std::atomic<bool>> built = std::make_unique<std::atomic<bool>>(false);
  std::unique_ptr<EntryFacts> facts;
};

// The loaded catalog. Entries keep the order of the files they came from.
class Catalog {
 public:
  Catalog();
  ~Catalog();
  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;

  std::vector<Gpu> gpus;
  std::vector<Cpu> cpus;
  std::vector<Offer> offers;
  std::vector<Region> regions;
  std::vector<Interconnect> interconnects;
  std::vector<BaseSystem> systems;
  std::vector<Circuit> circuits;
  std::vector<Psu> psus;
  std::vector<Nic> nics;
  std::vector<Board> boards;
  std::vector<Chassis> chassis;
  std::vector<Part> parts;
  std::vector<PsuEfficiency> psu_efficiencies;
  std::vector<Family> families;

  // Looks up by id, alias or name, case-insensitively and ignoring spaces, hyphens and vendor
  // prefixes ("RTX 4090", "geforce rtx 4090", "rtx-4090"). An unknown name is a kNotFound
  // Status with the closest names ("did you mean 'rtx-4090'?").
  Result<const Gpu*> find_gpu(std::string_view name) const;
  Result<const Cpu*> find_cpu(std::string_view name) const;
  Result<const Offer*> find_offer(std::string_view id) const;
  Result<const Region*> find_region(std::string_view name) const;
  Result<const Interconnect*> find_interconnect(std::string_view id) const;
  Result<const BaseSystem*> find_system(std::string_view name) const;
  Result<const Circuit*> find_circuit(std::string_view name) const;
  Result<const Psu*> find_psu(std::string_view name) const;
  Result<const Nic*> find_nic(std::string_view name) const;
  Result<const Board*> find_board(std::string_view name) const;
  Result<const Chassis*> find_chassis(std::string_view name) const;

  // Exact-id lookups, nullptr when absent.
  const Gpu* gpu(std::string_view id) const;
  const Region* region(std::string_view id) const;
  const Cpu* cpu(std::string_view id) const;
  const Part* part(std::string_view id) const;
  const Circuit* circuit(std::string_view id) const;
  const PsuEfficiency* psu_efficiency(std::string_view id) const;
  // The family of a GPU (its architecture); nullptr when the catalog has none (the loader
  // refuses a GPU without one).
  const Family* family(std::string_view architecture) const;
  // family(gpu.architecture), found once per GPU of `gpus` (LazyEntryFacts).
  const Family* family_of(const Gpu& gpu) const;
  // gpu(offer.gpu), found once per offer of `offers` (LazyEntryFacts).
  const Gpu* offer_gpu(const Offer& offer) const;

  // Builds the name indexes, and forgets entry facts found before; the loader calls it once the
  // vectors are final. A name that already stands for another entry of the same kind is left out
  // and reported to `on_clash` with the kind ("gpu"), the entry's index, the field it came from
  // ("id", "name" or "aliases"), the name and the other entry's id. Without it, each kind's index
  // is built at its first lookup, with no clash reported: for the catalog read from the binary's
  // image, whose names were checked when it was built, so that a command that looks up one GPU does
  // not index 1,700 offers.
  using ClashHandler =
      std::function<void(std::string_view kind, size_t index, std::string_view field,
                         const std::string& name, const std::string& other_id)>;
  void build_indexes(const ClashHandler& on_clash = {});

 private:
  friend std::string_view offer_link_kind(const Offer& offer, const Catalog& catalog);
  // The facts, found at the first question; nullptr once the offers, GPUs, interconnects or
  // families are no longer the vectors they were found in (another buffer or size: a catalog
  // built by hand and added to later), whose questions are answered by a scan instead.
  const EntryFacts* entry_facts() const;

  mutable LazyNameIndex gpu_index_, cpu_index_, offer_index_, region_index_, interconnect_index_,
      system_index_, circuit_index_, psu_index_, nic_index_, board_index_, chassis_index_;
  mutable LazyEntryFacts entry_facts_;
};

// A dated price older than a limit: the entry, which price, and its date.
struct StalePrice {
  std::string kind;  // "gpu", "cpu", "offer"
  std::string id;
  std::string field;  // street_price_usd, used_price_usd, price_usd, price_per_hour_usd
  Date date;
  long age_days = 0;
};

// Prices dated more than `max_age_days` before `today`, oldest first. Launch prices are history,
// not current prices, and are left out.
std::vector<StalePrice> stale_prices(const Catalog& catalog, const Date& today, long max_age_days);

// A catalog file: its path (for messages) and its text.
struct CatalogFile {
  std::string path;
  std::string text;
};

// The default catalog compiled into the binary.
std::vector<CatalogFile> embedded_catalog();

// Reads every *.toml file of a directory, in name order. A missing or unreadable directory is
// a kIoError Status; with `required`, so is one without *.toml files (a catalog or workload
// directory must have some; an overlay may be empty).
Result<std::vector<CatalogFile>> read_catalog_dir(const std::string& dir, bool required = false);

// Parses and checks a catalog: the base files, then the overlay files, whose entries add new
// ids or replace the fields they name in existing ones. Every problem found in every file is
// reported in one kInvalidInput Status, a line each, as "file:line:column: message".
Result<Catalog> load_catalog(const std::vector<CatalogFile>& base,
                             const std::vector<CatalogFile>& overlay = {});

}  // namespace rigplan
