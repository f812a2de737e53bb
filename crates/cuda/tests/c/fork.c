/* fork() after cuInit: NVIDIA's driver is unusable in the child, whose
 * calls fail with CUDA_ERROR_NOT_INITIALIZED (3), cuInit included (Numba
 * relies on it to report "CUDA initialized before forking"); the parent
 * goes on as before. A child that forks before cuInit is not affected.
 * Prints OK on success. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);

#define CHECK(call, want) do { CUresult r_ = (call); \
    if (r_ != (want)) { fprintf(stderr, "%s: %s returned %d, expected %d\n", who, #call, r_, (want)); return 1; } } while (0)

static int child_before_init(void) {
    const char *who = "child forked before cuInit";
    CUdevice dev; CUcontext ctx; CUdeviceptr p;
    CHECK(cuInit(0), 0);
    CHECK(cuDeviceGet(&dev, 0), 0);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev), 0);
    CHECK(cuCtxSetCurrent(ctx), 0);
    CHECK(cuMemAlloc_v2(&p, 64), 0);
    return 0;
}

static int child_after_init(void) {
    const char *who = "child forked after cuInit";
    CUdevice dev; CUdeviceptr p; int v;
    CHECK(cuMemAlloc_v2(&p, 64), 3);
    CHECK(cuDeviceGet(&dev, 0), 3);
    CHECK(cuInit(0), 3);
    CHECK(cuMemAlloc_v2(&p, 64), 3);
    /* Needs no initialisation. */
    CHECK(cuDriverGetVersion(&v), 0);
    return 0;
}

static int wait_for(pid_t pid) {
    int status;
    if (waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void) {
    const char *who = "parent";
    pid_t pid = fork();
    if (pid == 0) _exit(child_before_init());
    if (pid < 0 || wait_for(pid) != 0) { fprintf(stderr, "the child forked before cuInit failed\n"); return 1; }

    CUdevice dev; CUcontext ctx; CUdeviceptr p;
    CHECK(cuInit(0), 0);
    CHECK(cuDeviceGet(&dev, 0), 0);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev), 0);
    CHECK(cuCtxSetCurrent(ctx), 0);
    CHECK(cuMemAlloc_v2(&p, 64), 0);
    pid = fork();
    if (pid == 0) _exit(child_after_init());
    if (pid < 0 || wait_for(pid) != 0) { fprintf(stderr, "the child forked after cuInit failed\n"); return 1; }
    /* The parent is unaffected. */
    CHECK(cuMemFree_v2(p), 0);
    CHECK(cuMemAlloc_v2(&p, 64), 0);
    CHECK(cuInit(0), 0);
    printf("OK\n");
    return 0;
}
