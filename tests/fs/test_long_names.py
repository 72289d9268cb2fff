"""A folder name longer than the file system allows (255 bytes on ext4, tmpfs, xfs) is a write finding that
names the folder, and no folder of the path is made on the way."""

from __future__ import annotations

import pytest

from runbook_lib.findings.errors import WriteError
from runbook_lib.fs.safe_write import ensure_dir
from runbook_lib.fs.target import Target

TOO_LONG = "가" * 100  # 300 bytes in UTF-8: the limit counts bytes, not characters


@pytest.mark.parametrize("lab", [f"/root/{TOO_LONG}/toolkit", f"/root/toolkit/{TOO_LONG}", f"/{TOO_LONG}"])
def test_a_folder_name_too_long_for_the_file_system_is_refused_before_any_folder_is_made(tmp_path, lab):
    with pytest.raises(WriteError) as caught:
        ensure_dir(Target(str(tmp_path)), lab)
    problem = caught.value.problem
    assert problem.code == "write.failed.name_too_long"
    assert problem.path == lab[: lab.index(TOO_LONG) + len(TOO_LONG)]  # the folder too long, as the user knows it
    assert problem.values["size"] == 300 and problem.values["limit"] == 255
    assert lab[: lab.index(TOO_LONG) + len(TOO_LONG)] in problem.what.en
    assert list(tmp_path.iterdir()) == []


def test_a_name_of_exactly_the_limit_is_made(tmp_path):
    """255 bytes is the longest name the file system holds, and it holds it: only a longer one is refused."""
    longest = "가" * 85  # 255 bytes
    assert ensure_dir(Target(str(tmp_path)), f"/root/{longest}") == ["/root", f"/root/{longest}"]
    assert (tmp_path / "root" / longest).is_dir()
