"""runbook_lib/kernel/manager.py leans on jupyter_client internals; pyproject pins the release they were read
from. These checks fail, rather than the early kernel silently going unused, when the installed jupyter_client
is outside the pin or no longer has what the manager overrides and sets (the behaviour itself is tested in
tests/kernel/test_early.py, against this same installed version)."""

import inspect
import re
import tomllib
from importlib.metadata import version

from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_client.provisioning import LocalProvisioner

from helpers import REPO

PRIVATE_METHODS = {  # name -> its parameters in the pinned release
    "_async_pre_start_kernel": ["transport_encryption", "kw"],  # ours takes **kw and passes all on
    "_async_launch_kernel": ["kernel_cmd", "kw"],
    "_async_wait": ["pollinterval"],
    "_async_cleanup_resources": ["restart"],
}


def _pin() -> tuple[tuple[int, ...], tuple[int, ...]]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if d.startswith("jupyter_client")]
    low, high = re.fullmatch(r"jupyter_client>=([\d.]+),<([\d.]+)", spec).groups()
    return tuple(map(int, low.split("."))), tuple(map(int, high.split(".")))


def test_the_installed_jupyter_client_is_the_pinned_one():
    low, high = _pin()
    installed = tuple(int(x) for x in re.findall(r"\d+", version("jupyter_client"))[:3])
    assert low <= installed < high, (installed, low, high)


def test_the_private_methods_the_manager_overrides_still_exist_with_their_parameters():
    for name, params in PRIVATE_METHODS.items():
        method = getattr(AsyncKernelManager, name)
        assert inspect.iscoroutinefunction(method), name
        assert list(inspect.signature(method).parameters)[1:] == params, name
    assert list(inspect.signature(KernelManager._reconcile_connection_info).parameters)[1:] == ["info"]
    assert hasattr(KernelManager(), "_connection_file_written")


def test_the_provisioner_fields_the_manager_sets_exist():
    provisioner = LocalProvisioner(kernel_id="x", kernel_spec=None, parent=None)
    for field in ("process", "pid", "pgid", "cwd", "connection_info"):
        assert hasattr(provisioner, field), field
