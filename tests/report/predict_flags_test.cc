#include "report/predict_flags.h"

#include <gtest/gtest.h>

#include <string>

namespace rigplan::report {
namespace {

// The same run gives no flags; each setting that differs gives its flag, in predict_flags' order
// whatever the order the settings were made in.
TEST(PredictFlags, NameEachSettingThatDiffersInAFixedOrder) {
  const RunConfig plain;
  EXPECT_EQ(predict_flags(plain, plain), "");

  RunConfig sharded;
  sharded.offload = "cpu";
  sharded.zero = 3;
  sharded.gpus = 2;
  EXPECT_EQ(predict_flags(sharded, plain), "--gpus 2 --zero 3 --offload cpu");

  // A layout of train-plan's search, resolved: Llama 3 70B on 64 H100s.
  RunConfig layout;
  layout.gpus = 64;
  layout.tensor_parallel = 4;
  layout.pipeline_parallel = 8;
  layout.virtual_stages = 2;
  layout.context_parallel = 2;
  layout.zero = 1;
  layout.micro_batch = 1;
  layout.global_batch = 512;
  layout.seq_len = 8192;
  layout.precision = "bf16";
  layout.recompute = "none";
  layout.sequence_parallel = true;
  EXPECT_EQ(predict_flags(layout, plain),
            "--gpus 64 --tp 4 --pp 8 --vp 2 --cp 2 --zero 1 --micro-batch 1 --global-batch 512 "
            "--seq 8192 --precision bf16 --sequence-parallel");
}

// Flags added to a task's own: what the task already says is not repeated, and an option's
// link, machine size and network are named.
TEST(PredictFlags, AddOnlyWhatTheGivenRunLacks) {
  RunConfig task;
  task.mode = "serve";
  task.seq_len = 1024;
  task.gen_tokens = 256;
  task.weights = "fp8";
  RunConfig option = task;
  option.gpus = 16;
  option.tensor_parallel = 2;
  option.link = "pcie";
  option.gpus_per_node = 8;
  option.fabric = "eth-100g";
  option.gpus_per_nic = 8;
  EXPECT_EQ(predict_flags(option, task),
            "--gpus 16 --tp 2 --link pcie --gpus-per-node 8 --fabric eth-100g --gpus-per-nic 8");
  // An option's unset batch leaves the task's; a flag turned off is "=false".
  task.batch = 4;
  task.sequence_parallel = true;
  option = task;
  option.batch.reset();
  option.sequence_parallel = false;
  EXPECT_EQ(predict_flags(option, task), "--sequence-parallel=false");
}

// A recompute or engine left empty is predict's: none (full with --checkpointing), and the
// mode's engine (pytorch to train, vllm to serve).
TEST(PredictFlags, DefaultsPredictFixesCompareAsThemselves) {
  RunConfig given;
  RunConfig run;
  run.recompute = "none";
  run.engine = "pytorch";
  EXPECT_EQ(predict_flags(run, given), "");
  given.checkpointing = true;
  EXPECT_EQ(predict_flags(run, given), "--recompute none");
  run.recompute = "full";
  EXPECT_EQ(predict_flags(run, given), "");
  run.recompute = "selective";
  EXPECT_EQ(predict_flags(run, given), "--recompute selective");

  RunConfig serve;
  serve.mode = "serve";
  RunConfig vllm = serve;
  vllm.engine = "vllm";
  EXPECT_EQ(predict_flags(vllm, serve), "");
  vllm.engine = "sglang";
  EXPECT_EQ(predict_flags(vllm, serve), "--engine sglang");
}

}  // namespace
}  // namespace rigplan::report
