/* regrapht's host-only stand-in for CUDA's <cuComplex.h>, so serial references and cpu-target
 * candidates compiled by g++ use the same complex types as CUDA code, with no CUDA toolkit.
 * Layouts match CUDA's: cuFloatComplex is float2 (8-byte aligned), cuDoubleComplex is double2
 * (16-byte aligned), x the real part and y the imaginary part. nvcc never sees this file. */
#ifndef REGRAPHT_HOST_CUCOMPLEX_H
#define REGRAPHT_HOST_CUCOMPLEX_H

#include <cmath>

struct alignas(8) float2 { float x, y; };
struct alignas(16) double2 { double x, y; };
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline float cuCrealf(cuFloatComplex z) { return z.x; }
static inline float cuCimagf(cuFloatComplex z) { return z.y; }
static inline cuFloatComplex make_cuFloatComplex(float re, float im) { cuFloatComplex z; z.x = re; z.y = im; return z; }
static inline cuFloatComplex make_cuComplex(float re, float im) { return make_cuFloatComplex(re, im); }
static inline cuFloatComplex cuConjf(cuFloatComplex z) { return make_cuFloatComplex(z.x, -z.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x + b.x, a.y + b.y); }
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x - b.x, a.y - b.y); }
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
    float d = b.x * b.x + b.y * b.y;
    return make_cuFloatComplex((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
static inline float cuCabsf(cuFloatComplex z) { return std::hypot(z.x, z.y); }
static inline cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b, cuFloatComplex c) { return cuCaddf(cuCmulf(a, b), c); }

static inline double cuCreal(cuDoubleComplex z) { return z.x; }
static inline double cuCimag(cuDoubleComplex z) { return z.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double re, double im) { cuDoubleComplex z; z.x = re; z.y = im; return z; }
static inline cuDoubleComplex cuConj(cuDoubleComplex z) { return make_cuDoubleComplex(z.x, -z.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x + b.x, a.y + b.y); }
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x - b.x, a.y - b.y); }
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
static inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
    double d = b.x * b.x + b.y * b.y;
    return make_cuDoubleComplex((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
static inline double cuCabs(cuDoubleComplex z) { return std::hypot(z.x, z.y); }
static inline cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex c) { return cuCadd(cuCmul(a, b), c); }
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) { return make_cuDoubleComplex(z.x, z.y); }
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) { return make_cuFloatComplex((float)z.x, (float)z.y); }

#endif
