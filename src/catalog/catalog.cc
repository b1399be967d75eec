#include "rigplan/catalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "catalog/name_index.h"

namespace rigplan {

const std::string& Provenance::source_of(std::string_view field) const {
  auto it = field_sources.find(field);
  return it != field_sources.end() ? it->second : source;
}

std::string_view module_of(const Gpu& gpu) {
  return gpu.module.empty() ? std::string_view(gpu.form_factor) : std::string_view(gpu.module);
}

std::string_view module_of(const Board& board) {
  return board.gpu_module.empty() ? std::string_view("pcie") : std::string_view(board.gpu_module);
}

std::string_view Family::support(std::string_view software) const {
  const auto listed = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), software) != list.end();
  };
  if (listed(runs)) return "yes";
  if (listed(runs_partly)) return "partial";
  if (listed(does_not_run)) return "no";
  return "";
}

std::optional<PriceQuote> new_price(const Gpu& gpu) {
  if (gpu.street_price_usd)
    return PriceQuote{*gpu.street_price_usd, gpu.street_price_date, "street"};
  if (gpu.launch_price_usd) return PriceQuote{*gpu.launch_price_usd, gpu.release_date, "launch"};
  return std::nullopt;
}

namespace {

// The generation and lanes of an interconnect id "pcie-<gen>-x<lanes>"; false for another id.
bool parse_pcie_id(std::string_view id, int& gen, int& lanes) {
  constexpr std::string_view kPrefix = "pcie-";
  if (!id.starts_with(kPrefix)) return false;
  const char* end = id.data() + id.size();
  const auto [p, ec] = std::from_chars(id.data() + kPrefix.size(), end, gen);
  if (ec != std::errc() || end - p < 2 || p[0] != '-' || p[1] != 'x') return false;
  return std::from_chars(p + 2, end, lanes).ec == std::errc();
}

}  // namespace

std::optional<double> pcie_gbps(const Catalog& catalog, int gen, int lanes) {
  const Interconnect* nearest = nullptr;
  int nearest_gen = 0;
  for (const auto& ic : catalog.interconnects) {
    int row_gen = 0, row_lanes = 0;
    if (std::string_view(ic.family) != "pcie" || !ic.lanes ||
        !parse_pcie_id(ic.id, row_gen, row_lanes))
      continue;
    if (row_gen == gen && *ic.lanes == lanes) return ic.bw_per_direction_gbps;
    const bool closer = !nearest || std::abs(row_gen - gen) < std::abs(nearest_gen - gen) ||
                        (row_gen == nearest_gen && *ic.lanes > *nearest->lanes);
    if (closer) {
      nearest = &ic;
      nearest_gen = row_gen;
    }
  }
  if (!nearest) return std::nullopt;
  return nearest->bw_per_direction_gbps / *nearest->lanes * lanes *
         std::pow(2.0, gen - nearest_gen);
}

// The facts of the offers and GPUs of the vectors they were found in (Catalog::entry_facts).
struct EntryFacts {
  // Where an offer's link kind comes from (offer_link_kind).
  enum class Link : unsigned char { kNone, kPcie, kInfinityFabric, kGpus };
  struct OfferFacts {
    const Gpu* gpu = nullptr;
    Link link = Link::kNone;
  };

  explicit EntryFacts(const Catalog& catalog);
  // Whether the catalog's vectors are still those the facts were found in.
  bool matches(const Catalog& catalog) const {
    return seen(catalog.gpus, gpus_) && seen(catalog.offers, offers_) &&
           seen(catalog.interconnects, interconnects_) && seen(catalog.families, families_);
  }

  static Link link_of(const Offer& offer, const Gpu* gpu, const Catalog& catalog);
  static std::string_view text(Link link, const Gpu* gpu);

  std::vector<OfferFacts> offers;       // by the offer's position
  std::vector<const Family*> families;  // by the GPU's position

 private:
  template <class T>
  using Seen = std::pair<const T*, const T*>;  // a vector's first and past-the-end entries
  template <class T>
  static Seen<T> span_of(const std::vector<T>& entries) {
    return {std::to_address(entries.begin()), std::to_address(entries.end())};
  }
  template <class T>
  static bool seen(const std::vector<T>& entries, Seen<T> was) {
    return span_of(entries) == was;
  }
  Seen<Gpu> gpus_;
  Seen<Offer> offers_;
  Seen<Interconnect> interconnects_;
  Seen<Family> families_;
};

EntryFacts::EntryFacts(const Catalog& catalog)
    : gpus_(span_of(catalog.gpus)),
      offers_(span_of(catalog.offers)),
      interconnects_(span_of(catalog.interconnects)),
      families_(span_of(catalog.families)) {
  std::unordered_map<std::string_view, const Gpu*> by_id;  // the first of an id, as gpu() finds
  for (const Gpu& gpu : catalog.gpus) by_id.try_emplace(gpu.id, &gpu);
  offers.reserve(catalog.offers.size());
  for (const Offer& offer : catalog.offers) {
    const auto found = by_id.find(offer.gpu);
    const Gpu* gpu = found == by_id.end() ? nullptr : found->second;
    // A price list names the sizes of one GPU one after the other, on the same link.
    const Offer* last = offers.empty() ? nullptr : &offer - 1;
    const bool as_last = last && offers.back().gpu == gpu && last->gpu_link == offer.gpu_link &&
                         (last->gpu_count > 1) == (offer.gpu_count > 1);
    offers.push_back({gpu, as_last ? offers.back().link : link_of(offer, gpu, catalog)});
  }
  families.reserve(catalog.gpus.size());
  for (const Gpu& gpu : catalog.gpus) families.push_back(catalog.family(gpu.architecture));
}

EntryFacts::Link EntryFacts::link_of(const Offer& offer, const Gpu* gpu, const Catalog& catalog) {
  if (offer.gpu_count <= 1 || offer.gpu_link.empty()) return Link::kNone;
  for (const auto& ic : catalog.interconnects) {
    if (ic.id != offer.gpu_link) continue;
    if (ic.family == "nvlink" && gpu)
      return Link::kGpus;  // nvlink-bridge, nvlink-cube-mesh or nvswitch
    if (ic.family == "infinity-fabric") return Link::kInfinityFabric;
  }
  return Link::kPcie;
}

std::string_view EntryFacts::text(Link link, const Gpu* gpu) {
  switch (link) {
    case Link::kNone:
      return "";
    case Link::kPcie:
      return "pcie";
    case Link::kInfinityFabric:
      return "infinity-fabric";
    case Link::kGpus:
      return gpu->gpu_link;
  }
  return "";
}

std::vector<StalePrice> stale_prices(const Catalog& catalog, const Date& today, long max_age_days) {
  std::vector<StalePrice> out;
  auto check = [&](std::string_view kind, const std::string& id, std::string_view field,
                   const Date& date) {
    const long age = today.days_since_epoch() - date.days_since_epoch();
    if (age > max_age_days) out.push_back({std::string(kind), id, std::string(field), date, age});
  };
  for (const auto& g : catalog.gpus) {
    if (g.street_price_date) check("gpu", g.id, "street_price_usd", *g.street_price_date);
    if (g.used_price_date) check("gpu", g.id, "used_price_usd", *g.used_price_date);
  }
  for (const auto& c : catalog.cpus) {
    if (c.price_kind == "street") check("cpu", c.id, "price_usd", c.price_date);
  }
  for (const auto& o : catalog.offers) check("offer", o.id, "price_per_hour_usd", o.price_date);
  for (const auto& s : catalog.systems) check("system", s.id, "price_usd", s.price_date);
  for (const auto& p : catalog.psus) check("psu", p.id, "price_usd", p.price_date);
  for (const auto& n : catalog.nics) check("nic", n.id, "price_usd", n.price_date);
  for (const auto& b : catalog.boards) check("board", b.id, "price_usd", b.price_date);
  for (const auto& c : catalog.chassis) check("chassis", c.id, "price_usd", c.price_date);
  for (const auto& p : catalog.parts) check("part", p.id, "price_usd", p.price_date);
  std::stable_sort(out.begin(), out.end(),
                   [](const StalePrice& a, const StalePrice& b) { return a.date < b.date; });
  return out;
}

Catalog::Catalog() = default;
Catalog::~Catalog() = default;
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;

namespace {

// A kind of entry as its names are looked up: the kind ("gpu", as the loader's problems name
// it) and the command that lists its entries, for "did you mean".
struct IndexedKind {
  std::string_view kind;
  std::string_view list_command;
};
constexpr IndexedKind kGpuKind{"gpu", "rigplan gpus list"};
constexpr IndexedKind kCpuKind{"cpu", "rigplan cpus list"};
constexpr IndexedKind kOfferKind{"offer", "rigplan offers list"};
constexpr IndexedKind kRegionKind{"region", "rigplan regions list"};
constexpr IndexedKind kInterconnectKind{"interconnect", "rigplan catalog check"};
constexpr IndexedKind kSystemKind{"system", "rigplan catalog check"};
constexpr IndexedKind kCircuitKind{"circuit", "rigplan catalog check"};
constexpr IndexedKind kPsuKind{"psu", "rigplan catalog check"};
constexpr IndexedKind kNicKind{"nic", "rigplan catalog check"};
constexpr IndexedKind kBoardKind{"board", "rigplan catalog check"};
constexpr IndexedKind kChassisKind{"chassis", "rigplan catalog check"};

template <class T>
std::unique_ptr<NameIndex> index_entries(IndexedKind kind, const std::vector<T>& entries,
                                         const Catalog::ClashHandler& on_clash) {
  auto index = std::make_unique<NameIndex>(std::string(kind.kind == "gpu"   ? "GPU"
                                                       : kind.kind == "cpu" ? "CPU"
                                                                            : kind.kind),
                                           std::string(kind.list_command));
  auto add = [&](size_t i, std::string_view field, const std::string& name) {
    const std::string other = index->add_name(i, name);
    if (!other.empty() && on_clash) on_clash(kind.kind, i, field, name, other);
  };
  for (size_t i = 0; i < entries.size(); ++i) index->add_entry(entries[i].id);
  for (size_t i = 0; i < entries.size(); ++i) {
    if constexpr (requires { entries[i].name; }) add(i, "name", entries[i].name);
    if constexpr (requires { entries[i].aliases; }) {
      for (const auto& alias : entries[i].aliases) add(i, "aliases", alias);
    }
  }
  return index;
}

template <class T>
Result<const T*> find_in(LazyNameIndex& lazy, IndexedKind kind, const std::vector<T>& entries,
                         std::string_view name) {
  std::call_once(*lazy.once, [&] {
    if (!lazy.index) lazy.index = index_entries(kind, entries, {});
  });
  auto found = lazy.index->find(name);
  if (!found) return found.status();
  return &entries[*found];
}

template <class T>
const T* find_id(const std::vector<T>& entries, std::string_view id) {
  for (const auto& e : entries) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

}  // namespace

void Catalog::build_indexes(const ClashHandler& on_clash) {
  entry_facts_ = LazyEntryFacts{};  // any found before the vectors were final
  gpu_index_.index = index_entries(kGpuKind, gpus, on_clash);
  cpu_index_.index = index_entries(kCpuKind, cpus, on_clash);
  offer_index_.index = index_entries(kOfferKind, offers, on_clash);
  region_index_.index = index_entries(kRegionKind, regions, on_clash);
  interconnect_index_.index = index_entries(kInterconnectKind, interconnects, on_clash);
  system_index_.index = index_entries(kSystemKind, systems, on_clash);
  circuit_index_.index = index_entries(kCircuitKind, circuits, on_clash);
  psu_index_.index = index_entries(kPsuKind, psus, on_clash);
  nic_index_.index = index_entries(kNicKind, nics, on_clash);
  board_index_.index = index_entries(kBoardKind, boards, on_clash);
  chassis_index_.index = index_entries(kChassisKind, chassis, on_clash);
}

Result<const Gpu*> Catalog::find_gpu(std::string_view name) const {
  return find_in(gpu_index_, kGpuKind, gpus, name);
}
Result<const Cpu*> Catalog::find_cpu(std::string_view name) const {
  return find_in(cpu_index_, kCpuKind, cpus, name);
}
Result<const Offer*> Catalog::find_offer(std::string_view id) const {
  return find_in(offer_index_, kOfferKind, offers, id);
}
Result<const Region*> Catalog::find_region(std::string_view name) const {
  return find_in(region_index_, kRegionKind, regions, name);
}
Result<const Interconnect*> Catalog::find_interconnect(std::string_view id) const {
  return find_in(interconnect_index_, kInterconnectKind, interconnects, id);
}

Result<const BaseSystem*> Catalog::find_system(std::string_view name) const {
  return find_in(system_index_, kSystemKind, systems, name);
}
Result<const Circuit*> Catalog::find_circuit(std::string_view name) const {
  return find_in(circuit_index_, kCircuitKind, circuits, name);
}

Result<const Psu*> Catalog::find_psu(std::string_view name) const {
  return find_in(psu_index_, kPsuKind, psus, name);
}
Result<const Nic*> Catalog::find_nic(std::string_view name) const {
  return find_in(nic_index_, kNicKind, nics, name);
}
Result<const Board*> Catalog::find_board(std::string_view name) const {
  return find_in(board_index_, kBoardKind, boards, name);
}
Result<const Chassis*> Catalog::find_chassis(std::string_view name) const {
  return find_in(chassis_index_, kChassisKind, chassis, name);
}

std::optional<PcieSlot> parse_pcie_slot(std::string_view text) {
  PcieSlot s;
  char tail = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "x%d/%d@%d%c", &s.lanes, &s.gen, &s.position, &tail) != 3)
    return std::nullopt;
  const bool lanes_ok =
      s.lanes == 1 || s.lanes == 2 || s.lanes == 4 || s.lanes == 8 || s.lanes == 16;
  if (!lanes_ok || s.gen < 1 || s.gen > 6 || s.position < 1 || s.position > 32) return std::nullopt;
  return s;
}

std::vector<PcieSlot> Board::slots() const {
  std::vector<PcieSlot> out;
  for (const auto& text : pcie_slots) {
    if (auto s = parse_pcie_slot(text)) out.push_back(*s);
  }
  return out;
}

namespace {

// The position of `entry` in `entries`, or nullopt when it is not one of them (a copy).
template <class T>
std::optional<size_t> position(const std::vector<T>& entries, const T& entry) {
  const std::less<const T*> before;
  if (before(&entry, entries.data()) || !before(&entry, entries.data() + entries.size()))
    return std::nullopt;
  return static_cast<size_t>(&entry - entries.data());
}

}  // namespace

const EntryFacts* Catalog::entry_facts() const {
  if (!entry_facts_.built->load(std::memory_order_acquire)) {
    std::call_once(*entry_facts_.once, [&] {
      entry_facts_.facts = std::make_unique<EntryFacts>(*this);
      entry_facts_.built->store(true, std::memory_order_release);
    });
  }
  return entry_facts_.facts->matches(*this) ? entry_facts_.facts.get() : nullptr;
}

std::string_view offer_link_kind(const Offer& offer, const Catalog& catalog) {
  if (offer.gpu_count <= 1 || offer.gpu_link.empty()) return "";  // most offers: one GPU
  if (const EntryFacts* facts = catalog.entry_facts()) {
    if (const auto at = position(catalog.offers, offer)) {
      const EntryFacts::OfferFacts& found = facts->offers[*at];
      return EntryFacts::text(found.link, found.gpu);
    }
  }
  const Gpu* gpu = catalog.gpu(offer.gpu);
  return EntryFacts::text(EntryFacts::link_of(offer, gpu, catalog), gpu);
}

const Gpu* Catalog::offer_gpu(const Offer& offer) const {
  if (const EntryFacts* facts = entry_facts()) {
    if (const auto at = position(offers, offer)) return facts->offers[*at].gpu;
  }
  return gpu(offer.gpu);
}

const Family* Catalog::family_of(const Gpu& gpu) const {
  if (const EntryFacts* facts = entry_facts()) {
    if (const auto at = position(gpus, gpu)) return facts->families[*at];
  }
  return family(gpu.architecture);
}

const Gpu* Catalog::gpu(std::string_view id) const { return find_id(gpus, id); }
const Region* Catalog::region(std::string_view id) const { return find_id(regions, id); }
const Cpu* Catalog::cpu(std::string_view id) const { return find_id(cpus, id); }
const Part* Catalog::part(std::string_view id) const { return find_id(parts, id); }
const Circuit* Catalog::circuit(std::string_view id) const { return find_id(circuits, id); }
const PsuEfficiency* Catalog::psu_efficiency(std::string_view id) const {
  return find_id(psu_efficiencies, id);
}
const Family* Catalog::family(std::string_view architecture) const {
  return find_id(families, architecture);
}

}  // namespace rigplan
