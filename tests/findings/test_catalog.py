"""The one finding type and its catalog: every code the library uses has its words in both languages, every
template names only values the findings carry, and the catalog holds no dead entries."""

import re
import string
from pathlib import Path

from runbook_lib.findings.problem import Problem, catalog

LIB = Path(__file__).resolve().parents[2] / "runbook_lib"
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
        if "what" not in entry:  # a sentence the runbook says (a plan's message, a note, a refusal), not a finding
            assert {"ko", "en"} <= set(entry) <= {"ko", "en", "ko_one", "en_one"}, \
                f"{code}: a sentence is ko and en (and their words for a count of one), a finding what and fix"
            entry = {"what": entry, "fix": entry}
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
        entry = entry if "what" in entry else {"what": entry}
        for part in ("what", "fix", "why"):
            if part in entry:
                names = [{f for _, f, _, _ in string.Formatter().parse(entry[part][lang]) if f}
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
        assert not TEMPLATED_PARTICLE.search(path.read_text()), path


# --- every user-facing sentence lives in the catalog ----------------------------------------------------------

import ast  # noqa: E402

from runbook_lib.findings.catalog import render  # noqa: E402
from runbook_lib.findings.messages import Msg  # noqa: E402

CATALOG_API = {LIB / "findings" / "messages.py", LIB / "findings" / "catalog.py"}  # Msg itself and the loader
NOTEBOOK_BUILDER = LIB.parent / "tools" / "build_notebook.py"  # the cells' own text names codes too


def _trees():
    for path in sorted(LIB.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _docstrings(tree) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def _literal_text(node) -> str | None:
    """A string literal's text, a formatted value standing as one character."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "\0" for v in node.values)
    return None


def test_no_inline_bilingual_message():
    """Msg("ko", "en") only in the catalog's loader and as a step's TITLE; never a "ko\\nen" string."""
    found = []
    for path, tree in _trees():
        titles = {id(n.value) for n in tree.body if isinstance(n, ast.Assign) and path.parent.name == "steps"
                  and any(isinstance(t, ast.Name) and t.id == "TITLE" for t in n.targets)}
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            where = f"{path.relative_to(LIB.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Msg" \
                    and path not in CATALOG_API and id(node) not in titles:
                found.append(f"{where}: an inline Msg(...): give it a code in runbook_lib/data/findings.yaml")
            text = _literal_text(node)
            if text is None or id(node) in docs or "<html" in text:
                continue
            korean = [i for i, ch in enumerate(text) if HANGUL.match(ch)]
            after = text.find("\n", korean[-1]) if korean else -1
            if after >= 0 and re.search(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}", text[after:]):
                found.append(f"{where}: a \"ko\\nen\" string: give it a code in runbook_lib/data/findings.yaml")
    assert found == []


def _referenced() -> set[str]:
    """Every code the library names where a code goes: the first argument of Problem.of / Error.of / say /
    words, or a code= keyword (a conditional's both branches)."""
    out: set[str] = set()

    def take(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.add(node.value)
        elif isinstance(node, ast.IfExp):
            take(node.body), take(node.orelse)

    for _, tree in _trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("of", "say", "words") and node.args:
                take(node.args[0])
            for kw in node.keywords:
                if kw.arg == "code":
                    take(kw.value)
    return out


def test_every_code_named_in_the_library_is_in_the_catalog():
    referenced = _referenced()
    assert len(referenced) > 300  # the walk sees the library's codes, or this test would pass on nothing
    assert sorted(referenced - set(catalog())) == []


def test_every_catalog_entry_is_used():
    """A code is used when the library spells it (a literal, a table of codes) or builds it from a family
    named in an f-string (f"containerd.reads.{what}"), or a cell of the notebook names it."""
    literals, families = set(), set()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) \
                    and re.fullmatch(r"[a-z_]+(\.[a-z_]+)*\.", node.values[0].value):
                families.add(node.values[0].value)
    from runbook_lib.steps import STEPS  # each step's check cell (Step.check), which the plan runs too
    cells = NOTEBOOK_BUILDER.read_text(encoding="utf-8") + "".join(s.check for s in STEPS)
    unused = [code for code in catalog() if code not in literals and f'"{code}"' not in cells
              and not any(code.startswith(f) for f in families)]
    assert unused == []


# --- what a person reads: values, never Python reprs; Korean on the Korean line --------------------------------

SAMPLES = {"n": 3, "bad": 2, "count": 64, "line": 12, "col": 7, "step": 5, "version": 2, "returncode": 1}
# what a value must never become inside a sentence (a Python repr), unless the sentence itself says it
REPRS = ("None", "True", "False", "['", "('", "[]", "Msg(", "{'")
# an English clause inside a Korean line: four English words in a row, once commands, paths, keys and quoted
# text are taken out (they are the same in both languages), and the words the Korean line quotes as they are:
# containerd's and kubectl's own messages, JupyterLab's menu items, a RuntimeClass's field names
ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){3,}\b")
VERBATIM = re.compile(r"`[^`]*`|\"[^\"]*\"|'[^']*'|\S*[/=._<>:-]\S*")
QUOTED_AS_IS = ("invalid plugin key URI", "drop-in config version higher than root config version",
                "Restart Kernel and Run All Cells", "Run All Above Selected Cell",
                "apiVersion, kind, metadata, handler, overhead, scheduling", "no corresponding runtime configured in")


def _values(template: dict, absent=None) -> dict:
    """A sample value for every name a template uses: a number where it is formatted as one or counts, a
    bilingual value where the name is one (the finding's own words), else ``absent`` (None, a list, ...) or a
    word."""
    out = {}
    for lang in ("ko", "en"):
        for _, name, spec, _ in string.Formatter().parse(template[lang]):
            if name:
                out[name] = SAMPLES.get(name, 10 if spec else Msg("값", "value") if name in BILINGUAL else
                                        absent if absent is not None else "x")
    return out


BILINGUAL = {"what", "message", "title", "kind", "who", "said", "hint", "left", "owner_what", "at", "place", "moved",
             "fixed", "edits", "detail", "problem", "read_by", "lines", "got", "want", "table", "binary", "lost"}


def _templates():
    for code, entry in catalog().items():
        parts = {part: entry[part] for part in ("what", "fix", "why") if part in entry} if "what" in entry \
            else {"": entry}
        for part, template in parts.items():
            yield code, part, template


def test_every_entry_renders_its_values_as_a_person_reads_them():
    """No value becomes a Python repr in any entry: an absent value, a list, a tuple, a boolean."""
    for absent in (None, ["runc", "nvidia"], ("runc",), True, []):
        for code, part, template in _templates():
            said = render(template, _values(template, absent))
            for lang in ("ko", "en"):
                made = [r for r in REPRS if r in getattr(said, lang) and r not in template[lang]]
                assert made == [], (code, part, absent, getattr(said, lang))


def test_a_value_is_never_a_python_repr():
    said = render({"ko": "{a} / {b} / {c} / {d}", "en": "{a} / {b} / {c} / {d}"},
                  {"a": None, "b": ["runc", "nvidia"], "c": ("x",), "d": Msg("예", "yes")})
    assert said == Msg("/ runc, nvidia / x / 예", "/ runc, nvidia / x / yes")


def test_the_korean_line_holds_no_english_clause():
    for code, part, template in _templates():
        ko = render(template, _values(template)).ko
        plain = ko
        for words in QUOTED_AS_IS:
            plain = plain.replace(words, " ")
        plain = VERBATIM.sub(" ", plain)
        assert not ENGLISH_RUN.search(plain), (code, part, ko, ENGLISH_RUN.search(plain).group())


def test_counts_read_naturally_in_both_languages():
    for code, entry in catalog().items():
        for lang in ("ko", "en"):
            text = entry.get(lang) or ""
            assert "(s)" not in text, (code, "a plural written as (s): give a ko_one / en_one instead")
    from runbook_lib.findings.catalog import say
    assert say("summary.hosts.passed", n=1, bad=0) == Msg("호스트 1대 통과", "the host passed")
    assert say("summary.hosts.passed", n=3, bad=0) == Msg("호스트 3대 모두 통과", "all 3 hosts passed")
    assert say("feedback.steps_to_fix", n=1).en == "one step to fix; it is below."
    assert say("feedback.steps_to_fix", n=3).en == "3 steps to fix; work through them in order below."
