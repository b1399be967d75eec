// The torchvision ResNet family as a layer list, generated from its depth.
#pragma once

#include <vector>

#include "rigplan/workload.h"

namespace rigplan {

// Layers of a ResNet-18/34 (basic blocks) or 50/101/152 (bottlenecks, stride on the 3×3
// convolution as in ResNet-50 v1.5). Any other depth is a kInvalidInput Status.
Result<std::vector<Layer>> resnet_layers(const ResNetConfig& config);

}  // namespace rigplan
