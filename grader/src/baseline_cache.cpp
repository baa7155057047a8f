// baseline_cache.cpp - BaselineCache (grader/judge.hpp): baselines kept in memory for one grading
// run and, in a folder of the grader's own, for the next run on the same machine.
//
// On disk an entry is one file: an 8-byte length, a JSON header (the whole key, the counted run's
// outcome and report without buffers, the timed median, every buffer's size), then the buffers'
// bytes in the header's order. Written to a temporary name and renamed, so a reader sees a whole
// file or none.
#include <cstdint>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "grader/judge.hpp"
#include "grader/protocol.hpp"

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kFormat = 1;  // raise when the layout or what an entry means changes

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void add_buffers(const Buffers& from, json& sizes, std::string& bytes) {
  for (const auto& b : from) {
    sizes.push_back(b.size());
    bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
}

/// Reads `sizes.size()` buffers from `bytes` at `*at`; false when the file is short.
bool take_buffers(const json& sizes, const std::string& bytes, std::size_t* at, Buffers& into) {
  for (const auto& n : sizes) {
    const auto size = n.get<std::size_t>();
    if (*at + size > bytes.size()) return false;
    into.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(*at),
                      bytes.begin() + static_cast<std::ptrdiff_t>(*at + size));
    *at += size;
  }
  return true;
}

std::string encode(const std::string& key, const BaselineEvidence& e) {
  const WorkerOutcome& w = e.counted;
  json runs = json::array();
  json counted_buffers = json::array();
  std::string bytes;
  for (const auto& r : w.report.runs) {
    runs.push_back(protocol::to_json(r));
    json sizes = json::array();
    add_buffers(r.buffers, sizes, bytes);
    counted_buffers.push_back(sizes);
  }
  json received = json::array();
  for (const bool b : w.report.run_received) received.push_back(b);
  json timed_sizes = json::array();
  add_buffers(e.timed_output, timed_sizes, bytes);
  const json head = {{"format", kFormat},
                     {"key", key},
                     {"started", w.started},
                     {"timed_out", w.timed_out},
                     {"exit_status", w.exit_status},
                     {"seconds", w.seconds},
                     {"counters_error", w.counters_error},
                     {"compile",
                      {{"received", w.report.compile.received},
                       {"ok", w.report.compile.ok},
                       {"message", w.report.compile.message}}},
                     {"runs", runs},
                     {"run_received", received},
                     {"counted_buffers", counted_buffers},
                     {"timed_ms", e.timed_ms},
                     {"timed_buffers", timed_sizes}};
  const std::string text = head.dump();
  const std::uint64_t n = text.size();
  std::string out(reinterpret_cast<const char*>(&n), sizeof n);
  return out + text + bytes;
}

/// The entry in `data` when it was written for `key`; nullptr otherwise.
std::shared_ptr<const BaselineEvidence> decode(const std::string& key, const std::string& data) {
  std::uint64_t n = 0;
  if (data.size() < sizeof n) return nullptr;
  std::copy_n(data.data(), sizeof n, reinterpret_cast<char*>(&n));
  if (n > data.size() - sizeof n) return nullptr;
  const json head = json::parse(data.substr(sizeof n, n), nullptr, false);
  if (head.is_discarded() || head.value("format", 0) != kFormat || head.value("key", "") != key) {
    return nullptr;
  }
  try {
    auto e = std::make_shared<BaselineEvidence>();
    WorkerOutcome& w = e->counted;
    w.started = head.at("started").get<bool>();
    w.timed_out = head.at("timed_out").get<bool>();
    w.exit_status = head.at("exit_status").get<int>();
    w.seconds = head.at("seconds").get<double>();
    w.counters_error = head.at("counters_error").get<std::string>();
    const json& c = head.at("compile");
    w.report.compile.received = c.at("received").get<bool>();
    w.report.compile.ok = c.at("ok").get<bool>();
    w.report.compile.message = c.at("message").get<std::string>();
    std::size_t at = sizeof n + n;
    const json& runs = head.at("runs");
    const json& sizes = head.at("counted_buffers");
    if (sizes.size() != runs.size()) return nullptr;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      protocol::RunReport r = protocol::run_report_from_json(runs[k]);
      if (!take_buffers(sizes[k], data, &at, r.buffers)) return nullptr;
      w.report.runs.push_back(std::move(r));
    }
    for (const auto& b : head.at("run_received")) w.report.run_received.push_back(b.get<bool>());
    e->timed_ms = head.at("timed_ms").get<double>();
    if (!take_buffers(head.at("timed_buffers"), data, &at, e->timed_output)) return nullptr;
    if (at != data.size()) return nullptr;
    return e;
  } catch (const std::exception&) {
    return nullptr;  // a file of another shape: run the baseline again
  }
}

}  // namespace

fs::path BaselineCache::file_for(const std::string& key) const {
  return dir_ / fmt::format("baseline-{:016x}.bin", fnv1a(key));
}

std::shared_ptr<const BaselineEvidence> BaselineCache::find(const std::string& key) const {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) return it->second;
    if (dir_.empty()) return nullptr;
  }
  // Read outside the lock: an entry holds the baseline's outputs at the timed size (hundreds of
  // MB for some exercises), and other exercises read theirs meanwhile.
  std::ifstream in(file_for(key), std::ios::binary);
  if (!in) return nullptr;
  const std::string data((std::istreambuf_iterator<char>(in)), {});
  auto e = decode(key, data);
  if (e == nullptr) return nullptr;
  const std::lock_guard<std::mutex> lock(mutex_);
  ++from_disk_;
  return entries_.emplace(key, e).first->second;  // an entry put meanwhile stays
}

std::shared_ptr<const BaselineEvidence> BaselineCache::find_or_claim(const std::string& key) {
  for (;;) {
    if (auto e = find(key)) return e;
    std::unique_lock<std::mutex> lock(mutex_);
    if (entries_.count(key) != 0) continue;  // put while the folder was read
    if (claimed_.insert(key).second) return nullptr;
    claim_end_.wait(lock, [&] { return claimed_.count(key) == 0; });
  }
}

void BaselineCache::release(const std::string& key) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    claimed_.erase(key);
  }
  claim_end_.notify_all();
}

void BaselineCache::put(const std::string& key, BaselineEvidence e) {
  std::shared_ptr<const BaselineEvidence> entry;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, added] =
        entries_.emplace(key, std::make_shared<const BaselineEvidence>(std::move(e)));
    claimed_.erase(key);
    if (added) entry = it->second;
  }
  claim_end_.notify_all();
  if (entry == nullptr || dir_.empty()) return;
  // Written outside the lock (hundreds of MB for some exercises): other entries are read and
  // put meanwhile.
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const fs::path file = file_for(key);
  const fs::path tmp = file.string() + fmt::format(".{:08x}.tmp", std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    const std::string data = encode(key, *entry);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      fs::remove(tmp, ec);
      return;  // a full disk loses the next run's head start, nothing else
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace grader
