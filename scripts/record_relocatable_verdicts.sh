#!/bin/sh
# Records the verdicts of ptxas 12.9 on tests/check/relocatable/ with and
# without -c (relocatable code vs whole program) into
# tests/check/relocatable/verdicts.tsv. PTXAS12 overrides the binary.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
ptxas=${PTXAS12:-${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}/cu12/bin/ptxas}
dir=$root/tests/check/relocatable
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$dir/verdicts.tsv
printf 'path\trc12_c\tmessage_c\trc12\tmessage\n' > "$out"
for f in "$dir"/accept/*.ptx "$dir"/reject/*.ptx; do
    rel=${f#"$dir"/}
    arch=$(sed -n 's/^\.target[ \t]*\(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1)
    set +e
    mc=$("$ptxas" -arch="$arch" -c "$f" -o "$tmp/out.o" 2>&1 | sed "s|^ptxas ||; s|$f, ||; s/  */ /g" | grep -v 'Ptx assembly aborted' | paste -sd'|' -)
    "$ptxas" -arch="$arch" -c "$f" -o "$tmp/out.o" >/dev/null 2>&1; rc=$?
    mw=$("$ptxas" -arch="$arch" "$f" -o "$tmp/out.cubin" 2>&1 | sed "s|^ptxas ||; s|$f, ||; s/  */ /g" | grep -v 'Ptx assembly aborted' | paste -sd'|' -)
    "$ptxas" -arch="$arch" "$f" -o "$tmp/out.cubin" >/dev/null 2>&1; rw=$?
    set -e
    printf '%s\t%s\t%s\t%s\t%s\n' "$rel" "$rc" "$mc" "$rw" "$mw" >> "$out"
done
