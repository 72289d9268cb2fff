"""After tools/msg_to_catalog.py: a generated error code joins its error class's family (WriteError.of("safe_write.x")
becomes "write.failed.x"), so callers that test the family (Problem.is_a("write.failed")) keep working. BASE is the
commit before the migration: codes that existed there are left as they are."""
import re, subprocess, pathlib, sys
BASE = sys.argv[1] if len(sys.argv) > 1 else "1a0f2f5"
root = pathlib.Path(__file__).resolve().parent.parent
base = subprocess.run(["git", "-C", str(root), "show", f"{BASE}:runbook_lib/data/findings.yaml"], capture_output=True, text=True).stdout
orig = set(re.findall(r"^([A-Za-z][\w.-]*):", base, re.M))
orig_src = subprocess.run(["git", "-C", str(root), "grep", "-ho", r'"[a-z_]*\.[a-z_.]*"', BASE, "--", "runbook_lib"], capture_output=True, text=True).stdout
orig |= {s.split(":", 1)[-1].strip('"') for s in orig_src.split()}
FAMILY = {"ParameterError": "parameter.invalid", "ConfigError": "config.unreadable", "ConfinementError": "path.outside_root",
          "WriteError": "write.failed", "LockTimeout": "lock.timeout", "FindingError": "config.unreadable",
          "RuntimeOwnedElsewhere": "config.unreadable", "RunbookError": "error", "TemplateUnrendered": "distro.template_unrendered"}
y = root / "runbook_lib/data/findings.yaml"
t = y.read_text()
renames = {}
for p in (root / "runbook_lib").rglob("*.py"):
    s = p.read_text()
    def repl(m):
        cls, code = m.group(1), m.group(2)
        fam = FAMILY[cls]
        if code in orig or code.startswith(fam + "."):
            return m.group(0)
        new = fam + "." + code.split(".")[-1]
        n = 2
        while (new in renames.values() or re.search(rf"^{re.escape(new)}:", t, re.M)) and renames.get(code) != new:
            new = f"{fam}.{code.split('.')[-1]}_{n}"; n += 1
        renames[code] = new
        return f'{cls}.of("{new}"'
    s2 = re.sub(r'\b(' + "|".join(FAMILY) + r')\.of\("([\w.]+)"', repl, s)
    if s2 != s:
        p.write_text(s2)
for a, b in renames.items():
    t = re.sub(rf"^{re.escape(a)}:", f"{b}:", t, flags=re.M)
y.write_text(t)
for a, b in sorted(renames.items()):
    print(a, "->", b)
