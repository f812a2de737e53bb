; Double-precision matrix-vector product with nested loops, fma intrinsic,
; a device function with early return and 64-bit address arithmetic.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.fabs.f64(double)

define internal double @safe_inv(double %x) noinline {
entry:
  %ax = call double @llvm.fabs.f64(double %x)
  %tiny = fcmp olt double %ax, 1.0e-300
  br i1 %tiny, label %zero, label %inv
zero:
  ret double 0.0
inv:
  %r = fdiv double 1.0, %x
  ret double %r
}

define ptx_kernel void @matvec_double(double addrspace(1)* %A, double addrspace(1)* %x, double addrspace(1)* %y, double addrspace(1)* %yinv, i32 %rows, i32 %cols) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %row = add i32 %base, %tid
  %oob = icmp sge i32 %row, %rows
  br i1 %oob, label %exit, label %pre

pre:
  %row64 = sext i32 %row to i64
  %cols64 = sext i32 %cols to i64
  %rowoff = mul i64 %row64, %cols64
  br label %loop

loop:
  %j = phi i64 [ 0, %pre ], [ %jn, %body ]
  %acc = phi double [ 0.0, %pre ], [ %accn, %body ]
  %c = icmp slt i64 %j, %cols64
  br i1 %c, label %body, label %done

body:
  %ai = add i64 %rowoff, %j
  %ap = getelementptr inbounds double, double addrspace(1)* %A, i64 %ai
  %a = load double, double addrspace(1)* %ap, align 8
  %xp = getelementptr inbounds double, double addrspace(1)* %x, i64 %j
  %xv = load double, double addrspace(1)* %xp, align 8
  %accn = call double @llvm.fma.f64(double %a, double %xv, double %acc)
  %jn = add i64 %j, 1
  br label %loop

done:
  %yp = getelementptr inbounds double, double addrspace(1)* %y, i64 %row64
  store double %acc, double addrspace(1)* %yp, align 8
  %inv = call double @safe_inv(double %acc)
  %ip = getelementptr inbounds double, double addrspace(1)* %yinv, i64 %row64
  store double %inv, double addrspace(1)* %ip, align 8
  br label %exit

exit:
  ret void
}
