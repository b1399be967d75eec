#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_writer.h"
#include "report/predict_flags.h"
#include "rigplan/chart.h"
#include "rigplan/engine.h"
#include "rigplan/report.h"
#include "util/figures.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

double round2(double x) { return std::round(x * 100) / 100; }
double sig(double x) { return std::stod(fmt::format("{:.5g}", x)); }

// The options shown: the first `top`, then any later one on the Pareto front.
std::vector<const Option*> shown(const Recommendation& r, size_t top) {
  std::vector<const Option*> out;
  for (size_t i = 0; i < r.options.size(); ++i) {
    if (i < top || r.options[i].pareto) out.push_back(&r.options[i]);
  }
  return out;
}

// What the option is: GPUs, and how they are had (kept, owned or rented).
void write_identity(JsonWriter& w, const Option& o, size_t rank) {
  w.key("rank").value(uint64_t{rank});
  w.key("kind").value(o.kind);
  w.key("gpu").value(o.gpu);
  w.key("count").value(o.count);
  if (o.kind == "keep") {
    w.key("condition").value(o.condition);
  } else if (o.kind == "own") {
    w.key("condition").value(o.condition);
    w.key("system").value(system_label(o));
    w.key("capex_usd").value(round2(o.capex_usd));
  } else {
    w.key("offer").value(offer_label(o));
    w.key("provider").value(o.provider);
    w.key("pricing").value(o.pricing);
    w.key("instances").value(o.instances);
    w.key("fabric");
    o.fabric.empty() ? w.null() : w.value(o.fabric);
  }
  w.key("stack").value(o.stack);
  w.key("common_stack").value(o.common_stack);
  if (!o.stack_note.empty()) w.key("stack_note").value(o.stack_note);
}

void write_serving(JsonWriter& w, const ServingPrediction& s) {
  w.begin_object();
  w.key("ttft_ms").value(sig(s.ttft_ms));
  w.key("tpot_ms").value(sig(s.tpot_ms));
  w.key("requests_per_s").value(sig(s.requests_per_s));
  w.key("concurrency").value(sig(s.concurrency));
  w.key("max_concurrency").value(s.max_concurrency);
  w.key("replicas").value(s.replicas);
  w.key("saturated").value(s.saturated);
  w.end_object();
}

// The speedup over the user's GPUs and the net cost (--have); none: null.
void write_upgrade(JsonWriter& w, const Option& o) {
  const auto optional = [&w](const char* name, const std::optional<double>& v,
                             double (*rounded)(double)) {
    w.key(name);
    v ? w.value(rounded(*v)) : w.null();
  };
  optional("speedup_over_have", o.speedup_over_have, sig);
  optional("resale_usd", o.resale_usd, round2);
  optional("net_cost_usd", o.net_cost_usd, round2);
  optional("net_cost_per_speedup_usd", o.net_cost_per_speedup_usd, round2);
}

void write_option(JsonWriter& w, const Option& o, size_t rank, const std::string& flags) {
  w.begin_object();
  write_identity(w, o, rank);
  w.key("fits").value(o.fits);
  w.key("strategy").value(o.strategy);
  w.key("predict_flags").value(flags);
  w.key("memory_gb").value(round2(o.memory_gb));
  w.key("throughput").value(sig(o.throughput));
  w.key("unit").value(o.unit);
  w.key("busy_hours").value(round2(o.hours));
  w.key("time_to_result_h").value(round2(o.time_to_result_h));
  w.key("total_cost_usd").value(round2(o.total_cost_usd));
  w.key("cost_per_result_usd").value(round2(o.cost_per_result_usd));
  w.key("energy_kwh").value(round2(o.energy_kwh));
  w.key("co2_kg").value(round2(o.co2_kg));
  w.key("co2_embodied_kg").value(round2(o.co2_embodied_kg));
  w.key("wall_w").value(std::round(o.wall_w));
  if (o.serving) write_serving(w.key("serving"), *o.serving);
  w.key("pareto").value(o.pareto);
  w.key("price_as_of");
  o.price_as_of ? w.value(o.price_as_of->to_string()) : w.null();
  if (!o.price_note.empty()) w.key("price_note").value(o.price_note);
  w.key("reason").value(o.reason);
  if (!o.violations.empty()) {
    w.key("violations").begin_array();
    for (const std::string& v : o.violations) w.value(v);
    w.end_array();
  }
  if (o.net_cost_usd) write_upgrade(w, o);
  w.end_object();
}

Json have_json(const Have& h) {
  Json gpus = Json::array();
  for (const HaveGpu& g : h.gpus) {
    gpus.push_back({{"gpu", g.gpu},
                    {"count", g.count},
                    {"used_price_usd", g.used_price_usd ? Json(*g.used_price_usd) : Json(nullptr)},
                    {"used_price_date",
                     g.used_price_date ? Json(g.used_price_date->to_string()) : Json(nullptr)}});
  }
  return {{"gpus", gpus},
          {"gpu", h.gpu},
          {"count", h.count},
          {"runs", h.runs},
          {"keep_breaks", h.keep_breaks},
          {"throughput", h.runs ? Json(sig(h.throughput)) : Json(nullptr)},
          {"unit", h.unit},
          {"time_to_result_h", h.runs ? Json(round2(h.time_to_result_h)) : Json(nullptr)},
          {"resale_usd", round2(h.resale_usd)},
          {"min_speedup", h.min_speedup},
          {"keep_wins", h.keep_wins},
          {"verdict", h.verdict}};
}

// "1 x gtx-1080-ti: 310 images/s, 0.9 h; resale 170 USD".
std::string have_text(const Have& h, bool usage) {
  std::vector<std::string> cards;
  for (const HaveGpu& g : h.gpus) cards.push_back(fmt::format("{} x {}", g.count, g.gpu));
  const std::string run =
      h.runs ? fmt::format("{} x {} runs it at {} {}, {}", h.count, h.gpu,
                           significant(h.throughput), h.unit,
                           usage ? fmt::format("{:.0f} busy h/month", h.time_to_result_h)
                                 : fmt::format("{:.1f} h", h.time_to_result_h))
             : std::string("they do not run the workload");
  return fmt::format("You have {}: {}; resale {} USD.\nVerdict: {}.\n", join(cards, ", "), run,
                     format_number(std::round(h.resale_usd)), h.verdict);
}

std::string what(const Option& o) {
  if (o.kind == "keep") return fmt::format("keep {} x {}", o.count, o.gpu);
  if (o.kind == "own") {
    return fmt::format("own {} x {}{}", o.count, o.gpu, o.condition == "used" ? " (used)" : "");
  }
  return fmt::format("rent {}{}", offer_label(o), o.pricing == "spot" ? " (spot)" : "");
}

// The date of an option's price, "-" when undated; "!" marks a price with a note.
std::string priced(const Option& o) {
  return (o.price_as_of ? o.price_as_of->to_string() : "-") + (o.price_note.empty() ? "" : " !");
}

// How many rejected options break each constraint, by the constraint's name in alphabetical
// order. A few names among thousands of options: a list searched in turn, sorted at the end. The
// names are mostly the same few literals, compared by address before their bytes.
std::vector<std::pair<std::string_view, int>> rejected_by(const Recommendation& r) {
  std::vector<std::pair<std::string_view, int>> out;
  for (const auto& o : r.rejected) {
    for (const std::string_view b : o.binding) {
      const auto it = std::find_if(out.begin(), out.end(), [b](const auto& e) {
        return (e.first.data() == b.data() && e.first.size() == b.size()) || e.first == b;
      });
      if (it != out.end()) {
        ++it->second;
      } else {
        out.emplace_back(b, 1);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "resnet50", with its share of a mix and how its step is compiled when either is said:
// "resnet50 (30%, torch.compile)".
std::string task_name(const Task& t, bool with_share) {
  std::vector<std::string> tags;
  if (with_share) tags.push_back(fmt::format("{}%", format_number(t.share * 100)));
  if (std::string how = compiled_with(t.run); !how.empty()) tags.push_back(std::move(how));
  if (tags.empty()) return t.workload.id;
  return fmt::format("{} ({})", t.workload.id, join(tags, ", "));
}

// "1e+09 tokens", "150 h a month of work on one rtx-4090", "a service of 5 requests/s ...".
std::string demand_text(const Recommendation& r) {
  if (r.demand.serving) {
    const ServingJob& job = *r.demand.serving;
    const Task& task = r.demand.tasks[0];
    std::vector<std::string> targets;
    if (job.max_ttft_ms)
      targets.push_back(fmt::format("TTFT <= {} ms", format_number(*job.max_ttft_ms)));
    if (job.max_tpot_ms)
      targets.push_back(fmt::format("TPOT <= {} ms", format_number(*job.max_tpot_ms)));
    return fmt::format(
        "a service of {} requests/s ({} prompt + {} generated tokens{}{}) with {}{}, up {} h a "
        "month",
        format_number(job.request_rate),
        task.run.seq_len.value_or(task.workload.default_seq_len.value_or(0)), task.run.gen_tokens,
        targets.empty() ? "" : "; ", join(targets, ", "),
        task.run.engine.empty() ? default_engine(task.run.mode) : task.run.engine,
        task.run.weights.empty() ? "" : fmt::format(", {} weights", task.run.weights),
        format_number(job.hours_per_month));
  }
  if (r.demand.hours_per_month) {
    return fmt::format("{} h a month of work on one {}", format_number(*r.demand.hours_per_month),
                       r.demand.reference_gpu);
  }
  return fmt::format("{} {}", format_number(*r.demand.work), r.unit.substr(0, r.unit.find('/')));
}

// A service's mean latencies, a usage's busy hours a month, or a job's time to the result.
std::string time_cell(const Option& o, bool usage) {
  if (o.serving) return fmt::format("{:.0f} / {:.1f}", o.serving->ttft_ms, o.serving->tpot_ms);
  if (usage) return fmt::format("{:.0f}", o.time_to_result_h);
  return o.time_to_result_h < 48 ? fmt::format("{:.1f} h", o.time_to_result_h)
                                 : fmt::format("{:.1f} d", o.time_to_result_h / 24);
}

// How an option runs, as the flags that give predict its run of the first task beside that
// task's own (a service's request rate being the job's): "--gpus 8 --zero 3", "--gpus 16 --tp 2
// --link pcie", a layout's degrees, batches and recompute, machines of another size and a
// rented cluster's fabric; "" for the task's run alone, or an option that never ran (its stack).
std::string option_flags(const Recommendation& r, const Option& o) {
  if (o.strategy.empty()) return "";
  RunConfig given = r.demand.tasks.front().run;
  if (r.demand.serving) given.request_rate = r.demand.serving->request_rate;
  return predict_flags(o.run, given);
}

// One row of the options table.
std::vector<std::string> option_row(const Recommendation& r, const Option& o, bool usage,
                                    bool with_strategy) {
  const size_t rank = static_cast<size_t>(&o - r.options.data()) + 1;
  std::vector<std::string> row = {std::to_string(rank), what(o),
                                  o.kind == "own"    ? system_label(o)
                                  : o.kind == "keep" ? "owned"
                                                     : std::string(o.provider),
                                  fmt::format("{} {}", significant(o.throughput), o.unit),
                                  time_cell(o, usage)};
  if (r.have) {
    row.push_back(o.speedup_over_have ? fmt::format("{:.2f}x", *o.speedup_over_have)
                  : r.have->runs      ? "-"
                                      : "runs");
    row.push_back(fmt::format("{:.0f}", o.net_cost_usd.value_or(0)));
    row.push_back(o.net_cost_per_speedup_usd ? fmt::format("{:.0f}", *o.net_cost_per_speedup_usd)
                                             : "-");
  }
  for (std::string cell : {fmt::format("{:.0f}", o.total_cost_usd),
                           usage ? fmt::format("{:.0f}", o.cost_per_result_usd)
                                 : (o.kind == "own" ? fmt::format("{:.0f}", o.capex_usd) : "-"),
                           fmt::format("{:.0f}", o.energy_kwh), fmt::format("{:.0f}", o.co2_kg),
                           priced(o), std::string(o.pareto ? "*" : "")})
    row.push_back(std::move(cell));
  if (with_strategy) {
    std::string flags = option_flags(r, o);
    row.push_back(flags.empty() ? "-" : std::move(flags));
  }
  return row;
}

// The options table; with --have, each option's speedup over the user's GPUs and its net cost.
Table options_table(const Recommendation& r, size_t top, bool usage) {
  using A = Table::Align;
  std::vector<Table::Column> columns = {{"#", A::kRight},
                                        {"option"},
                                        {"system / provider"},
                                        {"throughput", A::kRight},
                                        {r.demand.serving ? "TTFT / TPOT ms"
                                         : usage          ? "busy h/month"
                                                          : "time",
                                         A::kRight}};
  if (r.have) {
    columns.push_back({"speedup", A::kRight});
    columns.push_back({"net USD", A::kRight});
    columns.push_back({"USD/1x", A::kRight});
  }
  for (const Table::Column& c :
       std::vector<Table::Column>{{"total USD", A::kRight},
                                  {usage ? "USD/month" : "buy USD", A::kRight},
                                  {"kWh", A::kRight},
                                  {"kgCO2", A::kRight},
                                  {"priced"},
                                  {"front"}})
    columns.push_back(c);
  // How the GPUs of an option share the work (ZeRO-3, tensor parallel, a layout of train-plan's
  // search), as predict's flags, when an option shown has more than one.
  const std::vector<const Option*> listed = shown(r, top);
  const bool with_strategy =
      std::any_of(listed.begin(), listed.end(), [](const Option* o) { return o->count > 1; });
  if (with_strategy) columns.push_back({"as predict flags"});
  Table table(columns);
  for (const Option* o : listed) table.add_row(option_row(r, *o, usage, with_strategy));
  return table;
}

// The page's opening sections: the request (the first line of the text report) with its
// assumptions, and what the user has (--have).
std::vector<chart::Section> request_sections(const Recommendation& r, size_t top) {
  const std::string text = recommend_text(r, top, false);
  std::vector<chart::Section> sections;
  chart::Section request{"Request", {text.substr(0, text.find('\n'))}, {}, {}};
  for (const auto& a : r.assumptions) request.paragraphs.push_back(a);
  sections.push_back(request);
  if (r.have) {
    chart::Section have{"What you have", {}, {}, {}};
    const std::string lines = have_text(*r.have, !r.demand.work);
    for (size_t at = 0, end; (end = lines.find('\n', at)) != std::string::npos; at = end + 1)
      have.paragraphs.push_back(lines.substr(at, end - at));
    sections.push_back(std::move(have));
  }
  return sections;
}

// The header of the page's options table; with --have, the speedup and net cost after the time.
std::vector<std::string> options_html_header(const Recommendation& r, bool usage) {
  std::vector<std::string> header = {"#",
                                     "option",
                                     "system / provider",
                                     "throughput",
                                     r.demand.serving ? "TTFT / TPOT ms"
                                     : usage          ? "busy h/month"
                                                      : "time h",
                                     "total USD",
                                     "kWh",
                                     "kgCO2",
                                     "priced",
                                     "front",
                                     "reason"};
  if (r.have) header.insert(header.begin() + 5, {"speedup", "net USD"});
  return header;
}

// One row of the page's options table, with the reason the option ranks where it does.
std::vector<std::string> option_html_row(const Recommendation& r, const Option& o, bool usage) {
  const size_t rank = static_cast<size_t>(&o - r.options.data()) + 1;
  std::vector<std::string> row = {
      std::to_string(rank),
      o.count > 1 ? fmt::format("{} ({})", what(o), option_flags(r, o)) : what(o),
      o.kind == "own" ? system_label(o) : std::string(o.provider),
      fmt::format("{} {}", significant(o.throughput), o.unit),
      o.serving ? time_cell(o, usage) : fmt::format("{:.1f}", o.time_to_result_h),
      fmt::format("{:.0f}", o.total_cost_usd),
      fmt::format("{:.0f}", o.energy_kwh),
      fmt::format("{:.0f}", o.co2_kg),
      o.price_as_of ? o.price_as_of->to_string() : "undated",
      o.pareto ? "yes" : "",
      o.price_note.empty() ? o.reason : o.reason + " (price: " + o.price_note + ")"};
  if (r.have) {
    row.insert(row.begin() + 5,
               {o.speedup_over_have ? fmt::format("{:.2f}x", *o.speedup_over_have) : "runs",
                fmt::format("{:.0f}", o.net_cost_usd.value_or(0))});
  }
  return row;
}

// Every option's total cost against its time (a service's time per output token), the Pareto
// front joined, both axes on log scales.
chart::ScatterChart cost_time_scatter(const Recommendation& r, bool usage,
                                      const std::string& date) {
  const bool serving = r.demand.serving.has_value();
  chart::ScatterChart scatter{
      serving ? "Total cost against time per output token" : "Total cost against time",
      "total cost (USD)",
      serving ? "time per output token (ms)"
      : usage ? "busy hours a month"
              : "time to result (h)",
      chart::dated("rigplan recommend: catalog prices as dated in data/catalog; formulas in "
                   "docs/recommend.md",
                   date),
      {},
      true,
      true};
  for (const auto& o : r.options)
    scatter.points.push_back(
        {what(o), o.total_cost_usd, o.serving ? o.serving->tpot_ms : o.time_to_result_h, o.pareto});
  return scatter;
}

// The options shown, ranked in a table, with the cost-time scatter and the total cost of each
// shown, the first highlighted.
chart::Section options_section(const Recommendation& r, size_t top, const std::string& date) {
  const bool usage = r.demand.hours_per_month.has_value();
  chart::Section ranked{
      r.have ? "Options, best upgrade first" : "Options, cheapest first", {}, {}, {}};
  ranked.table.push_back(options_html_header(r, usage));
  chart::BarChart bars{
      "Total cost of the options shown",
      "total cost over the horizon (USD)",
      chart::dated(
          "rigplan recommend: purchase less resale plus electricity (owned), price x hours "
          "(rented)",
          date),
      {},
      0};
  for (const Option* o : shown(r, top)) {
    ranked.table.push_back(option_html_row(r, *o, usage));
    bars.bars.push_back({what(*o), o->total_cost_usd, o == r.options.data()});
  }
  ranked.charts = {chart::svg(cost_time_scatter(r, usage, date)), chart::svg(bars)};
  return ranked;
}

// What the recommendation was asked for: the tasks and their shares, the work, the usage or the
// service.
Json demand_json(const Recommendation& r) {
  Json tasks = Json::array();
  for (const auto& t : r.demand.tasks) {
    Json task = {{"workload", t.workload.id},
                 {"mode", t.run.mode},
                 {"method", t.run.method},
                 {"share", t.share}};
    // Said only when asked: an eager run's answer is as it was.
    if (t.run.compile) task["compile"] = true;
    if (t.run.cuda_graphs) task["cuda_graphs"] = true;
    tasks.push_back(std::move(task));
  }
  Json demand = {{"tasks", tasks}};
  if (r.demand.work) demand["work"] = *r.demand.work;
  if (r.demand.hours_per_month) {
    demand["hours_per_month"] = *r.demand.hours_per_month;
    demand["reference_gpu"] = r.demand.reference_gpu;
  }
  if (r.demand.serving) {
    const ServingJob& job = *r.demand.serving;
    const RunConfig& run = r.demand.tasks[0].run;
    demand["serving"] = {{"request_rate", job.request_rate},
                         {"input_len", run.seq_len ? Json(*run.seq_len) : Json(nullptr)},
                         {"output_len", run.gen_tokens},
                         {"max_ttft_ms", job.max_ttft_ms ? Json(*job.max_ttft_ms) : Json(nullptr)},
                         {"max_tpot_ms", job.max_tpot_ms ? Json(*job.max_tpot_ms) : Json(nullptr)},
                         {"hours_per_month", job.hours_per_month}};
  }
  return demand;
}

// The constraints every option must meet.
Json constraints_json(const Constraints& k) {
  Json constraints = {{"region", k.region},     {"horizon_months", k.horizon_months},
                      {"acquire", k.acquire},   {"condition", k.condition},
                      {"max_gpus", k.max_gpus}, {"power_limit", k.power_limit}};
  if (k.budget_usd) constraints["budget_usd"] = *k.budget_usd;
  if (k.utilisation) constraints["utilisation"] = *k.utilisation;
  if (k.max_power_w) constraints["max_power_w"] = *k.max_power_w;
  if (!k.circuit.empty()) constraints["circuit"] = k.circuit;
  if (!k.gpus_allowed.empty()) constraints["gpus_allowed"] = k.gpus_allowed;
  if (!k.have.empty()) constraints["have"] = k.have;
  if (k.today) constraints["today"] = k.today->to_string();
  constraints["max_price_age_months"] = k.max_price_age_months;
  constraints["allow_stale_prices"] = k.allow_stale_prices;
  return constraints;
}

}  // namespace

std::string recommend_json(const Recommendation& r, size_t top) {
  JsonWriter w;
  w.begin_object();
  w.key("demand").value(demand_json(r));
  w.key("constraints").value(constraints_json(r.constraints));
  w.key("site").value(Json{{"usd_per_kwh", *r.site.usd_per_kwh},
                           {"electricity_from", r.site.price_from},
                           {"gco2_per_kwh", r.site.gco2_per_kwh},
                           {"carbon_from", r.site.carbon_from}});
  w.key("feasible").value(!r.options.empty());
  w.key("evaluated").value(r.evaluated);
  w.key("feasible_count").value(uint64_t{r.options.size()});
  w.key("options").begin_array();
  for (const Option* o : shown(r, top))
    write_option(w, *o, static_cast<size_t>(o - r.options.data()) + 1, option_flags(r, *o));
  w.end_array();
  w.key("rejected_by").begin_object();
  for (const auto& [name, n] : rejected_by(r)) w.key(name).value(n);
  w.end_object();
  w.key("rejected").begin_array();
  for (size_t i = 0; i < r.rejected.size() && i < top; ++i)
    write_option(w, r.rejected[i], 0, option_flags(r, r.rejected[i]));
  w.end_array();
  w.key("relaxations").value(Json(r.relaxations));
  w.key("assumptions").value(Json(r.assumptions));
  if (r.have) w.key("have").value(have_json(*r.have));
  w.end_object();
  return w.take();
}

std::string recommend_text(const Recommendation& r, size_t top, bool explain) {
  std::string out;
  std::vector<std::string> names;
  for (const auto& t : r.demand.tasks) names.push_back(task_name(t, r.demand.tasks.size() > 1));
  const bool usage = !r.demand.work;
  out += fmt::format("{} for {}; {} months in {} ({} USD/kWh, {} gCO2/kWh){}.\n", join(names, ", "),
                     demand_text(r), format_number(r.constraints.horizon_months),
                     r.constraints.region, format_number(*r.site.usd_per_kwh),
                     format_number(std::round(r.site.gco2_per_kwh)),
                     r.constraints.budget_usd
                         ? fmt::format("; budget {} USD", format_number(*r.constraints.budget_usd))
                         : "");
  out += fmt::format("{} options evaluated, {} meet every constraint.\n\n", r.evaluated,
                     r.options.size());
  if (r.have) out += have_text(*r.have, usage) + "\n";
  if (!r.options.empty()) {
    out += options_table(r, top, usage).render();
    out += "\n";
    for (const Option* o : shown(r, std::min<size_t>(top, 5))) {
      out += fmt::format("{}. {}: {}\n", static_cast<size_t>(o - r.options.data()) + 1, what(*o),
                         o->reason);
      if (!o->price_note.empty()) out += fmt::format("   price: {}\n", o->price_note);
    }
    out += "\n* on the cost/time Pareto front: no other option is both cheaper and faster.\n";
    const auto listed = shown(r, top);
    if (std::any_of(listed.begin(), listed.end(),
                    [](const Option* o) { return !o->price_note.empty(); })) {
      out += "! the price has a note: older than --max-price-age, a launch price, or a caveat.\n";
    }
  } else {
    out += "Nothing meets every constraint.\n";
    for (const auto& line : r.relaxations) out += "- " + line + "\n";
  }
  const auto rejected = rejected_by(r);
  if (!rejected.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : rejected) parts.push_back(fmt::format("{} {}", n, name));
    out += fmt::format("Rejected (an option can break several): {}.\n", join(parts, ", "));
  }
  for (const auto& a : r.assumptions) out += "note: " + a + "\n";
  if (explain) {
    out +=
        "\nEach option: memory per GPU (`rigplan memory`), throughput (`rigplan predict`), busy "
        "hours = work / "
        "throughput.\nOwned: purchase x its share of the horizon's busy hours + electricity - "
        "resale; rented: "
        "price x hours.\nCO2 = kWh x grid intensity + embodied share. docs/recommend.md has every "
        "formula.\n";
  }
  return out;
}

Json presets_json(const std::vector<Preset>& presets) {
  Json out = Json::array();
  for (const auto& p : presets) {
    out.push_back({{"id", p.id},
                   {"name", p.name},
                   {"description", p.description},
                   {"dettmers_pick", p.dettmers_pick}});
  }
  return out;
}

std::string presets_text(const std::vector<Preset>& presets) {
  Table table({{"preset"}, {"name"}, {"description"}});
  for (const auto& p : presets) table.add_row({p.id, p.name, p.description});
  return table.render();
}

std::string recommend_html(const Recommendation& r, size_t top, const std::string& date) {
  std::vector<chart::Section> sections = request_sections(r, top);
  if (r.options.empty()) {
    sections.push_back({"Nothing meets every constraint", r.relaxations, {}, {}});
  } else {
    sections.push_back(options_section(r, top, date));
  }
  return chart::html_page(
      "rigplan recommendation", sections,
      chart::dated("Generated by rigplan. Every figure traces to data/catalog (source and date per "
                   "entry) and the models in docs/; throughput carries the error band of "
                   "docs/performance.md",
                   date));
}

}  // namespace rigplan::report
