"""Regenerates tests/fleet/notebooks/standin.ipynb (run from the repo root): emits the same records as the real notebook (each its JSON text, as engine/result.py: record_text stores it), nothing else."""
import nbformat
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell

params = '''root: str = "/tmp/standin-root"  # 대상 root / target root
mode: str = "apply"  # apply 또는 check / apply or check
runtime_name: str = "nvidia"  # 런타임 이름 / runtime name
fail_step: int = 0  # 실패시킬 단계 (0 없음) / the step to fail (0 none)
'''
helpers = '''import hashlib, json, os, pathlib
from IPython.display import display
RECORDS = []
def record(step, sid, status, files=(), msg_en="ok", msg_ko="정상"):
    rec = {"step": step, "id": sid, "title": {"ko": sid + " 단계", "en": sid + " step"}, "status": status,
           "message": {"ko": msg_ko, "en": msg_en}, "files": list(files), "diff": None, "backup": None}
    RECORDS.append(rec)
    display({"application/vnd.runbook.step+json": json.dumps(rec, ensure_ascii=False), "text/plain": f"{step} {sid} {status}"}, raw=True)
    return rec
def summary():
    ok = all(r["status"] != "failed" for r in RECORDS)
    s = {"ok": ok, "mode": mode, "root": root, "runbook_version": "standin", "steps": RECORDS}
    display({"application/vnd.runbook.summary+json": json.dumps(s, ensure_ascii=False), "text/plain": "ok" if ok else "failed"}, raw=True)
    return ok
def step(n, sid, files=()):
    if fail_step == n:
        record(n, sid, "failed", files, msg_en=f"{sid} broke on purpose", msg_ko=f"{sid} 단계를 일부러 실패시켰습니다")
        if mode == "apply":
            summary()
            raise RuntimeError(f"step {n} failed")
    else:
        record(n, sid, "changed" if mode == "apply" else "passed", files)
'''
validate = 'record("0", "validate", "passed" if os.path.isdir(root) else "failed")\nassert os.path.isdir(root), root'
prepare = '''p = pathlib.Path(root, "etc/containerd/config.toml")
if mode == "apply":
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("version = 2\\n")
data = p.read_bytes() if p.exists() else None
step(1, "prepare", [{"path": "/etc/containerd/config.toml", "host_path": str(p), "action": "written",
                     "sha256": hashlib.sha256(data).hexdigest() if data is not None else None}])'''
nb = new_notebook(cells=[
    new_markdown_cell("# 대역 노트북 / stand-in notebook"),
    new_code_cell(params, metadata={"tags": ["parameters"]}),
    new_code_cell(helpers), new_code_cell(validate), new_code_cell(prepare),
    new_code_cell('step(2, "runtime")'), new_code_cell('step(8, "report")'),
    new_code_cell('assert summary(), "a step failed"'),
])
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb.metadata["language_info"] = {"name": "python"}
nbformat.write(nb, "tests/fleet/notebooks/standin.ipynb")
