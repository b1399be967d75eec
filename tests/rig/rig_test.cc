#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "rigplan/build.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;

CatalogFile read(const std::string& name) {
  const std::string path = std::string(RIGPLAN_TEST_DATA) + "/builds/" + name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return {name, text.str()};
}

std::vector<std::string> rules_with(const BuildReport& r, std::string_view status) {
  std::vector<std::string> out;
  for (const auto& c : r.checks) {
    if (c.status == status) out.push_back(c.rule);
  }
  return out;
}

struct Golden {
  const char* file;
  const char* verdict;
  std::vector<std::string> fails;  // exactly these rules fail
  std::vector<std::string> warns;  // at least these rules warn
  const char* why;
};

// Real builds, good and broken; each expected verdict is explained in `why`.
const Golden kGolden[] = {
    {"4x-rtx3090-1600w.toml",
     "fail",
     {"psu-capacity"},
     {"slot-spacing"},
     "Dettmers: 'for a 4x RTX 3090 build ... look for high wattage PSUs (+1700W)'. 4 x 350 W + a "
     "280 W "
     "Threadripper + 150 W = 1,830 W sustained on a 1,600 W unit; the 3-slot cards hang on "
     "extenders."},
    {"4x-rtx3090-power-limited.toml",
     "warn",
     {},
     {"psu-capacity", "slot-spacing", "heat-noise"},
     "Puget's fix: capped at 280 W the load is 1,550 W, within the 1,600 W unit but below the 1.5x "
     "an ATX 2.x "
     "unit wants for transients."},
    {"4x-rtx3090-us-15a.toml",
     "fail",
     {"wall-circuit"},
     {},
     "The same power-limited box on a US 15 A outlet: 1,550 W / 94% = 1,649 W at the wall, more "
     "than the 1,440 W "
     "a 15 A circuit carries continuously."},
    {"2x-rtx4090-am5.toml",
     "fail",
     {"psu-capacity"},
     {"slot-spacing", "psu-connectors"},
     "Two RTX 4090s on a consumer AM5 board with a 1,000 W PSU: 2 x 450 + 170 + 150 = 1,220 W. The "
     "x8/x8 slots "
     "at positions 1 and 4 leave no gap between 3-slot open-air cards."},
    {"2x-rtx4090-am5-1600w.toml",
     "warn",
     {},
     {"slot-spacing"},
     "With a 1,600 W ATX 3.0 unit with two 12VHPWR cables the power is fine (1,220 W sustained, "
     "1.31x); the "
     "3-slot open-air cards on slots 1 and 4 still touch."},
    {"8x-a100-sxm.toml",
     "pass",
     {},
     {},
     "An HGX A100 server as sold: 8 SXM sockets with NVSwitch, dual EPYC, 2 TB RAM, HDR "
     "InfiniBand, 3+3 3 kW "
     "PSUs on a 208 V 60 A PDU."},
    {"4x-rtx-a6000-workstation.toml",
     "warn",
     {},
     {"heat-noise"},
     "Four 2-slot blower RTX A6000s side by side on a WRX80 board: blowers exhaust out of the "
     "case, so no "
     "spacing warning; 1,630 W sustained on 2 x 1,500 W. Only the heat in an office warns."},
    {"4x-rtx4090-7-slot-case.toml",
     "fail",
     {"slot-spacing"},
     {},
     "Four triple-slot cards need 12 slot positions; the board's slots are 1 apart and the case "
     "has 7: it cannot "
     "physically exist."},
    {"4x-rtx5090-rack.toml",
     "warn",
     {},
     {"gpu-cooling", "geforce-licence"},
     "GeForce cards in a datacentre rack: open-air coolers suit a server's airflow badly, and the "
     "GeForce driver "
     "licence excludes datacentre use."},
    {"a100-pcie-in-tower.toml",
     "fail",
     {"gpu-cooling"},
     {},
     "A passively cooled A100 PCIe in a desktop tower overheats: it relies on a server's "
     "front-to-back airflow."},
    {"2-node-10gbe.toml",
     "fail",
     {"network"},
     {},
     "Two 4-GPU servers training together over 10 GbE: d2l asks for >= 50 Gbit/s InfiniBand."},
    {"8x-h100-on-hgx-a100.toml",
     "fail",
     {"gpu-module"},
     {},
     "SXM5 H100 modules do not fit the SXM4 sockets of an HGX A100 baseboard."},
    {"1x-rtx4090-desktop.toml",
     "pass",
     {},
     {},
     "One RTX 4090 in an AM5 desktop with a 1,000 W ATX 3.x PSU: 720 W sustained (1.39x headroom), "
     "800 W at the "
     "wall on a 15 A outlet."},
};

TEST(BuildCheck, GoldenBuilds) {
  for (const Golden& g : kGolden) {
    SCOPED_TRACE(std::string(g.file) + ": " + g.why);
    auto build = parse_build(read(g.file), default_catalog());
    ASSERT_TRUE(build.ok()) << build.status().message();
    const BuildReport r = check_build(*build);
    EXPECT_EQ(r.verdict, g.verdict);
    EXPECT_EQ(rules_with(r, "fail"), g.fails);
    const auto warns = rules_with(r, "warn");
    for (const auto& w : g.warns) {
      EXPECT_NE(std::find(warns.begin(), warns.end(), w), warns.end())
          << "expected a warning from " << w;
    }
  }
}

TEST(BuildCheck, PowerNumbersByHand) {
  auto build = parse_build(read("4x-rtx3090-1600w.toml"), default_catalog());
  ASSERT_TRUE(build.ok()) << build.status().message();
  const BuildReport r = check_build(*build);
  EXPECT_DOUBLE_EQ(r.sustained_w, 4 * 350 + 280 + 150);
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [](const BuildCheck& c) { return c.rule == "psu-capacity"; });
  ASSERT_NE(it, r.checks.end());
  EXPECT_EQ(it->message,
            "4 x 350 W + CPU 280 W + 150 W other = 1830 W sustained is more than 1600 W of PSUs");
}

// RAM, drives and risers are priced by data/catalog/parts.toml: 128 GB x 4 USD + 2 TB x 70 USD
// + 4 risers x 40 USD on top of the named parts; an overlay's RAM price moves the total by 128 x
// the difference.
TEST(BuildCheck, PricesRamDrivesAndRisersFromTheCatalogParts) {
  auto build = parse_build(read("4x-rtx3090-1600w.toml"), default_catalog());
  ASSERT_TRUE(build.ok()) << build.status().message();
  const Build& b = *build;
  const double named = b.cpu->price_usd + b.board->price_usd + b.chassis->price_usd +
                       4 * new_price(*b.gpu)->usd + b.psus.front()->price_usd;
  EXPECT_DOUBLE_EQ(check_build(b).price_usd, named + 128 * 4 + 2 * 70 + 4 * 40);

  auto dearer = load_catalog(embedded_catalog(), {{"ram.toml",
                                                   "[[part]]\nid = \"ram-ddr5\"\n"
                                                   "price_usd = 10.0\n"}});
  ASSERT_TRUE(dearer.ok()) << dearer.status().message();
  auto again = parse_build(read("4x-rtx3090-1600w.toml"), *dearer);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_DOUBLE_EQ(check_build(*again).price_usd, named + 128 * 10 + 2 * 70 + 4 * 40);
}

TEST(BuildFile, TyposAndUnknownPartsAreReportedWithPositions) {
  const CatalogFile file{
      "typo.toml",
      "[build]\ngpu = \"rtx-4900\"\ngpu_count = 1\ncpu = \"ryzen-9-7950x\"\n"
      "board = \"asus-tuf-gaming-b650-plus-wifi\"\nchassis = \"nope\"\npsus = []\n"
      "ram_gb = 64\ngpu_colling = \"water\"\n"};
  auto build = parse_build(file, default_catalog());
  ASSERT_FALSE(build.ok());
  const std::string m(build.status().message());
  EXPECT_NE(
      m.find("typo.toml:2:7: build: field 'gpu': unknown GPU 'rtx-4900' (did you mean 'rtx-4090'"),
      std::string::npos)
      << m;
  EXPECT_NE(
      m.find("typo.toml:9:15: build: unknown field 'gpu_colling' (did you mean 'gpu_cooling'?)"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("field 'chassis'"), std::string::npos) << m;
}

// A PSU list that fails its own check (one id, not a list of them) is reported once, by its
// field; it is not also "name at least one PSU", which it did name (EntryContext::read_well).
TEST(BuildFile, APsuListOfTheWrongTypeIsReportedOnce) {
  CatalogFile file = read("4x-rtx3090-1600w.toml");
  const std::string list = "psus = [\"evga-supernova-1600-t2\"]";
  ASSERT_NE(file.text.find(list), std::string::npos);
  file.text.replace(file.text.find(list), list.size(), "psus = \"evga-supernova-1600-t2\"");
  auto build = parse_build(file, default_catalog());
  ASSERT_FALSE(build.ok());
  EXPECT_EQ(build.status().message(),
            "4x-rtx3090-1600w.toml:10:8: build '4x RTX 3090 on 1600 W': field 'psus': expected "
            "an array of strings, got a string\n1 problem in 1 file");
}

// build propose for 1, 2, 4 and 8 GPUs yields parts lists that pass every check, in line with
// d2l's guidance for each size.
TEST(BuildPropose, OneTwoFourAndEightGpusPass) {
  const Catalog& c = default_catalog();
  struct Case {
    const char* gpu;
    int count;
    const char* circuit;
  } cases[] = {{"rtx-4090", 1, "us-15a"},
               {"rtx-4090", 2, "us-20a"},
               {"rtx-a6000", 4, "us-20a"},
               {"rtx-4090", 4, "eu-16a"},
               {"a100-sxm4-80gb", 8, "dc-208v-60a"},
               {"l40s", 8, "dc-208v-60a"}};
  for (const auto& k : cases) {
    SCOPED_TRACE(fmt::format("{} x {}", k.count, k.gpu));
    ProposeRequest req;
    req.gpu = c.gpu(k.gpu);
    req.gpu_count = k.count;
    req.circuit = c.find_circuit(k.circuit).value();
    auto p = propose_build(req, c);
    ASSERT_TRUE(p.ok()) << p.status().message();
    // Every rule passes, save the heat of the GPUs themselves in an office.
    const BuildReport again = check_build(p->build);
    EXPECT_NE(again.verdict, "fail");
    for (const auto& check : again.checks) {
      if (check.status != "pass") {
        EXPECT_TRUE(is_inherent_warning(check)) << check.rule << ": " << check.message;
      }
    }
    // d2l: RAM at least the GPUs' memory, NVMe for datasets, and for 8 GPUs a server with 10 GbE.
    EXPECT_GE(p->build.ram_gb, k.count * req.gpu->memory_gb);
    EXPECT_GE(p->build.nvme_tb, 1);
    if (k.count == 8) {
      // d2l's 8-GPU server: a server chassis, dual-socket CPUs, a 10 GbE (or faster) network.
      EXPECT_EQ(p->build.chassis->form, "rack");
      EXPECT_EQ(p->build.cpu_count, 2);
      EXPECT_GE(std::max(p->build.board->onboard_lan_gbit,
                         p->build.nic ? p->build.nic->gbit_per_port : 0.0),
                10);
    }
    if (k.count == 4) {
      // d2l's 4-GPU box: 1,600-2,000 W or more of PSU, Threadripper-class lanes (x8 or better per
      // GPU).
      double psu_w = 0;
      for (const Psu* psu : p->build.psus) psu_w += psu->wattage_w;
      EXPECT_GE(psu_w, 1600);
      const auto lanes =
          std::find_if(again.checks.begin(), again.checks.end(),
                       [](const BuildCheck& check) { return check.rule == "pcie-lanes"; });
      ASSERT_NE(lanes, again.checks.end());
      EXPECT_EQ(lanes->status, "pass");
    }
    if (k.count <= 2) {
      EXPECT_NE(p->build.chassis->form, "rack");
    }
    EXPECT_FALSE(p->reasons.empty());
  }
}

TEST(BuildPropose, FourRtx4090sDoNotPassOnA15AmpOutlet) {
  ProposeRequest req;
  req.gpu = default_catalog().gpu("rtx-4090");
  req.gpu_count = 4;
  req.circuit = default_catalog().find_circuit("us-15a").value();
  auto p = propose_build(req, default_catalog());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("wall-circuit"), std::string::npos) << p.status().message();
}

TEST(BuildCheck, ModulesOnTheirOwnBaseboard) {
  auto build = parse_build(read("8x-h100-on-hgx-a100.toml"), default_catalog());
  ASSERT_TRUE(build.ok()) << build.status().message();
  const BuildReport r = check_build(*build);
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [](const BuildCheck& c) { return c.rule == "gpu-module"; });
  ASSERT_NE(it, r.checks.end());
  EXPECT_EQ(it->status, "fail");
  EXPECT_EQ(it->message,
            "h100-sxm5-80gb is an sxm5 module; supermicro-as-4124go-nart-board takes sxm4 modules");
  auto a100 = parse_build(read("8x-a100-sxm.toml"), default_catalog());
  ASSERT_TRUE(a100.ok()) << a100.status().message();
  const BuildReport ok = check_build(*a100);
  const auto pass = std::find_if(ok.checks.begin(), ok.checks.end(),
                                 [](const BuildCheck& c) { return c.rule == "gpu-module"; });
  ASSERT_NE(pass, ok.checks.end());
  EXPECT_EQ(pass->status, "pass");
  EXPECT_EQ(pass->message, "sxm4 modules on supermicro-as-4124go-nart-board's sxm4 baseboard");
}

// Eight H100 SXM5 without a circuit: the SXM5 baseboard (not the cheaper HGX A100 one), checked
// against the catalog's datacentre circuit, and the proposal says so.
TEST(BuildPropose, EightH100sGetAnSxm5Baseboard) {
  ProposeRequest req;
  req.gpu = default_catalog().gpu("h100-sxm5-80gb");
  req.gpu_count = 8;
  auto p = propose_build(req, default_catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->build.board->id, "supermicro-sys-821ge-tnhr-board");
  EXPECT_NE(p->report.verdict, "fail");
  const auto module = std::find_if(p->report.checks.begin(), p->report.checks.end(),
                                   [](const BuildCheck& c) { return c.rule == "gpu-module"; });
  ASSERT_NE(module, p->report.checks.end());
  EXPECT_EQ(module->status, "pass");
  EXPECT_EQ(p->build.circuit->id, "dc-208v-60a");
  ASSERT_FALSE(p->notes.empty());
  EXPECT_EQ(p->notes[0].rfind("No circuit named: a rack server is checked against dc-208v-60a", 0),
            0u)
      << p->notes[0];
}

// Four RTX 4090s draw more than a US 15 A outlet carries: without a named circuit that is a
// warning (it needs a circuit of its own), and the proposal stands with its warnings.
TEST(BuildPropose, WarningsOnlyStillPropose) {
  ProposeRequest req;
  req.gpu = default_catalog().gpu("rtx-4090");
  req.gpu_count = 4;
  auto p = propose_build(req, default_catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->report.verdict, "warn");
  EXPECT_EQ(p->build.circuit->id, "us-15a");
  const auto circuit = std::find_if(p->report.checks.begin(), p->report.checks.end(),
                                    [](const BuildCheck& c) { return c.rule == "wall-circuit"; });
  ASSERT_NE(circuit, p->report.checks.end());
  EXPECT_EQ(circuit->status, "warn");
  EXPECT_NE(circuit->message.find("it needs a dedicated circuit"), std::string::npos);
  ASSERT_EQ(p->notes.size(), 2u);
  EXPECT_EQ(p->notes[0],
            "No circuit named: checked against us-15a (" + p->build.circuit->name +
                "), the usual outlet in region us; --circuit or --region names another");
  EXPECT_EQ(
      p->notes[1].rfind("No parts list in the catalog avoids every warning; this one keeps ", 0),
      0u);
}

}  // namespace
}  // namespace rigplan
