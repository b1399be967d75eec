// The input pipeline against numbers computed by hand from data/pipeline/loaders.toml and the
// catalog's CPUs: a core's rate scales with the boost clock, the training processes keep a core
// per GPU, and a step waits for its input when the loader is short.
#include "rigplan/input_pipeline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "rigplan/build.h"
#include "rigplan/perf.h"
#include "test_support.h"

namespace rigplan {
namespace {

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }
const InputPipelines& pipelines() { return embedded_input_pipelines(); }
const Loader& loader(const char* name) { return **pipelines().find_loader(name); }
const Cpu& ryzen_7800x3d() { return *catalog().cpu("ryzen-7-7800x3d"); }

TEST(InputPipeline, EmbeddedRowsAreTheFiles) {
  ASSERT_EQ(pipelines().loaders.size(), 4u);
  const Loader& pytorch = loader("pytorch");
  EXPECT_EQ(pytorch.input, "imagenet-jpeg");
  EXPECT_EQ(pytorch.decode, "cpu");
  EXPECT_DOUBLE_EQ(pytorch.images_per_s_per_core, 150);
  EXPECT_DOUBLE_EQ(pytorch.reference_clock_ghz, 3.6);
  EXPECT_DOUBLE_EQ(loader("dali").images_per_s_per_core, 350);
  EXPECT_DOUBLE_EQ(loader("dali-gpu").gpu_images_per_s, 4000);
  EXPECT_EQ(loader("DALI CPU").id, "dali");  // an alias
}

// Every workload that names an input names one of the data's, and every input's reference
// workload is in the zoo.
TEST(InputPipeline, WorkloadsAndInputsReferToEachOther) {
  for (const Workload& w : zoo().workloads) {
    if (!w.input.empty()) {
      EXPECT_NE(pipelines().find_input(w.input), nullptr) << w.id;
    }
  }
  for (const PipelineInput& input : pipelines().inputs) {
    EXPECT_TRUE(zoo().find(input.reference_workload).ok()) << input.id;
  }
  EXPECT_EQ((*zoo().find("resnet50"))->input, "imagenet-jpeg");
  EXPECT_EQ((*zoo().find("vit-b-16"))->input, "imagenet-jpeg");
  EXPECT_EQ((*zoo().find("bert-large-squad"))->input, "");
}

// Ryzen 7 7800X3D: 8 cores, 5.0 GHz boost (cpus.toml). A core: 150 x 5.0 / 3.6 = 208.33
// images/s with Pillow, 350 x 5.0 / 3.6 = 486.11 with DALI.
TEST(InputPipeline, ACoreScalesWithTheBoostClock) {
  EXPECT_NEAR(per_core_rate(loader("pytorch"), ryzen_7800x3d()), 208.333, 1e-3);
  EXPECT_NEAR(per_core_rate(loader("dali"), ryzen_7800x3d()), 486.111, 1e-3);
  // Threadripper PRO 5995WX boosts to 4.5 GHz: 150 x 4.5 / 3.6 = 187.5.
  EXPECT_DOUBLE_EQ(per_core_rate(loader("pytorch"), *catalog().cpu("threadripper-pro-5995wx")),
                   187.5);
}

// One GPU taking 3,000 images/s from the 7800X3D: 8 - 1 = 7 loader cores. Pillow: 7 x 208.33 =
// 1,458.3, short; it would take ceil(3000 / 208.33) = 15 loader cores + 1 = 16. Pillow-SIMD:
// 7 x 190 x 5 / 3.6 = 1,847.2, short; DALI: 7 x 486.11 = 3,402.8, enough.
TEST(InputPipeline, PillowOnSevenCoresCannotFeedThreeThousandImages) {
  const PipelineEstimate e =
      estimate_pipeline(loader("pytorch"), ryzen_7800x3d(), 1, 1, 3000, pipelines());
  EXPECT_EQ(e.cores, 8);
  EXPECT_EQ(e.training_cores, 1);
  EXPECT_EQ(e.loader_cores, 7);
  EXPECT_FALSE(e.shares_core);
  EXPECT_NEAR(e.rate, 1458.333, 1e-3);
  EXPECT_TRUE(e.bound);
  EXPECT_EQ(e.cores_to_lift, 16);
  EXPECT_EQ(e.loader_to_lift, "dali");

  const PipelineEstimate dali =
      estimate_pipeline(loader("dali"), ryzen_7800x3d(), 1, 1, 3000, pipelines());
  EXPECT_NEAR(dali.rate, 3402.778, 1e-3);
  EXPECT_FALSE(dali.bound);
}

// DALI with GPU decode: the CPU side (7 x 1,500 x 5 / 3.6 = 14,583) is above one GPU's decoder
// (4,000), which caps it; no count of cores lifts a demand above the decoder.
TEST(InputPipeline, GpuDecodeIsCappedByTheDecoder) {
  const PipelineEstimate e =
      estimate_pipeline(loader("dali-gpu"), ryzen_7800x3d(), 1, 1, 5000, pipelines());
  EXPECT_NEAR(e.cpu_rate, 14583.333, 1e-3);
  EXPECT_DOUBLE_EQ(e.gpu_decode_rate, 4000);
  EXPECT_DOUBLE_EQ(e.rate, 4000);
  EXPECT_TRUE(e.bound);
  EXPECT_EQ(e.cores_to_lift, 0);
  EXPECT_EQ(e.loader_to_lift, "");
}

// Eight GPUs on an 8-core CPU leave no core for the loader: it is counted as sharing one.
TEST(InputPipeline, FewerCoresThanGpusShareOne) {
  const PipelineEstimate e =
      estimate_pipeline(loader("pytorch"), ryzen_7800x3d(), 1, 8, 100, pipelines());
  EXPECT_TRUE(e.shares_core);
  EXPECT_EQ(e.loader_cores, 1);
  EXPECT_NEAR(e.rate, 208.333, 1e-3);
}

Prediction gpu_prediction(const char* workload, RunConfig config = {}) {
  auto p = predict(**zoo().find(workload), *catalog().gpu("h100-sxm5-80gb"), config,
                   embedded_calibration(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

Result<Prediction> fed(const char* workload, const Prediction& p, const char* loader_name) {
  return with_input_pipeline(**zoo().find(workload), p, HostSpec{&ryzen_7800x3d(), 1, loader_name},
                             pipelines());
}

// rigplan predict resnet50 --gpu h100-sxm5-80gb --cpu ryzen-7-7800x3d --loader pytorch|dali:
// the H100 alone trains between the Pillow loader's 1,458.3 images/s and DALI's 3,402.8, so
// Pillow bounds the step at 256 / 1,458.3 s and DALI lifts it.
TEST(InputPipeline, TheIssueCommandIsInputBoundWithPillowAndNotWithDali) {
  const Prediction gpu = gpu_prediction("resnet50");
  ASSERT_GT(gpu.throughput, 1458.4);
  ASSERT_LT(gpu.throughput, 3402.7);
  auto pytorch = fed("resnet50", gpu, "pytorch");
  ASSERT_TRUE(pytorch.ok()) << pytorch.status().message();
  EXPECT_EQ(pytorch->bound, "input");
  EXPECT_NEAR(pytorch->throughput, 1458.333, 1e-2);
  EXPECT_NEAR(pytorch->step_time_s, 256 / 1458.333, 1e-6);
  EXPECT_NEAR(pytorch->mfu, gpu.mfu * 1458.333 / gpu.throughput, 1e-6);
  ASSERT_TRUE(pytorch->pipeline);
  EXPECT_EQ(pytorch->pipeline->loader_to_lift, "dali");
  EXPECT_EQ(pytorch->terms.back().name, "input_wait");
  EXPECT_NEAR(pytorch->terms.back().seconds, pytorch->step_time_s - gpu.step_time_s, 1e-9);

  auto dali = fed("resnet50", gpu, "dali");
  ASSERT_TRUE(dali.ok()) << dali.status().message();
  EXPECT_EQ(dali->bound, gpu.bound);
  EXPECT_DOUBLE_EQ(dali->throughput, gpu.throughput);
  ASSERT_TRUE(dali->pipeline);
  EXPECT_FALSE(dali->pipeline->bound);
}

// What recommend ranks on: the feed of the same run from its numbers alone. ResNet-50's 256
// images a step on one H100 wait for the Pillow loader's 1,458.3 images/s, 0.17554 s a step.
TEST(InputPipeline, TheFeedOfTheNumbersBoundsTheStepAsThePredictionDoes) {
  const Prediction gpu = gpu_prediction("resnet50");
  auto feed = input_feed(**zoo().find("resnet50"), gpu.config, gpu.samples_per_step,
                         gpu.step_time_s, HostSpec{&ryzen_7800x3d(), 1, "pytorch"}, pipelines());
  ASSERT_TRUE(feed.ok()) << feed.status().message();
  ASSERT_TRUE(feed->estimate);
  EXPECT_TRUE(feed->estimate->bound);
  EXPECT_NEAR(feed->step_time_s, 256 / 1458.333, 1e-6);
  EXPECT_TRUE(feed->not_modelled.empty());

  RunConfig infer = gpu.config;
  infer.mode = "infer";
  feed = input_feed(**zoo().find("resnet50"), infer, gpu.samples_per_step, gpu.step_time_s,
                    HostSpec{&ryzen_7800x3d(), 1, "pytorch"}, pipelines());
  ASSERT_TRUE(feed.ok()) << feed.status().message();
  EXPECT_FALSE(feed->estimate);
  EXPECT_DOUBLE_EQ(feed->step_time_s, gpu.step_time_s);
  EXPECT_NE(feed->not_modelled.find("not modelled for mode infer"), std::string::npos);
}

TEST(InputPipeline, WorkloadsWithoutAnInputAreNotModelledAndSaySo) {
  const Prediction gpu = gpu_prediction("bert-large-squad");
  auto p = fed("bert-large-squad", gpu, "pytorch");
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->throughput, gpu.throughput);
  EXPECT_FALSE(p->pipeline);
  EXPECT_NE(p->note.find("input pipeline not modelled: bert-large-squad names no input"),
            std::string::npos)
      << p->note;
}

TEST(InputPipeline, InferenceIsNotModelledAndSaysSo) {
  RunConfig infer;
  infer.mode = "infer";
  const Prediction gpu = gpu_prediction("resnet50", infer);
  auto p = fed("resnet50", gpu, "pytorch");
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->throughput, gpu.throughput);
  EXPECT_NE(p->note.find("input pipeline not modelled for mode infer"), std::string::npos)
      << p->note;
}

TEST(InputPipeline, AnUnknownLoaderIsRefusedWithTheClosest) {
  const Prediction gpu = gpu_prediction("bert-large-squad");
  auto p = fed("bert-large-squad", gpu, "dalli");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("did you mean 'dali'"), std::string::npos)
      << p.status().message();
}

TEST(InputPipeline, BrokenFilesAreReportedWithPositions) {
  const CatalogFile file{
      "broken.toml",
      "[[input]]\nid = \"imagenet-jpeg\"\nname = \"x\"\nreference_workload = \"resnet50\"\n"
      "as_of = 2021-01-01\nsource = \"s\"\nconfidence = \"recall\"\n"
      "[[loader]]\nid = \"fast\"\nname = \"f\"\ninput = \"imagenet-jpg\"\ndecode = \"gpu\"\n"
      "images_per_s_per_core = 100\nreference_clock_ghz = 4.0\nas_of = 2021-01-01\n"
      "source = \"s\"\nconfidence = \"recall\"\nspeed = 3\n"};
  auto loaded = load_input_pipelines({file});
  ASSERT_FALSE(loaded.ok());
  const std::string m(loaded.status().message());
  EXPECT_NE(m.find("broken.toml:11:9: loader 'fast': field 'input': unknown input "
                   "'imagenet-jpg' (did you mean 'imagenet-jpeg'?)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("broken.toml:8:1: loader 'fast': field 'gpu_images_per_s': is required "
                   "where decode = \"gpu\""),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("broken.toml:18:9: loader 'fast': unknown field 'speed'"), std::string::npos)
      << m;
  EXPECT_NE(m.find("3 problems in 1 file"), std::string::npos) << m;
}

// A GPU ceiling that fails its own check (out of range, or written as text) is reported once, by
// its field; it is not also "required where decode = \"gpu\"", which the user did give
// (EntryContext::read_well).
TEST(InputPipeline, AFailedGpuCeilingIsReportedOnce) {
  const auto file = [](const std::string& ceiling) {
    return CatalogFile{
        "p.toml",
        "[[input]]\nid = \"imagenet-jpeg\"\nname = \"x\"\nreference_workload = \"resnet50\"\n"
        "as_of = 2021-01-01\nsource = \"s\"\nconfidence = \"recall\"\n"
        "[[loader]]\nid = \"fast\"\nname = \"f\"\ninput = \"imagenet-jpeg\"\ndecode = \"gpu\"\n"
        "images_per_s_per_core = 100\nreference_clock_ghz = 4.0\ngpu_images_per_s = " +
            ceiling + "\nas_of = 2021-01-01\nsource = \"s\"\nconfidence = \"recall\"\n"};
  };
  auto negative = load_input_pipelines({file("-5000")});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            "p.toml:15:20: loader 'fast': field 'gpu_images_per_s': -5000 is out of range; "
            "expected > 0 and <= 10000000\n1 problem in 1 file");
  auto text = load_input_pipelines({file("\"5000\"")});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "p.toml:15:20: loader 'fast': field 'gpu_images_per_s': expected a number, got a "
            "string\n1 problem in 1 file");
  // Read well, the same ceiling is what a GPU decoder needs (BrokenFilesAreReportedWithPositions:
  // still required when absent).
  auto given = load_input_pipelines({file("5000")});
  ASSERT_TRUE(given.ok()) << given.status().message();
}

// build check's cpu-cores rule feeds the build's GPUs at their resnet50 speed: one RTX 4090
// on a 16-core Ryzen 9 7950X (5.7 GHz: 150 x 5.7 / 3.6 = 237.5 images/s a core with Pillow).
TEST(InputPipeline, BuildCheckSizesTheCoresForTheReferenceWorkload) {
  Build b;
  b.gpu = catalog().gpu("rtx-4090");
  feed_demand(b, catalog());
  ASSERT_TRUE(b.images_per_s_per_gpu) << b.demand_problem;
  auto p = predict_largest_fitting(**zoo().find("resnet50"), *b.gpu, RunConfig{},
                                   embedded_calibration(), catalog(), true);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(*b.images_per_s_per_gpu, p->throughput);
  const PipelineEstimate e = estimate_pipeline(loader("pytorch"), *catalog().cpu("ryzen-9-7950x"),
                                               1, 1, p->throughput, pipelines());
  EXPECT_DOUBLE_EQ(e.per_core, 237.5);
  EXPECT_EQ(e.cores_to_lift, static_cast<int>(std::ceil(p->throughput / 237.5)) + 1);
}

}  // namespace
}  // namespace rigplan
