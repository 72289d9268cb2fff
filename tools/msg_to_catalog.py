"""The migration that moved inline Msg("ko", "en") and "ko\\nen" strings into runbook_lib/data/findings.yaml (issue 20,
branch i20b), kept so that it can be run again on files that changed meanwhile: `python tools/msg_to_catalog.py
"TITLE OF THE SECTION" FILE...` rewrites the files (say()/Error.of() calls) and appends their entries to the catalog;
what it cannot convert it prints as FLAG lines, to be done by hand. Codes come out as module.words_of_the_english;
tools/error_code_family.py then puts an error class's codes under its family (write.failed.*, config.unreadable.*)."""
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
YAML = ROOT / "runbook_lib/data/findings.yaml"
ERR = re.compile(r"^(RunbookError|ParameterError|ConfigError|ConfinementError|WriteError|LockTimeout|FindingError|"
                 r"RuntimeOwnedElsewhere|TemplateUnrendered)$")
STOP = set("the a an is are of to and it be this that in on for with by as at its so or was were has have from "
           "into your you e g".split())
RESERVED = {"path": "at", "line": "line_no", "col": "column", "code": "code_name", "pointer": "json_pointer",
            "excerpt": "excerpt_text", "severity": "level", "cls": "kind"}
DUP_STEMS = {"remove", "edit", "plan", "restart", "render", "runtimeclass", "cdi", "main", "grade", "runner",
             "show", "init_root", "spec", "validate", "names"}

existing = set(re.findall(r"^([A-Za-z][\w.-]*):", YAML.read_text(), re.M))
new_entries: list[tuple[str, dict]] = []
flags: list[str] = []


def prefix_for(path: Path) -> str:
    rel = path.relative_to(ROOT / "runbook_lib")
    stem = rel.stem if rel.stem != "__init__" else rel.parent.name
    pkg = rel.parent.name
    if stem in DUP_STEMS or stem.startswith("_"):
        return f"{pkg}.{stem.lstrip('_')}"
    return stem


def slug(en: str) -> str:
    en = re.sub(r"\{[^}]*\}", " ", en)
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", en)]
    words = [w for w in words if w not in STOP] or ["message"]
    return "_".join(words[:4])


def unique_code(code: str) -> str:
    base, n = code, 2
    while code in existing:
        code = f"{base}_{n}"
        n += 1
    existing.add(code)
    return code


def name_for(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return re.sub(r"\W", "_", expr.slice.value)
    if isinstance(expr, ast.Call):
        f = expr.func
        if isinstance(f, ast.Name) and f.id == "len":
            return "count"
        if expr.args:
            inner = name_for(expr.args[0])
            if inner != "value":
                return inner
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return "value"


class Template:
    def __init__(self):
        self.values: dict[str, str] = {}   # name -> source expression
        self.by_src: dict[str, str] = {}

    def place(self, src: str, expr: ast.expr) -> str:
        if src in self.by_src:
            return self.by_src[src]
        name = name_for(expr)
        name = RESERVED.get(name, name)
        name = re.sub(r"^_+", "", name) or "value"
        base, n = name, 2
        while name in self.values:
            name = f"{base}{n}"
            n += 1
        self.values[name] = src
        self.by_src[src] = name
        return name


def literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr)


def template_of(node, lang: str, tpl: Template, source: str) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value.replace("{", "{{").replace("}", "}}")
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(part.value.replace("{", "{{").replace("}", "}}"))
            continue
        expr = part.value
        if part.conversion != -1:
            flags.append(f"conversion !{chr(part.conversion)} in {ast.unparse(node)[:80]}")
        # a bilingual value: x.ko in Korean, x.en in English -> {x} with the Msg x
        if isinstance(expr, ast.Attribute) and expr.attr == lang:
            src = ast.get_source_segment(source, expr.value)
            expr = expr.value
        else:
            src = ast.get_source_segment(source, expr)
        name = tpl.place(src, expr)
        spec = ""
        if part.format_spec is not None:
            if any(not isinstance(v, ast.Constant) for v in part.format_spec.values):
                return None
            spec = ":" + "".join(v.value for v in part.format_spec.values)
        out.append("{" + name + spec + "}")
    return "".join(out)


def msg_parts(call, tpl: Template, source: str):
    """(ko, en) templates of a literal Msg call, or None."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Msg"
            and len(call.args) == 2 and not call.keywords and all(literal(a) for a in call.args)):
        return None
    ko = template_of(call.args[0], "ko", tpl, source)
    en = template_of(call.args[1], "en", tpl, source)
    if ko is None or en is None:
        return None
    return {"ko": ko.strip(), "en": en.strip()}


def kwargs_src(tpl: Template) -> str:
    return ", ".join(f"{k}={v}" for k, v in tpl.values.items())


def convert(path: Path) -> None:
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.encode().splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def span(node):
        return offsets[node.lineno - 1] + node.col_offset, offsets[node.end_lineno - 1] + node.end_col_offset

    edits = []  # (start, end, text)
    done: set[int] = set()
    prefix = prefix_for(path)
    used = {"say": False, "Problem": False}
    title_ids = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TITLE" for t in node.targets):
            title_ids.add(id(node.value))

    # combos first: an error or a Problem built of Msg literals
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
            continue
        fname = node.func.id
        is_err, is_problem = bool(ERR.match(fname)), fname == "Problem"
        if not (is_err or is_problem):
            continue
        tpl = Template()
        what = msg_parts(node.args[0], tpl, source)
        if what is None:
            continue
        fix = msg_parts(node.args[1], tpl, source) if len(node.args) > 1 else None
        if len(node.args) > 1 and fix is None:
            continue
        rest_pos = node.args[2:]
        why = None
        kws = []
        code = None
        for kw in node.keywords:
            if kw.arg == "why":
                why = msg_parts(kw.value, tpl, source)
                if why is None:
                    break
            elif kw.arg == "code":
                if isinstance(kw.value, ast.Constant):
                    code = kw.value.value
                else:
                    break
            else:
                kws.append(ast.get_source_segment(source, kw))
        else:
            pos = []
            if is_problem:
                if len(rest_pos) > 2:
                    if len(rest_pos) == 3 and msg_parts(rest_pos[2], tpl, source) is not None:
                        why = msg_parts(rest_pos[2], Template(), source)
                        # re-place values of why in tpl
                        why = msg_parts(rest_pos[2], tpl, source)
                        rest_pos = rest_pos[:2]
                    else:
                        flags.append(f"{path}:{node.lineno}: Problem with many positional args")
                        continue
                pos = [ast.get_source_segment(source, a) for a in rest_pos]
            elif rest_pos:
                continue
            if fix is None:
                # a finding needs a fix: make it a sentence-built error instead (handled by the plain pass)
                continue
            if code is None or code in existing:
                if code is not None:
                    flags.append(f"{path}:{node.lineno}: code {code} already in the catalog; made a new one")
                code = unique_code(f"{prefix}.{slug(what['en'])}")
            else:
                existing.add(code)
            entry = {"what": what, "fix": fix}
            if why:
                entry["why"] = why
            new_entries.append((code, entry, path))
            args = [json.dumps(code)] + pos + kws + ([kwargs_src(tpl)] if tpl.values else [])
            if is_problem:
                used["Problem"] = True
            edits.append((*span(node), f"{fname}.of({', '.join(a for a in args if a)})"))
            for sub in ast.walk(node):
                done.add(id(sub))

    for node in ast.walk(tree):
        if id(node) in done or id(node) in title_ids:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Msg":
            tpl = Template()
            parts = msg_parts(node, tpl, source)
            if parts is None:
                flags.append(f"{path}:{node.lineno}: not converted: {ast.get_source_segment(source, node)[:100]}")
                continue
            code = unique_code(f"{prefix}.{slug(parts['en'])}")
            new_entries.append((code, parts, path))
            used["say"] = True
            args = [json.dumps(code)] + ([kwargs_src(tpl)] if tpl.values else [])
            edits.append((*span(node), f"say({', '.join(args)})"))
            for sub in ast.walk(node):
                done.add(id(sub))

    # "ko\nen" strings: split at the first newline after the last Hangul character
    doc_ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            doc_ids.add(id(node.body[0].value))
    for node in ast.walk(tree):
        if id(node) in done or id(node) in doc_ids or not literal(node):
            continue
        if isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                done.add(id(sub))
        segs = [("c", node.value)] if isinstance(node, ast.Constant) else \
            [("c", v.value) if isinstance(v, ast.Constant) else ("v", v) for v in node.values]
        flat = "".join(v if k == "c" else "\0" for k, v in segs)
        hangul = [i for i, ch in enumerate(flat) if "\uac00" <= ch <= "\ud7a3"]
        if not hangul or "<html" in flat or "<title>" in flat:  # a page's template, not a sentence
            continue
        nl = flat.find("\n", hangul[-1])
        if nl < 0 or not re.search(r"[A-Za-z]{2,}.*[A-Za-z]{2,}", flat[nl:].replace("\0", "")):
            continue
        # rebuild two segment lists
        ko_segs, en_segs, pos = [], [], 0
        for k, v in segs:
            length = len(v) if k == "c" else 1
            if k == "c" and pos <= nl < pos + length:
                ko_segs.append(("c", v[:nl - pos])); en_segs.append(("c", v[nl - pos + 1:]))
            elif pos + length <= nl:
                ko_segs.append((k, v))
            else:
                en_segs.append((k, v))
            pos += length
        tpl = Template()
        def build(sg, lang):
            fake = ast.JoinedStr(values=[ast.Constant(v) if k == "c" else v for k, v in sg])
            return template_of(fake, lang, tpl, source)
        ko, en = build(ko_segs, "ko"), build(en_segs, "en")
        if ko is None or en is None:
            flags.append(f"{path}:{node.lineno}: ko-en string not converted")
            continue
        code = unique_code(f"{prefix}.{slug(en)}")
        new_entries.append((code, {"ko": ko.strip("\n"), "en": en.strip("\n")}, path))
        used["say"] = True
        args = [json.dumps(code)] + ([kwargs_src(tpl)] if tpl.values else [])
        edits.append((*span(node), f"str(say({', '.join(args)}))"))

    # nested edits: keep only outermost (combos contain their Msgs, already marked done)
    edits.sort(key=lambda e: e[0], reverse=True)
    out = source.encode()
    for start, end, text in edits:
        out = out[:start] + text.encode() + out[end:]
    out = out.decode()
    if not edits:
        return
    imports = []
    if used["say"] and not re.search(r"^from runbook_lib\.findings\.(catalog|problem) import .*\bsay\b", out, re.M):
        imports.append("from runbook_lib.findings.catalog import say")
    if used["Problem"] and not re.search(r"^from runbook_lib\.findings\.problem import .*\bProblem\b", out, re.M):
        imports.append("from runbook_lib.findings.problem import Problem")
    body_wo_import = re.sub(r"^from runbook_lib\.findings\.messages import .*$", "", out, flags=re.M)
    if not re.search(r"\bMsg\b", body_wo_import):
        out = re.sub(r"^from runbook_lib\.findings\.messages import Msg\n", "", out, flags=re.M)
        out = re.sub(r"^(from runbook_lib\.findings\.messages import )Msg, ", r"\1", out, flags=re.M)
        out = re.sub(r"^(from runbook_lib\.findings\.messages import .*), Msg\b", r"\1", out, flags=re.M)
    if imports:
        m = list(re.finditer(r"^from runbook_lib\.findings[\w.]* import .*$", out, re.M)) or \
            list(re.finditer(r"^from __future__ import annotations$", out, re.M))
        at = m[-1].end()
        out = out[:at] + "\n" + "\n".join(imports) + out[at:]
    path.write_text(out)


def q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def emit(title: str) -> None:
    text = YAML.read_text().rstrip("\n") + "\n\n" + f"# --- {title} " + "-" * max(3, 110 - len(title)) + "\n"
    for code, entry, path in new_entries:
        text += f"{code}:\n"
        if "ko" in entry:
            text += f"  ko: {q(entry['ko'])}\n  en: {q(entry['en'])}\n"
        else:
            for part in ("what", "why", "fix"):
                if part in entry:
                    text += f"  {part}:\n    ko: {q(entry[part]['ko'])}\n    en: {q(entry[part]['en'])}\n"
    YAML.write_text(text)


if __name__ == "__main__":
    title = sys.argv[1]
    for f in sys.argv[2:]:
        convert(Path(f).resolve())
    emit(title)
    print(f"{len(new_entries)} entries")
    for f in flags:
        print("FLAG", f)
