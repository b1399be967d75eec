// Software maturity (docs/performance.md, "Software maturity"): the [[maturity]] of the classic
// reference training scripts on Blackwell HBM, what it moves and what it leaves alone.
#include <gtest/gtest.h>

#include <string>

#include "model/framework_speed.h"
#include "model_support.h"
#include "rigplan/perf.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::workload;

const Catalog& catalog() { return testing::default_catalog(); }

// The embedded calibration without its [[maturity]] rows: every stack at the model's speed.
const Calibration& mature() {
  static const Calibration kMature = [] {
    Calibration c = embedded_calibration();
    c.maturities.clear();
    return c;
  }();
  return kMature;
}

Prediction run(const std::string& id, const std::string& gpu, const RunConfig& config,
               const Calibration& calibration) {
  auto p = predict(workload(id), *catalog().gpu(gpu), config, calibration, catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : Prediction{};
}

// ResNet-50 as Lambda's H100 SXM rows of validation/throughput.csv train it: fp16, 1,280 images.
RunConfig lambda_resnet50() {
  RunConfig c;
  c.precision = "fp16";
  c.batch = 1280;
  return c;
}

TEST(SoftwareMaturity, TheShippedEntryIsTheReferenceScriptsOnBlackwellHbm) {
  const Calibration& c = embedded_calibration();
  const StackMaturity* m = c.maturity("blackwell-hbm", kReferenceStack);
  ASSERT_NE(m, nullptr);
  // 1.1 over 2.523, the median predicted B200 / H100 SXM ratio of the seven workloads.
  EXPECT_EQ(m->factor, 0.436);
  EXPECT_EQ(m->confidence, "low");
  EXPECT_EQ(m->date.to_string(), "2026-12-07");
  EXPECT_NE(m->source.find("rigplan issue 19"), std::string::npos) << m->source;
  EXPECT_EQ(c.maturity("blackwell-hbm", "megatron"), nullptr);
  EXPECT_EQ(c.maturity("hopper-hbm", kReferenceStack), nullptr);
  EXPECT_EQ(c.maturities.size(), 1u);
}

// Predicted B200 / H100 SXM at factor 1 is 2.428 (docs/performance.md); the factor multiplies the
// B200's speed alone, so the ratio becomes 0.436 × 2.428 = 1.058, and the H100 does not move.
TEST(SoftwareMaturity, TheReferenceScriptsOnB200RunAtTheFactorOfTheMatureSpeed) {
  const RunConfig c = lambda_resnet50();
  const Prediction h100 = run("resnet50", "h100-sxm5-80gb", c, embedded_calibration());
  const Prediction h100_mature = run("resnet50", "h100-sxm5-80gb", c, mature());
  const Prediction b200 = run("resnet50", "b200-sxm-192gb", c, embedded_calibration());
  const Prediction b200_mature = run("resnet50", "b200-sxm-192gb", c, mature());
  EXPECT_EQ(h100.throughput, h100_mature.throughput);
  EXPECT_FALSE(h100.maturity.has_value());
  const double before = b200_mature.throughput / h100.throughput;
  const double after = b200.throughput / h100.throughput;
  EXPECT_NEAR(before, 2.428, 0.001);
  EXPECT_NEAR(after, 0.436 * before, 1e-9);
  EXPECT_NEAR(after, 1.058, 0.001);
  EXPECT_NEAR(b200.implementation_speed, 0.436 * b200_mature.implementation_speed, 1e-12);
  ASSERT_TRUE(b200.maturity.has_value());
  EXPECT_EQ(b200.maturity->stack, "reference");
  EXPECT_NE(b200.note.find("operator times divided by 0.584, resnet50's measured speed"),
            std::string::npos)
      << b200.note;
  EXPECT_NE(b200.note.find("speed times 0.436, the software maturity of the reference scripts of "
                           "a workload whose measured rows named no framework on b200-sxm-192gb's "
                           "architecture (blackwell-hbm): that stack is measured to lag the "
                           "silicon (confidence low, 2026-12-07"),
            std::string::npos)
      << b200.note;
  EXPECT_EQ(b200_mature.note.find("software maturity"), std::string::npos) << b200_mature.note;
}

// A framework named for a measured workload whose rows named none does not move its speed, so its
// stack is still the reference scripts': GB200, another Blackwell HBM part, takes the factor too.
TEST(SoftwareMaturity, AMeasuredWorkloadsStackIsItsReferenceScriptsWhateverTheRunNames) {
  RunConfig c = lambda_resnet50();
  c.framework = "megatron";
  const Prediction gb200 = run("resnet50", "gb200-nvl72", c, embedded_calibration());
  const Prediction gb200_mature = run("resnet50", "gb200-nvl72", c, mature());
  EXPECT_NEAR(gb200.throughput / gb200_mature.throughput, 0.436, 1e-3);
  ASSERT_TRUE(gb200.maturity.has_value());
}

// Llama 3 8B under Megatron-LM and torchtitan on 8 B200: LLM stacks that are not known to lag
// (MLPerf-class results put B200 at 2x and more of H100), so the same prediction as without it.
TEST(SoftwareMaturity, LlmTrainingUnderMegatronOrTorchtitanOnB200DoesNotMove) {
  for (const char* framework : {"megatron", "torchtitan", ""}) {
    RunConfig c;
    c.gpus = 8;
    c.batch = 1;
    c.seq_len = 8192;
    c.precision = "bf16";
    c.framework = framework;
    c.known_to_fit = true;  // a Megatron layout would shard it; the speed is what is checked
    const Prediction p = run("llama-3-8b", "b200-sxm-192gb", c, embedded_calibration());
    const Prediction m = run("llama-3-8b", "b200-sxm-192gb", c, mature());
    EXPECT_GT(p.throughput, 0) << framework;
    EXPECT_EQ(p.throughput, m.throughput) << framework;
    EXPECT_EQ(p.note, m.note) << framework;
    EXPECT_FALSE(p.maturity.has_value()) << framework;
  }
}

// Serving is the engine's (docs/inference.md): TensorRT-LLM on B200 does not take the factor.
TEST(SoftwareMaturity, AnEngineServingOnB200DoesNotMove) {
  RunConfig c;
  c.mode = "serve";
  c.engine = "tensorrt-llm";
  c.seq_len = 1024;
  c.gen_tokens = 256;
  const Prediction p = run("llama-3.1-8b", "b200-sxm-192gb", c, embedded_calibration());
  const Prediction m = run("llama-3.1-8b", "b200-sxm-192gb", c, mature());
  ASSERT_TRUE(p.serving.has_value());
  EXPECT_GT(p.throughput, 0);
  EXPECT_EQ(p.throughput, m.throughput);
  EXPECT_EQ(p.serving->tpot_ms, m.serving->tpot_ms);
  EXPECT_FALSE(p.maturity.has_value());
}

const std::string kFramework =
    "[[framework]]\nframework = \"megatron\"\ncovers = []\nlevel = 1\nrows = 0\n"
    "fitted_on = \"x\"\n\n";

std::string maturity_row(const std::string& architecture, const std::string& stack,
                         const std::string& factor) {
  return "[[maturity]]\narchitecture = \"" + architecture + "\"\nstack = \"" + stack +
         "\"\nfactor = " + factor +
         "\nconfidence = \"low\"\ndate = 2026-12-07\nfitted_on = \"x\"\nsource = \"y\"\n";
}

std::string load_error(const std::string& text) {
  auto c = load_calibration({{"perf.toml", text}});
  return c.ok() ? "" : c.status().message();
}

TEST(SoftwareMaturity, TheLoaderRefusesABadRowWithItsLineFieldAndAcceptedValues) {
  auto good = load_calibration(
      {{"perf.toml", kFramework + maturity_row("blackwell-hbm", "megatron", "0.5")}});
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ((*good).maturity("blackwell-hbm", "megatron")->factor, 0.5);

  std::string e = load_error(kFramework + maturity_row("blackwell-hbm", "megatorn", "0.5"));
  EXPECT_NE(e.find("perf.toml:8:1: maturity: stack 'megatorn' is not a [[framework]] or the "
                   "reference stack; expected 'megatron' or 'reference' (did you mean "
                   "'megatron'?)"),
            std::string::npos)
      << e;
  e = load_error(kFramework + maturity_row("blackwel-hbm", "reference", "0.5"));
  EXPECT_NE(e.find("perf.toml:9:16: maturity: field 'architecture': 'blackwel-hbm' is not a "
                   "calibration key"),
            std::string::npos)
      << e;
  e = load_error(kFramework + maturity_row("blackwell-hbm", "reference", "1.5"));
  EXPECT_NE(e.find("perf.toml:11:10: maturity: field 'factor'"), std::string::npos) << e;
  EXPECT_NE(e.find("> 0 and <= 1"), std::string::npos) << e;
  e = load_error(kFramework + maturity_row("blackwell-hbm", "reference", "0.5") + "\n" +
                 maturity_row("blackwell-hbm", "reference", "0.6"));
  EXPECT_NE(e.find("perf.toml:19:9: maturity: field 'stack': 'reference' on 'blackwell-hbm' has "
                   "a [[maturity]] already"),
            std::string::npos)
      << e;
  e = load_error(kFramework + maturity_row("blackwell-hbm", "reference", "0.5") + "lags = 1\n");
  EXPECT_NE(e.find("lags"), std::string::npos) << e;
}

}  // namespace
}  // namespace rigplan
