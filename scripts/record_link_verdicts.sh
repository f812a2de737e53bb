#!/bin/sh
# Records what NVIDIA's linker says about each module set of
# tests/link/cases.txt: every module compiled with `ptxas -c` (13.x), then
# linked by nvlink. Writes tests/link/verdicts.tsv: the modules, nvlink's
# exit status, and its messages joined by " | ".
# PTXAS13 and NVLINK override the binaries.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}/cu13/lib/python3.11/site-packages/nvidia/cu13/bin
ptxas=${PTXAS13:-$bin/ptxas}
nvlink=${NVLINK:-$bin/nvlink}
dir=$root/tests/link
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*.ptx; do
    "$ptxas" -arch=sm_80 -c "$f" -o "$tmp/$(basename "$f" .ptx).o"
done
out=$dir/verdicts.tsv
printf 'modules\tnvlink_rc\tmessages\n' > "$out"
while read -r line; do
    [ -z "$line" ] && continue
    objs=
    for m in $line; do objs="$objs $tmp/$m.o"; done
    set +e
    # shellcheck disable=SC2086
    msg=$("$nvlink" -arch=sm_80 $objs -o "$tmp/linked.cubin" 2>&1 | sed "s|$tmp/||g; s/  */ /g" | paste -sd'|' - | sed 's/|/ | /g')
    # shellcheck disable=SC2086
    "$nvlink" -arch=sm_80 $objs -o "$tmp/linked.cubin" >/dev/null 2>&1
    rc=$?
    set -e
    printf '%s\t%s\t%s\n' "$line" "$rc" "$msg" >> "$out"
done < "$dir/cases.txt"
