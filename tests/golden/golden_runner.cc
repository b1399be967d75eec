// Golden tests: runs one case of tests/golden/ and compares rigplan's output with the expected
// files, or rewrites them (--update).
//
//   golden_runner --rigplan BIN --case DIR --data DIR --scratch DIR [--update]
//
// A case directory holds `cmd` (the arguments; lines starting with '#' are comments, a line
// `#! no-json` says the command has no --json form), `expected.txt` (standard output of the run,
// then standard error and the exit code when there are any), `expected.json` (standard output
// of the run with --json appended) and `expected.out/` (the files the text run wrote under
// @OUT@, when it writes any). JSON is compared structurally, text line by line; numbers in
// both agree when within a relative tolerance, so that last-digit float noise does not fail.
//
// The run is made deterministic: no user configuration (XDG_CONFIG_HOME and RIGPLAN_OVERLAY
// point nowhere), a fixed date (RIGPLAN_TODAY), the C locale and UTC. Paths are written as
// placeholders: @DATA@ is tests/data, @OUT@ a fresh directory a command may write files into.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Relative tolerance for numbers: far above double rounding noise, far below any change a
// reader would notice.
constexpr double kRelativeTolerance = 1e-6;
// The date every golden run takes as today: price ages and report dates depend on it.
constexpr const char* kToday = "2026-11-01";
// Differences listed on a failure before the rest are only counted.
constexpr size_t kMaxListed = 10;

struct Options {
  std::string rigplan, case_dir, data_dir, scratch;
  bool update = false;
};

struct Run {
  std::string out, err;
  int exit_code = 0;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The arguments of `cmd`: words split at blanks, "double quotes" keep blanks in one word.
std::vector<std::string> read_arguments(const fs::path& cmd, bool& json_too) {
  std::istringstream lines(read_file(cmd));
  std::vector<std::string> args;
  json_too = true;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#! no-json")) json_too = false;
    if (line.starts_with("#")) continue;
    std::string word;
    bool quoted = false, any = false;
    for (const char c : line) {
      if (c == '"') {
        quoted = !quoted;
        any = true;
      } else if (!quoted && (c == ' ' || c == '\t')) {
        if (any) args.push_back(word);
        word.clear();
        any = false;
      } else {
        word += c;
        any = true;
      }
    }
    if (any) args.push_back(word);
  }
  return args;
}

// The environment of a run: the caller's, less what would make the output depend on the user.
std::vector<std::string> run_environment(const fs::path& scratch) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (name != "XDG_CONFIG_HOME" && name != "RIGPLAN_OVERLAY" && name != "RIGPLAN_TODAY" &&
        name != "TZ" && !name.starts_with("LC_") && name != "LANG") {
      env.push_back(entry);
    }
  }
  env.push_back("XDG_CONFIG_HOME=" + (scratch / "no-config").string());
  env.push_back("RIGPLAN_OVERLAY=" + (scratch / "no-overlay").string());
  env.push_back(std::string("RIGPLAN_TODAY=") + kToday);
  env.push_back("TZ=UTC");
  env.push_back("LC_ALL=C");
  return env;
}

// Output with the run's paths as placeholders.
std::string normalised(std::string text, const Options& o) {
  replace_all(text, (fs::path(o.scratch) / "out").string(), "@OUT@");
  replace_all(text, o.data_dir, "@DATA@");
  return text;
}

// Runs rigplan with the arguments, standard output and error captured in files of `scratch`.
Run run_rigplan(const Options& o, std::vector<std::string> args) {
  const fs::path scratch = o.scratch, out_dir = scratch / "out";
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  for (auto& arg : args) {
    replace_all(arg, "@DATA@", o.data_dir);
    replace_all(arg, "@OUT@", out_dir.string());
  }
  args.insert(args.begin(), o.rigplan);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  auto env = run_environment(scratch);
  std::vector<char*> envp;
  for (auto& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const std::string out_file = (scratch / "stdout").string(),
                    err_file = (scratch / "stderr").string();
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, o.rigplan.c_str(), &files, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  Run run;
  if (spawned != 0) {
    run.err = "cannot start " + o.rigplan + ": " + std::strerror(spawned);
    run.exit_code = -1;
    return run;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = read_file(out_file);
  run.err = read_file(err_file);
  run.out = normalised(std::move(run.out), o);
  run.err = normalised(std::move(run.err), o);
  return run;
}

// What expected.txt holds for a run: standard output, then error and exit code when present.
std::string text_record(const Run& run) {
  std::string text = run.out;
  if (!run.err.empty()) text += "--- stderr\n" + run.err;
  if (run.exit_code != 0) text += "--- exit " + std::to_string(run.exit_code) + "\n";
  return text;
}

bool numbers_agree(double expected, double actual) {
  if (expected == actual) return true;
  return std::fabs(expected - actual) <=
         kRelativeTolerance * std::max(std::fabs(expected), std::fabs(actual));
}

struct Differences {
  std::vector<std::string> listed;
  size_t count = 0;
  void add(std::string what) {
    if (++count <= kMaxListed) listed.push_back(std::move(what));
  }
};

std::string shown_json(const json& value) {
  std::string text = value.dump();
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

void compare_json(const json& e, const json& a, const std::string& path, Differences& diffs) {
  if (e.is_number() && a.is_number()) {
    if (!numbers_agree(e.get<double>(), a.get<double>())) {
      diffs.add(path + ": expected " + e.dump() + ", actual " + a.dump());
    }
  } else if (e.type() != a.type()) {
    diffs.add(path + ": expected " + shown_json(e) + ", actual " + shown_json(a));
  } else if (e.is_object()) {
    for (const auto& [key, value] : e.items()) {
      if (!a.contains(key)) {
        diffs.add(path + "." + key + ": missing (expected " + shown_json(value) + ")");
      } else {
        compare_json(value, a.at(key), path + "." + key, diffs);
      }
    }
    for (const auto& [key, value] : a.items()) {
      if (!e.contains(key))
        diffs.add(path + "." + key + ": not expected (actual " + shown_json(value) + ")");
    }
  } else if (e.is_array()) {
    const size_t common = std::min(e.size(), a.size());
    for (size_t i = 0; i < common; ++i)
      compare_json(e[i], a[i], path + "[" + std::to_string(i) + "]", diffs);
    if (e.size() != a.size()) {
      diffs.add(path + ": expected " + std::to_string(e.size()) + " elements, actual " +
                std::to_string(a.size()));
    }
  } else if (e != a) {
    diffs.add(path + ": expected " + shown_json(e) + ", actual " + shown_json(a));
  }
}

// A line cut into text and numbers: even indices text, odd indices numbers.
std::vector<std::string> split_numbers(const std::string& line) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < line.size();) {
    const bool sign = line[i] == '-' && i + 1 < line.size() &&
                      std::isdigit(static_cast<unsigned char>(line[i + 1]));
    if (!sign && !std::isdigit(static_cast<unsigned char>(line[i]))) {
      parts.back() += line[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    if (end + 1 < line.size() && line[end] == '.' &&
        std::isdigit(static_cast<unsigned char>(line[end + 1]))) {
      for (++end; end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]));) ++end;
    }
    if (end + 1 < line.size() && (line[end] == 'e' || line[end] == 'E')) {
      size_t exp = end + 1;
      if (exp < line.size() && (line[exp] == '+' || line[exp] == '-')) ++exp;
      if (exp < line.size() && std::isdigit(static_cast<unsigned char>(line[exp]))) {
        for (end = exp; end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]));)
          ++end;
      }
    }
    parts.push_back(line.substr(i, end - i));
    parts.emplace_back();
    i = end;
  }
  return parts;
}

bool lines_agree(const std::string& expected, const std::string& actual) {
  if (expected == actual) return true;
  const auto e = split_numbers(expected), a = split_numbers(actual);
  if (e.size() != a.size()) return false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (i % 2 == 0 ? e[i] != a[i] : !numbers_agree(std::stod(e[i]), std::stod(a[i]))) return false;
  }
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line as a difference shows it: between bars, and around `column` when it is long (HTML).
std::string excerpt(const std::string& line, size_t column) {
  constexpr size_t kShown = 160;
  if (line.size() <= kShown) return "|" + line + "|";
  const size_t from = column > kShown / 2 ? std::min(column - kShown / 2, line.size() - kShown) : 0;
  return (from > 0 ? "..." : "") + ("|" + line.substr(from, kShown) + "|") +
         (from + kShown < line.size() ? "..." : "");
}

void compare_text(const std::string& expected, const std::string& actual, Differences& diffs) {
  const auto e = lines_of(expected), a = lines_of(actual);
  for (size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
    const std::string* want = i < e.size() ? &e[i] : nullptr;
    const std::string* got = i < a.size() ? &a[i] : nullptr;
    if (want && got && lines_agree(*want, *got)) continue;
    size_t column = 0;
    while (want && got && column < want->size() && column < got->size() &&
           (*want)[column] == (*got)[column]) {
      ++column;
    }
    diffs.add("line " + std::to_string(i + 1) + ", column " + std::to_string(column + 1) +
              ":\n    expected: " + (want ? excerpt(*want, column) : "(no line)") +
              "\n    actual:   " + (got ? excerpt(*got, column) : "(no line)"));
  }
}

std::string command_shown(const std::vector<std::string>& args, bool with_json) {
  std::string text = "rigplan";
  for (const auto& arg : args)
    text += arg.find(' ') == std::string::npos ? " " + arg : " \"" + arg + "\"";
  return with_json ? text + " --json" : text;
}

bool report(const std::string& file, const std::string& command, const Differences& diffs) {
  if (diffs.count == 0) return true;
  std::cerr << file << " differs from the output of `" << command << "` (" << diffs.count
            << " difference" << (diffs.count == 1 ? "" : "s") << "):\n";
  for (const auto& d : diffs.listed) std::cerr << "  " << d << "\n";
  if (diffs.count > diffs.listed.size())
    std::cerr << "  ... and " << diffs.count - diffs.listed.size() << " more\n";
  return false;
}

// The files under `dir`, by path relative to it.
std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) names.insert(fs::relative(entry.path(), dir).string());
  }
  return names;
}

// The files the run wrote under @OUT@ against expected.out/ (as text, numbers within the
// tolerance), or expected.out/ rewritten from them.
bool check_files(const Options& o, const std::string& command) {
  const fs::path written = fs::path(o.scratch) / "out";
  const fs::path expected = fs::path(o.case_dir) / "expected.out";
  auto names = files_under(written);
  const auto wanted = files_under(expected);
  names.insert(wanted.begin(), wanted.end());
  bool ok = true;
  for (const auto& name : names) {
    const bool was_written = fs::exists(written / name);
    const std::string actual = was_written ? normalised(read_file(written / name), o) : "";
    Differences diffs;
    if (!was_written || !wanted.contains(name)) {
      diffs.add(was_written ? "written, not expected" : "expected, not written");
    } else {
      compare_text(read_file(expected / name), actual, diffs);
    }
    if (o.update && diffs.count > 0) {
      if (!was_written) {
        fs::remove(expected / name);
        continue;
      }
      fs::create_directories((expected / name).parent_path());
      write_file(expected / name, actual);
    } else if (!o.update) {
      ok = report((expected / name).string(), command, diffs) && ok;
    }
  }
  return ok;
}

// Checks (or rewrites) expected.txt; returns false on a difference. Sets the run's exit code.
bool check_text(const Options& o, const std::vector<std::string>& args, int& exit_code) {
  const Run run = run_rigplan(o, args);
  exit_code = run.exit_code;
  const fs::path file = fs::path(o.case_dir) / "expected.txt";
  const std::string actual = text_record(run);
  const bool files_ok = check_files(o, command_shown(args, false));
  Differences diffs;
  compare_text(read_file(file), actual, diffs);
  if (o.update) {
    // Rewritten only when it differs beyond the tolerance, so that an update shows real changes.
    if (diffs.count > 0 || !fs::exists(file)) write_file(file, actual);
    return true;
  }
  if (!fs::exists(file)) {
    std::cerr << file.string() << " is missing: write it with scripts/update_golden.sh\n";
    return false;
  }
  return report(file.string(), command_shown(args, false), diffs) && files_ok;
}

// Checks (or rewrites) expected.json: the --json run must print JSON and exit as the text run did.
bool check_json(const Options& o, std::vector<std::string> args, int text_exit_code) {
  args.push_back("--json");
  const Run run = run_rigplan(o, args);
  const fs::path file = fs::path(o.case_dir) / "expected.json";
  const std::string command = command_shown(args, false);
  if (run.exit_code != text_exit_code) {
    std::cerr << "`" << command << "` exited " << run.exit_code << ", the text run "
              << text_exit_code << "\n"
              << run.err;
    return false;
  }
  const json actual = json::parse(run.out, nullptr, false);
  if (actual.is_discarded()) {
    std::cerr << "`" << command << "` did not print JSON:\n" << run.out << run.err;
    return false;
  }
  const json expected = json::parse(read_file(file), nullptr, false);
  Differences diffs;
  if (!expected.is_discarded()) compare_json(expected, actual, "$", diffs);
  if (o.update) {
    if (expected.is_discarded() || diffs.count > 0) write_file(file, run.out);
    return true;
  }
  if (expected.is_discarded()) {
    std::cerr << file.string()
              << " is missing or not JSON: write it with scripts/update_golden.sh\n";
    return false;
  }
  return report(file.string(), command, diffs);
}

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--update") {
      o.update = true;
    } else if (arg == "--rigplan" && has_value) {
      o.rigplan = argv[++i];
    } else if (arg == "--case" && has_value) {
      o.case_dir = argv[++i];
    } else if (arg == "--data" && has_value) {
      o.data_dir = fs::absolute(argv[++i]).lexically_normal().string();
    } else if (arg == "--scratch" && has_value) {
      o.scratch = fs::absolute(argv[++i]).string();
    } else {
      return false;
    }
  }
  while (o.data_dir.size() > 1 && o.data_dir.back() == '/') o.data_dir.pop_back();
  return !o.rigplan.empty() && !o.case_dir.empty() && !o.data_dir.empty() && !o.scratch.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) {
    std::cerr
        << "usage: golden_runner --rigplan BIN --case DIR --data DIR --scratch DIR [--update]\n";
    return 2;
  }
  bool json_too = true;
  const auto args = read_arguments(fs::path(o.case_dir) / "cmd", json_too);
  if (args.empty()) {
    std::cerr << o.case_dir << "/cmd has no arguments\n";
    return 2;
  }
  fs::remove_all(o.scratch);
  fs::create_directories(o.scratch);
  int exit_code = 0;
  bool ok = check_text(o, args, exit_code);
  if (json_too) ok = check_json(o, args, exit_code) && ok;
  if (!ok) {
    std::cerr << "If the change is intended: scripts/update_golden.sh "
              << fs::path(o.case_dir).filename().string()
              << ", then review `git diff tests/golden` before committing.\n";
  }
  return ok ? 0 : 1;
}
