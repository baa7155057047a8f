// grading_policy.cpp - reads an instructor's grading policy (TOML, with toml11) into the
// exercise table the grader grades with (see grader/grading_policy.hpp for the file's keys).
// Every value is checked with its line: the grader refuses the whole file at the first wrong key
// rather than grade a class with half a policy.
#include "grader/grading_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <toml.hpp>

#include "grader/backend.hpp"

namespace grader {
namespace fs = std::filesystem;
using course::ExerciseSpec;
using course::Points;
using course::Thresholds;

namespace {

std::size_t line_of(const toml::value& v) {
#if TOML11_VERSION_MAJOR >= 4
  return v.location().first_line_number();
#else
  return v.location().line();
#endif
}

/// The gates' keys, in GateId order, with the field of Points each sets.
const std::vector<std::pair<const char*, int Points::*>>& weight_keys() {
  static const std::vector<std::pair<const char*, int Points::*>> keys = {
      {"builds", &Points::builds},           {"correct", &Points::correct},
      {"no_problems", &Points::no_problems}, {"uses_shared", &Points::uses_shared},
      {"conflicts", &Points::conflicts},     {"speed", &Points::speed}};
  return keys;
}

/// The thresholds' keys that are one number each, with the field each sets.
const std::vector<std::pair<const char*, double Thresholds::*>>& threshold_keys() {
  static const std::vector<std::pair<const char*, double Thresholds::*>> keys = {
      {"cpu_min_cost_ratio", &Thresholds::cpu_min_cost_ratio},
      {"cpu_min_cost_ratio_clang", &Thresholds::cpu_min_cost_ratio_clang},
      {"min_shared_fraction", &Thresholds::min_shared_fraction},
      {"max_store_sectors_per_ideal", &Thresholds::max_store_sectors_per_ideal},
      {"max_load_requests_vs_baseline", &Thresholds::max_load_requests_vs_baseline}};
  return keys;
}

template <typename List>
std::string key_list(const List& keys, const char* more = nullptr) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + std::string(k.first);
  if (more != nullptr) out += std::string(", ") + more;
  return out;
}

/// Reads one policy file; each error names the file, the line and the key.
class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::value& at, const std::string& key,
                         const std::string& what) const {
    throw PolicyError(fmt::format("{}:{}: {} {}", file_.string(), line_of(at), key, what));
  }

  /// A table's keys, sorted: toml11 keeps no file order, and errors must be reproducible.
  static std::vector<std::string> keys_of(const toml::value& table) {
    std::vector<std::string> keys;
    for (const auto& kv : table.as_table()) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  const toml::value& table_at(const toml::value& parent, const std::string& key,
                              const std::string& name) const {
    const toml::value& v = parent.as_table().at(key);
    if (!v.is_table()) fail(v, name, "must be a table (a [section] or { key = value, ... })");
    return v;
  }

  void weights(const toml::value& table, const std::string& name, Points& p, bool host) const {
    for (const std::string& key : keys_of(table)) {
      const toml::value& v = table.as_table().at(key);
      const std::string full = name + "." + key;
      const auto it = std::find_if(weight_keys().begin(), weight_keys().end(),
                                   [&](const auto& k) { return key == k.first; });
      if (it == weight_keys().end()) {
        fail(v, full, "is not a gate: the gates are " + key_list(weight_keys()));
      }
      if (!v.is_integer() || v.as_integer() < 0 || v.as_integer() > 1000) {
        fail(v, full, "must be a non-negative integer (points, at most 1000)");
      }
      if (host && key != "builds" && key != "correct") {
        fail(v, full, "is not a gate of a host-code exercise: it has builds and correct only");
      }
      p.*(it->second) = static_cast<int>(v.as_integer());
    }
  }

  void thresholds(const toml::value& table, const std::string& name, Thresholds& t) const {
    for (const std::string& key : keys_of(table)) {
      const toml::value& v = table.as_table().at(key);
      const std::string full = name + "." + key;
      if (key == "gpu") {
        if (!v.is_table()) {
          fail(v, full, "must be a table of GPU name prefix = ratio: { \"NVIDIA H200\" = 1.5 }");
        }
        for (const std::string& gpu : keys_of(v)) {
          const toml::value& r = v.as_table().at(gpu);
          const double ratio = number(r, full + ".\"" + gpu + "\"");
          auto row = std::find_if(t.gpu.begin(), t.gpu.end(),
                                  [&](const course::GpuGate& g) { return g.gpu == gpu; });
          if (row == t.gpu.end()) {
            t.gpu.push_back({gpu, ratio, "grading policy " + file_.filename().string()});
          } else {
            row->min_ratio = ratio;
            row->source = "grading policy " + file_.filename().string() +
                          " (the registry's: " + row->source + ")";
          }
        }
        continue;
      }
      const auto it = std::find_if(threshold_keys().begin(), threshold_keys().end(),
                                   [&](const auto& k) { return key == k.first; });
      if (it == threshold_keys().end()) {
        fail(v, full,
             "is not a threshold: the thresholds are " + key_list(threshold_keys(), "gpu"));
      }
      t.*(it->second) = number(v, full);
    }
  }

  double number(const toml::value& v, const std::string& full) const {
    double x = -1;
    if (v.is_integer()) x = static_cast<double>(v.as_integer());
    if (v.is_floating()) x = v.as_floating();
    if (!(x >= 0) || x > 1e6) fail(v, full, "must be a non-negative number");
    return x;
  }

  /// One exercise's table: weights and thresholds.
  void exercise(const toml::value& table, const std::string& name, ExerciseSpec& e) const {
    const bool host = e.kind == ExerciseSpec::Kind::kHost;
    for (const std::string& key : keys_of(table)) {
      const std::string full = name + "." + key;
      if (key == "weights") {
        weights(table_at(table, key, full), full, e.points, host);
      } else if (key == "thresholds" && !host) {
        thresholds(table_at(table, key, full), full, e.thresholds);
      } else {
        fail(table.as_table().at(key), full,
             host ? "is not a key of a host-code exercise: it has weights only"
                  : "is not a key of an exercise: it has weights and thresholds");
      }
    }
  }

  std::vector<ExerciseSpec> apply(std::vector<ExerciseSpec> table) const {
    std::ifstream probe(file_);
    if (!probe) {
      throw PolicyError(
          fmt::format("{}: cannot read the grading policy: give an existing TOML "
                      "file (see docs: How a submission is graded)",
                      file_.string()));
    }
    toml::value root;
    try {
      root = toml::parse(file_.string());
    } catch (const toml::syntax_error& e) {
      // toml11's text names the line in a framed excerpt; the first lines say what is wrong.
      std::string what = e.what();
#if TOML11_VERSION_MAJOR >= 4
      const std::size_t line = e.location().first_line_number();
#else
      const std::size_t line = e.location().line();
#endif
      throw PolicyError(fmt::format("{}:{}: not valid TOML:\n{}", file_.string(), line, what));
    }
    for (const std::string& key : keys_of(root)) {
      if (key != "kernels" && key != "exercises") {
        fail(root.as_table().at(key), key,
             "is not a section of a grading policy: the sections are [kernels.weights], "
             "[kernels.thresholds], [exercises.NN.weights] and [exercises.NN.thresholds]");
      }
    }
    if (root.as_table().count("kernels") != 0) {
      const toml::value& k = table_at(root, "kernels", "kernels");
      for (ExerciseSpec& e : table) {
        if (e.kind == ExerciseSpec::Kind::kKernel) exercise(k, "kernels", e);
      }
    }
    if (root.as_table().count("exercises") != 0) {
      const toml::value& ex = table_at(root, "exercises", "exercises");
      for (const std::string& id : keys_of(ex)) {
        auto it = std::find_if(table.begin(), table.end(),
                               [&](const ExerciseSpec& e) { return e.id == id; });
        const std::string name = "exercises." + id;
        if (it == table.end()) {
          std::string ids;
          for (const ExerciseSpec& e : table) ids += (ids.empty() ? "" : ", ") + e.id;
          fail(ex.as_table().at(id), name, "is not an exercise: the exercises are " + ids);
        }
        exercise(table_at(ex, id, name), name, *it);
      }
    }
    for (const ExerciseSpec& e : table) {
      if (e.points.total() <= 0) {
        throw PolicyError(fmt::format(
            "{}: exercises.{}.weights add up to 0: give at least one gate points (or grade "
            "without the exercise: --exercise)",
            file_.string(), e.id));
      }
    }
    return table;
  }

 private:
  fs::path file_;
};

std::mutex& table_mutex() {
  static std::mutex m;
  return m;
}
std::vector<ExerciseSpec>& active() {
  static std::vector<ExerciseSpec> table = course::exercises();
  return table;
}
std::string& source() {
  static std::string s = "registry defaults";
  return s;
}

}  // namespace

std::vector<ExerciseSpec> apply_policy_file(const fs::path& file,
                                            std::vector<ExerciseSpec> exercises) {
  return Reader(file).apply(std::move(exercises));
}

void set_policy(std::vector<ExerciseSpec> exercises, std::string from) {
  const std::lock_guard<std::mutex> lock(table_mutex());
  active() = std::move(exercises);
  source() = std::move(from);
}

fs::path default_policy_file() {
  return course_root() / "grading-policy.toml";
}

const std::vector<ExerciseSpec>& exercises() {
  return active();
}

const ExerciseSpec* find_exercise(const std::string& id_or_slug) {
  for (const ExerciseSpec& e : exercises()) {
    if (e.id == id_or_slug || e.slug == id_or_slug) return &e;
  }
  return nullptr;
}

const std::string& policy_source() {
  return source();
}

nlohmann::json policy_json(const std::vector<std::string>& ids) {
  nlohmann::json j;
  j["source"] = policy_source();
  j["exercises"] = nlohmann::json::object();
  for (const ExerciseSpec& e : exercises()) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), e.id) == ids.end()) continue;
    nlohmann::json w = nlohmann::json::object();
    for (const auto& [key, field] : weight_keys()) {
      if (e.kind == ExerciseSpec::Kind::kHost && std::string(key) != "builds" &&
          std::string(key) != "correct")
        continue;
      w[key] = e.points.*field;
    }
    nlohmann::json x;
    x["weights"] = w;
    if (e.kind == ExerciseSpec::Kind::kKernel) {
      nlohmann::json t = nlohmann::json::object();
      for (const auto& [key, field] : threshold_keys()) t[key] = e.thresholds.*field;
      t["gpu"] = nlohmann::json::object();
      for (const course::GpuGate& g : e.thresholds.gpu) t["gpu"][g.gpu] = g.min_ratio;
      x["thresholds"] = t;
    }
    j["exercises"][e.id] = x;
  }
  return j;
}

}  // namespace grader
