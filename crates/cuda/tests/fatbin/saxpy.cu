// y[i] = a * x[i] + y[i] for i < n: the kernel of the compressed and
// machine-code-only fatbins (tests/fatbin.rs).
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
