"""Write notebooks/class.ipynb, the instructor's view of a whole class: one place to edit its cells.

Run `python tools/build_class_notebook.py` (or `make notebook`) after editing; tests/grading/test_class_notebook.py
fails when the committed notebook differs from what this script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

sys.path.insert(0, str(Path(__file__).resolve().parent))
import notebook_cells  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "notebooks" / "class.ipynb"

INTRO = """# 반 전체 채점 — 학생마다 피드백, 반 전체를 한 장의 그림으로

이 노트북은 학생들의 실습 루트를 모두 **check 모드**로 채점합니다. `runbook grade` 와 같은 코드이므로 결과도 같습니다. 학생마다 노트북의 확인 셀이 보여 줄 판정을 엔진이 계산하므로 커널을 띄우지 않습니다. 학생 루트에는 아무것도 쓰지 않고, 모든 결과는 `out` 폴더에 남습니다: 학생마다 피드백 페이지와 `results.json`, 그리고 반 전체의 `grades.json`(Gradescope 형식), `grades.csv`(LMS 용), `junit.xml`(CI 용), `index.html`.

```sh
mkdir -p grades
python -m runbook_lib.runner notebooks/class.ipynb grades/class.ipynb -p roots '/srv/class/*' -p out grades
```

`runbook_lib.runner` 는 papermill 과 같은 인자를 받고, 실행된 노트북이 저장될 폴더를 커널에게 알려 줍니다. 그래서 아래 링크는 실행된 노트북에서도, 그것을 HTML 로 바꾼 페이지에서도, `grades/index.html` 에서도 그대로 열립니다. JupyterLab 에서 열어 실행할 때는 노트북이 있는 폴더를 기준으로 링크를 만듭니다.

---

# Grading a whole class — feedback per student, the class as a picture

This notebook grades every student's lab root in **check mode**, through the same code as `runbook grade`, so the results are the same. The engine computes the verdict each student's check cells would show, so no kernel starts. Nothing is written under a student's root; everything goes to the `out` folder: each student's feedback page and `results.json`, and the class's `grades.json` (Gradescope's format), `grades.csv` (for an LMS), `junit.xml` (for CI) and `index.html`.

`runbook_lib.runner` takes papermill's arguments and tells the kernel the folder the executed notebook is saved in, so the links below open from the executed notebook, from its HTML copy and from `grades/index.html` alike. Opened and run in JupyterLab, the links are made from the notebook's own folder."""

PARAMS_MD = """## 파라미터

`roots` 는 글롭 패턴 하나(`/srv/class/*`)나 폴더 목록(`-y 'roots: [/srv/a, /srv/b]'`)입니다. 학생 이름(label)은 폴더 이름이고, 폴더 이름이 같은 두 학생은 상위 폴더 이름이 앞에 붙습니다(`a-kim`, `b-kim`). `runtime_name`, `binary_name`, `systemd_cgroup` 세 값은 이 실습이 기대하는 값이며, 모든 학생에게 같은 값으로 채점합니다. `jobs` 는 동시에 채점할 학생 수입니다.

## Parameters

`roots` is one glob pattern (`/srv/class/*`) or a list of folders (`-y 'roots: [/srv/a, /srv/b]'`). A student's label is the folder's name; two students whose folders share a name get their parent folder's name in front (`a-kim`, `b-kim`). `runtime_name`, `binary_name` and `systemd_cgroup` are what this lab expects, the same for every student; `jobs` is how many students are graded at a time."""

PARAMS = '''roots = ""  # str: 학생 루트의 글롭 패턴 또는 목록 / a glob pattern of the student roots, or a list of them
out = "class-grades"  # str: 채점 결과를 쓸 폴더 (학생 루트 밖) / folder the grades go to (outside every student root)
runtime_name = "nvidia"  # str: 실습이 기대하는 런타임 이름 / the runtime name the lab expects
binary_name = "/usr/bin/nvidia-container-runtime"  # str: 실습이 기대하는 BinaryName / the BinaryName the lab expects
systemd_cgroup = True  # bool: 실습이 기대하는 SystemdCgroup / the SystemdCgroup value the lab expects
jobs = 1  # int: 동시에 채점할 학생 수 / how many students are graded at a time'''

GRADE_MD = """## 채점

학생마다 런북을 check 모드로 실행합니다. 앞 단계가 틀려도 모든 단계를 평가하므로, 한 번의 채점으로 학생의 모든 실수가 보입니다. 학생 한 명의 실행이 실패해도 나머지 학생은 계속 채점합니다.

## Grading

The runbook runs in check mode for each student. Every step is evaluated even after an earlier one failed, so one grading shows all of a student's mistakes; one student's failed run never stops the others."""

GRADE = """from runbook_lib.grading import class_notebook as cn

result = cn.grade(roots, out, runtime_name=runtime_name, binary_name=binary_name,
                  systemd_cgroup=systemd_cgroup, jobs=jobs)"""

PICTURE_MD = """## 한눈에 보기

학생마다 한 줄, 단계마다 한 칸입니다. 초록은 통과, 빨강은 실패, 노랑은 건너뜀(실습 루트에서는 containerd 확인과 재시작을 건너뜁니다), 회색은 기록 없음입니다. 세로로 빨간 줄이 길면 반 전체가 그 단계를 어려워한 것입니다.

## At a glance

One row per student, one square per step: green passed, red failed, yellow skipped (a lab root skips asking containerd and the restart), grey no record. A long red column means the whole class found that step hard."""

MISTAKES_MD = """## 자주 한 실수

실수마다 몇 명이 했는지, 예시 판정 하나, 그리고 그 실수가 가리키는 배울 것을 보여 줍니다. 다음 수업에서 다시 설명할 내용을 고르는 데 쓰세요.

## The most common mistakes

Each mistake with how many students made it, one example verdict, and the lesson it points to: a list of what to go over again in the next class."""

LINKS_MD = """## 학생별 피드백

학생에게는 자기 피드백 페이지(`feedback.html`)를 주면 됩니다. 무엇을 통과했는지, 판정마다 어디서(파일·줄) 무엇이 왜 틀렸는지와 고치는 방법이 한국어와 영어로 들어 있고, 파이썬 오류 출력은 없습니다. `grades.json` 과 `junit.xml` 은 강의 플랫폼이나 CI 에 올립니다 (docs/GRADING.md).

## Feedback per student

Give each student their own feedback page (`feedback.html`): what passed, and for each finding where (file, line) it is, what is wrong and why, and the fix, in Korean and English, with no Python traceback. `grades.json` and `junit.xml` go to the course platform or CI (docs/GRADING.md)."""


def build() -> nbformat.NotebookNode:
    params = new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    cells = [new_markdown_cell(INTRO), new_markdown_cell(PARAMS_MD), params,
             new_markdown_cell(GRADE_MD), new_code_cell(GRADE),
             new_markdown_cell(PICTURE_MD), new_code_cell("cn.picture(result)"),
             new_markdown_cell(MISTAKES_MD), new_code_cell("cn.mistakes(result)"),
             new_markdown_cell(LINKS_MD), new_code_cell("cn.links(result)")]
    return notebook_cells.notebook(cells, "class")


def render() -> str:
    return notebook_cells.text(build())


if __name__ == "__main__":
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(render())
    print(f"wrote {OUT}", file=sys.stderr)
