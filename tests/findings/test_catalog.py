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
    """Msg("ko", "en") only in the catalog's loader (a step's TITLE is the catalog's title.<id>); never a "ko\\nen"
    string."""
    found = []
    for path, tree in _trees():
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            where = f"{path.relative_to(LIB.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Msg" \
                    and path not in CATALOG_API:
                found.append(f"{where}: an inline Msg(...): give it a code in runbook_lib/data/findings.yaml")
            text = _literal_text(node)
            if text is None or id(node) in docs or "<html" in text:
                continue
            korean = [i for i, ch in enumerate(text) if HANGUL.match(ch)]
            after = text.find("\n", korean[-1]) if korean else -1
            if after >= 0 and re.search(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}", text[after:]):
                found.append(f"{where}: a \"ko\\nen\" string: give it a code in runbook_lib/data/findings.yaml")
    assert found == []


# Hangul anywhere: syllables, and the jamo a word may be spelled with
HANGUL_ANY = re.compile(r"[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff]")
ONE_LINE_PAIR = re.compile(r"[\uac00-\ud7a3][^\n]*? / [A-Za-z]")  # "통과 / passed": Korean, " / ", then English


def _strings(tree):
    """Every string a module's code holds, with its line: each literal, an f-string as one text (its values as
    \\0), never a docstring. Comments are not in the tree: Korean comments are for the code's readers."""
    docs = _docstrings(tree)
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if id(node) in docs or id(node) in parts:
            continue
        text = _literal_text(node)
        if text is not None:
            yield node.lineno, text


def test_no_korean_string_outside_the_catalog():
    """Every sentence and label a person reads is an entry of runbook_lib/data/findings.yaml: no string literal or
    f-string of the library holds a Hangul character (docstrings and comments may), and none is a one-line
    "ko / en" pair, the form the "ko\\nen" check above does not see."""
    korean, pairs = [], []
    for path, tree in _trees():
        for line, text in _strings(tree):
            where = f"{path.relative_to(LIB.parent)}:{line}: {text[:60]!r}"
            if ONE_LINE_PAIR.search(text):
                pairs.append(where)
            elif HANGUL_ANY.search(text):
                korean.append(where)
    # each a string to give a code in runbook_lib/data/findings.yaml: ("ko / en" pairs, other Korean strings)
    assert (pairs, korean) == ([], [])


def _language(node) -> str | None:
    """"ko" or "en" when an expression reads one language of a bilingual value: m.ko, rec["en"], t.get("ko")."""
    if isinstance(node, ast.Attribute) and node.attr in ("ko", "en"):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in ("ko", "en"):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("ko", "en"):
        return node.args[0].value
    if isinstance(node, ast.Call) and node.func and isinstance(node.func, ast.Name) and node.args:  # _e(m.ko)
        return _language(node.args[0])
    return None


def test_the_two_languages_are_joined_in_one_place():
    """Korean and English on one line are joined by runbook_lib/findings/messages.py's bilingual, never by hand:
    no f"{m.ko} / {m.en}", no " / ".join(m.as_dict().values())."""
    found = []
    for path, tree in _trees():
        if path == LIB / "findings" / "messages.py":
            continue
        for node in ast.walk(tree):
            where = f"{path.relative_to(LIB.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.JoinedStr):
                said = [_language(v.value) if isinstance(v, ast.FormattedValue) else
                        ("/" if "/" in v.value else None) for v in node.values]
                said = [s for s in said if s]
                if any(said[i:i + 3] == ["ko", "/", "en"] for i in range(len(said))):
                    found.append(f"{where}: an f-string joins ko and en: use messages.bilingual")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
                    and isinstance(node.func.value, ast.Constant) and "/" in str(node.func.value.value) \
                    and "as_dict" in ast.unparse(node):
                found.append(f"{where}: a join of a Msg's languages: use messages.bilingual")
    assert found == []


def test_the_one_join():
    from runbook_lib.findings.messages import bilingual
    assert bilingual(Msg("통과", "passed")) == "통과 / passed" == bilingual({"ko": "통과", "en": "passed"})
    assert str(Msg("통과", "passed")) == "통과\npassed" and bilingual(Msg("호스트", "host"), "/") == "호스트/host"


def test_the_checks_see_what_they_refuse():
    """The walks above see a Korean literal, a "ko / en" pair and a hand-made join (or they would pass on
    nothing), and leave a docstring and a comment alone."""
    tree = ast.parse('"""설명"""\n# 주석\na = "통과 / passed"\nb = f"{n}개"\nc = f"{m.ko} / {m.en}"\n')
    texts = sorted(t for _, t in _strings(tree))
    assert texts == sorted(["통과 / passed", "\0개", "\0 / \0"])
    assert ONE_LINE_PAIR.search("통과 / passed") and HANGUL_ANY.search("\0개") and not ONE_LINE_PAIR.search("\0개")
    joined = [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)][-1]
    assert [_language(v.value) for v in joined.values if isinstance(v, ast.FormattedValue)] == ["ko", "en"]


def _referenced() -> set[str]:
    """Every code the library names where a code goes: the first argument of Problem.of / Error.of / say /
    words / the CLI's _help, or a code= keyword (a conditional's both branches)."""
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
            if name in ("of", "say", "words", "_help") and node.args:  # _help: the CLI's help (cli/main.py)
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
            # "step(s)" is a plural written as (s); "duration (s)", after a space, is the unit of seconds
            assert not re.search(r"\w\(s\)", text), (code, "a plural written as (s): give a ko_one / en_one instead")
    from runbook_lib.findings.catalog import say
    assert say("summary.hosts.passed", n=1, bad=0) == Msg("호스트 1대 통과", "the host passed")
    assert say("summary.hosts.passed", n=3, bad=0) == Msg("호스트 3대 모두 통과", "all 3 hosts passed")
    assert say("feedback.steps_to_fix", n=1).en == "one step to fix; it is below."
    assert say("feedback.steps_to_fix", n=3).en == "3 steps to fix; work through them in order below."
