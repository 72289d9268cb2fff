"""What a person reads in the terminal of a plain `papermill notebooks/run.ipynb out.ipynb -p root DIR` (issue 51):
the run's first line names its profile and why (a node's layout under its own label, never as a second
"profile"); a refusal's reason is printed before papermill's traceback; no sentence is said twice; every fix
that tells a person to run a command names the path under the root, as they would paste it (`mkdir -p
/tmp/lab/etc/containerd`, never the host's /etc/containerd); a passed step says what it found, never what the
runbook did.

Real parts only: roots made by `runbook lab-init` (with `--mistake` for a refusal and a failure) and a node root
from containerd 2.3's own default config with the node's CDI spec in /var/run/cdi, each run by papermill's own
command in a process of its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from helpers import NOTEBOOK, TEST_DATA
from kernel_ports import run_papermill

CONTAINERD_2 = TEST_DATA / "distro" / "containerd-2.3-config-v4.toml"
COMMAND = re.compile(r"\b(?:mkdir -p|cp|mv|rm|sed -i '[^']*')\s+(/\S+)(?:\s+(/\S+))?")


def lab_init(root: Path, *args: str) -> Path:
    """`runbook lab-init [--mistake KIND] ROOT`, in process (what the command runs: the setup of a root, not the
    command a test is about)."""
    from runbook_lib.lab.init_root import add_mistakes, lab_init as init

    if args:
        assert args[0] == "--mistake" and len(args) == 2, args
        add_mistakes(str(root), args[1])
    else:
        init(str(root))
    return root


def node_root(root: Path) -> Path:
    """containerd 2.x's default config (its imports read conf.d) and the node's CDI spec where the toolkit's
    nvidia-cdi-refresh writes it."""
    import importlib.util

    where = Path(__file__).parents[1] / "steps" / "test_default_runtime.py"  # the node tests' own spec
    spec = importlib.util.spec_from_file_location("node_spec_of_test_default_runtime", where)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    NODE_SPEC = module.NODE_SPEC
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(CONTAINERD_2.read_bytes())
    (root / "var/run/cdi").mkdir(parents=True)
    (root / "var/run/cdi/nvidia.yaml").write_text(NODE_SPEC)
    return root


def papermill(root: Path, out: Path, *params: str, merged: bool = False) -> subprocess.CompletedProcess:
    """The user's own command; ``merged``: stdout and stderr in one pipe, as a terminal shows them."""
    argv = [sys.executable, "-m", "papermill", "--no-progress-bar", str(NOTEBOOK), str(out), "-p", "root", str(root),
            *params]
    return run_papermill(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                         text=True, timeout=600, env={**os.environ, "RUNBOOK_TERMINAL_SUMMARY": "1"})


def sentences(text: str) -> list[str]:
    """The sentences of the terminal's text: each line's Korean and English halves, cut after each full stop."""
    out = []
    for line in text.splitlines():
        for part in re.split(r"(?<=[.;])\s+|\s/\s", line):
            part = part.strip(" -–✓✗~=…↻:")
            if len(part) >= 25:  # a label or a path alone is no sentence
                out.append(part)
    return out


def repeated(text: str) -> list[str]:
    return [s for s, n in Counter(sentences(text)).items() if n > 1]


def fix_paths(text: str) -> list[str]:
    """Every path a fix's command names (`mkdir -p P`, `cp A B`, `mv A B`, `rm P`, `sed -i '...' P`)."""
    paths = []
    for line in text.splitlines():
        said = line.strip()
        if said.startswith(("fix:", "고치기:")):
            for match in COMMAND.finditer(said):
                paths += [p for p in match.groups() if p]
    return paths


def test_a_lab_runs_first_line_is_its_profile_and_a_pass_says_what_it_found(tmp_path):
    root = lab_init(tmp_path / "lab")
    proc = papermill(root, tmp_path / "apply.ipynb")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("프로필 / profile: lab: "), lines[:2]
    assert f"lab: root is a lab root, not / ({root})" in lines[0], lines[0]
    assert repeated(proc.stdout) == [], repeated(proc.stdout)
    # a pass says the file as it was read back, never the runbook's own action or its plan
    for words in ("the options are written by step 2", "apply mode would", "RuntimeClass nvidia 를 씁니다", "copy /opt",
                  "write a minimal CDI spec"):
        assert words not in proc.stdout, words
    assert "runtimeclass.yaml: RuntimeClass nvidia, handler nvidia" in proc.stdout, proc.stdout
    assert 'SystemdCgroup = true' in next(line for line in lines if line.split()[1:2] == ["3"]), proc.stdout

    check = papermill(root, tmp_path / "check.ipynb", "-p", "mode", "check")
    assert check.returncode == 0, check.stdout + check.stderr[-3000:]
    assert check.stdout.splitlines()[0] == lines[0]
    assert repeated(check.stdout) == []


def test_the_terminals_lines_never_reach_the_notebook_even_while_its_kernel_lives_on(tmp_path):
    """ipykernel makes the kernel's fd 1 a pipe whose bytes become a cell's stdout (and are echoed to the
    terminal): lines written there reached the notebook as a second summary, in pieces, whenever the kernel
    lived on a moment after the last cell (JupyterLab's kernel does; a plain run's, as its reader happened).
    The notebook with one more cell that waits, so that whatever went into that pipe reaches the notebook."""
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(0.5)"))
    waits = tmp_path / "run-then-wait.ipynb"
    nbformat.write(nb, waits)
    root = lab_init(tmp_path / "lab")
    argv = [sys.executable, "-m", "papermill", "--no-progress-bar", str(waits), str(tmp_path / "out.ipynb"),
            "-p", "root", str(root)]
    proc = run_papermill(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600,
                         env={**os.environ, "RUNBOOK_TERMINAL_SUMMARY": "1"})  # a user's kernel (run_papermill)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert proc.stdout.startswith("프로필 / profile: lab: "), proc.stdout[:300]  # said on the terminal
    streams = [o for c in nbformat.read(tmp_path / "out.ipynb", as_version=4).cells for o in c.get("outputs", [])
               if o["output_type"] == "stream"]
    assert streams == [], streams


def test_a_refusals_reason_comes_before_the_traceback_and_is_said_once(tmp_path):
    root = lab_init(tmp_path / "lab", "--mistake", "toml-syntax-error")
    config = (root / "etc/containerd/config.toml").read_bytes()
    proc = papermill(root, tmp_path / "out.ipynb", merged=True)
    assert proc.returncode != 0
    said = proc.stdout
    reason = said.index("TOML syntax error (line 34, column 60)")
    assert "Traceback" in said and reason < said.index("Traceback"), said[:3000]
    assert said.index("The run refused: nothing was written") < reason
    assert said.index("fix: write this line instead") < said.index("Traceback")
    assert (root / "etc/containerd/config.toml").read_bytes() == config

    alone = papermill(root, tmp_path / "again.ipynb")  # stdout alone: the profile first, nothing said twice
    first = alone.stdout.splitlines()[0]
    assert first.startswith("프로필 / profile: lab: ") and "lab root" in first, alone.stdout
    assert repeated(alone.stdout) == [], repeated(alone.stdout)
    assert "Nothing was written. Nothing was written." not in alone.stdout + alone.stderr
    assert alone.stdout.count("not run: another step refused") == 1, alone.stdout  # the steps that say it: one line


@pytest.mark.parametrize("mistake", [None, "handler-mismatch"])
def test_a_failed_checks_fixes_name_the_paths_under_the_root(tmp_path, mistake):
    """A student's root before step 1 (the folders and the config are theirs to make) and one with a mistake:
    every command a fix gives names the paths under the root, so pasted as root it writes the lab, never the
    host's /etc/containerd."""
    root = lab_init(tmp_path / "lab", *(("--mistake", mistake) if mistake else ()))
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "mode", "check")
    assert proc.returncode != 0
    assert proc.stdout.splitlines()[0].startswith("프로필 / profile: lab: "), proc.stdout
    assert repeated(proc.stdout) == [], repeated(proc.stdout)
    paths = fix_paths(proc.stdout + proc.stderr)
    if mistake is None:
        assert f"{root}/etc/containerd" in paths and f"{root}/root/toolkit" in paths, paths
        assert f"{root}/etc/containerd/config.toml" in paths, paths
    assert all(p.startswith(f"{root}/") for p in paths), paths


def test_a_nodes_first_line_is_its_profile_and_its_layout_is_labelled_as_the_layout(tmp_path):
    root = node_root(tmp_path / "node")
    for mode in ("check", "apply"):
        proc = papermill(root, tmp_path / f"{mode}.ipynb", "-p", "profile", "node", "-p", "mode", mode)
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("프로필 / profile: node: profile=node"), proc.stdout + proc.stderr[-3000:]
        assert lines[1].startswith("배치 / layout: dropin: "), lines[:3]
        assert sum(line.startswith("프로필 / profile") for line in lines) == 1, lines
        assert repeated(proc.stdout) == [], repeated(proc.stdout)
        assert all(p.startswith(f"{root}/") for p in fix_paths(proc.stdout + proc.stderr))


def test_a_refused_parameters_reason_comes_before_the_traceback(tmp_path):
    """A parameter refused by the validation cell, before any profile can be decided: its reason and fix are the
    terminal's first words, papermill's traceback after them, and nothing is written."""
    root = lab_init(tmp_path / "lab")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    proc = papermill(root, tmp_path / "out.ipynb", "-p", "mode", "bogus", merged=True)
    assert proc.returncode != 0
    said = proc.stdout
    reason = said.index('unknown mode: "bogus"; valid values: apply, check, remove')
    assert reason < said.index("fix: pass e.g. -p mode apply.") < said.index("Traceback"), said[:3000]
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_make_runs_first_line_is_the_profile_and_its_reason_refers_to_the_step_above(tmp_path):
    """`make run`'s command (the runner with --show): the profile first, a node's layout under its own label, and
    a refusal's finding said once, under its step, the reason at the end naming that step instead."""
    node = node_root(tmp_path / "node")
    def argv(out: str, *params: str) -> list[str]:
        return [sys.executable, "-m", "runbook_lib.runner", "--show", "--log-level", "WARNING", "--no-progress-bar",
                str(NOTEBOOK), str(tmp_path / out), *params]

    proc = subprocess.run(argv("node.ipynb", "-p", "root", str(node), "-p", "profile", "node"), capture_output=True,
                          text=True, timeout=600)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("프로필 / profile: node: ") and lines[1].startswith("배치 / layout: dropin: "), proc.stdout

    lab = lab_init(tmp_path / "lab", "--mistake", "toml-syntax-error")
    proc = subprocess.run(argv("lab.ipynb", "-p", "root", str(lab)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("프로필 / profile: lab: "), proc.stdout
    assert proc.stdout.count("TOML syntax error (line 34, column 60)") == 1, proc.stdout
    assert "as said under step 2 above" in proc.stdout and "Traceback" not in proc.stdout
    assert repeated(proc.stdout) == [], repeated(proc.stdout)


def test_the_interrupt_jupyter_client_sends_a_kernel_it_shuts_down_never_reaches_the_terminal(tmp_path):
    """jupyter_client interrupts every kernel it shuts down; when that SIGINT finds ipykernel inside a request's
    handler (under load, at the end of a failed run), ipykernel logged "KeyboardInterrupt caught in kernel." on the
    terminal of `make run`, in English only, though nobody had pressed Ctrl-C. From nb.start on, the kernel's
    logger drops that one line, and its other errors still reach the terminal."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    lab = lab_init(tmp_path / "lab")
    nb = new_notebook(cells=[
        new_code_cell(f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(lab)!r}, mode='check')"),
        new_code_cell("log = get_ipython().kernel.log\n"
                      "log.error('KeyboardInterrupt caught in kernel.')\n"
                      "log.error('another error of the kernel')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, str(path))
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.runner", "--log-level", "WARNING", "--no-progress-bar",
                           str(path), str(tmp_path / "out.ipynb")], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout
    assert "another error of the kernel" in proc.stdout
    assert "KeyboardInterrupt" not in proc.stdout, proc.stdout
