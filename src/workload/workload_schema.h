// FieldSpec tables of the workload file format (docs/workloads.md).
#pragma once

#include "rigplan/schema.h"
#include "rigplan/workload.h"

namespace rigplan {

const std::vector<FieldSpec<Workload>>& workload_fields();
const std::vector<FieldSpec<TransformerConfig>>& transformer_fields();
const std::vector<FieldSpec<ResNetConfig>>& resnet_fields();
const std::vector<FieldSpec<Layer>>& layer_fields();
const std::vector<FieldSpec<DiffusionConfig>>& diffusion_fields();
const std::vector<FieldSpec<DiffusionComponent>>& diffusion_component_fields();
const std::vector<FieldSpec<UNetLevel>>& unet_level_fields();

}  // namespace rigplan
