"""Step 9 (runbook_lib/steps/ask_containerd.py) shows only what containerd read for this verdict: a check cell run
again after the config changed, where containerd now refuses the file, shows containerd's refusal and none of the
earlier reading. In apply, what containerd reads differently beside the runtime is named (apply's promise: by
its first eight paths; a drop-in's own import is no change beside it); a
value it reads other than the runbook's is named for the runbook's runtime, not for another owner's; on a k3s
template the reading before k3s restarts is a pending restart. In process, with the real containerd 1.6 asked
(`containerd config dump`), for `make mutate`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from distro_helpers import distro_fixture, write_root
from grading_helpers import CONFIG, lab_root, one_step
from helpers import finished_run
from reliability_helpers import BASE, make_root
from runbook_lib.containerd.ask import containerd_version
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

sys.path.insert(0, str(Path(__file__).parents[1] / "real"))
import realenv  # noqa: E402 - tests/real's helpers: skip, or fail under RUNBOOK_REQUIRE_REAL=1

pytestmark = pytest.mark.real


def test_a_verdict_again_after_containerd_refuses_the_file_shows_no_earlier_reading(tmp_path):
    binary = realenv.need_program("containerd")
    realenv.need_root()
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", containerd_bin=binary)).start()
    try:
        rb.preflight()
        step = rb.step("containerd")
        first = rb.run(step)
        assert first.status == "passed" and first.evidence, first.text()
        config = root / CONFIG
        config.write_text(config.read_text().replace("SystemdCgroup = true", "SystemdCgroup = "))  # not TOML
        again = rb.verdict(step)  # the check cell run again, in the same kernel
    finally:
        rb.finish()
    assert again.status == "failed" and again.problems, again.text()
    assert again.evidence == {}, again.evidence  # nothing containerd read before is shown as read now


def test_the_check_cells_answer_is_the_verdicts_only_while_the_files_are_the_ones_it_was_asked_of(tmp_path):
    """Step 9's cell asks containerd (rb.ask_containerd) and its verdict reads that answer instead of asking
    twice; an answer asked before the files changed (a cell run before its write, a fix by hand since) is not
    taken for the files as they are: the verdict asks again."""
    binary = realenv.need_program("containerd")
    realenv.need_root()
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", containerd_bin=binary)).start()
    try:
        rb.preflight()
        asked = rb.ask_containerd()
        assert asked is not None and "nvidia" in rb.runtime_names(asked)
        config = root / CONFIG
        config.write_text(config.read_text().replace("containerd.runtimes.nvidia", "containerd.runtimes.gpu"))
        result = rb.verdict(rb.step("containerd"))
    finally:
        rb.finish()
    assert [p.code for p in result.problems] == ["containerd.reads.runtime_missing"], result.text()


# --- what step 9 adds to containerd's reading: apply's promise, another owner's values, a pending template -----


def _nine(root, mode, *, between=None, **params):
    """Step 9's result in a run that planned every step (in apply mode, containerd's reading before any write is
    taken then); ``between`` runs after the plans, before step 9."""
    binary = realenv.need_program("containerd")
    realenv.need_root()
    rb = Run(validate(root=str(root), mode=mode, containerd_bin=binary, **params)).start()
    try:
        rb.preflight()
        if between is not None:
            between()
        return rb, rb.run(rb.step("containerd"))
    finally:
        rb.finish()


def test_in_apply_what_containerd_reads_differently_beside_the_runtime_is_named(tmp_path):
    """apply's promise, asked of containerd itself: beside the runtimes and the CDI settings it reads the same
    after the run as before it. Here the pause image changed by hand once the run had planned: step 9 names it."""
    root = lab_root(tmp_path)
    config = root / CONFIG

    def by_hand():
        config.write_text(config.read_text().replace("pause:3.9", "pause:3.10"))
    _, result = _nine(root, "apply", between=by_hand)
    assert [(p.code, p.path) for p in result.problems] == [("containerd.reads.changed_beside", "/" + CONFIG)]
    assert result.problems[0].values["paths"] == "plugins.io.containerd.grpc.v1.cri.sandbox_image"


def test_in_apply_a_config_containerd_reads_as_before_keeps_the_promise(tmp_path):
    _, result = _nine(lab_root(tmp_path), "apply")
    assert result.status == "passed" and result.problems == [], result.text()


def test_what_containerd_reads_differently_is_named_by_its_first_eight_paths_with_the_runtime_and_the_command(tmp_path):
    """Nine runtimes added by hand once the run had planned: the finding names the first eight of the paths
    containerd reads differently (in order, comma-separated), the runbook's runtime it kept apart, and the command
    whose output before and after the issue asks for: `containerd --config <config_path> config dump`."""
    root = lab_root(tmp_path)
    config = root / CONFIG
    runtimes = '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes'

    def by_hand():
        config.write_text(config.read_text() + "".join(
            f'\n{runtimes}.extra{i}]\n  runtime_type = "io.containerd.runc.v2"\n' for i in range(1, 10)))
    _, result = _nine(root, "apply", between=by_hand)
    [problem] = result.problems
    assert problem.code == "containerd.reads.changed_beside"
    assert problem.values["paths"] == ", ".join(
        f"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.extra{i}.runtime_type" for i in range(1, 9))
    assert problem.values["runtime"] == "nvidia"
    cmd = f"containerd --config /{CONFIG} config dump"
    assert problem.values["cmd"] == cmd
    assert f"`{cmd}`" in problem.fix.en and f"`{cmd}`" in problem.fix.ko


def test_an_apply_with_a_drop_in_keeps_the_promise_though_containerd_now_imports_the_drop_in(tmp_path):
    """layout=dropin: the run writes conf.d/99-nvidia.toml and names it in config.toml's `imports`, so
    containerd's reading lists one more imported file after the run. That entry is what the run means to add,
    not a change beside the runtime."""
    binary = realenv.need_program("containerd")
    realenv.need_root()
    root = make_root(tmp_path, BASE)
    rb = finished_run(root, mode="apply", layout="dropin", containerd_bin=binary)
    assert (root / "etc/containerd/conf.d/99-nvidia.toml").is_file()
    nine = rb.results["containerd"]
    assert nine.status == "passed" and nine.problems == [], nine.text()


def _nvidia_options(root, old: str, new: str) -> None:
    config = root / CONFIG
    text = config.read_text()
    head, tail = text.split(".runtimes.nvidia.options]", 1)
    assert old in tail
    config.write_text(head + ".runtimes.nvidia.options]" + tail.replace(old, new, 1))


def test_a_value_containerd_reads_other_than_the_runbooks_is_named_for_the_runbooks_own_runtime(tmp_path):
    root = lab_root(tmp_path)
    _nvidia_options(root, "SystemdCgroup = true", "SystemdCgroup = false")
    _, result = _nine(root, "check")
    assert [(p.code, p.values["key"]) for p in result.problems] == [("containerd.reads.value_differs", "SystemdCgroup")]


def test_another_owners_runtime_of_that_name_has_its_own_values_not_the_runbooks(tmp_path):
    """The GPU Operator's toolkit binary under that runtime name: step 2 says whose it is, and step 9 does not
    ask for the runbook's values in it (no fix overwrites another owner's runtime)."""
    root = lab_root(tmp_path)
    _nvidia_options(root, 'BinaryName = "/usr/bin/nvidia-container-runtime"\n            SystemdCgroup = true',
                    'BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"\n            SystemdCgroup = false')
    rb, result = _nine(root, "check", profile="node")  # another owner's runtime exists only on a node
    assert [p.code for p in rb.run(rb.step("runtime")).problems] == ["runtime.other_binary"]
    assert result.status == "passed" and result.problems == [], result.text()


K3S = "var/lib/rancher/k3s/agent/etc/containerd"


def test_on_a_k3s_template_before_k3s_restarts_containerd_still_reads_the_old_file_and_step_9_says_so(tmp_path):
    """k3s writes config.toml from config.toml.tmpl at its next start only: right after apply, containerd's
    reading of the generated file has no nvidia yet, which step 9 says as a pending restart (a warning, with
    k3s's restart), not as "containerd dropped the table"."""
    binary = realenv.need_program("containerd")
    realenv.need_root()
    crun = '\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n  runtime_type = "io.containerd.runc.v2"\n'
    root = write_root(tmp_path, {f"{K3S}/config.toml": distro_fixture("k3s-v2/config.toml") + crun,
                                 f"{K3S}/config.toml.tmpl": '{{ template "base" . }}\n'})
    rb = finished_run(root, containerd_bin=binary)
    nine = rb.results["containerd"].problems
    assert [(p.code, p.is_error) for p in nine] == [("containerd.reads.not_regenerated", False)]
    assert rb.results["containerd"].status == "restart-needed"  # its own status, never passed (steps/status.py)
    values = {k: nine[0].values[k] for k in ("distro", "template", "generated", "restart", "runtime", "runtimes")}
    assert values == {"distro": "k3s", "template": f"/{K3S}/config.toml.tmpl", "generated": f"/{K3S}/config.toml",
                      "restart": "systemctl restart k3s", "runtime": "nvidia", "runtimes": "crun, runc"}
    assert nine[0].path == f"/{K3S}/config.toml"  # config_path on k3s: the file containerd was asked about
    version = containerd_version(binary)  # a warning only: step 9 still says what containerd reads
    assert rb.results["containerd"].message.en == f"containerd {version} reads no nvidia runtime in the config."
    assert rb.results["containerd"].message.ko == f"containerd({version})가 읽은 설정에는 nvidia 런타임이 없습니다."


def test_on_k3s_before_any_template_is_written_a_runtime_containerd_does_not_read_is_missing_not_pending(tmp_path):
    """A k3s node with its generated config.toml and no config.toml.tmpl yet (a check before apply): nothing is
    rendered from a template, so no restart is pending; containerd reads no nvidia runtime, and step 9 says so."""
    root = write_root(tmp_path, {f"{K3S}/config.toml": distro_fixture("k3s-v2/config.toml")})
    rb, result = _nine(root, "check")
    assert rb.route.distro == "k3s" and not (root / K3S / "config.toml.tmpl").exists()
    assert [(p.code, p.values["runtimes"]) for p in result.problems] == [("containerd.reads.runtime_missing", "runc")]


def test_a_check_where_the_distribution_cannot_be_told_still_says_what_containerd_reads(tmp_path):
    """Two distributions found (no route): check mode does not refuse, and step 9 still asks containerd about
    config_path and says what it reads."""
    root = lab_root(tmp_path)
    (root / "etc/rancher/k3s").mkdir(parents=True)
    (root / "etc/rancher/rke2").mkdir(parents=True)
    rb, result = _nine(root, "check")
    assert rb.route is None and rb.route_refusal.code == "distro.ambiguous"
    assert result.status == "passed" and result.problems == [], result.text()
    assert "BinaryName = \"/usr/bin/nvidia-container-runtime\"" in result.message.en


@pytest.mark.parametrize("broken", [
    lambda text: text.replace("SystemdCgroup = true", "SystemdCgroup = ", 1),  # containerd 1.6 panics: no file named
    lambda text: 'version = 2\n[plugins.cri]\n  sandbox_image = "pause:3.9"\n',  # it names the file it read
], ids=["not-toml", "plugin-key-uri"])
def test_a_config_containerd_refuses_is_named_with_the_command_that_asks_containerd_about_config_path(
        tmp_path, broken):
    """containerd's refusal is the finding of config_path (whether or not its words name the file), and the fix's command
    asks containerd about config_path itself: `containerd --config <config_path> config dump`."""
    root = lab_root(tmp_path)
    config = root / CONFIG
    config.write_text(broken(config.read_text()))
    _, result = _nine(root, "check")
    [problem] = result.problems
    assert (problem.code, problem.path) == ("containerd.rejects", "/" + CONFIG)
    cmd = f"containerd --config /{CONFIG} config dump"
    assert problem.values["cmd"] == cmd
    assert f"`{cmd}`" in problem.fix.en and f"`{cmd}`" in problem.fix.ko


# --- what step 9 compares containerd's reading with: the file's runtime table, its default runtime, its version ---

BROKEN = Path(__file__).parents[1] / "fixtures" / "broken"


def test_a_key_the_file_gives_the_runtime_that_containerd_does_not_read_is_named(tmp_path):
    """The runtime's table as the runbook reads the file, key by key against containerd's reading: a key with a
    value that containerd does not read (it knows no such key: a typo of runtime_type) is named as dropped."""
    root = lab_root(tmp_path)
    config = root / CONFIG
    text = config.read_text()
    head, tail = text.split(".runtimes.nvidia]\n", 1)
    config.write_text(head + '.runtimes.nvidia]\n          runtimetype = "io.containerd.runc.v2"\n' + tail)
    _, result = _nine(root, "check")
    assert [(p.code, p.values["key"]) for p in result.problems] == [("containerd.reads.key_dropped", "runtimetype")]


def _default_row(result) -> list[str]:
    [table] = result.evidence.values()
    [row] = [line for line in table.splitlines() if line.startswith("default_runtime_name")]
    return re.split(r"\s{2,}", row)  # item, expected, containerd reads, ✓ or ✗


def test_the_default_runtime_containerd_should_read_is_the_files_own_when_it_names_another_runtime(tmp_path):
    """A node whose default runtime is not runc (here crun, a runtime the file defines): containerd reading that
    default is what the runbook expects (the file's default, kept), not runc."""
    root = lab_root(tmp_path)
    config = root / CONFIG
    text = config.read_text()
    assert text.count('default_runtime_name = "runc"') == 1
    head, tail = text.replace('default_runtime_name = "runc"', 'default_runtime_name = "crun"').split(
        ".runtimes.nvidia]\n", 1)
    crun = ('.runtimes.crun]\n          runtime_type = "io.containerd.runc.v2"\n\n'
            + head.rsplit("\n", 1)[1] + ".runtimes.nvidia]\n")
    config.write_text(head + crun + tail)
    _, result = _nine(root, "check")
    assert result.problems == [], result.text()
    row = _default_row(result)
    assert row == ["default_runtime_name", '"crun" (string), nvidia 아님 / not nvidia', '"crun" (string)', "✓"], row


def test_a_file_of_a_version_newer_than_containerd_knows_is_said_as_such(tmp_path):
    """containerd 1.6 knows no version 3: it dumps version 2 and drops the file's version-3 tables without an
    error. Step 9 says the file's version is unknown to it (the cause), not only what it reads instead."""
    root = lab_root(tmp_path, (BROKEN / "v2-path-in-v3-file.toml").read_bytes())
    _, result = _nine(root, "check")
    assert [p.code for p in result.problems] == ["containerd.reads.version_unknown",
                                                 "containerd.reads.default_not_a_runtime"], result.text()
    assert (result.problems[0].values["file_version"], result.problems[0].values["dumped"]) == (3, 2)


def test_a_runtime_name_the_file_gives_a_value_not_a_table_is_not_compared_key_by_key(tmp_path):
    """The file's entry for the runtime, where the runbook reads it, is not a table (a string), while containerd
    reads a table of that name elsewhere (1.6, a version-3 file: the stray version-2 table): step 9 still says
    what it says of that reading, with no keys of the file's entry to compare."""
    text = (BROKEN / "v2-path-in-v3-file.toml").read_text()
    header = '[plugins."io.containerd.cri.v1.runtime".containerd.runtimes]\n'
    assert text.count(header) == 1
    root = lab_root(tmp_path, text.replace(header, header + '        nvidia = "/usr/bin/nvidia-container-runtime"\n').encode())
    _, result = _nine(root, "check")
    assert [p.code for p in result.problems] == ["containerd.reads.version_unknown",
                                                 "containerd.reads.default_not_a_runtime"], result.text()


# --- what step 9 says containerd read: the runtime's three values with their types, and the default runtime ------

def _said(root, **params):
    binary = realenv.need_program("containerd")
    _, result = _nine(root, "check", **params)
    return containerd_version(binary), result.message


def test_step_9_says_the_three_values_containerd_reads_for_the_runtime_with_their_types_and_the_default(tmp_path):
    version, said = _said(lab_root(tmp_path))
    seen = ('runtime_type = "io.containerd.runc.v2" (string), BinaryName = "/usr/bin/nvidia-container-runtime" '
            '(string), SystemdCgroup = true (boolean)')
    assert said.en == f"containerd {version} reads nvidia: {seen}, default runtime runc"
    assert said.ko == f"containerd({version})가 읽은 nvidia 런타임: {seen}, 기본 런타임 runc"


def test_an_option_containerd_reads_no_value_for_is_said_absent(tmp_path):
    """Another owner's runtime (the GPU Operator's binary, no SystemdCgroup): its values are not the runbook's to
    judge, so step 9 passes and says what containerd reads, the missing option as absent."""
    root = lab_root(tmp_path)
    _nvidia_options(root, 'BinaryName = "/usr/bin/nvidia-container-runtime"\n            SystemdCgroup = true',
                    'BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"')
    _, said = _said(root, profile="node")
    assert said.en.endswith('BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime" (string), '
                            'SystemdCgroup = (없음 / absent), default runtime runc'), said.en


def test_a_default_runtime_other_than_runc_is_said_as_containerd_reads_it(tmp_path):
    root = lab_root(tmp_path)
    config = root / CONFIG
    head, tail = config.read_text().replace('default_runtime_name = "runc"', 'default_runtime_name = "crun"').split(
        ".runtimes.nvidia]\n", 1)
    config.write_text(head + '.runtimes.crun]\n          runtime_type = "io.containerd.runc.v2"\n\n'
                      + head.rsplit("\n", 1)[1] + ".runtimes.nvidia]\n" + tail)
    _, said = _said(root)
    assert said.en.endswith(", default runtime crun")


def test_a_runtime_containerd_misses_because_it_knows_no_such_version_is_said_by_its_cause_alone(tmp_path):
    """A version-3 file with the runtime where version 3 puts it, asked of containerd 1.6: 1.6 reads no such
    runtime because it knows no version 3. The finding is that cause, not also "containerd reads no nvidia" (whose
    fix, a misplaced table, would send the reader the wrong way)."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((Path(__file__).parents[1] / "fixtures/containerd/containerd-2.0-docs-config-v3.toml")
                                .read_bytes())
    applied = finished_run(root, mode="apply")
    assert not [r.id for r in applied.failed_steps()], [r.text() for r in applied.failed_steps()]
    _, result = _nine(root, "check")
    assert [p.code for p in result.problems] == ["containerd.reads.version_unknown"], result.text()
    assert result.problems[0].values["file_version"] == 3


def test_a_pending_k3s_restart_over_a_file_where_containerd_reads_no_runtime_at_all_says_none(tmp_path):
    """The old generated file may leave containerd 1.x no runtime at all (an empty runtimes table, a default of
    its own; apply refuses such a node, check says what it finds): the pending restart says "-" for the runtimes
    containerd sees, not an empty list."""
    binary = realenv.need_program("containerd")
    realenv.need_root()
    old = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "crun"\n'
           '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes]\n')
    root = write_root(tmp_path, {f"{K3S}/config.toml": old, f"{K3S}/config.toml.tmpl": '{{ template "base" . }}\n'})
    nine = finished_run(root, containerd_bin=binary, mode="check").results["containerd"].problems  # apply refuses
    assert [(p.code, p.values["runtimes"]) for p in nine] == [("containerd.reads.not_regenerated", "-")]


# --- step 2 asks the node's containerd which config versions it knows (steps/runtime.py: _newer_than_containerd) --

def _step2(root, mode, **params):
    rb = Run(validate(root=str(root), mode=mode, **params)).start()
    try:
        plan = rb.preflight()["runtime"]
        return plan, (rb.run_all()["runtime"] if mode == "check" else None)
    finally:
        rb.finish()


def test_a_version_3_file_under_containerd_1_6_is_step_2s_refusal_naming_both_versions(tmp_path):
    """containerd 1.6 knows config versions up to 2: a runtime written into a version-3 file would never be
    read. Apply refuses before any write, and check fails step 2, each saying the file's version, the one
    containerd knows, and which containerd (its version and path), at the file's version line."""
    binary = realenv.need_program("containerd")
    text = (BROKEN / "v2-path-in-v3-file.toml").read_text()
    root = lab_root(tmp_path, text.encode())
    plan, _ = _step2(root, "apply", containerd_bin=binary)
    (p,) = [p for p in plan.refusals if p.is_a("config.version_newer_than_containerd")]
    _, checked = _step2(root, "check", containerd_bin=binary)
    (q,) = [q for q in checked.problems if q.is_a("config.version_newer_than_containerd")]
    version = containerd_version(binary)
    line = text.split("\n").index("version = 3") + 1
    for found in (p, q):
        assert (found.path, found.line) == ("/" + CONFIG, line)
        assert (found.values["file_version"], found.values["known"]) == (3, 2)
        assert (found.values["containerd_version"], found.values["binary"]) == (version, binary)
        assert f"({version}, {binary}) knows versions up to 2 only" in found.what.en
        assert found.why.en == "which containerd reads this version: version 3: containerd 2.0-2.2 (2.3+ migrates it; 1.x drops its tables)"


def test_a_version_2_file_or_no_containerd_to_ask_is_no_such_finding(tmp_path):
    binary = realenv.need_program("containerd")
    root = lab_root(tmp_path)
    for params in ({"containerd_bin": binary}, {}):  # 1.6 knows version 2; a lab root asks no containerd unasked
        plan, checked = _step2(root, "check", **params)
        assert not any(p.is_a("config.version_newer_than_containerd") for p in plan.refusals + checked.problems)
    v3 = lab_root(tmp_path / "v3", (BROKEN / "v2-path-in-v3-file.toml").read_bytes())
    plan, checked = _step2(v3, "check")  # the same file, no containerd asked: nothing is known to compare with
    assert not any(p.is_a("config.version_newer_than_containerd") for p in plan.refusals + checked.problems)


def test_a_containerd_whose_version_cannot_be_read_is_not_taken_for_one_that_knows_no_version_3(tmp_path):
    """`containerd --version` says nothing the runbook can read: what it knows is unknown, so a version-3 file is
    not refused for it (step 9, asking it, says what it reads)."""
    fake = tmp_path / "bin" / "containerd"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'a containerd of its own make'\n")
    fake.chmod(0o755)
    v3 = lab_root(tmp_path / "v3", (BROKEN / "v2-path-in-v3-file.toml").read_bytes())
    plan, _ = _step2(v3, "check", containerd_bin=str(fake))
    assert not any(p.is_a("config.version_newer_than_containerd") for p in plan.refusals)



def test_containerd_version_is_asked_once_per_binary_file_and_again_once_the_file_changed(tmp_path):
    """A run asks the version from several steps: one `--version` per binary as it is; the file rewritten at the
    same path (another program) is asked again, and a failed answer is not remembered."""
    fake, asked = tmp_path / "bin" / "containerd", tmp_path / "asked"
    fake.parent.mkdir()

    def write(version: str, status: int = 0) -> None:
        fake.write_text(f"#!/bin/sh\necho x >> {asked}\necho 'containerd example.com {version} abc'\nexit {status}\n")
        fake.chmod(0o755)

    def calls() -> int:
        return len(asked.read_text().splitlines()) if asked.exists() else 0

    write("v2.3.4")
    assert [containerd_version(str(fake)) for _ in range(3)] == ["v2.3.4"] * 3 and calls() == 1
    write("v2.4.10")  # another size: another file, whatever the clock's grain
    assert [containerd_version(str(fake)) for _ in range(2)] == ["v2.4.10"] * 2 and calls() == 2
    write("v9.9.9.9", status=1)
    assert [containerd_version(str(fake)) for _ in range(2)] == ["v9.9.9.9"] * 2 and calls() == 4
    fake.unlink()
    assert containerd_version(str(fake)) == "?"

# --- step 9's plan: what it will ask, and containerd asked before the writes only by a run that writes ----------

def test_step_9s_plan_says_which_containerd_it_asks_and_the_command(tmp_path, monkeypatch):
    """Step 9's plan names the binary and the command it runs; apply asks containerd once before its writes (for
    its promise: everything else read the same), check mode never before (it writes nothing)."""
    from runbook_lib.containerd import verify

    binary = realenv.need_program("containerd")
    realenv.need_root()
    calls = []
    real = verify.containerd_dump
    monkeypatch.setattr(verify, "containerd_dump", lambda *a, **kw: calls.append(a) or real(*a, **kw))
    root = lab_root(tmp_path)
    cmd = f"containerd --config /{CONFIG} config dump"
    for mode in ("check", "apply"):
        calls.clear()
        rb = Run(validate(root=str(root), mode=mode, containerd_bin=binary)).start()
        try:
            plan = rb.preflight()["containerd"]
        finally:
            rb.finish()
        assert (plan.message.en, plan.message.ko, plan.subject) == (f"ask {binary}: {cmd}", f"{binary} 에게 묻습니다: {cmd}", cmd)
        if mode == "check":
            assert calls == []  # nothing asked before step 9's own verdict
        else:
            assert calls[0][1] == root / CONFIG  # first, the node's config as it is, before any write


def test_a_failed_step_9_says_its_first_finding_not_what_containerd_read(tmp_path):
    """Step 9 passed says what containerd read; failed, its message is its first finding (what to fix), and it
    is failed, not skipped."""
    root = lab_root(tmp_path, (BROKEN / "v2-path-in-v3-file.toml").read_bytes())
    _, result = _nine(root, "check")
    assert result.status == "failed"
    assert result.message == result.problems[0].what


# --- containerd that cannot be asked: the reason in each language, at the config -----------------------------


def test_a_containerd_bin_that_is_not_there_is_said_in_each_language_at_the_config(tmp_path):
    """The runbook's own reason (a sentence of the catalog, in both languages): Korean in the Korean words, English
    in the English ones, the config it was to read as the place."""
    root = lab_root(tmp_path)
    missing = str(tmp_path / "no-such/containerd")
    [problem] = one_step(root, "containerd", containerd_bin=missing).problems
    assert (problem.code, problem.path, problem.line) == ("containerd.not_asked", "/" + CONFIG, None)
    assert problem.what.ko == (f"containerd 에게 물어보지 못했습니다: containerd 실행 파일을 찾을 수 없습니다: {missing} "
                               "(containerd 패키지를 설치하거나 경로를 주세요)")
    assert problem.what.en == (f"could not ask containerd: containerd binary not found: {missing} "
                               "(install the containerd package or give its path)")


def test_an_error_of_the_os_in_one_language_is_said_whole_in_both(tmp_path, monkeypatch):
    """The OS's own words have one language: both the Korean and the English sentence quote them whole. Here the
    folder for temporary files is gone, where the view of the root that containerd is asked in is made."""
    import tempfile

    binary = realenv.need_program("containerd")
    realenv.need_root()
    realenv.need_program("unshare")
    root = lab_root(tmp_path)
    gone = tmp_path / "tmp-gone"
    monkeypatch.setattr(tempfile, "tempdir", str(gone))  # as TMPDIR=<a folder that is not there> would
    [problem] = one_step(root, "containerd", containerd_bin=binary).problems
    assert (problem.code, problem.path) == ("containerd.not_asked", "/" + CONFIG)
    said = re.fullmatch(r"containerd 에게 물어보지 못했습니다: (\[Errno 2\] No such file or directory: '(.+)')",
                        problem.what.ko)
    assert said is not None, problem.what.ko
    assert said.group(2).startswith(f"{gone}/runbook-view-")
    assert problem.what.en == f"could not ask containerd: {said.group(1)}"
