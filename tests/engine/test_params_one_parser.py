"""One parser for the notebook's parameters (issue 38): papermill's own -p and -f, `runbook run -p` and -f, and
the Python API (validate) accept and refuse the same values, with the same Korean and English words, for every
parameter in PARAMETERS.

Two real runs cover every parameter and every value: papermill's own command line, and `runbook run`, each
executing one small notebook. Its parameters cell is the runbook's own cell (the same lines, Parameter.cell_line)
and, for every parameter and every value below, a copy of that parameter's line named <parameter>__p<n> (for -p)
or <parameter>__f<n> (for -f), with the same type comment: every value goes through -p (or -f) to every
parameter's copy in one run. The notebook's other cell calls validate(**{parameter: value}) for each copy and
prints the verdicts; the test compares them with validate called here. A run costs seconds, hence one run of each.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_notebook

from helpers import NOTEBOOK
from kernel_ports import run_papermill
from runbook_lib.engine.params import PARAMETERS, validate
from runbook_lib.findings.errors import ParameterError

# Texts papermill's -p hands on as what they say (a text, True, False, None, a number written as Python writes
# it): the Python API given the text itself must judge it as the notebook judges what papermill made of it.
TEXTS = [
    "true", "false", "TRUE", "True", "False", "yes", "no", "on", "off", "1", "0", "-1", "600", "1.5", "600.0",
    "nan", "inf", "None", "none", "", " ", "abc", "NVIDIA", "nvidia-2", "nvidia_gpu", "42", "a b", 'say "hi"',
    "relative/path", "./x", "/abs/path", "/home/학생/lab", "/root/tool\nkit", "/etc/cdi/nvidia.json",
    "/etc/cdi/nvidia", "unix:///run/containerd/containerd.sock", "check", "remove", "dropin", "k3s", "keep",
    "sandbox", "node",
]
# Texts papermill's -p changes before anyone sees them ("01" becomes 1, "1e3" 1000.0, " 600" 600): the notebook
# judges what papermill hands it, exactly as the Python API judges that same value.
CHANGED_BY_PAPERMILL = ["01", "+5", " 600", "1_000", "1e3", "NaN"]
# A -f file's values, as a person writes them in YAML: YAML's own types (yes is true there, '600' text, ~ null).
YAML_TEXTS = ["true", "yes", "no", "on", "off", "True", "1", "0", "-1", "600", "'600'", "1.5", "~", "null", "",
              "abc", "relative/path", "/abs/path", "'yes'", "[a, b]", "{a: 1}", "2024-01-01", "check", "'off'"]

P_VALUES = TEXTS + CHANGED_BY_PAPERMILL


def verdict(name: str, value) -> dict:
    """What validate says of one parameter given alone: the value it keeps, or the finding and its words."""
    try:
        return {"accepted": getattr(validate(**{name: value}), name)}
    except ParameterError as exc:
        return {"refused": exc.code, "what": [exc.what.ko, exc.what.en], "fix": [exc.fix.ko, exc.fix.en]}


VERDICT_CELL = f'''# the verdicts
import json
from runbook_lib.engine.params import PARAMETERS, validate
from runbook_lib.findings.errors import ParameterError

{inspect.getsource(verdict)}
names = [f"{{p.name}}__p{{i}}" for p in PARAMETERS for i in range({len(P_VALUES)})]
names += [f"{{p.name}}__f{{i}}" for p in PARAMETERS for i in range({len(YAML_TEXTS)})]
print(json.dumps({{n: verdict(n.split("__")[0], globals()[n]) for n in names}}, ensure_ascii=False))
'''


def small_notebook(path: Path) -> Path:
    """The runbook's parameters cell, each parameter's line copied once per value, and the verdict cell."""
    lines = [p.cell_line() for p in PARAMETERS]
    for p in PARAMETERS:
        lines += [dataclasses.replace(p, name=f"{p.name}__p{i}").cell_line() for i in range(len(P_VALUES))]
        lines += [dataclasses.replace(p, name=f"{p.name}__f{i}").cell_line() for i in range(len(YAML_TEXTS))]
    nb = new_notebook(cells=[new_code_cell("\n".join(lines), metadata={"tags": ["parameters"]}),
                             new_code_cell(VERDICT_CELL)])
    nb.metadata = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["metadata"]  # the runbook's own kernel
    nbformat.write(nb, str(path))
    return path


def options() -> list[str]:
    """-p NAME VALUE for every parameter's copy and every value: the command line both programs are given."""
    out = []
    for p in PARAMETERS:
        for i, text in enumerate(P_VALUES):
            out += ["-p", f"{p.name}__p{i}", text]
    return out


def yaml_file(path: Path) -> Path:
    path.write_text("".join(f"{p.name}__f{i}: {text}\n" for p in PARAMETERS for i, text in enumerate(YAML_TEXTS)),
                    encoding="utf-8")
    return path


def verdicts_in(executed: Path) -> dict:
    nb = json.loads(executed.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("# the verdicts"))
    printed = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o["output_type"] == "stream")
    assert printed, f"the verdict cell printed nothing: {cell.get('outputs')}"
    return json.loads(printed)


@pytest.fixture(scope="module")
def through_the_command_lines(tmp_path_factory) -> dict[str, dict]:
    """The verdicts of one papermill run and one `runbook run` (in parallel), both on the same notebook, -f file
    and -p options."""
    tmp = tmp_path_factory.mktemp("one-parser")
    nb, params = small_notebook(tmp / "params.ipynb"), yaml_file(tmp / "params.yaml")
    (tmp / "root").mkdir()
    papermill = [sys.executable, "-m", "papermill", "--log-level", "ERROR", "--no-progress-bar", str(nb),
                 str(tmp / "papermill.ipynb"), "-f", str(params), *options()]
    runbook = [sys.executable, "-m", "runbook_lib.cli", "run", "--root", str(tmp / "root"), "--notebook", str(nb),
               "--archive", str(tmp / "archive"), "--label", "one", "-f", str(params), *options()]
    with ThreadPoolExecutor(2) as pool:  # papermill's TCP kernel under its lock; `runbook run`'s is private (IPC)
        done = list(pool.map(lambda run, cmd: run(cmd, capture_output=True, text=True, timeout=600),
                             [run_papermill, subprocess.run], [papermill, runbook]))
    for proc in done:
        assert "the verdicts" not in proc.stderr, proc.stderr  # the verdict cell itself did not fail
    assert done[0].returncode == 0, done[0].stderr
    runs = sorted((tmp / "archive" / "one").glob("*/run.ipynb"))
    assert len(runs) == 1, (done[1].returncode, done[1].stdout, done[1].stderr)
    return {"papermill": verdicts_in(tmp / "papermill.ipynb"), "runbook run": verdicts_in(runs[0])}


def _disagreements(seen: dict[str, dict], key: str, expected: dict) -> list:
    return [(way, key, said[key], expected) for way, said in seen.items() if said[key] != expected]


def test_papermill_runbook_run_and_validate_judge_every_text_of_every_parameter_alike(through_the_command_lines):
    """-p: the notebook's verdict through papermill's -p and through `runbook run -p` is the Python API's verdict
    on the text itself: the same value kept, or the same finding in the same Korean and English words."""
    wrong = []
    for p in PARAMETERS:
        for i, text in enumerate(TEXTS):
            wrong += _disagreements(through_the_command_lines, f"{p.name}__p{i}", verdict(p.name, text))
    assert not wrong, f"{len(wrong)} disagreements; the first: {wrong[:5]}"


def test_papermill_and_runbook_run_hand_the_notebook_the_value_papermill_reads(through_the_command_lines):
    """A text papermill's -p changes ("01" is 1, "1e3" is 1000.0) reaches the notebook changed the same way through
    `runbook run`, and is judged as the Python API judges the value papermill made of it."""
    from runbook_lib.cli.args import as_papermill_reads  # held here to what the real papermill command hands on

    wrong = []
    for p in PARAMETERS:
        for i, text in enumerate(CHANGED_BY_PAPERMILL, start=len(TEXTS)):
            wrong += _disagreements(through_the_command_lines, f"{p.name}__p{i}",
                                    verdict(p.name, as_papermill_reads(text)))
    assert not wrong, f"{len(wrong)} disagreements; the first: {wrong[:5]}"


def test_papermill_and_runbook_run_read_a_yaml_parameters_file_alike(through_the_command_lines):
    """-f: YAML's types (yes is true, '600' text, a list a list) are judged alike by both programs and by the
    Python API given what the file says."""
    from papermill.iorw import NoDatesSafeLoader  # the loader of papermill's own -f: a date stays its text

    wrong = []
    for p in PARAMETERS:
        for i, text in enumerate(YAML_TEXTS):
            value = yaml.load(f"v: {text}", Loader=NoDatesSafeLoader)["v"]
            wrong += _disagreements(through_the_command_lines, f"{p.name}__f{i}", verdict(p.name, value))
    assert not wrong, f"{len(wrong)} disagreements; the first: {wrong[:5]}"


def test_the_values_cover_every_kind_of_verdict():
    """The texts above are no easy set: each parameter accepts some and refuses others, every finding a parameter
    alone can raise is among the refusals, and the boolean spellings decided once are as documented."""
    for p in PARAMETERS:  # smoke_image takes any text: only YAML's list refuses it
        said = [verdict(p.name, v) for v in TEXTS + [yaml.safe_load(f"v: {text}")["v"] for text in YAML_TEXTS]]
        assert any("accepted" in s for s in said) and any("refused" in s for s in said), p.name
    codes = {verdict(p.name, text).get("refused") for p in PARAMETERS for text in TEXTS}
    assert codes - {None} == {"parameter.not_boolean", "parameter.not_boolean_or_auto", "parameter.not_positive_int",
                              "parameter.not_absolute",
                              "parameter.forbidden_character", "parameter.unknown_choice", "parameter.runtime_name",
                              "parameter.cdi_spec_extension", "parameter.empty"}
    assert verdict("toolkit_dir", ["a", "b"])["refused"] == "parameter.not_string"  # from YAML only: [a, b]
    for text, value in (("true", True), ("TRUE", True), ("True", True), ("false", False), ("False", False)):
        assert verdict("systemd_cgroup", text) == {"accepted": value}
    assert verdict("systemd_cgroup", "auto") == {"accepted": "auto"}  # decided by the run (engine/profile.py)
    for text in ("yes", "no", "on", "off", "1", "0", "None", ""):
        assert verdict("systemd_cgroup", text)["refused"] == "parameter.not_boolean_or_auto", text


def test_validate_judges_a_text_as_it_judges_papermills_reading_of_it():
    """In-process, for every parameter: validate("600") is validate(600), validate("True") is validate(True), and
    so on for every text papermill's -p hands on as what it says (the slow tests above hold this reading to the real
    papermill command, through its public command line only)."""
    from runbook_lib.cli.args import as_papermill_reads

    assert [as_papermill_reads(t) for t in ("True", "None", "01", "1e3", "0x10", " 7")] == [True, None, 1, 1000.0,
                                                                                          "0x10", 7]
    wrong = [(p.name, text) for p in PARAMETERS for text in TEXTS
             if verdict(p.name, text) != verdict(p.name, as_papermill_reads(text))]
    assert not wrong, f"{len(wrong)} disagreements; the first: {wrong[:5]}"


@pytest.mark.parametrize("name, text", [("systemd_cgroup", "yes"), ("time_limit", "-1"), ("runtime_name", "NVIDIA"),
                                        ("layout", "1"), ("cdi_spec", "/etc/cdi/nvidia")])
def test_runbook_check_refuses_a_parameter_in_validates_words(tmp_path, capsys, name, text):
    """`runbook check -p` reads its values as papermill and `runbook run` do, and says validate's words."""
    from runbook_lib.cli.main import main

    said = verdict(name, text)
    assert main(["check", "--step", "1", str(tmp_path), "-p", name, text]) == 2
    err = capsys.readouterr().err
    for line in said["what"] + said["fix"]:
        assert line in err, (line, err)


def test_runbook_check_accepts_what_validate_accepts(tmp_path, capsys):
    from runbook_lib.cli.main import main

    assert verdict("time_limit", "600") == {"accepted": 600}
    code = main(["check", "--step", "1", str(tmp_path), "-p", "time_limit", "600", "-p", "systemd_cgroup", "true"])
    assert code in (0, 1), capsys.readouterr().err  # the step's own verdict on an empty root, not a refusal
