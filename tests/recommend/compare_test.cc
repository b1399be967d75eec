// compare_gpus(): each card at the largest batch that fits, offloaded only with --offload cpu, and
// a reference that cannot hold the run replaced by one that can.
#include "rigplan/compare.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rigplan/report.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;
using testing::default_zoo;

Comparison compare(std::string_view workload, std::vector<std::string> gpus, RunConfig run) {
  auto c = compare_gpus(*default_zoo().find(workload).value(), {std::move(gpus), "", run},
                        default_catalog(), embedded_calibration());
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

TEST(Compare, ACardRunsTheLargestBatchThatFitsEvenWhenABatchIsGiven) {
  // ResNet-50 at batch 256 needs about 24 GB; the 8 GB RTX 3070 holds at most the batch that
  // `rigplan memory resnet50 --gpu rtx-3070` reports.
  RunConfig run;
  run.batch = 256;
  const Comparison c = compare("resnet50", {"rtx-4090", "rtx-3070"}, run);
  const int largest =
      estimate_memory(**default_zoo().find("resnet50"), *default_catalog().gpu("rtx-3070"), run)
          ->max_batch;
  EXPECT_EQ(c.requested_batch, 256);
  EXPECT_TRUE(c.gpus[1].prediction.fits);
  EXPECT_EQ(*c.gpus[1].prediction.config.batch, largest);
  EXPECT_FALSE(c.offload);
  // With --offload cpu it runs the batch asked, offloaded.
  run.offload = "cpu";
  const Comparison offloaded = compare("resnet50", {"rtx-4090", "rtx-3070"}, run);
  EXPECT_TRUE(offloaded.offload);
  EXPECT_FALSE(offloaded.gpus[1].prediction.fits);
  EXPECT_EQ(*offloaded.gpus[1].prediction.config.batch, 256);
  EXPECT_GT(offloaded.gpus[1].prediction.throughput, 0);
}

// An LLM's inference comparison says what it compares: Llama 3.1 8B decodes its default prompt,
// 131,072 tokens (16 GB of KV cache besides 16 GB of weights), which a 24 GB card cannot hold; the
// title said "bf16, batch 1 per GPU" alone. A serving comparison's load is its title's, and each
// card's fit is the most sequences its KV cache holds, not a batch it shrank to.
TEST(Compare, AnInferenceComparisonSaysItsEngineWeightsLengthsAndLoad) {
  RunConfig run;
  run.mode = "decode";
  EXPECT_TRUE(report::compare_text(compare("llama-3.1-8b", {"l40s", "rtx-4090"}, run))
                  .starts_with("llama-3.1-8b (decode with vllm, bf16 weights, prompt 131072, batch "
                               "1 per GPU or the largest that fits the card), relative to l40s"));
  run.mode = "serve";
  run.seq_len = 1024;
  run.gen_tokens = 256;
  run.request_rate = 5;
  const Comparison served = compare("llama-3.1-8b", {"l40s"}, run);
  const std::string text = report::compare_text(served);
  EXPECT_TRUE(
      text.starts_with("llama-3.1-8b (serve with vllm, bf16 weights, prompt 1024 + 256 "
                       "generated, at 5 requests/s), relative to l40s"))
      << text;
  EXPECT_NE(text.find(fmt::format("yes, at most {} in flight",
                                  served.gpus[0].prediction.serving->max_concurrency)),
            std::string::npos);
}

TEST(Compare, AReferenceThatCannotHoldTheRunGivesWayToOneThatCan) {
  // A full fine-tune of Llama 2 7B at batch 1 needs 131.1 GB: not a 24 GB RTX 4090, an H200's
  // 141 GB (151.4 GB of 1e9 bytes) does.
  RunConfig run;
  run.batch = 1;
  run.seq_len = 512;
  const Comparison c = compare("llama-2-7b", {"rtx-4090", "h200-sxm-141gb"}, run);
  EXPECT_FALSE(c.gpus[0].prediction.fits);
  EXPECT_EQ(c.gpus[0].prediction.throughput, 0);
  EXPECT_EQ(c.gpus[0].value.relative, 0);
  EXPECT_TRUE(c.gpus[1].prediction.fits);
  EXPECT_EQ(c.reference->id, "h200-sxm-141gb");
  EXPECT_DOUBLE_EQ(c.gpus[1].value.relative, 1);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0],
            "rtx-4090 cannot hold llama-2-7b at batch 1 (131.1 GB of 25.8 GB); relative to "
            "h200-sxm-141gb, the first GPU that can");
}

TEST(Compare, TwoRtx3090sAreOneSystemRunAsPredictRunsTwoGpus) {
  const Comparison c = compare("resnet50", {"2x rtx-3090", "1x rtx-4090"}, RunConfig{});
  ASSERT_TRUE(c.systems);
  ASSERT_EQ(c.gpus.size(), 2u);
  EXPECT_EQ(c.gpus[0].count, 2);
  EXPECT_EQ(c.reference->id, "rtx-3090");
  EXPECT_EQ(c.reference_count, 2);
  RunConfig two;
  two.gpus = 2;
  const Workload& w = **default_zoo().find("resnet50");
  const auto p = predict(w, *default_catalog().gpu("rtx-3090"), two, embedded_calibration(),
                         default_catalog());
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->fits);
  EXPECT_DOUBLE_EQ(c.gpus[0].prediction.throughput, p->throughput);
  EXPECT_EQ(c.gpus[0].prediction.config.gpus, 2);
  // Relative to the reference system; its GPUs' price is two cards'; the system is the cheapest
  // new machine that holds two.
  EXPECT_DOUBLE_EQ(c.gpus[0].value.relative, 1);
  EXPECT_DOUBLE_EQ(c.gpus[1].value.relative,
                   c.gpus[1].prediction.throughput / c.gpus[0].prediction.throughput);
  const auto owned = own_system(default_catalog(), *default_catalog().gpu("rtx-3090"), 2, "new");
  ASSERT_TRUE(owned.ok());
  ASSERT_EQ(c.gpus[0].value.systems.size(), 1u);
  EXPECT_EQ(c.gpus[0].value.systems[0].count, 2);
  EXPECT_DOUBLE_EQ(c.gpus[0].value.systems[0].capex_usd, owned->capex_usd);
  EXPECT_DOUBLE_EQ(*c.gpus[0].value.per_kusd_card, 1 / (2 * c.gpus[0].value.price->usd) * 1000);
}

TEST(Compare, ACountOutOfRangeIsRefusedWithTheField) {
  for (const auto& [entry, message] : std::vector<std::pair<std::string, std::string>>{
           {"0x rtx-3090",
            "--gpus 0x rtx-3090: the count 0 is out of range; expected an integer from 1 to "
            "1048576"},
           {"-1x rtx-3090",
            "--gpus -1x rtx-3090: the count -1 is out of range; expected an integer from 1 to "
            "1048576"},
           {"2147483648x rtx-3090",
            "--gpus 2147483648x rtx-3090: the count 2147483648 is out of range; expected an "
            "integer from 1 to 1048576"},
           {"1.5x rtx-3090",
            "--gpus 1.5x rtx-3090: the count 1.5 is not a whole number; expected an integer from "
            "1 to 1048576"}}) {
    auto c = compare_gpus(*default_zoo().find("resnet50").value(), {{entry}, "", RunConfig{}},
                          default_catalog(), embedded_calibration());
    ASSERT_FALSE(c.ok()) << entry;
    EXPECT_EQ(c.status().code(), Status::Code::kInvalidInput) << entry;
    EXPECT_EQ(c.status().message(), message);
  }
}

TEST(Compare, EverySpellingOfACountAndAMegabyteName) {
  for (const std::string entry : {"2x rtx-3090", " 2 × rtx-3090", "2×rtx-3090", "2x\trtx-3090"}) {
    const Comparison c = compare("resnet50", {entry, "rtx-4090"}, RunConfig{});
    ASSERT_EQ(c.gpus.size(), 2u) << entry;
    EXPECT_EQ(c.gpus[0].gpu->id, "rtx-3090") << entry;
    EXPECT_EQ(c.gpus[0].count, 2) << entry;
  }
  // The name after the count was matched by a regular expression that recursed per character:
  // a 1 MiB name overflowed the stack (SIGSEGV).
  auto c = compare_gpus(*default_zoo().find("resnet50").value(),
                        {{"2x " + std::string(1 << 20, 'a')}, "", RunConfig{}}, default_catalog(),
                        embedded_calibration());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "unknown GPU '" + std::string(64, 'a') + "...'; `rigplan gpus list` shows them all");
}

}  // namespace
}  // namespace rigplan
