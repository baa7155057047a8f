// Lesson 01 - banks and words: one warp, one shared-memory load, several address patterns.
// Predict the wavefronts of each before running:
//   build/bin/banksim profile lessons/01-banks-and-words/patterns.cu --kernel read_pattern
//       --block 32 --arg 32 --arg PATTERN
constexpr int kWarp = 32;

//! [read_pattern]
// pattern 0: s[t]       consecutive words        -> banks 0..31, 1 wavefront
// pattern 1: s[5]       one word for all lanes   -> broadcast, 1 wavefront
// pattern 2: s[2t]      stride 2 words           -> lanes t, t+16 share bank 2t%32: 2 wavefronts
// pattern 3: s[32t]     stride 32 words          -> all lanes in bank 0: 32 wavefronts
// pattern 4: s[t / 2]   pairs of lanes, one word -> 16 words in 16 banks: 1 wavefront
// pattern 5: s[(t%2)*32] two words of bank 0     -> 2 wavefronts
__global__ void read_pattern(float* out, int pattern) {
  __shared__ float s[kWarp * kWarp];
  const int t = threadIdx.x;
  for (int i = t; i < kWarp * kWarp; i += kWarp) s[i] = static_cast<float>(i);
  __syncthreads();
  int index = t;
  if (pattern == 1) index = 5;
  if (pattern == 2) index = 2 * t;
  if (pattern == 3) index = kWarp * t;
  if (pattern == 4) index = t / 2;
  if (pattern == 5) index = (t % 2) * kWarp;
  out[t] = s[index];  // the access under study
}
//! [read_pattern]
