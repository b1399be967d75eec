// The performance model against hand-checkable limits: decode is bandwidth-bound, more GPUs
// never scale past linear, GeForce cards communicate through the host, and predictions are
// deterministic functions of the calibration.
#include "rigplan/perf.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "model/fp8_training.h"
#include "model/links.h"
#include "model/run_speed.h"
#include "rigplan/calibrate.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::term;

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }

// A calibration with round numbers, so expectations can be computed by hand.
Calibration flat(double gemm, double memory) {
  Calibration c;
  for (const char* key : {"ampere-hbm", "ampere-gddr", "hopper-hbm", "ada-gddr", "volta-hbm"}) {
    c.archs.push_back({key, gemm, memory, 1.0, "test"});
  }
  c.error_band = {{"transformer", 0.1}, {"cnn", 0.1}};
  c.gemm_ceilings = embedded_calibration().gemm_ceilings;
  return c;
}

Prediction run(const char* workload, const char* gpu, const RunConfig& config,
               const Calibration& c = flat(0.8, 0.8)) {
  auto p = predict(**zoo().find(workload), *catalog().gpu(gpu), config, c, catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

TEST(PerfModel, DecodeAtBatchOneReadsEveryWeightPerToken) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 1;
  c.seq_len = 1;
  const Prediction p = run("llama-2-7b", "h100-sxm5-80gb", c);
  EXPECT_EQ(p.bound, "memory");
  // Non-embedding weights 6,607,343,616 at 2 B over 3350 GB/s × 0.8, plus launch overheads:
  // at most 3350e9 · 0.8 / 13.2e9 ≈ 203 tokens/s.
  const double ceiling = 3350e9 * 0.8 / (6'607'343'616.0 * 2);
  EXPECT_LT(p.throughput, ceiling);
  EXPECT_GT(p.throughput, 0.7 * ceiling);
}

TEST(PerfModel, FourBitWeightsDecodeFasterThanSixteen) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.batch = 1;
  c.seq_len = 1;
  const double bf16 = run("llama-2-7b", "rtx-4090", c).throughput;
  c.weights = "q4_k_m";
  const double q4 = run("llama-2-7b", "rtx-4090", c).throughput;
  EXPECT_GT(q4 / bf16, 2.0);  // 16 / 4.85 bits = 3.3× fewer bytes, less the fixed overheads
  EXPECT_LT(q4 / bf16, 16 / 4.85);
}

TEST(PerfModel, DataParallelNeverScalesPastLinear) {
  RunConfig c;
  c.precision = "fp16";
  const double one = run("resnet50", "a100-sxm4-80gb", c).throughput;
  for (int gpus : {2, 4, 8}) {
    c.gpus = gpus;
    const double many = run("resnet50", "a100-sxm4-80gb", c).throughput;
    EXPECT_LE(many, gpus * one * 1.0000001) << gpus;
    EXPECT_GT(many, 0.8 * gpus * one) << gpus;  // NVSwitch hides most of the all-reduce
  }
}

TEST(PerfModel, GeForceCardsAllReduceThroughTheHost) {
  RunConfig c;
  c.method = "full";
  c.precision = "bf16";
  c.gpus = 4;
  c.batch = 1;
  c.seq_len = 512;
  // GPT-2 (124M) fits a 24 GB card: GPT-2 XL's 32.5 GB would not, and has no throughput.
  const Prediction geforce = run("gpt2", "rtx-4090", c);
  ASSERT_TRUE(geforce.fits);
  EXPECT_NE(geforce.note.find("host-staged, no P2P"), std::string::npos) << geforce.note;
  c.link = "nvswitch";  // pretend: no link bandwidth known, falls back to PCIe
  EXPECT_EQ(run("gpt2", "rtx-4090", c).note.find("nvswitch"), std::string::npos);
}

TEST(PerfModel, SplittingLayersDoesNotSpeedUpASingleStream) {
  RunConfig c;
  c.mode = "infer";
  c.batch = 1;
  c.seq_len = 512;
  const double one = run("llama-2-7b", "rtx-4090", c).step_time_s;  // 13.5 GB: fits one card
  c.gpus = 2;
  c.pipeline_parallel = 2;  // llama.cpp --split-mode layer
  const Prediction split = run("llama-2-7b", "rtx-4090", c);
  EXPECT_GE(split.step_time_s, 0.99 * one);
  EXPECT_NE(split.note.find("one stream runs the stages in turn"), std::string::npos) << split.note;
}

// One FP8 linear layer of Llama 3 8B's MLP (gate: 4096 in, 14336 out) over 8192 tokens: forward
// it casts its input (8192 × 4096) and its weight (4096 × 14336), backward its output gradient
// (8192 × 14336), each read twice in BF16 (amax, then the scaled cast: 4 B) and written in two
// FP8 layouts (2 B), 6 B an element.
TEST(Fp8Training, TheCastsOfOneLinearLayerMoveSixBytesAnElement) {
  EXPECT_EQ(fp8_training::kCastBytesPerElement, 6);
  const fp8_training::Fp8CastBytes b = fp8_training::fp8_cast_bytes(8192, 14336, 4096);
  EXPECT_DOUBLE_EQ(b.forward, (8192.0 * 4096 + 4096.0 * 14336) * 6);  // 553,648,128 B
  EXPECT_DOUBLE_EQ(b.forward, 553'648'128);
  EXPECT_DOUBLE_EQ(b.backward, 8192.0 * 14336 * 6);  // 704,643,072 B
}

// The same linear in MXFP8: each tensor read once (block scales need no amax pass) and written
// in two layouts of 1 B with a 1-byte scale per 32, 4.0625 B an element. In NVFP4: 0.5 B with a
// scale per 16 (0.5625 B), read twice (the FP32 per-tensor scale needs the amax) and once more
// for the Hadamard transform of the weight-gradient inputs, 7.125 B for the input and the output
// gradient; the weight, in 16×16 blocks and untransformed, 2·2 + 2·0.50390625 = 5.0078125 B.
TEST(Fp8Training, BlockScaledCastsMoveTheirElementsScalesAndTransforms) {
  namespace f8 = fp8_training;
  EXPECT_EQ(f8::kMxfp8.activation_cast_bytes(), 4.0625);
  const f8::Fp8CastBytes mx = f8::fp8_cast_bytes(8192, 14336, 4096, f8::kMxfp8);
  EXPECT_DOUBLE_EQ(mx.forward, 374'865'920);   // (8192·4096 + 4096·14336) × 4.0625
  EXPECT_DOUBLE_EQ(mx.backward, 477'102'080);  // 8192·14336 × 4.0625
  EXPECT_EQ(f8::kNvfp4.activation_cast_bytes(), 7.125);
  EXPECT_EQ(f8::kNvfp4.weight_cast_bytes(), 5.0078125);
  const f8::Fp8CastBytes nv = f8::fp8_cast_bytes(8192, 14336, 4096, f8::kNvfp4);
  EXPECT_DOUBLE_EQ(nv.forward, 533'135'360);       // 8192·4096 × 7.125 + 4096·14336 × 5.0078125
  EXPECT_DOUBLE_EQ(nv.backward, 836'763'648);      // 8192·14336 × 7.125
  EXPECT_EQ(f8::kept_in_bf16(f8::kNvfp4, 32), 5);  // round(32 × 10/62)
  EXPECT_EQ(f8::kept_in_bf16(f8::kNvfp4, 62), 10);
  EXPECT_EQ(f8::kept_in_bf16(f8::kMxfp8, 32), 0);
}

// Llama 3 8B trained on a B200 (one 4,096-token sequence, checkpointed): every linear GEMM is
// compute-bound in bf16, fp8 and nvfp4, so with C their compute time at the BF16 rate (2,250
// TFLOPS), fp8 saves C/2 (4,500 TFLOPS) and nvfp4 C·(1 − 27/32 · 1/4 − 5/32) = C·81/128: 27 of 32
// layers at the FP4 rate (9,000 TFLOPS), the 5 the recipe keeps in BF16 at 2,250. The LM head and
// the kernel launches are the same in all three.
TEST(PerfModel, Nvfp4RunsTheLinearGemmsAtTheFp4RateOutsideTheBf16Layers) {
  RunConfig c;
  c.mode = "train";
  c.batch = 1;
  c.seq_len = 4096;
  c.checkpointing = true;
  auto gemm = [&](const char* precision) {
    c.precision = precision;
    return term(run("llama-3-8b", "b200-sxm-192gb", c), "gemm");
  };
  const double bf16 = gemm("bf16"), fp8 = gemm("fp8"), nvfp4 = gemm("nvfp4");
  const double mxfp8 = gemm("mxfp8");
  const double c_bf16 = 2 * (bf16 - fp8);
  EXPECT_NEAR(bf16 - nvfp4, c_bf16 * 81 / 128, 1e-9);
  EXPECT_NEAR(mxfp8, fp8, 1e-12);  // MXFP8 at the FP8 rate
  // C is at least the linear FLOPs (4 passes of 2 × 6,979,321,856 × 4,096: forward twice under
  // checkpointing, backward twice the forward) at 2,250 TFLOPS × 0.8: 127 ms, within the tiles'
  // wave quantization.
  const double ideal = 4 * 2 * 6'979'321'856.0 * 4096 / (2250e12 * 0.8);
  EXPECT_GE(c_bf16, ideal);
  EXPECT_LT(c_bf16, 1.1 * ideal);
}

TEST(PerfModel, BlockScaledTrainingOnAGpuWithoutItIsRefusedWithTheGpusThatRunIt) {
  RunConfig c;
  c.mode = "train";
  c.batch = 1;
  c.seq_len = 4096;
  c.checkpointing = true;
  c.precision = "nvfp4";
  auto p = predict(**zoo().find("llama-3-8b"), *catalog().gpu("h100-sxm5-80gb"), c, flat(0.8, 0.8),
                   catalog());
  ASSERT_FALSE(p.ok());
  const std::string& why = p.status().message();
  EXPECT_NE(why.find("h100-sxm5-80gb (hopper, compute capability 9.0) has none"), std::string::npos)
      << why;
  EXPECT_NE(why.find("b200-sxm-192gb, gb200-nvl72, gb300-nvl72"), std::string::npos) << why;
  EXPECT_NE(why.find("--precision fp8"), std::string::npos) << why;
  c.precision = "mxfp8";
  p = predict(**zoo().find("llama-3-8b"), *catalog().gpu("h100-sxm5-80gb"), c, flat(0.8, 0.8),
              catalog());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("MXFP8BlockScaling"), std::string::npos);
  // A Blackwell GPU runs both, and says what it assumed.
  const Prediction b200 = run("llama-3-8b", "b200-sxm-192gb", c);
  EXPECT_NE(b200.note.find("Transformer Engine's MXFP8BlockScaling recipe assumed"),
            std::string::npos)
      << b200.note;
  EXPECT_NE(b200.note.find("no measured run in validation/ checks mxfp8"), std::string::npos);
}

// FP8 training needs FP8 tensor cores (Transformer Engine and torchao float8 run it from Ada and
// Hopper on): an A100 has none, and a run there is refused rather than run at the BF16 rate
// with the casts paid for.
TEST(PerfModel, Fp8TrainingOnAGpuWithoutAnFp8RateIsRefused) {
  RunConfig c;
  c.mode = "train";
  c.batch = 1;
  c.seq_len = 2048;
  c.precision = "fp8";
  auto p = predict(**zoo().find("llama-3.2-1b"), *catalog().gpu("a100-sxm4-80gb"), c,
                   flat(0.8, 0.8), catalog());
  ASSERT_FALSE(p.ok());
  const std::string& why = p.status().message();
  EXPECT_NE(why.find("fp8 training runs its linear layers' GEMMs on FP8 tensor cores"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("a100-sxm4-80gb (ampere, compute capability 8.0) has none"), std::string::npos)
      << why;
  EXPECT_NE(why.find("h100-sxm5-80gb"), std::string::npos) << why;
  EXPECT_NE(why.find("On a100-sxm4-80gb: --precision bf16"), std::string::npos) << why;
  EXPECT_TRUE(predict(**zoo().find("llama-3.2-1b"), *catalog().gpu("rtx-4090"), c, flat(0.8, 0.8),
                      catalog())
                  .ok());
}

// FP8 training runs the linear layers' GEMMs in FP8 and the rest in BF16 (fp8_training.h), and
// casts the linear layers' operands. Llama 3.2 1B (hidden 2048, 8 KV heads of 64, MLP 8192,
// 16 layers) at one sequence of 2048 tokens on an H100: per layer its seven linear layers cast
// 102,760,448 operand elements forward (q, o 2048·2048 + 2048·2048; k, v 2048·2048 + 2048·512;
// gate, up 2048·2048 + 2048·8192; down 2048·8192 + 8192·2048) and 48,234,496 output-gradient
// elements backward, 6 B each: 14,495,514,624 B over 16 layers at 3350 GB/s × 0.8, plus a
// 5 µs launch per kernel (4 forward, 2 backward, 7 linears, 16 layers): 8.77 ms more of
// elementwise time. Attention stays at the BF16 rate: its time does not move.
TEST(PerfModel, Fp8TrainingRunsOnlyTheLinearLayersInFp8AndPaysForTheirCasts) {
  RunConfig c;
  c.mode = "train";
  c.batch = 1;
  c.seq_len = 2048;
  c.precision = "bf16";
  const Prediction bf16 = run("llama-3.2-1b", "h100-sxm5-80gb", c);
  c.precision = "fp8";
  const Prediction fp8 = run("llama-3.2-1b", "h100-sxm5-80gb", c);
  const double cast_bytes = 16 * (102'760'448.0 + 48'234'496.0) * 6;
  EXPECT_DOUBLE_EQ(cast_bytes, 14'495'514'624);
  const double cast_s = cast_bytes / (3350e9 * 0.8) + 16 * 7 * (4 + 2) * 5e-6;
  EXPECT_NEAR(term(fp8, "elementwise") + term(fp8, "launch") - term(bf16, "elementwise") -
                  term(bf16, "launch"),
              cast_s, 1e-9);
  EXPECT_NEAR(term(fp8, "attention"), term(bf16, "attention"), 1e-12);
  // The linear GEMMs at up to twice the rate, the LM head's at the same: faster, under 2x.
  EXPECT_LT(term(fp8, "gemm"), term(bf16, "gemm"));
  EXPECT_GT(term(fp8, "gemm"), term(bf16, "gemm") / 2);
  // At 2,048 tokens a step the casts cost about what the FP8 GEMMs save (models.md §2.10: FP8
  // gains nothing below about 4k tokens per GPU); at 8 sequences FP8 is faster, by less than 2x.
  c.batch = 8;
  const double fp8_8 = run("llama-3.2-1b", "h100-sxm5-80gb", c).throughput;
  c.precision = "bf16";
  const double bf16_8 = run("llama-3.2-1b", "h100-sxm5-80gb", c).throughput;
  EXPECT_GT(fp8_8, 1.1 * bf16_8);
  EXPECT_LT(fp8_8, 2 * bf16_8);
}

TEST(PerfModel, HigherEfficiencyIsNeverSlower) {
  RunConfig c;
  c.precision = "bf16";
  c.batch = 4;
  c.seq_len = 1024;
  const double slow = run("gpt2", "a100-sxm4-80gb", c, flat(0.5, 0.5)).throughput;
  const double fast = run("gpt2", "a100-sxm4-80gb", c, flat(0.9, 0.9)).throughput;
  EXPECT_GT(fast, slow);
  EXPECT_LT(fast / slow, 0.9 / 0.5 + 1e-9);
}

// A card whose chip needs more than its board power to hold its rated clocks runs as that chip
// under a power cap. The A10 is a GA102 on 150 W, where the A40's 300 W at the A10's 72 SMs and
// 1,695 MHz is 250 W (the catalog's full_clock_power_w): at 0.6 of that power it runs at
// 0.6^0.33 = 0.845 of the speed of the same card with the power to hold its clocks. Only the 5 µs
// launches (under 1% of a ResNet-50 step at batch 256) do not slow.
TEST(PerfModel, ACardWhoseBoardPowerHoldsItsChipBackRunsAsUnderAPowerCap) {
  RunConfig c;
  c.precision = "fp16";
  c.batch = 256;
  const Workload& w = **zoo().find("resnet50");
  const Gpu& a10 = *catalog().gpu("a10");
  ASSERT_EQ(a10.full_clock_power_w, 250);
  Gpu unlimited = a10;
  unlimited.full_clock_power_w.reset();
  auto held = predict(w, a10, c, flat(0.8, 0.8), catalog());
  auto free = predict(w, unlimited, c, flat(0.8, 0.8), catalog());
  ASSERT_TRUE(held.ok() && free.ok());
  EXPECT_NEAR(held->throughput / free->throughput, 0.845, 0.002);
  EXPECT_NE(held->note.find("150 W holds a10's chip below its rated clocks, which need 250 W: it "
                            "runs at 84% of its rated speed"),
            std::string::npos)
      << held->note;
  EXPECT_EQ(free->note.find("rated clocks"), std::string::npos) << free->note;
}

TEST(PerfModel, ARunThatDoesNotFitHasNoThroughputAndSaysWhatFits) {
  // ResNet-50 at batch 256 in fp32 on 8 V100 SXM2 16 GB (Lambda's p3.16xlarge run used batch
  // 148, validation/throughput.csv): the memory model's peak per GPU against 16 GiB = 17.18 GB.
  const Workload& w = **zoo().find("resnet50");
  const Gpu& gpu = *catalog().gpu("v100-sxm2-16gb");
  RunConfig c;
  c.precision = "fp32";
  c.batch = 256;
  c.gpus = 8;
  const auto memory = estimate_memory(w, gpu, c);
  ASSERT_TRUE(memory.ok());
  const Prediction p = run("resnet50", "v100-sxm2-16gb", c);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.bound, "capacity");
  EXPECT_EQ(p.throughput, 0);
  EXPECT_EQ(p.step_time_s, 0);
  EXPECT_DOUBLE_EQ(p.memory_gb, memory->total_gb);
  EXPECT_NEAR(p.capacity_gb, 16 * 1.073741824, 1e-9);
  EXPECT_EQ(p.max_batch, memory->max_batch);
  EXPECT_NEAR(p.memory_gb, 24.4, 0.05);
  EXPECT_EQ(p.max_batch, 173);
  EXPECT_EQ(p.note,
            "does not fit: needs 24.4 GB per GPU of the 17.2 GB of v100-sxm2-16gb; batch 173 per "
            "GPU is the largest that fits (--batch 173); --offload cpu streams what does not fit "
            "from host memory over PCIe, slower");
  // At the largest batch that fits it runs.
  c.batch = p.max_batch;
  EXPECT_TRUE(run("resnet50", "v100-sxm2-16gb", c).fits);
}

TEST(PerfModel, ARunThatDoesNotFitAtBatchOneSaysWhatWouldMakeItFit) {
  RunConfig c;
  c.batch = 1;
  c.seq_len = 512;
  const Prediction p = run("llama-2-7b", "rtx-4090", c);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.throughput, 0);
  EXPECT_EQ(p.max_batch, 0);
  EXPECT_EQ(
      p.fits_with,
      estimate_memory(**zoo().find("llama-2-7b"), *catalog().gpu("rtx-4090"), c)->suggestions);
  EXPECT_EQ(p.note,
            "does not fit: needs 131.1 GB of the 25.8 GB of rtx-4090; not even batch 1 fits; it "
            "would with --method lora (18.4 GB), or --method qlora (9.2 GB), or --method qlora "
            "--checkpointing (5.6 GB), or --zero 3 --offload cpu (20.3 GB; 94.3 GB in host "
            "memory per GPU), or 8 GPUs with --zero 3 (21.0 GB each); --offload cpu streams what "
            "does not fit from host memory over PCIe, slower");
}

TEST(PerfModel, OffloadCpuStreamsWhatDoesNotFitAndSaysSo) {
  RunConfig c;
  c.batch = 1;
  c.seq_len = 512;
  c.offload = "cpu";
  const Prediction p = run("llama-2-7b", "rtx-4090", c);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.bound, "capacity");
  EXPECT_GT(p.throughput, 0);
  // The excess crosses PCIe 4.0 x16 (31.5 GB/s, data/catalog/interconnects.toml, at 80%) there
  // and back each step.
  const double excess_gb = p.memory_gb - p.capacity_gb;
  const auto offload = std::find_if(p.terms.begin(), p.terms.end(),
                                    [](const PerfTerm& t) { return t.name == "offload"; });
  ASSERT_NE(offload, p.terms.end());
  EXPECT_NEAR(offload->seconds, excess_gb * 2 / (31.5 * 0.8), 1e-9);
  EXPECT_NE(p.note.find("streamed from host memory over PCIe 4.0 x16 each step (--offload cpu)"),
            std::string::npos)
      << p.note;
}

// Llama 3 8B (8,030,261,248 parameters) on 4 A100 SXM4 80 GB under ZeRO-3 with --offload cpu:
// each GPU's shard of 2.008e9 parameters crosses PCIe 4.0 x16 as 16-bit gradients out and
// weights back (2 × 2 B) and as 16-bit weights in for the forward and the backward (2 × 2 B):
// 16.06 GB a step, 0.637 s at 31.5 GB/s × 0.8. The optimizer runs on the host's CPU, which
// the model does not time: the GPU's optimizer term is 0, and the note says so.
TEST(PerfModel, AnOffloadedOptimizerStepIsNotTimedAndTheNoteSaysSo) {
  RunConfig c;
  c.gpus = 4;
  c.zero = 3;
  c.offload = "cpu";
  c.batch = 1;
  c.seq_len = 8192;
  const Prediction p = run("llama-3-8b", "a100-sxm4-80gb", c);
  ASSERT_TRUE(p.fits);
  const double shard = 8'030'261'248.0 / 4;
  const auto offload = std::find_if(p.terms.begin(), p.terms.end(),
                                    [](const PerfTerm& t) { return t.name == "offload_traffic"; });
  ASSERT_NE(offload, p.terms.end());
  EXPECT_NEAR(offload->bytes, shard * 2 * 2 + shard * 2 * 2, 1);
  EXPECT_NEAR(offload->seconds, shard * 8 / (31.5e9 * 0.8), 1e-9);
  EXPECT_EQ(term(p, "optimizer"), 0);
  EXPECT_NE(p.note.find("16.1 GB per step over PCIe 4.0 x16 for the offload; the optimizer step "
                        "that the host's CPU runs is not counted"),
            std::string::npos)
      << p.note;
}

TEST(PerfModel, ACardThatCannotHoldTheBatchRunsTheLargestThatFitsWhenAsked) {
  // ResNet-50 at batch 384 in fp16 needs about 18 GB; the RTX 4070 Ti has 12.
  const Workload& w = **zoo().find("resnet50");
  const Gpu& gpu = *catalog().gpu("rtx-4070-ti");
  RunConfig c;
  c.batch = 384;
  const auto not_fitting = predict_largest_fitting(w, gpu, c, flat(0.8, 0.8), catalog(), false);
  ASSERT_TRUE(not_fitting.ok());
  EXPECT_FALSE(not_fitting->fits);
  EXPECT_EQ(not_fitting->throughput, 0);
  c.offload = "cpu";
  const auto offloaded = predict_largest_fitting(w, gpu, c, flat(0.8, 0.8), catalog(), false);
  ASSERT_TRUE(offloaded.ok());
  EXPECT_FALSE(offloaded->fits);
  EXPECT_EQ(offloaded->bound, "capacity");
  c.offload = "none";
  const auto shrunk = predict_largest_fitting(w, gpu, c, flat(0.8, 0.8), catalog(), true);
  ASSERT_TRUE(shrunk.ok());
  EXPECT_TRUE(shrunk->fits);
  EXPECT_EQ(*shrunk->config.batch, estimate_memory(w, gpu, c)->max_batch);
  EXPECT_EQ(*shrunk->config.batch, not_fitting->max_batch);
  EXPECT_LT(*shrunk->config.batch, 384);
  EXPECT_GT(*shrunk->config.batch, 100);
  // Images per second barely depend on the batch once it fills the GPU; offloading costs more.
  EXPECT_GT(shrunk->throughput, 1.5 * offloaded->throughput);
}

TEST(PerfModel, CalibrationKeysFollowMemoryAndTensorAccumulateRate) {
  EXPECT_EQ(calibration_key(*catalog().gpu("a100-sxm4-80gb")), "ampere-hbm");
  EXPECT_EQ(calibration_key(*catalog().gpu("rtx-a6000")), "ampere-gddr");
  // GeForce: FP32-accumulate tensor math at half the FP16-accumulate rate (71 of 142 TFLOPS).
  EXPECT_EQ(calibration_key(*catalog().gpu("rtx-3090")), "ampere-geforce");
  EXPECT_EQ(calibration_key(*catalog().gpu("rtx-2080-ti")), "turing-geforce");
  // The Titan RTX is sold as a consumer card but runs both at 130.5 TFLOPS, like the Quadro RTX
  // 6000 of the same chip (and measures 1.02× it, median of 20 runs in Lambda's benchmark).
  EXPECT_EQ(calibration_key(*catalog().gpu("titan-rtx")), "turing-gddr");
  // No tensor cores at all.
  EXPECT_EQ(calibration_key(*catalog().gpu("gtx-1080-ti")), "pascal-gddr");
}

TEST(PerfModel, TheEmbeddedCalibrationCoversEveryMeasuredGeneration) {
  const Calibration& c = embedded_calibration();
  // The GPUs of validation/throughput.csv span these keys.
  for (const char* key : {"ampere-hbm", "ampere-gddr", "ampere-geforce", "hopper-hbm", "volta-hbm",
                          "turing-gddr", "turing-geforce", "pascal-gddr"}) {
    bool found = false;
    for (const auto& a : c.archs) found = found || a.architecture == key;
    EXPECT_TRUE(found) << key;
  }
  EXPECT_GT(c.error_band.at("cnn"), 0);
}

// Keys with distinct efficiencies, so that which one a GPU borrows shows in its values.
Calibration keyed() {
  Calibration c;
  c.archs = {{"ampere-hbm", 0.8, 0.6, 1.0, "test"},
             {"hopper-hbm", 0.5, 0.7, 1.0, "test"},
             {"ampere-geforce", 1.0, 1.0, 1.0, "test"},
             {"turing-geforce", 0.9, 0.9, 1.0, "test"},
             {"ampere-gddr", 0.7, 0.5, 1.0, "test"}};
  c.error_band = {{"cnn", 0.1}};
  c.borrowed_error_band = {{"cnn", 0.4}};
  return c;
}

TEST(Calibration, AnArchitectureNoRunCoversTakesTheMedianGemmAndItsClassMemory) {
  Calibration c = keyed();
  // The H100 has its own key.
  const ArchCalibration h100 = c.for_gpu(*catalog().gpu("h100-sxm5-80gb"));
  EXPECT_EQ(h100.gemm_efficiency, 0.5);
  EXPECT_EQ(h100.borrowed_from, "");
  // ada-geforce: GEMM the median of the five keys' 0.5, 0.7, 0.8, 0.9, 1.0; memory the median of
  // the two geforce keys' 1.0 and 0.9, never a key of another class.
  const ArchCalibration ada = c.for_gpu(*catalog().gpu("rtx-4090"));
  EXPECT_EQ(ada.architecture, "ada-geforce");
  EXPECT_EQ(ada.borrowed_from, "geforce");
  EXPECT_DOUBLE_EQ(ada.gemm_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(ada.memory_efficiency, (1.0 + 0.9) / 2);
  EXPECT_DOUBLE_EQ(ada.tf32_efficiency, 1.0);
  // blackwell-hbm: memory the median of ampere-hbm's 0.6 and hopper-hbm's 0.7; GEMM the median
  // 0.8, held to the B200's measured ceiling when that is lower.
  const ArchCalibration b200 = c.for_gpu(*catalog().gpu("b200-sxm-192gb"));
  EXPECT_EQ(b200.borrowed_from, "hbm");
  EXPECT_DOUBLE_EQ(b200.memory_efficiency, (0.6 + 0.7) / 2);
  EXPECT_DOUBLE_EQ(b200.gemm_efficiency, 0.8);
  c.gemm_ceilings["blackwell-hbm"] = 0.776;
  EXPECT_DOUBLE_EQ(c.for_gpu(*catalog().gpu("b200-sxm-192gb")).gemm_efficiency, 0.776);
  // With no fitted key of its class, memory is the mean of all.
  Calibration hbm_only;
  hbm_only.archs = {c.archs[0], c.archs[1]};
  const ArchCalibration mean = hbm_only.for_gpu(*catalog().gpu("rtx-4090"));
  EXPECT_EQ(mean.borrowed_from, kMeanOfFitted);
  EXPECT_DOUBLE_EQ(mean.gemm_efficiency, (0.8 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(mean.memory_efficiency, (0.6 + 0.7) / 2);
}

// The shipped calibration (data/calibration/perf.toml): GEMM and TF32 the median of the eight
// fitted keys (0.564, 0.782, 0.797, 0.813, 0.940 and three at 1.000: (0.813 + 0.940) / 2), memory
// the median of the class's keys.
TEST(Calibration, TheShippedCalibrationGivesAdaAndBlackwellTheseEfficiencies) {
  const Calibration& c = embedded_calibration();
  const ArchCalibration ada = c.for_gpu(*catalog().gpu("rtx-4090"));
  EXPECT_NEAR(ada.gemm_efficiency, (0.813 + 0.940) / 2, 1e-9);
  EXPECT_NEAR(ada.memory_efficiency, 1.0, 1e-9);  // ampere-geforce and turing-geforce
  EXPECT_NEAR(ada.tf32_efficiency, 1.0, 1e-9);
  const ArchCalibration l40s = c.for_gpu(*catalog().gpu("l40s"));
  EXPECT_EQ(l40s.architecture, "ada-gddr");
  EXPECT_NEAR(l40s.memory_efficiency, 0.752, 1e-9);  // pascal 0.519, turing 0.752, ampere 0.975
  const ArchCalibration b200 = c.for_gpu(*catalog().gpu("b200-sxm-192gb"));
  EXPECT_NEAR(b200.gemm_efficiency, 0.786, 1e-9);    // blackwell-hbm's ceiling, below 0.8765
  EXPECT_NEAR(b200.memory_efficiency, 0.707, 1e-9);  // volta 0.707, ampere 0.696, hopper 0.749
}

TEST(PerfModel, ABorrowedCalibrationIsSaidAndCarriesItsOwnErrorBand) {
  RunConfig config;
  config.precision = "fp16";
  config.batch = 64;
  const Prediction ada = run("resnet50", "rtx-4090", config, keyed());
  EXPECT_NE(ada.note.find("no measured run covers rtx-4090's architecture (ada-geforce): its GEMM "
                          "efficiency is the median of the fitted architectures', its memory "
                          "efficiency the median of the fitted geforce ones'"),
            std::string::npos)
      << ada.note;
  EXPECT_EQ(ada.error_band, 0.4);  // leave-one-architecture-out
  const Prediction ampere = run("resnet50", "rtx-3090", config, keyed());
  EXPECT_EQ(ampere.note.find("no measured run covers"), std::string::npos) << ampere.note;
  EXPECT_EQ(ampere.error_band, 0.1);
}

TEST(Calibration, ABadFileNamesTheSectionTheFieldAndTheAcceptedRange) {
  auto bad = load_calibration({{"perf.toml",
                                "[[workload]]\nworkload = \"resnet50\"\nefficiency = -1\nrows = 3\n"
                                "fitted_on = \"x\"\n\n[[archs]]\n"}});
  ASSERT_FALSE(bad.ok());
  const std::string message = bad.status().message();
  // At its line: the entries were copied out of the parsed file, which dropped where they were
  // read ("<input>:0:0").
  EXPECT_NE(message.find("perf.toml:3:14: workload: field 'efficiency'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("> 0"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown section 'archs'"), std::string::npos) << message;
}

TEST(Calibration, AWorkloadsFrameworkMustBeAFrameworkSection) {
  const std::string framework =
      "[[framework]]\nframework = \"eager-fsdp\"\ncovers = [\"fsdp\"]\nlevel = 0.8\nrows = 3\n"
      "fitted_on = \"x\"\n\n";
  const std::string workload =
      "[[workload]]\nworkload = \"mpt-7b\"\nefficiency = 0.9\nrows = 3\nfitted_on = \"x\"\n";
  ASSERT_TRUE(
      load_calibration({{"perf.toml", framework + workload + "framework = \"eager-fsdp\"\n"}})
          .ok());
  // A stack the framework covers is not its id, and a misspelt id is refused at its line.
  auto bad =
      load_calibration({{"perf.toml", framework + workload + "framework = \"eager-fdsp\"\n"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "perf.toml:8:1: workload: framework 'eager-fdsp' is not a [[framework]]; expected "
                "'eager-fsdp' (did you mean 'eager-fsdp'?)"),
            std::string::npos)
      << bad.status().message();
}

// A framework's pointwise operators are fused unless it says "decomposed"; another word is
// refused with the accepted ones.
TEST(Calibration, AFrameworksPointwiseOperatorsAreFusedOrDecomposed) {
  const std::string framework =
      "[[framework]]\nframework = \"eager-fsdp\"\ncovers = [\"fsdp\"]\nlevel = 0.8\nrows = 3\n"
      "fitted_on = \"x\"\n";
  auto fused = load_calibration({{"perf.toml", framework}});
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(fused->frameworks.at(0).pointwise, "fused");
  auto decomposed = load_calibration({{"perf.toml", framework + "pointwise = \"decomposed\"\n"}});
  ASSERT_TRUE(decomposed.ok()) << decomposed.status().message();
  EXPECT_EQ(decomposed->frameworks.at(0).pointwise, "decomposed");
  EXPECT_EQ((*embedded_calibration().framework("torchtitan"))->pointwise, "decomposed");
  EXPECT_EQ((*embedded_calibration().framework("megatron"))->pointwise, "fused");
  auto bad = load_calibration({{"perf.toml", framework + "pointwise = \"decomposd\"\n"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("perf.toml:7:"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("did you mean 'decomposed'"), std::string::npos)
      << bad.status().message();
}

TEST(Calibration, TheEmbeddedOneCarriesTheMeasuredWorkloads) {
  const Calibration& c = embedded_calibration();
  // Tacotron 2's decoder runs one Python-driven step per mel frame: far below the roofline.
  EXPECT_LT(c.workload_efficiency("tacotron2"), 0.3);
  EXPECT_GT(c.workload_efficiency("resnet50"), 0.3);
  EXPECT_EQ(c.workload_efficiency("llama-2-7b"), 1);  // never measured: the operator model alone
}

TEST(Calibrate, FitRecoversTheRatiosOfTheCalibrationThatGeneratedTheData) {
  // Synthetic measurements made by the model itself at a known calibration: the fit moves the
  // starting guess towards it. It fits ratios to the group's ref row, which are unchanged when
  // every efficiency scales together, so the test checks the H100 / A100 ratio.
  const Calibration truth = flat(0.6, 0.7);
  std::vector<ThroughputSample> samples;
  RunConfig c;  // a compute-bound training step, so the GEMM efficiency matters
  c.precision = "bf16";
  c.batch = 8;
  c.seq_len = 1024;
  for (const char* gpu : {"a100-sxm4-80gb", "rtx-3090", "h100-sxm5-80gb"}) {
    ThroughputSample s{*zoo().find("gpt2"), catalog().gpu(gpu), c, 0, 0};
    s.measured = run("gpt2", gpu, c, truth).throughput;
    samples.push_back(s);
  }
  for (auto& s : samples) s.ref = 0;
  Calibration start = flat(0.6, 0.7);
  start.archs[2].gemm_efficiency = 0.95;  // hopper starts wrong
  const Calibration fitted = fit_calibration(samples, {true, true, true}, start, catalog());
  auto ratio_error = [&](const Calibration& cal) {
    const double h100 = run("gpt2", "h100-sxm5-80gb", c, cal).throughput;
    const double a100 = run("gpt2", "a100-sxm4-80gb", c, cal).throughput;
    return std::abs((h100 / a100) / (samples[2].measured / samples[0].measured) - 1);
  };
  const double before = ratio_error(start), after = ratio_error(fitted);
  EXPECT_LT(after, before / 2);
}

TEST(Calibrate, AFittedGemmEfficiencyStaysUnderTheBestMeasuredMatmul) {
  // Measurements made at an A100 GEMM efficiency of 1.0 against an H100 at 0.6 pull ampere-hbm
  // upward; the fit stops at the best bf16 matmul measured on an A100, 271.2 of 312 TFLOP/s
  // (data/calibration/gemm_ceiling.toml). A key without a measurement keeps the bound 1.
  const Calibration& shipped = embedded_calibration();
  EXPECT_DOUBLE_EQ(shipped.gemm_ceiling("ampere-hbm"), 0.869);
  EXPECT_DOUBLE_EQ(shipped.gemm_ceiling("volta-hbm"), 1.0);
  // Each of the file's four rows names a catalog GPU's key: a misspelt key would bound nothing.
  std::set<std::string> keys;
  for (const auto& g : catalog().gpus) keys.insert(calibration_key(g));
  const auto bounded = std::count_if(keys.begin(), keys.end(), [&](const std::string& k) {
    return shipped.gemm_ceiling(k) < 1.0;
  });
  EXPECT_EQ(bounded, 4);
  Calibration truth = flat(0.6, 0.7);
  truth.archs[0].gemm_efficiency = 1.0;  // ampere-hbm, beyond what any A100 reaches
  RunConfig c;
  c.precision = "bf16";
  c.batch = 8;
  c.seq_len = 1024;
  std::vector<ThroughputSample> samples;
  for (const char* gpu : {"h100-sxm5-80gb", "a100-sxm4-80gb", "a100-pcie-80gb"}) {
    ThroughputSample s{*zoo().find("gpt2"), catalog().gpu(gpu), c, 0, 0};
    s.measured = run("gpt2", gpu, c, truth).throughput;
    samples.push_back(s);
  }
  Calibration start = flat(0.6, 0.7);
  start.archs[0].gemm_efficiency = 0.86;
  const Calibration fitted = fit_calibration(samples, {true, true, true}, start, catalog());
  EXPECT_DOUBLE_EQ(fitted.for_arch("ampere-hbm").gemm_efficiency, 0.869);
  EXPECT_LE(fitted.for_arch("hopper-hbm").gemm_efficiency, shipped.gemm_ceiling("hopper-hbm"));
}

TEST(Calibrate, TheGemmCeilingsOfALoadedFileBoundTheFitThatStartsFromIt) {
  auto loaded =
      load_calibration({{"gemm_ceiling.toml",
                         "[[gemm_ceiling]]\narchitecture = \"hopper-hbm\"\ngemm_efficiency = 0.7\n"
                         "measured_on = \"x\"\nsource = \"y\"\n"}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_DOUBLE_EQ(loaded->gemm_ceiling("hopper-hbm"), 0.7);
  EXPECT_DOUBLE_EQ(loaded->gemm_ceiling("ampere-hbm"), 1.0);  // not in this file
  EXPECT_DOUBLE_EQ(fit_prior(*loaded).gemm_ceiling("hopper-hbm"), 0.7);
}

// ResNet-50 at fp16 and batch 64 on three GPUs, each measured at half the throughput `truth`
// predicts, its rows naming `framework`.
std::vector<ThroughputSample> resnet50_at_half_speed(const Calibration& truth,
                                                     const std::string& framework = "") {
  RunConfig config;
  config.precision = "fp16";
  config.batch = 64;
  std::vector<ThroughputSample> samples;
  for (const char* gpu : {"a100-sxm4-80gb", "rtx-a6000", "h100-sxm5-80gb"}) {
    ThroughputSample s{*zoo().find("resnet50"), catalog().gpu(gpu), config, 0, 0};
    s.measured = run("resnet50", gpu, config, truth).throughput / 2;
    s.run.framework = framework;
    samples.push_back(s);
  }
  return samples;
}

TEST(Calibrate, AWorkloadMeasuredAtHalfTheModelsSpeedGetsEfficiencyOneHalf) {
  // The measurements are the model's own throughput at the fitted calibration, halved: the
  // efficiency of the workload is the median measured / predicted ratio, 0.5.
  const Calibration c = flat(0.8, 0.8);
  const std::vector<ThroughputSample> samples = resnet50_at_half_speed(c);
  const Calibration fitted = fit_calibration(samples, {true, true, true}, c, catalog());
  ASSERT_EQ(fitted.workloads.size(), 1u);
  EXPECT_EQ(fitted.workloads[0].workload, "resnet50");
  EXPECT_EQ(fitted.workloads[0].rows, 3);
  // The ratios already match, so the architecture efficiencies stay where they start.
  EXPECT_NEAR(fitted.workloads[0].efficiency, 0.5, 1e-9);
}

TEST(Calibrate, AFrameworkNoRowNamesKeepsTheLevelItWasFittedToElsewhere) {
  // ResNet-50 measured at half the model's speed, its rows naming eager-fsdp: that level is
  // fitted here (0.5, 3 rows, fitted_on cleared for the file's own words); torchtitan's, named by
  // no row, keeps its level, rows and reason, as the shipped one fitted on validation/cluster.csv
  // does; the reference keeps its own.
  const Calibration truth = flat(0.8, 0.8);
  const std::vector<ThroughputSample> samples = resnet50_at_half_speed(truth, "eager-fsdp");
  Calibration start = truth;
  start.frameworks = {{"megatron", {}, 1, 0, "reference"},
                      {"eager-fsdp", {"fsdp"}, 0.8, 100, "earlier fit"},
                      {"torchtitan", {}, 0.872, 8, "cluster runs"}};
  const Calibration fitted = fit_calibration(samples, {true, true, true}, start, catalog());
  ASSERT_EQ(fitted.frameworks.size(), 3u);
  const FrameworkCalibration& megatron = fitted.frameworks[0];
  const FrameworkCalibration& eager = fitted.frameworks[1];
  const FrameworkCalibration& torchtitan = fitted.frameworks[2];
  EXPECT_EQ(megatron.level, 1);
  EXPECT_EQ(megatron.fitted_on, "reference");
  EXPECT_NEAR(eager.level, 0.5, 1e-9);
  EXPECT_EQ(eager.rows, 3);
  EXPECT_EQ(eager.fitted_on, "");
  EXPECT_DOUBLE_EQ(torchtitan.level, 0.872);
  EXPECT_EQ(torchtitan.rows, 8);
  EXPECT_EQ(torchtitan.fitted_on, "cluster runs");
}

TEST(PerfModel, AWorkloadEfficiencyScalesThatWorkloadsOperatorTimes) {
  Calibration c = flat(0.8, 0.8);
  RunConfig one;
  one.precision = "fp16";
  one.batch = 64;
  const Prediction plain = run("resnet50", "a100-sxm4-80gb", one, c);
  c.workloads.push_back({"resnet50", 0.5, 10, "test"});
  const Prediction halved = run("resnet50", "a100-sxm4-80gb", one, c);
  EXPECT_NEAR(halved.throughput, plain.throughput / 2, 1e-9 * plain.throughput);
  EXPECT_EQ(halved.bound, plain.bound);
  EXPECT_NE(halved.note.find("divided by 0.5"), std::string::npos) << halved.note;
  // Another workload is untouched.
  EXPECT_EQ(run("ssd300", "a100-sxm4-80gb", one, c).throughput,
            run("ssd300", "a100-sxm4-80gb", one, flat(0.8, 0.8)).throughput);
}

// NCF (data/workloads/networks.toml) trains by streaming: per sample the forward reads and
// writes its 384 embedding values (3,072 B in fp32) and 1,344 elementwise values (10,752 B), and
// its four Linears read their input twice (it spills from L2) and write their output:
// 256·4·2 + 256·4, 256·4·2 + 128·4, 128·4·2 + 64·4, 128·4·2 + 1·4 = 7,940 B. Backward moves it
// twice more: 3 · 21,764 = 65,292 B, plus the dense AdamW update, 30 B for each of the 31.8M
// parameters, over the batch: 31,832,577 · 30 / 8e6 = 119 B. Every operator is memory-bound on
// the A100 SXM4 80GB, so at 2039 GB/s × 0.8 it trains 1.631e12 / 65,411 = 24.94M samples/s
// (Lambda measured 28.65M at this batch; the workload's measured speed, 1.2, is not in `flat`).
// AMP halves the streamed bytes but not the fp32 optimizer's: 1.63e12 / (32,646 + 119) = 49.8M.
TEST(PerfModel, NcfTrainingStreamsItsEmbeddingsAndActivations) {
  RunConfig c;
  c.precision = "fp32";
  c.batch = 8'000'000;
  const Prediction fp32 = run("ncf", "a100-sxm4-80gb", c);
  EXPECT_EQ(fp32.bound, "memory");
  EXPECT_NEAR(fp32.throughput, 24.94e6, 0.005 * 24.94e6);
  c.precision = "fp16";
  const Prediction amp = run("ncf", "a100-sxm4-80gb", c);
  EXPECT_EQ(amp.bound, "memory");
  EXPECT_NEAR(amp.throughput, 49.8e6, 0.005 * 49.8e6);
}

// PyTorch DDP copies each gradient into its bucket (divided by the world size on the way) and
// back after the all-reduce: 2 reads and 2 writes of NCF's 31,832,577 fp32 gradients under AMP,
// 31,832,577 × 4 B × 4 = 509,321,232 B a step at any batch. On an A100 SXM4 40GB (1555 GB/s,
// at 0.8 here) that is 509.32e6 / 1244e9 = 409.42 µs of elementwise time and 2 launches of 5 µs
// that 8 GPUs spend and 1 does not. DeepLearningExamples' strong scaling at 131,072
// samples per GPU is where it shows: a step of the other operators is only a few ms.
TEST(PerfModel, DdpCopiesNcfsGradientsIntoItsBucketsAndBackOnEveryStep) {
  RunConfig c;
  c.precision = "fp16";
  c.batch = 131072;
  const Prediction one = run("ncf", "a100-sxm4-40gb", c);
  c.gpus = 8;
  const Prediction eight = run("ncf", "a100-sxm4-40gb", c);
  EXPECT_NEAR(term(eight, "elementwise") - term(one, "elementwise"), 409.42e-6, 0.01e-6);
  EXPECT_NEAR(term(eight, "launch") - term(one, "launch"), 2 * 5e-6, 0.01e-6);
  EXPECT_NE(eight.note.find("DDP copies 0.509 GB of gradients into its buckets and back"),
            std::string::npos)
      << eight.note;
  // Pure 16-bit gradients halve them; ZeRO-3's sharded parameters make none.
  c.pure_16bit = true;
  const Prediction pure = run("ncf", "a100-sxm4-40gb", c);
  EXPECT_NE(pure.note.find("DDP copies 0.255 GB"), std::string::npos) << pure.note;
  c.pure_16bit = false;
  c.zero = 3;
  EXPECT_EQ(run("ncf", "a100-sxm4-40gb", c).note.find("DDP copies"), std::string::npos);
}

// An LSTM's fused cell update moves 15 values per hidden unit and step forward and 14 backward
// (perf_constants.h, counted), one kernel each. One layer of GNMT's shape, hidden 1024 over 50
// steps at batch 128 in fp16 (2 B), on an A100 SXM4 80GB (2039 GB/s, at 0.8 here): its forward
// moves 128 · 1024 · 50 · 15 · 2 = 196,608,000 B in 196.608e6 / 1631.2e9 = 120.53 µs; a
// training step 128 · 1024 · 50 · (15 + 14) · 2 = 380,108,800 B in 233.02 µs. Nothing else of
// the layer is elementwise; the launches are a term of their own.
TEST(PerfModel, AnLstmCellUpdateMovesItsGatesAndStatesEachStep) {
  Workload w = **zoo().find("gnmt");
  Layer lstm;
  lstm.op = "lstm";
  lstm.name = "lstm";
  lstm.input_size = 1024;
  lstm.hidden_size = 1024;
  lstm.steps = 50;
  w.layers = {lstm};
  auto at_mode = [&](const char* mode) {
    RunConfig c;
    c.mode = mode;
    c.precision = "fp16";
    c.batch = 128;
    auto p = predict(w, *catalog().gpu("a100-sxm4-80gb"), c, flat(0.8, 0.8), catalog());
    EXPECT_TRUE(p.ok()) << p.status().message();
    return std::move(p).value();
  };
  const Prediction infer = at_mode("infer"), train = at_mode("train");
  EXPECT_NEAR(term(infer, "elementwise"), 120.53e-6, 0.01e-6);
  EXPECT_NEAR(term(train, "elementwise"), 233.02e-6, 0.01e-6);
  // The forward launches 151 kernels of 5 µs (kKernelOverheadS): the input projections' GEMM,
  // and per step the recurrent GEMM, whose 32 tiles split their inner dimension over the A100's
  // 108 SMs and add a reduction kernel (gemm_split_k), and the cell update: 1 + 50 · 3.
  EXPECT_NEAR(term(infer, "launch"), 151 * 5e-6, 0.001e-6);
}

// A norm whose input, the tensor the layer before it has just written, fits in half of the
// A100's 40 MB L2 reads it from L2: a norm of 1,000,000 values per sample at batch 8 in fp16 has
// a 16 MB input, so it moves only its 16,000,000 B of output to DRAM, in 16e6 / (2039e9 · 0.8)
// = 9.809 µs, beside its launch of 5 µs (kKernelOverheadS), the step's other term: the step is
// memory-bound. At batch 16 its 32 MB input does not fit in 20 MB, and it moves 64,000,000 B,
// 39.235 µs. At batch 1 its 2,000,000 B take 1.226 µs, and the launch bounds the step.
TEST(PerfModel, AnElementwiseOperatorReadsItsInputFromL2WhereItFitsInHalfOfIt) {
  Workload w = **zoo().find("gnmt");
  Layer norm;
  norm.op = "norm";
  norm.name = "norm";
  norm.elements = 1'000'000;
  w.layers = {norm};
  auto at_batch = [&](int batch) {
    RunConfig c;
    c.mode = "infer";
    c.precision = "fp16";
    c.batch = batch;
    auto p = predict(w, *catalog().gpu("a100-sxm4-80gb"), c, flat(0.8, 0.8), catalog());
    EXPECT_TRUE(p.ok()) << p.status().message();
    return std::move(p).value();
  };
  const Prediction eight = at_batch(8), sixteen = at_batch(16), one = at_batch(1);
  EXPECT_NEAR(term(eight, "elementwise"), 9.809e-6, 0.01e-6);
  EXPECT_NEAR(term(eight, "launch"), 5e-6, 0.01e-6);
  EXPECT_EQ(eight.bound, "memory");
  EXPECT_NEAR(term(sixteen, "elementwise"), 39.235e-6, 0.01e-6);
  EXPECT_NEAR(term(one, "elementwise"), 1.226e-6, 0.01e-6);
  EXPECT_NEAR(term(one, "launch"), 5e-6, 0.01e-6);
  EXPECT_EQ(one.bound, "launch");
}

// ResNet-50 at batch 256 in fp16: on the RTX 4090 (72 MB of L2, 36 MB for a tensor to stay) the
// norms and activations of its 14x14x256 and 7x7x512 tensors (25.7 and 12.8 MB) read them from
// L2, 3.2% of the elementwise bytes; on the RTX 3090 (6 MB) none. The 4090 runs it 1.372x the
// 3090 (1222.5 / 890.8 images/s, `rigplan compare resnet50 --gpus rtx-3090,rtx-4090`), at the
// borrowed GEMM efficiency 0.877 against the 3090's fitted 1.0 and the same memory efficiency.
TEST(PerfModel, Rtx4090RunsResnet50FasterThanRtx3090WithItsL2) {
  const double ada = run("resnet50", "rtx-4090", RunConfig{}, embedded_calibration()).throughput;
  const double ampere = run("resnet50", "rtx-3090", RunConfig{}, embedded_calibration()).throughput;
  EXPECT_NEAR(ada / ampere, 1.372, 0.002);
}

// A training run's facts, its step's operators included, are made once on any GPU (recommend
// makes them on the first it asks about) and predict every GPU as if made on it: the operators
// are the same everywhere, and each GPU's L2 decides what a GEMM's operands re-read. The values
// are `rigplan predict WORKLOAD --gpu GPU --json`'s throughput, rounded to 5 digits as printed.
TEST(PerfModel, OperatorsMadeOnOneGpuPredictEveryGpuAsIfMadeOnIt) {
  struct Case {
    const char* workload;
    const char* gpu;
    double throughput;  // images/s (resnet50) or tokens/s (mpt-125m)
  };
  const Case cases[] = {
      {"resnet50", "rtx-4090", 1230.9},       {"resnet50", "a100-sxm4-80gb", 1817.5},
      {"resnet50", "h100-sxm5-80gb", 3155.9}, {"resnet50", "v100-sxm2-32gb", 850.68},
      {"mpt-125m", "rtx-4090", 61947},        {"mpt-125m", "a100-sxm4-80gb", 95090},
      {"mpt-125m", "h100-sxm5-80gb", 155240}, {"mpt-125m", "v100-sxm2-32gb", 10151}};
  const Calibration& cal = embedded_calibration();
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.workload) + " on " + k.gpu);
    const Workload& w = **zoo().find(k.workload);
    const Gpu& gpu = *catalog().gpu(k.gpu);
    const RunConfig config;  // the workload's defaults, one GPU
    auto shared = run_facts(w, *catalog().gpu("rtx-3060-12gb"), config);
    ASSERT_TRUE(shared.ok()) << shared.status().message();
    ASSERT_NE(shared->operators, nullptr);
    RunFacts own = *shared;
    own.operators.reset();  // predict makes the operators on `gpu` itself
    auto reused = predict(w, gpu, config, cal, catalog(), *shared);
    auto direct = predict(w, gpu, config, cal, catalog(), own);
    ASSERT_TRUE(reused.ok() && direct.ok());
    EXPECT_EQ(reused->throughput, direct->throughput);
    EXPECT_EQ(reused->step_time_s, direct->step_time_s);
    EXPECT_EQ(reused->bound, direct->bound);
    EXPECT_NEAR(reused->throughput, k.throughput, 1e-4 * k.throughput);
  }
}

// predict_speed, which recommend ranks runs with, gives predict's numbers without its terms and
// notes: on one GPU and many, over PCIe, NVLink and a network, sharded, offloaded, pipelined and
// served.
TEST(PerfModel, SpeedAloneIsThePredictionsNumbers) {
  struct Case {
    const char* workload;
    const char* gpu;
    int gpus;
    std::string mode = "train";
    int zero = 0;
    std::string offload = "none";
    int pp = 1;
    std::optional<int> gpus_per_node;  // none: the GPU's NVLink domain, else 8
    std::optional<double> network_gbps_per_gpu;
  };
  const Case cases[] = {
      {"resnet50", "rtx-4090", 1},
      {"resnet50", "rtx-4090", 4},
      {"resnet50", "h100-sxm5-80gb", 16, "train", 0, "none", 1, 8, 50.0},
      {"resnet50", "a100-sxm4-80gb", 16},
      {"mpt-125m", "rtx-3090", 2, "train", 3},
      {"mpt-125m", "rtx-3090", 2, "train", 3, "cpu"},
      {"mpt-125m", "a100-sxm4-80gb", 8, "train", 0, "none", 2},
      {"llama-3-8b", "h100-sxm5-80gb", 1, "serve"},
      {"llama-3-8b", "rtx-4090", 2, "infer"},
  };
  const Calibration& cal = embedded_calibration();
  for (const Case& k : cases) {
    SCOPED_TRACE(fmt::format("{} on {} x {}, {}", k.workload, k.gpu, k.gpus, k.mode));
    const Workload& w = **zoo().find(k.workload);
    const Gpu& gpu = *catalog().gpu(k.gpu);
    RunConfig config;
    config.mode = k.mode;
    config.gpus = k.gpus;
    config.zero = k.zero;
    config.offload = k.offload;
    config.pipeline_parallel = k.pp;
    config.gpus_per_node = k.gpus_per_node;
    config.network_gbps_per_gpu = k.network_gbps_per_gpu;
    if (k.mode == "serve") config.gen_tokens = 256;  // a served request generates tokens
    auto facts = run_facts(w, gpu, config);
    ASSERT_TRUE(facts.ok()) << facts.status().message();
    auto p = predict(w, gpu, config, cal, catalog(), *facts);
    auto speed = predict_speed(w, gpu, config, cal, catalog(), *facts);
    ASSERT_TRUE(p.ok() && speed.ok());
    EXPECT_GT(p->throughput, 0);
    EXPECT_EQ(speed->fits, p->fits);
    EXPECT_EQ(speed->throughput, p->throughput);
    EXPECT_EQ(speed->unit, p->unit);
    ASSERT_EQ(speed->serving.has_value(), p->serving.has_value());
    if (p->serving) {
      EXPECT_EQ(speed->serving->ttft_ms, p->serving->ttft_ms);
      EXPECT_EQ(speed->serving->tpot_ms, p->serving->tpot_ms);
      EXPECT_EQ(speed->serving->requests_per_s, p->serving->requests_per_s);
    }
  }
}

// Operator times kept across predictions (recommend keeps them per request) do not depend on the
// run's links or network, and data parallelism over more GPUs runs the same operators on each:
// the facts of 16 and 32 GPUs, placed in three topologies on each of two GPUs, predict with kept
// times as predict does without them.
TEST(PerfModel, OperatorTimesKeptAcrossTopologiesGiveTheSameSpeed) {
  const Workload& w = **zoo().find("resnet50");
  const Calibration& cal = embedded_calibration();
  std::vector<RunFacts> made;  // the times point into their operators: they outlive `times`
  OperatorTimes times;
  for (int gpus : {16, 32}) {
    RunConfig config;
    config.gpus = gpus;
    auto made_now = run_facts(w, *catalog().gpu("h100-sxm5-80gb"), config);
    ASSERT_TRUE(made_now.ok()) << made_now.status().message();
    const RunFacts* facts = &made.emplace_back(std::move(made_now).value());
    for (const char* id : {"h100-sxm5-80gb", "a100-sxm4-80gb"}) {
      for (const auto& [per_node, network] :
           std::vector<std::pair<int, std::optional<double>>>{{8, 50.0}, {8, 12.5}, {16, {}}}) {
        SCOPED_TRACE(
            fmt::format("{} x {}, {} per node, {} GB/s", id, gpus, per_node, network.value_or(0)));
        RunConfig placed_config = config;
        placed_config.gpus_per_node = per_node;
        placed_config.network_gbps_per_gpu = network;
        RunFacts placed = *facts;
        placed.memory.config.gpus_per_node = per_node;
        placed.memory.config.network_gbps_per_gpu = network;
        const Gpu& gpu = *catalog().gpu(id);
        auto p = predict(w, gpu, placed_config, cal, catalog(), placed);
        auto kept = predict_speed(w, gpu, placed_config, cal, catalog(), placed, &times);
        ASSERT_TRUE(p.ok() && kept.ok());
        EXPECT_EQ(kept->throughput, p->throughput);
      }
    }
  }
}

// recommend runs a job once per GPU, count and link kind when it fits in one machine
// (DemandRuns::runs): within a machine, the machine's size and network change nothing, and a link
// named as the GPU's own kind (links.h link_kind) is the GPU's own. Training and decode, on a
// GeForce card without a compute link (collectives over PCIe via the host), on SXM modules, and
// on a card with an NVLink bridge over more GPUs than the bridge joins.
TEST(PerfModel, ARunWithinOneMachineIsTheSameOnAnyMachineThatHoldsIt) {
  const Calibration& cal = embedded_calibration();
  struct Case {
    const char* workload;
    const char* mode;
    const char* gpu;
    int gpus;
    const char* link;  // the GPU's own kind, named
  };
  for (const Case& k : {Case{"gpt2", "train", "rtx-4090", 2, "pcie"},
                        Case{"resnet50", "train", "h100-sxm5-80gb", 8, "nvswitch"},
                        Case{"bert-base-squad", "train", "rtx-3090", 4, "nvlink-bridge"},
                        Case{"llama-2-7b", "decode", "a100-sxm4-80gb", 2, "nvswitch"}}) {
    SCOPED_TRACE(fmt::format("{} {} on {} x {}", k.workload, k.mode, k.gpus, k.gpu));
    const Workload& w = **zoo().find(k.workload);
    const Gpu& gpu = *catalog().gpu(k.gpu);
    EXPECT_EQ(link_kind(gpu, ""), k.link);
    EXPECT_EQ(link_kind(gpu, k.link), k.link);
    RunConfig own;
    own.mode = k.mode;
    own.gpus = k.gpus;
    if (own.mode == "decode") own.tensor_parallel = k.gpus;
    auto alone = predict(w, gpu, own, cal, catalog());
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    EXPECT_GT(alone->throughput, 0);
    RunConfig instance = own;  // a rented instance of exactly its GPUs, with a fabric
    instance.link = k.link;
    instance.gpus_per_node = k.gpus;
    instance.network_gbps_per_gpu = 6.25;
    auto rented = predict(w, gpu, instance, cal, catalog());
    ASSERT_TRUE(rented.ok()) << rented.status().message();
    EXPECT_EQ(rented->throughput, alone->throughput);
    EXPECT_EQ(rented->step_time_s, alone->step_time_s);
  }
  // Another kind of link is another run: PCIe instead of the bridge of two rtx-3090.
  RunConfig bridged;
  bridged.gpus = 2;
  RunConfig over_pcie = bridged;
  over_pcie.link = "pcie";
  const Gpu& rtx3090 = *catalog().gpu("rtx-3090");
  EXPECT_EQ(link_kind(rtx3090, "pcie"), "pcie");
  const Workload& bert = **zoo().find("bert-base-squad");
  auto a = predict(bert, rtx3090, bridged, cal, catalog());
  auto b = predict(bert, rtx3090, over_pcie, cal, catalog());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->throughput, b->throughput);
}

// Facts made with what they share kept (recommend keeps it per request) are the facts run_facts
// makes alone: the same memory, counts and speed; data parallelism and ZeRO-3 over more GPUs run
// the operators of one GPU, which the facts share, and a LoRA fine-tune and a pipeline their own;
// a diffusion model's components train and run frozen as planned alone.
TEST(PerfModel, SharedFactsAreTheFactsMadeAlone) {
  struct Case {
    const char* workload;
    int gpus;
    int zero = 0;
    std::string method = "full";
    int pp = 1;
  };
  const Case cases[] = {{"resnet50", 1},
                        {"resnet50", 8},
                        {"resnet50", 64, 3},
                        {"mpt-125m", 2, 3},
                        {"mpt-125m", 8},
                        {"mpt-125m", 8, 0, "full", 2},
                        {"llama-3-8b", 2, 0, "lora"},
                        {"stable-diffusion-1.5", 2},
                        {"stable-diffusion-1.5", 4, 3}};
  const Calibration& cal = embedded_calibration();
  const Gpu& gpu = *catalog().gpu("h100-sxm5-80gb");
  SharedFacts shared;
  std::map<std::string, const StepOperators*> first;  // by workload and pipeline
  std::vector<RunFacts> kept;
  for (const Case& k : cases) {
    SCOPED_TRACE(
        fmt::format("{} x {}, zero {}, {}, pp {}", k.workload, k.gpus, k.zero, k.method, k.pp));
    const Workload& w = **zoo().find(k.workload);
    RunConfig config;
    config.gpus = k.gpus;
    config.zero = k.zero;
    config.method = k.method;
    config.pipeline_parallel = k.pp;
    if (w.transformer) config.seq_len = 1024;
    auto alone = run_facts(w, gpu, config);
    auto with = run_facts(w, gpu, config, shared);
    ASSERT_TRUE(alone.ok() && with.ok()) << with.status().message();
    EXPECT_EQ(with->memory.total_gb, alone->memory.total_gb);
    EXPECT_EQ(with->params.total, alone->params.total);
    EXPECT_EQ(with->flops.train, alone->flops.train);
    EXPECT_EQ(with->workload_class, alone->workload_class);
    auto p = predict(w, gpu, config, cal, catalog(), *alone);
    auto q = predict(w, gpu, config, cal, catalog(), *with);
    ASSERT_TRUE(p.ok() && q.ok());
    EXPECT_EQ(q->throughput, p->throughput);
    const std::string shape = fmt::format("{} {} pp {}", k.workload, k.method, k.pp);
    const StepOperators* ops = with->operators.get();
    ASSERT_NE(ops, nullptr);
    EXPECT_EQ(first.emplace(shape, ops).first->second, ops);
    kept.push_back(std::move(with).value());
  }
  // resnet50, mpt-125m, mpt-125m pipelined, llama-3-8b LoRA, stable-diffusion-1.5
  EXPECT_EQ(first.size(), 5u);
}

// The software stack (data/catalog/families.toml): vLLM needs compute capability 7.0 (vLLM's
// GPU installation page), so a Pascal card is refused with what runs on it; llama.cpp runs.
TEST(StackCheck, AnEngineThatDoesNotRunOnTheFamilyIsRefusedWithWhatRuns) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "vllm";
  c.batch = 1;
  c.seq_len = 128;
  auto refused = predict(**zoo().find("llama-2-7b"), *catalog().gpu("gtx-1080-ti"), c,
                         flat(0.8, 0.8), catalog());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidInput);
  const std::string& m = refused.status().message();
  EXPECT_EQ(m.rfind("vllm does not run on gtx-1080-ti (NVIDIA Pascal, CUDA): ", 0), 0u) << m;
  EXPECT_NE(m.find("What runs there: llama.cpp, pytorch, bitsandbytes."), std::string::npos) << m;
  EXPECT_NE(m.find("vllm runs on the families volta (partly), turing (partly), ampere, ada"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("https://docs.vllm.ai/"), std::string::npos) << m;
  EXPECT_NE(m.find("as of 2025-08-01, recall"), std::string::npos) << m;
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  EXPECT_GT(run("llama-2-7b", "gtx-1080-ti", c).throughput, 0);
  // TensorRT-LLM is NVIDIA's alone.
  c.engine = "tensorrt-llm";
  c.weights = "";
  auto amd =
      predict(**zoo().find("llama-2-7b"), *catalog().gpu("mi300x"), c, flat(0.8, 0.8), catalog());
  ASSERT_FALSE(amd.ok());
  EXPECT_NE(amd.status().message().find("tensorrt-llm does not run on mi300x (AMD CDNA 3"),
            std::string::npos);
}

TEST(StackCheck, SoftwareThatRunsPartlyIsAWarning) {
  // QLoRA needs bitsandbytes, whose ROCm backend is a preview.
  RunConfig c;
  c.method = "qlora";
  c.batch = 1;
  c.seq_len = 512;
  const Prediction p = run("llama-2-7b", "mi300x", c);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_EQ(p.warnings.back().rfind("bitsandbytes runs only partly on AMD CDNA 3 (Instinct "
                                    "MI300) (ROCm): ",
                                    0),
            0u)
      << p.warnings.back();
  const Prediction cuda = run("llama-2-7b", "h100-sxm5-80gb", c);
  for (const auto& w : cuda.warnings) EXPECT_EQ(w.find("only partly"), std::string::npos) << w;
  EXPECT_EQ(software_needed(p.config), (std::vector<std::string>{"pytorch", "bitsandbytes"}));
}

// FlashAttention runs only partly on Turing (families.toml: FlashAttention-2 does not support it),
// which a transformer trained in PyTorch is told; a CNN has no attention, so nothing is said.
// The check is made from the run's facts, as predict, calibrate and recommend make it.
TEST(StackCheck, FlashAttentionIsSaidOnlyOfATransformer) {
  const Gpu& t4 = *catalog().gpu("t4");
  const RunConfig config;  // training in PyTorch, FlashAttention on
  std::map<std::string, StackCheck> checks;
  for (const char* id : {"mpt-125m", "resnet50"}) {
    const Workload& w = **zoo().find(id);
    auto facts = run_facts(w, t4, config);
    ASSERT_TRUE(facts.ok()) << facts.status().message();
    checks[id] = check_stack(w, t4, *facts, catalog());
    EXPECT_EQ(checks[id].family, catalog().family("turing")) << id;
    EXPECT_EQ(checks[id].refusal, "") << id;
  }
  EXPECT_EQ(checks["mpt-125m"].partly.rfind(
                "flash-attention runs only partly on NVIDIA Turing (CUDA): No BF16; ", 0),
            0u)
      << checks["mpt-125m"].partly;
  EXPECT_EQ(checks["resnet50"].partly, "");
}

TEST(StackCheck, EveryCatalogGpuHasAFamilyAndOnlyCudaIsCommon) {
  for (const Gpu& g : catalog().gpus) {
    const Family* f = catalog().family_of(g);
    ASSERT_NE(f, nullptr) << g.id;
    EXPECT_EQ(f->common_stack, f->stack == "cuda") << g.id;
  }
  const Family& cdna2 = *catalog().family("cdna2");
  EXPECT_EQ(stack_summary(cdna2),
            "ROCm on AMD CDNA 2 (Instinct MI200), a less common stack than CUDA: runs pytorch, "
            "flash-attention, vllm, llama.cpp; partly sglang, bitsandbytes; not tensorrt-llm (as "
            "of 2025-08-01, recall)");
}

}  // namespace
}  // namespace rigplan
