#pragma once
// TESSERA_HD marks functions that both backends evaluate (a pair force, a Yee update), so the
// formula lives once and the cpu and cuda backends cannot drift apart.
#if defined(__CUDACC__)
#define TESSERA_HD __host__ __device__ __forceinline__
#else
#define TESSERA_HD inline
#endif
