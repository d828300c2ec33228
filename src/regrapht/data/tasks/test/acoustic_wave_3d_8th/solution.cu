// steps: shared_memory_tiling, register_tiling
// A block owns a 128 x 8-cell tile of the plane (32 float4 columns x 8 rows, a thread per float4 of
// four x-consecutive cells) and marches it through a z chunk. The nine z neighbours of a thread's
// float4 are a register queue (register_tiling): u crosses DRAM about once a cell. The in-plane
// neighbours come from a shared-memory copy of the plane (shared_memory_tiling): each thread writes
// its own float4 and one float4 of the y halo (8 rows of 32 around the tile's 8), two lanes of each
// row the x halo, and after one barrier a thread reads its 8 y and 2 x neighbours there. Against
// session 8's kernel, whose 10 in-plane neighbours were global loads served by L1 and L2 as each
// plane is computed, a thread now issues 4 global loads a plane (the queue plane R+2 ahead, the halo
// float4, u_prev, vel2), all one plane before their use, so no load latency sits between a plane's
// barrier and its stores; two shared buffers alternate by plane, so one barrier a plane suffices.
// The read-once fields are loaded and stored evict-first (__ldcs/__stcs) so that u keeps L2 for the
// halos. z is cut into m = round(S/T) segments (T tiles of a plane, S blocks resident) and block b
// marches chunk b / (T*m) of segment-tile b % (T*m), so the next chunk of a tile launches about one
// resident wave later, when its predecessor ends: the 2R planes two chunks share are read from L2
// the second time rather than from DRAM, which makes long chunks affordable; their length (32 to 80
// planes) is chosen on the host so that the last wave of blocks is not a sliver (plan_chunks).
#include <cstdint>

namespace {

constexpr int R = 4;
constexpr float C0 = -205.0f / 72.0f, C1 = 8.0f / 5.0f, C2 = -1.0f / 5.0f, C3 = 8.0f / 315.0f,
                C4 = -1.0f / 560.0f;

constexpr int TX = 32;      // float4 columns per tile row (a warp: 512 contiguous bytes)
constexpr int BY = 2 * R;   // rows per tile: the y halo (R rows either side) is one float4 a thread
// planes marched per block: the host picks a length in [ZMIN, ZMAX] (plan_chunks), ZDEFAULT without an occupancy
constexpr int ZMIN = 32, ZMAX = 80, ZDEFAULT = 64;
constexpr int SROWS = BY + 2 * R;
constexpr int SCOLS = TX + 2;  // one float4 of x halo either side (R == 4 cells)
static_assert(BY == 2 * R && TX % 32 == 0, "the halo mapping assumes a y halo of one row a thread and warps of one row");

__device__ __forceinline__ float comp(const float4& v, int k) {
    return k == 0 ? v.x : (k == 1 ? v.y : (k == 2 ? v.z : v.w));
}

// The work a block's linear index names: tile `tile` of the plane's tiles, planes [z0, z1).
struct Work {
    int tile;
    int z0;
    int z1;
};

// nstreams = tiles * segments; block b marches chunk b / nstreams of stream b % nstreams.
__device__ __forceinline__ Work block_work(int b, int tiles, int nstreams, int seg_len, int zchunk, int nz) {
    const int chunk = b / nstreams;
    const int stream = b - chunk * nstreams;
    const int seg = stream / tiles;
    Work w;
    w.tile = stream - seg * tiles;
    const int seg0 = seg * seg_len;
    const int seg1 = min(seg0 + seg_len, nz);
    w.z0 = seg0 + chunk * zchunk;
    w.z1 = min(w.z0 + zchunk, seg1);
    return w;
}

// nxv = nx / 4 float4 groups per row. Group g covers x = 4g .. 4g+3; with nx % 4 == 0 a group is
// either entirely inside the x border (g == 0 or g == nxv-1) or entirely interior. An interior cell's
// neighbours all lie inside the grid, so halo slots outside it are never read and never written.
__global__ void __launch_bounds__(TX * BY, 2) wave8_smem(int nz, int ny, int nxv, int tiles_x, int tiles,
                                                     int nstreams, int seg_len, int zchunk, const float4* __restrict__ u,
                                                     const float4* __restrict__ u_prev,
                                                     const float4* __restrict__ vel2, float4* __restrict__ u_next) {
    __shared__ float4 sbuf[2][SROWS][SCOLS];  // shared row s holds grid row y0 - R + s; column c group g0 - 1 + c
    const Work w = block_work(blockIdx.x, tiles, nstreams, seg_len, zchunk, nz);
    const int tile_y = w.tile / tiles_x;
    const int g0 = (w.tile - tile_y * tiles_x) * TX;
    const int y0 = tile_y * BY;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int g = g0 + tx;
    const int y = y0 + ty;
    const int z0 = w.z0;
    const int z1 = w.z1;  // z0 >= z1: the last segment is shorter, nothing to do
    const bool valid = g < nxv && y < ny;
    const bool xyin = valid && y >= R && y < ny - R && g >= 1 && g <= nxv - 2;  // non-zero output
    const long long plane = static_cast<long long>(ny) * nxv;
    const long long col = static_cast<long long>(y) * nxv + g;

    // This thread's y-halo float4: rows y0-R .. y0-1 for ty < R, rows y0+BY .. y0+BY+R-1 for the others.
    const int yh = ty < R ? y0 - R + ty : y0 + ty + R;
    const int sh = yh - (y0 - R);
    const bool hval = g < nxv && yh >= 0 && yh < ny;
    const long long hcol = static_cast<long long>(yh) * nxv + g;  // read only where hval
    // Lane 0 loads the float4 left of the tile's row, lane TX-1 the one right of it.
    const int gx = tx == 0 ? g0 - 1 : g0 + TX;
    const int sx = tx == 0 ? 0 : TX + 1;
    const bool xval = (tx == 0 || tx == TX - 1) && y < ny && gx >= 0 && gx < nxv;
    const long long xcol = static_cast<long long>(y) * nxv + gx;  // read only where xval

    // q[k] = u at plane z - R + k of this column (every valid row: border rows are the y neighbours of
    // interior ones); q[2R+1] is the plane after next, loaded one iteration early. pv/vv, the y-halo
    // float4 h and the x-halo float4 xh belong to the current plane and were loaded one plane ahead.
    const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 q[2 * R + 2];
    for (int k = 0; k < 2 * R + 2; ++k) {
        const int zz = z0 - R + k;
        q[k] = (valid && z0 < z1 && zz >= 0 && zz < nz) ? __ldg(u + zz * plane + col) : zero4;
    }
    float4 pv = zero4, vv = zero4, h = zero4, xh = zero4;
    if (z0 < z1 && z0 >= R && z0 < nz - R) {
        const long long base = z0 * plane;
        if (xyin) {
            pv = __ldcs(u_prev + base + col);
            vv = __ldcs(vel2 + base + col);
        }
        if (hval) h = __ldg(u + base + hcol);
        if (xval) xh = __ldg(u + base + xcol);
    }

    for (int z = z0; z < z1; ++z) {
        const long long base = z * plane;
        const long long i = base + col;
        // block-uniform: whether this plane and the next one have interior cells
        const bool plane_in = z >= R && z < nz - R;
        const bool next_in = z + 1 < z1 && z + 1 >= R && z + 1 < nz - R;
        // what the next planes need: the queue entry R+2 planes ahead (first used two planes on) and
        // the next plane's streamed inputs and halo
        const int zq = z + R + 2;
        const float4 qn = (valid && zq < nz && z + 2 < z1) ? __ldg(u + zq * plane + col) : zero4;
        float4 pvn = zero4, vvn = zero4, hn = zero4, xhn = zero4;
        if (next_in) {
            if (xyin) {
                pvn = __ldcs(u_prev + i + plane);
                vvn = __ldcs(vel2 + i + plane);
            }
            if (hval) hn = __ldg(u + base + plane + hcol);
            if (xval) xhn = __ldg(u + base + plane + xcol);
        }
        if (plane_in) {
            // buffer z & 1 was last read two planes ago, before the barrier of the plane between
            float4(*s)[SCOLS] = sbuf[z & 1];
            if (valid) s[ty + R][tx + 1] = q[R];
            if (hval) s[sh][tx + 1] = h;
            if (xval) s[ty + R][sx] = xh;
            __syncthreads();
            if (xyin) {
                const float4 lft = s[ty + R][tx];
                const float4 rgt = s[ty + R][tx + 2];
                float4 ym[R], yp[R];
                for (int r = 1; r <= R; ++r) {
                    ym[r - 1] = s[ty + R - r][tx + 1];
                    yp[r - 1] = s[ty + R + r][tx + 1];
                }
                const float wx[12] = {lft.x, lft.y, lft.z, lft.w, q[R].x, q[R].y, q[R].z, q[R].w,
                                      rgt.x, rgt.y, rgt.z, rgt.w};
                float out[4];
                for (int k = 0; k < 4; ++k) {
                    // the naive port's order of the sums, so they round alike
                    const float c = wx[4 + k];
                    float lap = 3.0f * C0 * c;
                    lap += C1 * ((wx[4 + k - 1] + wx[4 + k + 1]) + (comp(ym[0], k) + comp(yp[0], k)) +
                                 (comp(q[R - 1], k) + comp(q[R + 1], k)));
                    lap += C2 * ((wx[4 + k - 2] + wx[4 + k + 2]) + (comp(ym[1], k) + comp(yp[1], k)) +
                                 (comp(q[R - 2], k) + comp(q[R + 2], k)));
                    lap += C3 * ((wx[4 + k - 3] + wx[4 + k + 3]) + (comp(ym[2], k) + comp(yp[2], k)) +
                                 (comp(q[R - 3], k) + comp(q[R + 3], k)));
                    lap += C4 * ((wx[4 + k - 4] + wx[4 + k + 4]) + (comp(ym[3], k) + comp(yp[3], k)) +
                                 (comp(q[R - 4], k) + comp(q[R + 4], k)));
                    out[k] = 2.0f * c - comp(pv, k) + comp(vv, k) * lap;
                }
                __stcs(u_next + i, make_float4(out[0], out[1], out[2], out[3]));
            } else if (valid) {
                __stcs(u_next + i, zero4);
            }
        } else if (valid) {
            __stcs(u_next + i, zero4);
        }
        // advance the pipeline by one plane
        for (int k = 0; k < 2 * R + 1; ++k) q[k] = q[k + 1];
        q[2 * R + 1] = qn;
        pv = pvn;
        vv = vvn;
        h = hn;
        xh = xhn;
    }
}

// Fallback for nx % 4 != 0 or buffers that are not 16-byte aligned: one thread per cell.
__global__ void __launch_bounds__(256) wave8_scalar(int nz, int ny, int nx, const float* __restrict__ u,
                                                   const float* __restrict__ u_prev,
                                                   const float* __restrict__ vel2, float* __restrict__ u_next) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    const long long plane = static_cast<long long>(ny) * nx;
    const long long i = z * plane + static_cast<long long>(y) * nx + x;
    if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R) {
        u_next[i] = 0.0f;
        return;
    }
    const float c[R + 1] = {C0, C1, C2, C3, C4};
    float lap = 3.0f * C0 * __ldg(u + i);
    for (int r = 1; r <= R; ++r) {
        const long long dy = static_cast<long long>(r) * nx, dz = r * plane;
        lap += c[r] * ((__ldg(u + i - r) + __ldg(u + i + r)) + (__ldg(u + i - dy) + __ldg(u + i + dy)) +
                       (__ldg(u + i - dz) + __ldg(u + i + dz)));
    }
    u_next[i] = 2.0f * __ldg(u + i) - __ldg(u_prev + i) + __ldg(vel2 + i) * lap;
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Blocks of wave8_smem resident on the whole device (S), looked up once per device: a query in the
// timed call would leave the GPU idle for its microseconds. 0 where the runtime cannot say.
int resident_blocks() {
    static int cached_device = -1;
    static int cached = 0;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    if (device != cached_device) {
        int sms = 0, per_sm = 0;
        const bool ok = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
                        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, wave8_smem, TX * BY, 0) == cudaSuccess;
        cached = ok ? sms * per_sm : 0;
        cached_device = device;
    }
    return cached;
}


struct Plan {
    int segments;  // m: z cut into m segments marched side by side
    int seg_len;   // planes a segment
    int zchunk;    // planes a block marches
    long long blocks;
};

// m = round(S/T) segments (at most one a ZMIN planes) make the tiles x segments streams one resident
// wave, so a stream's next chunk launches as its predecessor ends. The chunk length is the one in
// [ZMIN, ZMAX] that minimises the modelled time (zchunk + 1) x waves: the + 1 is a chunk's start (its
// queue filled before the first plane), and a last wave under 40% full costs 40% of a wave, since its
// blocks, alone on the GPU, run at most ~2.5x faster than in a loaded wave. At the bench size
// (T = 144, S = 264, m = 2, 768-plane segments) it picks 77-plane chunks: 2880 blocks, 10.9 waves.
Plan plan_chunks(int nz, int tiles, int resident) {
    Plan p;
    const int max_segments = max(1, (nz + ZMIN - 1) / ZMIN);
    p.segments = resident > 0 ? max(1, min(max_segments, (resident + tiles / 2) / tiles)) : 1;
    p.seg_len = (nz + p.segments - 1) / p.segments;
    p.zchunk = min(ZDEFAULT, p.seg_len);
    if (resident > 0) {
        double best = -1.0;
        const int cmin = max(1, (p.seg_len + ZMAX - 1) / ZMAX), cmax = max(1, (p.seg_len + ZMIN - 1) / ZMIN);
        for (int c = cmin; c <= cmax; ++c) {
            const int z = (p.seg_len + c - 1) / c;
            const double waves = static_cast<double>(tiles) * p.segments * c / resident;
            const double full = static_cast<double>(static_cast<long long>(waves));
            const double part = waves - full;
            const double cost = (z + 1.0) * (full + (part > 0.0 ? (part > 0.4 ? part : 0.4) : 0.0));
            if (best < 0.0 || cost < best) {
                best = cost;
                p.zchunk = z;
            }
        }
    }
    p.blocks = static_cast<long long>(tiles) * p.segments * ((p.seg_len + p.zchunk - 1) / p.zchunk);
    return p;
}

}  // namespace

void acoustic_wave_3d_8th(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                          float* u_next) {
    if (nz <= 0 || ny <= 0 || nx <= 0) return;
    if (nx % 4 == 0 && aligned16(u) && aligned16(u_prev) && aligned16(vel2) && aligned16(u_next)) {
        const int nxv = nx / 4;
        const int tiles_x = (nxv + TX - 1) / TX;
        const int tiles = tiles_x * ((ny + BY - 1) / BY);
        const Plan plan = plan_chunks(nz, tiles, resident_blocks());
        wave8_smem<<<static_cast<unsigned>(plan.blocks), dim3(TX, BY)>>>(
            nz, ny, nxv, tiles_x, tiles, tiles * plan.segments, plan.seg_len, plan.zchunk,
            reinterpret_cast<const float4*>(u), reinterpret_cast<const float4*>(u_prev),
            reinterpret_cast<const float4*>(vel2), reinterpret_cast<float4*>(u_next));
    } else {
        dim3 block(32, 8);
        dim3 grid((nx + 31) / 32, (ny + 7) / 8, nz);
        wave8_scalar<<<grid, block>>>(nz, ny, nx, u, u_prev, vel2, u_next);
    }
}
