// Loading data/calibration/perf.toml.
#include <fmt/format.h>

#include "catalog/toml_decode.h"
#include "rigplan/perf.h"
#include "util/embedded_file.h"

namespace rigplan {

using namespace toml_decode;

namespace {

struct Band {
  std::string workload_class;
  double rel_error = 0;
  std::optional<double> borrowed_rel_error;
};

const std::vector<FieldSpec<ArchCalibration>>& arch_fields() {
  using A = ArchCalibration;
  static const std::vector<FieldSpec<A>> kFields = {
      {"architecture", &A::architecture, true},
      {"gemm_efficiency", &A::gemm_efficiency, true, "", {}, {0, 1, false}},
      {"memory_efficiency", &A::memory_efficiency, true, "", {}, {0, 1, false}},
      {"tf32_efficiency", &A::tf32_efficiency, false, "", {}, {0, 1, false}},
      {"fitted_on", &A::fitted_on, true},
  };
  return kFields;
}

const std::vector<FieldSpec<WorkloadCalibration>>& workload_fields() {
  using W = WorkloadCalibration;
  static const std::vector<FieldSpec<W>> kFields = {
      {"workload", &W::workload, true},
      {"efficiency", &W::efficiency, true, "", {}, {0, 100, false}},
      {"rows", &W::rows, true, "", {}, {1, 1e6, true}},
      {"fitted_on", &W::fitted_on, true},
  };
  return kFields;
}

const std::vector<FieldSpec<EngineCalibration>>& engine_fields() {
  using E = EngineCalibration;
  static const std::vector<FieldSpec<E>> kFields = {
      {"engine", &E::engine, true},
      {"architecture", &E::architecture, true},
      {"gemm_efficiency", &E::gemm_efficiency, true, "", {}, {0, 1, false}},
      {"memory_efficiency", &E::memory_efficiency, true, "", {}, {0, 1, false}},
      {"rows", &E::rows, true, "", {}, {1, 1e6, true}},
      {"fitted_on", &E::fitted_on, true},
  };
  return kFields;
}

const std::vector<FieldSpec<Band>>& band_fields() {
  static const std::vector<FieldSpec<Band>> kFields = {
      {"workload_class",
       &Band::workload_class,
       true,
       "",
       {"cnn", "transformer", "rnn", "recsys", "inference"}},
      {"rel_error", &Band::rel_error, true, "", {}, {0, 10, false}},
      {"borrowed_rel_error", &Band::borrowed_rel_error, false, "", {}, {0, 10, false}},
  };
  return kFields;
}

}  // namespace

Result<Calibration> load_calibration(const std::vector<CatalogFile>& files) {
  Problems problems;
  Calibration out;
  for (const auto& file : files) {
    out.source = file.path;
    auto parsed = parse_file(file, problems);
    if (!parsed) continue;
    toml::table& root = *parsed;
    for (auto&& [key, node] : root) {
      auto* array = node.as_array();
      const bool arch = key.str() == "arch", band = key.str() == "band",
                 workload = key.str() == "workload", engine = key.str() == "engine";
      if ((!arch && !band && !workload && !engine) || !array || !array->is_array_of_tables()) {
        problems.add(node.source(),
                     fmt::format("unknown section '{}'; expected [[arch]], [[workload]], "
                                 "[[engine]] or [[band]]",
                                 key.str()));
        continue;
      }
      for (auto& item : *array) {
        // Moved: a copy of a toml++ node drops where it was read ("<input>:0:0").
        const RawEntry raw{std::move(*item.as_table()), ""};
        const EntryContext ctx(key.str(), raw, problems);
        if (arch) {
          ArchCalibration a;
          decode_fields(ctx, raw.table, arch_fields(), a, {});
          out.archs.push_back(a);
        } else if (engine) {
          EngineCalibration e;
          decode_fields(ctx, raw.table, engine_fields(), e, {});
          out.engines.push_back(e);
        } else if (workload) {
          WorkloadCalibration w;
          decode_fields(ctx, raw.table, workload_fields(), w, {});
          out.workloads.push_back(w);
        } else {
          Band b;
          decode_fields(ctx, raw.table, band_fields(), b, {});
          out.error_band[b.workload_class] = b.rel_error;
          if (b.borrowed_rel_error)
            out.borrowed_error_band[b.workload_class] = *b.borrowed_rel_error;
        }
      }
    }
  }
  if (!problems.empty()) return problems.to_status();
  return out;
}

const Calibration& embedded_calibration() {
  // Parsed once: every prediction of a `rigplan serve` process shares it.
  static const Calibration kCalibration = [] {
    std::vector<CatalogFile> files;
    for (const auto& f : embedded_calibration_files())
      files.push_back({std::string(f.path), std::string(f.text)});
    auto loaded = load_calibration(files);
    assert(loaded.ok() && "the embedded calibration is checked by its tests");
    return loaded.ok() ? std::move(loaded).value() : Calibration{};
  }();
  return kCalibration;
}

}  // namespace rigplan
