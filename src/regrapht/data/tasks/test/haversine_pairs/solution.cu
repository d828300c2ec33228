// steps: parallelize, vectorized_access
// Each thread handles two pairs: one 16-byte load from each coordinate array and 8-byte stores of
// the two distances and bearings; sincosf shares argument reduction between sine and cosine.
// An odd last pair is handled with scalar accesses.
__device__ __forceinline__ void geodesic(float la1, float lo1, float la2, float lo2, float& dist, float& bearing) {
    const float deg = 0.017453292519943295f;
    const float radius_km = 6371.0f;
    const float lat1 = la1 * deg, lon1 = lo1 * deg, lat2 = la2 * deg, lon2 = lo2 * deg;
    const float dlat = lat2 - lat1, dlon = lon2 - lon1;
    const float s_lat = sinf(0.5f * dlat), s_lon = sinf(0.5f * dlon);
    float s1, c1, s2, c2, sd, cd;
    sincosf(lat1, &s1, &c1);
    sincosf(lat2, &s2, &c2);
    sincosf(dlon, &sd, &cd);
    const float h = s_lat * s_lat + c1 * c2 * s_lon * s_lon;
    dist = 2.0f * radius_km * asinf(sqrtf(fminf(h, 1.0f)));
    bearing = atan2f(sd * c2, c1 * s2 - s1 * c2 * cd) / deg;
}

__global__ void haversine_two(int pairs, const float4* __restrict__ from, const float4* __restrict__ to,
                              float2* __restrict__ distance_km, float2* __restrict__ bearing_deg) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const float4 a = from[p], b = to[p];
    float2 d, br;
    geodesic(a.x, a.y, b.x, b.y, d.x, br.x);
    geodesic(a.z, a.w, b.z, b.w, d.y, br.y);
    distance_km[p] = d;
    bearing_deg[p] = br;
}

__global__ void haversine_last(int n, const float* from, const float* to, float* distance_km, float* bearing_deg) {
    const long long i = n - 1;
    geodesic(from[2 * i], from[2 * i + 1], to[2 * i], to[2 * i + 1], distance_km[i], bearing_deg[i]);
}

void haversine_pairs(int n, const float* from, const float* to, float* distance_km, float* bearing_deg) {
    if (n <= 0) return;
    const int pairs = n / 2;
    if (pairs > 0)
        haversine_two<<<(pairs + 255) / 256, 256>>>(pairs, reinterpret_cast<const float4*>(from),
                                                    reinterpret_cast<const float4*>(to),
                                                    reinterpret_cast<float2*>(distance_km),
                                                    reinterpret_cast<float2*>(bearing_deg));
    if (n % 2) haversine_last<<<1, 1>>>(n, from, to, distance_km, bearing_deg);
}
