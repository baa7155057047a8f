// The host side of banksim's CUDA runtime (banksim/cuda_host_api.hpp): what cudaGetDeviceProperties
// and cudaDeviceGetAttribute report equals the H200's (device_props-h200.txt, printed there by
// device_props.cu beside it), events time the CPU, symbols copy in and out.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "banksim/cuda_types.hpp"
#include "banksim/kernel_entry.hpp"
// (abi.hpp after the types it names)
#include "banksim/abi.hpp"
#include "banksim/cuda_host_api.hpp"

namespace {

float g_weights[4];

std::string dims(const int* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i != 0 ? " " : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

TEST_CASE("host API: device properties and attributes are the H200's", "[banksim][host]") {
  std::ifstream in("tests/fixtures/h200/device_props-h200.txt");
  REQUIRE(in);
  std::map<std::string, std::string> h200;
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    if (space != std::string::npos) h200[line.substr(0, space)] = line.substr(space + 1);
  }
  REQUIRE(h200.size() >= 40);
  cudaDeviceProp p;
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  CHECK(cudaGetDeviceProperties(&p, 1) == cudaErrorInvalidDevice);
  const std::map<std::string, std::string> mine = {
      {"totalGlobalMem", std::to_string(p.totalGlobalMem)},
      {"sharedMemPerBlock", std::to_string(p.sharedMemPerBlock)},
      {"regsPerBlock", std::to_string(p.regsPerBlock)},
      {"warpSize", std::to_string(p.warpSize)},
      {"memPitch", std::to_string(p.memPitch)},
      {"maxThreadsPerBlock", std::to_string(p.maxThreadsPerBlock)},
      {"maxThreadsDim", dims(p.maxThreadsDim, 3)},
      {"maxGridSize", dims(p.maxGridSize, 3)},
      {"totalConstMem", std::to_string(p.totalConstMem)},
      {"major", std::to_string(p.major)},
      {"minor", std::to_string(p.minor)},
      {"textureAlignment", std::to_string(p.textureAlignment)},
      {"texturePitchAlignment", std::to_string(p.texturePitchAlignment)},
      {"multiProcessorCount", std::to_string(p.multiProcessorCount)},
      {"concurrentKernels", std::to_string(p.concurrentKernels)},
      {"ECCEnabled", std::to_string(p.ECCEnabled)},
      {"asyncEngineCount", std::to_string(p.asyncEngineCount)},
      {"unifiedAddressing", std::to_string(p.unifiedAddressing)},
      {"memoryBusWidth", std::to_string(p.memoryBusWidth)},
      {"l2CacheSize", std::to_string(p.l2CacheSize)},
      {"maxThreadsPerMultiProcessor", std::to_string(p.maxThreadsPerMultiProcessor)},
      {"sharedMemPerMultiprocessor", std::to_string(p.sharedMemPerMultiprocessor)},
      {"regsPerMultiprocessor", std::to_string(p.regsPerMultiprocessor)},
      {"managedMemory", std::to_string(p.managedMemory)},
      {"cooperativeLaunch", std::to_string(p.cooperativeLaunch)},
      {"sharedMemPerBlockOptin", std::to_string(p.sharedMemPerBlockOptin)},
      {"maxBlocksPerMultiProcessor", std::to_string(p.maxBlocksPerMultiProcessor)},
      {"reservedSharedMemPerBlock", std::to_string(p.reservedSharedMemPerBlock)},
      {"clusterLaunch", std::to_string(p.clusterLaunch)}};
  for (const auto& [key, value] : mine) {
    INFO(key);
    REQUIRE(h200.count(key) == 1);
    CHECK(value == h200[key]);
  }
  const std::map<std::string, cudaDeviceAttr> attrs = {
      {"attr.ClockRate", cudaDevAttrClockRate},
      {"attr.MemoryClockRate", cudaDevAttrMemoryClockRate},
      {"attr.ComputeMode", cudaDevAttrComputeMode},
      {"attr.MaxSharedMemoryPerBlockOptin", cudaDevAttrMaxSharedMemoryPerBlockOptin},
      {"attr.MaxRegistersPerMultiprocessor", cudaDevAttrMaxRegistersPerMultiprocessor},
      {"attr.ComputeCapabilityMajor", cudaDevAttrComputeCapabilityMajor},
      {"attr.MultiProcessorCount", cudaDevAttrMultiProcessorCount},
      {"attr.Integrated", cudaDevAttrIntegrated}};
  for (const auto& [key, attr] : attrs) {
    INFO(key);
    int v = -1;
    REQUIRE(cudaDeviceGetAttribute(&v, attr, 0) == cudaSuccess);
    CHECK(std::to_string(v) == h200[key]);
  }
  int version = 0;
  cudaRuntimeGetVersion(&version);
  CHECK(std::to_string(version) == h200["runtimeVersion"]);
  int count = 0;
  CHECK(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 1);
  CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidDevice)) == "cudaErrorInvalidDevice");
}

TEST_CASE("host API: events time the CPU, symbols copy in and out", "[banksim][host]") {
  cudaEvent_t a = nullptr, b = nullptr;
  REQUIRE(cudaEventCreate(&a) == cudaSuccess);
  REQUIRE(cudaEventCreate(&b) == cudaSuccess);
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaErrorInvalidResourceHandle);  // not recorded
  CHECK(cudaEventRecord(a) == cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(cudaEventRecord(b) == cudaSuccess);
  CHECK(cudaEventSynchronize(b) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaSuccess);
  CHECK(ms >= 19.0f);
  CHECK(ms < 2000.0f);
  cudaEventDestroy(a);
  cudaEventDestroy(b);

  const float w[4] = {1, 2, 3, 4};
  CHECK(cudaMemcpyToSymbol(g_weights, w, sizeof w) == cudaSuccess);
  CHECK(g_weights[3] == 4.0f);
  CHECK(cudaMemcpyToSymbol(g_weights, w, sizeof(float), 2 * sizeof(float)) == cudaSuccess);
  CHECK(g_weights[2] == 1.0f);
  CHECK(cudaMemcpyToSymbol(g_weights, w, sizeof w, sizeof(float)) == cudaErrorInvalidValue);
  float back[4] = {};
  CHECK(cudaMemcpyFromSymbol(back, g_weights, sizeof back) == cudaSuccess);
  CHECK(back[1] == 2.0f);
  void* where = nullptr;
  CHECK(cudaGetSymbolAddress(&where, g_weights) == cudaSuccess);
  CHECK(where == static_cast<void*>(g_weights));

  // cudaMallocPitch's pitch: the H200's for the same widths (coop_wide_check-h200.txt).
  std::ifstream pitches("tests/fixtures/h200/coop_wide_check-h200.txt");
  REQUIRE(pitches);
  int checked = 0;
  for (std::string line; std::getline(pitches, line);) {
    std::size_t width = 0, pitch = 0;
    if (std::sscanf(line.c_str(), "cudaMallocPitch width %zu: pitch %zu", &width, &pitch) != 2) {
      continue;
    }
    void* p = nullptr;
    std::size_t mine = 0;
    CHECK(cudaMallocPitch(&p, &mine, width, 4) == cudaSuccess);
    CHECK(mine == pitch);
    cudaFree(p);
    ++checked;
  }
  CHECK(checked == 7);

  float* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, 64) == cudaSuccess);
  REQUIRE(pinned != nullptr);
  CHECK(cudaFreeHost(pinned) == cudaSuccess);
  char src[6][10];
  char dst[6][16];
  std::memset(src, 'a', sizeof src);
  std::memset(dst, 0, sizeof dst);
  CHECK(cudaMemcpy2D(dst, 16, src, 10, 10, 6, cudaMemcpyHostToHost) == cudaSuccess);
  CHECK(dst[5][9] == 'a');
  CHECK(dst[5][10] == 0);
}
