"""Bad input: every case ends in a correct result that the real containerd reads, or in a clear bilingual
message at the step concerned with no file changed. The original bytes always survive, in place or in a
backup, and no report.txt claims a success that did not happen."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kernel_ports import run_papermill
from reliability_helpers import (BASE, CDI, CONFIG, NOTEBOOK, PAPERMILL, TOOLKIT, TOOLKIT_FILES, assert_bilingual,
                                 assert_containerd_registered, assert_failed_clearly, backups, containerd_reads,
                                 make_root, parse_config, report, run_apply, runtimes, settled, snapshot, statuses)
from runbook_lib.containerd.verify import ContainerdRejected
from runbook_lib.findings.errors import ParameterError
from runbook_lib.engine.params import validate
from runbook_lib.engine.result import FAILED


def _line_of(data: bytes, needle: bytes) -> int:
    return data[: data.index(needle)].count(b"\n") + 1


SYNTAX_ERROR = BASE.replace(b'default_runtime_name = "runc"', b'default_runtime_name = "runc')
DUPLICATE_KEY = BASE.replace(b'snapshotter = "overlayfs"', b'snapshotter = "overlayfs"\n      snapshotter = "native"')
NOT_UTF8 = BASE.replace(b"# air-gapped", "# air-gapped (망분리)".encode("euc-kr"))


def assert_nothing_changed(root: Path, before: dict) -> None:
    """Every entry that was there is byte-for-byte (and mtime-for-mtime) the same, and there is no new entry,
    not even the root's lock or its folder; no toolkit file (report.txt above all) was written."""
    after = snapshot(root)
    for rel, entry in before.items():
        assert after.get(rel) == entry, f"{rel} changed"
    assert sorted(set(after) - set(before)) == []
    for name in TOOLKIT_FILES:
        assert not (root / TOOLKIT / name).exists(), f"{name} written by a failed run"


# --- configs the runbook must refuse ------------------------------------------------------------------------

@pytest.mark.parametrize("case, data, line, needles", [
    ("toml-syntax-error", SYNTAX_ERROR, _line_of(SYNTAX_ERROR, b"default_runtime_name"), ["TOML"]),
    ("duplicate-key", DUPLICATE_KEY, _line_of(DUPLICATE_KEY, b'snapshotter = "native"'),
     ["snapshotter", "TOML"]),
    ("not-utf8", NOT_UTF8, _line_of(NOT_UTF8, b"# air-gapped"), ["UTF-8"]),
])
def test_unreadable_config_stops_at_step_2_and_changes_nothing(tmp_path, case, data, line, needles):
    root = make_root(tmp_path, data)
    before = snapshot(root)
    results = run_apply(root)
    failed = assert_failed_clearly(results, 2, *needles)
    assert failed.problems[0].path == "/etc/containerd/config.toml"
    assert failed.problems[0].line == line, "the message must point at the line"
    assert_nothing_changed(root, before)
    assert (root / CONFIG).read_bytes() == data
    assert backups(root / "etc/containerd", "config.toml") == []


@pytest.mark.parametrize("data", [SYNTAX_ERROR, DUPLICATE_KEY], ids=["toml-syntax-error", "duplicate-key"])
def test_containerd_rejects_what_the_runbook_refuses(tmp_path, data):
    """Refusing is right: containerd 1.6 itself cannot start with these files."""
    root = make_root(tmp_path, data)
    with pytest.raises(ContainerdRejected, match="failed to load TOML"):
        containerd_reads(root)


def test_config_that_is_a_directory_stops_at_step_1(tmp_path):
    root = make_root(tmp_path)
    (root / CONFIG).mkdir()
    (root / CONFIG / "keep-me").write_text("a file inside the folder\n")
    before = snapshot(root)
    results = run_apply(root)
    assert_failed_clearly(results, 1, "폴더", "a folder stands where a file should be", "config.toml")
    assert_nothing_changed(root, before)


# --- configs the runbook must edit, keeping everything -------------------------------------------------------

def _assert_edited(root: Path, original: bytes, results) -> bytes:
    """All steps passed; containerd reads the nvidia runtime; the original bytes are in a backup; the report
    tells what containerd reads."""
    assert FAILED not in statuses(results), [(r.step, r.status, r.message.en) for r in results]
    new = (root / CONFIG).read_bytes()
    assert original in [b.read_bytes() for b in backups(root / "etc/containerd", "config.toml")]
    seen = assert_containerd_registered(root)
    rep = report(root)
    assert rep["RUNTIME"] == "nvidia" and rep["HANDLER"] == "nvidia"
    assert rep["RUNTIME_TYPE"] == seen["runtime"]["runtime_type"]
    assert rep["SYSTEMD_CGROUP"] == str(seen["runtime"]["options"]["SystemdCgroup"]).lower()
    return new


def _assert_lines_kept(old: str, new: str) -> None:
    """Every line of the original is still there, in the same order."""
    it = iter(new.splitlines())
    for line in old.splitlines():
        assert any(line == candidate for candidate in it), f"line lost or reordered: {line!r}"


def _assert_second_run_unchanged(root: Path) -> None:
    before = snapshot(root)
    results = run_apply(root)
    assert settled(results), [(r.step, r.status, r.message.en) for r in results]
    after = snapshot(root)
    assert {k: v for k, v in after.items() if "lock" not in k} == {k: v for k, v in before.items() if "lock" not in k}


def test_a_utf8_bom_is_refused_before_any_write(tmp_path):
    """containerd 1.6 reads a config that starts with a UTF-8 BOM as if it were not there, but containerd 2.x
    refuses the whole file (tests/real/test_real_2x_layouts.py): the BOM is a finding at line 1, column 1, with
    the command that deletes it, and nothing is written (issue 21; it used to be kept and the run "passed")."""
    original = b"\xef\xbb\xbf" + BASE
    root = make_root(tmp_path, original)
    assert containerd_reads(root, "runc")["runtime"] is not None, "containerd 1.6 reads a file with a BOM"
    before = snapshot(root)
    results = run_apply(root)
    step2 = next(r for r in results if r.step == 2)
    assert [(p.code, p.line, p.col) for p in step2.problems] == [("toml.bom", 1, 1)]
    at = os.path.realpath(root) + "/etc/containerd/config.toml"  # the command as pasted: under the root (issue 51)
    assert f"sed -i '1s/^\\xEF\\xBB\\xBF//' {at}" in step2.problems[0].fix.en
    assert_nothing_changed(root, before)


def test_crlf_line_endings_are_kept(tmp_path):
    original = BASE.replace(b"\n", b"\r\n")
    root = make_root(tmp_path, original)
    new = _assert_edited(root, original, run_apply(root))
    assert new.count(b"\n") == new.count(b"\r\n") > original.count(b"\r\n"), "every line, old and new, ends in CRLF"
    assert b"\r\r" not in new
    _assert_lines_kept(BASE.decode(), new.decode().replace("\r\n", "\n"))
    _assert_second_run_unchanged(root)


def test_empty_config_gets_the_base_and_the_empty_file_is_backed_up(tmp_path):
    root = make_root(tmp_path, b"")
    results = run_apply(root)
    new = _assert_edited(root, b"", results)
    _assert_lines_kept(BASE.decode(), new.decode())
    assert results[0].backup is not None, "step 1 names the backup of the empty file"


def test_mode_0600_is_kept_and_the_backup_is_no_more_readable(tmp_path):
    root = make_root(tmp_path, BASE)
    os.chmod(root / CONFIG, 0o600)
    _assert_edited(root, BASE, run_apply(root))
    assert (root / CONFIG).stat().st_mode & 0o7777 == 0o600
    for b in backups(root / "etc/containerd", "config.toml"):
        assert b.stat().st_mode & 0o7777 == 0o600, f"{b.name} would expose a private config"


CUSTOM = BASE.decode().replace(
    '    [plugins."io.containerd.grpc.v1.cri".registry]\n      config_path = "/etc/containerd/certs.d"\n',
    '''    [plugins."io.containerd.grpc.v1.cri".registry]
      # the site's mirrors: pulls never leave the air gap
      [plugins."io.containerd.grpc.v1.cri".registry.mirrors]
        [plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]
          endpoint = ['https://registry.airgap.local:5000', "https://backup.airgap.local"]  # keep 'quotes'
        [plugins."io.containerd.grpc.v1.cri".registry.mirrors."nvcr.io"]
          endpoint = ["https://registry.airgap.local:5000"]
      [plugins."io.containerd.grpc.v1.cri".registry.configs."registry.airgap.local:5000".tls]
        insecure_skip_verify = false
        ca_file = "/etc/ssl/airgap-ca.pem"
''').replace(
    '            SystemdCgroup = true\n',
    '''            SystemdCgroup = true

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.kata]
          runtime_type = "io.containerd.kata.v2"
          privileged_without_host_devices = true
          pod_annotations = ["io.katacontainers.*"]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes."crun"]
          runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes."crun".options]
            BinaryName = "/usr/bin/crun"
            SystemdCgroup = true
''') + '\n[metrics]\n  address = "127.0.0.1:1338"  # scraped by the site\'s prometheus\n'


def test_custom_content_is_all_kept(tmp_path):
    assert "kata" in CUSTOM and "mirrors" in CUSTOM and "metrics" in CUSTOM
    original = CUSTOM.encode()
    root = make_root(tmp_path, original)
    new = _assert_edited(root, original, run_apply(root))
    _assert_lines_kept(CUSTOM, new.decode())
    old_data, new_data = tomllib.loads(CUSTOM), parse_config(root)
    del runtimes(new_data)["nvidia"]
    assert new_data == old_data, "nothing but runtimes.nvidia was added"
    seen = containerd_reads(root, "kata")
    assert seen["runtime_names"] == ["crun", "kata", "nvidia", "runc"]
    assert seen["runtime"]["runtime_type"] == "io.containerd.kata.v2"


def huge_config(lines: int) -> str:
    """The lab base with a registry mirror table per site: a config of `lines` lines and more."""
    out = [BASE.decode()]
    i = 0
    while sum(s.count("\n") for s in out) < lines:
        out.append(f'\n    [plugins."io.containerd.grpc.v1.cri".registry.mirrors."site-{i}.example.com"]\n'
                   f'      # mirror for site {i}\n'
                   f'      endpoint = ["https://mirror-{i}.airgap.local:5000", \'https://backup-{i}.airgap.local\']\n')
        i += 1
    return "".join(out)


def test_huge_config(tmp_path):
    text = huge_config(20_000)
    assert text.count("\n") >= 20_000
    root = make_root(tmp_path, text.encode())
    new = _assert_edited(root, text.encode(), run_apply(root))
    _assert_lines_kept(text, new.decode())
    assert len(new.decode().splitlines()) - len(text.splitlines()) < 15, "only the runtime's lines were added"
    assert len(tomllib.loads(new.decode())["plugins"]["io.containerd.grpc.v1.cri"]["registry"]["mirrors"]) > 4000


# --- the CDI spec: never replaced, left alone with a message --------------------------------------------------

GOOD_SPEC_HEAD = 'cdiVersion: "0.5.0"\n'


@pytest.mark.parametrize("case, spec, needles", [
    ("not-yaml", "cdiVersion: \"0.5.0\"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n   containerEdits: [\n",
     ["YAML"]),
    ("another-kind", GOOD_SPEC_HEAD + "kind: example.com/fpga\ndevices:\n  - name: all\n    containerEdits:\n"
     "      deviceNodes:\n        - path: /dev/fpga0\n", ["example.com/fpga", "nvidia.com/gpu"]),
    ("fails-the-schema", GOOD_SPEC_HEAD + "kind: nvidia.com/gpu\ndevices:\n  - name: all\n", []),
    ("not-a-mapping", "- just\n- a list\n", ["CDI"]),
])
def test_bad_cdi_spec_is_left_alone_with_a_message(tmp_path, case, spec, needles):
    root = make_root(tmp_path, BASE)
    (root / "etc/cdi").mkdir()
    (root / CDI).write_text(spec)
    os.chmod(root / CDI, 0o640)
    before = snapshot(root)
    results = run_apply(root)
    assert_failed_clearly(results, 6, *needles)
    after = {k: v for k, v in snapshot(root).items() if not k.startswith("run")}  # the lock may come and go
    assert after == before, "a plan that refuses writes nothing: no config edit, folder, backup or toolkit file"


# --- parameters of the wrong type or value --------------------------------------------------------------------

@pytest.mark.parametrize("values, needle", [
    ({"runtime_name": 4.5}, "runtime_name"),  # judged as its text "4.5": no dot in a DNS-1123 label
    ({"runtime_name": ["nvidia"]}, "runtime_name"),
    ({"runtime_name": "NVIDIA"}, "runtime_name"),
    ({"runtime_name": "nvidia_gpu"}, "runtime_name"),
    ({"runtime_name": ""}, "runtime_name"),
    ({"systemd_cgroup": "yes"}, "systemd_cgroup"),
    ({"systemd_cgroup": 1}, "systemd_cgroup"),
    ({"mode": "repair"}, "mode"),
    ({"mode": None}, "mode"),
    ({"config_path": "etc/containerd/config.toml"}, "config_path"),
    ({"binary_name": "nvidia-container-runtime"}, "binary_name"),
    ({"cdi_spec": ["/etc/cdi/nvidia.yaml"]}, "cdi_spec"),
    ({"toolkit_dir": "/root/tool\nkit"}, "toolkit_dir"),
    ({"layout": "sideways"}, "layout"),
    ({"restart_containerd": "maybe"}, "restart_containerd"),
    ({"runtime": "nvidia"}, "runtime"),
    ({"root": 7}, "root"),
])
def test_validate_rejects_a_bad_parameter_with_the_fix(tmp_path, values, needle):
    with pytest.raises(ParameterError) as err:
        validate(root=str(tmp_path), **values) if "root" not in values else validate(**values)
    exc = err.value
    assert needle in exc.what.en and needle in exc.what.ko
    assert_bilingual(exc.what.ko + " " + exc.what.en)
    assert exc.fix is not None and exc.fix.ko and exc.fix.en
    assert list(tmp_path.iterdir()) == [], "validation writes nothing"


def _papermill(root: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return run_papermill([str(PAPERMILL), "--log-level", "ERROR", "--no-progress-bar", str(NOTEBOOK), str(out),
                          "-p", "root", str(root), *args], capture_output=True, text=True, timeout=300)


def _error_output(nb_path: Path) -> dict:
    nb = json.loads(nb_path.read_text())
    errors = [(i, o) for i, c in enumerate(nb["cells"]) for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert len(errors) == 1
    return {"cell": errors[0][0], **errors[0][1]}


PAPERMILL_CASES = {
    "runtime-name-decimal": (["-p", "runtime_name", "4.5"], "runtime_name"),  # papermill reads 4.5, judged as "4.5"
    "relative-config-path": (["-p", "config_path", "etc/containerd/config.toml"], "config_path"),
}


def test_papermill_parameters_of_the_wrong_type_or_value(tmp_path):
    """Through papermill -p: the run stops at the validation cell with the bilingual message, and nothing under
    the root is created. Two values: a number papermill's -p reads as a float (judged as its text) and a path
    parameter; every other value's verdict is validate's (test_validate_rejects_a_bad_parameter_with_the_fix),
    which the notebook gives for each text papermill hands it (tests/engine/test_params_one_parser.py)."""
    def one(item):
        name, (args, _) = item
        root = tmp_path / name
        root.mkdir()
        return name, root, _papermill(root, tmp_path / f"{name}.ipynb", *args)

    # One after the other: plain papermill's kernels take TCP ports that jupyter_client picks at random, and two
    # started at the same moment can pick the same one (the second "died before replying to kernel_info").
    done = [one(case) for case in PAPERMILL_CASES.items()]
    for name, root, proc in done:
        needle = PAPERMILL_CASES[name][1]
        assert proc.returncode != 0, name
        err = _error_output(tmp_path / f"{name}.ipynb")
        assert err["ename"] == "ParameterError", (name, err["ename"], err["evalue"])
        assert needle in err["evalue"]
        assert_bilingual(err["evalue"])
        assert "고치기: " in err["evalue"] and "fix: " in err["evalue"]
        assert list(root.iterdir()) == [], f"{name}: a refused run created files under the root"


def test_papermill_yaml_parameter_file_with_wrong_types(tmp_path):
    """A -f parameter file is where types go wrong most easily (an unquoted `yes`, a number)."""
    root = tmp_path / "root"
    root.mkdir()
    params = tmp_path / "params.yaml"
    params.write_text(f"root: {root}\nsystemd_cgroup: 'on'\n")
    proc = run_papermill([str(PAPERMILL), "--log-level", "ERROR", "--no-progress-bar", str(NOTEBOOK),
                          str(tmp_path / "o.ipynb"), "-f", str(params)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    err = _error_output(tmp_path / "o.ipynb")
    assert err["ename"] == "ParameterError" and "systemd_cgroup" in err["evalue"]
    assert list(root.iterdir()) == []


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


def test_config_that_is_a_fifo_stops_at_step_1_without_hanging(tmp_path):
    """Reading a FIFO would block forever; the runbook says what stands there instead."""
    root = make_root(tmp_path)
    os.mkfifo(root / CONFIG)
    before = snapshot(root)
    results = run_apply(root)
    assert_failed_clearly(results, 1, "FIFO", "config.toml")
    assert_nothing_changed(root, before)
