// Floating point: double-precision Newton iterations, float/double
// conversions, min/max, n-body style rsqrt and a leapfrog integrator.
#include "compat.h"

struct Body {
  float x, y, z, m;
};

extern "C" __global__ void nbody_forces(const Body *b, float *ax, float *ay, float *az, int n, float soft2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Body me = b[i];
  float fx = 0, fy = 0, fz = 0;
  for (int j = 0; j < n; ++j) {
    float dx = b[j].x - me.x, dy = b[j].y - me.y, dz = b[j].z - me.z;
    float r2 = dx * dx + dy * dy + dz * dz + soft2;
    float inv = rsqrtf(r2);
    float s = b[j].m * inv * inv * inv;
    fx += dx * s;
    fy += dy * s;
    fz += dz * s;
  }
  ax[i] = fx;
  ay[i] = fy;
  az[i] = fz;
}

__device__ __noinline__ double newton_sqrt(double a) {
  if (a <= 0.0) return 0.0;
  double x = a > 1.0 ? a : 1.0;
  for (int k = 0; k < 60; ++k) {
    double nx = 0.5 * (x + a / x);
    if (fabs(nx - x) < 1e-15 * nx) return nx;
    x = nx;
  }
  return x;
}

extern "C" __global__ void double_math(const double *in, double *out, double *err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = in[i];
  double s = newton_sqrt(v);
  out[i] = s;
  err[i] = fabs(s - sqrt(v));
}

extern "C" __global__ void conversions(const float *f, const double *d, int *fi, long long *dl, float *df, double *fd,
                                       unsigned *fu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fi[i] = (int)f[i];
  dl[i] = (long long)d[i];
  df[i] = (float)d[i];
  fd[i] = (double)f[i] * 3.0;
  fu[i] = (unsigned)fabsf(f[i]);
}

extern "C" __global__ void leapfrog(float *x, float *v, const float *a, int n, float dt, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = x[i], vi = v[i], ai = a[i];
  for (int s = 0; s < steps; ++s) {
    vi = fmaf(0.5f * dt, ai, vi);
    xi = fmaf(dt, vi, xi);
    ai = -xi;  // harmonic oscillator
    vi = fmaf(0.5f * dt, ai, vi);
  }
  x[i] = xi;
  v[i] = vi;
}

// Monte-Carlo pi with an inline LCG.
extern "C" __global__ void monte_carlo_pi(unsigned *hits, int samples, unsigned seed) {
  unsigned s = seed ^ (blockIdx.x * blockDim.x + threadIdx.x) * 747796405u;
  unsigned h = 0;
  for (int k = 0; k < samples; ++k) {
    s = s * 1664525u + 1013904223u;
    float x = (s >> 8) * (1.0f / 16777216.0f);
    s = s * 1664525u + 1013904223u;
    float y = (s >> 8) * (1.0f / 16777216.0f);
    h += (x * x + y * y <= 1.0f);
  }
  atomicAdd(hits, h);
}
