// Imported offers -> reviewed TOML in the catalog's own schema, written atomically.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "rigplan/prices.h"
#include "rigplan/schema.h"
#include "util/file_write.h"
#include "util/strings.h"

namespace rigplan {
namespace {

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string toml_value(const FieldValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return toml_string(v);
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          std::vector<std::string> items;
          for (const auto& s : v) items.push_back(toml_string(s));
          return "[" + join(items, ", ") + "]";
        } else if constexpr (std::is_same_v<V, double>) {
          return format_number(v);
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<V, Date>) {
          return v.to_string();
        } else {
          return "";
        }
      },
      value);
}

std::string offer_toml(const Offer& offer, bool replace) {
  std::string out = "[[offer]]\n";
  for (const auto& field : offer_fields()) {
    const FieldValue value = field_value(offer, field);
    if (std::holds_alternative<std::monostate>(value)) continue;
    out += fmt::format("{} = {}\n", field.key, toml_value(value));
  }
  if (replace) out += "replace = true\n";
  const Provenance& p = offer.provenance;
  out += fmt::format("source = {}\nconfidence = {}\n", toml_string(p.source),
                     toml_string(p.confidence));
  if (!p.notes.empty()) out += fmt::format("notes = {}\n", toml_string(p.notes));
  if (!p.field_sources.empty()) {
    out += "[offer.field_sources]\n";
    for (const auto& [field, source] : p.field_sources)
      out += fmt::format("{} = {}\n", field, toml_string(source));
  }
  return out;
}

// The files of a target, with `name` (written into `dir`) replacing the file of that name.
void put(std::vector<CatalogFile>& files, const std::string& dir, const std::string& name,
         std::string text) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  for (auto& f : files) {
    if (std::filesystem::path(f.path).filename() == name) {
      f = {path, std::move(text)};
      return;
    }
  }
  files.push_back({path, std::move(text)});
}

}  // namespace

std::string offers_toml(const ImportedOffers& file, const OfferImport& import, bool replace) {
  std::string out = fmt::format(
      "# Cloud GPU offers of {}, written by `rigplan offers import` (docs/prices.md). Re-run the\n"
      "# import to refresh them; edits by hand are replaced. Read from:\n",
      file.provider);
  for (const auto& in : import.inputs) {
    out += fmt::format("#   {} ({} rows, {} with GPUs; prices as of {}, from {})\n", in.path,
                       in.rows, in.gpu_rows, in.as_of.to_string(), in.as_of_from);
  }
  out += fmt::format("# Schema: docs/catalog.md ([[offer]]). {} offers.\n", file.offers.size());
  for (const auto& offer : file.offers) out += "\n" + offer_toml(offer, replace);
  return out;
}

Result<std::vector<WrittenFile>> write_import(const OfferImport& import,
                                              const ImportTarget& target) {
  std::vector<CatalogFile> base = target.base, overlay = target.overlay;
  std::vector<std::pair<std::string, std::string>> texts;  // name, text
  for (const auto& file : import.files) {
    std::string text = offers_toml(file, import, !target.into_base);
    put(target.into_base ? base : overlay, target.dir, file.file_name, text);
    texts.emplace_back(file.file_name, std::move(text));
  }
  auto loaded = load_catalog(base, overlay);
  if (!loaded) {
    return Status::invalid_input(
        fmt::format("nothing written: the catalog would not load with the import:\n{}",
                    loaded.status().message()));
  }
  std::vector<WrittenFile> written;
  size_t i = 0;
  for (const auto& [name, text] : texts) {
    WrittenFile w{(std::filesystem::path(target.dir) / name).string(),
                  static_cast<int>(import.files[i++].offers.size()), ""};
    if (Status s = write_file_atomic(w.path, text, w.backup); !s.ok()) return s;
    written.push_back(std::move(w));
  }
  return written;
}

}  // namespace rigplan
