// tile_config.h - a header in another folder (as cuda-samples' Common/helper_cuda.h), for
// tests/corpus/uses_include_dir.cu: found with banksim profile -I tests/corpus/includes.
#pragma once
#ifndef PAD
#define PAD 0
#endif
constexpr int kTile = 32;
