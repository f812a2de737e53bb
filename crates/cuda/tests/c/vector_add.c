/* A C client of libcuda.so.1 written against the driver API as cuda.h
 * declares it (types and prototypes declared here, so no CUDA install is
 * needed): device, primary context through the context stack, allocation,
 * copies, a hand-written PTX vector add launched over several blocks, and
 * the result compared with the sum computed in C. Prints OK on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxGetCurrent(CUcontext *pctx);
CUresult cuCtxPopCurrent_v2(CUcontext *pctx);
CUresult cuCtxPushCurrent_v2(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuModuleUnload(CUmodule hmod);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra);
CUresult cuGetErrorName(CUresult error, const char **pstr);

#define CHECK(call)                                                                  \
    do {                                                                             \
        CUresult r_ = (call);                                                        \
        if (r_ != 0) {                                                               \
            const char *n_ = "?";                                                    \
            cuGetErrorName(r_, &n_);                                                 \
            fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #call, \
                    r_, n_);                                                         \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static const char *PTX =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry vadd(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .b64 %rd<12>;\n"
    "    .reg .f32 %f<4>;\n"
    "    ld.param.u64 %rd1, [pa];\n"
    "    ld.param.u64 %rd2, [pb];\n"
    "    ld.param.u64 %rd3, [pc];\n"
    "    ld.param.u32 %r1, [pn];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd4, %rd1;\n"
    "    cvta.to.global.u64 %rd5, %rd2;\n"
    "    cvta.to.global.u64 %rd6, %rd3;\n"
    "    mul.wide.u32 %rd7, %r5, 4;\n"
    "    add.s64 %rd8, %rd4, %rd7;\n"
    "    add.s64 %rd9, %rd5, %rd7;\n"
    "    add.s64 %rd10, %rd6, %rd7;\n"
    "    ld.global.f32 %f1, [%rd8];\n"
    "    ld.global.f32 %f2, [%rd9];\n"
    "    add.f32 %f3, %f1, %f2;\n"
    "    st.global.f32 [%rd10], %f3;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

int main(void) {
    enum { N = 1000, BLOCK = 128 };
    int version = 0, count = 0, major = 0, minor = 0, warp = 0;
    char name[64];
    CUdevice dev;
    CUcontext ctx, popped, current;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr da, db, dc;
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));

    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    if (count != 1) { fprintf(stderr, "device count %d\n", count); return 1; }
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(cuDeviceGetAttribute(&major, 75, dev));
    CHECK(cuDeviceGetAttribute(&minor, 76, dev));
    CHECK(cuDeviceGetAttribute(&warp, 10, dev));
    if (warp != 32) { fprintf(stderr, "warp size %d\n", warp); return 1; }

    /* Numba's sequence: retain, set, pop, push. */
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuCtxPopCurrent_v2(&popped));
    if (popped != ctx) { fprintf(stderr, "popped another context\n"); return 1; }
    CHECK(cuCtxPushCurrent_v2(ctx));
    CHECK(cuCtxGetCurrent(&current));
    if (current != ctx) { fprintf(stderr, "current is not the pushed context\n"); return 1; }

    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 1000.0f - (float)i;
        c[i] = -1.0f;
    }
    CHECK(cuMemAlloc_v2(&da, N * sizeof(float)));
    CHECK(cuMemAlloc_v2(&db, N * sizeof(float)));
    CHECK(cuMemAlloc_v2(&dc, N * sizeof(float)));
    CHECK(cuMemcpyHtoD_v2(da, a, N * sizeof(float)));
    CHECK(cuMemcpyHtoD_v2(db, b, N * sizeof(float)));

    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&fn, mod, "vadd"));
    unsigned n = N;
    void *params[] = {&da, &db, &dc, &n};
    unsigned blocks = (N + BLOCK - 1) / BLOCK;
    CHECK(cuLaunchKernel(fn, blocks, 1, 1, BLOCK, 1, 1, 0, 0, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH_v2(c, dc, N * sizeof(float)));

    for (int i = 0; i < N; i++) {
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "c[%d] = %f, expected %f\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    }
    CHECK(cuMemFree_v2(da));
    CHECK(cuMemFree_v2(db));
    CHECK(cuMemFree_v2(dc));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease_v2(dev));
    printf("OK %s cc=%d.%d driver=%d blocks=%u\n", name, major, minor, version, blocks);
    free(a);
    free(b);
    free(c);
    return 0;
}
