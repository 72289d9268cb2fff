"""Mistakes students make by hand in the RuntimeClass (a Pod's habits, kubectl's strict fields) and the lab's
text files, the new exercise kinds of `runbook lab-init --mistake`, and the notebook grading every step when a
folder stands where a file should be."""

from __future__ import annotations

import pytest

from grading_helpers import TOOLKIT, check, failed_steps, lab_root, tree, verdict
from mistake_helpers import RC, edit


@pytest.mark.parametrize("old, new, code, line, fix", [
    # the habit of a Pod: handler under spec: (Kubernetes: 'handler' is a required property)
    ("handler: nvidia", "spec:\n  handler: nvidia", "runtimeclass.handler_nested", 8, "handler: nvidia"),
    ("  name: nvidia\nhandler: nvidia", "  name: nvidia\n  handler: nvidia", "runtimeclass.handler_nested", 7,
     "handler: nvidia"),
    ("handler: nvidia", "handler:", "runtimeclass.field_missing", 7, "handler: nvidia"),
    ("apiVersion: node.k8s.io/v1\n", "", "runtimeclass.field_missing", None, "apiVersion: node.k8s.io/v1"),
    ("metadata:\n  name: nvidia", "metadata:\n  - name: nvidia", "runtimeclass.field_missing", 5, "name: nvidia"),
    ("  name: nvidia", "\tname: nvidia", "yaml.tab_indent", 6, "replace the tab at the start of line 6 with spaces"),
    ("handler: nvidia", "handler: nvidia\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\n",
     "yaml.several_documents", 8, "from the --- on line 8"),
    # kubectl apply's strict field validation refuses an unknown field (tests/real/test_real_runtimeclass.py)
    ("handler: nvidia", "handlers: nvidia", "runtimeclass.unknown_field.typo", 7, "handler: nvidia"),
    ("handler: nvidia", "Handler: nvidia", "runtimeclass.unknown_field.typo", 7, "handler: nvidia"),
    ("metadata:", "metdata:", "runtimeclass.unknown_field.typo", 5, "write that line as: metadata:"),
    ("handler: nvidia", "handler: nvidia\nruntimeHandler: nvidia", "runtimeclass.unknown_field", 8,
     "delete the runtimeHandler line"),
    ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia",
     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: gpu\nspec:\n  runtimeClassName: nvidia\n  containers: []",
     "runtimeclass.other_kind", 4, "kind: RuntimeClass"),
])
def test_runtimeclass_mistakes_get_their_own_verdict(tmp_path, old, new, code, line, fix):
    root = lab_root(tmp_path)
    edit(root, RC, old, new)
    before = tree(root)
    results = check(root)
    assert tree(root) == before
    assert 7 in failed_steps(results)
    p = verdict(results, 7, code)
    assert [q.code for q in results[7].problems] == [code]  # one mistake, one verdict: not also "not a runtime"
    assert (p.path, p.line) == (f"/{RC}", line)
    assert fix in p.fix.en
    assert "(없음 / missing)" not in p.what.en and "\\n" not in p.fix.en


def test_a_wrong_metadata_name_fix_is_one_readable_line(tmp_path):
    root = lab_root(tmp_path)
    edit(root, RC, "  name: nvidia", "  name: NVIDIA_GPU")
    p = verdict(check(root), 7, "runtimeclass.name")
    assert p.line == 6 and "\\n" not in p.fix.en + p.fix.ko and "name: nvidia" in p.fix.en


@pytest.mark.parametrize("name, step", [("report.txt", 8), ("default.txt", 4), ("cdi-keys.txt", 6)])
def test_a_folder_where_a_toolkit_file_should_be_is_that_steps_verdict(tmp_path, name, step):
    root = lab_root(tmp_path)  # `mkdir -p /root/toolkit/report.txt` instead of creating the file
    (root / TOOLKIT / name).unlink()
    (root / TOOLKIT / name).mkdir()
    results = check(root)  # raised out of the run before: its evidence read the folder unguarded
    assert step in failed_steps(results) and set(results) == set(range(1, 9))
    assert verdict(results, step, "write.failed").what.en.startswith("a folder stands where a file should be")


@pytest.mark.parametrize("written, code, en, ko", [
    (b"DEFAULT=runc \nWHY=runtimeclass\n", "file.differs", "line 1 DEFAULT=runc  (a space at the end) → DEFAULT=runc",
     "줄 끝에 공백"),
    (b"\xef\xbb\xbfDEFAULT=runc\nWHY=runtimeclass\n", "file.differs",
     "line 1 DEFAULT=runc (an invisible BOM (U+FEFF) at the start)", "BOM"),  # Windows Notepad's UTF-8
    # a tab right after the =: a blank around it, still named
    (b"DEFAULT=runc\nWHY=\truntimeclass\n", "file.spaces_around_equals", "(a tab character) → WHY=runtimeclass",
     "탭 문자"),
])
def test_an_invisible_difference_in_a_text_file_is_named(tmp_path, written, code, en, ko):
    root = lab_root(tmp_path)
    (root / TOOLKIT / "default.txt").write_bytes(written)
    p = verdict(check(root), 4, code)
    assert en in p.what.en and ko in p.what.ko and "\ufeff" not in p.what.en


@pytest.mark.parametrize("kind", ["python-true", "typographic-quotes", "options-typo", "handler-under-spec",
                                  "runc-binary-nvidia"])
def test_the_new_mistake_kinds_are_made_once_and_graded_by_their_code(tmp_path, kind):
    from runbook_lib.lab.init_root import add_mistakes
    from runbook_lib.lab.mistakes import BY_KIND
    m = BY_KIND[kind]
    root = tmp_path / kind
    add_mistakes(str(root), kind)
    before = tree(root)
    assert "already there" in add_mistakes(str(root), kind) and tree(root) == before
    results = check(root)
    failed = {r.id for r in results.values() if r.failed}
    assert m.step in failed
    assert m.code in [p.code for r in results.values() if r.id == m.step for p in r.problems]
    assert tree(root) == before


@pytest.mark.parametrize("rel, step", [(f"{TOOLKIT}/report.txt", 8), ("etc/containerd/config.toml", 1)])
def test_the_notebook_grades_every_step_with_a_folder_where_a_file_should_be(tmp_path, rel, step):
    # the notebook's own assertions read the file too (expect.file, rb.read): the run used to end there, and
    # `runbook grade` gave the student no step at all ("failed: notebook")
    from grading_helpers import errors, papermill, step_records
    root = lab_root(tmp_path)
    (root / rel).unlink()
    (root / rel).mkdir()
    before = tree(root)
    out = tmp_path / "out.ipynb"
    proc = papermill(root, out, "-f", "params/check.yaml")
    assert proc.returncode != 0 and [e["ename"] for e in errors(out)] == ["StepFailed"], proc.stderr[-2000:]
    records = step_records(out)
    assert set(range(1, 9)) <= set(records) and records[step]["status"] == "failed"
    assert "write.failed.folder_stands_where_file" in [p["code"] for p in records[step]["problems"]]
    assert tree(root) == before


def test_two_runtimeclass_mistakes_are_each_said_once(tmp_path):
    root = lab_root(tmp_path)
    edit(root, RC, "handler: nvidia", "spec:\n  handler: nvidia")
    edit(root, RC, "node.k8s.io/v1", "node.k8s.io/v1beta1")
    edit(root, RC, "  name: nvidia", "  name: gpu")
    problems = check(root)[7].problems
    assert sorted(p.code for p in problems) == ["runtimeclass.apiVersion.retired", "runtimeclass.handler_nested",
                                                "runtimeclass.name"]


def test_a_missing_toolkit_file_is_said_missing_even_after_a_failed_step(tmp_path):
    # report.txt never written, and SystemdCgroup = "true": "missing" now, with the lines it holds once step 3
    # is fixed (not "cannot be checked yet", and "missing" only at the next grading)
    from grading_helpers import good_with
    root = lab_root(tmp_path, good_with("SystemdCgroup = true\n\n    [plugins", 'SystemdCgroup = "true"\n\n    [plugins'))
    (root / TOOLKIT / "report.txt").unlink()
    p = verdict(check(root), 8, "file.missing")
    # the lines it holds once step 3 is fixed are the finding's value; the fix gives each line's rule (issue 51)
    assert "SYSTEMD_CGROUP=true" in p.values["expected"] and "HANDLER=nvidia" in p.values["expected"]
    assert "SYSTEMD_CGROUP=<" in p.fix.en and "HANDLER 줄은" in p.fix.ko and '"true"' not in p.fix.en + p.fix.ko


def test_parsed_txt_may_list_the_runtimes_in_the_order_tomllib_reads_them(tmp_path):
    # list(tomllib.load(f)[...]["runtimes"]) is ['runc', 'nvidia']: parsed, not typed; another order is not
    root = lab_root(tmp_path)
    parsed = root / TOOLKIT / "parsed.txt"
    parsed.write_text("VERSION=2\nRUNTIMES=runc,nvidia\n")
    assert 5 not in failed_steps(check(root))
    parsed.write_text("VERSION=2\nRUNTIMES=nvidia\n")
    assert verdict(check(root), 5, "file.differs").line == 2


def test_a_boolean_printed_by_python_is_named_as_such(tmp_path):
    root = lab_root(tmp_path)  # print(f"SYSTEMD_CGROUP={opts['SystemdCgroup']}") writes True
    report = root / TOOLKIT / "report.txt"
    report.write_text(report.read_text().replace("SYSTEMD_CGROUP=true", "SYSTEMD_CGROUP=True"))
    p = verdict(check(root), 8, "file.python_boolean")
    assert p.line == 4 and p.fix.en.startswith("write SYSTEMD_CGROUP=true (in Python, str(value).lower())")
