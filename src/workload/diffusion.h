// Image-generation models as layer lists: the diffusers UNet (SD 1.x, SDXL), the Flux and SD 3
// diffusion transformers, the CLIP and T5 text encoders and the KL autoencoder, each built from
// its published configuration at a training resolution (docs/workloads.md, "Diffusion models").
#pragma once

#include <vector>

#include "rigplan/workload.h"

namespace rigplan {

// The layers of every component at `config.resolution`, each tagged with its component's name.
// A component whose fields do not fit its kind is a kInvalidInput Status naming the field.
Result<std::vector<Layer>> diffusion_layers(const DiffusionConfig& config);

}  // namespace rigplan
