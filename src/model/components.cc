#include "model/components.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/strings.h"

namespace rigplan {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

Status check_names(const Workload& w, std::string_view option,
                   const std::vector<std::string>& given, const std::vector<std::string>& known) {
  for (const auto& name : given) {
    if (contains(known, name)) continue;
    if (known.empty()) {
      return Status::invalid_input(
          fmt::format("--{} applies to models made of components (the diffusion models); {} is "
                      "one network",
                      option, w.id));
    }
    return Status::invalid_input(fmt::format("--{} '{}' is not a component of {}; expected {}{}",
                                             option, name, w.id, quoted_list(known),
                                             did_you_mean(name, known)));
  }
  return {};
}

}  // namespace

Result<ComponentPlan> plan_components(const Workload& w, const RunConfig& c) {
  std::vector<std::string> names, trains;
  if (w.diffusion) {
    for (const auto& component : w.diffusion->components) {
      names.push_back(component.name);
      if (component.trains) trains.push_back(component.name);
    }
  }
  if (Status s = check_names(w, "train-components", c.train_components, names); !s.ok()) return s;
  if (Status s = check_names(w, "cached-components", c.cached_components, names); !s.ok()) return s;
  ComponentPlan plan;
  plan.trained = c.train_components.empty() ? trains : c.train_components;
  plan.cached = c.cached_components;
  for (const auto& name : plan.cached) {
    if (contains(plan.trained, name)) {
      return Status::invalid_input(fmt::format(
          "component '{}' cannot be both trained and cached: a trained component runs in every "
          "step",
          name));
    }
  }
  const bool train = c.mode == "train";
  plan.roles.reserve(w.layers.size());
  for (const auto& l : w.layers) {
    const double params = static_cast<double>(layer_params(l)) * l.count;
    LayerRole role = LayerRole::kFrozen;
    if (!plan.cached.empty() && contains(plan.cached, l.component)) {
      role = LayerRole::kCached;
    } else if (l.component.empty() || contains(plan.trained, l.component)) {
      role = train ? LayerRole::kTrained : LayerRole::kFrozen;
      plan.trained_params += params;
    } else if (train && l.inference_only) {
      role = LayerRole::kIdle;
    }
    if (role != LayerRole::kCached) plan.loaded_params += params;
    plan.roles.push_back(role);
  }
  return plan;
}

}  // namespace rigplan
