#include "workload/zoo_image.h"

#include <fmt/format.h>

#include <cstdint>

#include "catalog/image_io.h"
#include "workload/workload_schema.h"

namespace rigplan {
namespace {

using image::get_fields;
using image::put_fields;
using image::Reader;
using image::Writer;

// The first bytes of an image; the number changes with the layout.
constexpr std::string_view kMagic = "rigplan zoo image 2\n";

void put_workload(Writer& w, const Workload& workload) {
  put_fields(w, workload, workload_fields());
  w.put(workload.provenance);
  w.put(workload.transformer.has_value());
  if (workload.transformer) put_fields(w, *workload.transformer, transformer_fields());
  w.put(workload.resnet.has_value());
  if (workload.resnet) put_fields(w, *workload.resnet, resnet_fields());
  w.put(workload.diffusion.has_value());
  if (workload.diffusion) {
    put_fields(w, *workload.diffusion, diffusion_fields());
    w.put(static_cast<std::uint32_t>(workload.diffusion->components.size()));
    for (const auto& component : workload.diffusion->components) {
      put_fields(w, component, diffusion_component_fields());
      w.put(static_cast<std::uint32_t>(component.levels.size()));
      for (const auto& level : component.levels) put_fields(w, level, unet_level_fields());
    }
  }
  w.put(static_cast<std::uint32_t>(workload.layers.size()));
  for (const auto& layer : workload.layers) put_fields(w, layer, layer_fields());
}

// Reads what put_workload wrote; a read past the end marks `r` failed.
template <class T>
void get_present(Reader& r, std::optional<T>& value, const std::vector<FieldSpec<T>>& fields) {
  bool present = false;
  r.get(present);
  if (!present || r.failed()) return value.reset();
  get_fields(r, value.emplace(), fields);
}

void get_workload(Reader& r, Workload& workload) {
  get_fields(r, workload, workload_fields());
  r.get(workload.provenance);
  get_present(r, workload.transformer, transformer_fields());
  get_present(r, workload.resnet, resnet_fields());
  std::optional<DiffusionConfig> diffusion;
  get_present(r, diffusion, diffusion_fields());
  if (diffusion) {
    diffusion->components.resize(r.count());
    for (auto& component : diffusion->components) {
      get_fields(r, component, diffusion_component_fields());
      component.levels.resize(r.count());
      for (auto& level : component.levels) get_fields(r, level, unet_level_fields());
    }
    workload.diffusion = std::move(diffusion);
  }
  workload.layers.resize(r.count());
  for (auto& layer : workload.layers) get_fields(r, layer, layer_fields());
}

}  // namespace

std::string write_zoo_image(const Zoo& zoo) {
  std::string out(kMagic);
  Writer w(out);
  w.put(static_cast<std::uint32_t>(zoo.workloads.size()));
  for (const auto& workload : zoo.workloads) put_workload(w, workload);
  return out;
}

Result<Zoo> read_zoo_image(std::string_view image) {
  if (!image.starts_with(kMagic)) {
    return Status::internal("the embedded zoo image does not start with its magic line");
  }
  Reader r(image.substr(kMagic.size()));
  Zoo zoo;
  zoo.workloads.resize(r.count());
  for (auto& workload : zoo.workloads) {
    get_workload(r, workload);
    if (r.failed()) break;
  }
  if (r.failed() || !r.at_end()) {
    return Status::internal(fmt::format("the embedded zoo image is {}",
                                        r.failed() ? "truncated" : "longer than its workloads"));
  }
  std::string clash;
  zoo.build_index([&](std::string_view, size_t, std::string_view, const std::string& name,
                      const std::string& other) {
    if (clash.empty()) clash = fmt::format("workload name '{}' also names '{}'", name, other);
  });
  if (!clash.empty()) return Status::internal("the embedded zoo image: " + clash);
  return zoo;
}

}  // namespace rigplan
