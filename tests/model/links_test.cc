// GPU-to-GPU links and NVLink domains (src/model/links.h; docs/scaleout.md, "Topology: racks"):
// a GB200 NVL72 rack keeps the collectives of its 72 GPUs on NVLink, where 72 HGX B200 GPUs are
// 9 nodes of 8 joined by the network.
#include "model/links.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "model/perf_constants.h"
#include "rigplan/gpu_link.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/schema.h"
#include "rigplan/train_plan.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::compute_s;
using testing::term;

const Catalog& catalog() { return testing::default_catalog(); }
const Gpu& gpu(const char* id) { return *catalog().gpu(id); }

// The path a prediction's note gives a collective: "data parallel 0.024 s over nvswitch, ...".
std::string path_of(const std::string& note, std::string_view collective) {
  const size_t at = note.find(std::string(collective) + " ");
  if (at == std::string::npos) return "";
  constexpr std::string_view kOver = " s over ";
  const size_t over = note.find(kOver, at);
  if (over == std::string::npos) return "";
  const size_t from = over + kOver.size();
  size_t end = note.find(", ", from);
  // A network's name carries its share in parentheses, with a comma inside.
  if (const size_t paren = note.find('(', from); paren < end) end = note.find(')', paren) + 1;
  return note.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

TEST(NvlinkDomain, ARunsMachineIsItsOwnElseTheGpusDomainElseAnHgxBoard) {
  RunConfig c;
  EXPECT_EQ(node_gpus(gpu("gb200-nvl72"), c), 72);
  EXPECT_EQ(node_gpus(gpu("gb300-nvl72"), c), 72);
  EXPECT_EQ(node_gpus(gpu("b200-sxm-192gb"), c), 8);
  EXPECT_EQ(node_gpus(gpu("a100-sxm4-80gb"), c), 8);
  // An instance of 4 GB200 (a compute tray) is a machine of 4, whatever the rack.
  c.gpus_per_node = 4;
  EXPECT_EQ(node_gpus(gpu("gb200-nvl72"), c), 4);
  // The hosts that feed the GPUs are machines, never the whole rack.
  EXPECT_EQ(machine_gpus(RunConfig{}), 8);
  EXPECT_EQ(machine_gpus(c), 4);
}

TEST(NvlinkDomain, SeventyTwoGb200GpusShareOneNvlinkSwitchFabric) {
  // NVLink 5: 1,800 GB/s per GPU both ways, 900 each way, at kNvlinkEfficiency 0.77 = 693 GB/s.
  RunConfig c;
  c.gpus = 72;
  const Link link = link_for(gpu("gb200-nvl72"), c, 72, catalog());
  EXPECT_EQ(link.name, "nvswitch");
  EXPECT_DOUBLE_EQ(link.busbw_gbps, 1800.0 / 2 * perf_constants::kNvlinkEfficiency);
  EXPECT_DOUBLE_EQ(link.busbw_gbps, 693.0);
}

// Llama 3.2 1B trained data-parallel on 72 GPUs, 8 sequences of 2,048 tokens each, BF16 mixed
// precision: each GPU all-reduces its fp32 gradients, 2 × 4 B × params × 71/72 bytes
// (ring all-reduce: reduce-scatter then all-gather) once per step.
RunConfig data_parallel_on_72() {
  RunConfig c;
  c.gpus = 72;
  c.batch = 8;
  c.seq_len = 2048;
  c.precision = "bf16";
  return c;
}

const Workload& llama_1b() { return **testing::default_zoo().find("llama-3.2-1b"); }

Prediction predict_on(const char* gpu_id, const RunConfig& c) {
  auto p = predict(llama_1b(), gpu(gpu_id), c, embedded_calibration(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

// Bytes a GPU sends in the step's gradient all-reduce.
double all_reduce_bytes(const char* gpu_id) {
  auto e = estimate_memory(llama_1b(), gpu(gpu_id), data_parallel_on_72(), false);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return 2 * 4 * e->trainable_params * 71.0 / 72;
}

TEST(NvlinkDomain, AGb200RackKeepsADataParallelAllReduceOnNvlink) {
  const Prediction rack = predict_on("gb200-nvl72", data_parallel_on_72());
  EXPECT_NE(rack.note.find("data parallel 3.61e-05 s over nvswitch"), std::string::npos)
      << rack.note;
  EXPECT_EQ(rack.note.find("ib-hdr"), std::string::npos) << rack.note;
  // About 9.8 GB a GPU over 693 GB/s is 14 ms (+ 2 × 71 hops × 10 µs), less than 0.9 of the
  // backward pass it overlaps (2/3 of the compute, about 0.1 s): only DDP's last 25 MB bucket
  // is exposed, 25e6 / 693e9 s = 36.1 µs.
  const double bucket = 25e6 / (693.0 * 1e9);
  EXPECT_NEAR(term(rack, "communication"), bucket, 1e-12);
  const double traffic = all_reduce_bytes("gb200-nvl72");
  EXPECT_LT(traffic / 693e9 + 2 * 71 * 10e-6, 0.9 * compute_s(rack) * 2 / 3);
}

// The ring's hops: 2 · 71 steps, of which 2 · 9 cross the network (20 µs) and 124 stay on
// NVSwitch (10 µs): 1.6 ms.
constexpr double kNineNodeRingLatency = 18 * 20e-6 + 124 * 10e-6;

// 72 B200 with one HDR port shared by a node's 8 GPUs (gpus_per_nic 8): the ring leaves each node
// through that one port, 25 GB/s × 0.9 = 22.5 GB/s.
RunConfig one_port_a_node() {
  RunConfig c = data_parallel_on_72();
  c.gpus_per_nic = 8;
  return c;
}

TEST(NvlinkDomain, SeventyTwoB200GpusAreNineNodesJoinedByTheNetwork) {
  const Prediction hgx = predict_on("b200-sxm-192gb", data_parallel_on_72());
  EXPECT_NE(hgx.note.find("s over ib-hdr (a port per GPU, 25 GB/s per GPU), the ring's 8 GPUs a "
                          "node share their ports: 180 GB/s"),
            std::string::npos)
      << hgx.note;
  // Each node's 8 GPUs of the ring leave it through its 8 HDR ports (a channel a port):
  // 8 × 25 GB/s × 0.9 = 180 GB/s, below NVLink 5's 693. About 9.8 GB / 180 GB/s = 54 ms is less
  // than the 0.9 × 2/3 of the compute the backward pass hides: only the last 25 MB bucket shows.
  const double traffic = all_reduce_bytes("b200-sxm-192gb");
  EXPECT_LT(traffic / 180e9 + kNineNodeRingLatency, 0.9 * compute_s(hgx) * 2 / 3);
  EXPECT_NEAR(term(hgx, "communication"), 25e6 / 180e9, 1e-12);
  // One port a node: the ring's bandwidth is that port's, 22.5 GB/s, and it is exposed.
  const Prediction one_port = predict_on("b200-sxm-192gb", one_port_a_node());
  EXPECT_NE(one_port.note.find("s over ib-hdr (a port per 8 GPUs, 3.125 GB/s per GPU), the ring's "
                               "8 GPUs a node share their ports: 22.5 GB/s"),
            std::string::npos)
      << one_port.note;
  const double all_reduce = traffic / 22.5e9 + kNineNodeRingLatency;
  EXPECT_NEAR(term(one_port, "communication"), all_reduce - 0.9 * compute_s(one_port) * 2 / 3,
              1e-9);
  EXPECT_GT(term(one_port, "communication"), 0.3);  // 9.8 GB / 22.5 GB/s = 0.43 s, less overlap
  // GB200 in instances of 8 (gpus_per_node, as recommend sets it for an offer) cross it as well.
  RunConfig split = data_parallel_on_72();
  split.gpus_per_node = 8;
  EXPECT_NE(predict_on("gb200-nvl72", split).note.find("over ib-hdr"), std::string::npos);
}

TEST(NvlinkDomain, ACommunicationBoundStepIsFasterOnARackThanOnNineNodes) {
  // Step = compute + exposed all-reduce. GB200: 2,500 BF16 TFLOPS to B200's 2,250, so its
  // compute is at most B200's, plus 36 µs of all-reduce; B200 nodes with one HDR port each: its
  // compute plus about 0.43 s - 0.9 × 2/3 of its compute (> 0.3 s, above). The rack's step is
  // shorter by more than the exposed all-reduce of the nodes.
  const Prediction rack = predict_on("gb200-nvl72", one_port_a_node());
  const Prediction hgx = predict_on("b200-sxm-192gb", one_port_a_node());
  EXPECT_LE(compute_s(rack), compute_s(hgx));
  EXPECT_NEAR(rack.step_time_s, compute_s(rack) + term(rack, "communication"), 1e-12);
  EXPECT_NEAR(hgx.step_time_s, compute_s(hgx) + term(hgx, "communication"), 1e-12);
  EXPECT_GT(hgx.step_time_s - rack.step_time_s, 0.3);
  EXPECT_GT(rack.throughput, hgx.throughput);
}

TEST(NvlinkDomain, TwoRacksCrossTheNetworkBetweenThem) {
  // 144 GB200: the data-parallel ring spans two NVLink domains of 72.
  RunConfig c = data_parallel_on_72();
  c.gpus = 144;
  c.fabric = "ib-ndr";  // ConnectX-7, 400 Gb/s per GPU
  const Prediction p = predict_on("gb200-nvl72", c);
  EXPECT_NE(p.note.find("s over ib-ndr (a port per GPU, 50 GB/s per GPU)"), std::string::npos)
      << p.note;
}

TEST(NvlinkDomain, AGroupThatDoesNotTileANodeCrossesTheNetwork) {
  // GPT-3 175B (96 heads) on 48 A100, nodes of 8: TP 8 groups are ranks 0-7, 8-15, ... each in a
  // node; TP 6 groups are 0-5, 6-11, ..., and 6-11 spans two nodes, so its ring runs over HDR.
  // Rack-sized groups alike: TP 16 in racks of 72 leaves ranks 64-79 across two racks.
  const auto tensor_path = [](int tp) {
    RunConfig c;
    c.gpus = 48;
    c.tensor_parallel = tp;
    c.pipeline_parallel = 48 / tp;
    c.global_batch = 48;
    c.micro_batch = 1;
    c.seq_len = 2048;
    c.known_to_fit = true;  // compared as if it ran, as validate does a measured run
    auto p = predict(**testing::default_zoo().find("gpt3-175b"), gpu("a100-sxm4-80gb"), c,
                     embedded_calibration(), catalog());
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? path_of(p->note, "tensor parallel") : "";
  };
  EXPECT_EQ(tensor_path(8), "nvswitch");
  EXPECT_EQ(tensor_path(6), "ib-hdr (a port per GPU, 25 GB/s per GPU)");
}

TEST(NvlinkDomain, TheLayoutSearchKeepsDataParallelGroupsInsideRacks) {
  // GPT-3 175B on 8 racks joined by NDR: the fastest pipelined layout found puts TP × CP × DP =
  // 72 GPUs in each rack, so its gradients are reduced over NVLink and only the pipeline's
  // activations cross between racks (docs/scaleout.md, "Topology: racks"). It is 14th: the 13
  // ahead of it (TP 3, DP 192, ZeRO-3, no pipeline; the fastest 10% ahead) send their FSDP
  // traffic across racks, each rack's 24 GPUs of a ring through their 24 NDR ports, and hide it
  // behind the step.
  TrainPlanRequest request;
  request.run.gpus = 576;
  request.run.global_batch = 1536;
  request.run.fabric = "ib-ndr";
  request.top = 14;
  const Workload& gpt3 = **testing::default_zoo().find("gpt3-175b");
  auto rack = plan_training(gpt3, gpu("gb200-nvl72"), request, embedded_calibration(), catalog());
  ASSERT_TRUE(rack.ok()) << rack.status().message();
  ASSERT_EQ(rack->layouts.size(), 14u);
  const Prediction& best = rack->layouts[0].prediction;
  const auto pipelined =
      std::find_if(rack->layouts.begin(), rack->layouts.end(),
                   [](const auto& layout) { return layout.run.pipeline_parallel > 1; });
  ASSERT_NE(pipelined, rack->layouts.end());
  const RunConfig& c = pipelined->run;
  const int dp = c.gpus / (c.tensor_parallel * c.pipeline_parallel * c.context_parallel);
  EXPECT_EQ(c.tensor_parallel * c.context_parallel * dp, 72) << pipelined->prediction.note;
  EXPECT_EQ(path_of(pipelined->prediction.note, "data parallel"), "nvswitch")
      << pipelined->prediction.note;
  EXPECT_EQ(path_of(pipelined->prediction.note, "pipeline sends"),
            "ib-ndr (a port per GPU, 50 GB/s per GPU)")
      << pipelined->prediction.note;
  auto nodes =
      plan_training(gpt3, gpu("b200-sxm-192gb"), request, embedded_calibration(), catalog());
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  EXPECT_LT(best.step_time_s, nodes->layouts[0].prediction.step_time_s);
}

// --gpus-per-node (docs/scaleout.md, "Topology"): Llama 3.2 1B trained data-parallel on A100
// SXM4 80 GB (NVSwitch, 600 GB/s both ways), 12 sequences of 2,048 tokens a GPU, BF16. The
// backward pass (0.9 × 2/3 of the compute) hides the whole all-reduce on either path, so what is
// left exposed is DDP's last 25 MB bucket, on the path the ring takes:
//   NVSwitch: 25e6 B / (600 / 2 × 0.77 = 231 GB/s) = 0.1082 ms
//   HDR, nodes of 4: 25e6 B / (4 ports × 25 × 0.9 = 90 GB/s) = 0.2778 ms
//   HDR, nodes of 8: 25e6 B / (8 ports × 25 × 0.9 = 180 GB/s) = 0.1389 ms
RunConfig data_parallel_a100(int gpus, std::optional<int> per_node) {
  RunConfig c = data_parallel_on_72();
  c.gpus = gpus;
  c.batch = 12;  // the largest batch that fits an A100 80 GB with AdamW
  c.gpus_per_node = per_node;
  return c;
}

constexpr double kBucketOverNvswitch = 25e6 / 231e9;
constexpr double kBucketOverFourPorts = 25e6 / 90e9;
constexpr double kBucketOverEightPorts = 25e6 / 180e9;
constexpr const char* kHdr = "ib-hdr (a port per GPU, 25 GB/s per GPU)";

TEST(GpusPerNode, EightGpusInNodesOfFourReduceOverTheNetwork) {
  // Default nodes of 8: the 8 GPUs are one node, the ring stays on NVSwitch.
  const Prediction one_node = predict_on("a100-sxm4-80gb", data_parallel_a100(8, std::nullopt));
  EXPECT_EQ(path_of(one_node.note, "data parallel"), "nvswitch") << one_node.note;
  EXPECT_NEAR(term(one_node, "communication"), kBucketOverNvswitch, 1e-12);
  EXPECT_NEAR(kBucketOverNvswitch, 0.1082e-3, 1e-7);
  // Nodes of 4: 2 nodes, the ring crosses HDR through each node's 4 ports.
  const Prediction two_nodes = predict_on("a100-sxm4-80gb", data_parallel_a100(8, 4));
  EXPECT_EQ(path_of(two_nodes.note, "data parallel"), kHdr) << two_nodes.note;
  EXPECT_NE(two_nodes.note.find("the ring's 4 GPUs a node share their ports: 90 GB/s"),
            std::string::npos)
      << two_nodes.note;
  EXPECT_NEAR(term(two_nodes, "communication"), kBucketOverFourPorts, 1e-12);
  EXPECT_NEAR(kBucketOverFourPorts, 0.2778e-3, 1e-7);
  // The regime of the numbers above: the whole ring over 90 GB/s, 2 · 4 B · params · 7/8, and
  // its 2 · 7 steps (4 across the network at 20 µs, 10 on NVSwitch at 10 µs), is within what the
  // backward pass hides.
  const double traffic = all_reduce_bytes("a100-sxm4-80gb") / (71.0 / 72) * 7 / 8;
  EXPECT_LT(traffic / 90e9 + 4 * 20e-6 + 10 * 10e-6, 0.9 * compute_s(two_nodes) * 2 / 3);
  // The compute is the same; the step grows by the bucket's difference.
  EXPECT_NEAR(two_nodes.step_time_s - one_node.step_time_s,
              kBucketOverFourPorts - kBucketOverNvswitch, 1e-9);
}

TEST(GpusPerNode, SixteenGpusCrossTheNetworkThroughEachNodesPorts) {
  // 16 GPUs: 4 nodes of 4 or 2 nodes of 8; either way the ring crosses HDR, each node's GPUs of
  // the ring leaving through all its ports (a port a GPU): 4 × 22.5 = 90 GB/s on nodes of 4,
  // 8 × 22.5 = 180 GB/s on nodes of 8.
  const Prediction four = predict_on("a100-sxm4-80gb", data_parallel_a100(16, 4));
  const Prediction eight = predict_on("a100-sxm4-80gb", data_parallel_a100(16, 8));
  EXPECT_EQ(path_of(four.note, "data parallel"), kHdr) << four.note;
  EXPECT_EQ(path_of(eight.note, "data parallel"), kHdr) << eight.note;
  EXPECT_NEAR(term(four, "communication"), kBucketOverFourPorts, 1e-12);
  EXPECT_NEAR(term(eight, "communication"), kBucketOverEightPorts, 1e-12);
  // The default is nodes of 8: the same as asking for them.
  EXPECT_DOUBLE_EQ(predict_on("a100-sxm4-80gb", data_parallel_a100(16, std::nullopt)).step_time_s,
                   eight.step_time_s);
  // A 16-GPU A100 board (HGX A100 16-GPU, two baseboards joined by NVSwitch): one node.
  const Prediction sixteen = predict_on("a100-sxm4-80gb", data_parallel_a100(16, 16));
  EXPECT_EQ(path_of(sixteen.note, "data parallel"), "nvswitch") << sixteen.note;
  EXPECT_NEAR(term(sixteen, "communication"), kBucketOverNvswitch, 1e-12);
}

// GPT-3 175B (h = 12,288) on 64 A100, TP 8 × PP 8 × DP 1, global batch 64 in micro-batches of 1
// (m = 64), seq 2,048, FP16 (β = 2 B). Each tensor-parallel all-reduce moves
// 2 · 7/8 · 1 · 2048 · 12288 · 2 B = 88.08 MB a GPU, 4 a layer (2 forward, 2 backward), for
// m = 64 micro-batches and 96 / 8 = 12 layers: 3,072 all-reduces a step.
//   NVSwitch: 88.08e6 / 231e9 + 14 hops × 10 µs = 0.5213 ms, × 3,072 = 1.601 s
//   HDR, nodes of 4: each node's 4 ports carry the ring, 4 × 22.5 = 90 GB/s; of its 14 steps
//   4 cross the network (2 a node): 88.08e6 / 90e9 + 4 × 20 µs + 10 × 10 µs = 1.1587 ms,
//   × 3,072 = 3.559 s
std::string tensor_parallel_part(std::optional<int> per_node) {
  RunConfig c;
  c.gpus = 64;
  c.tensor_parallel = 8;
  c.pipeline_parallel = 8;
  c.global_batch = 64;
  c.micro_batch = 1;
  c.seq_len = 2048;
  c.precision = "fp16";
  c.known_to_fit = true;
  c.gpus_per_node = per_node;
  auto p = predict(**testing::default_zoo().find("gpt3-175b"), gpu("a100-sxm4-80gb"), c,
                   embedded_calibration(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return "";
  const size_t at = p->note.find("tensor parallel ");
  const size_t over = p->note.find(" s over ", at);
  if (at == std::string::npos || over == std::string::npos) return p->note;
  return p->note.substr(at, over - at) + " s over " + path_of(p->note, "tensor parallel");
}

TEST(GpusPerNode, ATensorParallelGroupOfEightOnNodesOfFourCrossesTheNetwork) {
  const double act = 2.0 * 7 / 8 * 2048 * 12288 * 2;
  EXPECT_NEAR((act / 231e9 + 14 * 10e-6) * 3072, 1.601, 1e-3);
  EXPECT_NEAR((act / 90e9 + 4 * 20e-6 + 10 * 10e-6) * 3072, 3.559, 1e-3);
  EXPECT_EQ(tensor_parallel_part(std::nullopt), "tensor parallel 1.6 s over nvswitch");
  EXPECT_EQ(tensor_parallel_part(8), "tensor parallel 1.6 s over nvswitch");
  EXPECT_EQ(tensor_parallel_part(4), "tensor parallel 3.56 s over " + std::string(kHdr));
}

TEST(GpusPerNode, NodesSmallerThanARackAreNvlinkDomainsOfTheirOwn) {
  // 8 GB200 in instances of 4 (a compute tray each): two NVLink domains of 4, the ring over HDR,
  // and the note says that the rack's domain of 72 is not the run's.
  const Prediction trays = predict_on("gb200-nvl72", data_parallel_a100(8, 4));
  EXPECT_EQ(path_of(trays.note, "data parallel"), kHdr) << trays.note;
  EXPECT_NE(trays.note.find("nodes of 4 GPUs (gpus_per_node), each its own NVLink domain, not "
                            "gb200-nvl72's 72: collectives beyond a node cross the network"),
            std::string::npos)
      << trays.note;
  // The same 8 in the rack: one NVLink domain, no such note.
  const Prediction rack = predict_on("gb200-nvl72", data_parallel_a100(8, std::nullopt));
  EXPECT_EQ(path_of(rack.note, "data parallel"), "nvswitch") << rack.note;
  EXPECT_EQ(rack.note.find("gpus_per_node"), std::string::npos) << rack.note;
  // 4 GPUs in a node of 4 span no second node: nothing to say.
  EXPECT_EQ(predict_on("gb200-nvl72", data_parallel_a100(4, 4)).note.find("gpus_per_node"),
            std::string::npos);
}

TEST(GpusPerNode, ANodeLargerThanTheGpusNvlinkDomainIsRefused) {
  RunConfig c = data_parallel_a100(144, 144);
  auto p = predict(llama_1b(), gpu("gb200-nvl72"), c, embedded_calibration(), catalog());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kInvalidInput);
  EXPECT_EQ(p.status().message(),
            "--gpus-per-node 144 is more than the 72 GPUs that gb200-nvl72's NVLink domain joins "
            "(nvlink_domain_gpus); expected an integer from 1 to 72");
  c.gpus_per_node = 72;
  EXPECT_TRUE(predict(llama_1b(), gpu("gb200-nvl72"), c, embedded_calibration(), catalog()).ok());
}

TEST(GpusPerNode, OutOfRangeValuesAreRefusedByMemoryAndPredict) {
  for (int bad : {0, -4, 1025}) {
    RunConfig c = data_parallel_a100(8, bad);
    const std::string expected =
        fmt::format("--gpus-per-node {} is out of range; expected an integer from 1 to 1024", bad);
    auto e = estimate_memory(llama_1b(), gpu("a100-sxm4-80gb"), c);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().message(), expected);
    auto p = predict(llama_1b(), gpu("a100-sxm4-80gb"), c, embedded_calibration(), catalog());
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().message(), expected);
  }
}

// DGX-1's hybrid cube-mesh of V100 SXM2: NCCL's rings use all 6 NVLink 2.0 links of each GPU,
// 300 GB/s both ways (the catalog's gpu_link_bw_gbps), 150 each way, × kNvlinkEfficiency 0.77 =
// 115.5 GB/s. A bridge's rings over more than 2 GPUs cross PCIe, and so do a mesh's beyond the
// board's 8.
TEST(CubeMesh, EightV100SxmRingOverEveryNvlinkOfEachGpu) {
  RunConfig c;
  c.gpus = 8;
  const Link mesh = link_for(gpu("v100-sxm2-16gb"), c, 8, catalog());
  EXPECT_EQ(mesh.name, "nvlink-cube-mesh");
  EXPECT_DOUBLE_EQ(mesh.busbw_gbps, 300.0 / 2 * 0.77);
  EXPECT_DOUBLE_EQ(link_for(gpu("v100-sxm2-32gb"), c, 8, catalog()).busbw_gbps, 115.5);
  EXPECT_EQ(link_for(gpu("v100-sxm2-16gb"), c, 16, catalog()).kind, "pcie");
  EXPECT_EQ(link_for(gpu("quadro-rtx-8000"), c, 4, catalog()).kind, "pcie");
}

// The catalog's gpu_link accepts "none" and the GPU-to-GPU kinds; each of those is a link of its
// own to the perf model, where any other text (PCIe) rides the PCIe slot.
TEST(LinkKinds, TheCatalogsGpuLinksAreTheKindsThePerfModelRingsOver) {
  const auto* field = find_field(gpu_fields(), "gpu_link");
  ASSERT_NE(field, nullptr);
  const std::vector<std::string_view> expected = {"none", "nvlink-bridge", "nvlink-cube-mesh",
                                                  "nvswitch", "infinity-fabric"};
  EXPECT_EQ(field->choices, expected);
  const Gpu& v100 = gpu("v100-sxm2-16gb");
  for (std::string_view kind : field->choices) {
    EXPECT_EQ(link_kind(v100, kind), kind == "none" ? "pcie" : kind) << kind;
  }
  EXPECT_EQ(link_kind(v100, "pcie"), "pcie");
  EXPECT_FALSE(is_nvlink_kind(kInfinityFabric));
}

// NCF on a DGX-1 as DeepLearningExamples ran it: 8 × V100 SXM2 16 GB, fp16 (AMP), 131,072 samples
// per GPU; measured 95.95 M samples/s, a step of 8 × 131,072 / 95.95e6 = 10.93 ms
// (validation/throughput.csv, dle-scaling/pytorch-ncf-v100-sxm2-16gb-fp16).
TEST(CubeMesh, NcfOnADgx1ReducesItsEmbeddingGradientsAfterTheBackward) {
  RunConfig c;
  c.gpus = 8;
  c.batch = 131072;
  c.precision = "fp16";
  const Workload& ncf = **testing::default_zoo().find("ncf");
  auto p = predict(ncf, gpu("v100-sxm2-16gb"), c, embedded_calibration(), catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NE(p->note.find("data parallel 0.00221 s over nvlink-cube-mesh (of it 0.00206 s the "
                         "input embeddings' gradients, after the backward)"),
            std::string::npos)
      << p->note;
  // The four embedding tables, (138,493 + 26,744) × (64 + 128) = 31,725,504 parameters, come
  // last in the backward: their fp32 gradients' ring, 2 × 4 B × 31,725,504 × 7/8 = 222.08 MB a
  // GPU over 115.5 GB/s plus 2 × 7 hops × 10 µs, hides behind nothing (2.063 ms). The other
  // 107,073 parameters' ring, 2 × 4 B × 107,073 × 7/8 B over 115.5 GB/s plus the same hops
  // (0.146 ms), is less than DDP's last 25 MB bucket, which stays exposed.
  const double hops = 14 * 10e-6;
  const double embeddings = 2 * 4 * 31725504 * 7.0 / 8 / 115.5e9 + hops;
  const double rest = 2 * 4 * 107073 * 7.0 / 8 / 115.5e9 + hops;
  EXPECT_NEAR(embeddings, 2.063e-3, 1e-6);
  EXPECT_NEAR(term(*p, "communication"), embeddings + rest, 1e-9);
  // Within 20% of the measured step; over PCIe, as a bridge's rings beyond 2 GPUs run, the
  // embeddings' ring alone would be 222 MB over 11 GB/s, 20 ms.
  EXPECT_NEAR(p->step_time_s / 10.93e-3, 1, 0.2) << p->step_time_s;
}

}  // namespace
}  // namespace rigplan
