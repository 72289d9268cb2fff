"""Our check mode and the real containerd agree on every broken state in tests/fixtures/broken/.

For each fixture, a temp root holds it as /etc/containerd/config.toml; the runbook's check mode evaluates
steps 1-8 (our own parsers and diagnoses), and containerd 1.6 reads the same file (`config dump`). Where
containerd rejects the file, our verdict says it is rejected, at the line containerd names; where containerd
drops a table or key, our verdict says it is dropped or ignored; where it keeps a string, our verdict says
string; where it keeps a value that is wrong for the runbook, our verdict names that line. Step 9, which asks
containerd itself, fails on every one of them and passes on the good config.

The assertions are on stable facts (the problem's file and line, key words), not on whole sentences: the
diagnosis messages are being improved independently.
"""
import re
import shutil
from pathlib import Path

import pytest

from paths import BROKEN, GOOD_CONFIG
from runbook_lib.containerd.verify import ContainerdRejected, containerd_reading
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

pytestmark = pytest.mark.real
CONFIG = "/etc/containerd/config.toml"
CRI = "io.containerd.grpc.v1.cri"

REJECTS, DROPS, STRING, KEEPS = "rejects", "drops", "string", "keeps"
# fixture -> (what containerd 1.6 does, the line our verdict must name, what containerd's reading must show)
CASES = {
    "toml-syntax-error": (REJECTS, 34, None),
    "duplicate-key": (REJECTS, 32, None),
    "unquoted-dotted-header": (REJECTS, 30, None),
    "v1-path-in-v2-file": (REJECTS, 30, None),
    "misplaced-runtimes-without-containerd": (DROPS, 30, lambda got: got["runtime"] is None),
    "no-version-line-v2-tables": (DROPS, 1, lambda got: got["runtime"] is None and got["runtime_names"] == ["runc"]),
    "runtimetype-typo": (DROPS, 31, lambda got: "runtimetype" not in got["runtime"] and got["runtime"]["runtime_type"] == ""),
    # 1.6 knows no version 3: it drops every version-3 table and reads only the stray version-2 one
    "v2-path-in-v3-file": (DROPS, 37, lambda got: got["runtime_names"] == ["nvidia"] and got["default_runtime_name"] == "runc"),
    "systemdcgroup-string": (STRING, 35, lambda got: got["runtime"]["options"]["SystemdCgroup"] == "true"),
    "default-is-nvidia": (KEEPS, 20, lambda got: got["default_runtime_name"] == "nvidia"),
    "binaryname-relative": (KEEPS, 34, lambda got: got["runtime"]["options"]["BinaryName"] == "nvidia-container-runtime"),
    "systemdcgroup-mismatch": (KEEPS, 35, lambda got: got["runtime"]["options"]["SystemdCgroup"] is False),
    "cri-disabled": (KEEPS, 4, lambda got: got["disabled_plugins"] == [CRI] and got["runtime_names"] == []),
}
# what the verdict at that line must say, per kind (lower case, any of)
WORDS = {REJECTS: ("reject",), DROPS: ("drop", "ignore", "does not look"), STRING: ("string",)}
KEPT_KEY = {"default-is-nvidia": "default_runtime_name", "binaryname-relative": "binaryname",
            "systemdcgroup-mismatch": "systemdcgroup", "cri-disabled": "disabled_plugins"}


def root_with(tmp_path: Path, source: Path) -> Path:
    root = tmp_path / "root"
    (root / CONFIG.lstrip("/")).parent.mkdir(parents=True)
    shutil.copy(source, root / CONFIG.lstrip("/"))
    return root


def check_mode(root: Path, containerd: str | None = None) -> dict:
    rb = Run(validate(root=str(root), mode="check", containerd_bin=containerd or "")).start()
    try:
        results = rb.run_all()
        by_number = {r.step: r for r in results.values()}  # the lab's numbers
        return {n: by_number[n] for n in (range(1, 10) if containerd else range(1, 9))}
    finally:
        rb.finish()


def verdicts_at(results: dict, line: int) -> list[str]:
    """Every problem of steps 1-8 on the config at that line: what + why, both languages, lower case."""
    out = []
    for n in range(1, 9):
        for p in results[n].problems:
            if p.path == CONFIG and p.line == line:
                out.append(" ".join(x for m in (p.what, p.why) if m for x in (m.en, m.ko)).lower())
    return out


def test_every_fixture_is_covered():
    assert {p.stem for p in BROKEN.glob("*.toml")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_mode_and_containerd_agree(containerd, tmp_path, name):
    kind, line, reading_shows = CASES[name]
    root = root_with(tmp_path, BROKEN / f"{name}.toml")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    results = check_mode(root, containerd)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # check mode (and step 9) wrote nothing

    at_line = verdicts_at(results, line)
    assert at_line, (name, line, {n: [(p.line, p.what.en) for p in r.problems] for n, r in results.items()})
    if kind in WORDS:
        assert any(w in v for v in at_line for w in WORDS[kind]), (name, at_line)
    else:
        assert any(KEPT_KEY[name] in v for v in at_line), (name, at_line)

    if kind == REJECTS:
        with pytest.raises(ContainerdRejected) as caught:
            containerd_reading(containerd, root / CONFIG.lstrip("/"), root, "nvidia")
        said = caught.value.said
        position = re.search(r": \((\d+), \d+\): ", said)
        if position:  # a TOML error: containerd names the same line as we do
            assert int(position.group(1)) == line, said
        for quoted in re.findall(r"'([^']*invalid plugin key[^']*)'", " ".join(at_line)):
            assert quoted.lower() in said.lower(), (quoted, said)  # what we say containerd says, it says
    else:
        got = containerd_reading(containerd, root / CONFIG.lstrip("/"), root, "nvidia")
        assert reading_shows(got), got

    # step 9 asks containerd on the same root: it never passes a broken state
    nine = results[9]
    assert nine.status == "failed", nine.text()
    text = " ".join(p.what.en.lower() for p in nine.problems)
    if kind == REJECTS:
        assert "containerd rejects" in text, text
        if position:  # a TOML error has a position: step 9 names it too
            assert nine.problems[0].line == line, nine.text()
    elif kind == STRING:
        assert "string" in text
    elif name in ("misplaced-runtimes-without-containerd", "no-version-line-v2-tables"):
        assert "reads no nvidia runtime" in text and "dropped" in text


def test_the_good_config_passes_both(containerd, tmp_path):
    root = root_with(tmp_path, GOOD_CONFIG)
    results = check_mode(root, containerd)
    config_problems = [p for r in results.values() for p in r.problems if p.path == CONFIG]
    assert config_problems == []
    assert results[9].status == "passed", results[9].text()
