// recommend --compile and --cuda-graphs: every option's step is predict's under torch.compile or
// CUDA graphs (one GPU, one machine, a layout of train-plan's search), the answer says so, and a
// demand that trains nothing is refused as predict refuses an inference run.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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

const char kRefusal[] =
    "--compile and --cuda-graphs model a training step in PyTorch; an inference run's speed is "
    "its engine's (--engine, docs/inference.md)";

Demand job(std::string_view workload, RunConfig run, double work) {
  Demand d;
  d.tasks.push_back({*default_zoo().find(workload).value(), std::move(run), 1});
  d.work = work;
  return d;
}

Recommendation recommended(const Demand& demand, const Constraints& k) {
  auto rec = recommend(demand, k, default_catalog(), embedded_calibration());
  EXPECT_TRUE(rec.ok()) << rec.status().message();
  return std::move(rec).value();
}

const Option* same_option(const Recommendation& rec, const Option& o) {
  for (const auto* list : {&rec.options, &rec.rejected}) {
    for (const Option& x : *list) {
      if (x.kind == o.kind && x.gpu == o.gpu && x.count == o.count && x.system == o.system &&
          x.offer == o.offer && x.pricing == o.pricing && x.instances == o.instances &&
          x.condition == o.condition)
        return &x;
    }
  }
  return nullptr;
}

// ResNet-50 on one GPU, bought new: under torch.compile each option's throughput is `predict
// --compile`'s on its GPU, and the eager answer's for the same option times the speedup that
// predict's compile_effect gives (its eager step over its compiled step).
TEST(RecommendCompile, EachOptionRunsAtPredictsCompiledSpeed) {
  const Demand eager = job("resnet50", RunConfig{}, 1e8);
  Demand compiled = eager;
  compiled.tasks[0].run.compile = true;
  Constraints k;
  k.acquire = "own";
  k.condition = "new";
  k.max_gpus = 1;
  k.allow_stale_prices = true;
  const Recommendation with = recommended(compiled, k);
  const Recommendation without = recommended(eager, k);
  ASSERT_GE(with.options.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Option& o = with.options[i];
    SCOPED_TRACE(std::string(o.gpu));
    auto p = predict(compiled.tasks[0].workload, *default_catalog().gpu(o.gpu),
                     compiled.tasks[0].run, embedded_calibration(), default_catalog());
    ASSERT_TRUE(p.ok()) << p.status().message();
    ASSERT_TRUE(p->compile.has_value());
    EXPECT_NEAR(o.throughput, p->throughput, 1e-9 * o.throughput);
    const Option* e = same_option(without, o);
    ASSERT_NE(e, nullptr);
    const double speedup = p->compile->eager_step_time_s / p->step_time_s;
    EXPECT_GT(speedup, 1.05);
    EXPECT_NEAR(o.throughput / e->throughput, speedup, 1e-9 * speedup);
  }
  // The RTX 3060 12GB, the cheapest new card (2026-12-07): 341.69 images/s eager, 426.09 under
  // torch.compile, the 1.247× of `predict resnet50 --gpu rtx-3060-12gb --compile --explain`.
  const auto on_3060 = [](const Recommendation& rec) {
    const auto o = std::find_if(rec.options.begin(), rec.options.end(),
                                [](const Option& x) { return x.gpu == "rtx-3060-12gb"; });
    return o == rec.options.end() ? 0.0 : o->throughput;
  };
  EXPECT_NEAR(on_3060(without), 341.69, 0.01);
  EXPECT_NEAR(on_3060(with), 426.09, 0.01);
  EXPECT_NE(std::find(with.assumptions.begin(), with.assumptions.end(),
                      "Speeds assume resnet50 trains under torch.compile: each option's step as "
                      "`rigplan predict --compile` predicts it, whose --explain shows the change "
                      "against eager PyTorch (docs/performance.md, \"torch.compile and CUDA "
                      "graphs\")."),
            with.assumptions.end());
  for (const std::string& a : without.assumptions)
    EXPECT_EQ(a.find("torch.compile"), std::string::npos) << a;
}

// Llama 3.2 3B trained in full on 1e10 tokens, 4 sequences of 2,048 a GPU, bf16, checkpointed,
// under torch.compile and CUDA graphs, on Azure's ND H100 v5 (8 H100 SXM a node over NVLink).
Demand llama_3b_compiled() {
  RunConfig run;
  run.precision = "bf16";
  run.batch = 4;
  run.seq_len = 2048;
  run.checkpointing = true;
  run.compile = true;
  run.cuda_graphs = true;
  return job("llama-3.2-3b", run, 1e10);
}

// One instance of 8 GPUs: data parallel, as `predict --gpus 8 --compile --cuda-graphs`.
TEST(RecommendCompile, OneMachineRunsAtPredictsCompiledSpeed) {
  const Demand demand = llama_3b_compiled();
  const Recommendation rec = recommended(demand, azure_h100(32));
  const Option* o = azure(rec, 1);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->strategy, "ddp");
  RunConfig ddp = demand.tasks[0].run;
  ddp.gpus = 8;
  auto p = predict(demand.tasks[0].workload, *default_catalog().gpu("h100-sxm5-80gb"), ddp,
                   embedded_calibration(), default_catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(o->throughput, p->throughput, 1e-9 * o->throughput);
  // 125,030 tokens/s, 1.025× eager, with the residual adds fused and graphs' launches.
  EXPECT_NEAR(o->throughput, 125'030, 10);
  ASSERT_TRUE(p->compile.has_value());
  EXPECT_NEAR(p->compile->eager_step_time_s / p->step_time_s, 1.025, 0.001);
}

// Four instances: the fastest layout of train-plan's search under the same flags, at its speed:
// the same layout as eager, 726,190 tokens/s for eager's 707,300 (layouts_test.cc).
TEST(RecommendCompile, AJobLargerThanAMachineTakesTrainPlansCompiledLayout) {
  const Demand demand = llama_3b_compiled();
  const Recommendation rec = recommended(demand, azure_h100(32));
  const Option* o = azure(rec, 4);
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE(o->fits);
  EXPECT_TRUE(o->run.compile);
  EXPECT_TRUE(o->run.micro_batch.has_value());  // a layout of train-plan's search
  const Catalog& catalog = default_catalog();
  const auto offer = std::find_if(catalog.offers.begin(), catalog.offers.end(), [](const Offer& x) {
    return x.id == "azure-standard-nd96isr-h100-v5";
  });
  ASSERT_NE(offer, catalog.offers.end());
  TrainPlanRequest request;
  request.run = demand.tasks[0].run;
  request.run.link = offer_link_kind(*offer, catalog);
  request.run.gpus = 32;
  request.run.gpus_per_node = 8;
  request.run.network_gbps_per_gpu = 50;  // a 400 Gbit/s NDR port per GPU
  request.run.global_batch = 128;         // 4 sequences on each of 32 GPUs
  request.run.batch.reset();
  request.top = 1;
  auto plan = plan_training(demand.tasks[0].workload, *catalog.gpu("h100-sxm5-80gb"), request,
                            embedded_calibration(), catalog);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->layouts.size(), 1u);
  EXPECT_EQ(layout_label(plan->layouts[0].run), o->strategy);
  EXPECT_NEAR(o->throughput, plan->layouts[0].prediction.throughput, 1e-9 * o->throughput);
  EXPECT_EQ(o->strategy, "dp-32 zero-1, micro-batch 4");
  EXPECT_NEAR(o->throughput, 720'380, 10);  // 1.027× the eager layout's
}

// --compile reaches a preset's training tasks; its inference task keeps its engine's speed.
TEST(RecommendCompile, APresetsTrainingTasksRunCompiled) {
  RecommendRequest r;
  r.preset = "beginner";  // resnet50 and bert-base-squad trained, tiny-llama decoded
  r.run.compile = true;
  auto resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  const auto& tasks = resolved->demand.tasks;
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_TRUE(tasks[0].run.compile);
  EXPECT_TRUE(tasks[1].run.compile);
  EXPECT_EQ(tasks[2].run.mode, "decode");
  EXPECT_FALSE(tasks[2].run.compile);
  EXPECT_FALSE(tasks[0].run.cuda_graphs);
  // Without the flags, the preset's tasks are as they were.
  r.run.compile = false;
  resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_TRUE(resolved.ok());
  for (const Task& t : resolved->demand.tasks) EXPECT_FALSE(t.run.compile || t.run.cuda_graphs);
}

// A serving job, by preset or by workload, and a demand given to the library with an inference
// task compiled: refused with predict's words.
TEST(RecommendCompile, ADemandThatTrainsNothingIsRefused) {
  RecommendRequest preset;
  preset.preset = "chatbot-8b";
  preset.run.cuda_graphs = true;
  auto resolved = resolve_request(preset, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(), kRefusal);

  RecommendRequest served;
  served.workload = *default_zoo().find("llama-3.1-8b").value();
  served.run.compile = true;
  served.run.gen_tokens = 256;
  served.serve_rate = 2;
  resolved = resolve_request(served, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(), kRefusal);

  RunConfig decode;
  decode.mode = "decode";
  decode.compile = true;
  Demand demand = job("llama-3.1-8b", decode, 1e8);
  auto rec = recommend(demand, Constraints{}, default_catalog(), embedded_calibration());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().message(), kRefusal);
}

// A preset's training task may say `compile = true`; an inference task that says it is refused
// at its line.
TEST(RecommendCompile, APresetTaskCarriesCompile) {
  const std::string head =
      "[[preset]]\nid = \"x\"\nname = \"X\"\ndescription = \"d\"\nhours_per_month = 10\n"
      "[[preset.task]]\n";
  auto presets =
      load_presets({{"p.toml", head + "workload = \"resnet50\"\ncompile = true\ncuda_graphs = "
                                      "true\n"}});
  ASSERT_TRUE(presets.ok()) << presets.status().message();
  EXPECT_TRUE(presets->front().tasks[0].run.compile);
  EXPECT_TRUE(presets->front().tasks[0].run.cuda_graphs);
  presets =
      load_presets({{"p.toml", head + "workload = \"tiny-llama\"\nmode = \"decode\"\ncompile = "
                                      "true\n"}});
  ASSERT_FALSE(presets.ok());
  EXPECT_EQ(presets.status().message(),
            std::string("p.toml:9:11: preset 'x': task 1: field 'compile': ") + kRefusal +
                "\n1 problem in 1 file");
}

}  // namespace
}  // namespace rigplan
