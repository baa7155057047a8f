// banksim/cuda_host_api.hpp - the host side of the CUDA runtime API for files written for nvcc:
// the `main` or launch helper around a kernel (cudaMalloc, events, device properties, symbols,
// streams). Included by banksim/cuda_host.hpp. banksim runs kernels, not a program's main, so
// these need only compile and link; where they run (a test's own host code) they behave as on
// a GPU with one device, synchronously: memory is the emulator's device memory (host memory
// for cudaMallocHost), streams and events are in order, and an event's time is the CPU's.
//
// The names, values and fields are CUDA 13.0's (driver_types.h, cuda_runtime_api.h): code that
// uses something CUDA 13 removed (cudaDeviceProp::clockRate, say) fails here as under nvcc 13.
// The toolkit's own headers' include guards are defined at the end, so that a toolkit header a
// file pulls in (cublas_v2.h includes "driver_types.h" and "cuComplex.h" from its own folder)
// finds these declarations instead of declaring CUDA's types a second time.
#pragma once

// Its standard headers (<ctime>, <cstring>, <cstdlib>) are included by cuda_host.hpp before any
// of its macros.

// ---- Errors ---------------------------------------------------------------------------------
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorPriorLaunchFailure = 53,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidSymbol:
      return "cudaErrorInvalidSymbol";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    default:
      return "cudaErrorUnknown";
  }
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : cudaGetErrorName(e);
}
inline cudaError_t cudaGetLastError() {
  return cudaSuccess;
}
inline cudaError_t cudaPeekAtLastError() {
  return cudaSuccess;
}

// ---- Memory ---------------------------------------------------------------------------------
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02

// Device memory: the emulator's device buffers (a kernel's accesses are checked against them).
template <typename T>
inline cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  *p = static_cast<T*>(banksim_device_malloc(bytes));
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMallocManaged(T** p, std::size_t bytes, unsigned = cudaMemAttachGlobal) {
  *p = static_cast<T*>(banksim_device_malloc(bytes));
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMallocPitch(T** p, std::size_t* pitch, std::size_t width,
                                   std::size_t height) {
  *pitch = (width + 511) / 512 * 512;  // the H200's: 512-byte multiples (test `host API: ...`)
  *p = static_cast<T*>(banksim_device_malloc(*pitch * height));
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  banksim_device_free(p);
  return cudaSuccess;
}
// Page-locked host memory: plain host memory here (a kernel may not access it).
template <typename T>
inline cudaError_t cudaMallocHost(T** p, std::size_t bytes) {
  *p = static_cast<T*>(std::malloc(bytes));
  return *p != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T>
inline cudaError_t cudaHostAlloc(T** p, std::size_t bytes, unsigned) {
  return cudaMallocHost(p, bytes);
}
inline cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t n, cudaMemcpyKind) {
  std::memcpy(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2D(void* d, std::size_t dpitch, const void* s, std::size_t spitch,
                                std::size_t width, std::size_t height, cudaMemcpyKind) {
  for (std::size_t r = 0; r < height; ++r) {
    std::memcpy(static_cast<char*>(d) + r * dpitch, static_cast<const char*>(s) + r * spitch,
                width);
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* d, int v, std::size_t n) {
  std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  *total = std::size_t{150109880320};  // the H200's totalGlobalMem; nothing else runs here
  *free_bytes = *total;
  return cudaSuccess;
}
// __constant__ and __device__ variables are ordinary globals under banksim.
template <typename T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t count,
                                      std::size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  std::memcpy(reinterpret_cast<char*>(const_cast<T*>(&symbol)) + offset, src, count);
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count,
                                        std::size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  std::memcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, count);
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaGetSymbolAddress(void** p, const T& symbol) {
  *p = const_cast<T*>(&symbol);
  return cudaSuccess;
}

// ---- Streams and events: in order, synchronous ----------------------------------------------
typedef void* cudaStream_t;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, std::size_t n, cudaMemcpyKind kind,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(d, s, n, kind);
}
inline cudaError_t cudaMemsetAsync(void* d, int v, std::size_t n, cudaStream_t = nullptr) {
  return cudaMemset(d, v, n);
}

struct CUevent_st {
  double ms = 0;  // CLOCK_MONOTONIC when recorded
  bool recorded = false;
};
typedef struct CUevent_st* cudaEvent_t;
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new CUevent_st;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  return cudaEventCreate(e);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  if (e == nullptr) return cudaErrorInvalidResourceHandle;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  e->ms = static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  e->recorded = true;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return e != nullptr ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
inline cudaError_t cudaEventQuery(cudaEvent_t e) {
  return e != nullptr ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
/// The CPU time between the two records (the emulation's, not a GPU's).
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start == nullptr || end == nullptr) return cudaErrorInvalidResourceHandle;
  if (!start->recorded || !end->recorded) return cudaErrorInvalidResourceHandle;
  *ms = static_cast<float>(end->ms - start->ms);
  return cudaSuccess;
}

// ---- Devices: one, described as the course's GPU (an H200, sm_90) ---------------------------
struct cudaUUID_st {
  char bytes[16];
};
typedef struct cudaUUID_st cudaUUID_t;
/// CUDA 13's cudaDeviceProp, field for field (what nvcc 13 accepts; removed fields such as
/// clockRate and computeMode are not here either).
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  std::size_t totalConstMem;
  int major;
  int minor;
  std::size_t textureAlignment;
  std::size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  std::size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  std::size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  std::size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};
enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3
};

namespace banksim_host {
/// The device banksim stands for: the course's H200, its numbers as cudaGetDeviceProperties and
/// cudaDeviceGetAttribute report them there (measurements/fidelity/2026-12-01-h200-everyday/
/// device_props-h200.txt; the test `host API: ...` compares), under banksim's own name.
inline cudaDeviceProp device_properties() {
  cudaDeviceProp p{};
  std::strncpy(p.name, "banksim (CPU emulation of an sm_90 GPU: NVIDIA H200)", sizeof p.name - 1);
  p.totalGlobalMem = std::size_t{150109880320};
  p.sharedMemPerBlock = 48 * 1024;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 65536;
  p.major = 9;
  p.minor = 0;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = 132;
  p.concurrentKernels = 1;
  p.ECCEnabled = 1;
  p.asyncEngineCount = 3;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 6016;
  p.l2CacheSize = 60 * 1024 * 1024;
  p.maxThreadsPerMultiProcessor = 2048;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.regsPerMultiprocessor = 65536;
  p.managedMemory = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.maxBlocksPerMultiProcessor = 32;
  p.reservedSharedMemPerBlock = 1024;
  p.clusterLaunch = 1;
  return p;
}
}  // namespace banksim_host

inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}
inline cudaError_t cudaDeviceReset() {
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() {
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (d != 0) return cudaErrorInvalidDevice;
  *p = banksim_host::device_properties();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int d) {
  if (d != 0) return cudaErrorInvalidDevice;
  const cudaDeviceProp p = banksim_host::device_properties();
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY:
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[attr - cudaDevAttrMaxBlockDimX];
      break;
    case cudaDevAttrMaxGridDimX:
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[attr - cudaDevAttrMaxGridDimX];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = 1980000;  // kHz, the H200's boost clock
      break;
    case cudaDevAttrMemoryClockRate:
      *value = 3201000;  // kHz
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrComputeMode:
      *value = cudaComputeModeDefault;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = p.asyncEngineCount;
      break;
    case cudaDevAttrIntegrated:
    case cudaDevAttrPciBusId:
    case cudaDevAttrPciDeviceId:
      *value = 0;
      break;
    default:  // concurrent kernels, ECC, unified addressing, managed memory, cooperative launch
      *value = 1;
      break;
  }
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}

// ---- Kernel attributes: accepted (banksim's limits are the launch's own) --------------------
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
template <typename F>
inline cudaError_t cudaFuncSetAttribute(F*, cudaFuncAttribute, int) {
  return cudaSuccess;
}
template <typename F>
inline cudaError_t cudaFuncSetCacheConfig(F*, cudaFuncCache) {
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return cudaSuccess;
}

// The toolkit's include guards: its headers that a file includes by path (cublas_v2.h ->
// "driver_types.h", "cuComplex.h" -> "vector_types.h") find CUDA's types declared already.
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __DEVICE_TYPES_H__
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __CUDA_DEVICE_RUNTIME_API_H__
#define __SURFACE_TYPES_H__
#define __TEXTURE_TYPES_H__
#define __DRIVER_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__
