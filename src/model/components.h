// The parts of a layer-list workload in a run: which components train, which run frozen, which
// are loaded but idle and which are not loaded because their outputs were computed beforehand
// (docs/memory.md, "Diffusion models"). Shared by the memory and the speed model.
#pragma once

#include <vector>

#include "rigplan/memory.h"
#include "rigplan/workload.h"

namespace rigplan {

enum class LayerRole {
  kTrained,  // forward and backward; its outputs kept; its weights (or adapters) trained
  kFrozen,   // forward only, under no_grad: text encoders, the VAE encoder
  kIdle,     // loaded but not run in this mode: the VAE decoder while training
  kCached,   // not loaded: its outputs (latents, text embeddings) were computed beforehand
};

struct ComponentPlan {
  std::vector<LayerRole> roles;  // one per layer of the workload's layer list
  double trained_params = 0;     // parameters of the trained components
  double loaded_params = 0;      // parameters in GPU memory (all but the cached components)
  std::vector<std::string> trained, cached;  // component names, resolved
};

// `config.train_components` (default: the workload's components marked `trains`) and
// `config.cached_components` checked against the workload's components; a name it does not
// have is a kInvalidInput Status listing those it has. Workloads without components are one
// trained part.
Result<ComponentPlan> plan_components(const Workload& workload, const RunConfig& config);

}  // namespace rigplan
