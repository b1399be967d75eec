// Loading data/calibration/perf.toml.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>

#include "catalog/toml_decode.h"
#include "model/calibration_key.h"
#include "rigplan/perf.h"
#include "util/embedded_file.h"
#include "util/strings.h"

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
      {"framework", &W::framework, false},
  };
  return kFields;
}

const std::vector<FieldSpec<FrameworkCalibration>>& framework_fields() {
  using F = FrameworkCalibration;
  static const std::vector<FieldSpec<F>> kFields = {
      {"framework", &F::framework, true},
      {"covers", &F::covers, true},
      {"level", &F::level, true, "", {}, {0, 10, false}},
      {"rows", &F::rows, true, "", {}, {0, 1e6, true}},
      {"fitted_on", &F::fitted_on, true},
      {"pointwise", &F::pointwise, false, "", {"fused", "decomposed"}},
  };
  return kFields;
}

const std::vector<FieldSpec<StackMaturity>>& maturity_fields() {
  using M = StackMaturity;
  static const std::vector<FieldSpec<M>> kFields = {
      {"architecture", &M::architecture, true},
      {"stack", &M::stack, true},
      {"factor", &M::factor, true, "", {}, {0, 1, false}},
      {"confidence", &M::confidence, true, "", {"low", "medium", "high"}},
      {"date", &M::date, true},
      {"fitted_on", &M::fitted_on, true},
      {"source", &M::source, true},
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

// A row of a calibration section (no provenance keys: a section names its sources in fields).
template <class T>
T decode_row(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields) {
  T row;
  decode_fields(ctx, ctx.table(), fields, row, {});
  return row;
}

// A row of data/calibration/gemm_ceiling.toml: the best measured GEMM efficiency of a key.
struct GemmCeiling {
  std::string architecture;
  double gemm_efficiency = 1;
  std::string measured_on, source;
};

const std::vector<FieldSpec<GemmCeiling>>& ceiling_fields() {
  using G = GemmCeiling;
  static const std::vector<FieldSpec<G>> kFields = {
      {"architecture", &G::architecture, true},
      {"gemm_efficiency", &G::gemm_efficiency, true, "", {}, {0, 1, false}},
      {"measured_on", &G::measured_on, true},
      {"source", &G::source, true},
  };
  return kFields;
}

// Decodes a file's [[gemm_ceiling]] rows into `out`, by calibration key.
void decode_ceilings(toml::array& rows, Problems& problems,
                     std::map<std::string, double, std::less<>>& out) {
  for (auto& item : rows) {
    const RawEntry raw{std::move(*item.as_table()), ""};
    const GemmCeiling g = decode_row(EntryContext("gemm_ceiling", raw, problems), ceiling_fields());
    out[g.architecture] = g.gemm_efficiency;
  }
}

// Where a [[workload]] names the framework its rows ran under, or a [[maturity]] the stack it
// lags on, to check against the [[framework]] sections once every file is read.
struct FrameworkRef {
  std::string framework;
  toml::source_region where;
  std::string_view section = "workload";  // and field: framework; maturity: stack
};

// Decodes a [[maturity]] row into `out`, its architecture a calibration key, and remembers its
// stack for check_framework_refs.
void decode_maturity(const EntryContext& ctx, const toml::source_region& where, Calibration& out,
                     std::vector<FrameworkRef>& refs) {
  StackMaturity m = decode_row(ctx, maturity_fields());
  if (ctx.read_well({"architecture"})) check_calibration_key(ctx, m.architecture);
  if (!ctx.read_well({"stack"})) return;
  if (m.stack != kReferenceStack) refs.push_back({m.stack, where, "maturity"});
  if (out.maturity(m.architecture, m.stack)) {
    ctx.field_failed(
        "stack", fmt::format("'{}' on '{}' has a [[maturity]] already", m.stack, m.architecture));
  }
  out.maturities.push_back(std::move(m));
}

// Decodes the rows of one [[arch]], [[engine]], [[framework]], [[maturity]], [[workload]] or
// [[band]] section into `out`.
void decode_section(std::string_view key, toml::array& rows, Problems& problems, Calibration& out,
                    std::vector<FrameworkRef>& refs) {
  for (auto& item : rows) {
    // Moved: a copy of a toml++ node drops where it was read ("<input>:0:0").
    const RawEntry raw{std::move(*item.as_table()), ""};
    const EntryContext ctx(key, raw, problems);
    if (key == "arch") {
      out.archs.push_back(decode_row(ctx, arch_fields()));
    } else if (key == "engine") {
      out.engines.push_back(decode_row(ctx, engine_fields()));
    } else if (key == "framework") {
      out.frameworks.push_back(decode_row(ctx, framework_fields()));
    } else if (key == "maturity") {
      decode_maturity(ctx, raw.table.source(), out, refs);
    } else if (key == "workload") {
      out.workloads.push_back(decode_row(ctx, workload_fields()));
      if (!out.workloads.back().framework.empty())
        refs.push_back({out.workloads.back().framework, raw.table.source()});
    } else {
      const Band b = decode_row(ctx, band_fields());
      out.error_band[b.workload_class] = b.rel_error;
      if (b.borrowed_rel_error) out.borrowed_error_band[b.workload_class] = *b.borrowed_rel_error;
    }
  }
}

// A [[workload]]'s framework is the id of a [[framework]] (calibrate writes the id); a misspelt
// one would silently keep the workload's speed under every framework. A [[maturity]]'s stack is
// such an id or kReferenceStack; a misspelt one would silently apply to no run.
void check_framework_refs(const Calibration& c, const std::vector<FrameworkRef>& refs,
                          Problems& problems) {
  std::vector<std::string> ids;
  for (const auto& f : c.frameworks) ids.push_back(f.framework);
  for (const auto& ref : refs) {
    if (std::find(ids.begin(), ids.end(), ref.framework) != ids.end()) continue;
    const bool maturity = ref.section == "maturity";
    std::vector<std::string> accepted = ids;
    if (maturity) accepted.emplace_back(kReferenceStack);
    problems.add(ref.where,
                 fmt::format("{}: {} '{}' is not a [[framework]]{}; expected {}{}", ref.section,
                             maturity ? "stack" : "framework", ref.framework,
                             maturity ? " or the reference stack" : "", quoted_list(accepted),
                             did_you_mean(ref.framework, accepted)));
  }
}

}  // namespace

Result<Calibration> load_calibration(const std::vector<CatalogFile>& files) {
  Problems problems;
  Calibration out;
  std::vector<FrameworkRef> refs;
  for (const auto& file : files) {
    out.source = file.path;
    auto parsed = parse_file(file, problems);
    if (!parsed) continue;
    toml::table& root = *parsed;
    for (auto&& [key, node] : root) {
      auto* array = node.as_array();
      static constexpr std::string_view kSections[] = {
          "arch", "workload", "framework", "maturity", "engine", "band", "gemm_ceiling"};
      const bool known =
          std::find(std::begin(kSections), std::end(kSections), key.str()) != std::end(kSections);
      if (!known || !array || !array->is_array_of_tables()) {
        problems.add(node.source(),
                     fmt::format("unknown section '{}'; expected [[arch]], [[workload]], "
                                 "[[framework]], [[maturity]], [[engine]], [[band]] or "
                                 "[[gemm_ceiling]]",
                                 key.str()));
        continue;
      }
      if (key.str() == "gemm_ceiling") {
        decode_ceilings(*array, problems, out.gemm_ceilings);
        continue;
      }
      decode_section(key.str(), *array, problems, out, refs);
    }
  }
  check_framework_refs(out, refs, problems);
  if (!problems.empty()) return problems.to_status();
  return out;
}

const Calibration& embedded_calibration() {
  // Parsed once: every prediction of a `rigplan serve` process shares it.
  static const Calibration kCalibration = [] {
    auto loaded = load_calibration(catalog_files(embedded_calibration_files()));
    assert(loaded.ok() && "the embedded calibration is checked by its tests");
    return loaded.ok() ? std::move(loaded).value() : Calibration{};
  }();
  return kCalibration;
}

double Calibration::gemm_ceiling(std::string_view key) const {
  const auto it = gemm_ceilings.find(key);
  return it == gemm_ceilings.end() ? 1.0 : it->second;
}

}  // namespace rigplan
