// The loader's messages are the user's only guide to a broken catalog: they are checked
// verbatim, each naming file:line:column, the entry, the field and what is accepted.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rigplan/catalog.h"

namespace rigplan {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The valid two-GPU catalog of tests/data/catalog_small, as in-memory files.
std::vector<CatalogFile> small_catalog() {
  const std::string dir = std::string(RIGPLAN_TEST_DATA) + "/catalog_small/";
  return {{"gpus.toml", read_file(dir + "gpus.toml")},
          {"world.toml", read_file(dir + "world.toml")},
          {"families.toml", read_file(dir + "families.toml")}};
}

// The small catalog with `from` replaced by `to` (once) in gpus.toml.
std::vector<CatalogFile> with_gpu_edit(const std::string& from, const std::string& to) {
  auto files = small_catalog();
  std::string& text = files[0].text;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return files;
}

// The small catalog with `from` replaced by `to` (once) in world.toml.
std::vector<CatalogFile> with_world_edit(const std::string& from, const std::string& to) {
  auto files = small_catalog();
  std::string& text = files[1].text;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return files;
}

// The small catalog with `from` replaced by `to` (once) in families.toml.
std::vector<CatalogFile> with_family_edit(const std::string& from, const std::string& to) {
  auto files = small_catalog();
  std::string& text = files[2].text;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return files;
}

std::string problems(const std::vector<CatalogFile>& files,
                     const std::vector<CatalogFile>& overlay = {}) {
  auto catalog = load_catalog(files, overlay);
  EXPECT_FALSE(catalog.ok());
  return catalog.status().message();
}

TEST(CatalogLoader, LoadsTheSmallCatalog) {
  auto catalog = load_catalog(small_catalog());
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  ASSERT_EQ(catalog->gpus.size(), 2u);
  const Gpu& g = catalog->gpus[0];
  EXPECT_EQ(g.id, "rtx-4090");
  EXPECT_DOUBLE_EQ(g.mem_bandwidth_gbps, 1008);
  EXPECT_DOUBLE_EQ(*g.bf16_tflops, 165.2);
  EXPECT_EQ(g.release_date, (Date{2022, 10, 12}));
  EXPECT_EQ(g.power_connectors, std::vector<std::string>{"12vhpwr"});
  EXPECT_FALSE(g.fp8_tflops.has_value());
  EXPECT_EQ(g.provenance.file, "gpus.toml");
  EXPECT_EQ(g.provenance.line, 2);
  const Gpu& a100 = catalog->gpus[1];
  EXPECT_EQ(a100.provenance.source_of("street_price_usd"), "test figure");
  EXPECT_EQ(a100.provenance.source_of("memory_gb"), "NVIDIA A100 datasheet");
  EXPECT_EQ(catalog->offers[0].gpu_count, 8);
  EXPECT_EQ(catalog->cpus[0].threads, 32);
  EXPECT_EQ(catalog->regions[1].parent, "us");
}

TEST(CatalogLoader, ReportsEveryProblemOfABrokenDirectoryInOneRun) {
  const std::string dir = std::string(RIGPLAN_TEST_DATA) + "/catalog_broken";
  auto files = read_catalog_dir(dir);
  ASSERT_TRUE(files.ok());
  std::string message = problems(*files);
  // Paths are as given; strip the directory so the expectation does not depend on it.
  for (size_t at; (at = message.find(dir + "/")) != std::string::npos;)
    message.erase(at, dir.size() + 1);
  EXPECT_EQ(message,
            "gpus.toml:2:1: gpu 'rtx-4090': missing required field 'memory_gb'\n"
            "gpus.toml:7:11: gpu 'rtx-4090': field 'segment': 'consumr' is not accepted; expected "
            "'consumer', 'workstation' or 'datacenter' (did you mean 'consumer'?)\n"
            "gpus.toml:21:13: gpu 'rtx-4090': unknown field 'memroy_gb' (did you mean "
            "'memory_gb'?)\n"
            "gpus.toml:52:15: gpu 'a100-sxm4-80gb': field 'tf32_tflops': 15.6 is below "
            "fp32_tflops 19.5; a tensor-core rate cannot be lower than the FP32 rate\n"
            "gpus.toml:68:20: gpu 'a100-sxm4-80gb': field 'street_price_usd': -15000 is out of "
            "range; expected > 0 and <= 10000000\n"
            "world.toml:30:7: offer 'aws-p4de.24xlarge': field 'gpu': unknown GPU "
            "'a100-sxm4-80g' (did you mean 'a100-sxm4-80gb'?)\n"
            "world.toml:50:9: cpu 'ryzen-9-7950x': field 'cores': expected an integer, got a "
            "string\n"
            "7 problems in 2 files");
}

TEST(CatalogLoader, RejectsADuplicateId) {
  auto files = small_catalog();
  files.push_back({"more.toml",
                   "[[interconnect]]\nid = \"pcie-4-x16\"\nfamily = \"pcie\"\n"
                   "name = \"again\"\nyear = 2017\nbw_per_direction_gbps = 31.5\n"
                   "source = \"x\"\nconfidence = \"cited\"\n"});
  EXPECT_EQ(problems(files),
            "more.toml:2:6: interconnect 'pcie-4-x16': duplicate id; first defined at "
            "world.toml:68\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, RejectsAnAliasThatNamesAnotherGpu) {
  EXPECT_EQ(problems(with_gpu_edit("aliases = [\"A100 SXM 80GB\"]", "aliases = [\"rtx 4090\"]")),
            "gpus.toml:44:11: gpu 'a100-sxm4-80gb': field 'aliases': 'rtx 4090' also names gpu "
            "'rtx-4090'; ids, names and aliases must be unique\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, RequiresTheModuleOfAnSxmGpu) {
  EXPECT_EQ(problems(with_gpu_edit("module = \"sxm4\"\n", "")),
            "gpus.toml:40:1: gpu 'a100-sxm4-80gb': field 'module': a 'sxm' GPU needs 'module', "
            "the generation of baseboard it takes\n"
            "1 problem in 1 file");
  EXPECT_EQ(problems(with_gpu_edit("module = \"sxm4\"", "module = \"oam\"")),
            "gpus.toml:49:10: gpu 'a100-sxm4-80gb': field 'module': 'oam' is not a module of a "
            "'sxm' part; expected 'sxm2', 'sxm3', 'sxm4', 'sxm5' or 'sxm6'\n"
            "1 problem in 1 file");
}

// The model reads an NVIDIA GPU's compute capability as a number (whether a Pascal card has
// dp4a for int8), with std::stod, which throws on text.
TEST(CatalogLoader, RequiresAnNvidiaComputeCapabilityThatIsANumber) {
  EXPECT_EQ(
      problems(with_gpu_edit("compute_capability = \"8.0\"", "compute_capability = \"sm80\"")),
      "gpus.toml:47:22: gpu 'a100-sxm4-80gb': field 'compute_capability': 'sm80' is not "
      "accepted for an NVIDIA GPU; expected major.minor, as 8.9\n"
      "1 problem in 1 file");
}

TEST(CatalogLoader, RequiresADateWithEveryPrice) {
  EXPECT_EQ(problems(with_gpu_edit("street_price_date = 2025-01-01\n", "")),
            "gpus.toml:72:20: gpu 'a100-sxm4-80gb': field 'street_price_usd': a price needs its "
            "date: add 'street_price_date'\n"
            "1 problem in 1 file");
}

// A field that fails its own check (type, accepted values, range) is reported once; the checks
// across fields that read it skip it (EntryContext::read_well) rather than add a second,
// misleading error. Its value may still be stored: -15000 is the price the user wrote, and its
// date is not "a date without 'street_price_usd'".
TEST(CatalogLoader, AFailedFieldIsReportedOnceNotAgainByTheChecksThatReadIt) {
  EXPECT_EQ(problems(with_gpu_edit("street_price_usd = 15000", "street_price_usd = -15000")),
            "gpus.toml:72:20: gpu 'a100-sxm4-80gb': field 'street_price_usd': -15000 is out of "
            "range; expected > 0 and <= 10000000\n"
            "1 problem in 1 file");
  // A price written as text is not stored at all; its date was reported as "a date without
  // 'street_price_usd'" beside the type error.
  EXPECT_EQ(problems(with_gpu_edit("street_price_usd = 15000", "street_price_usd = \"15000\"")),
            "gpus.toml:72:20: gpu 'a100-sxm4-80gb': field 'street_price_usd': expected a number, "
            "got a string\n"
            "1 problem in 1 file");
  // An FP32 rate beyond the range made each of the A100's three tensor-core rates (156, 312,
  // 312) "below fp32_tflops 60000": four errors for one typo.
  EXPECT_EQ(problems(with_gpu_edit("fp32_tflops = 19.5", "fp32_tflops = 60000")),
            "gpus.toml:54:15: gpu 'a100-sxm4-80gb': field 'fp32_tflops': 60000 is out of range; "
            "expected > 0 and <= 50000\n"
            "1 problem in 1 file");
  // Within its range, the same rate is compared with the tensor-core rates as before.
  EXPECT_EQ(problems(with_gpu_edit("fp32_tflops = 19.5", "fp32_tflops = 200")),
            "gpus.toml:55:15: gpu 'a100-sxm4-80gb': field 'tf32_tflops': 156 is below "
            "fp32_tflops 200; a tensor-core rate cannot be lower than the FP32 rate\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, RejectsADateWrittenAsAString) {
  EXPECT_EQ(problems(with_gpu_edit("release_date = 2022-10-12", "release_date = \"2022-10-12\"")),
            "gpus.toml:11:16: gpu 'rtx-4090': field 'release_date': expected a date such as "
            "2024-06-01 (unquoted), got a string\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, RejectsALinkBandwidthWithoutALink) {
  EXPECT_EQ(
      problems(with_gpu_edit("gpu_link = \"none\"", "gpu_link = \"none\"\ngpu_link_bw_gbps = 64")),
      "gpus.toml:35:20: gpu 'rtx-4090': field 'gpu_link_bw_gbps': a link bandwidth on a GPU "
      "with gpu_link = \"none\"\n"
      "1 problem in 1 file");
}

// An NVLink domain (GB200 NVL72: 72 GPUs) is joined by NVSwitch; a domain of one is no domain.
TEST(CatalogLoader, ReadsAnNvlinkDomainOnlyOnANvswitchGpu) {
  auto domain = load_catalog(with_gpu_edit("gpu_link_bw_gbps = 600\n",
                                           "gpu_link_bw_gbps = 600\nnvlink_domain_gpus = 72\n"));
  ASSERT_TRUE(domain.ok()) << domain.status().message();
  EXPECT_EQ(domain->gpu("a100-sxm4-80gb")->nvlink_domain_gpus, 72);
  EXPECT_FALSE(domain->gpu("rtx-4090")->nvlink_domain_gpus.has_value());
  EXPECT_EQ(problems(with_gpu_edit("gpu_link_bw_gbps = 600\n",
                                   "gpu_link_bw_gbps = 600\nnvlink_domain_gpus = 1\n")),
            "gpus.toml:72:22: gpu 'a100-sxm4-80gb': field 'nvlink_domain_gpus': 1 is out of "
            "range; expected >= 2 and <= 1024\n"
            "1 problem in 1 file");
  EXPECT_EQ(
      problems(with_gpu_edit("gpu_link = \"none\"", "gpu_link = \"none\"\nnvlink_domain_gpus = 8")),
      "gpus.toml:35:22: gpu 'rtx-4090': field 'nvlink_domain_gpus': an NVLink domain on a "
      "GPU with gpu_link = 'none'; only \"nvswitch\" joins one\n"
      "1 problem in 1 file");
}

// A card whose board power holds its chip below its rated clocks says what the chip needs (the
// A10: 150 W for a GA102 that needs about 250 W at its clocks); a figure at or below the board
// power says nothing and is refused.
TEST(CatalogLoader, ReadsAFullClockPowerOnlyAboveTheBoardPower) {
  auto starved = load_catalog(
      with_gpu_edit("board_power_w = 450\n", "board_power_w = 450\nfull_clock_power_w = 600\n"));
  ASSERT_TRUE(starved.ok()) << starved.status().message();
  EXPECT_EQ(starved->gpu("rtx-4090")->full_clock_power_w, 600);
  EXPECT_FALSE(starved->gpu("a100-sxm4-80gb")->full_clock_power_w.has_value());
  EXPECT_EQ(problems(with_gpu_edit("board_power_w = 450\n",
                                   "board_power_w = 450\nfull_clock_power_w = 450\n")),
            "gpus.toml:28:22: gpu 'rtx-4090': field 'full_clock_power_w': 450 is not above "
            "board_power_w 450; give it only for a card whose board power holds its chip below "
            "its rated clocks\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, ReadsAnOffersLinksAndFabric) {
  auto files = with_world_edit("gpu_link = \"nvlink-3\"\n",
                               "gpu_link = \"nvlink-3\"\nfabric = \"ib-hdr\"\n"
                               "fabric_gbit_per_gpu = 200\n");
  files[1].text +=
      "\n[[interconnect]]\nid = \"ib-hdr\"\nfamily = \"infiniband\"\nname = \"HDR\"\n"
      "year = 2017\nbw_per_direction_gbps = 25\nsource = \"test\"\nconfidence = \"cited\"\n";
  auto catalog = load_catalog(files);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  const Offer& o = catalog->offers[0];
  EXPECT_EQ(o.gpu_link, "nvlink-3");
  EXPECT_EQ(offer_link_kind(o, *catalog), "nvswitch");  // the A100 SXM4's own NVLink topology
  EXPECT_EQ(o.fabric, "ib-hdr");
  EXPECT_DOUBLE_EQ(o.fabric_gbps_per_gpu(), 25);  // 200 Gbit/s / 8
  EXPECT_DOUBLE_EQ(o.price_per_gpu_hour_usd(), 40.97 / 8);
}

TEST(CatalogLoader, AMultiGpuInstanceNeedsItsLink) {
  EXPECT_EQ(problems(with_world_edit("gpu_link = \"nvlink-3\"\n", "")),
            "world.toml:24:1: offer 'aws-p4de.24xlarge': field 'gpu_link': an instance of 8 GPUs "
            "needs 'gpu_link', the interconnect between its GPUs (such as 'pcie-4-x16' or "
            "'nvlink-4')\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, AnOffersLinksComeFromTheInterconnects) {
  EXPECT_EQ(problems(with_world_edit("gpu_link = \"nvlink-3\"", "gpu_link = \"nvlink3\"")),
            "world.toml:37:12: offer 'aws-p4de.24xlarge': field 'gpu_link': unknown interconnect "
            "'nvlink3' (did you mean 'nvlink-3'?)\n"
            "1 problem in 1 file");
  EXPECT_EQ(problems(with_world_edit("gpu_link = \"nvlink-3\"\n",
                                     "gpu_link = \"nvlink-3\"\nfabric = \"pcie-4-x16\"\n"
                                     "fabric_gbit_per_gpu = 100\n")),
            "world.toml:38:10: offer 'aws-p4de.24xlarge': field 'fabric': 'pcie-4-x16' is a pcie "
            "link; expected an interconnect of family 'infiniband' or 'ethernet'\n"
            "1 problem in 1 file");
  EXPECT_EQ(problems(with_world_edit("gpu_link = \"nvlink-3\"\n",
                                     "gpu_link = \"nvlink-3\"\nfabric = \"ib-hdr\"\n")),
            "world.toml:38:10: offer 'aws-p4de.24xlarge': field 'fabric': a cluster fabric needs "
            "'fabric_gbit_per_gpu', its line rate per GPU\n"
            "world.toml:38:10: offer 'aws-p4de.24xlarge': field 'fabric': unknown interconnect "
            "'ib-hdr'\n"
            "2 problems in 1 file");
}

TEST(CatalogLoader, AnNvlinkInstanceNeedsAGpuWithNvlink) {
  EXPECT_EQ(problems(with_world_edit("gpu = \"a100-sxm4-80gb\"", "gpu = \"rtx-4090\"")),
            "world.toml:37:12: offer 'aws-p4de.24xlarge': field 'gpu_link': 'nvlink-3' is an "
            "nvlink link, but GPU 'rtx-4090' has gpu_link = \"none\"\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, RejectsAFieldSourceForAFieldThatDoesNotExist) {
  EXPECT_EQ(
      problems(with_gpu_edit("street_price_usd = \"test figure\"", "street_prise_usd = \"x\"")),
      "gpus.toml:78:20: gpu 'a100-sxm4-80gb': field_sources: 'street_prise_usd' is not a "
      "field (did you mean 'street_price_usd' or 'street_price_date'?)\n"
      "1 problem in 1 file");
}

TEST(CatalogLoader, ReportsATomlSyntaxErrorWithItsPosition) {
  auto files = small_catalog();
  files.push_back({"bad.toml", "[[gpu]]\nid = \"x\nname = 1\n"});
  const std::string message = problems(files);
  EXPECT_EQ(message.rfind("bad.toml:2:", 0), 0u) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;
}

TEST(CatalogLoader, RejectsAnUnknownSection) {
  auto files = small_catalog();
  files.push_back({"extra.toml", "[[gpus]]\nid = \"x\"\n"});
  EXPECT_EQ(problems(files),
            "extra.toml:1:1: unknown section 'gpus'; expected 'gpu', 'cpu', 'offer', 'region', "
            "'interconnect', 'system', 'circuit', 'psu', 'nic', 'board', 'chassis', 'part', "
            "'psu_efficiency' or 'family' (did you mean 'gpu', 'cpu' or 'psu'?)\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, OverlayReplacesOnlyTheFieldsItNames) {
  const std::vector<CatalogFile> overlay = {
      {"overlay.toml",
       "[[gpu]]\nid = \"rtx-4090\"\nstreet_price_usd = 1750\nstreet_price_date = 2026-11-01\n"
       "[gpu.field_sources]\nstreet_price_usd = \"local shop\"\n"}};
  auto catalog = load_catalog(small_catalog(), overlay);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  const Gpu& g = catalog->gpus[0];
  EXPECT_DOUBLE_EQ(*g.street_price_usd, 1750);
  EXPECT_EQ(*g.street_price_date, (Date{2026, 11, 1}));
  EXPECT_EQ(g.provenance.source_of("street_price_usd"), "local shop");
  EXPECT_DOUBLE_EQ(g.memory_gb, 24);  // untouched fields keep their base values
  EXPECT_EQ(catalog->gpus.size(), 2u);
}

TEST(CatalogLoader, OverlayProblemsPointIntoTheOverlayFile) {
  const std::vector<CatalogFile> overlay = {
      {"overlay.toml", "[[gpu]]\nid = \"rtx-4090\"\nstreet_price_usd = 1750\n"}};
  EXPECT_EQ(problems(small_catalog(), overlay),
            "overlay.toml:3:20: gpu 'rtx-4090': field 'street_price_usd': a price needs its "
            "date: add 'street_price_date'\n"
            "1 problem in 1 file");
}

TEST(CatalogLoader, OverlayCanAddAnEntry) {
  auto base = small_catalog();
  std::string cpu = base[1].text.substr(base[1].text.find("[[cpu]]"));
  cpu = cpu.substr(0, cpu.find("[[interconnect]]"));
  cpu.replace(cpu.find("ryzen-9-7950x"), 13, "ryzen-9-7900x");
  cpu.replace(cpu.find("AMD Ryzen 9 7950X"), 17, "AMD Ryzen 9 7900X");
  cpu.replace(cpu.find("[\"7950X\"]"), 9, "[\"7900X\"]");
  auto catalog = load_catalog(base, {{"mine.toml", cpu}});
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  EXPECT_EQ(catalog->cpus.size(), 2u);
  EXPECT_EQ(catalog->cpus[1].provenance.file, "mine.toml");
}

TEST(CatalogLoader, MissingDirectoryIsAnIoError) {
  auto files = read_catalog_dir("/nonexistent/rigplan");
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), Status::Code::kIoError);
  EXPECT_EQ(files.status().message(), "/nonexistent/rigplan: not a directory");
}

TEST(CatalogLoader, EveryGpuHasTheFamilyOfItsArchitecture) {
  auto catalog = load_catalog(small_catalog());
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  ASSERT_EQ(catalog->families.size(), 2u);
  const Family* ada = catalog->family_of(catalog->gpus[0]);
  ASSERT_NE(ada, nullptr);
  EXPECT_EQ(ada->stack, "cuda");
  EXPECT_TRUE(ada->common_stack);
  EXPECT_EQ(ada->support("vllm"), "yes");
  EXPECT_EQ(ada->support("opencl"), "");

  const std::string missing =
      problems(with_gpu_edit("architecture = \"ada\"", "architecture = \"pascal\""));
  EXPECT_NE(missing.find("gpu 'rtx-4090': field 'architecture': no [[family]] 'pascal' says "
                         "which software stack it runs"),
            std::string::npos)
      << missing;
}

TEST(CatalogLoader, EachSoftwareIsInExactlyOneListOfAFamily) {
  const std::string twice =
      problems(with_family_edit("does_not_run = []", "does_not_run = [\"vllm\"]"));
  EXPECT_NE(twice.find("family 'ampere': field 'does_not_run': 'vllm' is in both runs and "
                       "does_not_run; it belongs in one"),
            std::string::npos)
      << twice;
  const std::string none = problems(with_family_edit("\"bitsandbytes\"]", "]"));
  EXPECT_NE(none.find("'bitsandbytes' is in none of runs, runs_partly and does_not_run"),
            std::string::npos)
      << none;
  const std::string unknown = problems(with_family_edit("\"bitsandbytes\"]", "\"cudnn\"]"));
  EXPECT_NE(unknown.find("'cudnn' is not accepted"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace rigplan
