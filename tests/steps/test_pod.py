"""The rules of the pod step (runbook_lib/steps/pod.py) on what a pod did, in process so `make mutate` sees them:
the pod is tried once a run when the step is on, its findings are the step's verdict, its message says what
passed (the pod, the handler, the binary), and its evidence shows what was read either way. A CRI endpoint
nothing listens on is a reading of its own (no containerd needed); a passing pod is a real one: containerd 1.6
starts a sandbox through the nvidia handler in a throw-away root (runbook_lib/containerd/smoke/sandbox.py)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from grading_helpers import lab_root, one_step
from helpers import as_node
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

sys.path.insert(0, str(Path(__file__).parents[1] / "real"))
import realenv  # noqa: E402 - tests/real's helpers: skip, or fail under RUNBOOK_REQUIRE_REAL=1
from pod_traces import traces_of  # noqa: E402 - a pod step's leftovers, looked for by the test


def test_an_endpoint_nothing_listens_on_fails_the_step_and_shows_what_was_read(tmp_path):
    socket = "/run/nothing-listens-here/containerd.sock"
    result = one_step(lab_root(tmp_path), "pod", smoke="node", cri_endpoint=socket)
    assert result.status == "failed" and [p.code for p in result.problems] == ["pod.node.unreachable"]
    assert socket in result.problems[0].what.en
    assert list(result.evidence) == ["smoke node"] and socket in result.evidence["smoke node"]


@pytest.fixture
def sandbox_tools(monkeypatch):
    """The programs a sandbox pod needs, and a temporary folder of the test's own for the pod (a short path: the
    pod's sockets are under it). What the test left behind is looked for there and in cgroups named for its
    process only: make mutate runs two tests at once, and a pod of the other one is not this test's leak."""
    for program in ("containerd", "ctr", "runc"):
        realenv.need_program(program)
    realenv.need_root()
    pytest.importorskip("grpc")
    from runbook_lib.containerd import oci_layout
    if oci_layout.busybox_static() is None:
        realenv.missing("정적 busybox 가 없습니다 (busybox-static) / busybox-static is not installed")
    private = tempfile.mkdtemp(prefix="pod-rules-")
    monkeypatch.setattr(tempfile, "tempdir", private)
    yield
    left = traces_of(private, os.getpid())
    assert left == []  # no containerd, shim, mount or cgroup of the pod left behind
    shutil.rmtree(private)


@pytest.mark.real
def test_a_pod_started_through_the_runtime_passes_and_says_what_ran(tmp_path, sandbox_tools):
    """The message is the catalog's pod.passed_sandbox, in both languages, with what the pod did: the sandbox's
    short id (its first 13 characters), the handler the RuntimeClass names, the BinaryName of the config, how
    containerd's shim called it (the flag words of --systemd-cgroup) and the default runtime of the config; the
    evidence is the pod's facts as a person reads them, one line each."""
    from runbook_lib.containerd.smoke.facts import flag_words
    from runbook_lib.containerd.smoke.show import lines
    from runbook_lib.findings.problem import words
    from runbook_lib.steps import pod
    rb, result = _pod_run(lab_root(tmp_path), smoke="sandbox")
    assert result.status == "passed" and result.problems == [], result.text()
    facts = pod.facts(rb)
    called = facts["calls"][0].split()
    assert "create" in called and "--systemd-cgroup" in called  # the lab config sets SystemdCgroup = true
    sandbox = facts["sandbox_id"]
    assert len(sandbox) > 13
    expected = words("pod.passed_sandbox", sandbox=sandbox[:13], handler="nvidia",
                     binary="/usr/bin/nvidia-container-runtime", flag=flag_words(True), default="runc")[0]
    assert (result.message.en, result.message.ko) == (expected.en, expected.ko)
    assert f"pod {sandbox[:13]} started" in result.message.en and "with --systemd-cgroup" in result.message.en
    assert list(result.evidence) == ["smoke sandbox"]
    assert "핸들러 / handler: nvidia" in result.evidence["smoke sandbox"]
    assert result.evidence["smoke sandbox"].split("\n") == lines(facts)


# --- what the step reads when no pod can start, and where it looks for containerd ------------------------------

UNREACHABLE = "/run/nothing-listens-here/containerd.sock"


def _pod_run(root, **params):
    """A check run with every step planned and the pod step run: (the run, the pod step's result); finished."""
    rb = Run(validate(root=str(root), mode="check", **params)).start()
    try:
        rb.preflight()
        return rb, rb.run(rb.step("pod"))
    finally:
        rb.finish()


def test_an_unreachable_endpoint_is_the_catalogs_finding_with_the_endpoint_and_containerds_own_words(tmp_path):
    """The finding names the endpoint asked and what the CRI client said about that endpoint; the facts the
    action cell hands to the check cell say that it was `node`, at that endpoint, with nothing left behind."""
    from runbook_lib.containerd.smoke import node as smoke_node
    from runbook_lib.findings.problem import Problem
    from runbook_lib.steps import pod
    _, said = smoke_node.reach(UNREACHABLE, 5)
    rb, result = _pod_run(lab_root(tmp_path), smoke="node", cri_endpoint=UNREACHABLE)
    [problem] = result.problems
    assert problem.values == {"endpoint": UNREACHABLE, "said": said}
    expected = Problem.of("pod.node.unreachable", endpoint=UNREACHABLE, said=said)
    assert (problem.what.en, problem.what.ko) == (expected.what.en, expected.what.ko)
    assert pod.facts(rb) == {"mode": "node", "endpoint": UNREACHABLE, "left": []}
    from runbook_lib.containerd.smoke.show import lines
    assert result.evidence == {"smoke node": "\n".join(lines(pod.facts(rb)))}
    assert result.evidence["smoke node"].split("\n")[1] == f"CRI: {UNREACHABLE}    이미지 / image: -"


K3S = "var/lib/rancher/k3s/agent/etc/containerd"


@pytest.mark.parametrize("files, socket", [
    ({f"{K3S}/config.toml": "k3s-v3/config.toml", f"{K3S}/config-v3.toml.tmpl": "k3s-v3/config-v3.toml.tmpl"},
     "/run/k3s/containerd/containerd.sock"),
    ({"etc/k0s/containerd.toml": "k0s/containerd.toml", "etc/k0s/containerd.d/.keep": None}, "/run/k0s/containerd.sock"),
], ids=["k3s", "k0s"])
def test_on_a_node_without_cri_endpoint_the_pod_asks_the_distributions_own_socket(tmp_path, files, socket):
    """smoke node on a real node, cri_endpoint left empty: the CRI socket of the distribution whose containerd
    the route found (nothing listens on it here: the finding names it)."""
    from distro_helpers import distro_fixture, write_root
    root = write_root(tmp_path, {rel: distro_fixture(name) if name else "" for rel, name in files.items()})
    rb = Run(validate(root=str(root), mode="check", smoke="node")).start()
    try:
        rb.preflight()
        rb.target = as_node(root)  # the node's own "/", for the pod step only (as the restart rules do)
        result = rb.run(rb.step("pod"))
    finally:
        rb.finish()
    assert [(p.code, p.values["endpoint"]) for p in result.problems] == [("pod.node.unreachable", socket)]


def test_a_run_whose_distribution_cannot_be_told_still_plans_the_pod_at_the_endpoint_given(tmp_path):
    """Two distributions found (no route): check mode still plans every step; the pod's plan names the
    cri_endpoint given."""
    root = lab_root(tmp_path)
    (root / "etc/rancher/k3s").mkdir(parents=True)
    (root / "etc/rancher/rke2").mkdir(parents=True)
    rb = Run(validate(root=str(root), mode="check", smoke="node", cri_endpoint=UNREACHABLE)).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert rb.route is None and rb.route_refusal.code == "distro.ambiguous"
    assert rb.plans["pod"].subject == UNREACHABLE


def _without_containerd(monkeypatch):
    """No containerd on this machine, as the pod step looks for it (PATH, then /usr/sbin:/sbin)."""
    import shutil
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which",
                        lambda cmd, *a, **kw: None if cmd == "containerd" else real_which(cmd, *a, **kw))


RC = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\n"


@pytest.mark.parametrize("runtimeclass", [None, RC, "", RC + 'handler: ""\n', RC + "handler: [nvidia]\n"],
                         ids=["missing", "no-handler", "empty", "empty-handler", "handler-not-a-string"])
def test_a_runtimeclass_without_a_handler_skips_the_sandbox_pod_and_names_the_file(tmp_path, monkeypatch,
                                                                                    runtimeclass):
    """No pod without a handler to start it through (an empty or non-string handler is none): the step is
    skipped (not passed), says which file has no handler, and hands the check cell no facts: no pod ran. No
    containerd is asked (none is found either: a pod tried would fail, not start on this machine)."""
    from runbook_lib.steps import pod
    _without_containerd(monkeypatch)
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", smoke="sandbox")).start()
    path = rb.tk("runtimeclass.yaml")
    host = root / path.lstrip("/")
    assert "handler: nvidia" in host.read_text()  # step 7 wrote it, with the handler
    if runtimeclass is None:
        host.unlink()
    else:
        host.write_text(runtimeclass)
    try:
        rb.preflight()
        result = rb.run(rb.step("pod"))
    finally:
        rb.finish()
    assert result.status == "skipped" and result.problems == []
    for said in (result.message.en, result.message.ko):
        assert path in said and "None" not in said, said
    assert pod.facts(rb) == {}


def test_a_sandbox_pod_without_containerd_fails_and_its_facts_name_the_handler_and_the_runtime(tmp_path,
                                                                                                monkeypatch):
    """No containerd to start the sandbox: the step fails with the catalog's finding naming what is missing,
    and the facts it hands the check cell name the handler the RuntimeClass gives and the runtime the runbook
    registers (runtime_name), each its own."""
    from runbook_lib.steps import pod
    _without_containerd(monkeypatch)
    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", smoke="sandbox")).start()
    host = root / rb.tk("runtimeclass.yaml").lstrip("/")
    host.write_text(host.read_text().replace("handler: nvidia", "handler: nvidia-gpu"))
    try:
        rb.preflight()
        result = rb.run(rb.step("pod"))
    finally:
        rb.finish()
    assert result.status == "failed"
    assert [(p.code, p.values["missing"]) for p in result.problems] == [("pod.cannot_run", "containerd")]
    facts = pod.facts(rb)
    assert (facts["handler"], facts["runtime"], facts["containerd"]) == ("nvidia-gpu", "nvidia", None)


def test_without_containerd_on_path_the_sandbox_uses_the_one_in_sbin(tmp_path, monkeypatch):
    """A notebook kernel's PATH often lacks /usr/sbin:/sbin, where some distributions install containerd: the
    sandbox then runs the one found there. This machine has none there, so sbin is a folder of this test's
    holding a containerd, in the place of the node's."""
    import os
    import shutil
    root = lab_root(tmp_path)
    sbin = tmp_path / "sbin"
    sbin.mkdir()
    (sbin / "containerd").write_text("#!/bin/sh\nexit 0\n")
    (sbin / "containerd").chmod(0o755)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    real_which = shutil.which

    def which(cmd, mode=os.F_OK | os.X_OK, path=None):
        return real_which(cmd, mode, str(sbin) if path == "/usr/sbin:/sbin" else path)

    monkeypatch.setattr(shutil, "which", which)
    rb = Run(validate(root=str(root), mode="check", smoke="sandbox")).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert str(sbin / "containerd") in rb.plans["pod"].message.en


@pytest.mark.parametrize("smoke, start_of_the_fix", [("off", "In a lab, for grading or CI, turn it on"),
                                                     ("node", "In a lab use -p smoke sandbox")])
def test_a_skipped_pod_says_why_and_then_how_to_turn_it_on_each_as_a_sentence(tmp_path, smoke, start_of_the_fix):
    """The skip's what and the catalog's fix are said as two sentences: the fix, lower case after "fix:" in the
    catalog, starts with a capital after the what's full stop; the Korean keeps both as they are written."""
    from runbook_lib.findings.problem import words

    root = lab_root(tmp_path)
    rb = Run(validate(root=str(root), mode="check", smoke=smoke)).start()
    try:
        plan = rb.preflight()["pod"]
        result = rb.run(rb.step("pod"))
    finally:
        rb.finish()
    code, values = ("pod.off", {}) if smoke == "off" else ("pod.no_endpoint", {"root": rb.target.root})
    what, fix, _ = words(code, **values)
    assert result.status == "skipped"
    assert result.message.en == f"{what.en} {start_of_the_fix}{fix.en[len(start_of_the_fix):]}"
    assert fix.en.lower().startswith(start_of_the_fix.lower()) and not fix.en.startswith(start_of_the_fix)
    assert result.message.ko == f"{what.ko} {fix.ko}"
    said_by_the_plan = {"off": result.message, "node": words("pod.plan_node", endpoint="-", handler="nvidia",
                                                              image=rb.p.smoke_image, command=rb.p.smoke_command)[0]}
    assert plan.message == said_by_the_plan[smoke]  # off: the plan says the skip itself; node: where it would go
    assert plan.subject == {"off": None, "node": "-"}[smoke]  # a lab root has no node's endpoint to name


def test_without_any_containerd_the_sandbox_plan_says_containerd_by_its_name(tmp_path, monkeypatch):
    """No containerd on PATH nor in /usr/sbin:/sbin: the plan still says what it will start, naming containerd
    by its command's name (the pod step then says what is missing to run it)."""
    import shutil
    from runbook_lib.findings.problem import words

    monkeypatch.setattr(shutil, "which", lambda cmd, mode=None, path=None: None)
    rb = Run(validate(root=str(lab_root(tmp_path)), mode="check", smoke="sandbox")).start()
    try:
        plan = rb.preflight()["pod"]
    finally:
        rb.finish()
    assert plan.message == words("pod.plan_sandbox", containerd="containerd")[0]
    assert plan.message.en.startswith("start a throw-away containerd (containerd) on a copy of the config")
