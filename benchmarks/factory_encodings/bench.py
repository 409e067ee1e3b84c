"""CPU time (user+sys of the child, rusage) of `pyright --outputjson <dir>` per (encoding, form), interleaved.

    .venv/bin/python benchmarks/factory_encodings/gen.py
    .venv/bin/python benchmarks/factory_encodings/bench.py pyright 3 r1      # or basedpyright

A fake ``faketorch`` package (30 factories, two signature shapes each) in five encodings of
a factory's device (``gen.py``: stock, the shipped layout, literal string markers with and
without a ``device: Never`` guard, split), checked on files of 1,500 one-call functions per
call form. What it measured is in docs/performance.md ("Round 5: device markers as literal
types"). Generated files and results stay under this directory (git-ignored)."""
import json, os, resource, statistics, subprocess, sys, time
ROOT = os.path.dirname(os.path.abspath(__file__))
checker = sys.argv[1] if len(sys.argv) > 1 else "pyright"
tag = sys.argv[3] if len(sys.argv) > 3 else "run"
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
EXE = os.path.join(os.path.dirname(sys.executable), checker)  # the running venv's checker
ENCS = os.environ.get("ENCS", "stock,classic,literal,literal_guard,literal_split").split(",")
FORMS = os.environ.get("FORMS", "empty,bare,typed,none,name,name_xpu,unannotated").split(",")
results = {}
for r in range(reps):
    for fi, form in enumerate(FORMS):
        encs = ENCS[(r + fi) % len(ENCS):] + ENCS[:(r + fi) % len(ENCS)]   # rotate the order
        for enc in encs:
            d = os.path.join(ROOT, "bench", f"{enc}-{form}")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run(["nice", EXE, "--outputjson", d], capture_output=True, text=True, cwd=d)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out = json.loads(p.stdout)
            s = out["summary"]
            results.setdefault(f"{enc}/{form}", []).append(cpu)
            print(f"rep{r} {enc:14s} {form:12s} {cpu:6.2f}s errors={s['errorCount']} files={s['filesAnalyzed']} load={os.getloadavg()[0]:.1f}", flush=True)
json.dump(results, open(os.path.join(ROOT, f"results-{checker}-{tag}.json"), "w"), indent=1)
print("\nmedian CPU s (ratio to stock; per-call ms above the empty file)")
for form in FORMS:
    med = {e: statistics.median(results[f"{e}/{form}"]) for e in ENCS}
    emp = {e: statistics.median(results[f"{e}/empty"]) for e in ENCS}
    cells = " | ".join(f"{med[e]:.2f} ({med[e]/med['stock']:.2f}x; {(med[e]-emp[e])/1.5:.2f} ms)" for e in ENCS)
    print(f"| {form} | {cells} |")
