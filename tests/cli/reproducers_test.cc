// Inputs that once crashed rigplan, wrapped an integer into a wrong answer or were accepted
// without meaning anything (issue 20): each must now be refused with exit 2 and a message that
// names the field, the value and what is accepted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/cli_context.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan::testing {
namespace {

struct Outcome {
  int code;
  std::string out, err;
};

Outcome rigplan(std::vector<std::string> args) {
  args.insert(args.begin(), "rigplan");
  std::ostringstream out, err;
  cli::CliContext ctx{.out = &out, .err = &err};
  const int code = cli::run_command_line(args, ctx);
  return {code, out.str(), err.str()};
}

// This test process's directory under the system's temporary directory, removed when the process
// ends. The process id keeps test processes that run side by side out of each other's files.
class ScratchDir {
 public:
  ScratchDir()
      : path_(std::filesystem::temp_directory_path() /
              ("rigplan-reproducers-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path& scratch_dir() {
  static const ScratchDir kDir;
  return kDir.path();
}

// A file in the scratch directory.
std::string write_file(const std::string& name, const std::string& text) {
  std::string path = (scratch_dir() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

struct Case {
  std::vector<std::string> args;
  std::string message;  // the whole of stderr after "rigplan: "
};

void expect_refused(const Case& c) {
  const Outcome r = rigplan(c.args);
  std::string command;
  for (const auto& a : c.args) command += " " + a;
  EXPECT_EQ(r.code, 2) << "rigplan" << command << "\n" << r.out << r.err;
  // The last line: `validate` says which file it reads first.
  const size_t last = r.err.rfind('\n', r.err.size() >= 2 ? r.err.size() - 2 : 0);
  const std::string message = last == std::string::npos ? r.err : r.err.substr(last + 1);
  EXPECT_EQ(message, "rigplan: " + c.message + "\n") << "rigplan" << command;
}

TEST(Reproducers, ParallelDegreesThatOverflowTheirProductAreRefused) {
  // tp × pp wrapped to 0 in 32 bits and `gpus % 0` ended the process with SIGFPE.
  for (const char* command : {"predict", "memory"}) {
    expect_refused(
        {{command, "llama-2-7b", "--gpu", "rtx-4090", "--tp", "65536", "--pp", "65536"},
         "--gpus 1 must be a multiple of tensor parallel 65536 × pipeline parallel 65536"});
  }
  expect_refused({{"predict", "llama-2-7b", "--gpu", "rtx-4090", "--tp", "2097152"},
                  "--tp 2097152 is out of range; expected an integer from 1 to 1048576"});
}

TEST(Reproducers, IntegersBeyondTheirRangeAreRefusedNotWrapped) {
  expect_refused(
      {{"memory", "llama-2-7b", "--gpu", "rtx-4090", "--mode", "infer", "--gen-tokens",
        "2147483647"},
       "--gen-tokens 2147483647 is out of range; expected an integer from 0 to 100000000 tokens"});
  expect_refused({{"recommend", "llama-2-7b", "--tokens", "1e9", "--max-gpus", "2147483647"},
                  "--max-gpus 2147483647 is out of range; expected an integer from 1 to 1048576"});
  expect_refused({{"build", "propose", "--gpus", "2147483648x rtx-4090"},
                  "--gpus '2147483648x rtx-4090': expected COUNTx GPU with a count of 1 to "
                  "100000, e.g. 4x rtx-4090"});
  expect_refused({{"build", "propose", "--gpus", "99999999999999999999999x", "rtx-4090"},
                  "--gpus '99999999999999999999999xrtx-4090': expected COUNTx GPU with a count of "
                  "1 to 100000, e.g. 4x rtx-4090"});
}

// CLI11 said "Could not convert: --batch = abc": no range, and --batch where --concurrency was
// typed. A number that does not read names the flag as typed, what it accepts, and the value
// meant where that is plain.
TEST(Reproducers, NumbersThatDoNotReadNameTheFlagAsTypedAndWhatItAccepts) {
  const std::vector<std::string> predict = {"predict", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb"};
  const auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::vector<Case> cases = {
      {with(predict, {"--batch", "abc"}),
       "--batch abc is not a number; expected an integer from 1 to 1000000000"},
      {with(predict, {"--gpus", "2.5"}),
       "--gpus 2.5 is not a whole number; expected an integer from 1 to 1048576 (did you mean 2 "
       "or 3?)"},
      {with(predict, {"--gpus", "-1"}),
       "--gpus -1 is out of range; expected an integer from 1 to 1048576"},
      {with(predict, {"--seq", "1e99"}),
       "--seq 1e99 is out of range; expected an integer from 1 to 100000000 tokens"},
      {with(predict, {"--seq", "1e3"}),
       "--seq 1e3 is not written as an integer; expected an integer from 1 to 100000000 tokens "
       "(did you mean 1000?)"},
      {with(predict, {"--seq", "4,096"}),
       "--seq 4,096 is not a number; expected an integer from 1 to 100000000 tokens (did you "
       "mean 4096?)"},
      {with(predict, {"--gpus", "1,5"}),
       "--gpus 1,5 is not a number; expected an integer from 1 to 1048576"},
      {with(predict, {"--batch", "99999999999999"}),
       "--batch 99999999999999 is out of range; expected an integer from 1 to 1000000000"},
      {with(predict, {"--tp", "x"}),
       "--tp x is not a number; expected an integer from 1 to 1048576"},
      {with(predict, {"--compile=maybe"}),
       "--compile maybe is not accepted; --compile is a flag: give it alone, --compile=true or "
       "--compile=false"},
      // The aliases: --concurrency is --batch, --input-len --seq, --output-len --gen-tokens.
      {with(predict, {"--mode", "serve", "--concurrency", "x"}),
       "--concurrency x is not a number; expected an integer from 1 to 1000000000"},
      {with(predict, {"--mode", "infer", "--input-len", "1.5"}),
       "--input-len 1.5 is not a whole number; expected an integer from 1 to 100000000 tokens "
       "(did you mean 1 or 2?)"},
      {with(predict, {"--mode", "infer", "--output-len=q"}),
       "--output-len q is not a number; expected an integer from 0 to 100000000 tokens"},
      // In range for CLI11, out of it for rigplan: still named as typed.
      {with(predict, {"--mode", "serve", "--concurrency", "0"}),
       "--concurrency 0 is out of range; expected an integer from 1 to 1000000000"},
      {with(predict, {"--mode", "infer", "--input-len", "0"}),
       "--input-len 0 is out of range; expected an integer from 1 to 100000000 tokens"},
      {with(predict, {"--mode", "infer", "--output-len", "-5"}),
       "--output-len -5 is out of range; expected an integer from 0 to 100000000 tokens"},
      // --gpus of a run and of an owned machine (cost) accept different ranges.
      {{"memory", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb", "--gpus", "two"},
       "--gpus two is not a number; expected an integer from 1 to 1048576"},
      {{"train-plan", "llama-3.1-8b", "--gpu", "h100-sxm5-80gb", "--gpus", "x"},
       "--gpus x is not a number; expected an integer from 1 to 1048576"},
      {{"cost", "llama-3.1-8b", "--gpu", "rtx-4090", "--gpus", "8.5"},
       "--gpus 8.5 is not a whole number; expected an integer from 1 to 8 (did you mean 8?)"},
      {{"cost", "--gpu", "rtx-4090", "--hours-per-month", "x"},
       "--hours-per-month x is not a number; expected a number > 0 and <= 730 h"},
      {{"recommend", "llama-3.1-8b", "--tokens", "1e9", "--hours-per-month", "x"},
       "--hours-per-month x is not a number; expected a number > 0 and <= 10000000 h"},
      {{"recommend", "llama-3.1-8b", "--tokens", "1e9", "--concurrency", "1.5"},
       "--concurrency 1.5 is not a whole number; expected an integer from 1 to 1000000000 (did "
       "you mean 1 or 2?)"},
      {{"recommend", "llama-3.1-8b", "--tokens", "lots"},
       "--tokens lots is not a number; expected a number > 0 and <= 1e+18"},
      {{"build", "propose", "--gpus", "4x rtx-4090", "--budget", "x"},
       "--budget x is not a number; expected a number > 0 and <= 1000000000 USD"},
      {{"offers", "list", "--max-price", "x"},
       "--max-price x is not a number; expected a number from 0 to 1000000 USD/h"},
      {{"gpus", "list", "--max-price", "x"},
       "--max-price x is not a number; expected a number from 0 to 1000000000 USD"},
  };
  for (const Case& c : cases) expect_refused(c);
}

// Every number option of every command has the range its command checks (rigplan/input.h), so
// that a value that does not read is answered with it.
TEST(Reproducers, EveryNumberOptionHasItsRange) {
  cli::CliContext ctx{};
  const auto app = cli::make_command_line(ctx);
  const auto all = [](const CLI::App& parent) {
    return parent.get_subcommands(std::function<bool(const CLI::App*)>{});
  };
  std::vector<std::pair<const CLI::App*, std::string>> commands;
  for (const CLI::App* command : all(*app)) {
    commands.emplace_back(command, command->get_name());
    for (const CLI::App* sub : all(*command))
      commands.emplace_back(sub, command->get_name() + " " + sub->get_name());
  }
  int checked = 0;
  for (const auto& [command, path] : commands) {
    for (const CLI::Option* option : command->get_options()) {
      const std::string type = option->get_type_name();
      if (type != "FLOAT" && type != "INT" && type != "UINT") continue;
      const input::NumberField* field = cli::number_field(*command, *option);
      ASSERT_NE(field, nullptr) << path << " " << option->get_name();
      std::vector<std::string> args = split(path, ' ');
      args.push_back(option->get_name() + "=abc");
      expect_refused(
          {args, option->get_name() + " abc is not a number; expected " + field->accepted()});
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  const auto gpus = [&](const char* name) {
    const CLI::App* command = app->get_subcommand(name);
    return cli::number_field(*command, *command->get_option("--gpus"));
  };
  EXPECT_EQ(gpus("predict"), &input::kGpus);
  EXPECT_EQ(gpus("memory"), &input::kGpus);
  EXPECT_EQ(gpus("train-plan"), &input::kGpus);
  EXPECT_EQ(gpus("cost"), &input::kMachineGpus);
}

std::string llama_config(const std::string& hidden_size) {
  return R"({"model_type": "llama", "hidden_size": )" + hidden_size +
         R"(, "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000,
            "intermediate_size": 11008})";
}

TEST(Reproducers, HfConfigSizesBeyondTheFormatAreRefusedNotWrapped) {
  // 2147483648 ran as a negative size ("Fits, with 23.94 GB to spare"); 4294971392 as 4096.
  for (const std::string size : {"2147483648", "4294971392"}) {
    const std::string path = write_file("hidden-" + size + ".json", llama_config(size));
    expect_refused({{"memory", "--hf-config", path, "--gpu", "rtx-4090"},
                    path + ": field 'hidden_size': " + size +
                        " is out of range; expected an integer >= 1 and <= 1000000"});
  }
}

TEST(Reproducers, DeeplyNestedHfConfigIsRefusedWithoutDumpingIt) {
  // 100,000 nested arrays (200 KB) overflowed the stack when the message dumped the value.
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const std::string path = write_file("deep.json", llama_config(deep));
  expect_refused({{"memory", "--hf-config", path, "--gpu", "rtx-4090"},
                  path +
                      ": arrays and objects nested more than 64 deep; a Hugging Face config.json "
                      "nests a few levels"});
  // Within the depth limit, a container where a number belongs is named by its kind only.
  const std::string shallow = std::string(10, '[') + std::string(10, ']');
  const std::string path2 = write_file("shallow.json", llama_config(shallow));
  expect_refused({{"memory", "--hf-config", path2, "--gpu", "rtx-4090"},
                  path2 + ": field 'hidden_size': expected a positive integer, got an array"});
}

TEST(Reproducers, HfConfigWithAWrongTypeIsBadInputNotAnInternalError) {
  const std::string path = write_file("model-type.json", R"({"model_type": 7})");
  expect_refused({{"memory", "--hf-config", path, "--gpu", "rtx-4090"},
                  path + ": field 'model_type': expected a string, got 7"});
  const std::string path2 = write_file(
      "dtype.json", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "num_hidden_layers": 32, "vocab_size": 32000, "intermediate_size": 11008,
      "torch_dtype": 16})");
  expect_refused({{"memory", "--hf-config", path2, "--gpu", "rtx-4090"},
                  path2 + ": field 'torch_dtype': expected a string, got 16"});
}

TEST(Reproducers, MeasurementCountsMustBeWholeAndInRange) {
  const std::string header =
      "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
      "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source\n";
  // 1e30 was cast to int (undefined behaviour); 2.5 was truncated to 2.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1e30", "'1e30' is out of range; expected an integer from 1 to 1000000000"},
      {"2.5", "'2.5' is not a whole number; expected an integer from 1 to 1000000000"},
      {"-3", "'-3' is out of range; expected an integer from 1 to 1000000000"},
      {"nan", "'nan' is not a number"},
  };
  for (const auto& [cell, why] : cases) {
    const std::string path =
        write_file("batch.csv", header + "t/x,1,rtx-4090,1,resnet50,train,fp16,,,,," + cell +
                                    ",,,throughput,100,images/s,test\n");
    expect_refused({{"validate", path}, path + ":2: column 'batch_per_gpu': " + why});
  }
  const std::string path = write_file(
      "ckpt.csv",
      header + "t/x,1,rtx-4090,1,resnet50,train,fp16,,,,,64,,2,throughput,100,images/s,test\n");
  expect_refused(
      {{"validate", path},
       path + ":2: column 'grad_checkpointing': '2' is not accepted; expected 0 or 1, true or "
              "false, yes or no"});
  // A measured 0 or -5 images/s was validated, with an error of inf% and 3660%.
  for (const auto& [metric, cell, why] : std::vector<std::array<std::string, 3>>{
           {"throughput", "0", "is out of range; expected a number > 0 and <= 1000000000000"},
           {"throughput", "-5", "is out of range; expected a number > 0 and <= 1000000000000"},
           {"peak_memory_gb", "1e300",
            "is out of range; expected a number > 0 and <= 1000000000000"},
           {"fits", "2",
            "is not accepted for metric 'fits'; expected 0 (does not fit) or 1 (fits)"},
       }) {
    const std::string measured =
        write_file("value.csv", header + "t/x,1,rtx-4090,1,resnet50,train,fp16,,,,,64,,," + metric +
                                    "," + cell + ",images/s,test\n");
    expect_refused(
        {{"validate", measured}, measured + ":2: column 'value': '" + cell + "' " + why});
  }
}

// Every number option of every command refuses what is not a finite number in its range (issue
// 20 found 119 command lines that took NaN, a negative price or a wrapped count with exit 0).
TEST(Reproducers, EveryNumberOptionRefusesMeaninglessValues) {
  // A command line each subcommand accepts, to which one option is added.
  const std::vector<std::vector<std::string>> kCommands = {
      {"memory", "llama-2-7b", "--gpu", "rtx-4090"},
      {"predict", "llama-2-7b", "--gpu", "rtx-4090"},
      {"compare", "resnet50", "--gpus", "rtx-4090,rtx-3090"},
      {"cost", "--gpu", "rtx-4090"},
      {"recommend", "resnet50", "--images", "1e6"},
      {"build", "propose", "--gpus", "2x rtx-4090"},
      {"gpus", "list"},
      {"cpus", "list"},
      {"offers", "list"},
      {"overview"},
  };
  const std::vector<std::string> kValues = {"nan", "inf", "-inf", "-1", "1e30", "-1e30"};
  int checked = 0;
  for (const auto& base : kCommands) {
    cli::CliContext ctx{};
    const auto app = cli::make_command_line(ctx);
    CLI::App* command = app->get_subcommand(base[0]);
    if (base.size() > 1 && (base[1] == "propose" || base[1] == "list"))
      command = command->get_subcommand(base[1]);
    for (const CLI::Option* option : command->get_options()) {
      const std::string type = option->get_type_name();
      if (type != "FLOAT" && type != "INT" && type != "UINT") continue;
      const std::string name = option->get_name();
      if (std::find(base.begin(), base.end(), name) != base.end()) continue;
      std::vector<std::string> values = kValues;
      if (type != "FLOAT") values.push_back("2147483648");  // wrapped to a negative count
      for (const std::string& value : values) {
        std::vector<std::string> args = base;
        args.push_back(name + "=" + value);
        const Outcome r = rigplan(args);
        std::string command_line;
        for (const auto& a : args) command_line += " " + a;
        EXPECT_EQ(r.code, 2) << "rigplan" << command_line << "\n" << r.err;
        EXPECT_NE(r.err.find(name), std::string::npos) << "rigplan" << command_line << "\n"
                                                       << r.err;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 250);  // about forty options, seven values each
}

// The flags cell of an options table's row, the one of rank `rank`: the text after its last run
// of two spaces (flags hold single spaces only).
std::string flags_cell(const std::string& table, int rank) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos ||
        line.compare(start, std::to_string(rank).size() + 2, std::to_string(rank) + "  ") != 0)
      continue;
    return line.substr(line.rfind("  ") + 2);
  }
  return "";
}

// What predict says of a run: its --json answer.
nlohmann::json predicted(std::vector<std::string> args) {
  args.insert(args.begin(), {"--json", "predict"});
  const Outcome r = rigplan(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// recommend's table said how a multi-GPU option runs only for a layout of train-plan's search:
// eight H200s training Llama 3.1 8B by ZeRO-3, or two H100s serving Llama 3.1 70B by tensor
// parallelism, read as if one GPU ran the job. The table now names every option's strategy as
// predict's flags, and those flags, with the task's own, give predict the option's throughput.
// They are written from the run the search evaluated, so they also name what predict would not
// assume: two A100 PCIe cards of an instance joined by PCIe, not the NVLink bridge of the GPU's
// own link, and a rented cluster's network (AWS EFA on p4de instances, 400 Gbit/s for 8 GPUs)
// as a catalog fabric shared by the GPUs of an instance; JSON's predict_flags are the same. A
// layout's global batch stands beside the task's --batch, which predict reads per GPU.
TEST(Reproducers, RecommendsStrategyAsPredictFlagsGivesTheOptionsThroughput) {
  struct Example {
    std::vector<std::string> recommend;
    int rank;
    std::string flags;
    std::vector<std::string> task;  // the task's own flags, for predict
  };
  const std::vector<Example> examples = {
      {{"recommend", "llama-3.1-8b", "--tokens", "1e9", "--seq", "4096", "--batch", "4",
        "--allow-stale-prices", "--top", "1"},
       1,
       "--gpus 8 --zero 3",
       {"llama-3.1-8b", "--seq", "4096", "--batch", "4"}},
      {{"recommend", "--preset", "cluster", "--allow-stale-prices", "--top", "2"},
       2,
       "--gpus 32 --zero 1 --micro-batch 4 --global-batch 128 --recompute none",
       {"llama-3.2-3b", "--precision", "bf16", "--seq", "2048"}},
      {{"recommend", "--preset", "cluster", "--allow-stale-prices", "--top", "2"},
       1,
       "--gpus 64 --pp 4 --vp 7 --zero 1 --micro-batch 8 --global-batch 256 --recompute none",
       {"llama-3.2-3b", "--precision", "bf16", "--seq", "2048"}},
      {{"recommend", "--preset", "chatbot-70b", "--allow-stale-prices", "--top", "9"},
       9,
       "--gpus 2 --tp 2",
       {"llama-3.1-70b", "--mode", "serve", "--engine", "vllm", "--precision", "bf16", "--weights",
        "fp8", "--input-len", "1024", "--output-len", "256", "--request-rate", "2"}},
      {{"recommend", "llama-3.1-70b", "--serve-rate", "1", "--input-len", "1024", "--output-len",
        "256", "--weights", "fp8", "--gpus-allowed", "a100-pcie-80gb", "--acquire", "rent",
        "--allow-stale-prices", "--top", "1"},
       1,
       "--gpus 2 --tp 2 --link pcie",
       {"llama-3.1-70b", "--mode", "serve", "--weights", "fp8", "--input-len", "1024",
        "--output-len", "256", "--request-rate", "1"}},
      {{"recommend", "--preset", "cluster", "--acquire", "rent", "--allow-stale-prices", "--top",
        "3"},
       3,
       "--gpus 64 --zero 1 --micro-batch 4 --global-batch 256 --recompute none --fabric "
       "aws-efa-p4d.24xlarge --gpus-per-nic 8",
       {"llama-3.2-3b", "--precision", "bf16", "--seq", "2048"}},
      // The task's --batch 2 is each GPU's: 2 × 64 GPUs = the layout's global batch of 128.
      {{"recommend", "llama-3.1-70b", "--tokens", "2e10", "--batch", "2", "--seq", "4096",
        "--max-gpus", "128", "--top", "1"},
       1,
       "--gpus 64 --tp 4 --pp 8 --vp 5 --zero 1 --micro-batch 1 --global-batch 128 "
       "--sequence-parallel --fabric ib-ndr",
       {"llama-3.1-70b", "--seq", "4096", "--batch", "2"}},
  };
  for (const Example& e : examples) {
    const Outcome text = rigplan(e.recommend);
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_EQ(flags_cell(text.out, e.rank), e.flags) << text.out;
    std::vector<std::string> json_args = e.recommend;
    json_args.insert(json_args.begin(), "--json");
    const Outcome json = rigplan(json_args);
    ASSERT_EQ(json.code, 0) << json.err;
    const nlohmann::json option = nlohmann::json::parse(json.out)["options"][e.rank - 1];
    EXPECT_EQ(option["predict_flags"], e.flags);
    std::vector<std::string> predict = e.task;
    predict.insert(predict.end(), {"--gpu", option["gpu"].get<std::string>()});
    for (const std::string& flag : split(e.flags, ' ')) predict.push_back(flag);
    const nlohmann::json p = predicted(predict);
    const double throughput = option["throughput"].get<double>();
    EXPECT_NEAR(p.value("throughput", 0.0), throughput, 1e-4 * throughput) << e.flags;
    // A service's throughput is the rate asked: its first token's time is the option's too.
    if (option.contains("serving")) {
      EXPECT_EQ(p["serving"]["ttft_ms"], option["serving"]["ttft_ms"]);
    }
  }
}

TEST(Reproducers, ChoicesFromTheCatalogAndLayoutsThatSplitTheModel) {
  for (const char* command : {"memory", "predict", "compare", "cost", "recommend"}) {
    std::vector<std::string> args = {command, "resnet50", "--link", "bogus"};
    if (std::string(command) == "memory" || std::string(command) == "predict")
      args.insert(args.end(), {"--gpu", "rtx-4090"});
    if (std::string(command) == "compare") args.insert(args.end(), {"--gpus", "rtx-4090"});
    if (std::string(command) == "cost") args.insert(args.end(), {"--gpu", "rtx-4090"});
    if (std::string(command) == "recommend") args.insert(args.end(), {"--images", "1e6"});
    expect_refused({args,
                    "--link 'bogus' is not accepted; expected 'pcie', 'nvlink-bridge', "
                    "'nvlink-cube-mesh', 'nvswitch' or 'infinity-fabric'"});
  }
  expect_refused({{"predict", "llama-2-7b", "--gpu", "rtx-4090", "--gpus", "3", "--tp", "3"},
                  "--tp 3 must divide llama-2-7b's 32 attention heads and 32 key/value heads; "
                  "accepted: 1, 2, 4, 8, 16 or 32"});
  expect_refused({{"memory", "llama-3-8b", "--gpu", "rtx-4090", "--gpus", "16", "--tp", "16"},
                  "--tp 16 must divide llama-3-8b's 32 attention heads and 8 key/value heads; "
                  "accepted: 1, 2, 4 or 8"});
  expect_refused({{"memory", "llama-2-7b", "--gpu", "rtx-4090", "--gpus", "3", "--pp", "3"},
                  "--pp 3 must divide llama-2-7b's 32 layers; accepted: 1, 2, 4, 8, 16 or 32"});
}

TEST(Reproducers, GpusPerNodeIsRangeCheckedAndAtMostTheGpusNvlinkDomain) {
  const std::vector<std::vector<std::string>> kCommands = {
      {"predict", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--gpus", "8"},
      {"memory", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--gpus", "8"},
      {"train-plan", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--gpus", "8"}};
  for (const auto& base : kCommands) {
    for (const char* bad : {"0", "1025"}) {
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--gpus-per-node", bad});
      expect_refused({args, "--gpus-per-node " + std::string(bad) +
                                " is out of range; expected an integer from 1 to 1024"});
    }
    std::vector<std::string> rack = base;
    rack[3] = "gb200-nvl72";
    rack.insert(rack.end(), {"--gpus-per-node", "144"});
    expect_refused({rack,
                    "--gpus-per-node 144 is more than the 72 GPUs that gb200-nvl72's NVLink domain "
                    "joins (nvlink_domain_gpus); expected an integer from 1 to 72"});
  }
  // Nodes of 4: 8 GPUs are two nodes, and the gradients cross the network.
  const Outcome r = rigplan({"predict", "llama-3.2-1b", "--gpu", "a100-sxm4-80gb", "--gpus", "8",
                             "--gpus-per-node", "4", "--batch", "1", "--seq", "2048"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("s over ib-hdr (a port per GPU, 25 GB/s per GPU)"), std::string::npos)
      << r.out;
}

// train-plan runs every tensor-parallel layout with sequence parallelism, which its table does
// not show: Llama 3 70B on 64 H100s, TP 4 PP 8 CP 2 DP 1 at 63.3 GB a GPU and 60,643 tokens/s.
// Asked with the table's degrees alone, memory says 80.2 GB (without sequence parallelism the
// norms' and dropouts' inputs stay whole on each rank). The line of flags gives predict the same
// layout and the same answer.
TEST(Reproducers, TrainPlansFirstLayoutAsPredictFlagsGivesTheSameAnswer) {
  const Outcome plan = rigplan(
      {"train-plan", "llama-3-70b", "--gpu", "h100-sxm5-80gb", "--gpus", "64", "--top", "1"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  const std::string flags =
      "--gpus 64 --tp 4 --pp 8 --cp 2 --zero 1 --micro-batch 1 --global-batch 512 "
      "--seq 8192 --precision bf16 --sequence-parallel";
  EXPECT_NE(plan.out.find("#1 as predict flags: " + flags + "\n"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("63.3    69.2     60640"), std::string::npos) << plan.out;
  std::vector<std::string> args = {"predict", "llama-3-70b", "--gpu", "h100-sxm5-80gb"};
  std::istringstream words(flags);
  for (std::string word; words >> word;) args.push_back(word);
  const Outcome predicted = rigplan(args);
  ASSERT_EQ(predicted.code, 0) << predicted.err;
  EXPECT_NE(predicted.out.find("throughput   60643 tokens/s"), std::string::npos) << predicted.out;
  args[0] = "memory";
  const Outcome memory = rigplan(args);
  ASSERT_EQ(memory.code, 0) << memory.err;
  EXPECT_NE(memory.out.find("total                    63.30"), std::string::npos) << memory.out;
}

TEST(Reproducers, ACatalogDirectoryWithoutCatalogFilesFails) {
  const auto dir = scratch_dir() / "empty-catalog";
  std::filesystem::create_directories(dir);
  expect_refused(
      {{"catalog", "check", dir.string()}, dir.string() + ": the directory holds no *.toml files"});
  expect_refused({{"--catalog", dir.string(), "gpus", "list"},
                  dir.string() + ": the directory holds no *.toml files"});
}

TEST(Reproducers, ASequenceBeyondTheModelsContextWarns) {
  const Outcome r = rigplan({"memory", "llama-2-7b", "--gpu", "a100-sxm4-80gb", "--mode", "infer",
                             "--seq", "8192", "--batch", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Warning: 8192 tokens are beyond llama-2-7b's context of 4096: the model "
                       "was not trained on sequences this long; memory and speed are computed as "
                       "asked."),
            std::string::npos)
      << r.out;
}

TEST(Reproducers, TextThatIsNotUtf8IsBadInputNotAnInternalError) {
  expect_refused(
      {{"gpus", "show", "\xff"}, "argument 3 is not valid UTF-8 (byte 1 of it is 0xff)"});
  expect_refused({{"recommend", "resnet50", "--images", "1e6", "--region", "ok\xc3\x28"},
                  "argument 6 (after --region) is not valid UTF-8 (byte 3 of it is 0xc3)"});
  // validate --json on such a file exited 1 ("internal error").
  const std::string path = write_file(
      "latin1.csv",
      "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
      "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source\n"
      "t/x,1,rtx-4090,1,resnet50,train,fp16,,,,,64,,,throughput,100,images/s,M\xfcller\n");
  for (bool json : {false, true}) {
    std::vector<std::string> args = {"validate", path};
    if (json) args.push_back("--json");
    expect_refused({args, path + ":2:72: byte 0xfc is not valid UTF-8; save the file as UTF-8"});
  }
  const std::string config = write_file("latin1.json", "{\"model_type\": \"ll\xe1ma\"}");
  expect_refused({{"memory", "--hf-config", config, "--gpu", "rtx-4090"},
                  config + ": not a JSON object (a Hugging Face config.json)"});
}

// A megabyte in any one text option: refused (or used) with a short message, never an internal
// error. A 64 KB unknown id took 2 s and a 1 MB one more than 60 s ("did you mean" compared the
// whole text with every name); bench/catalog_bench.cc times the lookup.
// A 1 MB build file naming 36,000 PSUs printed 8 MB of "unknown psu" lines in 1.8 s of CPU.
TEST(Reproducers, ABuildFileWithThousandsOfPsusIsRefusedInOneLine) {
  std::string psus;
  for (int i = 0; i < 36'000; ++i) psus += std::string(i ? ", " : "") + "\"psu-x\"";
  const std::string path = write_file(
      "psus.toml",
      "[build]\nname = \"many\"\ngpu = \"l40s\"\ngpu_count = 4\n"
      "cpu = \"xeon-platinum-8480plus\"\ncpu_count = 2\nboard = \"supermicro-sys-221ge-nr-board\"\n"
      "chassis = \"supermicro-sys-221ge-nr\"\nram_gb = 512\npsus = [" +
          psus + "]\n");
  const Outcome r = rigplan({"build", "check", path});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "rigplan: " + path +
                       ":10:8: build 'many': field 'psus': 36000 PSUs named; at most 64 are "
                       "accepted\n1 problem in 1 file\n");
}

// A catalog file with a thousand bad entries lists the first hundred problems and counts the rest.
TEST(Reproducers, AFileWithThousandsOfProblemsListsTheFirstHundred) {
  std::string gpus;
  for (int i = 0; i < 1000; ++i) gpus += "[[gpu]]\nid = \"g" + std::to_string(i) + "\"\n";
  const auto dir = std::filesystem::path(write_file("unused", "")).parent_path() / "many";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gpus.toml") << gpus;
  const Outcome r = rigplan({"catalog", "check", dir.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 102) << r.err.substr(0, 500);
  EXPECT_NE(r.err.find("\n... and "), std::string::npos) << r.err.substr(r.err.size() - 300);
}

// `offers list --provider` lowered the name once per offer of the catalog: 3.3 s for 1 MiB, and
// 242 ms for the 128 KiB one argument can carry (bench/process_bench.cc, offers_provider_128k).
TEST(Reproducers, AMegabyteUnknownProviderIsRefused) {
  // The catalog's providers, as the message for a short unknown name lists them.
  const Outcome unknown = rigplan({"offers", "list", "--provider", "nosuchcloud"});
  const size_t list = unknown.err.find("; providers: ");
  ASSERT_NE(list, std::string::npos) << unknown.err;
  const std::string providers = unknown.err.substr(list, unknown.err.size() - list - 1);
  EXPECT_EQ(providers.substr(0, 18), "; providers: aws, ");
  // Quoted to 64 bytes, with no "did you mean" for a name this long.
  expect_refused({{"offers", "list", "--provider", std::string(1 << 20, 'X')},
                  "unknown provider '" + std::string(64, 'X') + "...'" + providers});
}

TEST(Reproducers, ANumberTooLargeForADoubleIsOutOfRange) {
  // 400 nines read as infinity, which was reported as "not a number".
  expect_refused({{"recommend", "resnet50", "--images", "1e6", "--budget", std::string(400, '9')},
                  "--budget inf is out of range; expected a number > 0 and <= 1000000000000 USD"});
}

TEST(Reproducers, AMegabyteInAnyTextOptionGetsAShortAnswer) {
  const std::vector<std::vector<std::string>> kCommands = {
      {"memory", "llama-2-7b", "--gpu", "rtx-4090"},
      {"predict", "llama-2-7b", "--gpu", "rtx-4090"},
      {"compare", "resnet50", "--gpus", "rtx-4090,rtx-3090"},
      {"cost", "resnet50", "--gpu", "rtx-4090"},
      {"recommend", "resnet50", "--images", "1e6"},
      {"build", "propose", "--gpus", "2x rtx-4090"},
      {"gpus", "list"},
      {"gpus", "show", "rtx-4090"},
      {"offers", "list"},
      {"offers", "import", "--format", "csv", "--dry-run", "prices.csv"},
      {"regions", "list"},
  };
  // Options naming files: the user's own paths, which the system bounds.
  const std::vector<std::string> kPaths = {"--html",    "--hf-config", "--build", "--catalog",
                                           "--overlay", "--workloads", "--rules", "--out"};
  const std::string huge(1 << 20, 'x');
  int checked = 0;
  for (const auto& base : kCommands) {
    cli::CliContext ctx{};
    const auto app = cli::make_command_line(ctx);
    CLI::App* command = app->get_subcommand(base[0]);
    if (base.size() > 1 &&
        (base[1] == "propose" || base[1] == "list" || base[1] == "show" || base[1] == "import"))
      command = command->get_subcommand(base[1]);
    for (const CLI::Option* option : command->get_options()) {
      const std::string name = option->get_name();
      if (option->get_type_name() != "TEXT" || !name.starts_with("--") ||
          std::find(kPaths.begin(), kPaths.end(), name) != kPaths.end())
        continue;
      // Alone, and as a counted GPU list writes it ("2x NAME": a regular expression that
      // recursed per character of the name ended `compare --gpus` with SIGSEGV).
      for (const std::string& value : {huge, "2x " + huge}) {
        std::vector<std::string> args = base;
        args.push_back(name + "=" + value);
        const Outcome r = rigplan(args);
        EXPECT_NE(r.code, 1) << base[0] << " " << name << ": " << r.err.substr(0, 300);
        EXPECT_LT(r.err.size(), 1024u) << base[0] << " " << name << ": " << r.err.substr(0, 300);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 60);
}

}  // namespace
}  // namespace rigplan::testing
