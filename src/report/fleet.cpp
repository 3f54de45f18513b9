#include "report/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/clock_check.hpp"
#include "core/median.hpp"
#include "report/format.hpp"

namespace gd {

std::string gpu_label(const RunDocument& run) {
  const auto str = [&](const char* key) {
    const auto it = run.device.find(key);
    return it != run.device.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string host;
  if (const auto h = run.options.find("host"); h != run.options.end() && h->is_string()) host = h->get<std::string>() + " ";
  std::string label = host + (str("name").empty() ? "GPU" : str("name"));
  if (const auto i = run.device.find("index"); i != run.device.end() && i->is_number_integer())
    label += " #" + std::to_string(i->get<int>());
  if (!str("pci_bus_id").empty()) label += " " + str("pci_bus_id");
  const std::string uuid = str("uuid");
  if (!uuid.empty()) label += " " + uuid.substr(0, std::min<std::size_t>(uuid.size(), 12));
  return label;
}

namespace {


}  // namespace

FleetReport fleet_report(const std::vector<RunDocument>& runs, const FleetOptions& opts) {
  FleetReport out;
  for (const auto& r : runs) out.gpus.push_back(gpu_label(r));
  // Two runs of one card (a re-run) would read as two GPUs: keep labels apart by run.
  for (std::size_t i = 0; i < out.gpus.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (out.gpus[j] == out.gpus[i]) out.gpus[i] += " (run " + runs[i].run_id + ")";
  out.outliers_flagged = runs.size() >= 3;

  std::map<std::string, std::size_t> index;  // id|params|metric -> position in out.metrics
  for (std::size_t g = 0; g < runs.size(); ++g) {
    out.contended_per_gpu.push_back(0);
    for (const Record& rec : runs[g].records) {
      if (rec.status != Status::Ok) continue;
      if (has_flag(rec, kContendedFlag)) {
        out.contended_per_gpu.back() += !rec.derived;
        continue;
      }
      for (const Metric& m : rec.metrics) {
        if (!std::isfinite(m.value())) continue;
        const std::string params = to_string(rec.params);
        const std::string key = rec.id + "|" + params + "|" + m.name;
        auto [it, fresh] = index.emplace(key, out.metrics.size());
        if (fresh) out.metrics.push_back({rec.id, params, m.name, m.unit, {}, 0, 0, 0, 0});
        FleetMetric& fm = out.metrics[it->second];
        if (std::any_of(fm.values.begin(), fm.values.end(), [&](const FleetValue& v) { return v.gpu == out.gpus[g]; }))
          continue;  // one value per GPU: the first record of a point
        fm.values.push_back({out.gpus[g], m.value(), 0, false});
      }
    }
  }
  std::erase_if(out.metrics, [](const FleetMetric& m) { return m.values.size() < 2; });
  std::map<std::string, int> per_gpu;
  for (const auto& g : out.gpus) per_gpu[g] = 0;
  for (FleetMetric& m : out.metrics) {
    std::vector<double> v;
    for (const auto& x : m.values) v.push_back(x.value);
    m.median = median_of(v);
    m.min = *std::min_element(v.begin(), v.end());
    m.max = *std::max_element(v.begin(), v.end());
    m.spread = m.median != 0 ? (m.max - m.min) / std::fabs(m.median) : 0;
    for (auto& x : m.values) {
      x.deviation = m.median != 0 ? x.value / m.median - 1 : 0;
      x.outlier = out.outliers_flagged && m.median != 0 && std::fabs(x.deviation) > opts.threshold;
      if (x.outlier) ++per_gpu[x.gpu];
    }
  }
  for (const auto& g : out.gpus) out.outliers_per_gpu.push_back({g, per_gpu[g]});
  std::stable_sort(out.outliers_per_gpu.begin(), out.outliers_per_gpu.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::string fleet_markdown(const FleetReport& r, const FleetOptions& opts) {
  std::ostringstream os;
  os << "# gpudissect fleet report: " << r.gpus.size() << " GPU(s)\n\n";
  for (std::size_t i = 0; i < r.gpus.size(); ++i) os << "- " << markdown_escape(r.gpus[i]) << "\n";
  os << "\n";
  for (std::size_t i = 0; i < r.gpus.size() && i < r.contended_per_gpu.size(); ++i)
    if (r.contended_per_gpu[i] > 0)
      os << "> ⚠ " << markdown_escape(r.gpus[i]) << ": " << r.contended_per_gpu[i]
         << " measured points ran while another process used the GPU (flagged `contended`); they are left out "
            "of the values below.\n\n";
  if (r.outliers_flagged) {
    os << "Outlier: a GPU whose value is more than " << fmt_num(opts.threshold * 100, 3)
       << " % off the fleet median for that metric.\n\n| GPU | outlier metrics |\n| --- | ---: |\n";
    for (const auto& [g, n] : r.outliers_per_gpu) os << "| " << markdown_escape(g) << " | " << n << " |\n";
  } else {
    os << "Fewer than three GPUs: the spread is shown, no outliers are flagged (the median of two "
          "cannot say which one is off).\n";
  }
  os << "\n| probe | params | metric | unit | GPUs | median | min | max | spread % | outliers |\n"
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const FleetMetric& m : r.metrics) {
    std::string outliers;
    for (const auto& v : m.values)
      if (v.outlier)
        outliers += (outliers.empty() ? "" : "; ") + markdown_escape(v.gpu) + " (" + (v.deviation > 0 ? "+" : "") +
                    fmt_num(v.deviation * 100, 3) + " %)";
    // Every string here comes from a run file someone sent: escaped, so none can forge a row.
    os << "| " << markdown_escape(m.id) << " | " << markdown_escape(m.params) << " | " << markdown_escape(m.metric) << " | "
       << markdown_escape(m.unit) << " | " << m.values.size() << " | "
       << fmt_num(m.median, 5) << " | " << fmt_num(m.min, 5) << " | " << fmt_num(m.max, 5) << " | "
       << fmt_num(m.spread * 100, 3) << " | " << outliers << " |\n";
  }
  return os.str();
}

}  // namespace gd
