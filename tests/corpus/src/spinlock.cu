// Synchronisation built from atomics: a spin lock with atomicCAS and
// __nanosleep back-off, a ticket lock and a grid-wide counter barrier.
#include "compat.h"

__device__ __noinline__ void lock_acquire(int *lock) {
  unsigned ns = 8;
  while (atomicCAS(lock, 0, 1) != 0) {
    __nanosleep(ns);
    if (ns < 256) ns *= 2;
  }
  __threadfence();
}

__device__ __noinline__ void lock_release(int *lock) {
  __threadfence();
  atomicExch(lock, 0);
}

// One thread per block enters the critical section and updates a linked
// list head and a running sum.
extern "C" __global__ void locked_accumulate(int *lock, float *sum, int *order, int *next_slot, const float *vals) {
  if (threadIdx.x != 0) return;
  lock_acquire(lock);
  int slot = *next_slot;
  order[slot] = blockIdx.x;
  *next_slot = slot + 1;
  *sum += vals[blockIdx.x];
  lock_release(lock);
}

// Ticket lock: fair ordering across blocks.
extern "C" __global__ void ticket_lock(unsigned *next_ticket, volatile unsigned *now_serving, int *log) {
  if (threadIdx.x != 0) return;
  unsigned my = atomicAdd(next_ticket, 1u);
  while (*now_serving != my) __nanosleep(32);
  log[my] = blockIdx.x;
  __threadfence();
  *now_serving = my + 1;
}

// Sleep proportional to lane id, then record arrival order.
extern "C" __global__ void sleep_order(int *arrivals, int *counter) {
  __nanosleep(100 * (threadIdx.x & 7));
  int pos = atomicAdd(counter, 1);
  arrivals[pos] = threadIdx.x;
}
