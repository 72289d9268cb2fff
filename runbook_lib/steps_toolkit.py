"""Steps 4, 5 and 8: the lab's result files (default.txt, parsed.txt, report.txt), each written from values
parsed back from the config and the RuntimeClass, never from what the runbook meant to write.

A mixin of steps.Runbook.
"""

from __future__ import annotations

from . import runtimeclass, toolkit
from .containerd import diagnose
from .containerd.edit import default_runtime_name
from .containerd.tables import get_in
from .containerd.versions import runtimes_path
from .messages import Msg
from .result import FAILED, Problem, StepResult
from .safe_write import plan_write


class ToolkitSteps:
    # --- 4: default.txt ------------------------------------------------------------------------------

    def _act_4(self) -> StepResult:
        eff = self.effective()
        default = default_runtime_name(eff.data, eff.version)
        r = self._new(4, Msg(f"기본 런타임은 {default} 입니다.", f"the default runtime is {default}."))
        problem = diagnose.default_problem(eff, self.p)
        if problem:
            r.status, r.message = FAILED, problem.what
            r.problems.append(problem)
            return r
        self._write(plan_write(self.target, self.tk("default.txt"), toolkit.default_txt(default).encode()), r)
        return r

    def _check_4(self) -> list[Problem]:
        eff = self.effective()
        problems = [p for p in [diagnose.default_problem(eff, self.p)] if p]
        expected = toolkit.default_txt(default_runtime_name(eff.data, eff.version))
        return problems + self._expect_file(self.tk("default.txt"), expected)

    # --- 5: parsed.txt -------------------------------------------------------------------------------

    def _parsed(self) -> tuple[str, list[str]]:
        eff = self.effective()
        runtimes = sorted((get_in(eff.data, runtimes_path(eff.version)) or {}).keys())
        return toolkit.parsed_txt(eff.version, runtimes), runtimes

    def _act_5(self) -> StepResult:
        content, runtimes = self._parsed()
        r = self._new(5, Msg(f"tomllib 로 읽었습니다: {content.strip().replace(chr(10), ', ')}",
                             f"read with tomllib: {content.strip().replace(chr(10), ', ')}"))
        self._write(plan_write(self.target, self.tk("parsed.txt"), content.encode()), r)
        return r

    def _check_5(self) -> list[Problem]:
        content, runtimes = self._parsed()
        eff = self.effective()
        problems = []
        for name in (default_runtime_name(eff.data, eff.version), self.p.runtime_name):
            if name not in runtimes:
                listed = ", ".join(runtimes) or "-"
                problems.append(Problem(Msg(f"tomllib 로 읽은 런타임({listed}) 중에 {name} 가 없습니다.",
                                            f"the runtimes tomllib reads ({listed}) do not include {name}."),
                                        Msg(f"runtimes.{name} 테이블을 추가하세요 (2단계).", f"add the runtimes.{name} table (step 2)."),
                                        self.p.config_path))
        return problems + self._expect_file(self.tk("parsed.txt"), content)

    # --- 8: report.txt -------------------------------------------------------------------------------

    def _report(self) -> str:
        eff = self.effective()
        doc = runtimeclass.load_runtimeclass(self._read_text(self.tk("runtimeclass.yaml")) or "", self.tk("runtimeclass.yaml"))
        handler = doc.get("handler")
        runtimes = get_in(eff.data, runtimes_path(eff.version)) or {}
        name = handler if handler in runtimes else self.p.runtime_name
        table = runtimes.get(name) if isinstance(runtimes.get(name), dict) else {}
        options = table.get("options") if isinstance(table.get("options"), dict) else {}
        return toolkit.report_txt(eff.version, name if name in runtimes else "", table.get("runtime_type"),
                                  options.get("SystemdCgroup"), handler if handler is not None else "")

    def _act_8(self) -> StepResult:
        content = self._report()
        r = self._new(8, Msg(content.strip().replace("\n", ", "), content.strip().replace("\n", ", ")))
        self._write(plan_write(self.target, self.tk("report.txt"), content.encode()), r)
        return r

    def _check_8(self) -> list[Problem]:
        return self._expect_file(self.tk("report.txt"), self._report())
