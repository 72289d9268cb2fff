"""Node states an operator's real node can be in: a file where a folder should be, a result file that cannot be
read, what even root cannot write (chattr +i, a read-only mount), and mode=remove on a node the runbook never
touched. Every case ends without a traceback, in every mode; apply and remove refuse before their first write
(the tree is unchanged but for the root's lock), with a bilingual message naming the path and the fix."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from contextlib import contextmanager
from pathlib import Path

import pytest

from reliability_helpers import (BASE, CONFIG, TOOLKIT, assert_bilingual, assert_failed_clearly, containerd_reads,
                                 make_root, realenv, run_apply, snapshot)
from runbook_lib.containerd.verify import ContainerdRejected
from runbook_lib.findings.errors import WriteError
from runbook_lib.engine.params import validate
from runbook_lib.engine.result import FAILED
from runbook_lib.engine.run import Run


def _without_lock(state: dict) -> dict:
    return {k: v for k, v in state.items() if not k.startswith("run")}


def _run(root: Path, **params) -> dict:
    """Every step in the given mode, as the CLI runs them (check and remove do not stop at a failed step)."""
    rb = Run(validate(root=str(root), **params)).start()
    try:
        return rb.run_all()
    finally:
        rb.finish()


# --- a file where a folder should be -----------------------------------------------------------------------

@pytest.mark.parametrize("folder, step", [("etc/containerd", 1), ("etc/cdi", 6), (TOOLKIT, 1)],
                         ids=["etc-containerd", "etc-cdi", "toolkit-dir"])
def test_a_file_where_a_folder_should_be_is_refused_in_every_mode(tmp_path, folder, step):
    root = tmp_path / "root"
    root.mkdir()
    if folder != "etc/containerd":
        (root / "etc/containerd").mkdir(parents=True)
        (root / CONFIG).write_bytes(BASE)
    (root / folder).parent.mkdir(parents=True, exist_ok=True)
    (root / folder).write_bytes(b"not a folder\n")
    before = snapshot(root)
    failed = assert_failed_clearly(run_apply(root), step, "/" + folder.split("/")[-1])
    assert any(f"/{folder}" in p.what.en and "folder" in p.what.en and "폴더" in p.what.ko
               for p in failed.problems), failed.text()
    assert _without_lock(snapshot(root)) == _without_lock(before)
    checked = _run(root, mode="check")  # no traceback: the step concerned fails with the same words
    assert any(r.failed and any(f"/{folder}" in p.what.en for p in r.problems) for r in checked.values())
    removed = _run(root, mode="remove")
    assert _without_lock(snapshot(root)) == _without_lock(before)
    assert (root / folder).read_bytes() == b"not a folder\n"
    assert all(r.status != "changed" for r in removed.values())


def test_a_result_file_that_cannot_be_read_does_not_stop_check_mode(tmp_path):
    """report.txt is a FIFO: check mode judges every step, and step 8 says what stands there."""
    root = make_root(tmp_path, BASE)
    (root / TOOLKIT).mkdir(parents=True)
    os.mkfifo(root / TOOLKIT / "report.txt")
    results = _run(root, mode="check")
    assert {"prepare", "runtime", "options", "default", "parse", "cdi", "runtimeclass", "report"} <= set(results)
    assert results["report"].failed and results["report"].problems[0].is_a("write.failed")
    assert_bilingual(results["report"].problems[0].what.ko + " " + results["report"].problems[0].what.en)


# --- what even root cannot write ---------------------------------------------------------------------------

@contextmanager
def _attribute(path: Path, flag: str):
    """chattr +i / +a for the test's duration (lifted even when the test fails, or tmp_path could not be removed)."""
    chattr = shutil.which("chattr")
    if chattr is None or os.geteuid() != 0:
        realenv.missing("chattr 와 root 권한이 필요합니다 / chattr and root are needed")
    if subprocess.run([chattr, f"+{flag}", str(path)], capture_output=True).returncode != 0:
        pytest.skip(f"this file system has no chattr +{flag} attribute")
    try:
        yield
    finally:
        subprocess.run([chattr, f"-{flag}", str(path)], check=True)


@pytest.mark.parametrize("locked, flag", [(CONFIG, "i"), ("etc/containerd", "i"), (CONFIG, "a")],
                         ids=["config-immutable", "folder-immutable", "config-append-only"])
def test_what_root_cannot_write_is_refused_before_the_first_write(tmp_path, locked, flag):
    """Step 1 would create /root/toolkit and step 2 then fail on config.toml: the plan refuses instead."""
    root = make_root(tmp_path, BASE)
    with _attribute(root / locked, flag):
        before = snapshot(root)
        failed = assert_failed_clearly(run_apply(root), 2, f"chattr -{flag}", f"/{locked}", "lsattr")
        assert "root" in failed.problems[0].what.en and "root" in failed.problems[0].what.ko
        assert _without_lock(snapshot(root)) == _without_lock(before), "nothing is written before the refusal"
        assert not (root / TOOLKIT).exists()
    assert FAILED not in [r.status for r in run_apply(root)], "once the attribute is lifted, apply works"


def test_a_crash_leftover_in_an_immutable_folder_does_not_stop_the_start(tmp_path):
    """The next run sweeps a killed run's temporary file; when the folder has since been locked (chattr +i) that
    cannot happen, and the plan's refusal is what the user must read, not an OSError from the start."""
    root = make_root(tmp_path, BASE)
    (root / "etc/containerd/.runbook-tmp.config.toml.k1ll3d").write_bytes(b"half a config")
    with _attribute(root / "etc/containerd", "i"):
        failed = assert_failed_clearly(run_apply(root), 2, "chattr -i")
        assert failed.problems[0].path == "/etc/containerd"
    assert (root / "etc/containerd/.runbook-tmp.config.toml.k1ll3d").exists()


def test_remove_refuses_an_immutable_config_before_retiring_anything(tmp_path):
    root = make_root(tmp_path, BASE)
    assert FAILED not in [r.status for r in run_apply(root)]
    with _attribute(root / CONFIG, "i"):
        before = snapshot(root)
        results = _run(root, mode="remove")
        assert results["remove"].failed
        assert "chattr -i" in results["remove"].problems[0].fix.en
        assert _without_lock(snapshot(root)) == _without_lock(before), "no toolkit file was retired either"


_PLAN_APPLY_AND_REMOVE = """
import sys
import tomllib
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
from runbook_lib.findings.errors import RunbookError
for mode in ("apply", "remove"):
    try:
        rb = Run(validate(root=sys.argv[1], mode=mode)).start()
    except RunbookError as exc:
        print(mode, "START", exc.code, exc.what.en, "|", exc.what.ko, "|", exc.fix.en)
        continue
    try:
        rb.preflight()
        print(mode, "REFUSED" if rb.refused else "PLANNED", *[p.what.en + " | " + p.fix.en for _, p in rb.refusals()])
    finally:
        rb.finish()
"""


@pytest.mark.parametrize("mounted", [".", "etc"], ids=["whole-root", "etc"])
def test_a_read_only_mount_is_refused_clearly(tmp_path, mounted):
    """A real read-only bind mount, in a mount namespace of its own (nothing outside the test sees it)."""
    realenv.need_root()
    if shutil.which("unshare") is None:
        realenv.missing("unshare (util-linux) 가 없습니다 / unshare (util-linux) is missing")
    root = make_root(tmp_path, BASE)
    before = snapshot(root)
    script = (f"mount --make-rprivate / && mount --bind -o ro {root / mounted} {root / mounted} && "
              f"exec {sys.executable} -c '{_PLAN_APPLY_AND_REMOVE}' {root}")
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    apply, remove = proc.stdout.splitlines()
    assert "read-only" in apply and "findmnt -T" in apply, apply
    if mounted == ".":  # even the lock folder cannot be made: refused at the start, in both modes
        assert all(" START write.failed " in line and "읽기 전용" in line for line in (apply, remove)), proc.stdout
    else:
        assert apply.startswith("apply REFUSED") and "/etc/containerd" in apply
        assert remove == "remove PLANNED", "nothing of the runbook's is there: nothing to write, no refusal"
    assert _without_lock(snapshot(root)) == _without_lock(before)


def test_a_config_that_is_a_single_file_bind_mount_is_refused_before_the_first_write(tmp_path):
    """k3d's `-v config.toml.tmpl:...`, kind's extraMounts, a DaemonSet's single-file hostPath: rename(2) over a
    mount point fails with EBUSY. Step 1 used to create /root/toolkit and step 2 then failed, "check disk space"."""
    realenv.need_root()
    if shutil.which("unshare") is None:
        realenv.missing("unshare (util-linux) 가 없습니다 / unshare (util-linux) is missing")
    root = make_root(tmp_path, BASE)
    source = tmp_path / "mounted-config.toml"
    source.write_bytes(BASE)
    before = snapshot(root)
    script = (f"mount --make-rprivate / && mount --bind {source} {root / CONFIG} && "
              f"exec {sys.executable} -c '{_PLAN_APPLY_AND_REMOVE}' {root}")
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    apply, remove = proc.stdout.splitlines()
    assert apply.startswith("apply REFUSED") and "/etc/containerd/config.toml" in apply and "bind mount" in apply
    assert "findmnt -T" in apply
    assert remove == "remove PLANNED"
    assert _without_lock(snapshot(root)) == _without_lock(before), "no toolkit folder, no backup"
    assert source.read_bytes() == BASE


# --- mode=remove on a node the runbook never touched ---------------------------------------------------------

def test_remove_on_a_node_without_a_config_finds_nothing_to_remove(tmp_path):
    """containerd runs on its defaults: there is nothing of the runbook's, not a refusal telling to run step 1."""
    root = tmp_path / "root"
    root.mkdir()
    before = snapshot(root)
    results = _run(root, mode="remove")
    assert results["remove"].status == "unchanged" and not results["remove"].failed, results["remove"].text()
    assert _without_lock(snapshot(root)) == _without_lock(before)
    assert not any(r.failed for r in results.values())


def test_remove_after_an_in_place_apply_is_not_stopped_by_a_conf_d_that_is_a_file(tmp_path):
    """remove looks for the drop-ins the runbook may have written (the variants' too) in conf.d: a conf.d that is
    a file holds none, and the in-place removal goes on instead of refusing."""
    root = make_root(tmp_path, BASE)
    (root / "etc/containerd/conf.d").write_text("made by mistake\n")
    assert FAILED not in [r.status for r in run_apply(root)]
    results = _run(root, mode="remove")
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG).read_bytes() == BASE
    assert (root / "etc/containerd/conf.d").read_text() == "made by mistake\n"


def test_remove_takes_the_runbooks_drop_in_even_when_config_toml_is_gone(tmp_path):
    root = make_root(tmp_path, BASE)
    assert FAILED not in [r.status for r in run_apply(root, layout="dropin")]
    (root / CONFIG).unlink()
    results = _run(root, mode="remove", layout="dropin")
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert not (root / "etc/containerd/conf.d/99-nvidia.toml").exists()
    # the runbook made that drop-in: nothing of it stays, not even a backup (docs/GUARANTEES.md)
    assert list((root / "etc/containerd/conf.d").glob("99-nvidia.toml.runbook-backup-*")) == []
    again = _run(root, mode="remove", layout="dropin")
    assert again["remove"].status == "unchanged" and not again["remove"].failed


def test_folder_creation_that_fails_is_a_write_error_not_a_traceback(tmp_path):
    from runbook_lib.fs.safe_write import ensure_dir
    from runbook_lib.fs.target import Target
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    with _attribute(root / "etc", "i"):
        with pytest.raises(WriteError) as err:
            ensure_dir(Target(root), "/etc/containerd")
    assert "chattr -i" in err.value.fix.en and "/etc" in err.value.what.en
    assert_bilingual(err.value.what.ko + " " + err.value.what.en)


# --- a control character in the config (a terminal colour code pasted into a comment) ------------------------

@pytest.mark.parametrize("char", [b"\x00", b"\x1b", b"\x7f"], ids=["nul", "escape", "delete"])
def test_a_control_character_in_a_comment_is_named_without_claiming_containerd_fails(tmp_path, char):
    """containerd 1.6 reads it (asked here); tomllib cannot, so the runbook refuses, and says exactly that."""
    data = BASE.replace(b"# air-gapped", b"# air-gapped " + char + b"[0m", 1)
    assert data != BASE
    root = make_root(tmp_path, data)
    assert containerd_reads(root)["default_runtime_name"] == "runc", "containerd 1.6 accepts the file"
    before = snapshot(root)
    failed = assert_failed_clearly(run_apply(root), 2, f"0x{char.hex()}", f"sed -i 's/\\x{char.hex()}//g'")
    problem = failed.problems[0]
    assert problem.code == "toml.control_in_comment" and problem.line == data[:data.index(char)].count(b"\n") + 1
    assert "does not start" not in problem.what.en and "containerd 1.6" in problem.what.ko
    assert char.decode() not in problem.excerpt, "the excerpt shows the character's picture, not the character"
    assert _without_lock(snapshot(root)) == _without_lock(before)


def test_a_control_character_in_a_string_is_a_syntax_error_containerd_rejects_too(tmp_path):
    data = BASE.replace(b'snapshotter = "overlayfs"', b'snapshotter = "overlay\x01fs"', 1)
    assert data != BASE
    root = make_root(tmp_path, data)
    with pytest.raises(ContainerdRejected, match="control character"):
        containerd_reads(root)
    failed = assert_failed_clearly(run_apply(root), 2, "0x01", "\\u0001")
    assert failed.problems[0].code == "toml.control_character"
    assert "'\\x01'" not in failed.problems[0].what.en, "no Python repr in the sentence"


# --- the runbook's own files, edited by hand -------------------------------------------------------------------

def test_a_drop_in_edited_by_hand_is_kept_byte_for_byte_by_the_next_apply(tmp_path):
    """The 1.x drop-in carries the whole CRI table and says "change CRI settings here": an air-gapped node points
    sandbox_image at its mirror there, with a comment. Check passes; apply must then say unchanged, not render
    the file again and drop the comment."""
    root = make_root(tmp_path, BASE)
    assert FAILED not in [r.status for r in run_apply(root, layout="dropin")]
    drop = root / "etc/containerd/conf.d/99-nvidia.toml"
    text = drop.read_text()
    assert 'sandbox_image = "' in text
    edited = text.replace('sandbox_image = "', 'sandbox_image = "registry.local:5000/pause:3.9"  # our mirror\n    #', 1)
    drop.write_text(edited)
    checked = _run(root, mode="check", layout="dropin")
    assert not any(r.failed for r in checked.values()), [r.text() for r in checked.values() if r.failed]
    before = snapshot(root)
    results = run_apply(root, layout="dropin")
    assert all(r.status in ("unchanged", "skipped") for r in results), [(r.step, r.status) for r in results]
    assert drop.read_text() == edited
    assert _without_lock(snapshot(root)) == _without_lock(before), "no backup, no rewrite"
    seen = containerd_reads(root)
    assert seen["runtime"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime"


def test_remove_keeps_the_cri_settings_a_person_made_in_the_drop_in(tmp_path):
    """containerd 1.x: the drop-in carries the whole CRI table. Retiring it after a person moved sandbox_image to
    the node's mirror there would take the mirror back too; only the runtime's table goes."""
    from runbook_lib.containerd.verify import containerd_dump
    root = make_root(tmp_path, BASE)
    assert FAILED not in [r.status for r in run_apply(root, layout="dropin")]
    drop = root / "etc/containerd/conf.d/99-nvidia.toml"
    mirror = 'sandbox_image = "registry.local:5000/pause:3.9"  # our mirror'
    text = drop.read_text()
    drop.write_text(text[:text.index("sandbox_image = ")] + mirror + text[text.index("\n", text.index("sandbox_image = ")):])
    results = _run(root, mode="remove", layout="dropin")
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert mirror in drop.read_text() and "runtimes.nvidia" not in drop.read_text()
    seen = containerd_reads(root)
    assert seen["runtime"] is None and seen["default_runtime_name"] == "runc" and "runc" in seen["runtime_names"]
    binary = realenv.need_program("containerd")
    dump = tomllib.loads(containerd_dump(binary, root / CONFIG, root))
    assert dump["plugins"]["io.containerd.grpc.v1.cri"]["sandbox_image"] == "registry.local:5000/pause:3.9"
    before = snapshot(root)
    again = _run(root, mode="remove", layout="dropin")
    assert again["remove"].status == "unchanged" and not again["remove"].failed, again["remove"].text()
    assert _without_lock(snapshot(root)) == _without_lock(before)


def test_a_folder_where_the_lock_file_should_be_is_refused_with_a_fix_that_works(tmp_path):
    root = make_root(tmp_path, BASE)
    (root / "run/lock/nvidia-runtime-runbook.lock").mkdir(parents=True)
    before = snapshot(root)
    with pytest.raises(WriteError) as err:
        run_apply(root)
    assert "rmdir /run/lock/nvidia-runtime-runbook.lock" in err.value.fix.en
    assert_bilingual(err.value.what.ko + " " + err.value.what.en)
    assert snapshot(root) == before
    subprocess.run(err.value.fix.en.split(": ", 1)[1].replace("/run", str(root / "run"), 1), shell=True, check=True)
    assert FAILED not in [r.status for r in run_apply(root)], "the fix given is the fix"


# --- through the notebook: a cell's own reads --------------------------------------------------------------

@pytest.mark.parametrize("case", ["etc-containerd-a-file", "report-a-fifo"])
def test_check_mode_through_the_notebook_judges_every_step_when_a_cell_cannot_read_a_file(tmp_path, case):
    """A check cell reads the files itself (rb.read, expect.file): a file it cannot read used to stop the whole
    notebook there with that error, so grading never reached the later steps. Now it is that step's finding."""
    from grading_helpers import errors, papermill, step_records
    root = tmp_path / "root"
    if case == "etc-containerd-a-file":
        (root / "etc").mkdir(parents=True)
        (root / "etc/containerd").write_bytes(b"not a folder\n")
    else:
        root = make_root(tmp_path, BASE)
        (root / TOOLKIT).mkdir(parents=True)
        os.mkfifo(root / TOOLKIT / "report.txt")
    out = tmp_path / "checked.ipynb"
    proc = papermill(root, out, "-p", "mode", "check")
    assert proc.returncode != 0
    assert [e["ename"] for e in errors(out)] == ["StepFailed"], "only the last cell fails, with every finding"
    records = step_records(out)
    assert {1, 2, 3, 4, 5, 6, 7, 8} <= set(records)
    failing = 1 if case == "etc-containerd-a-file" else 8
    assert records[failing]["status"] == "failed"
    assert any(p["code"].startswith("write.failed.") for p in records[failing]["problems"]), records[failing]["problems"]
    removed = tmp_path / "removed.ipynb"
    proc = papermill(root, removed, "-p", "mode", "remove")
    if case == "report-a-fifo":
        assert proc.returncode == 0, [e["traceback"] for e in errors(removed)]


def test_remove_still_retires_a_drop_in_whose_only_extra_is_the_runbooks_cdi_setting(tmp_path):
    """enable_cdi=True puts enable_cdi into the 1.x drop-in: that is the runbook's own part, not a person's
    setting, so the drop-in goes and config.toml comes back byte for byte."""
    root = make_root(tmp_path, BASE)
    assert FAILED not in [r.status for r in run_apply(root, layout="dropin", enable_cdi=True)]
    assert "enable_cdi = true" in (root / "etc/containerd/conf.d/99-nvidia.toml").read_text()
    results = _run(root, mode="remove", layout="dropin", enable_cdi=True)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert not (root / "etc/containerd/conf.d/99-nvidia.toml").exists()
    assert (root / CONFIG).read_bytes() == BASE


@pytest.mark.parametrize("own_spec", [False, True], ids=["runbooks-spec", "nodes-own-spec"])
def test_apply_with_enable_cdi_then_remove_gives_the_config_back(tmp_path, own_spec):
    """The enable_cdi line was written for the runbook's minimal CDI spec: when that spec goes, the line goes
    (remove run with the default parameters, as an operator would). A spec the node had is kept; the
    enable_cdi the run added goes all the same, since remove gives back the node as it was before the run."""
    from runbook_lib.cdi import spec as cdi
    root = make_root(tmp_path, BASE)
    if own_spec:
        (root / "etc/cdi").mkdir(parents=True)
        (root / "etc/cdi/nvidia.yaml").write_text(cdi.build_minimal_spec() + "# generated by nvidia-ctk on this node\n")
    assert FAILED not in [r.status for r in run_apply(root, enable_cdi=True)]
    assert "enable_cdi = true" in (root / CONFIG).read_text()
    results = _run(root, mode="remove")
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG).read_bytes() == BASE
    assert (root / "etc/cdi/nvidia.yaml").exists() is own_spec
    again = _run(root, mode="remove")
    assert again["remove"].status == "unchanged" and not again["remove"].failed


# --- mode=remove on a distribution's node ----------------------------------------------------------------------

K3S = "var/lib/rancher/k3s/agent/etc/containerd"


@pytest.mark.parametrize("case", ["k3s-template-created", "k3s-template-existing-through-a-link", "k3s-dropin"])
def test_remove_on_a_k3s_node_takes_the_runtime_out_of_the_route_it_was_written_to(tmp_path, case):
    """apply writes k3s's template (or drop-in folder), never the generated config.toml. remove used to plan on
    that generated file only: it found nothing of the runbook's there, retired the toolkit files, said changed,
    and left the runtime in the template, where k3s put it back at its next start."""
    from distro_helpers import distro_fixture, write_root
    generated = "k3s-v3-dropin/config.toml" if case == "k3s-dropin" else "k3s-v3/config.toml"
    files = {f"{K3S}/config.toml": distro_fixture(generated)}
    template = distro_fixture("k3s-v3/config-v3.toml.tmpl")
    if case == "k3s-template-existing-through-a-link":
        files["etc/rancher/k3s/containerd.tmpl"] = template
    root = write_root(tmp_path, files)
    if case == "k3s-template-existing-through-a-link":
        os.symlink("/etc/rancher/k3s/containerd.tmpl", root / K3S / "config-v3.toml.tmpl")
    params = {"replace_runtime": True} if case == "k3s-dropin" else {}
    route = {"k3s-dropin": f"{K3S}/config-v3.toml.d/99-nvidia.toml"}.get(case, f"{K3S}/config-v3.toml.tmpl")
    untouched = (root / K3S / "config.toml").read_bytes()
    assert not any(r.failed for r in _run(root, **params).values())
    written = root / ("etc/rancher/k3s/containerd.tmpl" if "link" in case else route)  # the link read in the root
    assert "nvidia" in written.read_text()
    results = _run(root, mode="remove", **params)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    if case == "k3s-template-existing-through-a-link":
        assert os.readlink(root / K3S / "config-v3.toml.tmpl") == "/etc/rancher/k3s/containerd.tmpl"
        assert (root / "etc/rancher/k3s/containerd.tmpl").read_text() == template, "the template as it was"
    else:
        assert not (root / route).exists()
        assert list((root / route).parent.glob("*.runbook-backup-*")) == []  # the runbook made it: no backup stays
    assert (root / K3S / "config.toml").read_bytes() == untouched, "the generated file is never edited"
    again = _run(root, mode="remove", **params)
    assert again["remove"].status == "unchanged" and not again["remove"].failed, again["remove"].text()


_APPLY_ON_A_FULL_DISK = """
import os, sys
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run
root = sys.argv[1]
try:  # fill the file system the root is on
    with open(os.path.join(root, "filler"), "wb") as f:
        while True:
            f.write(b"x" * 4096)
            f.flush()
except OSError:
    pass
rb = Run(validate(root=root)).start()
try:
    rb.preflight()
    print("REFUSED" if rb.refused else "PLANNED", *[f"{s.NUMBER} {p.what.en} | {p.what.ko} | {p.fix.en}" for s, p in rb.refusals()])
finally:
    rb.finish()
os.unlink(os.path.join(root, "filler"))
print(*sorted(str(p.relative_to(root)) for p in __import__("pathlib").Path(root).rglob("*")))
"""


def test_a_full_disk_is_refused_before_the_first_write(tmp_path):
    """A node whose / is full (images, logs): the writes used to start, step 1 created its folders and step 2 then
    failed with ENOSPC. A small tmpfs, in a mount namespace of its own, is the full disk."""
    realenv.need_root()
    if shutil.which("unshare") is None:
        realenv.missing("unshare (util-linux) 가 없습니다 / unshare (util-linux) is missing")
    root = tmp_path / "root"
    root.mkdir()
    script = (f"mount --make-rprivate / && mount -t tmpfs -o size=128k runbook-full {root} && "
              f"mkdir -p {root}/etc/containerd && cp {tmp_path / 'config.toml'} {root / CONFIG} && "
              f"exec {sys.executable} -c '{_APPLY_ON_A_FULL_DISK}' {root}")
    (tmp_path / "config.toml").write_bytes(BASE)
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    verdict, listing = proc.stdout.splitlines()
    assert verdict.startswith("REFUSED 1 not enough disk space") and "디스크 공간" in verdict and "df -h" in verdict, verdict
    assert listing.split() == ["etc", "etc/containerd", "etc/containerd/config.toml"], "nothing was left, not even the lock"


def test_a_nixos_config_in_the_read_only_store_gets_the_nixos_fix(tmp_path):
    """NixOS: /etc/containerd/config.toml links into /nix/store, which is mounted read-only. "Remount it
    read-write" would be the wrong advice; the config comes from configuration.nix."""
    realenv.need_root()
    if shutil.which("unshare") is None:
        realenv.missing("unshare (util-linux) 가 없습니다 / unshare (util-linux) is missing")
    root = tmp_path / "root"
    store = root / "nix/store/0aaa-containerd-config-checked.toml"
    store.mkdir(parents=True)
    (store / "config.toml").write_bytes(BASE)
    (root / "etc/containerd").mkdir(parents=True)
    os.symlink("/nix/store/0aaa-containerd-config-checked.toml/config.toml", root / CONFIG)
    before = snapshot(root)
    script = (f"mount --make-rprivate / && mount --bind -o ro {root / 'nix/store'} {root / 'nix/store'} && "
              f"exec {sys.executable} -c '{_PLAN_APPLY_AND_REMOVE}' {root}")
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    apply = proc.stdout.splitlines()[0]
    assert apply.startswith("apply REFUSED") and "virtualisation.containerd.settings" in apply, apply
    assert "remount" not in apply
    assert _without_lock(snapshot(root)) == _without_lock(before)


@pytest.mark.parametrize("layout", ["inplace", "dropin"])
@pytest.mark.parametrize("ending", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_a_config_without_a_final_newline_keeps_it_so_and_comes_back_byte_for_byte(tmp_path, layout, ending):
    """The runtime goes above the last line: that line is not touched, so it still has no newline, and remove
    gives back the original bytes (it used to keep the newline apply had added)."""
    data = BASE.replace(b"\n", ending.encode()).rstrip(b"\r\n")
    root = make_root(tmp_path, data)
    assert FAILED not in [r.status for r in run_apply(root, layout=layout)]
    assert not (root / CONFIG).read_bytes().endswith(b"\n")
    assert containerd_reads(root)["runtime"] is not None
    results = _run(root, mode="remove", layout=layout)
    assert results["remove"].status == "changed" and not results["remove"].failed, results["remove"].text()
    assert (root / CONFIG).read_bytes() == data
