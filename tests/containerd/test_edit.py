"""The runtime edit keeps every existing byte and places the new tables like their siblings."""

import difflib
import tomllib

import pytest

from helpers import CONFORMANCE, FIXTURES, LAB_BASE
from runbook_lib.containerd.edit import RuntimeWanted, plan_runtime, template_runtime
from runbook_lib.containerd.versions import detect_version

WANTED = RuntimeWanted("nvidia", "/usr/bin/nvidia-container-runtime", True)

LAB_EXPECTED_BLOCK = '''        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"
            SystemdCgroup = true

'''


def edit(text: str, wanted=WANTED) -> str:
    data = tomllib.loads(text)
    version = detect_version(data, path="x", empty=not data)
    template, source = template_runtime(data, version, wanted)
    return plan_runtime(text, data, version, wanted, template, lab_path="/x", source_name=source).text


def only_insertions(old: str, new: str) -> bool:
    ops = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in ops)


def test_lab_base_gets_the_seed_tables_next_to_runc():
    old = LAB_BASE.read_text()
    new = edit(old)
    assert only_insertions(old, new)
    assert LAB_EXPECTED_BLOCK in new
    # right after runc's options and before the cni table, as a sibling of runc
    assert new.index("runtimes.runc.options]") < new.index("runtimes.nvidia]") < new.index('cri".cni]')


def test_second_edit_changes_nothing():
    once = edit(LAB_BASE.read_text())
    assert edit(once) == once


@pytest.mark.parametrize("case", sorted(p.name for p in CONFORMANCE.iterdir() if p.is_dir()))
def test_comments_quotes_and_order_survive(case):
    old = (CONFORMANCE / case / "input.toml").read_text()
    new = edit(old)
    assert only_insertions(old, new), case
    assert tomllib.loads(new)  # parses


def test_v3_single_quote_style_is_followed():
    old = (FIXTURES / "containerd-2.0-docs-config-v3.toml").read_text()
    new = edit(old)
    assert "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]" in new
    assert "BinaryName = '/usr/bin/nvidia-container-runtime'" in new


def test_string_boolean_is_repaired_in_place_keeping_the_comment():
    old = LAB_BASE.read_text().replace(
        "            SystemdCgroup = true\n",
        "            SystemdCgroup = true\n\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
        "          runtime_type = \"io.containerd.runc.v2\"\n\n"
        "          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
        "            BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
        "            SystemdCgroup = \"true\"  # student wrote a string\n")
    data = tomllib.loads(old)
    plan = plan_runtime(old, data, 2, WANTED, {}, lab_path="/x")
    assert 'SystemdCgroup = true  # student wrote a string' in plan.text
    assert tomllib.loads(plan.text)["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["nvidia"]["options"]["SystemdCgroup"] is True
    assert plan.repairs and "SystemdCgroup" in plan.repairs[0].en
