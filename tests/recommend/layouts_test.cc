// recommend's layout search for training jobs larger than a machine (src/recommend/layouts.cc,
// docs/recommend.md "Jobs larger than a machine").
#include <gtest/gtest.h>

#include <algorithm>

#include "azure_h100_support.h"
#include "recommend/steps.h"
#include "rigplan/recommend.h"
#include "rigplan/train_plan.h"
#include "test_support.h"

namespace rigplan {
namespace {

using recommend_steps::layout_label;
using testing::azure;
using testing::azure_h100;
using testing::default_catalog;
using testing::default_zoo;

// Llama 3.2 3B trained in full on 1e10 tokens at the cluster preset's batch: 4 sequences of
// 2,048 tokens per GPU, bf16, activation checkpointing.
Demand llama_3b_job() {
  RunConfig run;
  run.precision = "bf16";
  run.batch = 4;
  run.seq_len = 2048;
  run.checkpointing = true;
  Demand d;
  d.tasks.push_back({*default_zoo().find("llama-3.2-3b").value(), run, 1});
  d.work = 1e10;
  return d;
}

// The run of 32 GPUs as 4 instances of 8 over the instance's link: the offer's 400 Gbit/s NDR
// port per GPU is 50 GB/s per GPU and direction.
RunConfig four_instances(RunConfig run) {
  const Catalog& catalog = default_catalog();
  const auto& offers = catalog.offers;
  const auto offer = std::find_if(offers.begin(), offers.end(), [](const Offer& x) {
    return x.id == "azure-standard-nd96isr-h100-v5";
  });
  run.link = offer_link_kind(*offer, catalog);
  run.gpus = 32;
  run.gpus_per_node = 8;
  run.network_gbps_per_gpu = 50;
  return run;
}

TEST(RecommendLayouts, FourInstancesTrainInTrainPlansFastestLayoutNotZero3) {
  const Demand demand = llama_3b_job();
  auto rec = recommend(demand, azure_h100(32), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  const Option* o = azure(*rec, 4);
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE(o->fits);
  EXPECT_EQ(o->strategy, "dp-32 zero-1, micro-batch 4");
  // The run it keeps is that layout: 32 GPUs, ZeRO-1, micro-batches of 4.
  EXPECT_EQ(o->run.gpus, 32);
  EXPECT_EQ(o->run.zero, 1);
  EXPECT_EQ(o->run.micro_batch, 4);

  // train-plan's search on the same GPUs, machines, network and global batch (4 x 32 = 128
  // sequences) finds the same layout first, at the same speed.
  const Workload& w = demand.tasks[0].workload;
  const Gpu& h100 = *default_catalog().gpu("h100-sxm5-80gb");
  TrainPlanRequest request;
  request.run = four_instances(demand.tasks[0].run);
  request.run.global_batch = 128;
  request.run.batch.reset();
  request.top = 1;
  auto plan = plan_training(w, h100, request, embedded_calibration(), default_catalog());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->layouts.size(), 1u);
  EXPECT_EQ(layout_label(plan->layouts[0].run), o->strategy);
  EXPECT_NEAR(o->throughput, plan->layouts[0].prediction.throughput, 1e-9 * o->throughput);

  // Data parallel over the fabric, as recommend costed the option before (the first strategy
  // that fits: about 487,900 tokens/s), and ZeRO-3 (about 344,300: naming no framework, sharded
  // weights run as eager-fsdp runs them, at its level, 0.818, with its norms, rotary embedding
  // and SwiGLU as PyTorch ops): the layout is faster than both, 1.4x and 2.0x. Across the instances
  // a ring leaves each one through its 8 NDR ports, 8 × 50 × 0.9 = 360 GB/s, more than NVLink's
  // 346.5: the ring runs at NVLink's rate.
  RunConfig ddp = four_instances(demand.tasks[0].run);
  auto plain = predict(w, h100, ddp, embedded_calibration(), default_catalog());
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  RunConfig zero3 = ddp;
  zero3.zero = 3;
  auto sharded = predict(w, h100, zero3, embedded_calibration(), default_catalog());
  ASSERT_TRUE(sharded.ok()) << sharded.status().message();
  EXPECT_NEAR(plain->throughput, 487'900, 100);
  EXPECT_NEAR(sharded->throughput, 344'300, 100);
  EXPECT_EQ(sharded->config.framework, "eager-fsdp");
  EXPECT_NEAR(o->throughput, 701'400, 100);
  EXPECT_GT(o->throughput, 1.5 * sharded->throughput);
  // The hours to the result are the tokens over the layout's speed.
  EXPECT_NEAR(o->time_to_result_h, 1e10 / o->throughput / 3600, 1e-9 * o->time_to_result_h);
}

// One instance of 8 GPUs crosses no fabric: it keeps data parallel, as before layouts.
TEST(RecommendLayouts, OneMachineKeepsDataParallel) {
  const Demand demand = llama_3b_job();
  auto rec = recommend(demand, azure_h100(32), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  const Option* o = azure(*rec, 1);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->strategy, "ddp");
  EXPECT_FALSE(o->run.micro_batch.has_value());
  RunConfig ddp = demand.tasks[0].run;
  ddp.gpus = 8;
  auto p = predict(demand.tasks[0].workload, *default_catalog().gpu("h100-sxm5-80gb"), ddp,
                   embedded_calibration(), default_catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(o->throughput, p->throughput, 1e-9 * o->throughput);
}

// A QLoRA fine-tune of the same size never searches layouts: its option is the plain strategy.
TEST(RecommendLayouts, AFineTuneOnFourInstancesKeepsItsStrategy) {
  Demand demand = llama_3b_job();
  demand.tasks[0].run.method = "qlora";
  auto rec = recommend(demand, azure_h100(32), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  const Option* o = azure(*rec, 4);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->strategy, "ddp");
  EXPECT_FALSE(o->run.micro_batch.has_value());
}

TEST(RecommendLayouts, LabelNamesEveryDegreeAboveOne) {
  RunConfig c;
  c.gpus = 64;
  c.tensor_parallel = 8;
  c.pipeline_parallel = 2;
  c.virtual_stages = 4;
  c.micro_batch = 1;
  c.zero = 1;
  c.recompute = "selective";
  EXPECT_EQ(layout_label(c), "tp-8 pp-2 vp-4 dp-4 zero-1, micro-batch 1, selective recompute");
  c.tensor_parallel = 1;
  c.pipeline_parallel = 1;
  c.virtual_stages = 1;
  c.context_parallel = 2;
  c.zero = 0;
  c.recompute = "none";
  EXPECT_EQ(layout_label(c), "cp-2 dp-32, micro-batch 1");
  // Expert parallelism splits the experts over data-parallel GPUs: named after them.
  c.expert_parallel = 8;
  EXPECT_EQ(layout_label(c), "cp-2 dp-32 ep-8, micro-batch 1");
}

}  // namespace
}  // namespace rigplan
