// Decoding TOML tables against FieldSpec tables, with every problem reported as
// file:line:column and the accepted values. Shared by the catalog and workload loaders.
#pragma once

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/schema.h"
#include "util/strings.h"

namespace rigplan::toml_decode {

struct Problem {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;
};

class Problems {
 public:
  void add(const toml::source_region& where, std::string message) {
    list_.push_back({where.path ? *where.path : std::string("<input>"),
                     static_cast<int>(where.begin.line), static_cast<int>(where.begin.column),
                     std::move(message)});
  }
  bool empty() const { return list_.empty(); }

  // The fields that failed their own check (type, accepted values, range) or, required, are
  // missing, by the table that holds them and their name: the checks across fields skip them
  // (EntryContext::read_well).
  void mark_failed(const toml::table* table, std::string_view field) {
    failed_.emplace(table, std::string(field));
  }
  bool failed(const toml::table* table, std::string_view field) const {
    return failed_.count({table, std::string(field)}) > 0;
  }
  bool any_failed(const toml::table* table) const {
    const auto it = failed_.lower_bound({table, std::string()});
    return it != failed_.end() && it->first == table;
  }

  Status to_status() {
    std::stable_sort(list_.begin(), list_.end(), [](const Problem& a, const Problem& b) {
      return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
    });
    std::string text;
    std::vector<std::string> files;
    for (size_t i = 0; i < list_.size(); ++i) {
      const Problem& p = list_[i];
      if (i < kMaxListed)
        text += fmt::format("{}:{}:{}: {}\n", p.file, p.line, p.column, p.message);
      if (std::find(files.begin(), files.end(), p.file) == files.end()) files.push_back(p.file);
    }
    if (list_.size() > kMaxListed) {
      text += fmt::format("... and {} more, not listed\n", list_.size() - kMaxListed);
    }
    text += fmt::format("{} problem{} in {} file{}", list_.size(), list_.size() == 1 ? "" : "s",
                        files.size(), files.size() == 1 ? "" : "s");
    return Status::invalid_input(std::move(text));
  }

 private:
  // The most problems one message lists, first by position; the count covers them all.
  static constexpr size_t kMaxListed = 100;
  std::vector<Problem> list_;
  std::set<std::pair<const toml::table*, std::string>> failed_;
};

// An entry as read from a file, before decoding.
struct RawEntry {
  toml::table table;
  std::string id;  // empty when the entry has no usable id
};

inline const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "nothing";
  }
}

inline const char* expected_name(FieldType type) {
  switch (type) {
    case FieldType::kText:
      return "a string";
    case FieldType::kTextList:
      return "an array of strings";
    case FieldType::kNumber:
      return "a number";
    case FieldType::kInteger:
      return "an integer";
    case FieldType::kBool:
      return "true or false";
    case FieldType::kDate:
      return "a date such as 2024-06-01 (unquoted)";
  }
  return "";
}

inline std::vector<std::string> to_strings(std::span<const std::string_view> views) {
  return {views.begin(), views.end()};
}

// Reports problems about one entry (or one of its sub-tables), positioned at the offending
// field when there is one, and remembers the fields that failed their own check.
//
// A field that fails (field_failed: a wrong type, a value not accepted, a number out of range; a
// required field missing) is reported once, by the decoder; its value may still be stored (a
// price of -15000 is the price the user wrote). A check across fields (a price and its date, a
// count divided by another) runs only when every field it reads read well (read_well), so that
// the user gets no second, misleading error about a value already reported, and nothing is
// divided by a count out of range.
class EntryContext {
 public:
  EntryContext(std::string_view kind, const RawEntry& entry, Problems& problems)
      : kind_(kind), id_(entry.id), table_(&entry.table), problems_(problems) {}

  // A context for a sub-table of the entry: `[workload.transformer]` is scope "transformer".
  EntryContext within(const toml::table& sub, std::string_view scope) const {
    EntryContext ctx = *this;
    ctx.table_ = &sub;
    ctx.scope_ = scope;
    return ctx;
  }

  void error(std::string_view field, std::string_view message) const {
    const toml::node* node = field.empty() ? nullptr : table_->get(field);
    const auto& where = node ? node->source() : table_->source();
    problems_.add(where,
                  prefix() + (field.empty() ? std::string(message)
                                            : fmt::format("field '{}': {}", field, message)));
  }
  // A field that failed its own check: reported, and remembered for read_well.
  void field_failed(std::string_view field, std::string_view message) const {
    problems_.mark_failed(table_, field);
    error(field, message);
  }
  // A required field that is missing: reported at the table, and remembered for read_well.
  void field_missing(std::string_view field) const {
    problems_.mark_failed(table_, field);
    error_in(*table_, fmt::format("missing required field '{}'", field));
  }
  // Whether none of `fields` (of this context's table) failed its own check; a field that is
  // absent and optional reads well.
  bool read_well(std::initializer_list<std::string_view> fields) const {
    return std::none_of(fields.begin(), fields.end(),
                        [&](std::string_view f) { return problems_.failed(table_, f); });
  }
  // Whether no field of this context's table failed: for what is built from all of them.
  bool all_read_well() const { return !problems_.any_failed(table_); }
  void error_at(const toml::node& node, std::string_view message) const {
    problems_.add(node.source(), prefix() + std::string(message));
  }
  void error_in(const toml::table& table, std::string_view message) const {
    error_at(table, message);
  }
  std::string prefix() const {
    std::string out =
        id_.empty() ? fmt::format("{}: ", kind_) : fmt::format("{} '{}': ", kind_, shown(id_));
    if (!scope_.empty()) out += fmt::format("{}: ", scope_);
    return out;
  }
  const toml::table& table() const { return *table_; }

 private:
  std::string_view kind_;
  std::string_view id_;
  const toml::table* table_;
  std::string scope_;
  Problems& problems_;
};

// Decodes one field's node into one member of an entry, reporting each problem at the field:
// one read() per member type, each returning false when the node does not fit.
template <class T>
class FieldDecoder {
 public:
  FieldDecoder(const toml::node& node, const FieldSpec<T>& spec, const EntryContext& ctx)
      : node_(node), spec_(spec), ctx_(ctx) {}

  bool read(std::string& target) const {
    const auto* s = node_.as_string();
    if (!s) return type_error();
    if (s->get().empty()) return fail("must not be empty");
    target = s->get();
    return check_choice(target);
  }
  bool read(std::vector<std::string>& target) const {
    const auto* array = node_.as_array();
    if (!array) return type_error();
    bool ok = true;
    target.clear();  // the file's list replaces the default, it does not extend it
    for (const auto& item : *array) {
      const auto* s = item.as_string();
      if (!s) return type_error();
      target.push_back(s->get());
      ok = check_choice(target.back()) && ok;
    }
    return ok;
  }
  bool read(double& target) const { return read_number(target); }
  bool read(std::optional<double>& target) const { return read_number(target); }
  bool read(std::int64_t& target) const { return read_integer<std::int64_t>(target); }
  bool read(std::optional<std::int64_t>& target) const {
    return read_integer<std::int64_t>(target);
  }
  bool read(int& target) const { return read_integer<int>(target); }
  bool read(std::optional<int>& target) const { return read_integer<int>(target); }
  bool read(bool& target) const { return read_bool(target); }
  bool read(std::optional<bool>& target) const { return read_bool(target); }
  bool read(Date& date) const {
    const auto* d = node_.as_date();
    if (!d) return type_error();
    const toml::date v = d->get();
    date = {static_cast<int>(v.year), static_cast<int>(v.month), static_cast<int>(v.day)};
    if (date.year < 1990 || date.year > 2100) {
      return fail(
          fmt::format("{} is out of range; expected a date from 1990 to 2100", date.to_string()));
    }
    return true;
  }
  bool read(std::optional<Date>& target) const {
    Date date;
    if (!read(date)) return false;
    target = date;
    return true;
  }

 private:
  bool fail(const std::string& message) const {
    ctx_.field_failed(spec_.key, message);
    return false;
  }
  bool type_error() const {
    return fail(fmt::format("expected {}, got {}", expected_name(spec_.type()), type_name(node_)));
  }
  bool check_choice(const std::string& value) const {
    if (spec_.choices.empty() ||
        std::find(spec_.choices.begin(), spec_.choices.end(), value) != spec_.choices.end()) {
      return true;
    }
    const auto accepted = to_strings(spec_.choices);
    return fail(fmt::format("'{}' is not accepted; expected {}{}", shown(value),
                            quoted_list(accepted), did_you_mean(value, accepted)));
  }
  bool check_range(double value) const {
    if (spec_.range.contains(value)) return true;
    return fail(fmt::format("{} is out of range; expected {}", format_number(value),
                            spec_.range.describe()));
  }
  // A float, or an integer read as one.
  template <class V>
  bool read_number(V& target) const {
    double value = 0;
    if (const auto* f = node_.as_floating_point()) {
      value = f->get();
    } else if (const auto* i = node_.as_integer()) {
      value = static_cast<double>(i->get());
    } else {
      return type_error();
    }
    target = value;
    return check_range(value);
  }
  // An integer stored as `Int`; the range is checked on the value as written.
  template <class Int, class V>
  bool read_integer(V& target) const {
    const auto* i = node_.as_integer();
    if (!i) return type_error();
    target = static_cast<Int>(i->get());
    return check_range(static_cast<double>(i->get()));
  }
  template <class V>
  bool read_bool(V& target) const {
    const auto* b = node_.as_boolean();
    if (!b) return type_error();
    target = b->get();
    return true;
  }

  const toml::node& node_;
  const FieldSpec<T>& spec_;
  const EntryContext& ctx_;
};

// Decodes one field's node into the entry; reports and returns false when it does not fit.
template <class T>
bool decode_field(const toml::node& node, const FieldSpec<T>& spec, T& out,
                  const EntryContext& ctx) {
  const FieldDecoder<T> decoder(node, spec, ctx);
  return std::visit([&](auto member) -> bool { return decoder.read(out.*member); }, spec.member);
}

template <class T>
void decode_provenance(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields,
                       Provenance& out) {
  const toml::table& table = ctx.table();
  auto text = [&](std::string_view key, bool required, std::string& target) {
    const toml::node* node = table.get(key);
    if (!node) {
      if (required) ctx.error("", fmt::format("missing required field '{}'", key));
      return;
    }
    const auto* s = node->as_string();
    if (!s || s->get().empty()) {
      ctx.error(key, fmt::format("expected a non-empty string, got {}", type_name(*node)));
      return;
    }
    target = s->get();
  };
  text("source", true, out.source);
  text("confidence", true, out.confidence);
  text("notes", false, out.notes);
  if (!out.confidence.empty()) {
    const auto levels = to_strings(kConfidenceLevels);
    if (std::find(levels.begin(), levels.end(), out.confidence) == levels.end()) {
      ctx.error("confidence",
                fmt::format("'{}' is not accepted; expected {}{}", shown(out.confidence),
                            quoted_list(levels), did_you_mean(out.confidence, levels)));
    }
  }
  const toml::node* sources = table.get("field_sources");
  if (!sources) return;
  const auto* sub = sources->as_table();
  if (!sub) {
    ctx.error("field_sources", fmt::format("expected a table, got {}", type_name(*sources)));
    return;
  }
  std::vector<std::string> keys;
  for (const auto& f : fields) keys.emplace_back(f.key);
  for (const auto& [key, node] : *sub) {
    const std::string name(key.str());
    if (!find_field(fields, name)) {
      ctx.error_at(node, fmt::format("field_sources: '{}' is not a field{}", shown(name),
                                     did_you_mean(name, keys)));
    } else if (const auto* s = node.as_string(); !s || s->get().empty()) {
      ctx.error_at(node,
                   fmt::format("field_sources: '{}': expected a non-empty string", shown(name)));
    } else {
      out.field_sources.emplace(name, s->get());
    }
  }
}

// Parses a file; a syntax error is reported (with its position) and yields nullopt.
inline std::optional<toml::table> parse_file(const CatalogFile& file, Problems& problems) {
  try {
    return toml::parse(file.text, file.path);
  } catch (const toml::parse_error& e) {
    problems.add(e.source(), fmt::format("TOML syntax error: {}", e.description()));
    return std::nullopt;
  }
}

// Decodes the fields of `table` that `fields` declares into `out`, and reports missing
// required fields and keys that are neither fields nor in `also_accepted`.
template <class T>
void decode_fields(const EntryContext& ctx, const toml::table& table,
                   const std::vector<FieldSpec<T>>& fields, T& out,
                   std::span<const std::string_view> also_accepted) {
  for (const auto& spec : fields) {
    const toml::node* node = table.get(spec.key);
    if (!node) {
      if (spec.required) ctx.field_missing(spec.key);
      continue;
    }
    decode_field(*node, spec, out, ctx);
  }
  std::vector<std::string> accepted;
  for (const auto& f : fields) accepted.emplace_back(f.key);
  for (auto key : also_accepted) accepted.emplace_back(key);
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      ctx.error_at(node,
                   fmt::format("unknown field '{}'{}", shown(name), did_you_mean(name, accepted)));
    }
  }
}

// An entry's fields and provenance, placed at its file and line.
template <class T>
T decode_sourced_entry(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields) {
  T out;
  decode_fields(ctx, ctx.table(), fields, out, kProvenanceKeys);
  decode_provenance(ctx, fields, out.provenance);
  const auto& where = ctx.table().source();
  out.provenance.file = where.path ? *where.path : "";
  out.provenance.line = static_cast<int>(where.begin.line);
  return out;
}

// A reference to another entry must name an existing id: "unknown GPU 'rtx-4900'; did you
// mean 'rtx-4090'?".
template <class T>
void check_reference(const std::string& value, std::string_view field, std::string_view target,
                     const std::vector<T>& targets, const EntryContext& ctx) {
  if (value.empty()) return;
  std::vector<std::string> ids;
  for (const auto& t : targets) {
    if (t.id == value) return;
    ids.push_back(t.id);
  }
  ctx.error(field,
            fmt::format("unknown {} '{}'{}", target, shown(value), did_you_mean(value, ids)));
}

}  // namespace rigplan::toml_decode
