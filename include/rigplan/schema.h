// The catalog schema as data: one FieldSpec per field of each entity kind. The loader checks
// input against it; the report layer renders from it (JSON keys, units, per-field sources);
// the CLI sorts and filters by it. One table per kind, so a field is declared once.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rigplan/catalog.h"

namespace rigplan {

enum class FieldType { kText, kTextList, kNumber, kInteger, kBool, kDate };

// The value of one field of one entry; monostate when the optional field is absent.
using FieldValue = std::variant<std::monostate, std::string, std::vector<std::string>, double,
                                std::int64_t, bool, Date>;

template <class T>
using FieldMember = std::variant<std::string T::*, std::vector<std::string> T::*, double T::*,
                                 std::optional<double> T::*, int T::*, std::optional<int> T::*,
                                 bool T::*, Date T::*, std::optional<Date> T::*, std::int64_t T::*,
                                 std::optional<std::int64_t> T::*, std::optional<bool> T::*>;

// Accepted range of a number: finite, lo < x (or lo <= x when lo_inclusive) and x <= hi.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_inclusive = true;

  bool contains(double x) const {
    return std::isfinite(x) && (lo_inclusive ? x >= lo : x > lo) && x <= hi;
  }
  std::string describe() const;  // "> 0 and <= 100000"
};

template <class T>
struct FieldSpec {
  std::string_view key;
  FieldMember<T> member;
  bool required = false;
  std::string_view unit;                  // display unit: "GB", "GB/s", "USD", "W"
  std::vector<std::string_view> choices;  // accepted values of a text field; empty: any text
  Range range;                            // accepted values of a number

  FieldType type() const;
};

const std::vector<FieldSpec<Gpu>>& gpu_fields();
const std::vector<FieldSpec<Cpu>>& cpu_fields();
const std::vector<FieldSpec<Offer>>& offer_fields();
const std::vector<FieldSpec<Region>>& region_fields();
const std::vector<FieldSpec<Interconnect>>& interconnect_fields();
const std::vector<FieldSpec<BaseSystem>>& system_fields();
const std::vector<FieldSpec<Circuit>>& circuit_fields();
const std::vector<FieldSpec<Psu>>& psu_fields();
const std::vector<FieldSpec<Nic>>& nic_fields();
const std::vector<FieldSpec<Board>>& board_fields();
const std::vector<FieldSpec<Chassis>>& chassis_fields();
const std::vector<FieldSpec<Part>>& part_fields();
const std::vector<FieldSpec<PsuEfficiency>>& psu_efficiency_fields();
const std::vector<FieldSpec<Family>>& family_fields();

// Provenance keys every entry may carry besides its fields.
inline constexpr std::string_view kProvenanceKeys[] = {"source", "confidence", "notes",
                                                       "field_sources"};
inline constexpr std::string_view kConfidenceLevels[] = {"cited", "mixed", "recall"};

template <class T>
FieldType FieldSpec<T>::type() const {
  constexpr FieldType kTypes[] = {FieldType::kText,    FieldType::kTextList, FieldType::kNumber,
                                  FieldType::kNumber,  FieldType::kInteger,  FieldType::kInteger,
                                  FieldType::kBool,    FieldType::kDate,     FieldType::kDate,
                                  FieldType::kInteger, FieldType::kInteger,  FieldType::kBool};
  return kTypes[member.index()];
}

template <class T>
const FieldSpec<T>* find_field(const std::vector<FieldSpec<T>>& fields, std::string_view key) {
  for (const auto& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// The value of a field of an entry; monostate for an absent optional (or empty text).
template <class T>
FieldValue field_value(const T& entry, const FieldSpec<T>& field) {
  return std::visit(
      [&](auto member) -> FieldValue {
        const auto& v = entry.*member;
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          if (v.empty()) return std::monostate{};
          return v;
        } else if constexpr (std::is_same_v<V, int> || std::is_same_v<V, std::int64_t>) {
          return static_cast<std::int64_t>(v);
        } else if constexpr (std::is_same_v<V, std::optional<int>> ||
                             std::is_same_v<V, std::optional<std::int64_t>>) {
          if (!v) return std::monostate{};
          return static_cast<std::int64_t>(*v);
        } else if constexpr (std::is_same_v<V, std::optional<bool>> ||
                             std::is_same_v<V, std::optional<double>> ||
                             std::is_same_v<V, std::optional<Date>>) {
          if (!v) return std::monostate{};
          return *v;
        } else {
          return v;
        }
      },
      field.member);
}

// A field value as a number, for sorting and filtering; nullopt when absent or not numeric.
std::optional<double> numeric(const FieldValue& value);

// A field value as display text ("" when absent; lists joined with ", ").
std::string display_text(const FieldValue& value);

}  // namespace rigplan
