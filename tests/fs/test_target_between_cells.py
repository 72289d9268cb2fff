"""In a kernel, a cell walks each lab path once (fs/target.py, Target.remember) and the next cell walks it afresh:
a symbolic link made, changed or removed by hand between two cells is followed as it is now, and what the run
reads and writes is what a walk without the memo would give."""

from __future__ import annotations

from helpers import put_course_fixture, started_kernel
KERNEL = "python3"  # the notebooks' kernel: ipykernel's stock kernelspec


def _value(kc, code: str) -> str:
    """The text/plain of the cell's result (its last expression)."""
    seen: list[str] = []

    def hook(msg):
        if msg["msg_type"] == "execute_result":
            seen.append(msg["content"]["data"]["text/plain"])
        elif msg["msg_type"] == "error":
            seen.append("error: " + msg["content"]["ename"] + ": " + msg["content"]["evalue"])

    kc.execute_interactive(code, timeout=120, output_hook=hook)
    (value,) = seen
    return value


def test_a_link_changed_between_two_cells_is_followed_as_it_is_now(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    (root / "etc/containerd").mkdir(parents=True)
    (root / "etc/containerd/a.toml").write_text("# a\n")
    (root / "etc/containerd/b.toml").write_text("# b\n")
    link = root / "etc/containerd/config.toml"
    link.symlink_to("a.toml")
    with started_kernel(KERNEL, cwd=str(tmp_path)) as (_, kc):
        _value(kc, f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(root)!r}, mode='check')\n0")
        assert _value(kc, "rb.read('/etc/containerd/config.toml'), rb.read('/etc/containerd/config.toml')") \
            == "('# a\\n', '# a\\n')"
        link.unlink()
        link.symlink_to("/etc/containerd/b.toml")  # an absolute link: inside the root, as a chroot reads it
        assert _value(kc, "rb.read('/etc/containerd/config.toml')") == "'# b\\n'"
        link.unlink()
        link.write_text("# the file itself\n")
        assert _value(kc, "rb.read('/etc/containerd/config.toml')") == "'# the file itself\\n'"


def test_a_cell_walks_each_path_once_and_the_next_cell_walks_it_again(tmp_path):
    root = tmp_path / "root"
    put_course_fixture(root)
    count = ("import runbook_lib.fs.target as t\nwalks = []\n_walk = t.Target._walk\n"
             "t.Target._walk = lambda self, p: (walks.append(p), _walk(self, p))[1]\n0")
    with started_kernel(KERNEL, cwd=str(tmp_path)) as (_, kc):
        _value(kc, f"from runbook_lib import notebook as nb\nrb = nb.start(root={str(root)!r}, mode='check')\n0")
        _value(kc, count)
        assert _value(kc, "[rb.read('/etc/containerd/config.toml') for _ in range(3)]\nlen(walks)") == "1"
        assert _value(kc, "rb.read('/etc/containerd/config.toml')\nlen(walks)") == "2"
