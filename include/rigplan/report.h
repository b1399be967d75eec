// Rendering of results: plain-text tables for people, JSON for programs. Renderers only format;
// they compute nothing that a model or the catalog does not already hold. JSON output is
// deterministic: keys keep their declared order and numbers print in their shortest exact form.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/catalog_query.h"

namespace rigplan::report {

using Json = nlohmann::ordered_json;

// A plain-text table: a header, a rule, then rows; columns separated by two spaces.
class Table {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Every field an entry has (absent optionals are left out), then its provenance:
// {"id": ..., ..., "source": ..., "confidence": ..., "notes": ..., "field_sources": {...},
//  "defined_at": "file:line"}.
// With its family: the software stack it runs, under "stack" (text: a second table).
Json to_json(const Gpu& gpu, const Family* family = nullptr);
Json to_json(const Cpu& cpu);
Json to_json(const Offer& offer);
Json to_json(const Region& region);
Json to_json(const Interconnect& interconnect);
Json to_json(const BaseSystem& system);
Json to_json(const Circuit& circuit);

// `rigplan overview`: the catalog's counts and the GPUs for a budget (budget_gpus).
Json overview_json(const Catalog& catalog, const std::vector<BudgetGpu>& gpus);
std::string overview_text(const Catalog& catalog, const GpuQuery& query,
                          const std::vector<BudgetGpu>& gpus);

// Every field with its value, unit and source, as a table, followed by the entry's provenance.
std::string show_text(const Gpu& gpu, const Family* family = nullptr);
std::string show_text(const Cpu& cpu);
std::string show_text(const Offer& offer);
std::string show_text(const Region& region);

}  // namespace rigplan::report

#include "rigplan/memory.h"
#include "rigplan/validate.h"

namespace rigplan::report {

// `rigplan memory`: the breakdown (a `breakdown` object of GB per term), the totals, whether it
// fits, the largest batch, the fewest GPUs, suggestions, and each term's formula.
Json to_json(const Workload& workload, const Gpu& gpu, const MemoryEstimate& estimate);
std::string memory_text(const Workload& workload, const Gpu& gpu, const MemoryEstimate& estimate,
                        bool explain);
// `rigplan memory --html`: the breakdown of each labelled estimate as stacked bars against the
// GPU's memory, and the first estimate's terms with their formulas.
std::string memory_html(const Workload& workload, const Gpu& gpu,
                        const std::vector<std::pair<std::string, MemoryEstimate>>& estimates,
                        const std::string& date);

// A workload with its computed parameter count beside the published one.
Json to_json(const Workload& workload);
std::string show_text(const Workload& workload);

// `rigplan engines`: an engine with every figure and its source, the formats it runs
// (rigplan/engine.h).
}  // namespace rigplan::report
namespace rigplan {
struct Engine;
class Engines;
}  // namespace rigplan
namespace rigplan::report {
Json to_json(const Engine& engine, const Engines& engines);
std::string engines_text(const Engines& engines);
std::string show_text(const Engine& engine, const Engines& engines);

// `rigplan validate`: each row and the summaries (PRODUCT.md's `summary` keys).
Json to_json(const ValidationReport& report);
std::string validation_text(const ValidationReport& report);

}  // namespace rigplan::report

#include "rigplan/perf.h"

namespace rigplan::report {

// `rigplan predict`: throughput, step time, bound, MFU, error band, and the time per operator
// class.
Json to_json(const Workload& workload, const Gpu& gpu, const Prediction& prediction);
std::string prediction_text(const Workload& workload, const Gpu& gpu, const Prediction& prediction,
                            bool explain);

}  // namespace rigplan::report

#include "rigplan/train_plan.h"

namespace rigplan::report {

// `rigplan train-plan`: the fastest layouts, each with its memory, step time, MFU, throughput,
// time to train and why the runners-up lose.
Json to_json(const Workload& workload, const Gpu& gpu, const TrainPlan& plan);
std::string train_plan_text(const Workload& workload, const Gpu& gpu, const TrainPlan& plan);

}  // namespace rigplan::report

#include "rigplan/compare.h"
#include "rigplan/cost.h"
#include "rigplan/recommend.h"

namespace rigplan::report {

// The *_html pages are self-contained (charts inline, nothing fetched) and the same bytes for the
// same input; `date` (YYYY-MM-DD, the day the report is made; empty: none) ends every chart's
// footer and the page's, beside the sources.

// `rigplan cost`: the owned machine, its costs over the horizon, and each rented alternative
// with its break-even; `break_even_days` at the top level is the cheapest alternative's.
Json to_json(const CostComparison& comparison);
std::string cost_text(const CostComparison& comparison, bool explain);
// A self-contained HTML page: cumulative cost of owning (net of resale if sold that month) and of
// the three cheapest rentals month by month, the break-even marked, and the text report.
std::string cost_html(const CostComparison& comparison, const std::string& date);

// `rigplan recommend`: the first `top` feasible options plus any other option on the Pareto
// front, the rejected count by constraint, relaxations and assumptions. The JSON text as
// Json::dump(2) prints it, written directly: `rigplan serve` writes one for every request.
std::string recommend_json(const Recommendation& recommendation, size_t top);
std::string recommend_text(const Recommendation& recommendation, size_t top, bool explain);
// `rigplan recommend --presets`: each preset's id, name, description (and Dettmers' pick).
Json presets_json(const std::vector<Preset>& presets);
std::string presets_text(const std::vector<Preset>& presets);
// How a compared GPU holds the run: "yes", "yes, batch 96" (a smaller batch than the requested
// one, the largest that fits), "no (offloaded)" (--offload cpu) or "no: needs 30.1 GB".
std::string fit_label(const Prediction& prediction, int requested_batch);

// `rigplan compare`: {"workload", "reference", "batch_per_gpu", "gpus": [the prediction of each
// with "relative", price, performance per kUSD of the card and of each system, per kW]}.
Json to_json(const Workload& workload, const Comparison& comparison);
std::string compare_text(const Comparison& comparison);
// `rigplan compare --html`: relative performance bars (as in Dettmers' charts) and performance
// per 1,000 USD for the card and for 1, 2, 4 and 8-GPU systems, with a table. A GPU run at a
// smaller batch or offloaded says so (fit_label).
std::string compare_html(const Comparison& comparison, const std::string& date);

// A self-contained HTML page: the request, the ranked table with reasons, cost against time with
// the Pareto front, total cost per option, relaxations and assumptions.
std::string recommend_html(const Recommendation& recommendation, size_t top,
                           const std::string& date);

}  // namespace rigplan::report

#include "rigplan/build.h"

namespace rigplan::report {

// `rigplan build check`: {"verdict", "checks": [{rule, status, message, source}], the parts,
// sustained and wall power, price}. `build propose` adds "reasons".
Json to_json(const Build& build, const BuildReport& report);
std::string build_text(const Build& build, const BuildReport& report);
Json to_json(const Proposal& proposal);
std::string proposal_text(const Proposal& proposal);
// `rigplan build check|propose --html`: the parts, every check with its source, and the power
// budget as stacked bars against the PSUs' rating and the wall circuit. `reasons`: why each part
// was chosen (propose).
std::string build_html(const Build& build, const BuildReport& report,
                       const std::vector<std::pair<std::string, std::string>>& reasons,
                       const std::string& date);

}  // namespace rigplan::report

#include "rigplan/prices.h"

namespace rigplan::report {

// `rigplan offers import`: each input with its date and where the date came from, the files
// written (or that would be, with `written` empty), the names that map to no GPU and the listings
// that became no offer.
Json to_json(const OfferImport& import, const std::vector<WrittenFile>& written);
std::string import_text(const OfferImport& import, const std::vector<WrittenFile>& written);

}  // namespace rigplan::report
