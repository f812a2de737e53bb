/* A client that finds the driver as the CUDA runtime does: dlopen of
 * "libcuda.so.1" by name (no path, no link-time dependency), then dlsym of
 * each function. Runs a PTX vector add over 4 blocks of 64 threads, twice,
 * and prints "OK <name> cc=X.Y sum=<checksum>" when every element matches. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static const char *PTX =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry vadd(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<6>;\n    .reg .b64 %rd<12>;\n    .reg .f32 %f<4>;\n"
    "    ld.param.u64 %rd1, [pa];\n    ld.param.u64 %rd2, [pb];\n    ld.param.u64 %rd3, [pc];\n"
    "    ld.param.u32 %r1, [pn];\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n    mad.lo.s32 %r5, %r2, %r3, %r4;\n    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n    mul.wide.u32 %rd7, %r5, 4;\n    add.s64 %rd8, %rd1, %rd7;\n"
    "    add.s64 %rd9, %rd2, %rd7;\n    add.s64 %rd10, %rd3, %rd7;\n    ld.global.f32 %f1, [%rd8];\n"
    "    ld.global.f32 %f2, [%rd9];\n    add.f32 %f3, %f1, %f2;\n    st.global.f32 [%rd10], %f3;\n"
    "DONE:\n    ret;\n}\n";

#define SYM(var, name)                                                   \
    do {                                                                 \
        *(void **)(&var) = dlsym(h, name);                               \
        if (!var) { fprintf(stderr, "no symbol %s\n", name); return 1; } \
    } while (0)
#define CHECK(call)                                                                   \
    do {                                                                              \
        CUresult r_ = (call);                                                         \
        if (r_ != 0) { fprintf(stderr, "%s returned %d\n", #call, r_); return 1; }    \
    } while (0)

int main(void) {
    enum { N = 250, BLOCK = 64 };
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) { fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror()); return 3; }
    CUresult (*init)(unsigned), (*get)(int *, int), (*getname)(char *, int, int), (*attr)(int *, int, int);
    CUresult (*retain)(void **, int), (*setcur)(void *), (*alloc)(CUdeviceptr *, size_t);
    CUresult (*htod)(CUdeviceptr, const void *, size_t), (*dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*load)(void **, const void *), (*getfn)(void **, void *, const char *);
    CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
    SYM(init, "cuInit"); SYM(get, "cuDeviceGet"); SYM(getname, "cuDeviceGetName");
    SYM(attr, "cuDeviceGetAttribute"); SYM(retain, "cuDevicePrimaryCtxRetain");
    SYM(setcur, "cuCtxSetCurrent"); SYM(alloc, "cuMemAlloc_v2"); SYM(htod, "cuMemcpyHtoD_v2");
    SYM(dtoh, "cuMemcpyDtoH_v2"); SYM(load, "cuModuleLoadData"); SYM(getfn, "cuModuleGetFunction");
    SYM(launch, "cuLaunchKernel");

    int dev, major, minor;
    char name[32];
    void *ctx, *mod, *fn;
    CUdeviceptr da, db, dc;
    float a[N], b[N], c[N];
    CHECK(init(0));
    CHECK(get(&dev, 0));
    CHECK(getname(name, sizeof name, dev));
    CHECK(attr(&major, 75, dev));
    CHECK(attr(&minor, 76, dev));
    CHECK(retain(&ctx, dev));
    CHECK(setcur(ctx));
    for (int i = 0; i < N; i++) { a[i] = (float)i; b[i] = 2.0f * (float)i; c[i] = -1.0f; }
    CHECK(alloc(&da, sizeof a));
    CHECK(alloc(&db, sizeof b));
    CHECK(alloc(&dc, sizeof c));
    CHECK(htod(da, a, sizeof a));
    CHECK(htod(db, b, sizeof b));
    CHECK(load(&mod, PTX));
    CHECK(getfn(&fn, mod, "vadd"));
    unsigned n = N;
    void *params[] = {&da, &db, &dc, &n};
    for (int k = 0; k < 2; k++)
        CHECK(launch(fn, (N + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL));
    CHECK(dtoh(c, dc, sizeof c));
    double sum = 0;
    for (int i = 0; i < N; i++) {
        if (c[i] != 3.0f * (float)i) { fprintf(stderr, "c[%d] = %f\n", i, c[i]); return 1; }
        sum += c[i];
    }
    printf("OK %s cc=%d.%d sum=%.0f\n", name, major, minor, sum);
    return 0;
}
