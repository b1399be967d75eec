#include <cmath>

#include <fmt/format.h>

#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {

Json to_json(const Build& b, const BuildReport& r) {
  Json checks = Json::array();
  for (const auto& c : r.checks) {
    checks.push_back({{"rule", c.rule}, {"status", c.status}, {"message", c.message}, {"source", c.source}});
  }
  Json psus = Json::array();
  for (const Psu* p : b.psus) psus.push_back(p->id);
  Json parts = {{"gpu", b.gpu->id},       {"gpu_count", b.gpu_count},   {"gpu_cooling", b.gpu_cooling},
                {"cpu", b.cpu->id},       {"cpu_count", b.cpu_count},   {"board", b.board->id},
                {"chassis", b.chassis->id}, {"psus", psus},              {"ram_gb", b.ram_gb},
                {"nvme_tb", b.nvme_tb},   {"nic", b.nic ? Json(b.nic->id) : Json(nullptr)},
                {"nodes", b.nodes},       {"circuit", b.circuit ? Json(b.circuit->id) : Json(nullptr)},
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
  std::string out = fmt::format("{}{} x {} on {} in {}: {}\n\n", b.name.empty() ? "" : b.name + ": ", b.gpu_count,
                                b.gpu->id, b.board->id, b.chassis->id, r.verdict == "pass" ? "PASS" : r.verdict == "warn" ? "WARN" : "FAIL");
  Table table({{"rule"}, {"status"}, {"check"}});
  for (const auto& c : r.checks) table.add_row({c.rule, c.status, c.message});
  out += table.render();
  out += fmt::format("\nSustained {:.0f} W, {:.0f} W at the wall; parts about {} USD{}. Sources per rule: --json "
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
  return out;
}

std::string proposal_text(const Proposal& p) {
  const Build& b = p.build;
  std::string out = fmt::format("{} x {}: {} USD, {} ({} parts lists checked)\n\n", b.gpu_count, b.gpu->id,
                                format_number(std::round(p.report.price_usd)), p.report.verdict, p.candidates);
  Table table({{"part"}, {"why"}});
  for (const auto& [part, why] : p.reasons) table.add_row({part, why});
  out += table.render();
  out += '\n';
  out += build_text(b, p.report);
  return out;
}

}  // namespace rigplan::report
