#!/usr/bin/env python3
"""Prints the table of a numba-cuda suite run (scripts/numba_suite.sh): per
test module, the cases and how many passed, failed (a failure or an error
in setup/teardown), were skipped, or were expected failures (xfail/xpass),
and how many passing cases launched at least one kernel on the engine
(ptxsim_launch_count went up while the case ran). Then the totals and the
pass rate of the cases that were not skipped.

    report.py RESULTS.jsonl [--markdown] [--failures]

--markdown prints a Markdown table; --failures also lists every failing
case with the first line of its error.
"""

import collections
import json
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                rows[r["nodeid"]] = r  # a rerun case counts once, its last outcome
    return list(rows.values())


COLS = ("cases", "pass", "fail", "skip", "xfail", "launched")


def tally(rows):
    by = collections.OrderedDict()
    for r in sorted(rows, key=lambda r: r["nodeid"]):
        mod = r["nodeid"].split("::")[0]
        t = by.setdefault(mod, dict.fromkeys(COLS, 0))
        t["cases"] += 1
        o = r["outcome"]
        if o == "passed":
            t["pass"] += 1
            if (r.get("launches") or 0) > 0:
                t["launched"] += 1
        elif o in ("failed", "error"):
            t["fail"] += 1
        elif o == "skipped":
            t["skip"] += 1
        else:  # xfailed / xpassed
            t["xfail"] += 1
    total = dict.fromkeys(COLS, 0)
    for t in by.values():
        for c in COLS:
            total[c] += t[c]
    return by, total


def short(mod):
    for p in ("numba_cuda/numba/cuda/tests/", "numba/cuda/tests/"):
        if p in mod:
            return mod.split(p, 1)[1]
    return mod


def main():
    args = sys.argv[1:]
    md = "--markdown" in args
    fails = "--failures" in args
    paths = [a for a in args if not a.startswith("--")]
    if len(paths) != 1:
        sys.exit(__doc__)
    rows = load(paths[0])
    by, total = tally(rows)
    w = max([len(short(m)) for m in by] + [6])
    if md:
        print("| module | " + " | ".join(COLS) + " |")
        print("|---|" + "---:|" * len(COLS))
        for m, t in by.items():
            print(f"| {short(m)} | " + " | ".join(str(t[c]) for c in COLS) + " |")
        print("| **total** | " + " | ".join(f"**{total[c]}**" for c in COLS) + " |")
    else:
        print(f"{'module':<{w}} " + " ".join(f"{c:>8}" for c in COLS))
        for m, t in by.items():
            print(f"{short(m):<{w}} " + " ".join(f"{t[c]:>8}" for c in COLS))
        print(f"{'total':<{w}} " + " ".join(f"{total[c]:>8}" for c in COLS))
    ran = total["pass"] + total["fail"]
    pct = 100.0 * total["pass"] / ran if ran else 0.0
    print(f"\n{total['cases']} cases: {total['pass']} passed, {total['fail']} failed, "
          f"{total['skip']} skipped, {total['xfail']} xfail/xpass; "
          f"{pct:.1f}% of the {ran} passed or failed cases passed; "
          f"{total['launched']} passing cases launched a kernel")
    if fails:
        print()
        for r in sorted(rows, key=lambda r: r["nodeid"]):
            if r["outcome"] in ("failed", "error"):
                print(f"- `{short(r['nodeid'])}`: {r['detail']}")


if __name__ == "__main__":
    main()
