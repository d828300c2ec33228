// The evaluator's own device-side code, loaded by the worker beside the candidate and by the parent.
//
// regrapht_count_differences compares two device buffers element by element (bitwise, elements of
// 1, 2, 4 or 8 bytes) and reports how many elements differ and the first that does. Timed outputs
// run to gigabytes; comparing them where they already are costs a millisecond, where copying them to
// the host and comparing there cost seconds.
//
// regrapht_count_mismatches is the parent's judge of a timed output at the bench size: it compares
// the output, mapped from the worker's memory, against the expected values with the task's tolerance,
// as the host's check does (float64 arithmetic without fused operations, NaN and Inf matched
// exactly), so a pass here is a pass there. The parent describes a mismatch on the host.
//
// regrapht_perturb writes an input set, perturbed with a per-call key, into the argument buffer before
// each timed call (eval/perturb.py says why and how), in place of a plain copy and at its cost.
//
// regrapht_hold_device keeps every SM busy for a fixed time. The timing loop queues it after the
// pre-call synchronization, ahead of the start event, so the candidate's launches are queued while
// it runs and the host's launch latency is not timed with the kernel. It fills every thread slot of
// every SM, so a kernel the candidate puts on a stream of its own cannot run beside it, untimed.
#include <cuda_runtime.h>

namespace {

template <typename T>
__device__ __forceinline__ bool float_mismatch(T actual, T expected, double rtol, double atol) {
  const double a = static_cast<double>(actual), e = static_cast<double>(expected);
  if (isfinite(a) && isfinite(e)) {
    const double diff = fabs(__dsub_rn(a, e));
    const double limit = __dadd_rn(__dmul_rn(fabs(e), rtol), atol);
    return !(diff <= limit);
  }
  return !(a == e || (isnan(a) && isnan(e)));
}

// Counts the elements outside the tolerance (kFloat) or not bitwise equal (unsigned T of the width),
// and finds the first of them.
template <typename T, bool kFloat>
__global__ void count_mismatches(const T* actual, const T* expected, unsigned long long n, double rtol,
                                 double atol, unsigned long long* result) {
  unsigned long long count = 0, first = ~0ull;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool bad = kFloat ? float_mismatch(actual[i], expected[i], rtol, atol) : actual[i] != expected[i];
    if (bad) {
      ++count;
      first = i < first ? i : first;
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    count += __shfl_down_sync(0xffffffffu, count, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && count != 0) {
    atomicAdd(&result[0], count);
    atomicMin(&result[1], first);
  }
}

unsigned grid_for(unsigned long long n, unsigned long long threads) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  unsigned long long blocks = (n + threads - 1) / threads;
  const unsigned long long cap = (unsigned long long)(sms > 0 ? sms : 1) * 16;
  if (blocks > cap) blocks = cap;
  return blocks == 0 ? 1u : (unsigned)blocks;
}

template <typename T, bool kFloat>
cudaError_t launch(const void* actual, const void* expected, unsigned long long n, double rtol,
                             double atol, unsigned long long* result) {
  count_mismatches<T, kFloat><<<grid_for(n, 256), 256>>>(
      static_cast<const T*>(actual), static_cast<const T*>(expected), n, rtol, atol, result);
  return cudaGetLastError();
}

constexpr int kHoldMaxThreads = 1024;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Every thread waits, not one per block: a block keeps its thread slots until all its threads exit.
__global__ void __launch_bounds__(kHoldMaxThreads) hold(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
#if __CUDA_ARCH__ >= 700
    __nanosleep(200);
#endif
  }
}

}  // namespace

// Queues the hold on the legacy default stream (the stream the timing events are recorded on) and
// returns at once with a cudaError_t (0 on success). The block size divides the SM's thread slots
// (1024 where they are a multiple of it, else 512: 1536-slot GPUs), and the launch is made only if
// that many blocks fit on every SM at once, so no slot stays free for a candidate's kernel; where
// they do not, it returns cudaErrorNotSupported and the call is timed without a hold.
extern "C" int regrapht_hold_device(unsigned long long ns) {
  static int blocks = 0, threads = 0;
  static cudaError_t unusable = cudaSuccess;
  if (unusable != cudaSuccess) return unusable;
  if (blocks == 0) {
    int device = 0, sms = 0, slots = 0, resident = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&slots, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    threads = slots % kHoldMaxThreads == 0 ? kHoldMaxThreads : 512;
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, hold, threads, 0);
    if (err != cudaSuccess || sms <= 0 || slots <= 0 || slots % threads != 0 || resident * threads < slots) {
      cudaGetLastError();
      unusable = cudaErrorNotSupported;
      return unusable;
    }
    blocks = sms * (slots / threads);
  }
  hold<<<blocks, threads, 0, 0>>>(ns);
  return cudaGetLastError();
}

// Returns a cudaError_t (0 on success); out[0] = differing elements, out[1] = first of them
// (2^64 - 1 when none). An itemsize other than 1, 2, 4 or 8 is refused with cudaErrorInvalidValue.
extern "C" int regrapht_count_differences(const void* a, const void* b, unsigned long long n, int itemsize,
                                           unsigned long long* out) {
  static unsigned long long* result = nullptr;
  cudaError_t err = cudaSuccess;
  if (result == nullptr && (err = cudaMalloc(&result, 2 * sizeof(unsigned long long))) != cudaSuccess) {
    result = nullptr;
    return err;
  }
  const unsigned long long start[2] = {0ull, ~0ull};
  if ((err = cudaMemcpy(result, start, sizeof start, cudaMemcpyHostToDevice)) != cudaSuccess) return err;
  switch (itemsize) {
    case 1: err = launch<unsigned char, false>(a, b, n, 0, 0, result); break;
    case 2: err = launch<unsigned short, false>(a, b, n, 0, 0, result); break;
    case 4: err = launch<unsigned int, false>(a, b, n, 0, 0, result); break;
    case 8: err = launch<unsigned long long, false>(a, b, n, 0, 0, result); break;
    default: return cudaErrorInvalidValue;
  }
  if (err != cudaSuccess) return err;
  return cudaMemcpy(out, result, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
}

// Returns a cudaError_t (0 on success); out[0] = elements outside the tolerance, out[1] = the first of
// them (2^64 - 1 when none). dtype: 0 float32, 1 float64, 2 integer of `itemsize` bytes (1, 2, 4, 8),
// compared exactly; anything else is refused with cudaErrorInvalidValue. `scratch` is device memory
// for two counters, the caller's, so a judge never allocates.
extern "C" int regrapht_count_mismatches(const void* actual, const void* expected, unsigned long long n, int dtype,
                                          int itemsize, double rtol, double atol, unsigned long long* scratch,
                                          unsigned long long* out) {
  const unsigned long long start[2] = {0ull, ~0ull};
  cudaError_t err = cudaMemcpy(scratch, start, sizeof start, cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;
  if (dtype == 0 && itemsize == 4) {
    err = launch<float, true>(actual, expected, n, rtol, atol, scratch);
  } else if (dtype == 1 && itemsize == 8) {
    err = launch<double, true>(actual, expected, n, rtol, atol, scratch);
  } else if (dtype == 2 && itemsize == 1) {
    err = launch<unsigned char, false>(actual, expected, n, 0, 0, scratch);
  } else if (dtype == 2 && itemsize == 2) {
    err = launch<unsigned short, false>(actual, expected, n, 0, 0, scratch);
  } else if (dtype == 2 && itemsize == 4) {
    err = launch<unsigned int, false>(actual, expected, n, 0, 0, scratch);
  } else if (dtype == 2 && itemsize == 8) {
    err = launch<unsigned long long, false>(actual, expected, n, 0, 0, scratch);
  } else {
    return cudaErrorInvalidValue;
  }
  if (err != cudaSuccess) return err;
  return cudaMemcpy(out, scratch, sizeof start, cudaMemcpyDeviceToHost);
}

namespace {

// The perturbation of eval/perturb.py, bit for bit: splitmix64 of (key + (i + 1) * golden); floats
// scaled by 1 + eps (eps an odd multiple of 2^-34, |eps| < 2^-10), rounded once in double and once
// to the type, clamped to [lo, hi], NaN and Inf left alone; integers stepped by -1, 0 or +1 within
// [lo, hi]. Explicit round-to-nearest intrinsics: no fused operation may change a bit.
__device__ __forceinline__ unsigned long long perturb_hash(unsigned long long key, unsigned long long i) {
  unsigned long long z = (i + 1ull) * 0x9E3779B97F4A7C15ull + key;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float to_type(double v, float) { return __double2float_rn(v); }
__device__ __forceinline__ double to_type(double v, double) { return v; }

template <typename T>
__global__ void perturb_float(T* dst, const T* src, unsigned long long n, unsigned long long key, T lo, T hi) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T x = src[i];
    if (!isfinite(x)) {
      dst[i] = x;
      continue;
    }
    const long long m = (long long)(perturb_hash(key, i) >> 40);
    const double eps = (double)(2 * m + 1 - (1ll << 24)) * 0x1p-34;
    T y = to_type(__dmul_rn((double)x, __dadd_rn(1.0, eps)), T());
    if (y > hi) y = hi;
    if (y < lo) y = lo;
    dst[i] = y;
  }
}

template <typename T>
__global__ void perturb_int(T* dst, const T* src, unsigned long long n, unsigned long long key, T lo, T hi) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long z = perturb_hash(key, i);
    T y = src[i];
    if ((z >> 62) & 1ull) {
      if (z >> 63) {
        if (y > lo) --y;
      } else if (y < hi) {
        ++y;
      }
    }
    dst[i] = y;
  }
}

template <typename T>
cudaError_t launch_perturb_float(void* dst, const void* src, unsigned long long n, unsigned long long key, double lo,
                                 double hi) {
  if (n == 0) return cudaSuccess;
  perturb_float<T><<<grid_for(n, 256), 256>>>(static_cast<T*>(dst), static_cast<const T*>(src), n, key, (T)lo, (T)hi);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_perturb_int(void* dst, const void* src, unsigned long long n, unsigned long long key, long long lo,
                               long long hi) {
  if (n == 0) return cudaSuccess;
  perturb_int<T><<<grid_for(n, 256), 256>>>(static_cast<T*>(dst), static_cast<const T*>(src), n, key, (T)lo, (T)hi);
  return cudaGetLastError();
}

}  // namespace

// Writes `src` perturbed with `key` to `dst` (n elements) on the legacy default stream, and returns a
// cudaError_t (0 on success) without waiting. dtype: 0 float32, 1 float64 (bounds flo, fhi), 2 signed
// and 3 unsigned integers of `itemsize` bytes (bounds ilo, ihi); anything else is refused with
// cudaErrorInvalidValue.
extern "C" int regrapht_perturb(void* dst, const void* src, unsigned long long n, int dtype, int itemsize,
                                unsigned long long key, double flo, double fhi, long long ilo, long long ihi) {
  if (dtype == 0 && itemsize == 4) return launch_perturb_float<float>(dst, src, n, key, flo, fhi);
  if (dtype == 1 && itemsize == 8) return launch_perturb_float<double>(dst, src, n, key, flo, fhi);
  if (dtype == 2 && itemsize == 1) return launch_perturb_int<signed char>(dst, src, n, key, ilo, ihi);
  if (dtype == 2 && itemsize == 2) return launch_perturb_int<short>(dst, src, n, key, ilo, ihi);
  if (dtype == 2 && itemsize == 4) return launch_perturb_int<int>(dst, src, n, key, ilo, ihi);
  if (dtype == 2 && itemsize == 8) return launch_perturb_int<long long>(dst, src, n, key, ilo, ihi);
  if (dtype == 3 && itemsize == 1) return launch_perturb_int<unsigned char>(dst, src, n, key, ilo, ihi);
  if (dtype == 3 && itemsize == 2) return launch_perturb_int<unsigned short>(dst, src, n, key, ilo, ihi);
  if (dtype == 3 && itemsize == 4) return launch_perturb_int<unsigned int>(dst, src, n, key, ilo, ihi);
  if (dtype == 3 && itemsize == 8) return launch_perturb_int<unsigned long long>(dst, src, n, key, ilo, ihi);
  return cudaErrorInvalidValue;
}

// The compiler's entry shim calls this; the harness never does.
void regrapht_device_check() {}

namespace {

// A keyed sum over 8-byte words: each word, mixed with its index and a key the caller keeps to itself,
// through splitmix64, added modulo 2^64. Any change to the buffer changes the sum except with
// probability about 2^-64, and without the key no change can be made to cancel out.
__global__ void keyed_sum(const unsigned long long* words, unsigned long long n, const unsigned char* tail,
                          unsigned tail_bytes, unsigned long long key, unsigned long long* result) {
  unsigned long long sum = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    sum += perturb_hash(key ^ words[i], i);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && tail_bytes) {
    unsigned long long last = 0;
    for (unsigned b = 0; b < tail_bytes; ++b) last |= (unsigned long long)tail[b] << (8 * b);
    sum += perturb_hash(key ^ last, n);
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, sum);
}

}  // namespace

// The parent's integrity check of the bench inputs it keeps on the device for workers to copy
// (eval/bench_masters.py): out[0] = the keyed sum of `nbytes` bytes at `data` (8-byte aligned, as
// cudaMalloc's are). `scratch` is one device counter, the caller's. Returns a cudaError_t.
extern "C" int regrapht_keyed_sum(const void* data, unsigned long long nbytes, unsigned long long key,
                                  unsigned long long* scratch, unsigned long long* out) {
  const unsigned long long zero = 0;
  cudaError_t err = cudaMemcpy(scratch, &zero, sizeof zero, cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;
  const unsigned long long n = nbytes / 8;
  keyed_sum<<<grid_for(n + 1, 256), 256>>>(static_cast<const unsigned long long*>(data), n,
                                             static_cast<const unsigned char*>(data) + 8 * n,
                                             (unsigned)(nbytes % 8), key, scratch);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  return cudaMemcpy(out, scratch, sizeof zero, cudaMemcpyDeviceToHost);
}
