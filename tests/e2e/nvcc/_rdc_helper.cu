// The second translation unit of rdc_link.cu (separate compilation): a
// device function and a device variable the other unit uses.
__device__ int rdc_offset = 1000;

__device__ int rdc_mix(int x) { return x * 7 + rdc_offset; }
