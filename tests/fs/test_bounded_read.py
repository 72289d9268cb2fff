"""The one reader of a root's files (runbook_lib/fs/bounded_read.py) and the bounded parsers: a file above its
kind's limit, a folder of too many files, YAML aliases and nesting, all findings, never a hang."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hostile_roots
from grading_helpers import check
from kernel_ports import run_papermill
from runbook_lib.containerd.load import load_toml
from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs import bounded_read
from runbook_lib.fs.bounded_read import FileTooLarge, SpecialFile, TooManyFiles
from runbook_lib.fs.yamldoc import load_mapping
from runbook_lib.findings.messages import Msg

REPO = Path(__file__).resolve().parents[2]
SPEC_NAME = Msg("CDI 스펙", "the CDI spec")

# The limits as docs/GUARANTEES.md's table documents them, written here and never read back from the module
# under test (issue 44: the CDI limit multiplied by 1000 survived every test that read LIMITS["cdi"]).
KIB, MIB = 1024, 1024 * 1024
SIZE = {"config": 16 * MIB, "cdi": 512 * KIB, "runtimeclass": 64 * KIB, "toolkit": 1 * MIB, "params": 64 * KIB}
CONTENT = {"config": 1 * MIB}  # a config's content beyond its comment and blank lines (issue 54)
MAX_FILES, MAX_ALIAS_NODES, MAX_DEPTH = 256, 100_000, 100
SHOWN = {16 * MIB: "16.0 MiB", 1 * MIB: "1.0 MiB", 512 * KIB: "512.0 KiB", 64 * KIB: "64.0 KiB"}


def _documented() -> dict[str, str]:
    """docs/GUARANTEES.md's table of limits: {its row's first cell: its value}."""
    text = (REPO / "docs" / "GUARANTEES.md").read_text(encoding="utf-8")
    table = text[text.index("| 한도 / limit | 값 / value |"):].split("\n\n", 1)[0]
    rows = [line.strip().strip("|").split("|") for line in table.splitlines()[2:]]
    return {name.strip(): value.strip() for name, value in rows}


def test_the_documented_table_of_limits_is_the_tests_numbers():
    documented = _documented()
    for kind, size in SIZE.items():
        (value,) = [v for name, v in documented.items() if name.endswith(f"(`{kind}`)")]
        assert value == SHOWN[size].replace(".0 ", " "), kind
    for kind, size in CONTENT.items():
        (value,) = [v for name, v in documented.items() if name.endswith(f"(`{kind}` content)")]
        assert value == SHOWN[size].replace(".0 ", " "), kind
    counts = [v for name, v in documented.items() if "`" not in name]
    assert counts == [f"{MAX_FILES}", f"{MAX_ALIAS_NODES:,}", f"{MAX_DEPTH}"]


@pytest.mark.parametrize("kind", list(SIZE))
def test_each_kind_of_file_is_read_at_its_documented_limit_and_refused_one_byte_beyond(tmp_path, kind):
    path = tmp_path / "file"
    path.write_bytes(b"#" * SIZE[kind])
    assert len(bounded_read.read(path, kind)) == SIZE[kind]
    path.write_bytes(b"#" * (SIZE[kind] + 1))
    with pytest.raises(FileTooLarge) as caught:
        bounded_read.read(path, kind, "/the/file")
    assert caught.value.code == "read.too_large" and caught.value.path == "/the/file"
    assert SHOWN[SIZE[kind]] in caught.value.what.en and SHOWN[SIZE[kind]] in caught.value.what.ko


def test_a_config_with_a_large_comment_block_is_read_and_its_content_is_what_is_bounded(tmp_path):
    """containerd reads a config of any size: a 5 MB comment block a site keeps (a licence, a pasted runbook) is
    read whole; 1 MiB of settings beyond the comment lines is refused as made by mistake, with a fix that keeps
    the file (a node's config is never moved aside), and a comment counts for nothing, however it is indented."""
    base = b'version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "pause:3.9"\n'
    comment = b"".join(b"  # %06d a licence or a runbook pasted into the config, kept by the site ......\n" % i
                       for i in range(65_000))
    path = tmp_path / "config.toml"
    path.write_bytes(base + comment + b"\n\n")
    assert len(comment) > 5 * 1000 * 1000
    assert bounded_read.read(path, "config") == base + comment + b"\n\n"
    assert load_toml(path.read_bytes(), "/etc/containerd/config.toml").data["version"] == 2
    table = b'[plugins."io.example.v1.p"]\n'
    settings = b"".join(b'  k%07d = "%s"\n' % (i, b"v" * 40) for i in range(CONTENT["config"] // 56))
    at_limit = table + settings[: CONTENT["config"] - len(table) - 1].rsplit(b"\n", 1)[0] + b"\n"
    at_limit += b"x" * (CONTENT["config"] - len(at_limit) - 1) + b"\n"  # one last line: content of exactly the limit
    path.write_bytes(at_limit + comment)
    assert bounded_read.content_bytes(at_limit) == CONTENT["config"]
    assert bounded_read.read(path, "config") == at_limit + comment
    path.write_bytes(b"y" + at_limit + comment)
    with pytest.raises(FileTooLarge) as caught:
        bounded_read.read(path, "config", "/etc/containerd/config.toml")
    p = caught.value.problem
    assert (p.code, p.path) == ("read.too_large.content", "/etc/containerd/config.toml")
    assert SHOWN[CONTENT["config"]] in p.what.en and SHOWN[CONTENT["config"]] in p.what.ko
    # the cp as pasted: the file this machine opened, under the root (issue 51), never the host's /etc/containerd
    assert "mv " not in p.fix.en + p.fix.ko and f"cp {path} {path}.orig" in p.fix.en


def test_a_sparse_file_counts_by_its_size_before_a_byte_is_read(tmp_path):
    path = tmp_path / "report.txt"
    with open(path, "wb") as f:
        f.truncate(3 * 1024 ** 3)
    with pytest.raises(FileTooLarge) as caught:
        bounded_read.read(path, "toolkit")
    assert "3072.0 MiB" in caught.value.what.en


def test_a_file_whose_size_lies_is_read_no_further_than_its_limit(monkeypatch):
    """/proc files say they are empty and hold more: /proc/self/maps of a Python process is kilobytes."""
    proc = Path("/proc/self/maps")
    if not proc.exists():
        pytest.skip("no /proc on this system")
    assert proc.stat().st_size == 0
    monkeypatch.setitem(bounded_read.LIMITS, "params", 100)
    with pytest.raises(FileTooLarge) as caught:
        bounded_read.read(proc, "params")
    assert "> 100 bytes" in caught.value.what.en


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with pytest.raises(SpecialFile):
        bounded_read.read(fifo, "config")


def test_a_folder_of_too_many_files_is_a_finding(tmp_path):
    for i in range(MAX_FILES + 1):
        (tmp_path / f"{i}.toml").write_bytes(b"")
    with pytest.raises(TooManyFiles) as caught:
        bounded_read.names_in(tmp_path, "/etc/containerd/conf.d")
    assert caught.value.code == "read.too_many_files" and caught.value.path == "/etc/containerd/conf.d"
    (tmp_path / "0.toml").unlink()
    assert len(bounded_read.names_in(tmp_path, "/etc/containerd/conf.d")) == MAX_FILES


def test_only_the_files_a_glob_matches_count(tmp_path):
    """The runbook's own backups (config.toml.runbook-backup-...) pile up beside the drop-ins a glob reads."""
    for i in range(MAX_FILES + 50):
        (tmp_path / f"99-nvidia.toml.runbook-backup-{i}").write_bytes(b"")
    (tmp_path / "99-nvidia.toml").write_bytes(b"")
    assert bounded_read.names_in(tmp_path, "/etc/containerd/conf.d", lambda n: n.endswith(".toml")) == ["99-nvidia.toml"]


def test_billion_laughs_is_refused_at_its_line():
    text = hostile_roots.LAUGHS + "laughs: *l8\n"
    with pytest.raises(ConfigError) as caught:
        load_mapping(text, "/etc/cdi/nvidia.yaml", name=SPEC_NAME, keys="kind")
    assert caught.value.code == "yaml.too_many_aliases"
    line = caught.value.line
    assert "*l" in text.split("\n")[line - 1], "the finding is at a line of aliases"
    assert re.search(rf"(?<![\d,]){MAX_ALIAS_NODES}(?![\d,])", caught.value.what.en), caught.value.what.en


def test_a_few_aliases_are_read_as_yaml_means_them():
    doc = load_mapping("a: &x [1, 2]\nb: *x\n", "/etc/cdi/nvidia.yaml", name=SPEC_NAME, keys="kind")
    assert doc == {"a": [1, 2], "b": [1, 2]}


def test_yaml_nested_too_deep_is_a_finding_at_its_line():
    text = "kind: x\ndeep:\n" + "".join(" " * (2 * i) + "-\n" for i in range(1, 150))
    with pytest.raises(ConfigError) as caught:
        load_mapping(text, "/etc/cdi/nvidia.yaml", name=SPEC_NAME, keys="kind")
    assert caught.value.code == "input.too_deep"
    assert caught.value.line > 100


@pytest.mark.parametrize("flow", ["[" * 100_000 + "]" * 100_000, "{a: " * 100_000 + "1" + "}" * 100_000,
                                  "[" * 1_001 + "]" * 1_001], ids=["100000-lists", "100000-maps", "1001-lists"])
def test_a_cdi_spec_nested_100000_deep_in_flow_style_is_too_deep_not_a_syntax_error(flow):
    """libyaml stops a flow 1000 levels deep with a scanner error of its own, before our bound's level 101 is
    handed out: it is the same finding (too deep, the limit said), not a syntax error with an indentation hint."""
    text = f'cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices: {flow}\n'
    with pytest.raises(ConfigError) as caught:
        load_mapping(text, "/etc/cdi/nvidia.yaml", name=SPEC_NAME, keys="kind")
    assert caught.value.code == "input.too_deep"
    assert str(MAX_DEPTH) in caught.value.what.en and str(MAX_DEPTH) in caught.value.what.ko
    assert caught.value.line == 3


@pytest.mark.parametrize("value", ["[" * 50_000 + "]" * 50_000, "{a = " * 500 + "1" + "}" * 500])
def test_toml_nested_too_deep_is_a_finding_at_its_line(value):
    raw = f'version = 2\n\ndeep = {value}\n'.encode()
    with pytest.raises(ConfigError) as caught:
        load_toml(raw, "/etc/containerd/config.toml")
    assert caught.value.code == "input.too_deep" and caught.value.line == 3
    assert str(MAX_DEPTH) in caught.value.what.en


def test_brackets_in_strings_and_comments_are_no_nesting():
    raw = ('a = "' + "[" * 500 + '"  # ' + "{" * 500 + "\nb = '''" + "[" * 500 + "'''\n").encode()
    assert load_toml(raw, "/etc/containerd/config.toml").data["a"] == "[" * 500


def test_the_parameters_file_is_read_within_its_limit(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("mode: check\n" + "# " + "x" * SIZE["params"] + "\n")
    proc = subprocess.run([sys.executable, "-m", "runbook_lib.cli", "run", "--root", str(tmp_path), "-f", str(params),
                           "--archive", str(tmp_path / "a")], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "too large" in proc.stderr and "너무 큽니다" in proc.stderr


@pytest.mark.parametrize("name", ["sparse-report", "imports-20000", "laughs"])
def test_check_mode_judges_every_step_of_a_hostile_root(tmp_path, name):
    """Only the step whose file is hostile (and the steps that follow from it) fails; the finding is its."""
    root = hostile_roots.make(tmp_path, name)
    results = check(root)
    failed = [r for r in results.values() if r.failed]
    assert failed and failed[0].problems[0].code == hostile_roots.HOSTILE[name][1]


def test_a_text_parsed_once_still_gives_every_reader_a_config_of_its_own():
    from runbook_lib.fs import tomldoc

    text = 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\ndefault_runtime_name = "runc"\nx = [1, [2]]\n'
    first = tomldoc.loads(text)
    first["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["default_runtime_name"] = "nvidia"  # a reader edits
    first["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["x"][1].append(3)
    again = tomldoc.loads(text)
    assert again == {"version": 2, "plugins": {"io.containerd.grpc.v1.cri": {"containerd": {
        "default_runtime_name": "runc", "x": [1, [2]]}}}}
    assert again is not first


def test_a_text_too_deep_is_refused_at_every_read_not_only_the_first():
    from runbook_lib.fs import tomldoc

    deep = "x = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n"
    for _ in range(2):
        with pytest.raises(tomldoc.TooDeep):
            tomldoc.loads(deep)


def test_plain_papermill_applies_to_a_node_config_with_a_5_mb_comment_block(tmp_path):
    """The user's command on a config with a site's 5 MB comment block (issue 54: refused before as "made by
    mistake", with a fix that moved the node's config aside): the runtime is written, the comment kept whole."""
    root = tmp_path / "lab"
    subprocess.run([str(Path(sys.executable).parent / "runbook"), "lab-init", str(root)], check=True, capture_output=True,
                   timeout=300)
    config = root / "etc/containerd/config.toml"
    config.parent.mkdir(parents=True)
    comment = b"".join(b"# %06d a licence or a runbook pasted into the config, kept by the site ........\n" % i
                       for i in range(65_000))
    config.write_bytes((root / "opt/fixtures/gpu-airgap/containerd/config.toml.base").read_bytes() + comment)
    out = tmp_path / "out.ipynb"
    proc = run_papermill([str(Path(sys.executable).parent / "papermill"), "--no-progress-bar", "--log-level", "ERROR",
                          str(REPO / "notebooks" / "run.ipynb"), str(out), "-p", "root", str(root)],
                         capture_output=True, text=True, timeout=600, cwd=REPO)  # a hang's guard only
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = config.read_bytes()
    assert comment in written and b"runtimes.nvidia]" in written
    assert "read.too_large" not in out.read_text()
