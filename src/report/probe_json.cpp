#include "report/probe_json.hpp"

#include "core/registry.hpp"
#include "report/item_values.hpp"

namespace gd {

std::string to_string(ReportView::Kind k) {
  switch (k) {
    case ReportView::Kind::Line: return "line";
    case ReportView::Kind::Heatmap: return "heatmap";
    case ReportView::Kind::Matrix: return "matrix";
    case ReportView::Kind::Bars: return "bars";
    case ReportView::Kind::Table: return "table";
  }
  return "table";
}

nlohmann::json views_json(const ProbeSpec& p) {
  nlohmann::json out = nlohmann::json::array();
  for (const ReportView& v : p.views) {
    nlohmann::json j = {{"kind", to_string(v.kind)}, {"metric", v.metric}, {"x", v.x}, {"y", v.y}, {"series", v.series}};
    j["log_x"] = v.log_x ? nlohmann::json(*v.log_x) : nlohmann::json(nullptr);
    if (!v.span_first.empty())
      j["spans"] = {{"first", v.span_first}, {"last", v.span_last}, {"label", v.span_label}};
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json covers_json(const ProbeSpec& p) {
  nlohmann::json out = nlohmann::json::array();
  for (const SeedCover* c : covers_of(p))
    out.push_back({{"item", c->item}, {"metric", c->metric}, {"where", to_json(c->where)}});
  return out;
}

nlohmann::json probes_reading_json(const std::vector<const ProbeSpec*>& probes) {
  nlohmann::json out = nlohmann::json::object();
  for (const ProbeSpec* p : probes) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricSpec& m : p->metrics) metrics.push_back({{"name", m.name}, {"unit", m.unit}});
    out[p->id] = {{"views", views_json(*p)}, {"covers", covers_json(*p)}, {"metrics", metrics}};
  }
  return out;
}

std::vector<const ProbeSpec*> registered_probes() {
  std::vector<const ProbeSpec*> out;
  for (const ProbeSpec& p : Registry::global().probes()) out.push_back(&p);
  return out;
}

}  // namespace gd
