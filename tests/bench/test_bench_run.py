"""bench/run.py's pure parts: the ratios and verdicts `make bench` prints, the mistake kinds it reads from
`runbook lab-init --list`, the `pass` floor notebook and the process tree it samples. Nothing here is timed."""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_run", REPO / "bench" / "run.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_a_ratio_is_the_median_of_the_rounds_ratios_with_the_ratio_of_medians_beside_it():
    num = [{"wall": 10.0, "cpu": 4.0}, {"wall": 30.0, "cpu": 6.0}, {"wall": 12.0, "cpu": 5.0}]
    den = [{"wall": 5.0, "cpu": 2.0}, {"wall": 10.0, "cpu": 2.0}, {"wall": 2.0, "cpu": 1.0}]
    assert bench.ratio(num, den) == {"median_per_round": 3.0, "of_medians": 12.0 / 5.0, "cpu_of_medians": 2.5}


def test_a_round_where_either_side_failed_is_left_out_and_none_left_is_no_figure():
    num = [{"wall": 4.0, "cpu": 1.0}, None, {"wall": 9.0, "cpu": 1.0}]
    den = [{"wall": 2.0, "cpu": 1.0}, {"wall": 1.0, "cpu": 1.0}, None]
    assert bench.ratio(num, den)["median_per_round"] == 2.0
    assert bench.ratio([None, None], den) is None


def test_the_node_figure_leaves_out_a_pair_a_kernel_shutdown_stall_hit_and_says_which_side_it_hit():
    run = lambda wall, cpu=1.7: {"wall": wall, "cpu": cpu}  # noqa: E731
    # pairs 1 and 2 clean (ratios 1.2 and 1.0), the floor of pair 3 and the plain run of pair 4 waited 2.5 s
    plain = [run(2.4), run(2.0), run(2.2), run(4.7), None]
    floor = [run(2.0), run(2.0), run(4.5), run(2.0), run(2.0)]
    node = bench.node_ratio(plain, floor)
    assert node["median_per_round"] == pytest.approx(1.1) and node["pairs_counted"] == 2 and node["pairs"] == 4
    assert node["stalled"] == {"plain": 1, "floor": 1}
    assert node["every_pair"] == pytest.approx(statistics.median([1.2, 1.0, 2.2 / 4.5, 4.7 / 2.0]))
    # a run slower by its CPU (a busier machine) is no stall: counted
    assert bench.node_ratio([run(3.0, 2.6)], [run(2.0)])["pairs_counted"] == 1
    # every pair stalled: the figure is every pair's median, not none
    assert bench.node_ratio([run(4.7)], [run(2.0)])["median_per_round"] == pytest.approx(4.7 / 2.0)
    assert bench.node_ratio([None], [run(2.0)]) is None


@pytest.mark.parametrize(("value", "goal", "sense", "met"), [
    (5.0, 5.0, "max", True), (5.01, 5.0, "max", False), (100.0, 100.0, "min", True), (99.9, 100.0, "min", False),
    (None, 1.0, "max", None)])
def test_a_figure_meets_its_goal_at_most_or_at_least(value, goal, sense, met):
    assert bench.judge(value, goal, sense) is met


def test_the_mistake_kinds_are_read_from_lab_inits_own_list():
    listing = subprocess.run([str(Path(sys.executable).parent / "runbook"), "lab-init", "--list"],
                             capture_output=True, text=True, check=True).stdout
    from runbook_lib.lab.mistakes import MISTAKES

    assert bench.mistake_kinds(listing) == [m.kind for m in MISTAKES]


def test_the_floor_notebook_keeps_every_cell_and_the_parameters_and_runs_nothing_else():
    text = (REPO / "notebooks" / "run.ipynb").read_text(encoding="utf-8")
    nb = json.loads(text)
    floor = bench.floor_notebook(nb)
    assert nb == json.loads(text)  # the notebook given is left as it was
    assert [c["cell_type"] for c in floor["cells"]] == [c["cell_type"] for c in nb["cells"]]
    assert floor["metadata"] == nb["metadata"]  # the same kernel
    for before, after in zip(nb["cells"], floor["cells"]):
        if before["cell_type"] != "code":
            assert after == before
        elif "parameters" in before["metadata"].get("tags", []):
            assert after["source"] == before["source"]
        else:
            assert (after["source"], after["outputs"]) == ("pass", [])


def test_the_process_tree_is_the_root_and_all_its_descendants():
    parents = {1: 0, 10: 1, 11: 10, 12: 11, 13: 10, 20: 1, 21: 20}
    assert bench.tree(parents, 10) == {10, 11, 12, 13}
    assert bench.tree(parents, 99) == {99}


def test_a_whole_measure_takes_every_scenario_each_round_and_reports_the_four_figures(monkeypatch, tmp_path, capsys):
    """measure() and print_report() end to end, the commands they time stood in for by fixed samples (what is
    timed is the real commands' business, not this test's): every scenario once a round and the node's pairs
    NODE_PAIRS times, and each figure from those samples."""
    took: list[str] = []

    def sample(name, wall, **extra):
        def fn(*args, **kw):
            took.append(name)
            return {"wall": wall, "cpu": wall / 2, "rc": 0, **extra}
        return fn

    monkeypatch.setattr(bench, "make_roots", lambda work, log: (work, work, ["a-mistake"]))
    monkeypatch.setattr(bench, "class_folder", lambda templates, kinds, folder, n: [folder / f"s{i}" for i in range(n)])
    monkeypatch.setattr(bench, "has_notebooks_option", lambda: True)
    monkeypatch.setattr(bench, "machine", lambda: {"cpu": "cpu", "nproc": 2, "python": "3.11", "versions": {}})
    monkeypatch.setattr(bench, "loop", sample("loop", 30.0))
    monkeypatch.setattr(bench, "pool", sample("pool", 16.0))

    def grade(roots, tmp, log, notebooks=False, sample_memory=False):
        took.append("grade-notebooks" if notebooks else "grade")
        res = {"wall": 8.0 if notebooks else 0.25 if len(roots) == 24 else 1.5, "cpu": 1.0, "rc": 0, "missing": []}
        return {**res, "pss_peak_mib": 60.0, "rss_peak_mib": 100.0} if sample_memory else res

    def node(notebook, tmp, log):
        took.append(notebook.name)
        return {"wall": 2.0 if notebook.name == "floor.ipynb" else 2.1, "cpu": 1.8, "rc": 0}

    monkeypatch.setattr(bench, "grade", grade)
    monkeypatch.setattr(bench, "node", node)
    args = bench.argparse.Namespace(course=240, students=24)
    report = bench.measure(args, 2, tmp_path, tmp_path / "log", 0.0)

    assert took.count("run.ipynb") == took.count("floor.ipynb") == 2 * bench.NODE_PAIRS
    assert took.count("loop") == took.count("pool") == took.count("grade-notebooks") == 2
    assert took.count("grade") == 2 * 2 + 1  # the course and the class each round, the course's memory once
    measured = {key: f["measured"] for key, f in report["figures"].items()}
    assert measured == pytest.approx({"course_wall": 1.5, "course_pss": 60.0, "class_speedup": 120.0,
                                      "notebooks_ratio": 0.5, "node_ratio": 1.05})
    assert [f["met"] for f in report["figures"].values()] == [True, True, True, True, True]
    report.update({"load_before": (0.1, 0.1, 0.1), "load_after": (0.2, 0.2, 0.2), "seconds": 1, "rounds": 2,
                   "course": 240, "students": 24})
    bench.print_report(report)
    out = capsys.readouterr().out
    assert "| 4. a node: plain papermill / the same notebook with every code cell `pass`, wall | 1.050 | ≤ 1.1 | yes |" in out
    assert f"figure 4 counts {2 * bench.NODE_PAIRS} of the node's {2 * bench.NODE_PAIRS} pairs" in out
