// Device printf: integers, floats, strings and pointers-as-ints from a few
// threads; tests/e2e/run.py checks the lines on standard output.
// e2e-stdout: hello from block 1 thread 2: 42 3\.50 ok
// e2e-stdout: hello from block 0 thread 0: 42 3\.50 ok
// e2e-stdout: long 1234567890123 char x hex ff
#include "e2e_check.cuh"

__global__ void hello(int v, float f) {
    if (threadIdx.x == 2 * blockIdx.x)
        printf("hello from block %d thread %d: %d %.2f %s\n", blockIdx.x, threadIdx.x, v, f, "ok");
    if (blockIdx.x == 0 && threadIdx.x == 0) printf("long %lld char %c hex %x\n", 1234567890123LL, 'x', 255);
}

int main() {
    hello<<<2, 4>>>(42, 3.5f);
    CUDA_OK(cudaDeviceSynchronize());
    e2e_result(true, "printf", "kernel with printf ran and synchronized");
    return e2e_exit();
}
