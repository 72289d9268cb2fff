"""Step 9 (ask containerd) on a lab root without `containerd_bin`: skipped, with the reason, in both modes."""

from helpers import run_notebook, step_records, tree_state


def test_notebook_without_containerd_bin_skips_step_9_and_says_why(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    nb = run_notebook(root, tmp_path / "o.ipynb")
    step = step_records(nb)[9]
    assert step["status"] == "skipped"
    for lang in ("ko", "en"):
        assert "containerd_bin" in step["message"][lang] and str(root) in step["message"][lang]
    assert "skipped" in step["message"]["en"] and "건너뜀" in step["message"]["ko"]
    assert step["problems"] == [] and step["evidence"] == {}
    assert all(step_records(nb)[n]["status"] != "failed" for n in range(1, 9))


def test_check_mode_keeps_it_skipped_not_passed(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    run_notebook(root, tmp_path / "apply.ipynb")
    before = tree_state(root)
    nb = run_notebook(root, tmp_path / "check.ipynb", mode="check")
    assert step_records(nb)[9]["status"] == "skipped"  # a check that did not run must not read as passed
    assert tree_state(root) == before
