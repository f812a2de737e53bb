// Switch-heavy code: a bytecode interpreter with a big switch, loops with
// break/continue and nested data-dependent divergence.
#include "compat.h"

enum Op {
  OP_PUSH = 0, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_AND, OP_OR, OP_XOR, OP_SHL,
  OP_SHR, OP_DUP, OP_SWAP, OP_DROP, OP_JZ, OP_JMP, OP_NEG, OP_NOT, OP_LT, OP_EQ,
  OP_HALT
};

__device__ __noinline__ int run_vm(const int *code, int len, int input) {
  int stack[16];
  int sp = 0;
  stack[sp++] = input;
  int pc = 0;
  int fuel = 256;
  while (pc < len && fuel-- > 0) {
    int ins = code[pc++];
    int op = ins & 0xff;
    int imm = ins >> 8;
    if (sp < 0 || sp > 14) return -999;
    switch (op) {
      case OP_PUSH: stack[sp++] = imm; break;
      case OP_ADD: --sp; stack[sp - 1] += stack[sp]; break;
      case OP_SUB: --sp; stack[sp - 1] -= stack[sp]; break;
      case OP_MUL: --sp; stack[sp - 1] *= stack[sp]; break;
      case OP_DIV: --sp; stack[sp - 1] = stack[sp] ? stack[sp - 1] / stack[sp] : 0; break;
      case OP_MOD: --sp; stack[sp - 1] = stack[sp] ? stack[sp - 1] % stack[sp] : 0; break;
      case OP_AND: --sp; stack[sp - 1] &= stack[sp]; break;
      case OP_OR: --sp; stack[sp - 1] |= stack[sp]; break;
      case OP_XOR: --sp; stack[sp - 1] ^= stack[sp]; break;
      case OP_SHL: --sp; stack[sp - 1] <<= (stack[sp] & 31); break;
      case OP_SHR: --sp; stack[sp - 1] >>= (stack[sp] & 31); break;
      case OP_DUP: stack[sp] = stack[sp - 1]; ++sp; break;
      case OP_SWAP: { int t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; break; }
      case OP_DROP: --sp; break;
      case OP_JZ: if (stack[--sp] == 0) pc = imm; break;
      case OP_JMP: pc = imm; break;
      case OP_NEG: stack[sp - 1] = -stack[sp - 1]; break;
      case OP_NOT: stack[sp - 1] = ~stack[sp - 1]; break;
      case OP_LT: --sp; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
      case OP_EQ: --sp; stack[sp - 1] = stack[sp - 1] == stack[sp]; break;
      case OP_HALT: return sp > 0 ? stack[sp - 1] : 0;
      default: return -1;
    }
  }
  return sp > 0 ? stack[sp - 1] : 0;
}

extern "C" __global__ void vm_kernel(const int *code, int len, const int *inputs, int *outputs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) outputs[i] = run_vm(code, len, inputs[i]);
}

// Dense switch on a small integer: a lexer character classifier.
__device__ __noinline__ int classify(int c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': return 0;
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': return 1;
    case '+': case '-': case '*': case '/': case '%': return 2;
    case '(': case ')': case '[': case ']': case '{': case '}': return 3;
    case '=': case '<': case '>': case '!': return 4;
    case ';': case ',': case '.': return 5;
    default:
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return 6;
      return 7;
  }
}

extern "C" __global__ void token_counts(const char *text, int n, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int cls = classify(text[i]);
  int prev = i > 0 ? classify(text[i - 1]) : -1;
  if (cls == prev && (cls == 1 || cls == 6)) return;  // inside a token
  atomicAdd(&counts[cls], 1);
}

// Loops with break/continue and nested divergence.
extern "C" __global__ void nested_divergence(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int acc = 0;
  for (int k = 0; k < 64; ++k) {
    if ((x + k) % 3 == 0) continue;
    if (x & 1) {
      if (k & 2) acc += k;
      else acc -= x;
    } else {
      switch ((x + k) & 7) {
        case 0: acc ^= k; break;
        case 1: acc += 3; break;
        case 2: acc *= 2; break;
        case 3: acc -= 7; continue;
        case 4: acc |= 1; break;
        case 5: acc = (acc >> 1) + k; break;
        case 6: if (acc > 1000) goto done; break;
        default: acc += x; break;
      }
    }
    if (acc > 100000) break;
    x = x * 1103515245 + 12345;
  }
done:
  out[i] = acc;
}
