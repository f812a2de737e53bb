/* Kernel output through libcuda.so.1: a kernel's printf reaches the
 * process's stdout during the launch, and a failed device assert makes the
 * launch and the next synchronising call return CUDA_ERROR_ASSERT (710).
 * A module that is not PTX is refused first ("BAD <code>").
 * Prints "ASSERT <launch> <sync>" and exits 0 when both calls returned an
 * error code, 1 when a call that should work did not. */
#include <stdio.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **params, void **extra);

#define CHECK(call)                                                        \
    do {                                                                   \
        CUresult r_ = (call);                                              \
        if (r_ != 0) {                                                     \
            fprintf(stderr, "%s returned %d\n", #call, r_);                \
            return 1;                                                      \
        }                                                                  \
    } while (0)

static const char *PTX =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
    ".extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 cs);\n"
    /* "hello from %d\n", "x > 0", "t.cu", "check" */
    ".global .align 1 .b8 fmt[15] = {104, 101, 108, 108, 111, 32, 102, 114, 111, 109, 32, 37, 100, 10, 0};\n"
    ".global .align 1 .b8 amsg[6] = {120, 32, 62, 32, 48, 0};\n"
    ".global .align 1 .b8 afile[5] = {116, 46, 99, 117, 0};\n"
    ".global .align 1 .b8 afn[6] = {99, 104, 101, 99, 107, 0};\n"
    ".visible .entry hello()\n"
    "{\n"
    "    .local .align 8 .b8 buf[8];\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    st.local.u32 [buf], %r1;\n"
    "    mov.u64 %rd1, buf;\n"
    "    cvta.local.u64 %rd2, %rd1;\n"
    "    mov.u64 %rd3, fmt;\n"
    "    cvta.global.u64 %rd3, %rd3;\n"
    "    {\n"
    "    .param .b64 p0;\n"
    "    .param .b64 p1;\n"
    "    .param .b32 r;\n"
    "    st.param.b64 [p0], %rd3;\n"
    "    st.param.b64 [p1], %rd2;\n"
    "    call.uni (r), vprintf, (p0, p1);\n"
    "    ld.param.b32 %r2, [r];\n"
    "    }\n"
    "    ret;\n"
    "}\n"
    ".visible .entry check()\n"
    "{\n"
    "    .reg .b64 %rd<4>;\n"
    "    mov.u64 %rd1, amsg;\n"
    "    cvta.global.u64 %rd1, %rd1;\n"
    "    mov.u64 %rd2, afile;\n"
    "    cvta.global.u64 %rd2, %rd2;\n"
    "    mov.u64 %rd3, afn;\n"
    "    cvta.global.u64 %rd3, %rd3;\n"
    "    {\n"
    "    .param .b64 p0;\n"
    "    .param .b64 p1;\n"
    "    .param .b32 p2;\n"
    "    .param .b64 p3;\n"
    "    .param .b64 p4;\n"
    "    st.param.b64 [p0], %rd1;\n"
    "    st.param.b64 [p1], %rd2;\n"
    "    st.param.b32 [p2], 7;\n"
    "    st.param.b64 [p3], %rd3;\n"
    "    st.param.b64 [p4], 1;\n"
    "    call.uni __assertfail, (p0, p1, p2, p3, p4);\n"
    "    }\n"
    "    ret;\n"
    "}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction hello, check;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    printf("BAD %d\n", cuModuleLoadData(&mod, "this is not PTX"));
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&hello, mod, "hello"));
    CHECK(cuModuleGetFunction(&check, mod, "check"));
    printf("before\n");
    fflush(stdout);
    CHECK(cuLaunchKernel(hello, 1, 1, 1, 4, 1, 1, 0, 0, NULL, NULL));
    printf("after\n");
    fflush(stdout);
    CUresult launch = cuLaunchKernel(check, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
    CUresult sync = cuCtxSynchronize();
    printf("ASSERT %d %d\n", launch, sync);
    return 0;
}
