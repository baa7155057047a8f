// banksim/cuda_types.hpp - uint3 and dim3, shared by the emulated kernels (clang) and the
// runtime (any C++17 compiler), so both agree on the built-in variables' layout.
#pragma once

extern "C++" {
struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}  // NOLINT(google-explicit-constructor)
  constexpr operator uint3() const { return uint3{x, y, z}; }  // NOLINT
};
}
