// Inputs that once crashed rigplan, wrapped an integer into a wrong answer or were accepted
// without meaning anything (issue 20): each must now be refused with exit 2 and a message that
// names the field, the value and what is accepted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_context.h"

namespace rigplan::testing {
namespace {

struct Run {
  int code;
  std::string out, err;
};

Run rigplan(std::vector<std::string> args) {
  args.insert(args.begin(), "rigplan");
  std::ostringstream out, err;
  cli::CliContext ctx{.out = &out, .err = &err};
  const int code = cli::run_command_line(args, ctx);
  return {code, out.str(), err.str()};
}

// A file in a fresh directory under the test's temporary directory.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rigplan-reproducers-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

struct Case {
  std::vector<std::string> args;
  std::string message;  // the whole of stderr after "rigplan: "
};

void expect_refused(const Case& c) {
  const Run r = rigplan(c.args);
  std::string command;
  for (const auto& a : c.args) command += " " + a;
  EXPECT_EQ(r.code, 2) << "rigplan" << command << "\n" << r.out << r.err;
  EXPECT_EQ(r.err, "rigplan: " + c.message + "\n") << "rigplan" << command;
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
}

}  // namespace
}  // namespace rigplan::testing
