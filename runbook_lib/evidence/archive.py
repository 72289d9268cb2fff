"""One run of the notebook, kept as evidence: DIR/<label>/<UTC timestamp>/{run.ipynb, run.html, manifest.json}.

The verdict is never recomputed here: the manifest copies the step records and the summary record the
notebook itself displayed (application/vnd.runbook.*+json). A run whose notebook stopped before its summary
cell is a failed run, whatever the steps before it said. papermill and nbformat are imported inside the
functions so that `runbook --help` and `runbook summary` start fast.
"""

from __future__ import annotations

import datetime as _dt
import getpass
import hashlib
import json
import os
import platform
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from runbook_lib.findings.catalog import say
from runbook_lib.findings.messages import Msg, bilingual
from runbook_lib.findings.problem import ERROR

MANIFEST_SCHEMA = "nvidia-runtime-runbook/manifest/1"
NOTEBOOK_NAME = "run.ipynb"
HTML_NAME = "run.html"
MANIFEST_NAME = "manifest.json"
# papermill's engine every run goes through (runbook_lib/evidence/engine.py, registered by papermill's entry point)
ENGINE_NAME = "runbook"
# where the runner writes the executed notebook, in the kernel's environment: a cell that links to files beside
# it (notebooks/class.ipynb) makes its links relative to that folder
OUTPUT_NOTEBOOK = "RUNBOOK_OUTPUT_NOTEBOOK"


def packaged_notebook() -> Path:
    """The runbook's notebook as the package ships it (runbook_lib/data/run.ipynb, a link to notebooks/run.ipynb)."""
    from importlib.resources import files

    return Path(str(files("runbook_lib") / "data" / "run.ipynb"))


@dataclass
class RunResult:
    run_dir: Path
    ok: bool
    manifest: dict


def utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def new_run_dir(archive_root: Path, label: str, started: _dt.datetime) -> Path:
    """A fresh folder for this run; a second run in the same second gets a -2, -3 ... suffix, never a clash."""
    base = archive_root / label
    base.mkdir(parents=True, exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 1000):
        candidate = base / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        from runbook_lib.fs.safe_write import sync_folder
        sync_folder(base)  # the run's folder itself survives a power cut, not only the files in it
        return candidate
    raise FileExistsError(f"too many runs in one second under {base}")


def host_facts(root: str) -> dict:
    """Who ran it and where. The target's os-release is read under the root (a node mounted at /host)."""
    def os_release(path: Path) -> str | None:
        try:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
        except OSError:
            return None
        return None

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # a container user with no passwd entry
        user = str(os.getuid())
    return {
        "hostname": socket.gethostname(),
        "node_name": os.environ.get("NODE_NAME"),  # set by the Kubernetes manifests (downward API)
        "system": platform.system(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "os": os_release(Path("/etc/os-release")),
        "target_os": os_release(Path(root) / "etc/os-release") if root else None,
        "python": platform.python_version(),
        "executable": sys.executable,
        "package_dir": str(Path(__file__).resolve().parents[1]),  # which installed copy of the runbook ran
        "user": user,
        "uid": os.getuid(),
    }


def records(nb) -> tuple[list[dict], dict | None]:
    """The step records in the order the notebook displayed them, and the last summary record (or None)."""
    from runbook_lib.engine.result import STEP_MIME, SUMMARY_MIME, read_record

    steps, summary = [], None
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) or []:
            data = out.get("data") or {}
            if STEP_MIME in data:
                steps.append(read_record(data[STEP_MIME]))
            if SUMMARY_MIME in data:
                summary = read_record(data[SUMMARY_MIME])
    return steps, summary


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def build_manifest(*, label: str, notebook: Path, parameters: dict, started: _dt.datetime,
                   ended: _dt.datetime, nb, error: dict | None, version: str, kind: str = "run") -> dict:
    steps, summary = records(nb) if nb is not None else ([], None)
    if summary is not None:
        steps = summary.get("steps") or steps
    # ok only when the notebook reached its summary, the summary says ok, and nothing raised
    ok = bool(summary and summary.get("ok")) and error is None
    files = []
    for rec in steps:
        for f in rec.get("files") or []:
            files.append({"step": rec.get("step"), "step_id": rec.get("id"), "path": f.get("path"),
                          "host_path": f.get("host_path"), "action": f.get("action"), "sha256": f.get("sha256")})
    failed = [r for r in steps if r.get("status") == "failed"]
    return {
        "schema": MANIFEST_SCHEMA,
        "kind": kind,  # "run" (runbook run: hosts) or "grade" (runbook grade: students)
        "label": label,
        "ok": ok,
        "result": "passed" if ok else "failed",
        "mode": (summary or {}).get("mode", parameters.get("mode")),
        "root": (summary or {}).get("root", parameters.get("root")),
        "profile": (summary or {}).get("profile"),  # lab or node, and why (runbook_lib/engine/profile.py)
        "layout": (summary or {}).get("layout"),  # a node's layout and why (engine/profile.py: layout_for)
        "runbook_version": version,
        "notebook_runbook_version": (summary or {}).get("runbook_version"),
        "notebook": str(notebook),
        "parameters": parameters,
        "host": host_facts(str(parameters.get("root") or "")),
        "started_at": started.isoformat(),
        "ended_at": ended.isoformat(),
        "duration_seconds": round((ended - started).total_seconds(), 3),
        "reached_summary": summary is not None,
        "error": error,
        "failed_step": _brief(failed[0]) if failed else None,
        "steps": [_brief(r) for r in steps],
        "files": files,
    }


def _brief(rec: dict) -> dict:
    """A step as the manifest keeps it; a failed step keeps its errors (file, line, what, the fix), and every step
    its warnings (a runtime whose cgroup driver is not the default runtime's), so that `runbook run`, a fleet's
    summary and Ansible can say what to fix or look at without opening the notebook."""
    out = {k: rec.get(k) for k in ("step", "id", "title", "status", "message", "backup")}
    found = [p for p in rec.get("problems") or [] if isinstance(p, dict)]
    kept = [p for p in found if p.get("severity") != ERROR or rec.get("status") == "failed"]
    if kept:
        out["problems"] = kept
    return out


def execute(notebook: Path, parameters: dict, archive_root: Path, label: str, version: str, *,
            run_dir: Path | None = None, kind: str = "run", **engine_kwargs) -> RunResult:
    """Run the notebook into a new run folder and archive it with its HTML copy and manifest.

    ``run_dir`` given (runbook grade: DIR/<label>/), the run goes there instead of a new timestamped folder."""
    import nbformat
    import papermill as pm

    from runbook_lib.fs.safe_write import sync_in_place

    engine_kwargs.setdefault("engine_name", ENGINE_NAME)  # the stock kernel on private IPC sockets
    os.environ["RUNBOOK_TERMINAL_SUMMARY"] = "0"  # its caller prints the run itself (notebook/views.py: to_terminal)
    started = utc_now()
    if run_dir is None:
        run_dir = new_run_dir(archive_root, label, started)
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
    out_nb = run_dir / NOTEBOOK_NAME
    error = None
    try:
        # the engine writes the notebook at most once a second while cells run, and whole at the end
        # (evidence/engine.py): a run killed outright leaves its notebook up to its last second
        pm.execute_notebook(str(notebook), str(out_nb), parameters=parameters,
                            progress_bar=False, log_output=False, report_mode=False, **engine_kwargs)
    except pm.PapermillExecutionError as exc:
        error = {"kind": "cell", "cell_index": exc.cell_index, "ename": exc.ename, "evalue": exc.evalue}
    except Exception as exc:  # noqa: BLE001 - a dead kernel or a missing kernelspec still leaves evidence
        error = {"kind": "papermill", "ename": type(exc).__name__, "evalue": str(exc)}
        from runbook_lib.evidence.stop_reason import explain_missing
        from runbook_lib.engine.limits import explain_dead
        error["evalue"] = explain_missing(exc) or explain_dead(exc, parameters) or error["evalue"]
    ended = utc_now()
    if out_nb.exists():
        sync_in_place(out_nb)  # papermill writes it in place, during the run too: flushed once it is done
    nb = nbformat.read(str(out_nb), as_version=4) if out_nb.exists() else None
    return keep(run_dir, nb, label=label, notebook=notebook, parameters=parameters, started=started, ended=ended,
                error=error, version=version, kind=kind)


def keep(run_dir: Path, nb, *, label: str, notebook: Path, parameters: dict, started: _dt.datetime,
         ended: _dt.datetime, error: dict | None, version: str, kind: str) -> RunResult:
    """The executed notebook (already in run_dir, or None when none was written) kept with its HTML copy and its
    manifest: every way of running a notebook (papermill here, runbook_lib/grading/runner.py) ends here."""
    from runbook_lib.evidence import html as notebook_html
    from runbook_lib.fs.safe_write import write_file

    manifest = build_manifest(label=label, notebook=notebook, parameters=parameters, started=started,
                              ended=ended, nb=nb, error=error, version=version, kind=kind)
    if nb is None:
        html_error = "no executed notebook"
    else:
        html_error = notebook_html.write(nb, run_dir / HTML_NAME, title=f"{label} {run_dir.name}")
    manifest["artifacts"] = {
        name: {"sha256": sha256_file(run_dir / name)} for name in (NOTEBOOK_NAME, HTML_NAME)
        if (run_dir / name).exists()
    }
    manifest["html_error"] = html_error
    # the manifest last, atomically: a run folder with one is a finished run (load_manifests)
    write_file(run_dir / MANIFEST_NAME, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return RunResult(run_dir, manifest["ok"], manifest)


def load_manifests(archive_root: Path) -> list[tuple[Path, dict]]:
    """Every DIR/<label>/<run>/manifest.json (runbook run) and DIR/<label>/manifest.json (runbook grade); an
    unreadable one is skipped with a note on stderr; a run folder left without one counts as an unfinished run."""
    found, unfinished = [], []
    paths = sorted(archive_root.glob(f"*/*/{MANIFEST_NAME}")) + sorted(archive_root.glob(f"*/{MANIFEST_NAME}"))
    for path in paths:
        try:
            man = json.loads(path.read_text(encoding="utf-8"))
            bad = shape_problem(man)
            if bad:
                raise ValueError(bilingual(bad))
            found.append((path.parent, man))
        except (OSError, ValueError) as exc:
            print(f"{bilingual(say('archive.manifest_skipped'))}: {path} ({exc})", file=sys.stderr)
            if path.parent.parent != archive_root:  # a run of `runbook run`: still that label's latest run
                unfinished.append(path.parent)
    unfinished += [nb.parent for nb in archive_root.glob(f"*/*/{NOTEBOOK_NAME}")
                   if not (nb.parent / MANIFEST_NAME).exists()]
    for run_dir in sorted(unfinished):
        found.append((run_dir, unfinished_manifest(run_dir, found)))
    return found


UNFINISHED = "unfinished"  # the error kind of a run folder without its manifest


def unfinished_manifest(run_dir: Path, found: list[tuple[Path, dict]]) -> dict:
    """A run folder with run.ipynb and no readable manifest.json: the run was killed (SIGKILL, the pod's OOM kill, a
    reboot), interrupted, or is still running. It is that label's latest run, and a failed one: never hidden
    behind the run before it. The root comes from the notebook's papermill parameters, the host from the
    label's other runs (this one recorded none)."""
    params: dict = {}
    try:
        nb = json.loads((run_dir / NOTEBOOK_NAME).read_text(encoding="utf-8"))
        params = dict(nb["metadata"]["papermill"]["parameters"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # cut off mid-write: the folder still tells the label and the time
    try:
        started = _dt.datetime.strptime(run_dir.name.split("-")[0], "%Y%m%dT%H%M%SZ")
        started = started.replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        started = _dt.datetime.fromtimestamp(run_dir.stat().st_mtime, _dt.timezone.utc)
    label = run_dir.parent.name
    before = next((m for d, m in reversed(found) if d.parent == run_dir.parent and m.get("host")), {})
    return {"schema": MANIFEST_SCHEMA, "kind": "run", "label": label, "ok": False, "result": "failed",
            "mode": params.get("mode"), "root": params.get("root") or before.get("root"), "parameters": params,
            "host": before.get("host"),
            "started_at": started.isoformat(), "reached_summary": False, "failed_step": None, "steps": [],
            "error": {"kind": UNFINISHED, "ename": "NoManifest", "evalue": str(run_dir)}}


# What a summary reads of a manifest, by type: anything else is a file edited or damaged, skipped like one that
# is not JSON at all (never a traceback half-way through the table).
_KINDS = {str: "word.type.string", list: "word.type.array", dict: "word.type.object"}  # catalog codes
_FIELDS = {"label": str, "started_at": str, "mode": str, "root": str, "steps": list, "host": dict,
           "parameters": dict, "failed_step": dict, "error": dict}
_STEP_FIELDS = {"title": dict, "message": dict}


def shape_problem(man) -> Msg | None:
    """Why a parsed manifest.json cannot be summarized, or None."""
    if not isinstance(man, dict):  # `[]`, `null`: JSON, but not a manifest
        return say("archive.manifest.not_an_object")
    steps = man.get("steps") if isinstance(man.get("steps"), list) else []
    for where, rec, fields in [("", man, _FIELDS)] + [(f"steps[{n}].", r, _STEP_FIELDS) for n, r in enumerate(steps)]:
        if not isinstance(rec, dict):
            return say("archive.manifest.item_not_an_object", item=where[:-1])
        for key, kind in fields.items():
            if rec.get(key) is not None and not isinstance(rec[key], kind):
                return say("archive.manifest.wrong_type", key=f"{where}{key}", kind=say(_KINDS[kind]))
    return None
