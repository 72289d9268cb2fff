"""Known mistakes for "find what is wrong with this node" exercises (`runbook lab-init --mistake KIND ROOT`).

Each kind is one edit of a correctly finished lab, the way a student really gets it wrong (the diagnoses in
runbook_lib/containerd/diagnose.py know every one), and names the step the grader must fail for it. This table
is the one place that says so: tests/fleet/test_grade.py grades every kind and checks `step`, and `code`
(the finding code the grader must give) is checked against it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from runbook_lib.findings.messages import Msg, bilingual
from runbook_lib.findings.catalog import say

CONFIG = "/etc/containerd/config.toml"
SPEC = "/etc/cdi/nvidia.yaml"
TOOLKIT = "/root/toolkit"
CRI = 'plugins."io.containerd.grpc.v1.cri"'
NVIDIA = f"[{CRI}.containerd.runtimes.nvidia]"
OPTIONS = f"[{CRI}.containerd.runtimes.nvidia.options]"
BINARY = 'BinaryName = "/usr/bin/nvidia-container-runtime"'


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` in one file (inside the table under `header` when given); `new=None` deletes it."""
    path: str
    old: str = ""
    new: str | None = ""
    header: str | None = None


@dataclass(frozen=True)
class Mistake:
    kind: str
    name: Msg
    edits: tuple[Edit, ...]
    step: str  # the step id the grader must fail
    code: str | None = None  # the finding code the grader must give (runbook_lib/data/findings.yaml)


def _headers(old: str, new: str) -> tuple[Edit, ...]:
    return (Edit(CONFIG, f"{old}]", f"{new}]"), Edit(CONFIG, f"{old}.options]", f"{new}.options]"))


_NV = f"{CRI}.containerd.runtimes.nvidia"

MISTAKES: tuple[Mistake, ...] = (
    Mistake("unquoted-header", say("mistakes.section_header_without_quotes"),
            _headers(f"[{_NV}", "[plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia"), "runtime", "runtime.misplaced.unquoted_header"),
    Mistake("string-boolean", say("mistakes.systemdcgroup_true_string_boolean"),
            (Edit(CONFIG, "SystemdCgroup = true", 'SystemdCgroup = "true"', OPTIONS),), "options", "options.systemd_cgroup.string"),
    Mistake("wrong-version-path", say("mistakes.another_config_version_s"),
            _headers(f"[{_NV}", "[plugins.cri.containerd.runtimes.nvidia"), "runtime", "runtime.misplaced.v1_path"),
    Mistake("misplaced-table", say("mistakes.runtime_table_wrong_place"),
            _headers(f"[{_NV}", f"[{CRI}.runtimes.nvidia"), "runtime", "runtime.misplaced"),
    Mistake("default-nvidia", say("mistakes.default_runtime_changed_nvidia"),
            (Edit(CONFIG, 'default_runtime_name = "runc"', 'default_runtime_name = "nvidia"'),), "default", "default.is_runtime"),
    Mistake("handler-mismatch", say("mistakes.runtimeclass_yaml_s_handler"),
            (Edit(f"{TOOLKIT}/runtimeclass.yaml", "handler: nvidia", "handler: nvidai"),), "runtimeclass", "runtimeclass.handler_not_a_runtime"),
    Mistake("missing-cdi-kind", say("mistakes.cdi_spec_no_kind"),
            (Edit(SPEC, "kind: nvidia.com/gpu\n", ""),), "cdi", "cdi.kind_missing"),
    Mistake("missing-report", say("mistakes.report_txt_missing"),
            (Edit(f"{TOOLKIT}/report.txt", new=None),), "report", "file.missing"),
    Mistake("binaryname-relative", say("mistakes.binaryname_relative_path"),
            (Edit(CONFIG, BINARY, 'BinaryName = "nvidia-container-runtime"', OPTIONS),), "options", "options.binary_name.relative"),
    Mistake("runtime-type-typo", say("mistakes.runtime_type_misspelt_runtimetype"),
            (Edit(CONFIG, "runtime_type = ", "runtimetype = ", NVIDIA),), "runtime", "runtime.unknown_key.typo"),
    Mistake("toml-syntax-error", say("mistakes.binaryname_s_closing_quote"),
            (Edit(CONFIG, BINARY, BINARY[:-1], OPTIONS),), "runtime", "toml.unclosed_quote"),
    Mistake("no-version-line", say("mistakes.version_line_removed"),
            (Edit(CONFIG, "\nversion = 2\n", "\n"),), "runtime", "config.version_missing_v2_tables"),
    Mistake("cri-disabled", say("mistakes.cri_plugin_disabled_plugins"),
            (Edit(CONFIG, "\nversion = 2\n", '\nversion = 2\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n'),),
            "runtime", "containerd.cri_disabled"),
    Mistake("systemdcgroup-mismatch", say("mistakes.nvidia_s_systemdcgroup_differs"),
            (Edit(CONFIG, "SystemdCgroup = true", "SystemdCgroup = false", OPTIONS),), "options", "options.systemd_cgroup.wrong"),
    Mistake("duplicate-key", say("mistakes.runtime_type_written_twice"),
            (Edit(CONFIG, 'runtime_type = "io.containerd.runc.v2"',
                  'runtime_type = "io.containerd.runc.v2"\n          runtime_type = "io.containerd.runc.v2"', NVIDIA),),
            "runtime", "toml.duplicate"),
    Mistake("missing-default-file", say("mistakes.default_txt_missing"),
            (Edit(f"{TOOLKIT}/default.txt", new=None),), "default", "file.missing"),
    Mistake("parsed-wrong", say("mistakes.parsed_txt_s_runtime"),
            (Edit(f"{TOOLKIT}/parsed.txt", "RUNTIMES=runc,nvidia", "RUNTIMES=runc"),), "parse", "file.differs"),
    Mistake("python-true", say("mistakes.systemdcgroup_true_python_s"),
            (Edit(CONFIG, "SystemdCgroup = true", "SystemdCgroup = True", OPTIONS),), "runtime", "toml.boolean_spelling"),
    Mistake("typographic-quotes", say("mistakes.binaryname_typographic_quotes_copied"),
            (Edit(CONFIG, BINARY, BINARY.replace('"', "\u201c", 1).replace('"', "\u201d"), OPTIONS),), "runtime",
            "toml.typographic_quotes"),
    Mistake("options-typo", say("mistakes.binaryname_misspelt_binarypath"),
            (Edit(CONFIG, "BinaryName = ", "BinaryPath = ", OPTIONS),), "options", "options.unknown_key.typo"),
    Mistake("runc-binary-nvidia", say("mistakes.nvidia_s_binaryname_written"),
            (Edit(CONFIG, "SystemdCgroup = true", f"SystemdCgroup = true\n            {BINARY}",
                  f"[{CRI}.containerd.runtimes.runc.options]"),), "default", "default.runs_runtime_binary"),
    Mistake("handler-under-spec", say("mistakes.runtimeclass_yaml_s_handler_2"),
            (Edit(f"{TOOLKIT}/runtimeclass.yaml", "\nhandler: nvidia", "\nspec:\n  handler: nvidia"),), "runtimeclass",
            "runtimeclass.handler_nested"),
    Mistake("binaryname-space", say("mistakes.binaryname_space_inside_quotes"),
            (Edit(CONFIG, BINARY, BINARY[:-1] + ' "', OPTIONS),), "options", "options.binary_name.spaces"),
    Mistake("default-runtime-key", say("mistakes.default_runtime_for_its_name"),
            (Edit(CONFIG, 'default_runtime_name = "runc"', 'default_runtime = "runc"'),), "default",
            "default.legacy_not_a_table"),
    Mistake("handler-blank", say("mistakes.handler_blank_inside_quotes"),
            (Edit(f"{TOOLKIT}/runtimeclass.yaml", "\nhandler: nvidia", '\nhandler: "nvidia "'),), "runtimeclass",
            "runtimeclass.handler_blanks"),
    Mistake("report-spaces", say("mistakes.report_spaces_around_equals"),
            (Edit(f"{TOOLKIT}/report.txt", "RUNTIME=nvidia", "RUNTIME = nvidia"),), "report",
            "file.spaces_around_equals"),
    Mistake("report-quoted", say("mistakes.report_quoted"),
            (Edit(f"{TOOLKIT}/report.txt", "RUNTIME=nvidia", 'RUNTIME="nvidia"'),), "report", "file.format_slips"),
    Mistake("options-header-missing", say("mistakes.options_header_missing"),
            (Edit(CONFIG, f"\n          {OPTIONS}", ""),), "runtime", "runtime.option_outside_options"),
)

BY_KIND = {m.kind: m for m in MISTAKES}


def parse_kinds(text: str) -> list[Mistake]:
    """`KIND[,KIND...]` as the Mistakes, in order; an unknown kind is a ValueError naming the known ones."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in BY_KIND]
    if unknown or not kinds:
        known = ", ".join(BY_KIND)
        raise ValueError(str(say("mistakes.unknown_mistake_kind_known", unknown=unknown or "-", known=known)))
    return [BY_KIND[k] for k in dict.fromkeys(kinds)]


def _span(text: str, header: str | None) -> tuple[int, int]:
    """Where an edit may apply: the whole file, or the lines of one table (its header to the next header)."""
    if header is None:
        return 0, len(text)
    start = text.find(header)
    if start < 0:
        return 0, 0
    end = start + len(header)
    for line_start in _line_starts(text, end):
        if text[line_start:].lstrip(" \t").startswith("["):
            return start, line_start
    return start, len(text)


def _line_starts(text: str, after: int):
    i = text.find("\n", after)
    while i >= 0:
        yield i + 1
        i = text.find("\n", i + 1)


def apply_edit(text: str, edit: Edit) -> str | None:
    """The text with the edit made, or None when the text has no place for it."""
    start, end = _span(text, edit.header)
    at = text.find(edit.old, start, end)
    if at < 0:
        return None
    return text[:at] + (edit.new or "") + text[at + len(edit.old):]


def is_applied(text: str | None, edit: Edit) -> bool:
    """The edit's result is already there (a second `lab-init` with the same mistakes changes nothing)."""
    if edit.new is None:
        return text is None
    if text is None:
        return False
    start, end = _span(text, edit.header)
    if edit.new and edit.old in edit.new:  # an insertion: the inserted text is there
        return text.find(edit.new, start, end) >= 0
    return text.find(edit.old, start, end) < 0 and (not edit.new or text.find(edit.new, start, end) >= 0)


def listing() -> str:
    """`runbook lab-init --list`: every kind, in both languages, with the step it breaks."""
    from runbook_lib.lab.lessons import LESSONS  # noqa: F401 - step ids are the lessons' keys

    width = max(len(m.kind) for m in MISTAKES)
    step = bilingual(say("label.step"))
    lines = [f"{bilingual(say('lab.mistakes.kinds'))} (runbook lab-init --mistake KIND[,KIND...] ROOT):"]
    for m in MISTAKES:
        lines.append(f"  {m.kind:<{width}}  {m.name.ko}")
        lines.append(f"  {'':<{width}}  {m.name.en}  → {step}: {m.step}")
    return "\n".join(lines)
