/* A C client that loads an nvcc-made fatbin file as the CUDA runtime hands
 * one to the driver, and runs the kernel `which(unsigned *out)` of
 * tests/fatbin/arch.cu (out[t] = arch tag * 1000 + t) on one warp.
 *
 *   fatbin_load FILE MODE     MODE: data (cuModuleLoadData on the bytes),
 *                             wrapper (cuModuleLoadFatBinary on a
 *                             __fatBinC_Wrapper_t pointing to them),
 *                             library (cuLibraryLoadData, cuLibraryGetKernel)
 *
 * Prints `OK tag=N` (N = out[0] / 1000, every out[t] checked), or
 * `ERR code NAME: description` when the load fails, and exits 0 either way;
 * any other failure exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

/* The wrapper nvcc emits around each fatbin of a host object. */
typedef struct {
    int magic;
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
} __fatBinC_Wrapper_t;

CUresult cuInit(unsigned int flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuLibraryLoadData(CUlibrary *library, const void *code, void *jitOptions, void **jitOptionsValues,
                           unsigned numJitOptions, void *libraryOptions, void **libraryOptionValues,
                           unsigned numLibraryOptions);
CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra);
CUresult cuGetErrorName(CUresult error, const char **pstr);
CUresult cuGetErrorString(CUresult error, const char **pstr);

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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE data|wrapper|library\n", argv[0]);
        return 1;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned long long *bytes = malloc((size_t)size + 8);
    if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);

    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));

    CUfunction fn = NULL;
    CUresult r;
    if (strcmp(argv[2], "data") == 0) {
        CUmodule m;
        r = cuModuleLoadData(&m, bytes);
        if (r == 0)
            CHECK(cuModuleGetFunction(&fn, m, "which"));
    } else if (strcmp(argv[2], "wrapper") == 0) {
        __fatBinC_Wrapper_t w = {0x466243B1, 1, bytes, NULL};
        CUmodule m;
        r = cuModuleLoadFatBinary(&m, &w);
        if (r == 0)
            CHECK(cuModuleGetFunction(&fn, m, "which"));
    } else if (strcmp(argv[2], "library") == 0) {
        CUlibrary lib;
        CUkernel k;
        r = cuLibraryLoadData(&lib, bytes, NULL, NULL, 0, NULL, NULL, 0);
        if (r == 0) {
            CHECK(cuLibraryGetKernel(&k, lib, "which"));
            fn = (CUfunction)k;
        }
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[2]);
        return 1;
    }
    if (r != 0) {
        const char *name = "?", *desc = "?";
        cuGetErrorName(r, &name);
        cuGetErrorString(r, &desc);
        printf("ERR %d %s: %s\n", r, name, desc);
        return 0;
    }

    CUdeviceptr out;
    unsigned host[32];
    CHECK(cuMemAlloc_v2(&out, sizeof host));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH_v2(host, out, sizeof host));
    unsigned tag = host[0] / 1000;
    for (unsigned t = 0; t < 32; t++) {
        if (host[t] != tag * 1000 + t) {
            printf("BAD out[%u] = %u\n", t, host[t]);
            return 1;
        }
    }
    printf("OK tag=%u\n", tag);
    free(bytes);
    return 0;
}
