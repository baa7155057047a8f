// intrinsics.cu - sm_80+ warp reductions and matches, and integer/float intrinsics of CUDA's math
// API, on lane-dependent inputs. The H200 printed the same outputs
// (tests/fixtures/h200/intrinsics-h200.txt).
#include <cuda_runtime.h>

// One warp; out[12 * lane + k] for k = 0..11:
//  0 __reduce_add_sync (all lanes), 1 __reduce_min_sync (int), 2 __reduce_max_sync (unsigned),
//  3 and, 4 or, 5 xor, 6 __match_any_sync(lane % 3), 7 __match_all_sync's mask, 8 its pred,
//  9 __reduce_add_sync over the even lanes (odd lanes: -1), 10 __match_any_sync of floats over
//  the lanes below 20 (others: -1), 11 __ballot_sync(0x0000ffff) by the low half (others: -1).
__global__ void warp_collectives(int* out) {
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned v = static_cast<unsigned>(lane * 7 + 3);
  int* o = out + 12 * lane;
  o[0] = static_cast<int>(__reduce_add_sync(0xffffffffu, v));
  o[1] = __reduce_min_sync(0xffffffffu, 5 - lane);
  o[2] = static_cast<int>(__reduce_max_sync(0xffffffffu, v ^ 0x55u));
  o[3] = static_cast<int>(__reduce_and_sync(0xffffffffu, v | 0xf0u));
  o[4] = static_cast<int>(__reduce_or_sync(0xffffffffu, 1u << (lane % 16)));
  o[5] = static_cast<int>(__reduce_xor_sync(0xffffffffu, v));
  o[6] = static_cast<int>(__match_any_sync(0xffffffffu, lane % 3));
  int pred = -1;
  o[7] = static_cast<int>(__match_all_sync(0xffffffffu, lane < 40 ? 9 : lane, &pred));
  o[8] = pred;
  o[9] = -1;
  if (lane % 2 == 0) o[9] = static_cast<int>(__reduce_add_sync(0x55555555u, v));
  o[10] = -1;
  if (lane < 20) o[10] = static_cast<int>(__match_any_sync(0x000fffffu, lane < 10 ? 1.5f : 2.5f));
  o[11] = -1;
  if (lane < 16) o[11] = static_cast<int>(__ballot_sync(0x0000ffffu, lane % 4 == 1));
}

// One warp; out[16 * lane + k] for k = 0..15, from x = lane * 0x9e3779b9 and y = ~x.
__global__ void integer_math(unsigned* out) {
  const unsigned lane = threadIdx.x;
  const unsigned x = lane * 0x9e3779b9u;
  const unsigned y = ~x;
  const int sx = static_cast<int>(x);
  const int sy = static_cast<int>(y);
  unsigned* o = out + 16 * lane;
  o[0] = __umulhi(x, y);
  o[1] = static_cast<unsigned>(__mulhi(sx, sy));
  o[2] = static_cast<unsigned>(__umul64hi(0x123456789abcdefull * lane, ~0ull - lane));
  o[3] = static_cast<unsigned>(__mul24(sx, sy));
  o[4] = __umul24(x, y);
  o[5] = __funnelshift_l(x, y, lane * 3);
  o[6] = __funnelshift_r(x, y, lane * 3);
  o[7] = __funnelshift_lc(x, y, lane * 3);
  o[8] = __funnelshift_rc(x, y, lane * 3);
  o[9] = __byte_perm(x, y, 0x7531u + lane * 0x1111u);
  o[10] = __sad(sx, sy, lane);
  o[11] = static_cast<unsigned>(__hadd(sx, sy)) ^ __uhadd(x, y);
  o[12] = static_cast<unsigned>(__rhadd(sx, sy)) ^ __urhadd(x, y);
  o[13] = static_cast<unsigned>(__clzll(static_cast<long long>(x) << lane) +
                                32 * __ffsll(static_cast<long long>(y) << 20));
  o[14] = static_cast<unsigned>(__brevll(static_cast<unsigned long long>(x) * 3u + lane) >> 7);
  o[15] = __float_as_uint(__frcp_rn(static_cast<float>(lane) + 0.5f)) ^
          __float_as_uint(__fsqrt_rn(static_cast<float>(x)));
}

// One warp: the scoped atomics and sm_90's float2 atomicAdd (counter[0] = 32, counter[1] = 31,
// counter[2] = the CAS winner's lane + 1, f = {32, 64}), and float functions at points where
// every correct implementation gives the exact value: out[0..5] = norm3df(1, 2, 2) = 3,
// rnorm3df(2, 3, 6) * 7 = 1, sinpif(0.5) = 1, cospif(1) = -1, normcdff(0) = 0.5, rhypotf(3, 4) * 5.
__global__ void scoped_atomics(unsigned* counter, float2* f, float* out) {
  const unsigned lane = threadIdx.x;
  atomicAdd_block(counter, 1u);
  atomicMax_system(counter + 1, lane);
  atomicCAS_block(counter + 2, 0u, lane + 1);  // one lane wins: counter[2] in 1..32
  atomicAdd(f, make_float2(1.0f, 2.0f));
  if (lane == 0) {
    float s = 0.0f;
    float c = 0.0f;
    sincospif(0.5f, &s, &c);
    out[0] = norm3df(1.0f, 2.0f, 2.0f);
    out[1] = rnorm3df(2.0f, 3.0f, 6.0f) * 7.0f;
    out[2] = s;
    out[3] = cospif(1.0f);
    out[4] = normcdff(0.0f);
    out[5] = rhypotf(3.0f, 4.0f) * 5.0f;
  }
}
