"""Step 1: the folders, and the base config copied only when there is none (a node's config is never replaced)."""

from __future__ import annotations

import posixpath
from importlib import resources

from runbook_lib.findings.errors import RunbookError
from runbook_lib.findings.problem import Problem
from runbook_lib.fs.plan import Plan
from runbook_lib.steps import found
from runbook_lib.steps.base import Step
from runbook_lib.findings.catalog import say
from runbook_lib.fs.bounded_read import names_in
from runbook_lib.k8s.names import closest

NUMBER, ID = 1, "prepare"
TITLE = say("title.prepare")
PACKAGED_BASE = "runbook_lib/data/config.toml.base"  # the base copied when the root holds no lab fixture


def folders(run) -> tuple[str, ...]:
    """The folders step 1 makes: containerd's (the distribution owns its own), and the lab's toolkit folder
    (a node gets no answer files: engine/run.py's answer_files)."""
    toolkit = (run.p.toolkit_dir,) if run.answer_files else ()
    if run.on_distro:
        return toolkit
    return (posixpath.dirname(run.p.config_path),) + toolkit


def base_config(run) -> tuple[bytes, str]:
    """The lab fixture under the root when it is there, else the copy shipped in the package."""
    source = run.read_bytes(run.p.base_config)
    if source is not None:
        return source, run.p.base_config
    return (resources.files("runbook_lib") / "data" / "config.toml.base").read_bytes(), PACKAGED_BASE


def plan(run) -> Plan:
    p = run.p
    dirs: list[str] = []
    for folder in folders(run):
        dirs += [d for d in run.missing_dirs(folder) if d not in dirs]
    current = run.read_bytes(p.config_path)
    if run.on_distro:
        out = Plan(say("prepare.s_own_generated_config", distro=run.route.distro, config_path=p.config_path),
                   dirs=dirs, subject=p.config_path)
    elif current is not None and current.strip():
        out = Plan(say("prepare.already_exists_kept_node", config_path=p.config_path),
                   dirs=dirs, subject=p.config_path)
    else:
        source, origin = base_config(run)
        out = Plan(say("prepare.copy", origin=origin, config_path=p.config_path),
                   writes=[run.plan_write(p.config_path, source, mode=0o644)], dirs=dirs, subject=p.config_path)
    if dirs:
        out.notes.append(say("prepare.folders_create", dirs=', '.join(dirs)))
    return out


def verdict(run) -> list[Problem]:
    problems = [_misnamed(run, folder, dirs=True) or Problem.of("prepare.folder_missing", folder, folder=folder,
                                                                                 folder_at=run.target.shell_path(folder))
                for folder in folders(run) if not run.is_dir(folder)]
    data = run.read_bytes(run.p.config_path)
    if run.on_distro and data is None:
        # the file containerd reads is the distribution's to generate (microk8s writes args/containerd.toml from
        # its template at its first start): until it exists, the check cell's "the config exists" cannot hold,
        # so the preflight refuses here, before any write, instead of step 1 writing and then failing its cell
        problems.append(Problem.of("distro.not_generated", run.p.config_path, distro=run.route.distro,
                                   config=run.p.config_path))
    elif not run.on_distro and (data is None or not data.strip()):
        problems.append((_dangling(run, run.p.config_path) if data is None else None) or
                        (_misnamed(run, run.p.config_path, dirs=False) if data is None else None) or
                        Problem.of("prepare.config_missing" if data is None else "prepare.config_empty",
                                   run.p.config_path, config=run.p.config_path, base=run.p.base_config,
                                   config_at=run.target.shell_path(run.p.config_path),
                                   base_at=run.target.shell_path(run.p.base_config)))
    return problems


def _dangling(run, lab_path: str) -> Problem | None:
    """A config that is a symbolic link to nothing under the root (/etc/containerd/config.toml -> /etc/shadow in a
    student's root): followed inside the root, as the node's containerd would; said as the link it is."""
    try:
        host, links = run.target.walk(lab_path)
    except (OSError, RunbookError):
        return None
    if not links:
        return None
    shown = ", ".join(f"{p} -> {t}" for p, t in links)
    return Problem.of("prepare.config_link_dangling", lab_path, config=lab_path, links=shown,
                      resolved=run.target.lab_path(host), base=run.p.base_config)


def _misnamed(run, lab_path: str, *, dirs: bool) -> Problem | None:
    """A missing folder or config whose name a neighbour nearly has (/root/tookit, config.tml): the mv."""
    parent, name = posixpath.split(lab_path.rstrip("/"))
    try:
        host = run.target.resolve(parent)
        listed = names_in(host, parent) if host.is_dir() else []  # a folder of too many names: no guess
        near = [n for n in listed if ((host / n).is_dir() if dirs else (host / n).is_file())]
    except (OSError, RunbookError):
        return None
    found = closest(name, [n for n in near if n != name], cutoff=0.8)  # its own name is no neighbour (a link)
    if found is None:
        return None
    other = posixpath.join(parent, found)
    return Problem.of("prepare.misnamed", lab_path, wanted=lab_path, other=other,
                      wanted_at=run.target.shell_path(lab_path), other_at=run.target.shell_path(other))



# The check cell (notebooks/run.ipynb): the files read back as a student would, and what must hold, stated with
# the values this run decided (rb.expected); the plan runs it on the planned state before the first write.
CHECK = """with rb.expect("prepare") as expect:
    if rb.answer_files:                    # the lab's answer files (a node keeps their facts in the evidence)
        expect.true(rb.is_dir(toolkit_dir), "expect.toolkit_dir_exists")
    expect.true((rb.read(rb.config_path) or "").strip(), "expect.config_not_empty")"""

STEP = Step(NUMBER, ID, TITLE, plan, verdict, check=CHECK, message=found.prepare)
