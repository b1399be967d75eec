#include "rigplan/validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace rigplan {
namespace {

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }

constexpr const char* kHeader =
    "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
    "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source\n";

// A row whose split is held-out is predicted and scored but not in the calibration set that
// `rigplan calibrate` fits: here the RTX 4090 row of a three-GPU group (ref: the A100 row).
TEST(Validate, HeldOutRowsAreScoredButNotFitted) {
  const std::string csv =
      "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
      "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source,split\n"
      "t/g,1,a100-sxm4-40gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,100,tokens/s,test,fit\n"
      "t/g,,h100-sxm5-80gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,200,tokens/s,test,fit\n"
      "t/g,,rtx-4090,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,50,tokens/s,test,held-out\n";
  auto samples = throughput_samples(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_EQ(calibration_set(*samples), (std::vector<bool>{true, true, false}));
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 3u);
  EXPECT_EQ(report->rows[2].split, "held-out");
  EXPECT_TRUE(report->rows[2].error.has_value());
}

// A speed row's ratio is signed where its error is not: predicted over measured, each over the
// group's ref row. Measured, the H100 SXM trains Llama 2 7B at 2× the A100 40GB here; the model
// predicts more, so the H100 row's ratio is above 1 (predicted too fast against the A100). A row
// of a group without a ref is scored on its own: predicted / measured.
TEST(Validate, ASpeedRowsRatioSaysWhichWayItErrs) {
  const std::string csv = std::string(kHeader) +
                          "t/g,1,a100-sxm4-40gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,"
                          "100,tokens/s,test\n"
                          "t/g,,h100-sxm5-80gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,"
                          "200,tokens/s,test\n"
                          "a/g,,h100-sxm5-80gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,"
                          "200,tokens/s,test\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 3u);
  const ValidationRow &ref = report->rows[0], &h100 = report->rows[1], &alone = report->rows[2];
  EXPECT_EQ(*ref.ratio, 1);
  EXPECT_DOUBLE_EQ(*h100.ratio, (*h100.predicted / *ref.predicted) / (200.0 / 100));
  EXPECT_GT(*h100.ratio, 1);
  EXPECT_DOUBLE_EQ(*h100.error, *h100.ratio - 1);
  ASSERT_TRUE(alone.absolute);
  EXPECT_DOUBLE_EQ(*alone.ratio, *alone.predicted / 200);
  EXPECT_DOUBLE_EQ(*alone.error, std::abs(*alone.ratio - 1));
}

TEST(Validate, ScoresMemoryAndFitsRowsAndListsWhatItCannotPredict) {
  const std::string csv =
      std::string(kHeader) +
      // bf16 weights of Llama 2 7B alone are 13.48 GB: a 13.52 GB measured inference peak.
      "m/llama,,a100-sxm4-40gb,1,llama-2-7b,infer,bf16,,,,,1,58,0,peak_memory_gb,13.52,GB,test\n"
      "f/llama,,rtx-4090,1,llama-2-7b,train,bf16,,full,adamw,,1,512,0,fits,0,,test\n"
      "x/unknown,,rtx-9090,1,llama-2-7b,infer,bf16,,,,,1,58,0,peak_memory_gb,13,GB,test\n"
      "t/speed,1,a100-sxm4-40gb,1,llama-2-7b,train,bf16,,,,,1,512,0,throughput,100,tokens/s,test\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 4u);
  EXPECT_EQ(report->rows[0].line, 2);
  EXPECT_NEAR(*report->rows[0].error, 0.25, 0.3);  // percent
  EXPECT_EQ(*report->rows[1].predicted, 0);        // 7B full fine-tuning does not fit in 24 GB
  EXPECT_EQ(*report->rows[1].error, 0);
  EXPECT_NE(report->rows[2].skipped.find("unknown GPU 'rtx-9090'"), std::string::npos);
  EXPECT_TRUE(report->rows[3].is_ref);  // alone in its group: its own reference
  EXPECT_EQ(*report->rows[3].error, 0);
  EXPECT_EQ(report->overall.n, 3);
  EXPECT_EQ(report->overall.skipped, 1);
  EXPECT_EQ(*report->overall.fits_accuracy, 1.0);
  ASSERT_EQ(report->groups.size(), 4u);
  EXPECT_EQ(report->groups[0].group, "m");
}

// The precision column takes Blackwell's training recipes, mxfp8 and nvfp4 (no measured row in
// validation/ has them yet); a row on a GPU without their tensor cores is listed, not dropped,
// with the refusal that `predict` gives.
// NVFP4 at 4,096 tokens, checkpointed, allocates 155.46 GB: bf16's 149.46 (docs/memory.md, "FP8
// training") with 5.93 GB of NVFP4 weight copies and 0.07 GB of casts.
TEST(Validate, AcceptsTheBlockScaledTrainingPrecisions) {
  const std::string csv =
      std::string(kHeader) +
      "t/fp4,1,b200-sxm-192gb,1,llama-3-8b,train,bf16,,,,,1,4096,1,throughput,100,tokens/s,t\n"
      "t/fp4,,b200-sxm-192gb,1,llama-3-8b,train,nvfp4,,,,,1,4096,1,throughput,150,tokens/s,t\n"
      "t/fp4,,b200-sxm-192gb,1,llama-3-8b,train,mxfp8,,,,,1,4096,1,throughput,130,tokens/s,t\n"
      "t/fp4,,h100-sxm5-80gb,1,llama-3-8b,train,nvfp4,,,,,1,4096,1,throughput,50,tokens/s,t\n"
      "m/fp4,,b200-sxm-192gb,1,llama-3-8b,train,nvfp4,,,,,1,4096,1,peak_memory_gb,160,GB,t\n"
      "r/fp4,1,h100-sxm5-80gb,1,llama-3-8b,train,nvfp4,,,,,1,4096,1,throughput,50,tokens/s,t\n"
      "r/fp4,,b200-sxm-192gb,1,llama-3-8b,train,nvfp4,,,,,1,4096,1,throughput,150,tokens/s,t\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 7u);
  EXPECT_GT(*report->rows[1].predicted, *report->rows[2].predicted);  // nvfp4 over mxfp8
  EXPECT_GT(*report->rows[2].predicted, *report->rows[0].predicted);  // mxfp8 over bf16
  EXPECT_EQ(report->rows[3].skipped.find("nvfp4 training runs its linear layers' GEMMs on "
                                         "block-scaled FP4 tensor cores"),
            0u)
      << report->rows[3].skipped;  // Hopper has no FP4, and the row says so
  EXPECT_NEAR(*report->rows[4].predicted, 155.46, 0.01);
  // A row whose group's ref cannot be predicted says so, with the ref's reason.
  EXPECT_EQ(report->rows[6].skipped.find("its group's ref row cannot be predicted: nvfp4 "
                                         "training runs"),
            0u)
      << report->rows[6].skipped;
  EXPECT_EQ(report->overall.skipped, 3);
}

TEST(Validate, ARowWithoutABatchRunsTheLargestThatFitsWhenTheDefaultDoesNot) {
  // BERT-large fp32 at its default batch of 32 needs more than the 8 GB of an RTX 3070, which
  // holds 2; a measured row with no batch ran, so at a batch that fitted.
  RunConfig defaults;
  defaults.precision = "fp32";
  auto memory =
      estimate_memory(**zoo().find("bert-large-squad"), *catalog().gpu("rtx-3070"), defaults);
  ASSERT_TRUE(memory.ok());
  EXPECT_FALSE(memory->fits);
  EXPECT_EQ(memory->max_batch, 2);
  const std::string csv =
      std::string(kHeader) +
      "t/bert,1,a100-sxm4-80gb,1,bert-large-squad,train,fp32,,full,,,,,,throughput,60,sequences/"
      "s,test\n"
      "t/bert,,rtx-3070,1,bert-large-squad,train,fp32,,full,,,,,,throughput,3,sequences/s,test\n"
      "t/bert,,rtx-3070,1,bert-large-squad,train,fp32,,full,,,2,,,throughput,3,sequences/s,test\n"
      "t/bert,,a100-sxm4-80gb,1,bert-large-squad,train,fp32,,full,,,32,,,throughput,60,sequences/"
      "s,test\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 4u);
  EXPECT_EQ(report->rows[1].batch_per_gpu, 2);
  EXPECT_EQ(report->rows[0].batch_per_gpu, 32);
  EXPECT_DOUBLE_EQ(*report->rows[1].predicted, *report->rows[2].predicted);
  EXPECT_DOUBLE_EQ(*report->rows[0].predicted,
                   *report->rows[3].predicted);  // the default fits an A100
}

TEST(Validate, NamesTheLineAndColumnOfABadValue) {
  const std::string csv =
      std::string(kHeader) +
      "m/llama,,a100-sxm4-40gb,1,llama-2-7b,infer,bf16,,,,,one,58,0,peak_memory_gb,13.52,GB,test\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "v.csv:2: column 'batch_per_gpu': 'one' is not a number");
}

TEST(Validate, NamesMissingColumns) {
  auto report = validate_measurements(catalog(), zoo(), "v.csv", "group,gpu\n");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message().rfind("v.csv:1: the header lacks 'ref', 'num_gpus'", 0), 0u)
      << report.status().message();
}

TEST(Validate, TheRepositoryMemorySetMeetsItsBars) {
  // validation/memory.csv: the bars of the Workloads issue (MAPE <= 15%, fits >= 90%).
  std::ifstream in(std::string(RIGPLAN_SOURCE_DIR) + "/validation/memory.csv");
  std::ostringstream text;
  text << in.rdbuf();
  auto report = validate_measurements(catalog(), zoo(), "memory.csv", text.str());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_LE(*report->overall.mean_abs_pct_err, 15.0);
  EXPECT_GE(*report->overall.fits_accuracy, 0.90);
  EXPECT_GE(report->overall.n, 60);
}

// A row's link "nvlink" is the GPU's own NVLink where its board wires one: on V100 SXM2 modules,
// which take no bridge, DGX-1's cube mesh; a bridge's rings over 8 GPUs would cross PCIe.
TEST(Validate, AnNvlinkRowOnV100SxmTwoRunsOverTheCubeMesh) {
  const std::string row = "d/ncf,,v100-sxm2-16gb,8,ncf,train,fp16,,full,,,131072,,0,throughput,";
  const std::string csv = std::string(kHeader).insert(std::string(kHeader).size() - 1, ",link") +
                          row + "95950000,samples/s,test,nvlink\n" + row +
                          "95950000,samples/s,test,nvlink-cube-mesh\n" + row +
                          "95950000,samples/s,test,nvlink-bridge\n";
  auto report = validate_measurements(catalog(), zoo(), "v.csv", csv);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 3u);
  EXPECT_DOUBLE_EQ(*report->rows[0].predicted, *report->rows[1].predicted);
  EXPECT_LT(*report->rows[2].predicted, 0.6 * *report->rows[1].predicted);
}

}  // namespace
}  // namespace rigplan
