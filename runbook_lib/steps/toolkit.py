"""The toolkit files of the lab (default.txt, parsed.txt, cdi-keys.txt, report.txt): their exact contents.

Every value comes from a file that was parsed back from disk, never from the parameters, so a report can
only say what the files really say.
"""

from __future__ import annotations

from runbook_lib.fs.tomlvalue import value as toml_value

WHY = "runtimeclass"  # GPU pods opt in through a RuntimeClass; the default runtime stays as it is


def default_txt(default_runtime: str) -> str:
    return f"DEFAULT={default_runtime}\nWHY={WHY}\n"


def parsed_txt(version: int, runtimes: list[str]) -> str:
    return f"VERSION={version}\nRUNTIMES={','.join(runtimes)}\n"  # the config's order, as the lab lists them


def cdi_keys_txt(keys: list[str]) -> str:
    return "".join(f"{k}\n" for k in keys)


def scalar(v) -> str:
    """A config value as TOML writes it: booleans stay `true`, a string "true" shows its quotes."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v if v else '""'
    return toml_value(v)


def report_txt(config_version: int, runtime: str, runtime_type, systemd_cgroup, handler) -> str:
    return (f"CONFIG_VERSION={config_version}\n"
            f"RUNTIME={runtime}\n"
            f"RUNTIME_TYPE={scalar(runtime_type)}\n"
            f"SYSTEMD_CGROUP={'' if systemd_cgroup is None else toml_value(systemd_cgroup)}\n"
            f"HANDLER={handler}\n")
