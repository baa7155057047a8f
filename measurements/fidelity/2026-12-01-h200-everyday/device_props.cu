// device_props.cu - the H200's cudaDeviceProp fields and cudaDeviceGetAttribute values that
// banksim's host API reports (banksim/include/banksim/cuda_host_api.hpp), one "key value" a line;
// the test `host API: ...` compares banksim's with device_props-h200.txt.
//   nvcc -arch=sm_90 -o device_props device_props.cu && ./device_props > device_props-h200.txt
#include <cstdio>

#include <cuda_runtime.h>

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  std::printf("name %s\n", p.name);
  std::printf("totalGlobalMem %zu\n", p.totalGlobalMem);
  std::printf("sharedMemPerBlock %zu\n", p.sharedMemPerBlock);
  std::printf("regsPerBlock %d\n", p.regsPerBlock);
  std::printf("warpSize %d\n", p.warpSize);
  std::printf("memPitch %zu\n", p.memPitch);
  std::printf("maxThreadsPerBlock %d\n", p.maxThreadsPerBlock);
  std::printf("maxThreadsDim %d %d %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
              p.maxThreadsDim[2]);
  std::printf("maxGridSize %d %d %d\n", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
  std::printf("totalConstMem %zu\n", p.totalConstMem);
  std::printf("major %d\n", p.major);
  std::printf("minor %d\n", p.minor);
  std::printf("textureAlignment %zu\n", p.textureAlignment);
  std::printf("texturePitchAlignment %zu\n", p.texturePitchAlignment);
  std::printf("multiProcessorCount %d\n", p.multiProcessorCount);
  std::printf("concurrentKernels %d\n", p.concurrentKernels);
  std::printf("ECCEnabled %d\n", p.ECCEnabled);
  std::printf("asyncEngineCount %d\n", p.asyncEngineCount);
  std::printf("unifiedAddressing %d\n", p.unifiedAddressing);
  std::printf("memoryBusWidth %d\n", p.memoryBusWidth);
  std::printf("l2CacheSize %d\n", p.l2CacheSize);
  std::printf("maxThreadsPerMultiProcessor %d\n", p.maxThreadsPerMultiProcessor);
  std::printf("sharedMemPerMultiprocessor %zu\n", p.sharedMemPerMultiprocessor);
  std::printf("regsPerMultiprocessor %d\n", p.regsPerMultiprocessor);
  std::printf("managedMemory %d\n", p.managedMemory);
  std::printf("cooperativeLaunch %d\n", p.cooperativeLaunch);
  std::printf("sharedMemPerBlockOptin %zu\n", p.sharedMemPerBlockOptin);
  std::printf("maxBlocksPerMultiProcessor %d\n", p.maxBlocksPerMultiProcessor);
  std::printf("reservedSharedMemPerBlock %zu\n", p.reservedSharedMemPerBlock);
  std::printf("clusterLaunch %d\n", p.clusterLaunch);
  const struct {
    const char* name;
    cudaDeviceAttr attr;
  } attrs[] = {{"attr.ClockRate", cudaDevAttrClockRate},
               {"attr.MemoryClockRate", cudaDevAttrMemoryClockRate},
               {"attr.ComputeMode", cudaDevAttrComputeMode},
               {"attr.MaxSharedMemoryPerBlockOptin", cudaDevAttrMaxSharedMemoryPerBlockOptin},
               {"attr.MaxRegistersPerMultiprocessor", cudaDevAttrMaxRegistersPerMultiprocessor},
               {"attr.ComputeCapabilityMajor", cudaDevAttrComputeCapabilityMajor},
               {"attr.MultiProcessorCount", cudaDevAttrMultiProcessorCount},
               {"attr.Integrated", cudaDevAttrIntegrated}};
  for (const auto& a : attrs) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a.attr, 0) != cudaSuccess) return 1;
    std::printf("%s %d\n", a.name, v);
  }
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  std::printf("runtimeVersion %d\ndriverVersion %d\n", rt, drv);
  return 0;
}
