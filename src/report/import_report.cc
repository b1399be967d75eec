#include <fmt/format.h>

#include <map>

#include "rigplan/report.h"

namespace rigplan::report {

Json to_json(const OfferImport& import, const std::vector<WrittenFile>& written) {
  Json inputs = Json::array();
  for (const auto& in : import.inputs) {
    inputs.push_back({{"path", in.path},
                      {"provider", in.provider},
                      {"rows", in.rows},
                      {"gpu_rows", in.gpu_rows},
                      {"unpriced_rows", in.unpriced},
                      {"price_as_of", in.as_of.to_string()},
                      {"price_as_of_from", in.as_of_from}});
  }
  Json files = Json::array();
  for (const auto& f : import.files) {
    Json file = {{"file", f.file_name}, {"provider", f.provider}, {"offers", f.offers.size()}};
    for (const auto& w : written) {
      if (w.path.ends_with("/" + f.file_name) || w.path == f.file_name) {
        file["written"] = w.path;
        if (!w.backup.empty()) file["previous_kept_as"] = w.backup;
      }
    }
    files.push_back(file);
  }
  Json unmapped = Json::array();
  for (const auto& u : import.unmapped) {
    unmapped.push_back({{"provider", u.provider},
                        {"name", u.name},
                        {"rows", u.rows},
                        {"example", u.example},
                        {"reason", u.reason}});
  }
  Json skipped = Json::array();
  for (const auto& s : import.skipped) skipped.push_back({{"id", s.id}, {"reason", s.reason}});
  return {{"inputs", inputs}, {"files", files}, {"unmapped", unmapped}, {"skipped", skipped}};
}

std::string import_text(const OfferImport& import, const std::vector<WrittenFile>& written) {
  std::string out;
  for (const auto& in : import.inputs) {
    out += fmt::format(
        "read {}: {} rows, {} with GPUs ({}){}; prices dated {} ({})\n", in.path, in.rows,
        in.gpu_rows, in.provider,
        in.unpriced ? fmt::format("; {} without an on-demand price, left out", in.unpriced) : "",
        in.as_of.to_string(), in.as_of_from);
  }
  size_t offers = 0;
  for (const auto& f : import.files) offers += f.offers.size();
  if (written.empty()) {
    for (const auto& f : import.files)
      out += fmt::format("would write {} ({} offers)\n", f.file_name, f.offers.size());
  }
  for (const auto& w : written) {
    out += fmt::format("wrote {} ({} offers{})\n", w.path, w.offers,
                       w.backup.empty() ? "" : fmt::format("; the previous file is {}", w.backup));
  }
  out += fmt::format("{} offers from {} files\n", offers, import.files.size());
  if (!import.unmapped.empty()) {
    int rows = 0;
    Table table({{"provider"}, {"name"}, {"rows", Table::Align::kRight}, {"example"}, {"why"}});
    for (const auto& u : import.unmapped) {
      table.add_row({u.provider, u.name, std::to_string(u.rows), u.example, u.reason});
      rows += u.rows;
    }
    out += fmt::format(
               "\n{} names in {} rows map to no GPU of the catalog (add a [[gpu_name]] "
               "rule with --rules FILE, or the GPU to the catalog):\n",
               import.unmapped.size(), rows) +
           table.render();
  }
  if (!import.skipped.empty()) {
    out += fmt::format("\n{} listings became no offer:\n", import.skipped.size());
    for (const auto& s : import.skipped) out += fmt::format("  {}: {}\n", s.id, s.reason);
  }
  return out;
}

}  // namespace rigplan::report
