#include "catalog/catalog_image.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "rigplan/schema.h"

namespace rigplan {
namespace {

// The first bytes of an image; the number changes with the layout.
constexpr std::string_view kMagic = "rigplan catalog image 3\n";

// Calls f(entries, fields) for each kind of entry, in the order of Catalog's members.
template <class C, class F>
void for_each_kind(C& catalog, F&& f) {
  f(catalog.gpus, gpu_fields());
  f(catalog.cpus, cpu_fields());
  f(catalog.offers, offer_fields());
  f(catalog.regions, region_fields());
  f(catalog.interconnects, interconnect_fields());
  f(catalog.systems, system_fields());
  f(catalog.circuits, circuit_fields());
  f(catalog.psus, psu_fields());
  f(catalog.nics, nic_fields());
  f(catalog.boards, board_fields());
  f(catalog.chassis, chassis_fields());
  f(catalog.parts, part_fields());
  f(catalog.psu_efficiencies, psu_efficiency_fields());
  f(catalog.families, family_fields());
}

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  template <class N>
  requires std::is_arithmetic_v<N>
  void put(N value) { out_.append(reinterpret_cast<const char*>(&value), sizeof value); }
  void put(std::string_view text) {
    put(static_cast<std::uint32_t>(text.size()));
    out_.append(text);
  }
  void put(const std::string& text) { put(std::string_view(text)); }
  void put(const Date& date) {
    put(date.year);
    put(date.month);
    put(date.day);
  }
  template <class V>
  void put(const std::optional<V>& value) {
    put(value.has_value());
    if (value) put(*value);
  }
  void put(const std::vector<std::string>& list) {
    put(static_cast<std::uint32_t>(list.size()));
    for (const auto& item : list) put(item);
  }
  void put(const Provenance& p) {
    put(p.source);
    put(p.confidence);
    put(p.notes);
    put(static_cast<std::uint32_t>(p.field_sources.size()));
    for (const auto& [field, source] : p.field_sources) {
      put(field);
      put(source);
    }
    put(p.file);
    put(p.line);
  }

 private:
  std::string& out_;
};

// Reads what Writer wrote. A read past the end leaves the value as it was and marks the reader
// failed; the caller checks failed() once per entry.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool failed() const { return failed_; }
  bool at_end() const { return in_.empty(); }

  template <class N>
  requires std::is_arithmetic_v<N>
  void get(N& value) {
    if (!take(sizeof value)) return;
    std::memcpy(&value, in_.data() - sizeof value, sizeof value);
  }
  void get(bool& value) {  // any byte but 0 is true: no bool is made of another byte
    std::uint8_t byte = 0;
    get(byte);
    value = byte != 0;
  }
  void get(std::string& text) {
    std::uint32_t size = 0;
    get(size);
    if (!take(size)) return;
    text.assign(in_.data() - size, size);
  }
  void get(Date& date) {
    get(date.year);
    get(date.month);
    get(date.day);
  }
  template <class V>
  void get(std::optional<V>& value) {
    bool present = false;
    get(present);
    if (!present) return value.reset();
    get(value.emplace());
  }
  void get(std::vector<std::string>& list) {
    const std::uint32_t n = count();
    list.resize(n);
    for (auto& item : list) get(item);
  }
  void get(Provenance& p) {
    get(p.source);
    get(p.confidence);
    get(p.notes);
    const std::uint32_t n = count();
    for (std::uint32_t i = 0; i < n && !failed_; ++i) {
      std::string field, source;
      get(field);
      get(source);
      p.field_sources.emplace(std::move(field), std::move(source));
    }
    get(p.file);
    get(p.line);
  }
  // A count of items that take at least one byte each: more than the bytes left is a failure.
  std::uint32_t count() {
    std::uint32_t n = 0;
    get(n);
    if (n > in_.size()) failed_ = true;
    return failed_ ? 0 : n;
  }

 private:
  bool take(size_t size) {
    if (failed_ || size > in_.size()) {
      failed_ = true;
      return false;
    }
    in_.remove_prefix(size);
    return true;
  }

  std::string_view in_;
  bool failed_ = false;
};

}  // namespace

std::string write_catalog_image(const Catalog& catalog) {
  std::string out(kMagic);
  Writer w(out);
  for_each_kind(catalog, [&](const auto& entries, const auto& fields) {
    w.put(static_cast<std::uint32_t>(entries.size()));
    for (const auto& entry : entries) {
      for (const auto& field : fields)
        std::visit([&](auto member) { w.put(entry.*member); }, field.member);
      w.put(entry.provenance);
    }
  });
  return out;
}

Result<Catalog> read_catalog_image(std::string_view image) {
  if (!image.starts_with(kMagic)) {
    return Status::internal("the embedded catalog image does not start with its magic line");
  }
  Reader r(image.substr(kMagic.size()));
  Catalog catalog;
  for_each_kind(catalog, [&](auto& entries, const auto& fields) {
    entries.resize(r.count());
    for (auto& entry : entries) {
      for (const auto& field : fields)
        std::visit([&](auto member) { r.get(entry.*member); }, field.member);
      r.get(entry.provenance);
      if (r.failed()) return;
    }
  });
  if (r.failed() || !r.at_end()) {
    return Status::internal(fmt::format("the embedded catalog image is {}",
                                        r.failed() ? "truncated" : "longer than its entries"));
  }
  std::string clash;
  catalog.build_indexes([&](std::string_view kind, size_t, std::string_view,
                            const std::string& name, const std::string& other) {
    if (clash.empty()) clash = fmt::format("{} name '{}' also names '{}'", kind, name, other);
  });
  if (!clash.empty()) return Status::internal("the embedded catalog image: " + clash);
  return catalog;
}

std::string catalog_image_source(std::string_view image) {
  // A string literal: GCC and Clang compile a megabyte of it in a fraction of a second, where an
  // array of a million integer initializers takes many seconds. Octal escapes are always three
  // digits, so that a digit after one is not read as part of it.
  constexpr size_t kBytesPerLine = 96;
  std::string out =
      "// Generated by catalog_image_gen from data/catalog/ (src/catalog/catalog_image.h). Do not "
      "edit.\n#include \"catalog/catalog_image.h\"\n\nnamespace rigplan {\n\n"
      "std::string_view embedded_catalog_image() {\n  static constexpr char kImage[] =\n";
  for (size_t at = 0; at < image.size(); at += kBytesPerLine) {
    out += "      \"";
    for (char c : image.substr(at, kBytesPerLine)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\' && c != '?') {
        out += c;
      } else {
        out += fmt::format("\\{:03o}", byte);
      }
    }
    out += "\"\n";
  }
  if (image.empty()) out += "      \"\"\n";
  out += fmt::format("      ;\n  return {{kImage, {}}};\n}}\n\n}}  // namespace rigplan\n",
                     image.size());
  return out;
}

}  // namespace rigplan
