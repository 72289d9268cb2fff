"""The check cells and the verdict agree, through the user's own command (issue 38): notebooks/run.ipynb executed
over every fixture state in tests/fixtures (lab states and real-world nodes), crossed with the parameters that
change a rule (mode, default_runtime, layout, distro, and containerd_bin for step 9's cell).

A cell and its verdict disagree when one of the cell's assertions fails while the step's verdict found nothing:
the engine then adds an `expect.failed` finding of the cell's own (Expect.uncovered), which refuses the plan (an
apply run) or fails the step (a check run, or a check cell after the writes). So an executed notebook agrees when
no record it holds carries such a finding, and no step it shows as passed has a failed assertion (✗) above it.

Each state is run with the next parameter set in turn (the sets rotate over the states, so that every value of
every parameter meets lab states and nodes, and every set a node). A real-world node's tree is run twice, with
`distro` auto and containerd: its distribution's files are there, so the two choose different routes. On any
other root (a config laid at /etc/containerd) they choose the same route (containerd/distro/detect.py looks for a
distribution's paths), so it is run once.

Every state of the rotation is judged with the notebook's own code cells executed in this process, in order, as
the kernel executes them (`_run_cells`: the same `rb`, the same check cells, the same verdicts; a papermill run
costs a kernel's start and its imports, ten times the run itself). papermill runs a representative set of those
cases (THROUGH_PAPERMILL), which must show what the in-process run showed, step by step, and which covers every
value of every parameter in a lab and on a node, and every step in each outcome (passing, failing, blocked) the
rotation sees it in (`test_the_papermill_set_covers_...`, computed from the runs). `RUNBOOK_AGREE=all` runs every
state with every set through papermill.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import shutil
from pathlib import Path

import pytest

from helpers import TEST_DATA, put_course_fixture, run_notebook, step_records
from grading_helpers import lab_root
from student_kernel import code_cells

CONFIG = "etc/containerd/config.toml"
DISAGREE = {"expect.failed", "expect.failed.condition"}
PASSED = {"passed", "changed", "unchanged"}


def _lab_with(config: Path):
    def make(root: Path) -> None:
        put_course_fixture(root)
        (root / CONFIG).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(config, root / CONFIG)
    return make


def _node_tree(folder: Path):
    def make(root: Path) -> None:
        shutil.copytree(folder, root, symlinks=True, dirs_exist_ok=True)
    return make


def _states() -> dict[str, tuple[str, object]]:
    """name -> (world, how to lay the root out): every containerd config the fixtures hold, as a lab's or a node's."""
    states: dict[str, tuple[str, object]] = {
        "lab/fresh": ("lab", put_course_fixture),
        "lab/finished": ("lab", lambda root: shutil.copytree(lab_root(root.parent / "finished-src"), root,
                                                             symlinks=True, dirs_exist_ok=True)),
    }
    for sub in ("broken", "good", "containerd"):
        for config in sorted((TEST_DATA / sub).glob("*.toml")) + sorted((TEST_DATA / sub).glob("*.toml.base")):
            states[f"lab/{sub}/{config.name}"] = ("lab", _lab_with(config))
    for folder in sorted(p for p in (TEST_DATA / "realworld").iterdir() if p.is_dir()):
        states[f"node/realworld/{folder.name}"] = ("node", _node_tree(folder))
    for config in sorted((TEST_DATA / "distro").rglob("*.toml")) + sorted((TEST_DATA / "wild").glob("*.toml")):
        if config.name.endswith(".tmpl") or "template" in config.name:
            continue
        rel = config.relative_to(TEST_DATA)
        states[f"node/{rel}"] = ("node", _lab_with(config))
    states["node/wild/relative-glob"] = ("node", _node_tree_at(TEST_DATA / "wild" / "relative-glob", "etc/containerd"))
    return states


def _node_tree_at(folder: Path, under: str):
    def make(root: Path) -> None:
        shutil.copytree(folder, root / under, symlinks=True, dirs_exist_ok=True)
    return make


# mode x default_runtime x layout x distro: the rules each of them changes (auto is runc in a lab root)
PARAMETER_SETS = [dict(mode=m, default_runtime=d, layout=lay, distro=dist)
                  for m, d, lay, dist in itertools.product(("check", "apply", "remove"), ("runc", "keep"),
                                                           ("inplace", "dropin"), ("auto", "containerd"))]
STATES = _states()


def _sets(n: int, name: str) -> list[dict]:
    """State n's sets: mode, default_runtime and layout cycle every 12 states; a real-world tree takes both
    values of distro, any other root one, flipped every 12 states."""
    combo = 2 * (n % 12)
    if name.startswith("node/realworld/"):
        return [PARAMETER_SETS[combo], PARAMETER_SETS[combo + 1]]
    return [PARAMETER_SETS[combo + (n // 12) % 2]]


def _id(name: str, params: dict) -> str:
    return f"{name}-{'-'.join(params.values())}"


ROTATION = [(name, params) for n, name in enumerate(STATES) for params in _sets(n, name)]

# The cases of the rotation papermill runs by default: together they meet every value of every parameter in a lab
# and on a node, and every step in every outcome the rotation sees it in (the test below holds both, from the runs)
THROUGH_PAPERMILL = [
    "lab/fresh-check-runc-inplace-auto",                                 # nothing done: failed, blocked
    "lab/broken/duplicate-key.toml-apply-runc-dropin-auto",              # refused: its later steps blocked
    "lab/containerd/v1-no-version-line.toml-apply-keep-dropin-containerd",  # applied: every step changed, passed
    "lab/broken/runtimetype-typo.toml-remove-runc-inplace-auto",         # applied, then removed
    "node/realworld/talos-check-runc-inplace-auto",                     # every step failed
    "node/realworld/eks-al2023-gpu-apply-runc-inplace-auto",            # refused
    "node/realworld/bom-remove-keep-dropin-containerd",                 # a node's tree removed from, with its route
]


def _representative() -> list[tuple[str, dict]]:
    by_id = {_id(name, params): (name, params) for name, params in ROTATION}
    return [by_id[case] for case in THROUGH_PAPERMILL]


def _papermill_cases() -> list[tuple[str, dict]]:
    if os.environ.get("RUNBOOK_AGREE") == "all":  # the long run: every state with every set
        return [(name, params) for name in STATES for params in PARAMETER_SETS]
    return _representative()


def _containerd() -> str | None:
    """The containerd step 9 asks (its check cell asserts what containerd reads): Debian's 1.6, under root."""
    found = shutil.which("containerd")
    if found and os.geteuid() == 0 and shutil.which("unshare"):
        return found
    if os.environ.get("RUNBOOK_REQUIRE_REAL") == "1":
        pytest.fail("containerd (and root, unshare) is needed to judge step 9's check cell: scripts/install-system-deps.sh")
    return None


def _laid_out(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    STATES[name][1](root)
    return root


def _asked(params: dict) -> dict:
    binary = _containerd()
    return dict(params, **({"containerd_bin": binary} if binary is not None else {}))


CELLS = code_cells()


def _run_cells(root: Path, params: dict) -> tuple[dict, dict]:
    """notebooks/run.ipynb's own code cells executed in this process, in order, as the kernel executes them (the
    same `rb`, the same check cells and verdicts; `display` shows nothing): (each step's record, each check cell's
    assertions as the cell shows them), both by step id. The first cell that raises ends the run, as it ends
    papermill's; it must be the runbook's own stop (a refusal, a failed step) or a finding, never a crash."""
    from runbook_lib.findings.errors import RunbookError
    from runbook_lib.notebook.feedback import Feedback
    from runbook_lib.notebook.session import SESSION
    from runbook_lib.notebook.views import in_order

    ns: dict = {"display": lambda *_a, **_k: None}
    exec(CELLS["params"], ns)  # noqa: S102 - the notebook's own code
    ns.update(root=str(root), **params)
    shown: dict[str, str] = {}
    before, SESSION.run = SESSION.run, None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for name, code in CELLS.items():
                if name == "params":
                    continue
                ns.pop("expect", None)
                try:
                    exec(code, ns)  # noqa: S102
                except (Feedback, RunbookError):
                    break
                finally:
                    if name.endswith("?") and "expect" in ns:
                        shown[name[:-1]] = ns["expect"].text()
        run = SESSION.run
    finally:
        if SESSION.run is not None:
            SESSION.run.finish()
        SESSION.run = before
    return ({r.id: r.as_record() for r in in_order(run)} if run is not None else {}), shown


def _in_process(tmp_path: Path, name: str, params: dict) -> tuple[dict, dict]:
    """The state laid out (mode=remove: applied first), then the notebook's cells run in this process."""
    root = _laid_out(tmp_path, name)
    asked = _asked(params)
    if params["mode"] == "remove":
        _run_cells(root, {**asked, "mode": "apply"})  # a refused or failed apply: remove takes out what it recorded
    return _run_cells(root, asked)


def _executed(tmp_path: Path, name: str, params: dict):
    """The state laid out (mode=remove: applied first, in this process), then the notebook executed by papermill."""
    import nbformat
    import papermill
    root = _laid_out(tmp_path, name)
    asked = _asked(params)
    if params["mode"] == "remove":
        _run_cells(root, {**asked, "mode": "apply"})
    out = tmp_path / "out.ipynb"
    try:
        run_notebook(root, out, **asked)
    except papermill.PapermillExecutionError:
        pass  # a refusal or a failed step: what the cells and the verdicts said is in the executed notebook
    return nbformat.read(str(out), as_version=4)


def _check_outputs(nb) -> dict[str, str]:
    """Each check cell's text, by the step it names in `rb.expect("<id>")`."""
    import re
    out = {}
    for cell in nb.cells:
        m = re.search(r'rb\.expect\("([a-z_]+)"\)', cell.source) if cell.cell_type == "code" else None
        if m:
            out[m.group(1)] = "".join(o.get("text", "") + "".join((o.get("data") or {}).get("text/plain", ""))
                                      for o in cell.get("outputs", []))
    return out


def _disagreements(records: dict, shown: dict) -> list[tuple]:
    """Where a check cell and its step's verdict disagree: an `expect.failed` finding (an assertion failed where
    the verdict found nothing), or a step shown as passed under a failed assertion (✗)."""
    found = [(r["id"], p["code"], p["what"]["en"]) for r in records.values() for p in r["problems"]
             if p["code"] in DISAGREE]
    return found + [(r["id"], r["status"], shown.get(r["id"], "")) for r in records.values()
                    if r["status"] in PASSED and "\n  ✗ " in "\n" + shown.get(r["id"], "")]


def _shown(records: dict) -> list[tuple]:
    return [(r["id"], r["status"], [p["code"] for p in r["problems"]]) for r in records.values()]


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """Each case's in-process run, once per module: (records, check cells' text) by the case's id."""
    done: dict[str, tuple[dict, dict]] = {}

    def judge(name: str, params: dict) -> tuple[dict, dict]:
        case = _id(name, params)
        if case not in done:
            done[case] = _in_process(tmp_path_factory.mktemp("agree"), name, params)
        return done[case]
    return judge


@pytest.mark.parametrize("name,params", [pytest.param(n, p, id=_id(n, p)) for n, p in ROTATION])
def test_every_check_cell_agrees_with_its_verdict(judged, name, params):
    records, shown = judged(name, params)
    assert records, "the run holds no step record"
    assert _disagreements(records, shown) == []


@pytest.mark.slow
@pytest.mark.parametrize("name,params", [pytest.param(n, p, id=_id(n, p)) for n, p in _papermill_cases()])
def test_every_check_cell_agrees_with_its_verdict_through_papermill(tmp_path, judged, name, params):
    """Through the user's own command; and the notebook shows, step by step, what the in-process run showed
    (each step's status and its findings' codes), so that run judges the states papermill does not run."""
    nb = _executed(tmp_path, name, params)
    records = {r["id"]: r for r in step_records(nb).values()}
    assert records, "the executed notebook holds no step record"
    assert _disagreements(records, _check_outputs(nb)) == []
    assert _shown(records) == _shown(judged(name, params)[0])


def _outcome(status: str) -> str | None:
    return "passing" if status in PASSED else status if status in ("failed", "blocked") else None


def test_the_papermill_set_covers_every_parameter_value_and_every_steps_outcome(judged):
    """The cases papermill runs by default meet every value of every parameter (containerd_bin too, where this machine has
    one) in a lab state and on a node, and show every step in every outcome (passing, failing, blocked) the whole
    rotation shows it in: computed from the runs, so a fixture that changes an outcome is seen here."""
    cases = [(name, _asked(params)) for name, params in _representative()]
    for world in ("lab", "node"):
        met = {(k, v) for name, asked in cases if name.startswith(f"{world}/") for k, v in asked.items()}
        assert met >= {(k, v) for name, params in ROTATION for k, v in _asked(params).items()}, world

    def outcomes(run) -> set:
        return {(r["id"], _outcome(r["status"])) for name, params in run
                for r in judged(name, params)[0].values() if _outcome(r["status"])}
    seen = outcomes(ROTATION)
    assert {o for _, o in seen} == {"passing", "failed", "blocked"}
    assert outcomes(_representative()) >= seen, sorted(seen - outcomes(_representative()))


KEEP_NODES = ["dgx", "eks-al2023-gpu", "nvidia-ctk-default"]  # issue 38's three nodes: their default is nvidia


def _keeps_its_default(tmp_path: Path, name: str, run) -> None:
    """The node's default runtime already is nvidia, and `default_runtime keep` keeps it: apply passes, and check
    then passes on what it wrote; the config is as it was, byte for byte."""
    root = tmp_path / "root"
    _node_tree(TEST_DATA / "realworld" / name)(root)
    original = (root / CONFIG).read_bytes()
    for mode in ("apply", "check"):
        records, shown = run(root, tmp_path / f"{mode}.ipynb", mode=mode, default_runtime="keep")
        assert records["default"]["status"] in PASSED and records["runtime"]["status"] in PASSED, records["default"]
        assert (root / CONFIG).read_bytes() == original
        said = [line for line in shown["default"].splitlines() if "default_runtime_name" in line]
        assert said[0].startswith("  ✓ ") and "stays the node's own" in said[0] and "(this node: nvidia)" in said[0], said


def _through_papermill(root: Path, out: Path, **params) -> tuple[dict, dict]:
    nb = run_notebook(root, out, **params)
    return {r["id"]: r for r in step_records(nb).values()}, _check_outputs(nb)


@pytest.mark.slow
def test_a_node_whose_default_is_nvidia_passes_with_keep_through_papermill(tmp_path):
    _keeps_its_default(tmp_path, KEEP_NODES[0], _through_papermill)


@pytest.mark.parametrize("name", KEEP_NODES)
def test_every_node_whose_default_is_nvidia_passes_with_keep(tmp_path, name):
    _keeps_its_default(tmp_path, name, lambda root, _out, **params: _run_cells(root, params))


def test_the_states_hold_every_fixture_config():
    """No fixture config is left out of the crossing: a new one is judged here without a line of this file."""
    assert len([s for s in STATES if s.startswith("lab/")]) >= len(list((TEST_DATA / "broken").glob("*.toml"))) + 2
    assert {n.split("/")[-1] for n in STATES if n.startswith("node/realworld/")} == \
        {p.name for p in (TEST_DATA / "realworld").iterdir() if p.is_dir()}


def test_every_value_of_every_parameter_meets_a_lab_state_and_every_set_a_node():
    run = [(name.split("/")[0], params) for n, name in enumerate(STATES) for params in _sets(n, name)]
    for world in ("lab", "node"):
        met = {(k, v) for w, params in run if w == world for k, v in params.items()}
        assert met == {(k, v) for params in PARAMETER_SETS for k, v in params.items()}, world
    assert {PARAMETER_SETS.index(p) for w, p in run if w == "node"} == set(range(len(PARAMETER_SETS)))
