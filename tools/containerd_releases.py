"""Ask every installed real containerd (Debian's 1.6 and each pinned 2.x of scripts/containerd2-versions.txt) what
it reads, and write it as data: runbook_lib/data/containerd-releases.json, one entry per release, each fact from that
release's own binary.

- ``writes``: the config version its `containerd config default` writes;
- ``reads``: for each config version, the version its `config dump` says it read the file as, or "refused";
- ``plugins``: the plugin URIs its `config default` has a table for;
- ``runtime_keys``: the keys of a CRI runtime table it keeps: every key of its own default's runc table, and each
  candidate (below) that `config dump` keeps when it is written with a value that is not its zero value;
- ``dropped_keys``: the candidates it drops, each with how: "warned" (2.x logs "Ignoring unknown key in TOML for
  plugin") or "silently" (1.x);
- ``option_keys``: the keys of its default runc table's `options`.

The candidates are the keys any release's default writes plus the names below that older or newer releases
had (1.x's runtime_engine, runtime_root and sandbox_mode, treat_ro_mounts_as_rro), each with the TOML value it is
written with. tests/real/test_real_containerd_releases.py runs `collect` again on the installed binaries and fails
on any difference, so a new release is one line in the versions file and this tool run again.

    .venv/bin/python tools/containerd_releases.py          # writes the data file
    .venv/bin/python tools/containerd_releases.py --check  # exits 1 when the installed binaries disagree with it
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "real"))
sys.path.insert(0, str(ROOT))

import realenv  # noqa: E402
from runbook_lib.containerd.releases import DATA_FILE, nonzero  # noqa: E402

# Runtime-table keys some release had and its default may not write, with a non-zero value of the type the
# releases that know them decode (a release that decodes another type refuses the file, and the tool says so).
EXTRA_CANDIDATES = {
    "runtime_engine": "probe", "runtime_root": "/probe", "sandbox_mode": "podsandbox", "sandboxer": "podsandbox",
    "treat_ro_mounts_as_rro": True, "disable_pause_image_pull": True, "cgroup_writable": True,
    "privileged_without_host_devices_all_devices_allowed": True, "io_type": "fifo",
}
# Config versions asked about: every version any release knows, and one beyond.
ASKED_VERSIONS = (1, 2, 3, 4, 5)
_WARNED = re.compile(r'msg="Ignoring unknown key in TOML for plugin".*?key="?containerd runtimes probe ([^" ]+)"?')


def binaries() -> dict[str, str]:
    return realenv.installed_containerds()


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def release(binary: str) -> str:
    """`containerd --version`'s version, as a release number (1.6.20~ds1 → 1.6.20, v2.3.4+unknown → 2.3.4)."""
    word = _run([binary, "--version"]).stdout.split()[2]
    return re.match(r"v?(\d+\.\d+\.\d+)", word).group(1)


def _dump(binary: str, text: str) -> tuple[dict | None, str]:
    with tempfile.TemporaryDirectory(prefix="containerd-reads-") as work:
        path = Path(work) / "config.toml"
        path.write_text(text)
        proc = _run([binary, "--config", str(path), "config", "dump"])
    return (tomllib.loads(proc.stdout) if proc.returncode == 0 else None), proc.stderr


def _cri_table(doc: dict) -> tuple[str, dict]:
    """The CRI plugin that holds `containerd.runtimes`, by its URI, from a default or a dump."""
    plugins = doc.get("plugins", {})
    for uri, table in plugins.items():
        if isinstance(table, dict) and isinstance(table.get("containerd", {}).get("runtimes"), dict):
            return uri, table
    raise ValueError("no CRI plugin with containerd.runtimes")


def _runc(doc: dict) -> dict:
    return _cri_table(doc)[1]["containerd"]["runtimes"]["runc"]


def _value(v: object) -> str:
    return json.dumps(v) if not isinstance(v, bool) else str(v).lower()


def _probe_runtime(version: int, cri_uri: str, keys: dict[str, object]) -> str:
    lines = [f"version = {version}", f'[plugins."{cri_uri}".containerd.runtimes.probe]']
    lines += [f"  {k} = {_value(v)}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def candidates(defaults: dict[str, dict]) -> dict[str, object]:
    """Every runtime-table key any release's default writes (with a non-zero value of its type), and the extras."""
    out: dict[str, object] = {}
    for doc in defaults.values():
        for key, value in _runc(doc).items():
            if key != "options":
                out.setdefault(key, nonzero(value))
    for key, value in EXTRA_CANDIDATES.items():
        out.setdefault(key, value)
    return dict(sorted(out.items()))


def ask(binary: str, default: dict, asked: dict[str, object]) -> dict:
    """What one release reads: its default's version, plugins and keys, and the candidates it keeps or drops."""
    writes = default["version"]
    cri_uri, _ = _cri_table(default)
    reads = {}
    for version in ASKED_VERSIONS:
        dump, _ = _dump(binary, f"version = {version}\n")
        reads[str(version)] = dump.get("version") if dump is not None else "refused"
    runc = _runc(default)
    kept = set(runc)  # its default's keys, options (a table of the shim's) among them
    dropped = {}
    for key, value in asked.items():
        if key in kept:
            continue
        dump, stderr = _dump(binary, _probe_runtime(writes, cri_uri, {"runtime_type": "io.containerd.runc.v2", key: value}))
        if dump is None:
            raise SystemExit(f"{binary} refuses {key} = {_value(value)}: {stderr.strip().splitlines()[-1]}")
        probe = _cri_table(dump)[1]["containerd"]["runtimes"]["probe"]
        if key in probe:
            kept.add(key)
        else:
            dropped[key] = "warned" if key in _WARNED.findall(stderr) else "silently"
    return {
        "writes": writes,
        "reads": reads,
        "cri_plugin": cri_uri,
        "plugins": sorted(default.get("plugins", {})),
        "runtime_keys": sorted(kept),
        "dropped_keys": dict(sorted(dropped.items())),
        "option_keys": sorted(runc.get("options", {})),
    }


def collect() -> dict:
    """The data, from the installed binaries."""
    found = binaries()
    defaults = {label: tomllib.loads(_run([b, "config", "default"]).stdout) for label, b in found.items()}
    asked = candidates(defaults)
    releases = {release(b): ask(b, defaults[label], asked) for label, b in found.items()}
    return {
        "SOURCE": "generated by tools/containerd_releases.py from the real containerd binaries named by their release "
                  "(Debian's containerd and scripts/containerd2-versions.txt); do not edit by hand",
        "candidates": {k: asked[k] for k in asked},
        "releases": releases,
    }


def render(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    data = render(collect())
    if "--check" in argv:
        same = DATA_FILE.read_text() == data
        print("the data matches the installed containerd" if same else f"{DATA_FILE} differs: run tools/containerd_releases.py")
        return 0 if same else 1
    DATA_FILE.write_text(data)
    print(f"wrote {DATA_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
