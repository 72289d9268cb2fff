"""The one finding type and its catalog: every code the library uses has its words in both languages, every
template names only values the findings carry, and the catalog holds no dead entries."""

import re
import string
from pathlib import Path

from runbook_lib.findings.problem import Problem, catalog

LIB = Path(__file__).resolve().parents[1] / "runbook_lib"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
TEMPLATED_PARTICLE = re.compile(r"이\(가\)|을\(를\)|은\(는\)|와\(과\)|\(으\)로")


def codes_in_code() -> set[str]:
    text = "\n".join(p.read_text() for p in LIB.rglob("*.py"))
    found = set(re.findall(r'Problem\.of\(\s*"([a-z_.A-Z]+)"', text))
    found |= set(re.findall(r'Problem\.of\("([a-z_.]+)" if', text))
    found |= set(re.findall(r'Problem\.of\("[a-z_.]+" if [^"]+ else "([a-z_.]+)"', text))
    return found


def test_every_code_used_is_in_the_catalog_in_both_languages():
    entries = catalog()
    for code in codes_in_code():
        assert code in entries, code
    for code, entry in entries.items():
        for part in ("what", "fix", "why"):
            if part in entry:
                msg = entry[part]
                assert msg["ko"] and msg["en"], (code, part)
                if not HANGUL.search(msg["ko"]):  # only a fix that is a command or a config line reads the same
                    assert part == "fix" and msg["ko"] == msg["en"], (code, part, "Korean missing")
                assert not HANGUL.search(msg["en"]), (code, part, "Korean in the English text")
                assert not TEMPLATED_PARTICLE.search(msg["ko"]), (code, part, "a 이(가)-style particle template")
        assert "what" in entry and "fix" in entry, f"{code}: every finding says what is wrong and the fix"


def test_templates_name_the_same_values_in_both_languages():
    for code, entry in catalog().items():
        for part in ("what", "fix", "why"):
            if part in entry:
                names = [{re.sub(r"_(ko|en)$", "", f) for _, f, _, _ in string.Formatter().parse(entry[part][lang]) if f}
                         for lang in ("ko", "en")]
                assert names[0] == names[1], (code, part, names)


def test_a_finding_renders_its_values_and_keeps_them_for_machines():
    p = Problem.of("options.systemd_cgroup.string", "/etc/containerd/config.toml", 35, value='"true"', fixed="true",
                   expected="true", key="options.SystemdCgroup")
    assert p.code == "options.systemd_cgroup.string" and p.where() == "/etc/containerd/config.toml:35"
    assert '"true"' in p.what.en and "SystemdCgroup = true" in p.fix.ko
    assert p.as_dict()["values"]["key"] == "options.SystemdCgroup" and p.as_dict()["severity"] == "error"


def test_the_library_speaks_without_particle_templates():
    for path in LIB.rglob("*.py"):
        if path.name == "cdi_validate.py":
            continue  # being replaced by the schema validator (issue 13)
        assert not TEMPLATED_PARTICLE.search(path.read_text()), path
