#include <fmt/format.h>

#include "rigplan/report.h"
#include "rigplan/schema.h"

namespace rigplan::report {
namespace {

Json value_json(const FieldValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<V, Date>) {
          return v.to_string();
        } else {
          return v;
        }
      },
      value);
}

template <class T>
Json entry_json(const T& entry, const std::vector<FieldSpec<T>>& fields) {
  Json out = Json::object();
  for (const auto& field : fields) {
    FieldValue value = field_value(entry, field);
    if (std::holds_alternative<std::monostate>(value)) continue;
    out[std::string(field.key)] = value_json(value);
  }
  const Provenance& p = entry.provenance;
  out["source"] = p.source;
  out["confidence"] = p.confidence;
  if (!p.notes.empty()) out["notes"] = p.notes;
  if (!p.field_sources.empty()) {
    Json sources = Json::object();
    for (const auto& [field, source] : p.field_sources) sources[field] = source;
    out["field_sources"] = sources;
  }
  out["defined_at"] = fmt::format("{}:{}", p.file, p.line);
  return out;
}

}  // namespace

Json to_json(const Gpu& gpu, const Family* family) {
  Json out = entry_json(gpu, gpu_fields());
  if (family) out["stack"] = entry_json(*family, family_fields());
  return out;
}
Json to_json(const Cpu& cpu) { return entry_json(cpu, cpu_fields()); }
Json to_json(const Offer& offer) { return entry_json(offer, offer_fields()); }
Json to_json(const Region& region) { return entry_json(region, region_fields()); }
Json to_json(const Interconnect& interconnect) {
  return entry_json(interconnect, interconnect_fields());
}
Json to_json(const BaseSystem& system) { return entry_json(system, system_fields()); }
Json to_json(const Circuit& circuit) { return entry_json(circuit, circuit_fields()); }

}  // namespace rigplan::report
