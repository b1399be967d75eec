// Whole commands as processes: what a user waits for between pressing return and the answer,
// start-up included (loading the program and its libraries, the catalog and zoo images). The
// child gets a configuration directory that does not exist, so that an overlay of the machine's
// user does not send it down the TOML path; its output goes to /dev/null.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace {

// The environment of this process, without the variables that name an overlay.
std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  for (char** var = environ; *var; ++var) {
    const std::string_view text(*var);
    if (!text.starts_with("RIGPLAN_OVERLAY=") && !text.starts_with("XDG_CONFIG_HOME="))
      env.emplace_back(text);
  }
  env.emplace_back("XDG_CONFIG_HOME=/nonexistent/rigplan-bench");
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& texts) {
  std::vector<char*> out;
  for (auto& text : texts) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

// Runs rigplan with `args` once per iteration; each run must exit with `expected_exit`.
void run_process(benchmark::State& state, std::vector<std::string> args, int expected_exit) {
  args.insert(args.begin(), RIGPLAN_BINARY);
  std::vector<std::string> env = child_environment();
  const std::vector<char*> argv = pointers(args), envp = pointers(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  for (auto _ : state) {
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0 ||
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != expected_exit) {
      state.SkipWithError("rigplan did not exit with the expected status");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
}

void BM_Process(benchmark::State& state, std::vector<std::string> args) {
  run_process(state, std::move(args), 0);
}

// Input a user got wrong: refused with exit status 2 (docs/input.md).
void BM_ProcessRefused(benchmark::State& state, std::vector<std::string> args) {
  run_process(state, std::move(args), 2);
}

// `args` then a file holding `text`, refused with exit status 2.
void BM_ProcessRefusedFile(benchmark::State& state, std::vector<std::string> args,
                           const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("rigplan-bench-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(path, std::ios::binary) << text;
  args.push_back(path.string());
  run_process(state, std::move(args), 2);
  std::filesystem::remove(path);
}

BENCHMARK_CAPTURE(BM_Process, version, {"--version"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, gpus_list_json, {"gpus", "list", "--json"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, predict_llama3_8b_h100,
                  {"predict", "llama-3-8b", "--gpu", "h100-sxm5-80gb"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, predict_llama3_8b_rtx4090,
                  {"predict", "llama-3-8b", "--gpu", "rtx-4090"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, recommend_kaggle, {"recommend", "--preset", "kaggle"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, recommend_chatbot_8b, {"recommend", "--preset", "chatbot-8b"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Process, recommend_chatbot_70b, {"recommend", "--preset", "chatbot-70b"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One argument as large as Linux passes to a program: MAX_ARG_STRLEN, 32 pages of 4 KB (131,072
// bytes) with its terminating NUL, so at most 131,071 bytes; execve() refuses a longer one with
// E2BIG, and a 1 MiB argument cannot reach rigplan from a shell. The in-process test
// Reproducers.AMegabyteInAnyTextOptionGetsAShortAnswer gives 1 MiB to every text option.
const std::string kLargestArgument(128 * 1024 - 1, 'x');
const std::string kLargestNumber(128 * 1024 - 1, '9');

BENCHMARK_CAPTURE(BM_ProcessRefused, unknown_gpu_128k, {"gpus", "show", kLargestArgument})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ProcessRefused, unknown_workload_128k,
                  {"predict", kLargestArgument, "--gpu", "rtx-4090"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ProcessRefused, region_128k,
                  {"recommend", "resnet50", "--images", "1e6", "--region", kLargestArgument})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ProcessRefused, budget_128k,
                  {"recommend", "resnet50", "--images", "1e6", "--budget", kLargestNumber})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ProcessRefused, offers_provider_128k,
                  {"offers", "list", "--provider", kLargestArgument})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ProcessRefused, build_propose_gpus_128k,
                  {"build", "propose", "--gpus", kLargestArgument})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// A file has no such limit: a 1 MiB build file whose GPU is a 1 MiB unknown id.
BENCHMARK_CAPTURE(BM_ProcessRefusedFile, build_check_1m_file, {"build", "check"},
                  "[build]\nname = \"large\"\ngpu = \"" + std::string((1 << 20) - 32, 'x') +
                      "\"\ngpu_count = 1\n")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
