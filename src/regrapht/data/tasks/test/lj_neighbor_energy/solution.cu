// steps: shared_memory_tiling, async_copy_pipelining, vectorized_access, loop_unrolling, thread_coarsening
// naive.cu spends its time waiting: each of its 26 trips loads a list entry, then the three positions
// it names (a two-level dependent chain), and its list loads touch 26+ cache lines per warp
// instruction (32 rows 104 bytes apart). Here every warp works through four chunks of 32 consecutive
// atoms. A chunk's list rows are one contiguous run (3.3 KB at the bench size), copied into a per-warp
// shared buffer with 16-byte cp.async, four lines per warp instruction, past L1; the copy of the next
// chunk is in flight while the warp computes the current one (double buffer, one cp.async group per
// chunk, __syncwarp only: no block barrier). A lane then walks its atom's row from shared memory four
// slots at a time: the four entries, then all twelve position gathers, then the four terms, so twelve
// loads are in flight per thread instead of three behind a list load. Consecutive atoms have the same
// lattice offsets in the same slot, so each gather is coalesced as in naive.cu; a slot past an atom's
// count gathers the atom's own position (an L1 hit) and its term is selected away. The kernel asks
// for about 70% of the unified memory as shared (the 164 KB split: six 27 KB blocks, 24 warps an SM)
// so ~90 KB of L1 keeps the neighbour rows a warp's consecutive slots share (dx = -1, 0, 1 hit the
// same lines). Terms are
// summed in float (at most 26 terms of |V| <= ~30: ~1e-5 absolute, inside the tolerance). The slot
// arrays below are a batch of loads in flight, each value used once (no register tile).
#define WARPS 4
#define THREADS (WARPS * 32)
#define CHUNKS_PER_WARP 4
#define SLOTS 4
// a block's double buffers hold 2 * THREADS * max_neigh words: up to 46 fit the default 48 KB
#define MAX_STAGED 46

// The list is read once: its lines are marked evict-first in L2, so they do not push out the
// positions, which every atom's three lattice planes read again.
__device__ __forceinline__ unsigned long long evict_first_policy() {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    return policy;
}
__device__ __forceinline__ void copy16(void* smem, const void* gmem, int bytes, unsigned long long policy) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(dst), "l"(gmem),
                 "r"(bytes), "l"(policy)
                 : "memory");
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void copy_wait_all_but_one() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }

// One chunk's rows (atoms * max_neigh words from a 16-byte aligned start) into a warp's buffer; the
// last 16-byte piece copies only the bytes that exist and zero-fills the rest.
__device__ __forceinline__ void stage_rows(int* dst, const int* src, int words, int lane, unsigned long long policy) {
    const int pieces = (words + 3) / 4;
    for (int p = lane; p < pieces; p += 32) copy16(dst + 4 * p, src + 4 * p, 4 * min(4, words - 4 * p), policy);
}

__global__ void lj_pipelined(int n, int max_neigh, const float* x, const float* y, const float* z,
                             const int* neigh_count, const int* neigh, float eps, float sigma2, float rc2,
                             float* energy) {
    extern __shared__ int4 staged[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int chunk_words = 32 * max_neigh;
    int* buffer = reinterpret_cast<int*>(staged) + warp * 2 * chunk_words;  // two stages per warp
    const long long chunks = ((long long)n + 31) / 32;
    const long long first = ((long long)blockIdx.x * WARPS + warp) * CHUNKS_PER_WARP;
    const long long last = min(first + CHUNKS_PER_WARP, chunks);
    if (first >= last) return;  // warp-uniform

    const float s2c = sigma2 / rc2, s6c = s2c * s2c * s2c;
    const float shift = s6c * s6c - s6c;  // V(rc2) / (4 eps): the shifted potential

    const unsigned long long policy = evict_first_policy();
    auto stage_chunk = [&](long long c, int stage) {
        const long long atom0 = c * 32;
        const int atoms = (int)min(32LL, n - atom0);
        stage_rows(buffer + stage * chunk_words, neigh + atom0 * max_neigh, atoms * max_neigh, lane, policy);
    };
    stage_chunk(first, 0);
    copy_commit();
    for (long long c = first; c < last; ++c) {
        const int stage = (int)(c - first) & 1;
        if (c + 1 < last) stage_chunk(c + 1, stage ^ 1);
        copy_commit();  // possibly empty: the wait below then always leaves exactly the newest group
        const long long i = c * 32 + lane;
        const bool live = i < n;
        const int self = (int)(live ? i : n - 1);
        const float xi = x[self], yi = y[self], zi = z[self];
        const int count = live ? min(neigh_count[i], max_neigh) : 0;
        copy_wait_all_but_one();  // this lane's pieces of chunk c have landed
        __syncwarp();             // and every other lane's
        const int* row = buffer + stage * chunk_words + lane * max_neigh;
        float sum = 0.0f;
        for (int k0 = 0; k0 < max_neigh; k0 += SLOTS) {
            int j[SLOTS];
            float px[SLOTS], py[SLOTS], pz[SLOTS];
#pragma unroll
            for (int s = 0; s < SLOTS; ++s) j[s] = k0 + s < count ? row[k0 + s] : self;
#pragma unroll
            for (int s = 0; s < SLOTS; ++s) {
                px[s] = x[j[s]];
                py[s] = y[j[s]];
                pz[s] = z[j[s]];
            }
#pragma unroll
            for (int s = 0; s < SLOTS; ++s) {
                const float dx = xi - px[s], dy = yi - py[s], dz = zi - pz[s];
                const float r2 = dx * dx + dy * dy + dz * dz;
                const bool inside = k0 + s < count && r2 < rc2;
                const float s2 = sigma2 / (inside ? r2 : rc2);  // an unused slot (r2 = 0) divides by rc2
                const float s6 = s2 * s2 * s2;
                sum += inside ? (s6 * s6 - s6) - shift : 0.0f;
            }
        }
        if (live) energy[i] = 4.0f * eps * sum;
        __syncwarp();  // every lane is done with this stage before the next trip refills it
    }
}

// Lists too long to stage, or a list array that is not 16-byte aligned: naive.cu's walk.
__global__ void lj_direct(int n, int max_neigh, const float* x, const float* y, const float* z,
                          const int* neigh_count, const int* neigh, float eps, float sigma2, float rc2,
                          float* energy) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float s2c = sigma2 / rc2, s6c = s2c * s2c * s2c;
    const float shift = s6c * s6c - s6c;
    const float xi = x[i], yi = y[i], zi = z[i];
    float sum = 0.0f;
    for (int k = 0; k < neigh_count[i]; ++k) {
        const int j = neigh[i * max_neigh + k];
        const float dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        const float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) continue;
        const float s2 = sigma2 / r2;
        const float s6 = s2 * s2 * s2;
        sum += (s6 * s6 - s6) - shift;
    }
    energy[i] = 4.0f * eps * sum;
}

void lj_neighbor_energy(int n, int max_neigh, const float* x, const float* y, const float* z, const int* neigh_count,
                        const int* neigh, float eps, float sigma2, float rc2, float* energy) {
    if (n <= 0) return;
    const bool aligned = (reinterpret_cast<unsigned long long>(neigh) & 15) == 0;
    if (max_neigh < 1 || max_neigh > MAX_STAGED || !aligned) {
        lj_direct<<<(n + 255) / 256, 256>>>(n, max_neigh, x, y, z, neigh_count, neigh, eps, sigma2, rc2, energy);
        return;
    }
    static bool carveout_set = false;
    if (!carveout_set) {
        // a hint (percent of the largest shared-memory size): the driver rounds it to a supported split
        cudaFuncSetAttribute(lj_pipelined, cudaFuncAttributePreferredSharedMemoryCarveout, 70);
        carveout_set = true;
    }
    const long long chunks = ((long long)n + 31) / 32;
    const long long per_block = (long long)WARPS * CHUNKS_PER_WARP;
    const unsigned blocks = (unsigned)((chunks + per_block - 1) / per_block);
    const size_t shared = 2 * (size_t)THREADS * max_neigh * sizeof(int);
    lj_pipelined<<<blocks, THREADS, shared>>>(n, max_neigh, x, y, z, neigh_count, neigh, eps, sigma2, rc2, energy);
}
