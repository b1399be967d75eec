#include <fmt/format.h>

#include "rigplan/perf.h"
#include "rigplan/report.h"
#include "rigplan/schema.h"

namespace rigplan::report {
namespace {

// One row per present field: its value with unit, and its source where it has its own; the
// entry's source, confidence and notes follow the table.
template <class T>
std::string entry_text(const T& entry, const std::vector<FieldSpec<T>>& fields) {
  Table table({{"field"}, {"value"}, {"source"}});
  for (const auto& field : fields) {
    const FieldValue value = field_value(entry, field);
    if (std::holds_alternative<std::monostate>(value)) continue;
    std::string text = display_text(value);
    if (!field.unit.empty() && field.type() != FieldType::kText)
      text.append(" ").append(field.unit);
    const auto own = entry.provenance.field_sources.find(field.key);
    table.add_row({std::string(field.key), text,
                   own != entry.provenance.field_sources.end() ? own->second : "[entry source]"});
  }
  const Provenance& p = entry.provenance;
  std::string out = table.render();
  out += fmt::format("\nentry source: {}\nconfidence:   {}\n", p.source, p.confidence);
  if (!p.notes.empty()) out += fmt::format("notes:        {}\n", p.notes);
  out += fmt::format("defined at:   {}:{}\n", p.file, p.line);
  return out;
}

}  // namespace

std::string show_text(const Gpu& gpu, const Family* family) {
  std::string out = entry_text(gpu, gpu_fields());
  if (!family) return out;
  return out + fmt::format("\nSoftware stack: {}\n\n", stack_summary(*family)) +
         entry_text(*family, family_fields());
}
std::string show_text(const Cpu& cpu) { return entry_text(cpu, cpu_fields()); }
std::string show_text(const Offer& offer) { return entry_text(offer, offer_fields()); }
std::string show_text(const Region& region) { return entry_text(region, region_fields()); }

}  // namespace rigplan::report
