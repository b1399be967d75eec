// Status and Result<T>: how rigplan's library reports problems caused by its input.
//
// User-caused problems (a bad catalog row, an unknown id, a malformed request) come back as a
// non-ok Status whose message names the file, line and field and what is accepted. Infeasible
// options are not errors: they are ordinary results with a reason. Programmer errors are asserts.
// The library never prints or exits; front ends map a Status to an exit code or HTTP status.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rigplan {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidInput,  // the user's input is malformed or inconsistent
    kNotFound,      // an id or name that the catalog does not have
    kIoError,       // a file that cannot be read
    kInternal,      // a bug in rigplan
  };

  Status() = default;
  static Status invalid_input(std::string message) {
    return {Code::kInvalidInput, std::move(message)};
  }
  static Status not_found(std::string message) { return {Code::kNotFound, std::move(message)}; }
  static Status io_error(std::string message) { return {Code::kIoError, std::move(message)}; }
  static Status internal(std::string message) { return {Code::kInternal, std::move(message)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // True for problems the user can fix (bad input, unknown name, unreadable file).
  bool is_user_error() const { return code_ != Code::kOk && code_ != Code::kInternal; }

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : state_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(state_).ok() && "a Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(state_);
  }

 private:
  std::variant<T, Status> state_;
};

}  // namespace rigplan
