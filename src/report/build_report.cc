#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rigplan/chart.h"
#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {

Json to_json(const Build& b, const BuildReport& r) {
  Json checks = Json::array();
  for (const auto& c : r.checks) {
    checks.push_back(
        {{"rule", c.rule}, {"status", c.status}, {"message", c.message}, {"source", c.source}});
  }
  Json psus = Json::array();
  for (const Psu* p : b.psus) psus.push_back(p->id);
  Json parts = {{"gpu", b.gpu->id},
                {"gpu_count", b.gpu_count},
                {"gpu_cooling", b.gpu_cooling},
                {"cpu", b.cpu->id},
                {"cpu_count", b.cpu_count},
                {"board", b.board->id},
                {"chassis", b.chassis->id},
                {"psus", psus},
                {"ram_gb", b.ram_gb},
                {"nvme_tb", b.nvme_tb},
                {"nic", b.nic ? Json(b.nic->id) : Json(nullptr)},
                {"nodes", b.nodes},
                {"circuit", b.circuit ? Json(b.circuit->id) : Json(nullptr)},
                {"location", b.location}};
  if (b.power_limit_w) parts["power_limit_w"] = *b.power_limit_w;
  return {{"name", b.name},
          {"verdict", r.verdict},
          {"checks", checks},
          {"parts", parts},
          {"sustained_w", std::round(r.sustained_w)},
          {"wall_w", std::round(r.wall_w)},
          {"price_usd", std::round(r.price_usd)},
          {"gpus_priced", r.gpus_priced}};
}

std::string build_text(const Build& b, const BuildReport& r) {
  std::string out =
      fmt::format("{}{} x {} on {} in {}: {}\n\n", b.name.empty() ? "" : b.name + ": ", b.gpu_count,
                  b.gpu->id, b.board->id, b.chassis->id,
                  r.verdict == "pass"   ? "PASS"
                  : r.verdict == "warn" ? "WARN"
                                        : "FAIL");
  Table table({{"rule"}, {"status"}, {"check"}});
  for (const auto& c : r.checks) table.add_row({c.rule, c.status, c.message});
  out += table.render();
  out += fmt::format(
      "\nSustained {:.0f} W, {:.0f} W at the wall; parts about {} USD{}. Sources per rule: --json "
      "or docs/builds.md.\n",
      r.sustained_w, r.wall_w, format_number(std::round(r.price_usd)),
      r.gpus_priced ? "" : " without the GPUs (no new price in the catalog)");
  return out;
}

Json to_json(const Proposal& p) {
  Json out = to_json(p.build, p.report);
  Json reasons = Json::object();
  for (const auto& [part, why] : p.reasons) reasons[part] = why;
  out["reasons"] = reasons;
  out["candidates"] = p.candidates;
  out["notes"] = p.notes;
  return out;
}

std::string proposal_text(const Proposal& p) {
  const Build& b = p.build;
  std::string out =
      fmt::format("{} x {}: {} USD, {} ({} parts lists checked)\n\n", b.gpu_count, b.gpu->id,
                  format_number(std::round(p.report.price_usd)), p.report.verdict, p.candidates);
  Table table({{"part"}, {"why"}});
  for (const auto& [part, why] : p.reasons) table.add_row({part, why});
  out += table.render();
  out += '\n';
  out += build_text(b, p.report);
  for (const auto& note : p.notes) out += "note: " + note + ".\n";
  return out;
}

namespace {

// The parts list: each part's id and count, and with a proposal why each was chosen.
chart::Section parts_section(const Build& b, const BuildReport& r,
                             const std::vector<std::pair<std::string, std::string>>& reasons) {
  const std::string heading = fmt::format("{}{} x {}: {}", b.name.empty() ? "" : b.name + ": ",
                                          b.gpu_count, b.gpu->id, r.verdict);
  chart::Section parts{
      heading,
      {fmt::format("Parts about {} USD{}.", format_number(std::round(r.price_usd)),
                   r.gpus_priced ? "" : " without the GPUs (no new price in the catalog)")},
      {reasons.empty() ? std::vector<std::string>{"part", "id", "count"}
                       : std::vector<std::string>{"part", "id", "count", "why"}},
      {}};
  auto add = [&](const std::string& part, const std::string& id, const std::string& count) {
    std::vector<std::string> row = {part, id, count};
    if (!reasons.empty()) {
      const auto it = std::find_if(reasons.begin(), reasons.end(),
                                   [&](const auto& reason) { return reason.first == part; });
      row.push_back(it != reasons.end() ? it->second : "");
    }
    parts.table.push_back(std::move(row));
  };
  add("gpu", b.gpu->id, std::to_string(b.gpu_count));
  add("cpu", b.cpu->id, std::to_string(b.cpu_count));
  add("board", b.board->id, "1");
  add("chassis", b.chassis->id, "1");
  for (const Psu* p : b.psus) add("psu", p->id, "1");
  if (b.nic) add("nic", b.nic->id, "1");
  if (b.circuit) add("circuit", b.circuit->id, "");
  return parts;
}

// The power budget: the sustained draw against the PSUs' capacity, and the draw at the wall
// against the circuit's continuous limit.
chart::Section power_section(const Build& b, const BuildReport& r, const std::string& footer) {
  chart::StackedBarChart psu{
      "PSU load", "sustained draw (W)", footer, {"GPUs", "CPUs", "other parts"}, {}, 0, ""};
  psu.bars.push_back({"sustained", {r.gpus_w, r.cpus_w, r.other_w}});
  psu.limit = r.psu_capacity_w;
  psu.limit_label = fmt::format("PSUs {:.0f} W", r.psu_capacity_w);
  chart::StackedBarChart wall{"Draw at the wall",
                              "wall power (W)",
                              footer,
                              {"GPUs", "CPUs", "other parts", "PSU losses"},
                              {},
                              0,
                              ""};
  wall.bars.push_back({"at the wall", {r.gpus_w, r.cpus_w, r.other_w, r.wall_w - r.sustained_w}});
  if (b.circuit) {
    wall.limit = b.circuit->continuous_w();
    wall.limit_label = fmt::format("{} {:.0f} W continuous", b.circuit->id, wall.limit);
  }
  return {"Power",
          {fmt::format("{:.0f} W sustained, {:.0f} W at the wall.", r.sustained_w, r.wall_w)},
          {},
          {chart::svg(psu), chart::svg(wall)}};
}

}  // namespace

std::string build_html(const Build& b, const BuildReport& r,
                       const std::vector<std::pair<std::string, std::string>>& reasons,
                       const std::string& date) {
  const std::string footer = chart::dated(
      "rigplan build: parts from data/catalog (source and date per entry); rules in docs/builds.md",
      date);
  std::vector<chart::Section> sections;
  sections.push_back(parts_section(b, r, reasons));
  sections.push_back(power_section(b, r, footer));
  chart::Section checks{"Checks", {}, {{"rule", "status", "check", "source"}}, {}};
  for (const auto& c : r.checks) checks.table.push_back({c.rule, c.status, c.message, c.source});
  sections.push_back(std::move(checks));
  return chart::html_page(
      "rigplan build", sections,
      chart::dated("Generated by rigplan. Each check names its source; docs/builds.md explains the "
                   "rules",
                   date));
}

}  // namespace rigplan::report
