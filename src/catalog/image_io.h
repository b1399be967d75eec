// Images of data compiled into the binary at build time (the catalog, catalog/catalog_image.h;
// the workload zoo, workload/zoo_image.h): a Writer that appends values, a Reader that reads them
// back in the same order, and the C++ source that holds an image as a string literal. Numbers are
// in the byte order of the machine that writes them: the build writes the image that the same
// build reads.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/schema.h"

namespace rigplan::image {

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

// Every field of `entry` the table names, in the table's order.
template <class T>
void put_fields(Writer& w, const T& entry, const std::vector<FieldSpec<T>>& fields) {
  for (const auto& field : fields)
    std::visit([&](auto member) { w.put(entry.*member); }, field.member);
}
template <class T>
void get_fields(Reader& r, T& entry, const std::vector<FieldSpec<T>>& fields) {
  for (const auto& field : fields)
    std::visit([&](auto member) { r.get(entry.*member); }, field.member);
}

// The definition of `std::string_view <function>()` returning `image`, as C++ source: a string
// literal, which GCC and Clang compile a megabyte of in a fraction of a second, where an array of
// a million integer initializers takes many seconds.
std::string literal_function(std::string_view function, std::string_view image);

}  // namespace rigplan::image
