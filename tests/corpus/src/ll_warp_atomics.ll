; Warp intrinsics and atomics written directly in NVVM IR: shfl.sync
; butterfly reduction, vote.ballot.sync, atomicrmw on global and shared
; memory, cmpxchg and a barrier.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@counts = internal addrspace(3) global [32 x i32] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @warp_atomics(i32 addrspace(1)* %in, i32 addrspace(1)* %sums, i32 addrspace(1)* %ballots, i32 addrspace(1)* %flag, i32 addrspace(1)* %hist) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %gid = add i32 %base, %tid
  %lane = and i32 %tid, 31
  %warp = lshr i32 %gid, 5
  %bin_slot = getelementptr inbounds [32 x i32], [32 x i32] addrspace(3)* @counts, i32 0, i32 %lane
  store i32 0, i32 addrspace(3)* %bin_slot, align 4
  call void @llvm.nvvm.barrier0()
  %p = getelementptr inbounds i32, i32 addrspace(1)* %in, i32 %gid
  %x = load i32, i32 addrspace(1)* %p, align 4
  %s1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x, i32 16, i32 31)
  %a1 = add i32 %x, %s1
  %s2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a1, i32 8, i32 31)
  %a2 = add i32 %a1, %s2
  %s3 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a2, i32 4, i32 31)
  %a3 = add i32 %a2, %s3
  %s4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a3, i32 2, i32 31)
  %a4 = add i32 %a3, %s4
  %s5 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a4, i32 1, i32 31)
  %sum = add i32 %a4, %s5
  %odd = trunc i32 %x to i1
  %mask = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %odd)
  %bin = and i32 %x, 31
  %hslot = getelementptr inbounds [32 x i32], [32 x i32] addrspace(3)* @counts, i32 0, i32 %bin
  %old = atomicrmw add i32 addrspace(3)* %hslot, i32 1 monotonic
  %is_leader = icmp eq i32 %lane, 0
  br i1 %is_leader, label %leader, label %join

leader:
  %sp = getelementptr inbounds i32, i32 addrspace(1)* %sums, i32 %warp
  store i32 %sum, i32 addrspace(1)* %sp, align 4
  %bp = getelementptr inbounds i32, i32 addrspace(1)* %ballots, i32 %warp
  %pc = call i32 @llvm.ctpop.i32(i32 %mask)
  store i32 %pc, i32 addrspace(1)* %bp, align 4
  %cx = cmpxchg i32 addrspace(1)* %flag, i32 0, i32 %gid monotonic monotonic
  br label %join

join:
  call void @llvm.nvvm.barrier0()
  %cnt = load i32, i32 addrspace(3)* %bin_slot, align 4
  %hp = getelementptr inbounds i32, i32 addrspace(1)* %hist, i32 %lane
  %nz = icmp ne i32 %cnt, 0
  %first_warp = icmp ult i32 %tid, 32
  %doit = and i1 %nz, %first_warp
  br i1 %doit, label %flush, label %exit

flush:
  %o = atomicrmw add i32 addrspace(1)* %hp, i32 %cnt monotonic
  br label %exit

exit:
  ret void
}
