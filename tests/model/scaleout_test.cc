// Scale-out training (docs/scaleout.md): parallel layouts as Megatron-LM and torchtitan run them,
// checked by hand, and the cluster validation set.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rigplan/memory.h"
#include "rigplan/validate.h"
#include "test_support.h"

namespace rigplan {
namespace {

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }
const Workload& workload(const char* id) { return **zoo().find(id); }
const Gpu& gpu(const char* id) { return *catalog().gpu(id); }

// GPT-3 175B as the Megatron-LM example trains it: 1,024 GPUs, TP 8, PP 16, so 8 data-parallel
// replicas share the global batch of 1,536 sequences: 192 each.
RunConfig gpt3_on_1024() {
  RunConfig c;
  c.gpus = 1024;
  c.tensor_parallel = 8;
  c.pipeline_parallel = 16;
  c.global_batch = 1536;
  c.micro_batch = 1;
  c.seq_len = 2048;
  c.recompute = "full";
  return c;
}

TEST(Layout, TheGlobalBatchIsSharedByTheDataParallelReplicas) {
  auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), gpt3_on_1024(), false);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(*e->config.batch, 192);  // 1536 / (1024 / (8 × 16))
  EXPECT_EQ(*e->config.global_batch, 1536);
}

TEST(Layout, RefusesLayoutsThatDoNotSplitWhole) {
  const auto with = [](auto change) {
    RunConfig c = gpt3_on_1024();
    change(c);
    return c;
  };
  const std::pair<RunConfig, const char*> kCases[] = {
      {with([](RunConfig& c) { c.global_batch = 1001; }),
       "--global-batch 1001 must be --batch × data parallel 8"},
      {with([](RunConfig& c) { c.batch = 100; }),
       "--global-batch 1536 must be --batch × data parallel 8 (--batch 100)"},
      {with([](RunConfig& c) { c.micro_batch = 5; }),
       "--micro-batch 5 must divide the batch of a data-parallel replica, 192"},
      {with([](RunConfig& c) { c.context_parallel = 3; }),
       "--gpus 1024 must be a multiple of tensor parallel 8 × pipeline parallel 16 × context "
       "parallel 3"},
      // 96 layers over 16 stages of 6 layers: 4 chunks a stage would need 64 | 96.
      {with([](RunConfig& c) { c.virtual_stages = 4; }),
       "--vp 4 needs --pp above 1 and pipeline parallel × vp dividing the model's 96 layers"},
      {with([](RunConfig& c) { c.expert_parallel = 2; }),
       "--ep 2 splits a mixture of experts; gpt3-175b has no experts"},
      {with([](RunConfig& c) { c.virtual_stages = 0; }),
       "--vp 0 is out of range; expected an integer from 1 to 1024"},
  };
  for (const auto& [config, message] : kCases) {
    auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), config, false);
    ASSERT_FALSE(e.ok()) << message;
    EXPECT_EQ(e.status().code(), Status::Code::kInvalidInput);
    EXPECT_EQ(e.status().message(), message);
  }
  // Three chunks of two layers on each of 16 stages: 16 × 3 divides 96.
  auto interleaved = with([](RunConfig& c) { c.virtual_stages = 3; });
  EXPECT_TRUE(
      estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), interleaved, false).ok());
}

constexpr const char* kLayoutHeader =
    "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
    "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source,tp,pp,cp,ep,vp,micro_batch,"
    "global_batch,recompute,sequence_parallel\n";

TEST(Layout, ValidateReadsAndChecksTheLayoutColumns) {
  const std::string row =
      "k/175b,,a100-sxm4-80gb,64,gpt3-175b,train,fp16,,full,adamw,,64,2048,0,throughput,9534,"
      "tokens/s,test,8,8,1,,3,1,64,selective,";
  auto report =
      validate_measurements(catalog(), zoo(), "c.csv", std::string(kLayoutHeader) + row + "True\n");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_TRUE(report->rows[0].skipped.empty()) << report->rows[0].skipped;
  EXPECT_TRUE(report->rows[0].absolute);
  auto bad = validate_measurements(catalog(), zoo(), "c.csv",
                                   std::string(kLayoutHeader) + row + "maybe\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "c.csv:2: column 'sequence_parallel': 'maybe' is not accepted; expected 0 or 1, true "
            "or false, yes or no");
  const std::string zero_vp =
      "k/175b,,a100-sxm4-80gb,64,gpt3-175b,train,fp16,,full,adamw,,64,2048,0,throughput,9534,"
      "tokens/s,test,8,8,1,,0,1,64,selective,1\n";
  auto vp = validate_measurements(catalog(), zoo(), "c.csv", std::string(kLayoutHeader) + zero_vp);
  ASSERT_FALSE(vp.ok());
  EXPECT_EQ(vp.status().message(),
            "c.csv:2: column 'vp': '0' is out of range; expected an integer from 1 to 1024");
}

TEST(Layout, EveryRowOfTheClusterSetIsPredicted) {
  std::ifstream in(std::string(RIGPLAN_SOURCE_DIR) + "/validation/cluster.csv");
  std::ostringstream text;
  text << in.rdbuf();
  auto report = validate_measurements(catalog(), zoo(), "cluster.csv", text.str());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->overall.skipped, 0);
  EXPECT_EQ(report->overall.n_absolute, 31);
}

}  // namespace
}  // namespace rigplan
