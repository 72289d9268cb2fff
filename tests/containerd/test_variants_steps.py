"""variants=True (issue 14): the GPU Operator-style nvidia-cdi and nvidia-legacy runtimes beside nvidia, in the
same plan and the same edit, each with its RuntimeClass; check mode agrees, containerd 1.6 reads all three,
and mode=remove gives the original config back."""

import tomllib

from grading_helpers import check, run_all
from helpers import FIXTURES, answer_as_host
from reliability_helpers import containerd_reads

CONFIG = "etc/containerd/config.toml"
TOOLKIT = "root/toolkit"
NAMES = ("nvidia", "nvidia-cdi", "nvidia-legacy")


def test_variants_are_registered_with_their_runtimeclasses_and_removed_again(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    original = (FIXTURES / "containerd-1.6.20-default.toml").read_bytes()
    (root / CONFIG).write_bytes(original)
    applied = run_all(root, variants=True)
    assert not any(r.failed for r in applied.values()), [r.text() for r in applied.values() if r.failed]
    runtimes = tomllib.loads((root / CONFIG).read_text())["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    assert runtimes["nvidia-cdi"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime.cdi"
    assert runtimes["nvidia-legacy"]["options"]["BinaryName"] == "/usr/bin/nvidia-container-runtime.legacy"
    for name in NAMES[1:]:
        rc = (root / TOOLKIT / f"runtimeclass-{name}.yaml").read_text()
        assert f"handler: {name}" in rc and f"name: {name}" in rc
        assert containerd_reads(root, name)["runtime"]["options"]["BinaryName"].endswith(name.split("-")[1])
    assert not any(r.failed for r in check(root, variants=True).values())
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run
    rb = Run(validate(root=str(root), mode="remove")).start()  # whatever the variants parameter says now
    try:
        removed = rb.run_all()
    finally:
        rb.finish()
    assert not removed["remove"].failed, removed["remove"].text()
    assert (root / CONFIG).read_bytes() == original
    assert not list((root / TOOLKIT).glob("runtimeclass*.yaml"))


def test_variants_with_a_drop_in_are_refused_before_any_write(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    results = run_all(root, variants=True, layout="dropin")
    assert [p.code for p in results[2].problems] == ["variants.inplace_only"]
    assert not (root / TOOLKIT).exists()


def test_each_variants_options_are_judged_in_step_2_beside_the_runtimes_own_findings(tmp_path):
    """Step 2 judges each variant as a runtime of its own, its table and its options, and says those findings
    beside the nvidia runtime's own (step 3 judges nvidia's options)."""
    import tomlkit

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    run_all(root, variants=True)
    doc = tomlkit.parse((root / CONFIG).read_text())
    runtimes = doc["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    runtimes["nvidia"]["runtime_type"] = "io.containerd.runc.v1"
    runtimes["nvidia-cdi"]["options"]["SystemdCgroup"] = False
    text = tomlkit.dumps(doc)
    (root / CONFIG).write_text(text)
    lines = [line.strip() for line in text.split("\n")]
    cdi_options = next(i for i, line in enumerate(lines) if line.endswith('runtimes.nvidia-cdi.options]'))
    results = check(root, variants=True)
    said = [(p.code, p.line) for p in results[2].problems]
    assert said[:2] == [("runtime.type_wrong", lines.index('runtime_type = "io.containerd.runc.v1"') + 1),
                        ("options.systemd_cgroup.wrong", lines.index("SystemdCgroup = false", cdi_options) + 1)]
    assert results[2].failed


def test_variants_already_written_are_the_runbooks_own_a_second_apply_changes_nothing(tmp_path, monkeypatch):
    """nvidia-cdi and nvidia-legacy with the runbook's binaries are its own: a second apply plans no write and
    refuses nothing; the same tables with another binary are another owner's, refused by step 2's plan unless
    replacing them is asked for, and then on a real node only with the runbook's binary installed."""
    from runbook_lib.containerd.owner import BINARY_MISSING, OTHER_BINARY

    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    assert not any(r.failed for r in run_all(root, variants=True).values())

    again = _plan_of_step_2(root)
    assert not again.refusals and not again.changed, again.refusals
    text = (root / CONFIG).read_text()
    (root / CONFIG).write_text(text.replace("/usr/bin/nvidia-container-runtime.cdi", "/opt/other/runtime.cdi"))
    # another owner's runtime is a node's notion (in a lab the binary is the student's, step 3's to name)
    assert [p.code for p in _plan_of_step_2(root, profile="node").refusals] == [OTHER_BINARY]
    replaced = _plan_of_step_2(root, profile="node", replace_runtime=True)
    assert not replaced.refusals and b'BinaryName = "/usr/bin/nvidia-container-runtime.cdi"' in replaced.writes[0].new
    answer_as_host(monkeypatch)  # a sandbox root that answers as '/' does
    assert [p.code for p in _plan_of_step_2(root, profile="node", replace_runtime=True).refusals] == [BINARY_MISSING]


def _plan_of_step_2(root, **params):
    from runbook_lib.engine.params import validate
    from runbook_lib.engine.run import Run

    rb = Run(validate(root=str(root), variants=True, **params)).start()
    try:
        return rb.preflight()["runtime"]
    finally:
        rb.finish()


def test_each_variant_starts_as_a_copy_of_the_default_runtime_as_nvidia_does(tmp_path):
    """A variant is the default runtime's table with its own binary, as the nvidia runtime is: every other option
    of runc (containerd 1.6's default writes a dozen) is kept in each."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    (write,) = _plan_of_step_2(root).writes
    runtimes = tomllib.loads(write.new.decode())["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]
    runc = runtimes["runc"]
    assert len(runc["options"]) > 2
    for name in NAMES:
        own = {"BinaryName": runtimes[name]["options"]["BinaryName"], "SystemdCgroup": True}
        assert runtimes[name]["options"] == {**runc["options"], **own}, name
        assert {k: v for k, v in runtimes[name].items() if k != "options"} == \
            {k: v for k, v in runc.items() if k != "options"}, name


def test_a_variant_spelling_in_a_variants_options_is_said_at_its_file_and_line(tmp_path):
    """As for nvidia's own options: `systemdCgroup` in nvidia-cdi's options, which step 2 is correcting, is said
    with the file and the line to delete."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes((FIXTURES / "containerd-1.6.20-default.toml").read_bytes())
    assert not any(r.failed for r in run_all(root, variants=True).values())
    text = (root / CONFIG).read_text()
    at = text.index('BinaryName = "/usr/bin/nvidia-container-runtime.cdi"')
    rest = text[at:].replace("SystemdCgroup = true", "SystemdCgroup = false", 1)  # nvidia-cdi's: a change to plan
    (root / CONFIG).write_text(text[:at] + "systemdCgroup = true\n" + rest)
    line = text[:at].count("\n") + 1
    plan = _plan_of_step_2(root)
    said = [m.en for m in [plan.message] + plan.notes if "systemdCgroup" in m.en]
    assert len(said) == 1 and said[0].startswith(f"/{CONFIG}:{line}: options has a key that differs"), said


def test_each_variant_is_laid_out_as_the_default_runtime_it_copies(tmp_path):
    """Like nvidia's table, each variant's is laid out as the default runtime's (runc's indentation here), not as
    the table before it (crun, after an nvidia table already there)."""
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / CONFIG).write_bytes(
        b'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n'
        b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
        b'    runtime_type = "io.containerd.runc.v2"\n'
        b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
        b'    runtime_type = "io.containerd.runc.v2"\n'
        b'    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
        b'      BinaryName = "/usr/bin/nvidia-container-runtime"\n'
        b'      SystemdCgroup = true\n'
        b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]\n'
        b'  runtime_type = "io.containerd.runc.v2"\n'
        b'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun.options]\n'
        b'  BinaryName = "/usr/bin/crun"\n')
    (write,) = _plan_of_step_2(root).writes
    text = write.new.decode()
    for name in NAMES:
        header = f'  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.{name}]\n'
        assert header + '    runtime_type = "io.containerd.runc.v2"\n' in text, text
