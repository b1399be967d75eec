#include "workload/resnet.h"

#include <fmt/format.h>

namespace rigplan {
namespace {

struct Builder {
  std::vector<Layer> layers;

  void conv(std::string name, int in, int out, int kernel, int stride, int out_hw) {
    Layer l;
    l.op = "conv2d";
    l.name = std::move(name);
    l.in_channels = in;
    l.out_channels = out;
    l.kernel = kernel;
    l.stride = stride;
    l.out_h = l.out_w = out_hw;
    layers.push_back(l);
    Layer bn;
    bn.op = "norm";
    bn.kind = "batchnorm";
    bn.name = l.name + ".bn";
    bn.channels = out;
    bn.elements = static_cast<std::int64_t>(out) * out_hw * out_hw;
    layers.push_back(bn);
  }
  // kept false: an in-place op (torchvision's ReLU(inplace=True), `out += identity`), whose
  // output is its input's memory.
  void elementwise(std::string name, std::int64_t elements, bool kept = true) {
    Layer l;
    l.op = "elementwise";
    l.name = std::move(name);
    l.elements = elements;
    l.kept = kept;
    layers.push_back(l);
  }
};

// The blocks per stage of each depth, and whether they are bottlenecks (He et al. 2016,
// table 1); nullptr for a depth that is none of them.
struct Shape {
  int depth;
  bool bottleneck;
  int blocks[4];
};
const Shape* resnet_shape(int depth) {
  static constexpr Shape kShapes[] = {{18, false, {2, 2, 2, 2}},
                                      {34, false, {3, 4, 6, 3}},
                                      {50, true, {3, 4, 6, 3}},
                                      {101, true, {3, 4, 23, 3}},
                                      {152, true, {3, 8, 36, 3}}};
  for (const auto& s : kShapes) {
    if (s.depth == depth) return &s;
  }
  return nullptr;
}

// The stem: a 7×7 stride-2 convolution and a 3×3 stride-2 max pool. Returns the side of its
// output.
int stem(Builder& b, int image_size) {
  int hw = (image_size + 1) / 2;  // 7×7 stride-2 stem
  b.conv("stem", 3, 64, 7, 2, hw);
  b.elementwise("stem.relu", 64LL * hw * hw, false);
  hw = (hw + 1) / 2;  // 3×3 stride-2 max pool
  b.elementwise("stem.maxpool", 64LL * hw * hw);
  return hw;
}

// One residual block (torchvision's BasicBlock or Bottleneck) on `in` channels of side `hw`:
// `width` channels inside, `out` at its output; a 1×1 convolution projects the shortcut when
// the stride or the channels change.
void block(Builder& b, const std::string& name, bool bottleneck, int in, int width, int out,
           int stride, int hw) {
  const int out_hw = (hw + stride - 1) / stride;
  const std::int64_t width_elements = static_cast<std::int64_t>(width) * out_hw * out_hw;
  if (bottleneck) {
    b.conv(name + ".conv1", in, width, 1, 1, hw);
    b.elementwise(name + ".relu1", static_cast<std::int64_t>(width) * hw * hw, false);
    b.conv(name + ".conv2", width, width, 3, stride, out_hw);
    b.elementwise(name + ".relu2", width_elements, false);
    b.conv(name + ".conv3", width, out, 1, 1, out_hw);
  } else {
    b.conv(name + ".conv1", in, width, 3, stride, out_hw);
    b.elementwise(name + ".relu1", width_elements, false);
    b.conv(name + ".conv2", width, out, 3, 1, out_hw);
  }
  if (stride != 1 || in != out) {
    b.conv(name + ".downsample", in, out, 1, stride, out_hw);
    b.layers.back().kept = false;  // its BatchNorm's output: only the residual add reads it
  }
  b.elementwise(name + ".add_relu", static_cast<std::int64_t>(out) * out_hw * out_hw, false);
}

// The classifier: global average pool and a fully connected layer to the classes.
void head(Builder& b, int in, int num_classes) {
  b.elementwise("avgpool", in);
  Layer fc;
  fc.op = "linear";
  fc.name = "fc";
  fc.in_features = in;
  fc.out_features = num_classes;
  b.layers.push_back(fc);
}

}  // namespace

Result<std::vector<Layer>> resnet_layers(const ResNetConfig& config) {
  const Shape* shape = resnet_shape(config.depth);
  if (!shape) {
    return Status::invalid_input(fmt::format(
        "ResNet depth {} is not accepted; expected 18, 34, 50, 101 or 152", config.depth));
  }
  Builder b;
  int hw = stem(b, config.image_size);
  int in = 64;
  const int expansion = shape->bottleneck ? 4 : 1;
  // Four stages of widths 64 to 512; each but the first halves the side in its first block.
  for (int stage = 0; stage < 4; ++stage) {
    const int width = 64 << stage;
    const int out = width * expansion;
    for (int i = 0; i < shape->blocks[stage]; ++i) {
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      block(b, fmt::format("layer{}.{}", stage + 1, i), shape->bottleneck, in, width, out, stride,
            hw);
      in = out;
      hw = (hw + stride - 1) / stride;
    }
  }
  head(b, in, config.num_classes);
  return std::move(b.layers);
}

}  // namespace rigplan
