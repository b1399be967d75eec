// The embedded default catalog: complete for the ids the product promises, and right where a
// datasheet can be checked by hand.
#include <gtest/gtest.h>

#include <set>

#include "rigplan/catalog.h"
#include "test_support.h"

namespace rigplan {
namespace {

const Catalog& catalog() { return testing::default_catalog(); }

// PRODUCT.md, "Identifiers".
constexpr const char* kPromisedGpus[] = {"gtx-1060-6gb",
                                         "gtx-1070",
                                         "gtx-1080",
                                         "gtx-1080-ti",
                                         "rtx-2060",
                                         "rtx-2070",
                                         "rtx-2080-ti",
                                         "titan-rtx",
                                         "rtx-3060-12gb",
                                         "rtx-3070",
                                         "rtx-3080",
                                         "rtx-3080-ti",
                                         "rtx-3090",
                                         "rtx-3090-ti",
                                         "rtx-4060-ti-16gb",
                                         "rtx-4070",
                                         "rtx-4070-ti",
                                         "rtx-4070-ti-super",
                                         "rtx-4080",
                                         "rtx-4080-super",
                                         "rtx-4090",
                                         "rtx-5060-ti-16gb",
                                         "rtx-5070",
                                         "rtx-5070-ti",
                                         "rtx-5080",
                                         "rtx-5090",
                                         "quadro-rtx-5000",
                                         "quadro-rtx-6000",
                                         "quadro-rtx-8000",
                                         "rtx-a4000",
                                         "rtx-a4500",
                                         "rtx-a5000",
                                         "rtx-a5500",
                                         "rtx-a6000",
                                         "rtx-4000-ada",
                                         "rtx-5000-ada",
                                         "rtx-6000-ada",
                                         "rtx-pro-6000-blackwell",
                                         "t4",
                                         "v100-16gb",
                                         "v100-32gb",
                                         "v100-sxm2-16gb",
                                         "a10",
                                         "a10g",
                                         "a40",
                                         "l4",
                                         "l40",
                                         "l40s",
                                         "a100-pcie-40gb",
                                         "a100-pcie-80gb",
                                         "a100-sxm4-40gb",
                                         "a100-sxm4-80gb",
                                         "h100-pcie-80gb",
                                         "h100-sxm5-80gb",
                                         "h100-nvl-94gb",
                                         "h200-sxm-141gb",
                                         "h200-nvl-141gb",
                                         "gh200-96gb",
                                         "b200-sxm-192gb",
                                         "mi210",
                                         "mi250",
                                         "mi250x",
                                         "mi300x",
                                         "mi325x",
                                         "rx-7900-xtx"};

TEST(DefaultCatalog, HasEveryPromisedGpu) {
  for (const char* id : kPromisedGpus) EXPECT_NE(catalog().gpu(id), nullptr) << id;
}

TEST(DefaultCatalog, MeetsTheMinimumSizes) {
  EXPECT_GE(catalog().cpus.size(), 40u);
  EXPECT_GE(catalog().offers.size(), 200u);
  std::set<std::string> providers;
  for (const auto& o : catalog().offers) providers.insert(o.provider);
  EXPECT_GE(providers.size(), 5u);
  for (const char* region :
       {"world", "us", "us-ca", "us-tx", "de", "fr", "gb", "cn", "jp", "in", "aws-us-east-1"}) {
    EXPECT_NE(catalog().region(region), nullptr) << region;
  }
}

struct DatasheetRow {
  const char* id;
  double memory_gb, mem_bandwidth_gbps, fp32_tflops, bf16_tflops;  // bf16 0: none
};

// Vendor datasheets and whitepapers (dense tensor rates, no sparsity).
constexpr DatasheetRow kDatasheets[] = {
    {"rtx-3090", 24, 936, 35.6, 71},          // Ampere GA102 whitepaper: half-rate FP32 accumulate
    {"rtx-4090", 24, 1008, 82.6, 165.2},      // Ada whitepaper v2.1, table 2
    {"rtx-5090", 32, 1792, 104.8, 209.5},     // Blackwell RTX whitepaper
    {"rtx-a6000", 48, 768, 38.7, 154.8},      // RTX A6000 datasheet: full-rate accumulate
    {"a100-sxm4-40gb", 40, 1555, 19.5, 312},  // A100 datasheet
    {"a100-sxm4-80gb", 80, 2039, 19.5, 312},  // A100 80GB datasheet
    {"h100-sxm5-80gb", 80, 3350, 66.9, 989.4},  // H100 datasheet
    {"mi300x", 192, 5300, 163.4, 1307.4},       // AMD Instinct MI300X datasheet
    {"gtx-1080-ti", 11, 484, 11.34, 0},         // Pascal: no tensor cores
};

TEST(DefaultCatalog, AgreesWithTheDatasheets) {
  for (const auto& row : kDatasheets) {
    const Gpu* g = catalog().gpu(row.id);
    ASSERT_NE(g, nullptr) << row.id;
    EXPECT_DOUBLE_EQ(g->memory_gb, row.memory_gb) << row.id;
    EXPECT_DOUBLE_EQ(g->mem_bandwidth_gbps, row.mem_bandwidth_gbps) << row.id;
    EXPECT_NEAR(g->fp32_tflops, row.fp32_tflops, 0.05) << row.id;
    if (row.bf16_tflops == 0) {
      EXPECT_FALSE(g->bf16_tflops.has_value()) << row.id;
    } else {
      ASSERT_TRUE(g->bf16_tflops.has_value()) << row.id;
      EXPECT_NEAR(*g->bf16_tflops, row.bf16_tflops, 0.05) << row.id;
    }
  }
}

// One GPU of a GB200 NVL72 and of a GB300 NVL72 rack (data/catalog/gpus_datacenter.toml, whose
// notes say which source each figure follows): Epoch's per-GPU figures, ml-engineering's dense
// TFLOPS, NVLink 5 at 1,800 GB/s among the rack's 72 GPUs.
TEST(DefaultCatalog, HoldsTheGpusOfNvl72RacksWithTheirNvlinkDomain) {
  const Gpu* gb200 = catalog().gpu("gb200-nvl72");
  ASSERT_NE(gb200, nullptr);
  EXPECT_EQ(gb200->architecture, "blackwell");
  EXPECT_EQ(gb200->compute_capability, "10.0");
  EXPECT_DOUBLE_EQ(*gb200->bf16_tflops, 2500);  // Epoch, ml-engineering, MAMF's peak
  EXPECT_DOUBLE_EQ(*gb200->fp4_tflops, 10000);  // 1,440 PFLOPS sparse a rack / 72 / 2
  EXPECT_DOUBLE_EQ(gb200->fp32_tflops, 80);     // ml-engineering (Epoch's 90: see notes)
  EXPECT_DOUBLE_EQ(gb200->memory_gb, 186);      // Epoch, ml-engineering, gpuhunt
  EXPECT_DOUBLE_EQ(gb200->mem_bandwidth_gbps, 8000);
  EXPECT_DOUBLE_EQ(gb200->board_power_w, 1200);  // Epoch tdp_w
  EXPECT_EQ(gb200->gpu_link, "nvswitch");
  EXPECT_DOUBLE_EQ(*gb200->gpu_link_bw_gbps, 1800);
  EXPECT_EQ(gb200->nvlink_domain_gpus, 72);
  const Gpu* gb300 = catalog().gpu("gb300-nvl72");
  ASSERT_NE(gb300, nullptr);
  EXPECT_EQ(gb300->compute_capability, "10.3");
  EXPECT_DOUBLE_EQ(*gb300->bf16_tflops, 2500);
  EXPECT_DOUBLE_EQ(*gb300->fp4_tflops, 15000);  // Blackwell Ultra: 1.5x GB200's FP4
  EXPECT_DOUBLE_EQ(*gb300->int8_tops, 165);     // Epoch (ml-engineering's 5000 repeats GB200)
  EXPECT_DOUBLE_EQ(gb300->memory_gb, 288);
  EXPECT_DOUBLE_EQ(gb300->board_power_w, 1400);
  EXPECT_EQ(gb300->nvlink_domain_gpus, 72);
  // An HGX board's GPU names no domain: 8.
  EXPECT_FALSE(catalog().gpu("b200-sxm-192gb")->nvlink_domain_gpus.has_value());
  for (const auto& [name, id] : {std::pair{"GB200", "gb200-nvl72"},
                                 {"gb200 nvl72", "gb200-nvl72"},
                                 {"GB300", "gb300-nvl72"},
                                 {"B200", "b200-sxm-192gb"}}) {
    auto found = catalog().find_gpu(name);
    ASSERT_TRUE(found.ok()) << name << ": " << found.status().message();
    EXPECT_EQ((*found)->id, id) << name;
  }
  // B300 is the HGX B300 board's GPU, another product: not an alias of GB300.
  EXPECT_FALSE(catalog().find_gpu("B300").ok());
}

// PCIe rates come from data/catalog/interconnects.toml: a row as it stands (PCIe 4.0 x16
// 31.5 GB/s), a width it lacks scaled from the generation's x16 row (x2: 31.5 / 16 x 2), and a
// generation it lacks from the nearest one (PCIe 2.0 x16: half of 3.0's 15.75).
TEST(DefaultCatalog, GivesPcieRatesFromItsInterconnects) {
  EXPECT_DOUBLE_EQ(*pcie_gbps(catalog(), 4, 16), 31.5);
  EXPECT_DOUBLE_EQ(*pcie_gbps(catalog(), 3, 8), 7.875);
  EXPECT_DOUBLE_EQ(*pcie_gbps(catalog(), 4, 2), 3.9375);
  EXPECT_DOUBLE_EQ(*pcie_gbps(catalog(), 2, 16), 7.875);
  EXPECT_FALSE(pcie_gbps(Catalog{}, 4, 16).has_value());
}

// Every shipped GPU carries its embodied carbon with a source of its own (docs/cost.md): the
// A100's 150 kgCO2e from the BLOOM footprint paper, until vendors publish per-card figures.
TEST(DefaultCatalog, EveryGpuHasASourcedEmbodiedFootprint) {
  for (const auto& g : catalog().gpus) {
    ASSERT_TRUE(g.embodied_kgco2e.has_value()) << g.id;
    EXPECT_DOUBLE_EQ(*g.embodied_kgco2e, 150) << g.id;
    EXPECT_NE(g.provenance.source_of("embodied_kgco2e").find("Luccioni"), std::string::npos)
        << g.id;
  }
}

TEST(DefaultCatalog, GeForceCardsRunFp32AccumulateAtHalfRate) {
  for (const char* id : {"rtx-3090", "rtx-4090", "rtx-5090"}) {
    const Gpu* g = catalog().gpu(id);
    ASSERT_TRUE(g->fp16_tflops && g->fp16_fp16acc_tflops) << id;
    EXPECT_NEAR(*g->fp16_fp16acc_tflops / *g->fp16_tflops, 2.0, 0.01) << id;
  }
  const Gpu* a6000 = catalog().gpu("rtx-a6000");
  EXPECT_DOUBLE_EQ(*a6000->fp16_fp16acc_tflops, *a6000->fp16_tflops);
}

TEST(DefaultCatalog, EveryEntryHasASourceAndEveryOfferAKnownGpu) {
  for (const auto& g : catalog().gpus) EXPECT_FALSE(g.provenance.source.empty()) << g.id;
  for (const auto& c : catalog().cpus) EXPECT_FALSE(c.provenance.source.empty()) << c.id;
  for (const auto& o : catalog().offers) {
    EXPECT_FALSE(o.provenance.source.empty()) << o.id;
    EXPECT_NE(catalog().gpu(o.gpu), nullptr) << o.id;
  }
}

TEST(DefaultCatalog, FindsGpusByTheNamesPeopleType) {
  const std::pair<const char*, const char*> kNames[] = {{"RTX 4090", "rtx-4090"},
                                                        {"geforce rtx 4090", "rtx-4090"},
                                                        {"NVIDIA GeForce RTX 3090", "rtx-3090"},
                                                        {"H100 SXM", "h100-sxm5-80gb"},
                                                        {"A6000", "rtx-a6000"},
                                                        {"RTX 6000 Ada", "rtx-6000-ada"},
                                                        {"Tesla T4", "t4"},
                                                        {"MI300X", "mi300x"},
                                                        {"7900 XTX", "rx-7900-xtx"},
                                                        {"RTX-4090", "rtx-4090"}};
  for (const auto& [name, id] : kNames) {
    auto found = catalog().find_gpu(name);
    ASSERT_TRUE(found.ok()) << name << ": " << found.status().message();
    EXPECT_EQ((*found)->id, id) << name;
  }
}

TEST(DefaultCatalog, AnAmbiguousNameGetsCandidatesNotAGuess) {
  auto found = catalog().find_gpu("A100");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("a100-"), std::string::npos) << found.status().message();
}

TEST(DefaultCatalog, FindsCpusByTheNamesPeopleType) {
  auto cpu = catalog().find_cpu("7950X");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ((*cpu)->id, "ryzen-9-7950x");
  EXPECT_EQ((*cpu)->cores, 16);
}

TEST(DefaultCatalog, KnowsEachOffersGpuAndLink) {
  const auto link = [](std::string_view id) {
    return std::string(offer_link_kind(**catalog().find_offer(id), catalog()));
  };
  EXPECT_EQ(link("azure-standard-nd96isr-h100-v5"), "nvswitch");  // 8 x H100 SXM on NVLink 4
  EXPECT_EQ(link("aws-g4dn.12xlarge-us-east-1"), "pcie");         // 4 x T4 on PCIe 3.0 x16
  EXPECT_EQ(link("runpod-2x-mi300x-secure"), "infinity-fabric");
  EXPECT_EQ(link("runpod-1x-mi300x-secure"), "");  // one GPU talks to no other
  // Each offer's GPU, link kind and each GPU's family are found once for the catalog; a copy of
  // an entry, which is none of the catalog's, is looked up by name: the answers agree.
  for (const Offer& offer : catalog().offers) {
    const Offer copy = offer;
    EXPECT_EQ(catalog().offer_gpu(offer), catalog().gpu(offer.gpu)) << offer.id;
    EXPECT_EQ(catalog().offer_gpu(copy), catalog().gpu(offer.gpu)) << offer.id;
    EXPECT_EQ(offer_link_kind(offer, catalog()), offer_link_kind(copy, catalog())) << offer.id;
  }
  for (const Gpu& gpu : catalog().gpus) {
    const Gpu copy = gpu;
    ASSERT_NE(catalog().family_of(gpu), nullptr) << gpu.id;
    EXPECT_EQ(catalog().family_of(gpu)->id, gpu.architecture);
    EXPECT_EQ(catalog().family_of(gpu), catalog().family_of(copy)) << gpu.id;
  }
}

TEST(DefaultCatalog, ACatalogAddedToAfterAQuestionAnswersForItsEntriesAsTheyAre) {
  Catalog built;
  built.gpus.push_back({.id = "a", .architecture = "ampere", .gpu_link = "nvlink-bridge"});
  built.families.push_back({.id = "ampere"});
  built.interconnects.push_back({.id = "nvlink-3", .family = "nvlink"});
  built.offers.push_back({.id = "two-a", .gpu = "a", .gpu_count = 2, .gpu_link = "nvlink-3"});
  EXPECT_EQ(built.offer_gpu(built.offers[0]), &built.gpus[0]);
  EXPECT_EQ(offer_link_kind(built.offers[0], built), "nvlink-bridge");
  EXPECT_EQ(built.family_of(built.gpus[0]), &built.families[0]);
  // The vectors grow and move: the facts found before are not used.
  for (int i = 0; i < 64; ++i) built.gpus.push_back({.id = "b", .architecture = "hopper"});
  built.families.push_back({.id = "hopper"});
  built.offers.push_back({.id = "two-b", .gpu = "b", .gpu_count = 2, .gpu_link = "pcie-4-x16"});
  EXPECT_EQ(built.offer_gpu(built.offers[0]), &built.gpus[0]);
  EXPECT_EQ(built.offer_gpu(built.offers[1]), &built.gpus[1]);
  EXPECT_EQ(offer_link_kind(built.offers[1], built), "pcie");
  EXPECT_EQ(built.family_of(built.gpus[64]), &built.families[1]);
}

}  // namespace
}  // namespace rigplan
