"""runbook_lib/engine/profile.py: the world a run is in, decided once with its reason, and what follows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading_helpers import GOOD, lab_root
from runbook_lib.engine.params import validate
from runbook_lib.engine.profile import decide
from runbook_lib.engine.run import Run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
V4 = FIXTURES / "realworld/containerd-2.3-v4/etc/containerd/config.toml"  # imports /etc/containerd/conf.d/*.toml


def test_a_root_other_than_slash_is_a_lab_root(tmp_path):
    d = decide(validate(root=str(tmp_path)))
    assert d.name == "lab"
    assert d.reason.en == f"lab: root is a lab root, not / ({tmp_path})"


def test_slash_with_the_courses_base_config_is_the_lab_machine():
    """The seed lab on the course's machine runs at / with the base config there: it stays the lab. Read only:
    a base_config that exists on every machine stands for the course's."""
    d = decide(validate(root="/", base_config="/etc/passwd"))
    assert (d.name, d.reason.en) == ("lab", "lab: root is / and the course's base config is at /etc/passwd")
    p = validate(root="/", base_config="/etc/passwd")
    assert p.keeps_default is False  # the lab's rule: the default must be runc


def test_slash_without_the_base_config_is_a_node():
    d = decide(validate(root="/", base_config="/nonexistent/runbook/config.toml.base"))
    assert d.name == "node"
    assert d.reason.en == "node: root is / and the course's base config is not there (/nonexistent/runbook/config.toml.base)"
    assert d.reason.ko == "node: root 가 / 이고, 실습의 기본 설정이 없습니다 (/nonexistent/runbook/config.toml.base)"


@pytest.mark.parametrize("given", ["lab", "node"])
def test_a_given_profile_is_the_profile(tmp_path, given):
    assert decide(validate(root=str(tmp_path), profile=given)).name == given


@pytest.mark.parametrize("profile, default_runtime, layout", [("lab", "runc", "inplace"), ("node", "keep", "dropin")])
def test_default_runtime_and_layout_auto_follow_the_profile(tmp_path, profile, default_runtime, layout):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(V4.read_bytes())
    rb = Run(validate(root=str(root), profile=profile)).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert (rb.p.profile, rb.p.default_runtime, rb.p.layout) == (profile, default_runtime, layout)
    if profile == "node":
        assert rb.layout_reason.en == ("dropin: /etc/containerd/config.toml already imports the drop-in "
                                       "folder (/etc/containerd/conf.d/*.toml)")
    else:
        assert rb.layout_reason is None


def test_a_node_whose_config_imports_no_conf_d_is_edited_in_place(tmp_path):
    rb = Run(validate(root=str(lab_root(tmp_path, GOOD.read_bytes())), profile="node", mode="check")).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    assert rb.p.layout == "inplace"
    assert rb.layout_reason.en == "inplace: /etc/containerd/config.toml imports no conf.d folder"


def test_a_node_writes_no_answer_file_and_keeps_their_facts_as_evidence(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(V4.read_bytes())
    (root / "etc/cdi").mkdir(parents=True)
    (root / "etc/cdi/nvidia.yaml").write_text('cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n'
                                               '    containerEdits:\n      deviceNodes:\n        - path: /dev/nvidia0\n')
    (root / "dev").mkdir()
    (root / "dev/nvidia0").write_bytes(b"")  # the GPU the spec names, on the node (a file stands in for it)
    rb = Run(validate(root=str(root), profile="node")).start()
    try:
        results = rb.run_all()
    finally:
        rb.finish()
    assert rb.ok(), [r.text() for r in rb.failed_steps()]
    assert not (root / "root").exists()
    # the facts are read from the node's files and named for what they are, never as the lab's answer files
    assert list(results["default"].evidence.values()) == ["DEFAULT=runc\nWHY=runtimeclass\n"]
    assert "RUNTIME=nvidia" in "".join(results["report"].evidence.values())
    assert not [k for r in results.values() for k in r.evidence if k.endswith(".txt")]
    assert all(not f["path"].startswith("/root/") for r in results.values() for f in r.files)
    # the drop-in is written and this machine's containerd is not the node's: a restart is pending, never passed
    assert results["restart"].status == "restart-needed"
    assert results["restart"].message.en.endswith("restart it on the node (systemctl restart containerd).")
    assert "lab" not in results["containerd"].message.en + results["restart"].message.en


def test_a_node_without_nvidia_ctk_is_refused_before_any_write(tmp_path):
    root = tmp_path / "root"
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/config.toml").write_bytes(V4.read_bytes())
    rb = Run(validate(root=str(root), profile="node")).start()
    try:
        rb.preflight()
    finally:
        rb.finish()
    (step, problem), = [(s, p) for s, p in rb.refusals()]
    assert step.id == "cdi" and problem.code == "cdi.generate.no_nvidia_ctk"
    assert "install the nvidia-container-toolkit package" in problem.fix.en
    assert "nvidia-container-toolkit 패키지를 설치하세요" in problem.fix.ko


@pytest.mark.parametrize("node", [True, False])
def test_a_spec_rules_fix_names_nvidia_ctk_only_on_a_node(node):
    """A lab has no nvidia-ctk, and its /etc/cdi is the lab root's: its fix is the lines to write; a node's
    surest fix is its own nvidia-ctk making the spec again."""
    from runbook_lib.cdi.spec import spec_problems
    text = 'cdiVersion: "0.5.0"\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n    containerEdits:\n      env: [NOEQUALS]\n'
    (p,) = [q for q in spec_problems(yaml_load(text), "/etc/cdi/nvidia.yaml", text, node=node) if q.is_error]
    assert ("nvidia-ctk cdi generate" in p.fix.en) is node
    assert ("nvidia-ctk cdi generate" in p.fix.ko) is node


def yaml_load(text: str) -> dict:
    import yaml
    return yaml.safe_load(text)
