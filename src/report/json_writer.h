// JSON written as it is produced, without a tree: the same text as Json::dump(2) (two-space
// indent, keys in the order written, UTF-8 kept, invalid UTF-8 as U+FFFD, numbers in their
// shortest exact form), for answers that `rigplan serve` writes for every request it computes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/report.h"

namespace rigplan::report {

class JsonWriter {
 public:
  // Containers: a value in an array, or after key() in an object.
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  // The key of the next value in the current object.
  JsonWriter& key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(bool flag);
  void value(double number);  // null when not finite, as Json prints it
  void value(int number) { integer(number); }
  void value(int64_t number) { integer(number); }
  void value(uint64_t number);
  void null();
  // A value built as a tree (the small parts of an answer), at the current place.
  void value(const Json& tree);

  // The text so far; the writer is empty after.
  std::string take() { return std::move(out_); }

 private:
  void open(char bracket);
  void close(char bracket);
  void next();  // before a value: a separator and indent in an array; nothing after a key
  void integer(int64_t number);
  void indent(size_t depth) { out_.append(2 * depth, ' '); }

  std::string out_;
  std::vector<size_t> counts_;  // of the open containers: the values written in each
  bool after_key_ = false;
};

}  // namespace rigplan::report
