// torch.compile and CUDA graphs against hand-counted kernels and bytes: a chain of pointwise
// layers becomes one kernel that reads its input once and writes its output once, a transformer
// layer's residual adds fuse with its norms, and a CUDA graph leaves 0.5 µs of each launch.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "rigplan/perf.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }

// `workload` as `c` runs it on an H100 SXM5, with the shipped calibration.
Prediction on_h100(const char* workload, const RunConfig& c) {
  auto p = predict(**zoo().find(workload), *catalog().gpu("h100-sxm5-80gb"), c,
                   embedded_calibration(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : Prediction{};
}

// Round efficiencies, so that times can be computed by hand.
Calibration flat() {
  Calibration c;
  c.archs.push_back({"ampere-hbm", 0.8, 0.8, 1.0, "test"});
  c.error_band = {{"rnn", 0.1}};
  return c;
}

Layer pointwise(const char* op, const char* kind, const char* name) {
  Layer l;
  l.op = op;
  l.kind = kind;
  l.name = name;
  l.elements = 10'000'000;
  return l;
}

// A training step at batch 16 in fp16 of a network of a norm (`norm_kind`) and an activation of
// 10,000,000 values a sample each, on an A100 SXM4 80GB.
Prediction pointwise_step(const char* norm_kind, bool compile, bool cuda_graphs = false) {
  Workload w = **zoo().find("gnmt");
  w.layers = {pointwise("norm", norm_kind, "norm"), pointwise("elementwise", "", "relu")};
  RunConfig c;
  c.precision = "fp16";
  c.batch = 16;
  c.compile = compile;
  c.cuda_graphs = cuda_graphs;
  auto p = predict(w, *catalog().gpu("a100-sxm4-80gb"), c, flat(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

// Each layer's tensor is 16 · 10,000,000 · 2 B = 320 MB, beyond half of the A100's 40 MB L2.
// Eager, each layer reads and writes it: 4 · 320 MB a pass, over the forward and the backward's
// two passes 3.84 GB, in 3.84e9 / (2039e9 · 0.8) = 2.3541 ms. Fused, the norm's input is read
// and the activation's output written: 1.92 GB, 1.1770 ms. The kernels: 2 a pass eager, 1 fused,
// with the optimizer's 4 (of no parameters): 10 → 7 a step, 15 µs less launch.
TEST(TorchCompile, FusesAChainOfPointwiseLayersIntoOneKernel) {
  const Prediction eager = pointwise_step("layernorm", false);
  const Prediction fused = pointwise_step("layernorm", true);
  EXPECT_FALSE(eager.compile.has_value());
  ASSERT_TRUE(fused.compile.has_value());
  const CompileEffect& e = *fused.compile;
  EXPECT_DOUBLE_EQ(e.eager_elementwise_bytes, 3.84e9);
  EXPECT_DOUBLE_EQ(e.elementwise_bytes, 1.92e9);
  EXPECT_DOUBLE_EQ(e.eager_kernels, 10);
  EXPECT_DOUBLE_EQ(e.kernels, 7);
  EXPECT_NEAR(e.eager_launch_s - e.launch_s, 15e-6, 1e-12);
  EXPECT_NEAR(e.eager_step_time_s, eager.step_time_s, 1e-15);
  ASSERT_EQ(e.fused.size(), 1u);
  EXPECT_EQ(e.fused[0], "norm + relu");
  EXPECT_NEAR(testing::term(eager, "elementwise"), 2.3541e-3, 0.0001e-3);
  EXPECT_NEAR(testing::term(fused, "elementwise"), 1.1770e-3, 0.0001e-3);
  EXPECT_NE(fused.note.find("torch.compile: "), std::string::npos) << fused.note;
  EXPECT_EQ(eager.note.find("torch.compile"), std::string::npos) << eager.note;
}

// A batch norm's statistics are a reduction over the batch, which Inductor runs as a kernel of
// its own before the fused pointwise one: the same bytes as a layer norm's chain, and 2 kernels
// a pass, as many as eager's batch norm and activation.
TEST(TorchCompile, ABatchNormKeepsAKernelForItsStatistics) {
  const CompileEffect e = *pointwise_step("batchnorm", true).compile;
  EXPECT_DOUBLE_EQ(e.elementwise_bytes, 1.92e9);
  EXPECT_DOUBLE_EQ(e.kernels, 10);
  EXPECT_DOUBLE_EQ(e.eager_kernels, 10);
}

// Replayed from a CUDA graph, each of the eager step's 10 kernels costs 0.5 µs, not 5 µs.
TEST(TorchCompile, CudaGraphsLeaveHalfAMicrosecondOfEachLaunch) {
  const CompileEffect e = *pointwise_step("layernorm", false, true).compile;
  EXPECT_DOUBLE_EQ(e.kernels, 10);
  EXPECT_NEAR(e.launch_s, 10 * 0.5e-6, 1e-15);
  EXPECT_NEAR(e.eager_launch_s, 10 * 5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(e.elementwise_bytes, e.eager_elementwise_bytes);
}

// Llama 3.2 1B (hidden 2048, 16 layers, no dropout) at batch 1 and sequence 2048 in BF16 on an
// H100: each layer's two residual adds fuse with the norms after them, 5·d elements each
// becoming 4·d, so a token and layer moves 2·d = 4096 elements (8192 B) less, a forward
// 16 · 2048 · 8192 B and a step, with the backward's two passes, 805,306,368 B less. The layer's
// 8 kernels become 4: 16 · 4 · 3 = 192 fewer a step. The LM head's loss and the embedding stay.
TEST(TorchCompile, ATransformerLayersResidualAddsFuseWithItsNorms) {
  RunConfig c;
  c.batch = 1;
  c.seq_len = 2048;
  c.compile = true;
  const Prediction p = on_h100("llama-3.2-1b", c);
  ASSERT_TRUE(p.compile.has_value());
  const CompileEffect& e = *p.compile;
  EXPECT_DOUBLE_EQ(e.eager_elementwise_bytes - e.elementwise_bytes, 805'306'368);
  EXPECT_DOUBLE_EQ(e.eager_kernels - e.kernels, 192);
  EXPECT_LT(p.step_time_s, e.eager_step_time_s);
  EXPECT_EQ(e.fused.front(), "residual add + norm, twice a layer");
}

// The same run under torchtitan, whose model code is plain PyTorch ("decomposed" pointwise
// operators): eager, each RMSNorm also moves 2·(2 + 4) B of casts and 20 B of FP32 an element,
// the rotary embedding 12 + 8 - 4 B an element of the queries and keys (2048 + 512), SwiGLU
// 2·2 B an element of the MLP (8192): 2·2048·32 + 2560·16 + 8192·4 = 204,800 B a token and layer
// more, 16 · 2048 · 204,800 B a forward and three times that a step, all of which torch.compile
// fuses away, and 19 kernels a layer more, 16 · 19 · 3 a step.
TEST(TorchCompile, ADecomposedFrameworksEagerNormsRopeAndSwigluFuse) {
  RunConfig c;
  c.batch = 1;
  c.seq_len = 2048;
  c.framework = "torchtitan";
  c.compile = true;
  const Prediction p = on_h100("llama-3.2-1b", c);
  ASSERT_TRUE(p.compile.has_value());
  const CompileEffect& e = *p.compile;
  EXPECT_DOUBLE_EQ(e.eager_elementwise_bytes - e.elementwise_bytes,
                   805'306'368 + 3.0 * 16 * 2048 * 204'800);
  EXPECT_DOUBLE_EQ(e.eager_kernels - e.kernels, 192 + 16 * 19 * 3);
  c.compile = false;
  const Prediction eager = on_h100("llama-3.2-1b", c);
  EXPECT_NE(eager.note.find("framework torchtitan runs RMSNorm, the rotary embedding and the "
                            "gated activation as PyTorch ops: 205 kB more a token and layer in "
                            "the forward and 19 more kernels a layer"),
            std::string::npos)
      << eager.note;
  c.framework = "megatron";  // Transformer Engine's fused kernels: nothing decomposed
  const Prediction fused = on_h100("llama-3.2-1b", c);
  EXPECT_EQ(fused.note.find("as PyTorch ops"), std::string::npos) << fused.note;
}

// torchtitan measured Llama 3.1 8B on 8 H100 at 5,762 tokens/s a GPU eager and 6,667 under
// torch.compile, 1.157x (shared/data/cluster_training_throughput.csv rows 64 and 65, on its
// 96 GB H100s at 500 W; the 700 W 80 GB SXM5 here): the decomposed eager step predicts 1.20x,
// where counting each pointwise operator as one kernel predicted 1.008x. At torchtitan's level
// (0.872) the SXM5 runs 10% and 6% above the 96 GB part, compiled and eager.
TEST(TorchCompile, TorchtitansCompileGainOnLlama31_8B) {
  RunConfig c;
  c.gpus = 8;
  c.zero = 3;
  c.batch = 2;
  c.seq_len = 8192;
  c.framework = "torchtitan";
  c.recompute = "selective-op";
  c.compile = true;
  const Prediction p = on_h100("llama-3.1-8b", c);
  ASSERT_TRUE(p.compile.has_value());
  EXPECT_NEAR(p.compile->eager_step_time_s / p.step_time_s, 1.197, 0.005);
  EXPECT_NEAR(p.throughput / 8 / 6'667, 1.10, 0.01);
  EXPECT_NEAR(p.throughput / p.compile->eager_step_time_s * p.step_time_s / 8 / 5'762, 1.06, 0.01);
}

TEST(TorchCompile, AnInferenceRunIsRefused) {
  RunConfig c;
  c.mode = "infer";
  c.compile = true;
  auto p = predict(**zoo().find("resnet50"), *catalog().gpu("a100-sxm4-80gb"), c,
                   embedded_calibration(), catalog());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--compile"), std::string::npos);
}

}  // namespace
}  // namespace rigplan
