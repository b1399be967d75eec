#include "report/json_writer.h"

#include <charconv>
#include <cmath>

#include "util/strings.h"

namespace rigplan::report {
namespace {

// What Json::dump writes for a byte of a string: its escape, or "" when the byte stands as it is.
std::string_view escape(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return "";
  }
}

// Whether Json writes the text as it is between quotes: ASCII with no control character, quote or
// backslash, as the keys and most values of an answer are.
bool verbatim(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

void append_string(std::string& out, std::string_view text) {
  if (verbatim(text)) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  if (invalid_utf8_at(text)) {  // Json's own replacement of each invalid sequence
    out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
    return;
  }
  out += '"';
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && text[i] != '"' && text[i] != '\\') continue;
    out.append(text, start, i - start);
    start = i + 1;
    if (const std::string_view e = escape(text[i]); !e.empty()) {
      out += e;
    } else {  // another control character: \u00XX, lower-case hex as Json writes it
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  out.append(text, start, text.size() - start);
  out += '"';
}

}  // namespace

void JsonWriter::next() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (counts_.empty()) return;  // the top-level value
  out_ += counts_.back()++ ? ",\n" : "\n";
  indent(counts_.size());
}

void JsonWriter::open(char bracket) {
  next();
  out_ += bracket;
  counts_.push_back(0);
}

void JsonWriter::close(char bracket) {
  const size_t written = counts_.back();
  counts_.pop_back();
  if (written) {
    out_ += '\n';
    indent(counts_.size());
  }
  out_ += bracket;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  next();
  append_string(out_, name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::value(std::string_view text) {
  next();
  append_string(out_, text);
}

void JsonWriter::value(bool flag) {
  next();
  out_ += flag ? "true" : "false";
}

void JsonWriter::value(double number) {
  next();
  if (!std::isfinite(number)) {
    out_ += "null";
    return;
  }
  char digits[64];
  // Json's own shortest form: 0.0, 1.5, 1e+16, 1e-05.
  const char* end = nlohmann::detail::to_chars(digits, digits + sizeof digits, number);
  out_.append(digits, static_cast<size_t>(end - digits));
}

void JsonWriter::integer(int64_t number) {
  next();
  char digits[24];
  out_.append(digits, static_cast<size_t>(
                          std::to_chars(digits, digits + sizeof digits, number).ptr - digits));
}

void JsonWriter::value(uint64_t number) {
  next();
  char digits[24];
  out_.append(digits, static_cast<size_t>(
                          std::to_chars(digits, digits + sizeof digits, number).ptr - digits));
}

void JsonWriter::null() {
  next();
  out_ += "null";
}

void JsonWriter::value(const Json& tree) {
  switch (tree.type()) {
    case Json::value_t::object:
      begin_object();
      for (const auto& [name, item] : tree.items()) key(name).value(item);
      return end_object();
    case Json::value_t::array:
      begin_array();
      for (const Json& item : tree) value(item);
      return end_array();
    case Json::value_t::string:
      return value(tree.get_ref<const std::string&>());
    case Json::value_t::boolean:
      return value(tree.get<bool>());
    case Json::value_t::number_integer:
      return integer(tree.get<int64_t>());
    case Json::value_t::number_unsigned:
      return value(tree.get<uint64_t>());
    case Json::value_t::number_float:
      return value(tree.get<double>());
    case Json::value_t::null:
      return null();
    default:  // binary and discarded: never in an answer; as Json writes them
      next();
      out_ += tree.dump();
  }
}

}  // namespace rigplan::report
