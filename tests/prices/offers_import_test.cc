// Importing price lists: every value here can be read off the fixture rows in
// tests/data/skypilot/ (cut from rigplan shared/data/skypilot_prices.csv) and the catalog.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rigplan/prices.h"

namespace rigplan {
namespace {

// The shipped catalog without the offers imported from the SkyPilot snapshot (the files that
// scripts/refresh_offers.sh replaces): the fixtures, cut from that snapshot, are new to it.
const Catalog& catalog() {
  static const Catalog kCatalog = [] {
    std::vector<CatalogFile> files;
    for (const auto& f : embedded_catalog()) {
      if (std::filesystem::path(f.path).filename().string().rfind("offers-skypilot-", 0) != 0)
        files.push_back(f);
    }
    return std::move(load_catalog(files)).value();
  }();
  return kCatalog;
}

std::string fixture(const std::string& name) {
  return std::string(RIGPLAN_TEST_DATA) + "/skypilot/" + name;
}

OfferImport import(const std::vector<std::string>& paths, OfferImportOptions options = {}) {
  if (options.format.empty()) options.format = "skypilot";
  if (!options.as_of) options.as_of = Date{2025, 6, 1};
  std::vector<PriceListFile> files;
  for (const auto& path : paths) {
    auto file = read_price_list(path);
    EXPECT_TRUE(file.ok()) << file.status().message();
    files.push_back(std::move(file).value());
  }
  auto result = import_offers(files, options, catalog());
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : OfferImport{};
}

PriceListFile text_file(std::string path, std::string text) {
  return {std::move(path), std::move(text), Date{2026, 1, 15}};
}

std::string import_error(const std::vector<PriceListFile>& files, OfferImportOptions options) {
  auto result = import_offers(files, options, catalog());
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.status().message();
}

const Offer* find(const OfferImport& in, std::string_view id) {
  for (const auto& f : in.files) {
    for (const auto& o : f.offers) {
      if (o.id == id) return &o;
    }
  }
  return nullptr;
}

size_t offer_count(const OfferImport& in) {
  size_t n = 0;
  for (const auto& f : in.files) n += f.offers.size();
  return n;
}

TEST(OffersImport, ReadsEveryCloudOfTheSharedData) {
  // One fixture per cloud of rigplan shared/data/skypilot_prices.csv, as SkyPilot writes
  // vms.csv; runpod_vms.csv has its columns in another order. {cloud, offers, unmapped names}.
  struct Expected {
    const char* cloud;
    size_t offers, unmapped;
  };
  const Expected kClouds[] = {{"aws", 30, 1},       {"cudo", 8, 0},           {"gcp", 14, 1},
                              {"hyperbolic", 8, 0}, {"lambda", 4, 0},         {"mithril", 5, 0},
                              {"nebius", 8, 0},     {"primeintellect", 5, 0}, {"runpod", 6, 0},
                              {"seeweb", 7, 1},     {"shadeform", 7, 0},      {"simplepod", 3, 2},
                              {"vast", 8, 0}};
  for (const auto& e : kClouds) {
    const OfferImport in = import({fixture(std::string(e.cloud) + "_vms.csv")});
    ASSERT_EQ(in.inputs.size(), 1u) << e.cloud;
    EXPECT_EQ(in.inputs[0].provider, e.cloud);
    ASSERT_EQ(in.files.size(), 1u) << e.cloud;
    EXPECT_EQ(in.files[0].file_name, fmt::format("offers-skypilot-{}.toml", e.cloud));
    EXPECT_EQ(offer_count(in), e.offers) << e.cloud;
    EXPECT_EQ(in.unmapped.size(), e.unmapped) << e.cloud;
  }
}

TEST(OffersImport, AwsP5IsAnEfaClusterOfEightH100Sxm) {
  const OfferImport in = import({fixture("aws_vms.csv")});
  // aws_vms.csv lines 33-35: p5.48xlarge at 123.19496 (ap-northeast-1), 98.32 with spot 20.9934
  // (us-east-1) and 98.32 with spot 30.5798 (us-west-2): three prices, three offers.
  const Offer* p5 = find(in, "aws-p5.48xlarge-us-east-1");
  ASSERT_NE(p5, nullptr);
  EXPECT_EQ(p5->gpu, "h100-sxm5-80gb");
  EXPECT_EQ(p5->gpu_count, 8);
  EXPECT_DOUBLE_EQ(p5->price_per_hour_usd, 98.32);
  EXPECT_DOUBLE_EQ(*p5->spot_price_per_hour_usd, 20.9934);
  EXPECT_EQ(p5->region, "aws-us-east-1");
  EXPECT_EQ(p5->price_date, (Date{2025, 6, 1}));
  EXPECT_EQ(p5->gpu_link, "nvlink-4");  // the H100 SXM5's 900 GB/s
  EXPECT_EQ(p5->fabric, "aws-efa-p5.48xlarge");
  EXPECT_DOUBLE_EQ(*p5->fabric_gbit_per_gpu, 400);  // 3200 Gb/s of EFA for 8 GPUs
  EXPECT_NE(p5->price_caveat.find("June 2025"), std::string::npos) << p5->price_caveat;
  EXPECT_NE(find(in, "aws-p5.48xlarge-us-west-2"), nullptr);
  EXPECT_NE(find(in, "aws-p5.48xlarge-ap-northeast-1"), nullptr);
  // A single-GPU instance has no link and no fabric.
  const Offer* g5 = find(in, "aws-g5.xlarge-us-west-2");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(g5->gpu, "a10g");
  EXPECT_TRUE(g5->gpu_link.empty());
  EXPECT_TRUE(g5->fabric.empty());
}

TEST(OffersImport, ListsTheNamesItCannotMap) {
  const OfferImport in = import({fixture("aws_vms.csv"), fixture("gcp_vms.csv")});
  ASSERT_EQ(in.unmapped.size(), 2u);
  EXPECT_EQ(in.unmapped[0].provider, "aws");
  EXPECT_EQ(in.unmapped[0].name, "Radeon Pro V520");
  EXPECT_EQ(in.unmapped[0].rows, 4);
  EXPECT_EQ(in.unmapped[0].example, "g4ad.xlarge");
  EXPECT_EQ(in.unmapped[0].reason, "no GPU of the catalog is called so");
  EXPECT_EQ(in.unmapped[1].provider, "gcp");
  EXPECT_EQ(in.unmapped[1].name, "P100");
}

TEST(OffersImport, RegionsAtOnePriceAreOneOffer) {
  const OfferImport in = import({fixture("lambda_vms.csv")});
  // 6 instance types, each at one price in 17 regions: 102 rows, 6 offers, of which the catalog
  // prices two at a later date (offers.toml, 2026-05-07).
  EXPECT_EQ(in.inputs[0].rows, 102);
  ASSERT_EQ(offer_count(in), 4u);
  ASSERT_EQ(in.skipped.size(), 2u);
  EXPECT_EQ(in.skipped[0].id, "lambda-gpu-1x-a100");
  EXPECT_EQ(in.skipped[1].id, "lambda-gpu-1x-rtx6000");
  const Offer* h100 = find(in, "lambda-gpu-8x-h100-sxm5");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->price_per_hour_usd, 23.92);
  EXPECT_EQ(h100->gpu_link, "nvlink-4");
  EXPECT_TRUE(h100->fabric.empty());  // Lambda's on-demand instances are not sold as clusters
  EXPECT_NE(h100->provenance.notes.find("the same price in 17 regions"), std::string::npos)
      << h100->provenance.notes;
  // Names that say nothing of the form factor: Lambda's 1-GPU A100 is the PCIe card.
  EXPECT_EQ(find(in, "lambda-gpu-8x-a100")->gpu, "a100-sxm4-40gb");
  EXPECT_EQ(find(in, "lambda-gpu-2x-a6000")->gpu_link, "pcie-4-x16");
}

TEST(OffersImport, GcpGpuRowsWithoutAHostSaySo) {
  const OfferImport in = import({fixture("gcp_vms.csv")});
  const Offer* h100 = find(in, "gcp-gpu-only-h100-x8-us-central1");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->instance, "gpu-only:H100-x8");
  EXPECT_EQ(h100->price_caveat,
            "the GPUs alone: gcp bills the host VM (vCPUs, memory) on top, and the price list "
            "has no host row for this instance");
  EXPECT_EQ(h100->fabric, "eth-200g");
  EXPECT_DOUBLE_EQ(*h100->fabric_gbit_per_gpu, 100);
}

TEST(OffersImport, AddsTheHostVmWhenTheListHasIt) {
  const std::string text =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
      "a2-highgpu-1g,,,12,85,0.75,0.25,us-central1\n"
      "a2-highgpu-1g,A100,1,,,2.93,0.88,us-central1\n";
  auto in = import_offers({text_file("gcp/vms.csv", text)},
                          {.format = "skypilot", .as_of = Date{2025, 6, 1}}, catalog());
  ASSERT_TRUE(in.ok()) << in.status().message();
  const Offer* a100 = find(*in, "gcp-a2-highgpu-1g");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->price_per_hour_usd, 0.75 + 2.93);
  EXPECT_DOUBLE_EQ(*a100->spot_price_per_hour_usd, 0.25 + 0.88);
  EXPECT_EQ(*a100->vcpus, 12);
  EXPECT_TRUE(a100->price_caveat.empty());
  EXPECT_EQ(a100->gpu, "a100-sxm4-40gb");
}

TEST(OffersImport, ColumnsAreReadByName) {
  const std::string usual =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
      "8x_H100-SXM_SECURE,H100-SXM,8.0,160,640,23.92,21.52,US\n";
  const std::string shuffled =
      "Region,Price,SpotPrice,AcceleratorCount,AcceleratorName,InstanceType,MemoryGiB,vCPUs\n"
      "US,23.92,21.52,8.0,H100-SXM,8x_H100-SXM_SECURE,640,160\n";
  const OfferImportOptions options{
      .format = "skypilot", .provider = "runpod", .as_of = Date{2025, 6, 1}};
  auto a = import_offers({text_file("a.csv", usual)}, options, catalog());
  auto b = import_offers({text_file("b.csv", shuffled)}, options, catalog());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(offer_count(*a), 1u);
  ASSERT_EQ(offer_count(*b), 1u);
  const Offer& x = a->files[0].offers[0];
  const Offer& y = b->files[0].offers[0];
  EXPECT_EQ(x.id, "runpod-8x-h100-sxm-secure");
  EXPECT_EQ(x.id, y.id);
  EXPECT_EQ(x.gpu, y.gpu);
  EXPECT_DOUBLE_EQ(x.price_per_hour_usd, y.price_per_hour_usd);
  EXPECT_EQ(x.spot_price_per_hour_usd, y.spot_price_per_hour_usd);
  EXPECT_EQ(x.vcpus, y.vcpus);
  EXPECT_EQ(x.ram_gb, y.ram_gb);
}

TEST(OffersImport, NvlinkInAnInstanceTypeIsNotTheNvlCard) {
  // shadeform_vms.csv line 3: "excesssupply_H200-sxm5x8-NVLINK" is 8 H200 SXM on NVLink.
  const OfferImport in = import({fixture("shadeform_vms.csv")});
  const Offer* h200 = find(in, "shadeform-excesssupply-8x-h200-sxm-141gb");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->price_per_hour_usd, 19.6);  // of 19.6 and 26.0 (its -eu listing)
  EXPECT_EQ(h200->gpu_link, "nvlink-4");
}

TEST(OffersImport, MarketplaceListingsOfOneGpuCountAreOneOffer) {
  const OfferImport in = import({fixture("mithril_vms.csv")});
  // Four listings of 8 x H100 SXM (two hosts, two regions) at 8 and 12 USD/h: the cheapest.
  const Offer* h100 = find(in, "mithril-8x-h100-sxm5-80gb");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->price_per_hour_usd, 8.0);
  EXPECT_EQ(h100->instance, "h100-80gb.sxm.8x");
  EXPECT_NE(h100->provenance.notes.find("the cheapest of 4 listings"), std::string::npos)
      << h100->provenance.notes;
  // A reseller keeps the upstream cloud its instance types name.
  const OfferImport pi = import({fixture("primeintellect_vms.csv")});
  const Offer* sxm = find(pi, "primeintellect-runpod-1x-a100-sxm4-80gb");
  ASSERT_NE(sxm, nullptr);
  EXPECT_NE(find(pi, "primeintellect-runpod-1x-a100-pcie-80gb"), nullptr);
}

TEST(OffersImport, ReadsTheUsersOwnCsv) {
  const std::string text =
      "provider,instance,gpu,count,price,spot_price,region,as_of,source\n"
      "my-dealer,4x RTX 4090 box,RTX 4090,4,2.40,,de,2026-11-02,quote 1234\n"
      "my-dealer,H100 node,h100-sxm5-80gb,8,16.00,9.5,,,\n";
  auto in = import_offers({text_file("quotes.csv", text)},
                          {.format = "csv", .provider_kind = "gpu-cloud"}, catalog());
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(in->files.size(), 1u);
  EXPECT_EQ(in->files[0].file_name, "offers-quotes.toml");
  const Offer* box = find(*in, "my-dealer-4x-rtx-4090-box-de");
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->gpu, "rtx-4090");
  EXPECT_EQ(box->region, "de");
  EXPECT_EQ(box->price_date, (Date{2026, 11, 2}));
  EXPECT_EQ(box->gpu_link, "pcie-4-x16");
  EXPECT_EQ(box->provenance.source, "quote 1234 (quotes.csv line 2)");
  const Offer* node = find(*in, "my-dealer-h100-node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->price_date, (Date{2026, 1, 15}));  // no as_of: the file's modification date
  EXPECT_EQ(node->gpu_link, "nvlink-4");
}

TEST(OffersImport, BadInputNamesTheFileLineAndColumn) {
  const OfferImportOptions csv{.format = "csv", .provider_kind = "gpu-cloud"};
  EXPECT_EQ(
      import_error({text_file("q.csv", "provider,instance,gpu,count\nx,y,rtx-4090,1\n")}, csv),
      "q.csv:1: missing column 'price'; expected the header "
      "provider,instance,gpu,count,price,spot_price,region,as_of");
  EXPECT_EQ(import_error({text_file("q.csv",
                                    "provider,instance,gpu,count,price\n"
                                    "x,y,rtx-4090,1,cheap\n")},
                         csv),
            "q.csv:2:5: price 'cheap' is not accepted; expected a number >= 0");
  EXPECT_EQ(import_error({text_file("q.csv",
                                    "provider,instance,gpu,count,price,as_of\n"
                                    "x,y,rtx-4090,1,1.5,2026-13-01\n")},
                         csv),
            "q.csv:2:6: as_of '2026-13-01' is not a date; expected YYYY-MM-DD");
  EXPECT_EQ(import_error({text_file("vms.csv", "InstanceType,AcceleratorName,Price\n")},
                         {.format = "skypilot", .provider = "aws"}),
            "vms.csv:1: missing column 'AcceleratorCount'; a SkyPilot vms.csv has InstanceType, "
            "AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, SpotPrice and Region");
  EXPECT_EQ(import_error({text_file("prices/vms.csv",
                                    "InstanceType,AcceleratorName,AcceleratorCount,Price\n"
                                    "x,T4,1,0.5\n")},
                         {.format = "skypilot"}),
            "prices/vms.csv: cannot tell the provider of line 2: pass --provider (known: 'aws', "
            "'gcp', 'azure', 'lambda', 'runpod', 'nebius', 'cudo', 'seeweb', 'vast', "
            "'hyperbolic', 'simplepod', 'mithril', 'primeintellect' or 'shadeform')");
  EXPECT_EQ(import_error({}, {.format = "skypilt"}),
            "--format 'skypilt' is not accepted; expected 'skypilot' or 'csv' (did you mean "
            "'skypilot'?)");
}

TEST(OffersImport, RefusesAGpuCountNoInstanceHas) {
  // 1e30 is a whole number an int cannot hold: refused before it becomes one.
  const OfferImportOptions csv{.format = "csv", .provider_kind = "gpu-cloud"};
  EXPECT_EQ(import_error({text_file("q.csv",
                                    "provider,instance,gpu,count,price\n"
                                    "x,y,rtx-4090,1e30,1.5\n")},
                         csv),
            "q.csv:2:4: count '1e30' is not accepted; expected a whole number from 1 to 1024");
  EXPECT_EQ(import_error({text_file("q.csv",
                                    "provider,instance,gpu,count,price\n"
                                    "x,y,rtx-4090,2.5,1.5\n")},
                         csv),
            "q.csv:2:4: count '2.5' is not accepted; expected a whole number from 1 to 1024");
  EXPECT_EQ(import_error({text_file("aws/vms.csv",
                                    "InstanceType,AcceleratorName,AcceleratorCount,Price\n"
                                    "x,T4,1025,0.5\n")},
                         {.format = "skypilot"}),
            "aws/vms.csv:2:3: AcceleratorCount '1025' is not accepted; expected a whole number "
            "from 1 to 1024");
}

TEST(OffersImport, RefusesAGpuInfoSizeThatIsNoNumber) {
  // The size's digits and dots once went to std::stod, which threw on "." (a fuzz finding).
  const std::string header = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price\n";
  EXPECT_EQ(
      import_error({text_file("aws/vms.csv", header + "x,H100,1,\"{'MemoryInfo': {'SizeInMiB': "
                                                      ".}}\",0.5\n")},
                   {.format = "skypilot"}),
      "aws/vms.csv:2:4: GpuInfo's SizeInMiB '.' is not accepted; expected a number > 0");
  EXPECT_EQ(import_error({text_file("aws/vms.csv", header + "x,H100,1,\"'SizeInMiB': " +
                                                       std::string(400, '9') + "\",0.5\n")},
                         {.format = "skypilot"}),
            "aws/vms.csv:2:4: GpuInfo's SizeInMiB '" + std::string(64, '9') +
                "...' is not accepted; expected a number > 0");
}

// A megabyte in one cell is refused with a message that quotes 64 bytes of it. The provider
// check and the GpuInfo size were regular expressions, which recurse per character: a 1 MiB
// provider or a 1 MiB run of digits or spaces after 'SizeInMiB' ended the process (SIGSEGV), and
// a 2 KB provider was quoted whole (a fuzz finding, fuzz/corpus/price_list/).
TEST(OffersImport, AMegabyteCellIsRefusedWithAShortMessage) {
  const OfferImportOptions csv{.format = "csv", .provider_kind = "gpu-cloud"};
  const std::string mib(1 << 20, 'a');
  const std::string quoted = std::string(64, 'a') + "...";
  const std::string own = "provider,instance,gpu,count,price\n";
  EXPECT_EQ(import_error({text_file("q.csv", own + mib + ",y,rtx-4090,1,1.5\n")}, csv),
            "q.csv:2:1: provider '" + quoted +
                "' is not accepted; expected at most 256 lowercase letters, digits, '-' and '.'");
  EXPECT_EQ(import_error({text_file("q.csv", own + "x," + mib + ",rtx-4090,1,1.5\n")}, csv),
            "q.csv:2:2: instance '" + quoted + "' is 1048576 bytes long; at most 256 are accepted");
  EXPECT_EQ(import_error({text_file("q.csv", own + "x,y," + mib + ",1,1.5\n")}, csv),
            "q.csv:2:3: gpu '" + quoted + "' is 1048576 bytes long; at most 256 are accepted");
  EXPECT_EQ(import_error({text_file("q.csv", own + "x,y,rtx-4090,1," + mib + "\n")}, csv),
            "q.csv:2:5: price '" + quoted + "' is not accepted; expected a number >= 0");
  const std::string sky = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,Region\n";
  const OfferImportOptions aws{.format = "skypilot"};
  EXPECT_EQ(import_error({text_file("aws/vms.csv", sky + mib + ",H100,1,,0.5,us-east-1\n")}, aws),
            "aws/vms.csv:2:1: InstanceType '" + quoted +
                "' is 1048576 bytes long; at most 256 are accepted");
  EXPECT_EQ(import_error({text_file("aws/vms.csv", sky + "x,H100,1,,0.5," + mib + "\n")}, aws),
            "aws/vms.csv:2:6: Region '" + quoted +
                "' is 1048576 bytes long; at most 256 are "
                "accepted");
  // The size after a megabyte of spaces is still read; a megabyte of digits is no number.
  EXPECT_EQ(import_error({text_file("aws/vms.csv", sky + "x,H100,1,\"'SizeInMiB':" +
                                                       std::string(1 << 20, ' ') + ".\",0.5,\n")},
                         aws),
            "aws/vms.csv:2:4: GpuInfo's SizeInMiB '.' is not accepted; expected a number > 0");
  EXPECT_EQ(import_error({text_file("aws/vms.csv", sky + "x,H100,1,\"'SizeInMiB': " +
                                                       std::string(1 << 20, '7') + "\",0.5,\n")},
                         aws),
            "aws/vms.csv:2:4: GpuInfo's SizeInMiB '" + std::string(64, '7') +
                "...' is not accepted; expected a number > 0");
}

// An offer's kind is one the catalog loads: an import that wrote another would break every later
// command.
TEST(OffersImport, RefusesAProviderKindTheCatalogDoesNotLoad) {
  EXPECT_EQ(import_error({}, {.format = "csv", .provider_kind = "gpu_cloud"}),
            "--provider-kind 'gpu_cloud' is not accepted; expected 'hyperscaler', 'gpu-cloud', "
            "'marketplace' or 'serverless' (did you mean 'gpu-cloud'?)");
}

// A rules file (--rules) is the user's input too: its problems name its line, its patterns are
// bounded (the regex compiler recursed per character: a 1 MiB pattern ended the process) and run
// without backtracking (this one ran for minutes on a 250-byte instance type).
TEST(OffersImport, ARulesFileIsCheckedAndItsPatternsRunInPolynomialTime) {
  const auto rules = [](const std::string& pattern) {
    return CatalogFile{"rules.toml",
                       "[[gpu_name]]\nname = \"RTX 4090\"\ngpu = \"rtx-3090\"\n"
                       "instance = \"" +
                           pattern + "\"\nwhy = \"a test\"\n"};
  };
  OfferImportOptions csv{.format = "csv", .provider_kind = "gpu-cloud"};
  const std::string a250(250, 'a');
  const auto list = text_file("q.csv", "provider,instance,gpu,count,price\nx," + a250 +
                                           ",RTX 4090,1,1.5\nx," + a250 + "x,RTX 4090,1,1.5\n");
  csv.rules = {rules("(")};
  EXPECT_EQ(import_error({list}, csv),
            "rules.toml:4:12: gpu_name: field 'instance': '(' is not a regular expression: "
            "Mismatched '(' and ')' in regular expression\n1 problem in 1 file");
  csv.rules = {rules(std::string(1 << 20, 'a'))};
  EXPECT_EQ(import_error({list}, csv),
            "rules.toml:4:12: gpu_name: field 'instance': '" + std::string(64, 'a') +
                "...' is 1048576 bytes long; at most 256 are accepted\n1 problem in 1 file");
  std::string backtracks;
  for (int i = 0; i < 24; ++i) backtracks += ".*";
  csv.rules = {rules(backtracks + "x$")};
  auto in = import_offers({list}, csv, catalog());
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_EQ(offer_count(*in), 2u);
  for (const Offer& o : in->files[0].offers) {
    EXPECT_EQ(o.gpu, o.instance.ends_with('x') ? "rtx-3090" : "rtx-4090") << o.instance;
  }
}

// An [[instance]] rule's line rate written as text is reported once, by its field; it is not
// also "'fabric' and 'fabric_gbit_per_gpu' go together", which the user did write together
// (EntryContext::read_well).
TEST(OffersImport, ARulesFieldThatFailsIsReportedOnce) {
  const auto rules = [](const std::string& rate) {
    return CatalogFile{"rules.toml",
                       "[[instance]]\nprovider = \"x\"\ninstance = \"^a$\"\n"
                       "fabric = \"aws-efa-p4d.24xlarge\"\nfabric_gbit_per_gpu = " +
                           rate + "\nsource = \"a test\"\nconfidence = \"recall\"\n"};
  };
  OfferImportOptions csv{.format = "csv", .provider_kind = "gpu-cloud"};
  const auto list = text_file("q.csv", "provider,instance,gpu,count,price\nx,a,RTX 4090,1,1.5\n");
  csv.rules = {rules("\"50\"")};
  EXPECT_EQ(import_error({list}, csv),
            "rules.toml:5:23: instance: field 'fabric_gbit_per_gpu': expected a number, got a "
            "string\n1 problem in 1 file");
  csv.rules = {rules("50")};
  EXPECT_TRUE(import_offers({list}, csv, catalog()).ok());
}

TEST(OffersImport, KeepsTheCatalogsNewerPrice) {
  // offers.toml prices lambda-gpu-1x-h100-sxm5 on 2026-05-07; a 2025 list does not replace it.
  const std::string text =
      "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n"
      "gpu_1x_h100_sxm5,H100,1,3.29,us-east-1\n";
  auto in = import_offers({text_file("lambda/vms.csv", text)},
                          {.format = "skypilot", .as_of = Date{2025, 6, 1}}, catalog());
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(offer_count(*in), 0u);
  ASSERT_EQ(in->skipped.size(), 1u);
  EXPECT_EQ(in->skipped[0].id, "lambda-gpu-1x-h100-sxm5");
  EXPECT_EQ(in->skipped[0].reason.rfind("the catalog prices it at 2026-05-07 in ", 0), 0u)
      << in->skipped[0].reason;
}

TEST(OffersImport, WritesAnOverlayThatTheCatalogLoads) {
  namespace fs = std::filesystem;
  // The process id keeps builds that run their tests side by side out of each other's files.
  const fs::path dir =
      fs::temp_directory_path() / ("rigplan-import-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const OfferImport in = import({fixture("nebius_vms.csv")});
  ImportTarget target{embedded_catalog(), {}, dir.string(), false};
  auto written = write_import(in, target);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ASSERT_EQ(written->size(), 1u);
  EXPECT_EQ((*written)[0].path, (dir / "offers-skypilot-nebius.toml").string());
  EXPECT_TRUE((*written)[0].backup.empty());
  // Again: the file is replaced and the previous one kept.
  written = write_import(in, target);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ((*written)[0].backup, (dir / "offers-skypilot-nebius.toml.bak").string());
  auto overlay = read_catalog_dir(dir.string());
  ASSERT_TRUE(overlay.ok());
  auto merged = load_catalog(embedded_catalog(), *overlay);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  const Offer* h200 = nullptr;
  for (const auto& o : merged->offers) {
    if (o.id == "nebius-gpu-h200-sxm-8gpu-128vcpu-1600gb") h200 = &o;
  }
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->fabric, "ib-ndr");
  EXPECT_DOUBLE_EQ(h200->fabric_gbps_per_gpu(), 50);  // 400 Gbit/s
  EXPECT_TRUE(h200->region.empty());  // eu-north1, eu-west1 and us-central1 at one price
  fs::remove_all(dir);
}

TEST(OffersImport, WritesNothingWhenTheCatalogWouldNotLoad) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("rigplan-import-test-broken-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  OfferImport in = import({fixture("nebius_vms.csv")});
  in.files[0].offers[0].gpu_count = 3;  // an instance of 3 GPUs needs a link
  in.files[0].offers[0].gpu_link.clear();
  auto written = write_import(in, {embedded_catalog(), {}, dir.string(), false});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().message().rfind(
                "nothing written: the catalog would not load with the import:\n", 0),
            0u)
      << written.status().message();
  EXPECT_FALSE(fs::exists(dir / "offers-skypilot-nebius.toml"));
}

}  // namespace
}  // namespace rigplan
