"""Where one student's time goes on the in-process path: children forked from a warm parent (as the zygote
forks them, runbook_lib/kernel/zygote.py --in-process) each run one student (runbook_lib/grading/student.py),
and report the CPU time of each part. `.venv/bin/python bench/student_cpu.py [N]` (not in make bench)."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARTS = {"cells (the shell, displays, nbclient's records)": ("runbook_lib.kernel.inprocess", "Executor", "execute_cell"),
         "the notebook written (papermill's write_ipynb, nbformat's validation)": ("papermill.iorw", None, "write_ipynb"),
         "run.html": ("runbook_lib.evidence.html", None, "write"),
         "archive.keep (run.html and manifest.json)": ("runbook_lib.evidence.archive", None, "keep"),
         "preparing (parameters, papermill's records)": ("runbook_lib.grading.student", None, "prepare"),
         "papermill's per-cell records (cell_start, cell_complete)": ("papermill.engines", "NotebookExecutionManager",
                                                                       "cell_complete"),
         "papermill's error marker (a failed student: one more write)": ("papermill.execute", None,
                                                                        "raise_for_execution_errors"),
         "the progress file (a line a cell)": ("runbook_lib.grading.student", "Progress", "line")}


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    work = Path(tempfile.mkdtemp(prefix="student-cpu-"))
    roots = []
    for i in range(n):
        root = work / f"s{i}"
        how = ["--finished"] if i % 2 == 0 else ["--mistake", "string-boolean"]
        subprocess.run([sys.executable, "-m", "runbook_lib.cli", "lab-init", *how, str(root)], check=True,
                       capture_output=True)
        roots.append(str(root))
    import importlib

    from runbook_lib.kernel import app
    app.prepare()
    from runbook_lib.kernel.inprocess import build_shell
    from runbook_lib.grading import student
    from runbook_lib.evidence.archive import packaged_notebook

    shell = build_shell()
    student.zygote_warm()
    spent: dict[str, float] = {}
    for label, (module, cls, name) in PARTS.items():
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        original = getattr(owner, name)

        def timed(*a, _original=original, _label=label, **kw):
            t = time.process_time()
            try:
                return _original(*a, **kw)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.process_time() - t
        setattr(owner, name, timed)
    import gc
    gc.collect()
    gc.freeze()  # as the zygote does before it forks
    rows = []
    for i, root in enumerate(roots):
        r, w = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            args = {"notebook": str(packaged_notebook()), "run_dir": str(work / "out" / f"s{i}"), "root": root,
                    "label": f"s{i}", "kind": "grade", "params": {"root": root, "mode": "check"}, "version": "bench",
                    "timeout": 300}
            student.run(shell, args, lambda m: None)
            os.write(w, json.dumps(spent).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        _, status, usage = os.wait4(pid, 0)
        rows.append({"wall": time.perf_counter() - t0, "cpu": usage.ru_utime + usage.ru_stime,
                     "sys": usage.ru_stime, "minflt": usage.ru_minflt,
                     "parts": json.loads(data or b"{}")})
    print(f"| one student, forked from a warm parent (median of {n}) | CPU ms |")
    print("|---|---:|")
    print(f"| the whole child (fork to exit) | {statistics.median(r['cpu'] for r in rows) * 1000:.0f} |")
    print(f"| of which the kernel's (sys: page copies after the fork, files) | "
          f"{statistics.median(r['sys'] for r in rows) * 1000:.0f} |")
    print(f"| page faults (minor) | {statistics.median(r['minflt'] for r in rows):.0f} |")
    for label in PARTS:
        print(f"| {label} | {statistics.median(r['parts'].get(label, 0) for r in rows) * 1000:.0f} |")
    print(f"\nwall per student, one at a time: {statistics.median(r['wall'] for r in rows) * 1000:.0f} ms; "
          f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
