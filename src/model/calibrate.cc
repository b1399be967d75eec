#include "rigplan/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/inference_perf.h"
#include "rigplan/calibration_fit.h"
#include "rigplan/engine.h"
#include "util/stats.h"
#include "util/strings.h"

namespace rigplan {
namespace {

// Strength of the pull towards the starting (prior) efficiencies, per squared log unit: ratios
// within groups do not fix the absolute level of every architecture on their own.
constexpr double kPriorWeight = 0.05;
// Multiplicative steps tried for each parameter, and the sweeps over all parameters.
constexpr double kSteps[] = {0.6, 0.75, 0.87, 0.94, 1.06, 1.15, 1.33, 1.6};
constexpr int kSweeps = 3;
constexpr double kMinEfficiency = 0.05;
// Residuals beyond this many log units count linearly (Huber loss), so that a few runs far off
// every model (a benchmark that did not apply AMP, a card thrashing at the edge of its memory)
// do not set the efficiencies of every GPU of their architecture. 0.15 (16%) is about the
// scatter between two software generations of Lambda's benchmark on one GPU (validation/README.md).
constexpr double kHuberDelta = 0.15;

double huber(double e) {
  return e <= kHuberDelta ? e * e : 2 * kHuberDelta * e - kHuberDelta * kHuberDelta;
}

double objective(const std::vector<ThroughputSample>& samples, const std::vector<bool>& use,
                 const std::vector<double>& predicted, const Calibration& c,
                 const Calibration& start) {
  double sum = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!use[i] || samples[i].ref == static_cast<int>(i) || samples[i].ref < 0) continue;
    const size_t r = static_cast<size_t>(samples[i].ref);
    if (!use[r] || predicted[i] <= 0 || predicted[r] <= 0) continue;
    const double e = std::abs(
        std::log((predicted[i] / predicted[r]) / (samples[i].measured / samples[r].measured)));
    sum += huber(e);
  }
  for (const auto& a : c.archs) {
    const ArchCalibration s = start.for_arch(a.architecture);
    sum += kPriorWeight * (std::pow(std::log(a.gemm_efficiency / s.gemm_efficiency), 2) +
                           std::pow(std::log(a.memory_efficiency / s.memory_efficiency), 2));
  }
  return sum;
}

// An inference run of an LLM: its speed comes from the engine's efficiencies, not the arch's.
bool is_inference(const ThroughputSample& s) {
  return s.workload->transformer && s.run.mode != "train";
}

// The engine id of an inference sample (its run may name an alias).
std::string engine_of(const ThroughputSample& s) {
  auto engine = embedded_engines().find_engine(s.run.engine);
  return engine ? (*engine)->id : s.run.engine;
}

}  // namespace

void prepare_samples(std::vector<ThroughputSample>& samples, const Catalog& catalog) {
  for (auto& s : samples) {
    auto facts = run_facts(*s.workload, *s.gpu, s.run);
    StackCheck stack;
    if (facts) stack = check_stack(*s.workload, *s.gpu, *facts, catalog);
    s.prepared = std::make_shared<const SampleFacts>(SampleFacts{std::move(facts), stack});
  }
}

namespace {

// The sample's prediction, from its prepared facts when it has them.
Result<Prediction> predict_sample(const ThroughputSample& s, const Calibration& calibration,
                                  const Catalog& catalog) {
  if (!s.prepared) return predict(*s.workload, *s.gpu, s.run, calibration, catalog);
  if (!s.prepared->facts) return s.prepared->facts.status();
  return predict(*s.workload, *s.gpu, s.run, calibration, catalog, *s.prepared->facts,
                 s.prepared->stack);
}

double sample_value(const ThroughputSample& s, const Calibration& calibration,
                    const Catalog& catalog) {
  auto p = predict_sample(s, calibration, catalog);
  if (!p) return 0;
  if (s.metric == "throughput") return p->throughput;
  if (p->serving) return s.metric == "ttft_ms" ? p->serving->ttft_ms : p->serving->tpot_ms;
  // Decode: the time of a step is the time per output token.
  return s.metric == "tpot_ms" && p->config.mode == "decode" ? p->step_time_s * 1e3 : 0;
}

}  // namespace

std::vector<double> predict_samples(const std::vector<ThroughputSample>& samples,
                                    const Calibration& calibration, const Catalog& catalog) {
  std::vector<double> out(samples.size(), 0);
  for (size_t i = 0; i < samples.size(); ++i)
    out[i] = sample_value(samples[i], calibration, catalog);
  return out;
}

namespace {

// The engines' efficiencies per calibration key, fitted to the inference samples in use: the
// Huber loss of log(predicted / measured) (absolute, so that the level is right as well as the
// ratios) plus a weak pull towards the engine's priors (data/engines). Coordinate descent over
// multiplicative steps, as for the architectures.
void fit_engines(const std::vector<ThroughputSample>& samples, const std::vector<bool>& use,
                 const Catalog& catalog, Calibration& c) {
  c.engines.clear();
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> by_key;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (use[i] && is_inference(samples[i]))
      by_key[{engine_of(samples[i]), calibration_key(*samples[i].gpu)}].push_back(i);
  }
  const Engines& engines = embedded_engines();
  for (const auto& [key, key_rows] : by_key) {
    const auto& rows = key_rows;  // named: clang 14 cannot capture a structured binding
    auto engine = engines.find_engine(key.first);
    if (!engine) continue;
    const EngineCalibration prior =
        engine_efficiency(Calibration{}, **engine, *samples[rows[0]].gpu, catalog);
    c.engines.push_back(prior);
    EngineCalibration& e = c.engines.back();
    e.rows = static_cast<int>(rows.size());
    const double gemm_bound = c.gemm_ceiling(key.second);
    e.gemm_efficiency = std::min(e.gemm_efficiency, gemm_bound);
    auto loss = [&] {
      double sum = 0;
      for (size_t i : rows) {
        const double p = sample_value(samples[i], c, catalog);
        sum += p > 0 ? huber(std::abs(std::log(p / samples[i].measured))) : 1;
      }
      return sum +
             kPriorWeight * (std::pow(std::log(e.gemm_efficiency / prior.gemm_efficiency), 2) +
                             std::pow(std::log(e.memory_efficiency / prior.memory_efficiency), 2));
    };
    double best = loss();
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      for (double EngineCalibration::*param :
           {&EngineCalibration::gemm_efficiency, &EngineCalibration::memory_efficiency}) {
        const double base = e.*param;
        double chosen = base;
        for (double step : kSteps) {
          e.*param = std::clamp(base * step, kMinEfficiency,
                                param == &EngineCalibration::gemm_efficiency ? gemm_bound : 1.0);
          if (e.*param == base) continue;
          if (const double score = loss(); score < best) {
            best = score;
            chosen = e.*param;
          }
        }
        e.*param = chosen;
      }
    }
  }
}

// The calibration keys of the training samples in use: the architectures whose efficiencies
// are fitted.
std::set<std::string> fitted_archs(const std::vector<ThroughputSample>& samples,
                                   const std::vector<bool>& use) {
  std::set<std::string> present;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (use[i] && !is_inference(samples[i])) present.insert(calibration_key(*samples[i].gpu));
  }
  return present;
}

// The training samples the objective reads (those in use, and the refs of those in use), by
// calibration key.
std::map<std::string, std::vector<size_t>> samples_by_arch(
    const std::vector<ThroughputSample>& samples, const std::vector<bool>& use) {
  std::map<std::string, std::vector<size_t>> by_arch;
  for (size_t i = 0; i < samples.size(); ++i) {
    const size_t r = static_cast<size_t>(std::max(samples[i].ref, 0));
    if (!use[i] && !(r < use.size() && use[r] && samples[r].ref >= 0)) continue;
    if (is_inference(samples[i])) continue;
    by_arch[calibration_key(*samples[i].gpu)].push_back(i);
  }
  return by_arch;
}

// Lowers each fitted key's gemm_efficiency above its gemm_ceiling to the ceiling; the keys lowered.
std::vector<std::string> cap_at_ceilings(Calibration& c, const std::set<std::string>& present) {
  std::vector<std::string> capped;
  for (auto& a : c.archs) {
    const double ceiling = c.gemm_ceiling(a.architecture);
    if (!present.count(a.architecture) || a.gemm_efficiency <= ceiling) continue;
    a.gemm_efficiency = ceiling;
    capped.push_back(a.architecture);
  }
  return capped;
}

// The id of the framework a sample's row names; empty when it names none (or one `c` lacks).
std::string framework_of(const ThroughputSample& s, const Calibration& c) {
  if (s.run.framework.empty()) return "";
  auto framework = c.framework(s.run.framework);
  return framework ? (*framework)->framework : "";
}

// Each measured workload's speed against the fitted model: the median ratio over its rows, in
// the order of the workloads' ids, with the framework all its rows name.
std::vector<WorkloadCalibration> workload_speeds(const std::vector<ThroughputSample>& samples,
                                                 const std::vector<bool>& use,
                                                 const std::vector<double>& predicted,
                                                 const Calibration& c) {
  std::map<std::string, std::vector<double>> log_ratios;
  std::map<std::string, std::set<std::string>> frameworks;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!use[i] || predicted[i] <= 0) continue;
    const std::string& id = samples[i].workload->id;
    log_ratios[id].push_back(std::log(samples[i].measured / predicted[i]));
    frameworks[id].insert(framework_of(samples[i], c));
  }
  std::vector<WorkloadCalibration> out;
  for (const auto& [workload, logs] : log_ratios) {
    const auto& named = frameworks[workload];
    out.push_back({workload, std::exp(median(logs)), static_cast<int>(logs.size()), "",
                   named.size() == 1 ? *named.begin() : ""});
  }
  return out;
}

// Each framework's level against the fitted model: the median ratio over the rows that name it,
// its fitted_on cleared (framework_toml says what it was fitted to); a framework no row in use
// names keeps its level, rows and fitted_on in `start` (the reference level, 1, where `start` has
// none; torchtitan's, fitted on validation/cluster.csv, which no throughput row names).
std::vector<FrameworkCalibration> framework_levels(const std::vector<ThroughputSample>& samples,
                                                   const std::vector<bool>& use,
                                                   const std::vector<double>& predicted,
                                                   const Calibration& start) {
  std::map<std::string, std::vector<double>> log_ratios;
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::string id = framework_of(samples[i], start);
    if (use[i] && predicted[i] > 0 && !id.empty())
      log_ratios[id].push_back(std::log(samples[i].measured / predicted[i]));
  }
  std::vector<FrameworkCalibration> out = start.frameworks;
  for (auto& f : out) {
    auto it = log_ratios.find(f.framework);
    if (it == log_ratios.end()) continue;
    f.level = std::exp(median(it->second));
    f.rows = static_cast<int>(it->second.size());
    f.fitted_on.clear();
  }
  return out;
}

// Fitting the architectures' efficiencies: the calibration fitted, the keys it fits, the
// predictions of the training samples the objective reads, and the objective's best value.
struct ArchFit {
  const std::vector<ThroughputSample>& samples;
  const std::vector<bool>& use;
  const Calibration& start;
  const Catalog& catalog;
  Calibration& c;
  std::set<std::string> present;
  std::map<std::string, std::vector<size_t>> by_arch;  // samples_by_arch
  std::vector<double> predicted;
  double best = 0;
};

// Predicts the samples on GPUs of `arch` again: only they change with its parameters.
void repredict(ArchFit& f, const std::string& arch) {
  for (size_t i : f.by_arch[arch]) {
    auto p = predict_sample(f.samples[i], f.c, f.catalog);
    f.predicted[i] = p ? p->throughput : 0;
  }
}

// Sets one parameter of `a` to the multiplicative step (within [kMinEfficiency, upper]) that
// lowers the objective most; keeps it where none does.
void fit_parameter(ArchFit& f, ArchCalibration& a, double ArchCalibration::*param, double upper) {
  const double base = a.*param;
  double chosen = base;
  for (double step : kSteps) {
    const double value = std::clamp(base * step, kMinEfficiency, upper);
    if (value == base) continue;
    a.*param = value;
    repredict(f, a.architecture);
    const double score = objective(f.samples, f.use, f.predicted, f.c, f.start);
    if (score < f.best) {
      f.best = score;
      chosen = value;
    }
  }
  a.*param = chosen;
  repredict(f, a.architecture);
}

// Coordinate descent over the fitted keys' parameters; `bounded`: no gemm_efficiency above its
// key's gemm_ceiling.
void descend(ArchFit& f, bool bounded) {
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    for (auto& a : f.c.archs) {
      if (!f.present.count(a.architecture)) continue;
      for (double ArchCalibration::*param :
           {&ArchCalibration::gemm_efficiency, &ArchCalibration::memory_efficiency,
            &ArchCalibration::tf32_efficiency}) {
        const bool gemm = param == &ArchCalibration::gemm_efficiency;
        fit_parameter(f, a, param, bounded && gemm ? f.c.gemm_ceiling(a.architecture) : 1.0);
      }
    }
  }
}

// Fits the efficiencies of the keys present, from `f.c`'s (the prior's where it has none). A
// key fitted above the best GEMM efficiency measured on its GPUs is held at that ceiling, and
// the others refitted around it: an active bound, which leaves a fit inside it unchanged.
void fit_archs(ArchFit& f) {
  for (const auto& arch : f.present) {
    bool known = false;
    for (const auto& a : f.c.archs) known = known || a.architecture == arch;
    if (!known) f.c.archs.push_back(f.start.for_arch(arch));
  }
  for (const auto& [arch, rows] : f.by_arch) repredict(f, arch);
  f.best = objective(f.samples, f.use, f.predicted, f.c, f.start);
  descend(f, false);
  const std::vector<std::string> capped = cap_at_ceilings(f.c, f.present);
  for (const auto& arch : capped) repredict(f, arch);
  if (!capped.empty()) {
    f.best = objective(f.samples, f.use, f.predicted, f.c, f.start);
    descend(f, true);
  }
}

}  // namespace

Calibration fit_prior(const Calibration& loaded) {
  Calibration prior;
  prior.frameworks = loaded.frameworks;
  prior.maturities = loaded.maturities;
  prior.gemm_ceilings = loaded.gemm_ceilings;
  return prior;
}

Calibration fit_calibration(const std::vector<ThroughputSample>& samples,
                            const std::vector<bool>& use, const Calibration& start,
                            const Catalog& catalog) {
  Calibration c = start;
  // The efficiencies and levels are fitted against the operator model alone.
  c.workloads.clear();
  for (auto& f : c.frameworks) f.level = 1;
  ArchFit fit{samples,
              use,
              start,
              catalog,
              c,
              fitted_archs(samples, use),
              samples_by_arch(samples, use),
              std::vector<double>(samples.size(), 0)};
  fit_archs(fit);
  c.workloads = workload_speeds(samples, use, fit.predicted, start);
  c.frameworks = framework_levels(samples, use, fit.predicted, start);
  fit_engines(samples, use, catalog, c);
  return c;
}

Result<CalibrationFit> calibrate_measurements(const Catalog& catalog, const Zoo& zoo,
                                              const std::string& path, const std::string& csv,
                                              std::function<void(size_t, size_t)> progress) {
  auto samples = throughput_samples(catalog, zoo, path, csv);
  if (!samples) return samples.status();
  const std::vector<bool> use = calibration_set(*samples);
  CalibrationFit out;
  out.rows = static_cast<size_t>(std::count(use.begin(), use.end(), true));
  // From the fixed prior, with the frameworks and GEMM ceilings of the shipped calibration.
  out.fitted = fit_calibration(*samples, use, fit_prior(embedded_calibration()), catalog);
  ValidateOptions options;
  options.calibration = &out.fitted;
  options.leave_out = LeaveOut::kGpu;
  options.progress = std::move(progress);
  auto report = validate_measurements(catalog, zoo, path, csv, options);
  if (!report) return report.status();
  out.held_out = std::move(report).value();
  if (out.fitted.archs.empty()) return out;
  options.leave_out = LeaveOut::kArchitecture;
  options.progress = nullptr;
  report = validate_measurements(catalog, zoo, path, csv, options);
  if (!report) return report.status();
  out.held_out_arch = std::move(report).value();
  return out;
}

namespace {
// Share of held-out predictions inside the error band: one standard deviation of a normal error.
constexpr double kBandShare = 0.68;

// The file's opening comment: what was fitted, from which file, when and on how many rows.
std::string calibration_header(const Calibration& fitted, std::string_view path, size_t rows,
                               const std::string& day) {
  if (fitted.archs.empty() && !fitted.engines.empty()) {
    return fmt::format(
        "# Fitted efficiencies of the inference engines per calibration key: fractions of the\n"
        "# weight format's tensor rate and of the memory bandwidth their kernels reach.\n"
        "# Written by `rigplan calibrate {}` on {}: {} rows.\n"
        "# Error band: the absolute error |predicted / measured - 1| that 68% of the\n"
        "# leave-one-GPU-out predictions stay within. See docs/inference.md.\n",
        path, day, rows);
  }
  return fmt::format(
      "# Fitted efficiencies of the performance model, per calibration key (architecture and\n"
      "# class: hbm, gddr, geforce), and each measured workload's speed against the model.\n"
      "# Written by `rigplan calibrate {}` on {}: {} rows in groups that compare GPUs.\n"
      "# Error bands: per workload class, the absolute error |predicted / measured - 1| that 68% "
      "of\n"
      "# the leave-one-GPU-out single-GPU predictions stay within.\n"
      "# See docs/performance.md.\n",
      path, day, rows);
}

// Per workload class, the absolute errors of the held-out single-GPU throughput rows; inference
// rows share one class. Rows of split held-out, outside the calibration set, are in no class:
// validate reports them by split.
std::map<std::string, std::vector<double>> errors_by_class(const ValidationReport& held_out) {
  std::map<std::string, std::vector<double>> out;
  for (const auto& r : held_out.rows) {
    const auto comma = r.workload_class.find(", 1 GPU");
    if (!r.abs_error || r.metric != "throughput" || r.split == "held-out") continue;
    // Inference rows are classed by engine and phase; they share one band.
    const bool inference = r.workload_class.find(' ') < r.workload_class.find(',');
    if (inference) {
      out["inference"].push_back(*r.abs_error);
    } else if (comma != std::string::npos) {
      out[r.workload_class.substr(0, comma)].push_back(*r.abs_error);
    }
  }
  return out;
}

// The error that kBandShare of `errors` stay within.
double band_of(std::vector<double> errors) {
  std::sort(errors.begin(), errors.end());
  return errors[static_cast<size_t>(kBandShare * static_cast<double>(errors.size()))];
}

// Per workload class, the band of the leave-one-GPU-out predictions, and of the
// leave-one-architecture-out ones where the fit ran them.
std::string error_bands_toml(const CalibrationFit& fit) {
  std::string out;
  const auto borrowed = errors_by_class(fit.held_out_arch);
  for (const auto& [workload_class, errors] : errors_by_class(fit.held_out)) {
    out += fmt::format("\n[[band]]\nworkload_class = \"{}\"\nrel_error = {:.3f}\n", workload_class,
                       band_of(errors));
    if (auto it = borrowed.find(workload_class); it != borrowed.end())
      out += fmt::format("borrowed_rel_error = {:.3f}\n", band_of(it->second));
  }
  return out;
}

// A [[framework]] section: a level fitted here (framework_levels cleared its fitted_on) says
// what it was fitted to; one kept from the start (the reference, a level fitted on other
// measurements) keeps its reason.
std::string framework_toml(const FrameworkCalibration& f, std::string_view path,
                           const std::string& day) {
  std::vector<std::string> covers;
  for (const auto& stack : f.covers) covers.push_back(fmt::format("\"{}\"", stack));
  const std::string fitted_on =
      f.fitted_on.empty()
          ? fmt::format("{}, {}: the median measured / predicted of its rows", path, day)
          : f.fitted_on;
  return fmt::format(
      "\n[[framework]]\nframework = \"{}\"\ncovers = [{}]\nlevel = {:.3f}\nrows = {}\n"
      "fitted_on = \"{}\"\npointwise = \"{}\"\n",
      f.framework, join(covers, ", "), f.level, f.rows, fitted_on, f.pointwise);
}

// A [[maturity]] section, as it was read: no row of a fit measures a stack's lag.
std::string maturity_toml(const StackMaturity& m) {
  return fmt::format(
      "\n[[maturity]]\narchitecture = \"{}\"\nstack = \"{}\"\nfactor = {}\nconfidence = "
      "\"{}\"\ndate = {}\nfitted_on = \"{}\"\nsource = \"{}\"\n",
      m.architecture, m.stack, m.factor, m.confidence, m.date.to_string(), m.fitted_on, m.source);
}

}  // namespace

std::string calibration_toml(const CalibrationFit& fit, std::string_view path, const Date& date) {
  const Calibration& fitted = fit.fitted;
  const std::string day = date.to_string();
  std::string out = calibration_header(fitted, path, fit.rows, day);
  for (const auto& a : fitted.archs) {
    out += fmt::format(
        "\n[[arch]]\narchitecture = \"{}\"\ngemm_efficiency = {:.3f}\nmemory_efficiency = "
        "{:.3f}\ntf32_efficiency = {:.3f}\nfitted_on = \"{}, {}\"\n",
        a.architecture, a.gemm_efficiency, a.memory_efficiency, a.tf32_efficiency, path, day);
  }
  for (const auto& e : fitted.engines) {
    out += fmt::format(
        "\n[[engine]]\nengine = \"{}\"\narchitecture = \"{}\"\ngemm_efficiency = {:.3f}\n"
        "memory_efficiency = {:.3f}\nrows = {}\nfitted_on = \"{}, {}\"\n",
        e.engine, e.architecture, e.gemm_efficiency, e.memory_efficiency, e.rows, path, day);
  }
  // The frameworks' levels are the operator model's; an engines' calibration has none.
  if (!fitted.archs.empty()) {
    for (const auto& f : fitted.frameworks) out += framework_toml(f, path, day);
    for (const auto& m : fitted.maturities) out += maturity_toml(m);
  }
  for (const auto& w : fitted.workloads) {
    out += fmt::format(
        "\n[[workload]]\nworkload = \"{}\"\nefficiency = {:.3f}\nrows = {}\nfitted_on = \"{}, "
        "{}\"\n",
        w.workload, w.efficiency, w.rows, path, day);
    if (!w.framework.empty()) out += fmt::format("framework = \"{}\"\n", w.framework);
  }
  out += error_bands_toml(fit);
  return out;
}

}  // namespace rigplan
