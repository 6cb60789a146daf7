#include "report/csv_format.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace ringlab::report {

namespace {

void flatten_into(const nlohmann::json& object, const std::string& prefix,
                  std::vector<std::pair<std::string, nlohmann::json>>& leaves) {
  for (const auto& [key, value] : object.items()) {
    const std::string name = prefix.empty() ? key : prefix + "_" + key;
    if (value.is_object())
      flatten_into(value, name, leaves);
    else
      leaves.emplace_back(name, value);
  }
}

std::string quoted_if_needed(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> flatten_object(const nlohmann::json& object) {
  std::vector<std::pair<std::string, nlohmann::json>> leaves;
  flatten_into(object, "", leaves);
  return leaves;
}

std::string csv_field(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return quoted_if_needed(value.get<std::string>());
  return quoted_if_needed(value.dump());
}

std::string report_csv(const nlohmann::json& report) {
  const nlohmann::json& config = report.at("config");
  // What identifies a row first; the statistics follow in the order the rows first show them.
  std::vector<std::string> columns = {"nranks", "backend", "algorithm", "type", "redop", "size_bytes", "count", "placement"};
  std::vector<std::map<std::string, nlohmann::json>> rows;
  for (const nlohmann::json& result : report.at("results")) {
    std::map<std::string, nlohmann::json> row = {{"nranks", config.at("nranks")}, {"backend", config.at("backend")}};
    for (auto& [name, value] : flatten_object(result)) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
      row[name] = std::move(value);
    }
    rows.push_back(std::move(row));
  }
  std::string text;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) text += ',';
    text += quoted_if_needed(columns[i]);
  }
  text += '\n';
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) text += ',';
      const auto found = row.find(columns[i]);
      if (found != row.end()) text += csv_field(found->second);
    }
    text += '\n';
  }
  return text;
}

}  // namespace ringlab::report
