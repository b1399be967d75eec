// Whole commands as processes: what a user waits for between pressing return and the answer,
// start-up included (loading the program and its libraries, the catalog and zoo images). The
// child gets a configuration directory that does not exist, so that an overlay of the machine's
// user does not send it down the TOML path; its output goes to /dev/null.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

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

void BM_Process(benchmark::State& state, std::vector<std::string> args) {
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
        waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("rigplan did not run to a successful exit");
      break;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
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

}  // namespace
