"""The consumer seam (runbook_lib/consumer/protocol.py), proved: the steps run through the engine's Run against a
second consumer defined here (toy_consumer.py, a made-up runtime with its own config layout), registered for the
test by one line, as docs/ARCHITECTURE.md says a new runtime is added. The runs pass, the toy's file gets the
runtime, check mode passes after apply, and a second apply changes nothing."""

from __future__ import annotations

import inspect
import tomllib

import pytest

import toy_consumer
from runbook_lib.consumer import registry
from runbook_lib.consumer.protocol import Consumer
from runbook_lib.engine.params import validate
from runbook_lib.engine.run import Run

MEMBERS = [name for name, value in vars(Consumer).items() if inspect.isfunction(value) and not name.startswith("_")]


@pytest.fixture
def toy():
    registry.register("toy", "toy_consumer:Toy")
    yield "toy"
    registry.CONSUMERS.pop("toy", None)
    registry._loaded.pop("toy", None)


def _run(root, toy, **params) -> Run:
    rb = Run(validate(root=str(root), config_path=toy_consumer.CONFIG, **params), consumer=toy).start()
    try:
        rb.preflight()
        rb.run_all()
    finally:
        rb.finish()
    return rb


def _statuses(rb: Run) -> dict[str, str]:
    return {step_id: result.status for step_id, result in rb.results.items()}


def test_the_protocol_declares_what_the_steps_use_and_both_consumers_have_every_member_alike():
    from runbook_lib.containerd.consumer import Containerd
    assert len(MEMBERS) > 30
    for implementation in (Containerd, toy_consumer.Toy):
        assert isinstance(implementation(), Consumer)
        for name in MEMBERS:
            declared = list(inspect.signature(getattr(Consumer, name)).parameters)
            assert list(inspect.signature(getattr(implementation, name)).parameters) == declared, (implementation, name)
        assert implementation.name and implementation.runtime_type


def test_a_run_gets_its_consumer_from_the_registry_by_name(tmp_path, toy):
    from runbook_lib.containerd.consumer import Containerd
    assert isinstance(Run(validate(root=str(tmp_path))).consumer, Containerd)
    rb = Run(validate(root=str(tmp_path), config_path=toy_consumer.CONFIG), consumer=toy)
    assert isinstance(rb.consumer, toy_consumer.Toy)
    assert isinstance(rb.mirror(mode="check").consumer, toy_consumer.Toy)


def test_the_steps_register_the_runtime_with_a_second_consumer_through_the_engine(tmp_path, toy):
    root = tmp_path / "root"
    root.mkdir()
    first = _run(root, toy)
    assert first.ok(), [r.text() for r in first.failed_steps()]
    assert first.refusals() == []
    statuses = _statuses(first)
    for step in ("prepare", "runtime", "default", "parse", "cdi", "runtimeclass", "report"):
        assert statuses[step] == "changed", (step, statuses)
    assert statuses["options"] == "unchanged"  # step 2 wrote its options: step 3 only reads them back
    assert statuses["containerd"] == "skipped" and statuses["restart"] == "skipped" and statuses["pod"] == "skipped"

    data = tomllib.loads((root / toy_consumer.CONFIG.lstrip("/")).read_text())
    assert data["default"] == "crun"
    assert data["runtime"]["nvidia"] == {"runtime_type": toy_consumer.TYPE, "options": {
        "BinaryName": "/usr/bin/nvidia-container-runtime", "SystemdCgroup": True}}
    toolkit = root / "root/toolkit"
    assert (toolkit / "default.txt").read_text() == "DEFAULT=crun\nWHY=runtimeclass\n"
    assert (toolkit / "parsed.txt").read_text() == "VERSION=1\nRUNTIMES=crun,nvidia\n"
    assert (toolkit / "report.txt").read_text() == (f"CONFIG_VERSION=1\nRUNTIME=nvidia\nRUNTIME_TYPE={toy_consumer.TYPE}\n"
                                                    "SYSTEMD_CGROUP=true\nHANDLER=nvidia\n")

    check = _run(root, toy, mode="check")
    assert check.ok(), [r.text() for r in check.failed_steps()]
    skipped = {"containerd", "restart", "pod"}  # no toyrt binary to ask, a lab root, smoke=off
    assert _statuses(check) == {step: "skipped" if step in skipped else "passed" for step in _statuses(check)}
    assert set(_statuses(check)) == {s.id for s in check.steps}

    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = _run(root, toy)
    assert again.ok()
    assert "changed" not in _statuses(again).values(), _statuses(again)
    assert again.written == []
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_the_check_cells_run_against_the_second_consumer_and_catch_what_it_reads(tmp_path, toy):
    """The check cells (each step's Step.check) judge the toy's planned state too; a wrong value in the toy's file
    fails its step in check mode, with the toy's own finding."""
    root = tmp_path / "root"
    root.mkdir()
    assert _run(root, toy).ok()
    config = root / toy_consumer.CONFIG.lstrip("/")
    config.write_text(config.read_text().replace("SystemdCgroup = true", "SystemdCgroup = false"))
    check = _run(root, toy, mode="check")
    assert not check.ok()
    failed = {r.id for r in check.failed_steps()}
    assert "options" in failed, _statuses(check)
    assert "options.systemd_cgroup.wrong" in {p.code for p in check.results["options"].problems}
