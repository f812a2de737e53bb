; A dense switch inside a counted loop, each arm with a different side effect.
; Written with typed pointers so that both LLVM 14 and LLVM 22 parse it.
; Compiled by two LLVM versions: Debian llc 14 lowers the switch to a compare
; tree, the LLVM bundled with llvmlite lowers it to .branchtargets/brx.idx.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @switch_loop(i32 addrspace(1)* %ops, i32 addrspace(1)* %acc, i32 %nops, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %gid = add i32 %base, %tid
  %oob = icmp sge i32 %gid, %n
  br i1 %oob, label %exit, label %init

init:
  %slot = getelementptr inbounds i32, i32 addrspace(1)* %acc, i32 %gid
  %start = load i32, i32 addrspace(1)* %slot, align 4
  br label %loop

loop:
  %i = phi i32 [ 0, %init ], [ %inext, %latch ]
  %v = phi i32 [ %start, %init ], [ %vnext, %latch ]
  %more = icmp slt i32 %i, %nops
  br i1 %more, label %body, label %done

body:
  %opp = getelementptr inbounds i32, i32 addrspace(1)* %ops, i32 %i
  %op = load i32, i32 addrspace(1)* %opp, align 4
  %sel = add i32 %op, %gid
  %key = and i32 %sel, 15
  switch i32 %key, label %dflt [
    i32 0, label %c0
    i32 1, label %c1
    i32 2, label %c2
    i32 3, label %c3
    i32 4, label %c4
    i32 5, label %c5
    i32 6, label %c6
    i32 7, label %c7
    i32 8, label %c8
    i32 9, label %c9
  ]

c0:
  %r0 = add i32 %v, 1
  br label %latch
c1:
  %r1 = mul i32 %v, 3
  br label %latch
c2:
  %r2 = xor i32 %v, 21845
  br label %latch
c3:
  %r3 = sub i32 0, %v
  br label %latch
c4:
  %r4 = shl i32 %v, 2
  br label %latch
c5:
  %r5 = lshr i32 %v, 1
  br label %latch
c6:
  store i32 %v, i32 addrspace(1)* %slot, align 4
  br label %latch
c7:
  %r7 = or i32 %v, %i
  br label %latch
c8:
  br label %done
c9:
  %r9 = add i32 %v, %op
  br label %latch
dflt:
  %rd = sub i32 %v, %key
  br label %latch

latch:
  %vnext = phi i32 [ %r0, %c0 ], [ %r1, %c1 ], [ %r2, %c2 ], [ %r3, %c3 ], [ %r4, %c4 ], [ %r5, %c5 ], [ %v, %c6 ], [ %r7, %c7 ], [ %r9, %c9 ], [ %rd, %dflt ]
  %inext = add i32 %i, 1
  br label %loop

done:
  %final = phi i32 [ %v, %loop ], [ %v, %c8 ]
  store i32 %final, i32 addrspace(1)* %slot, align 4
  br label %exit

exit:
  ret void
}
