"""The check cells and the verdict agree, through the user's own command (issue 38): notebooks/run.ipynb executed
by papermill over every fixture state in tests/fixtures (lab states and real-world nodes), crossed with the
parameters that change a rule (mode, default_runtime, layout, distro, and containerd_bin for step 9's cell).

A cell and its verdict disagree when one of the cell's assertions fails while the step's verdict found nothing:
the engine then adds an `expect.failed` finding of the cell's own (Expect.uncovered), which refuses the plan (an
apply run) or fails the step (a check run, or a check cell after the writes). So an executed notebook agrees when
no record it holds carries such a finding, and no step it shows as passed has a failed assertion (✗) above it.

Each state is run with the next parameter set in turn (the sets rotate over the states, so that every value of
every parameter meets lab states and nodes, and every set a node); `RUNBOOK_AGREE=all` runs every state with
every set. A real-world node's tree is run twice, with `distro` auto and containerd: its distribution's files
are there, so the two choose different routes. On any other root (a config laid at /etc/containerd) they choose
the same route (containerd/distro/detect.py looks for a distribution's paths), so it is run once.
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest

from helpers import TEST_DATA, put_course_fixture, run_notebook, step_records
from grading_helpers import lab_root

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


def _cases():
    every = os.environ.get("RUNBOOK_AGREE") == "all"
    for n, name in enumerate(STATES):
        for params in PARAMETER_SETS if every else _sets(n, name):
            yield pytest.param(name, params, id=f"{name}-{'-'.join(params.values())}")


def _containerd() -> str | None:
    """The containerd step 9 asks (its check cell asserts what containerd reads): Debian's 1.6, under root."""
    found = shutil.which("containerd")
    if found and os.geteuid() == 0 and shutil.which("unshare"):
        return found
    if os.environ.get("RUNBOOK_REQUIRE_REAL") == "1":
        pytest.fail("containerd (and root, unshare) is needed to judge step 9's check cell: scripts/install-system-deps.sh")
    return None


def _executed(tmp_path: Path, name: str, params: dict):
    """The state laid out, (mode=remove: applied first, through papermill too), then the notebook executed."""
    import papermill
    world, make = STATES[name]
    root = tmp_path / "root"
    root.mkdir()
    make(root)
    asked = dict(params)
    binary = _containerd()
    if binary is not None:
        asked["containerd_bin"] = binary
    if params["mode"] == "remove":
        try:
            run_notebook(root, tmp_path / "apply.ipynb", **{**asked, "mode": "apply"})
        except papermill.PapermillExecutionError:
            pass  # a refused or failed apply: remove then takes out what it recorded, if anything
    out = tmp_path / "out.ipynb"
    try:
        run_notebook(root, out, **asked)
    except papermill.PapermillExecutionError:
        pass  # a refusal or a failed step: what the cells and the verdicts said is in the executed notebook
    import nbformat
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


@pytest.mark.slow
@pytest.mark.parametrize("name,params", list(_cases()))
def test_every_check_cell_agrees_with_its_verdict(tmp_path, name, params):
    nb = _executed(tmp_path, name, params)
    records = step_records(nb)
    assert records, "the executed notebook holds no step record"
    disagree = {(r["id"], p["code"], p["what"]["en"]) for r in records.values() for p in r["problems"]
                if p["code"] in DISAGREE}
    assert disagree == set(), disagree
    shown = _check_outputs(nb)
    for record in records.values():
        text = shown.get(record["id"], "")
        if record["status"] in PASSED:
            assert "\n  ✗ " not in "\n" + text, (record["id"], record["status"], text)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["dgx", "eks-al2023-gpu", "nvidia-ctk-default"])
def test_a_node_whose_default_is_nvidia_passes_with_keep_through_papermill(tmp_path, name):
    """Issue 38's three nodes: their default runtime already is nvidia, and `default_runtime keep` keeps it: apply
    passes, and check then passes on what it wrote; the config is as it was, byte for byte."""
    root = tmp_path / "root"
    _node_tree(TEST_DATA / "realworld" / name)(root)
    original = (root / CONFIG).read_bytes()
    for mode in ("apply", "check"):
        nb = run_notebook(root, tmp_path / f"{mode}.ipynb", mode=mode, default_runtime="keep")
        records = {r["id"]: r for r in step_records(nb).values()}
        assert records["default"]["status"] in PASSED and records["runtime"]["status"] in PASSED, records["default"]
        assert (root / CONFIG).read_bytes() == original
        said = [line for line in _check_outputs(nb)["default"].splitlines() if "default_runtime_name" in line]
        assert said[0].startswith("  ✓ ") and "stays the node's own" in said[0] and "(this node: nvidia)" in said[0], said


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
