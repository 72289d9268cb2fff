"""Write notebooks/run.ipynb from the story below, and the student edition notebooks/lab.ipynb from the same
steps (their headings and their "why"; the student's tasks are in tools/lab_tasks.py): one place to edit the
narrative and the cells.

Run `python tools/build_notebook.py` after editing; tests/notebook/test_committed_notebook.py fails when a committed
notebook differs from what this script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab_tasks  # noqa: E402
import notebook_cells  # noqa: E402
from runbook_lib.steps import STEPS as STEP_LIST  # noqa: E402
from runbook_lib.steps import pod as pod_step  # noqa: E402
from runbook_lib.engine.params import PARAMETERS, markdown_table  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "notebooks" / "run.ipynb"
LAB_OUT = OUT.with_name("lab.ipynb")

INTRO = """# containerd 에 nvidia 런타임 등록하기 — 실행하고 증명하는 런북

이 노트북은 containerd 설정에 `nvidia` 런타임을 추가하고, CDI 스펙과 RuntimeClass 를 준비한 뒤, 그 결과를 **디스크에서 다시 읽어** 증명합니다. GPU 가 없어도 설정이 맞는지는 끝까지 확인할 수 있습니다.

- 실습: 기본값 그대로 실행하면 저장소 안의 샌드박스(`lab-root/`)에서만 작업합니다. 실제 노드의 `/` 는 건드리지 않습니다.
- 실제 노드: `papermill notebooks/run.ipynb out.ipynb -p root /` 처럼 `root` 를 명시해야만 노드에 적용됩니다.
- 검사만: `-p mode check` 는 아무것도 쓰지 않고 단계마다 무엇이 틀렸는지 알려 줍니다 (학생 채점, 노드 점검).
- 되돌리기: `-p mode remove` 는 런북이 더한 것만 빼냅니다 (diff 와 백업을 남깁니다).
- 배포판: k3s, RKE2, microk8s, k0s 노드는 `distro` 가 알아보고, 배포판이 읽는 경로에만 씁니다.

실행은 **무엇이든 쓰기 전에 모든 단계를 먼저 계획**합니다. 거부할 일이 하나라도 있으면 첫 번째 쓰기 전에, 이 노트북의 맨 위에서 이유와 고치는 방법을 보여 주고 멈춥니다.

각 단계는 같은 모양입니다. 무엇을 왜 하는지 설명하고, 계획(대상 경로와 diff)을 보여 주며 쓰는 셀을 실행한 다음, 학생이 쓸 파서(`tomllib`, `yaml`)로 결과 파일을 다시 읽어 확인을 눈에 보이게 적은 셀(`expect...`)이 옵니다. 마지막 요약 표가 보이면 실행이 끝까지 간 것입니다.

---

# Registering the nvidia runtime with containerd — a runbook that acts and proves it

This notebook adds the `nvidia` runtime to containerd's config, prepares a CDI spec and a RuntimeClass, and then proves the result by **reading the files back from disk**. No GPU is needed to show that the configuration is right.

- Lab: with the defaults it works only inside a sandbox in the checkout (`lab-root/`); it never touches the machine's `/`.
- Real node: only an explicit `root`, as in `papermill notebooks/run.ipynb out.ipynb -p root /`, configures the node.
- Check only: `-p mode check` writes nothing and reports, step by step, what is wrong (grading a student, auditing a node).
- Undo: `-p mode remove` takes out only what the runbook added (with a diff and backups).
- Distributions: on a k3s, RKE2, microk8s or k0s node, `distro` recognises it and the runbook writes only where that distribution reads.

A run **plans every step before it writes anything**. If anything would refuse, it stops before its first write, with the reason and the fix at the top of this notebook.

Every step has the same shape: what and why, a cell that shows the plan (the target path and the diff) and writes it, then a check cell that reads the files back with the parser a student would use (`tomllib`, `yaml`) and states its assertions visibly (`expect...`). When the summary table at the end is there, the run reached the end."""

PARAMS_MD = """## 파라미터

아래 셀은 papermill 이 값을 바꿔 넣는 `parameters` 셀입니다. 경로는 모두 실습 문서의 절대 경로이며, 실행할 때 `root` 아래로 옮겨 해석합니다. 예를 들어 `root` 가 `/srv/lab` 이면 `/etc/containerd/config.toml` 은 `/srv/lab/etc/containerd/config.toml` 입니다.

### 파라미터 확인

잘못된 값으로 반쯤 진행하다 멈추면 더 위험합니다. 그래서 파라미터 셀 다음 셀은 시작하기 전에 모든 값을 확인합니다: 이 노트북에 없는 파라미터 이름(`-p mdoe check` 같은 오타: papermill 은 경고만 하고 그 값 없이 실행합니다), 알 수 없는 `mode`, 상대 경로, 파일인 `root`, DNS-1123 레이블이 아닌 런타임 이름이면 아무것도 쓰기 전에 고치는 방법을 알려 주고 바로 멈춥니다. 확인이 끝나면 `root` 의 잠금을 잡아, 같은 루트에 동시에 실행된 두 작업이 서로의 변경을 덮어쓰지 않게 합니다. 그 셀 아래의 상태 상자는 실행이 진행되는 동안 제자리에서 바뀝니다: 실행이 실패하면 어느 단계에서 왜 멈췄는지, 어떻게 고치는지, 그 전까지 무엇을 했는지가 여기에 남습니다.

## Parameters

The cell below is the `parameters` cell that papermill overrides. Every path is the lab's absolute path and is resolved under `root` at run time: with `root` = `/srv/lab`, `/etc/containerd/config.toml` means `/srv/lab/etc/containerd/config.toml`.

### Validating the parameters

Stopping halfway on a bad value is worse than not starting. So the cell after the parameters checks every value first: a parameter name this notebook does not have (a typo such as `-p mdoe check`: papermill only warns and runs without that value), an unknown `mode`, a relative path, a `root` that is a file, or a runtime name that is not a DNS-1123 label stops the run with the fix, before anything is written. Then the run takes the root's lock, so two runs on the same root never overwrite each other's changes. The status box under that cell is updated in place as the run goes on: when the run fails, it says here which step stopped it and why, how to fix it, and what was done before."""

PARAMS = "\n".join(p.cell_line() for p in PARAMETERS)  # runbook_lib/engine/params.py defines them once

VALIDATE = "from runbook_lib import notebook as nb\n\nrb = nb.start(\n    " + ",\n    ".join(
    ", ".join(f"{p.name}={p.name}" for p in PARAMETERS[i:i + 4]) for i in range(0, len(PARAMETERS), 4)) + ")"

STEPS = {
    1: """## 1단계 — 폴더를 만들고 기본 설정을 놓습니다

**무엇을:** `/etc/containerd` 와 작업 폴더(`toolkit_dir`)를 만들고, `config.toml` 이 없거나 비어 있을 때만 기본 설정을 복사합니다. 기본 설정은 `root` 아래 실습 픽스처(`base_config`)를 먼저 쓰고, 없으면 패키지에 든 사본을 씁니다.

**왜:** 이후 단계는 모두 이 파일을 고칩니다. 하지만 이미 있는 설정은 절대 덮어쓰지 않습니다. 실제 노드의 설정을 실습용 기본값으로 바꿔 버리는 것이 이 단계에서 가장 피해야 할 실수입니다.

## Step 1 — Create the folders and put the base config in place

**What:** create `/etc/containerd` and the working folder (`toolkit_dir`), and copy the base config only when `config.toml` is missing or empty: the lab fixture under `root` (`base_config`) if it is there, else the copy shipped in the package.

**Why:** every later step edits this file, but an existing config is never overwritten. Replacing a real node's config with the lab's base is the mistake this step must not make.""",
    2: """## 2단계 — nvidia 런타임 테이블을 추가합니다

**무엇을:** containerd 가 실제로 읽는 설정(`imports` 까지 합친 결과)을 구한 뒤, 설정 버전에 맞는 경로에 `runtimes.<runtime_name>` 테이블을 `runtime_type = "io.containerd.runc.v2"` 와 함께 추가합니다. 새 테이블은 기본 런타임(runc)의 테이블을 복사해 시작하고, 다른 런타임 바로 옆에 같은 들여쓰기와 빈 줄로 놓입니다. 기존 줄·주석·따옴표·키 순서는 한 글자도 바꾸지 않으며, 바뀐 내용은 diff 로 보여 주고 원본은 백업해 둡니다.

**왜:** "드라이버도 깔았고 nvidia-smi 도 되는데 컨테이너에서 GPU 가 안 보인다" 는 문제의 흔한 원인이 런타임 등록 누락입니다. 또 섹션 헤더는 containerd 설정 버전마다 통째로 다르기 때문에(버전 1 `plugins.cri`, 2 `plugins."io.containerd.grpc.v1.cri"`, 3 `plugins."io.containerd.cri.v1.runtime"`), 다른 버전용 스니펫을 붙이면 아무 효과가 없습니다. options 하위 테이블(3단계)도 같은 한 번의 원자적 쓰기로 함께 적습니다: options 없이 런타임만 있는 설정은 nvidia 가 아니라 평범한 runc 를 실행하기 때문입니다.

## Step 2 — Add the nvidia runtime table

**What:** work out the config containerd really reads (the file merged with its `imports`), then add `runtimes.<runtime_name>` with `runtime_type = "io.containerd.runc.v2"` under the path of the file's config version. The new table starts as a copy of the default runtime's (runc) and sits right next to the other runtimes, indented and spaced like them. No existing line, comment, quote or key order changes; the change is shown as a diff and the original is backed up.

**Why:** "the driver is installed and nvidia-smi works, but containers see no GPU" usually means the runtime was never registered. And because the section headers differ completely between config versions (version 1 `plugins.cri`, 2 `plugins."io.containerd.grpc.v1.cri"`, 3 `plugins."io.containerd.cri.v1.runtime"`), a snippet written for another version does nothing. The options sub-table (step 3) is written in the same atomic write: a runtime without its options would run plain runc, not the nvidia runtime.""",
    3: """## 3단계 — 런타임 옵션을 확인합니다

**무엇을:** `runtimes.<runtime_name>.options` 에 `BinaryName`(절대 경로)과 `SystemdCgroup`(TOML 불리언)이 있는지, 값이 파라미터와 같은지 디스크에서 다시 읽어 확인합니다.

**왜:** 흔한 실수는 `SystemdCgroup = "true"` 처럼 불리언을 문자열로 쓰는 것입니다. containerd 는 설정을 읽을 때는 조용히 넘어가고 파드를 띄울 때에야 실패합니다. 또 `SystemdCgroup` 이 기본 런타임이나 kubelet 의 cgroup 드라이버와 다르면 파드가 시작하지 못합니다.

## Step 3 — Check the runtime options

**What:** read back from disk that `runtimes.<runtime_name>.options` has `BinaryName` (an absolute path) and `SystemdCgroup` (a TOML boolean), with the parameters' values.

**Why:** the classic mistake is `SystemdCgroup = "true"`, a string instead of a boolean: containerd accepts the file and only fails when a pod starts. And a `SystemdCgroup` that disagrees with the default runtime's or the kubelet's cgroup driver keeps pods from starting.""",
    4: """## 4단계 — 기본 런타임은 그대로 둡니다 (`default.txt`)

**무엇을:** 설정에서 `default_runtime_name` 을 읽어 `default.txt` 에 `DEFAULT=<이름>` 과 `WHY=runtimeclass` 두 줄로 적습니다.

**왜:** 기본 런타임을 nvidia 로 바꾸면 GPU 를 쓰지 않는 파드까지 모두 그 런타임을 거치게 되어, 런타임 문제 하나가 클러스터 전체로 번집니다. GPU 가 필요한 워크로드만 RuntimeClass 로 고르는 것이 안전합니다. 그래서 이 런북은 기본 런타임을 절대 바꾸지 않으며, 이미 nvidia 로 되어 있으면 이유와 함께 멈춥니다.

## Step 4 — Leave the default runtime alone (`default.txt`)

**What:** read `default_runtime_name` from the config and write `default.txt` as two lines, `DEFAULT=<name>` and `WHY=runtimeclass`.

**Why:** with nvidia as the default, every pod — GPU or not — would go through that runtime, and one runtime problem would spread to the whole cluster. Selecting only the workloads that need a GPU through a RuntimeClass is the safe way. The runbook therefore never changes the default, and stops with the reason if it is already nvidia.""",
    5: """## 5단계 — TOML 이 제대로 읽히는지 증명합니다 (`parsed.txt`)

**무엇을:** 방금 쓴 설정을 편집에 쓴 도구와는 별개인 표준 라이브러리 `tomllib` 으로 다시 읽어, `VERSION=<버전>` 과 `RUNTIMES=<런타임 이름들, 쉼표로 구분, 순서는 자유>` 두 줄을 `parsed.txt` 에 적습니다. 기본 런타임과 새 런타임이 둘 다 있어야 합니다.

**왜:** 파싱에 성공해야 문법이 맞다는 증거가 됩니다. 섹션 헤더의 따옴표를 빠뜨리면(`[plugins.io.containerd.grpc.v1.cri...]`) 파싱은 되지만 전혀 다른 테이블이 되는데, 런타임 목록을 직접 보면 그런 실수가 바로 드러납니다.

## Step 5 — Prove the TOML parses (`parsed.txt`)

**What:** read the written config back with the standard library's `tomllib` — a parser independent of the one that edited it — and write `parsed.txt` as two lines: `VERSION=<version>` and `RUNTIMES=<runtime names, comma-separated, in any order>`. Both the default runtime and the new one must be there.

**Why:** a successful parse is the proof that the syntax is right. A header without its quotes (`[plugins.io.containerd.grpc.v1.cri...]`) still parses, but into completely different tables; listing the runtimes makes that mistake visible at once.""",
    6: """## 6단계 — CDI 스펙을 확인합니다 (`cdi-keys.txt`)

**무엇을:** `cdi_spec` 이 없으면 최소한의 유효한 스펙(`cdiVersion` 0.5.0, `kind: nvidia.com/gpu`, 장치 `all`, 공통 `containerEdits`)을 만들고, 이미 있고 `kind` 가 맞으면 한 바이트도 건드리지 않습니다. 그런 다음 최상위 키를 파일 순서대로 `cdi-keys.txt` 에 적습니다. `node` 프로필(실제 노드)에서는 최소 스펙을 쓰지 않습니다: 노드의 `nvidia-ctk cdi generate` 가 root 를 드라이버·장치 root 로 삼아 만든 스펙을 쓰고(`nvidia-ctk` 가 없으면 쓰기 전에 거부), 다른 CDI 폴더(`/var/run/cdi`)에 이미 있는 스펙은 그 자리에서 판정하며, `cdi-keys.txt` 는 쓰지 않고 실행의 증거에만 남깁니다.

**왜:** CDI 스펙은 컨테이너에 어떤 장치 노드와 환경 변수를 넣을지 정합니다. 이미 있는 스펙은 보통 `nvidia-ctk cdi generate` 가 노드의 실제 GPU 로 만든 것이므로, 추측으로 바꾸면 안 됩니다. YAML 이 아니거나 `kind` 가 다르거나 스키마에 어긋나면 고치는 방법을 알려 주고 그대로 둡니다.

## Step 6 — Check the CDI spec (`cdi-keys.txt`)

**What:** if `cdi_spec` is missing, write a minimal valid spec (`cdiVersion` 0.5.0, `kind: nvidia.com/gpu`, a device `all`, common `containerEdits`); if it exists with that `kind`, leave it byte-for-byte alone. Then write its top-level keys, in file order, to `cdi-keys.txt`. In the `node` profile (a real node) no minimal spec is ever written: the spec is the one the node's own `nvidia-ctk cdi generate` makes with the root as its driver and device root (refused before any write without `nvidia-ctk`), a spec already in another CDI folder (`/var/run/cdi`) is judged where it is, and `cdi-keys.txt` is not written, only kept in the run's evidence.

**Why:** the CDI spec decides which device nodes and environment variables a container gets. An existing spec was usually generated by `nvidia-ctk cdi generate` from the node's real GPUs and must not be guessed at: if it is not YAML, has another `kind` or breaks the schema, the runbook says how to fix it and leaves it as it is.""",
    7: """## 7단계 — RuntimeClass 를 씁니다

**무엇을:** `apiVersion: node.k8s.io/v1`, `kind: RuntimeClass`, `metadata.name` 과 `handler` 를 런타임 이름으로 적은 `runtimeclass.yaml` 을 만들고, `handler` 가 설정에서 파싱한 런타임 이름 중 하나인지 교차 확인합니다.

**왜:** 파드는 `runtimeClassName` 으로 RuntimeClass 를 고르고, 쿠버네티스는 그 `handler` 이름의 containerd 런타임을 찾습니다. 이름이 한 글자라도 다르면 파드가 `RunContainerError` 로 실패합니다.

## Step 7 — Write the RuntimeClass

**What:** write `runtimeclass.yaml` with `apiVersion: node.k8s.io/v1`, `kind: RuntimeClass`, and the runtime name as both `metadata.name` and `handler`; then cross-check the `handler` against the runtime names parsed from the config.

**Why:** pods pick a RuntimeClass with `runtimeClassName`, and Kubernetes asks containerd for the runtime named by its `handler`. If the names differ by one character, pods fail with `RunContainerError`.""",
    8: """## 8단계 — 검증 보고서를 씁니다 (`report.txt`)

**무엇을:** `CONFIG_VERSION`, `RUNTIME`, `RUNTIME_TYPE`, `SYSTEMD_CGROUP`, `HANDLER` 다섯 줄을 씁니다. 값은 모두 방금 쓴 파일(설정과 RuntimeClass)을 다시 파싱해서 얻고, 파라미터에서 그대로 옮겨 적지 않습니다.

**왜:** 보고서가 파라미터를 베껴 쓰면 파일이 틀려도 보고서는 맞게 나옵니다. 파일에서 읽은 값만 적어야 보고서가 증거가 됩니다.

## Step 8 — Write the verification report (`report.txt`)

**What:** write five lines, `CONFIG_VERSION`, `RUNTIME`, `RUNTIME_TYPE`, `SYSTEMD_CGROUP` and `HANDLER`, every value parsed back from the files just written (the config and the RuntimeClass), never copied from the parameters.

**Why:** a report that copies the parameters looks right even when the files are wrong. Only values read from the files make the report evidence.""",
    9: """## 9단계 — containerd 에게 직접 확인합니다

**무엇을:** 설정을 실제로 쓰는 프로그램인 containerd 에게 `containerd --config <설정 파일> config dump` 로 이 파일을 어떻게 읽는지 묻습니다. 그리고 containerd 가 읽은 `runtime_type`, `BinaryName`, `SystemdCgroup`(값과 타입), 기본 런타임을 runbook 이 기대한 값과 나란히 보여 줍니다. containerd 가 있을 때만 묻습니다. 실제 노드(`root` 가 `/` 이고 PATH 에 `containerd` 가 있을 때)이거나 `containerd_bin` 파라미터로 실행 파일을 알려 준 경우입니다. 샌드박스 `root` 에서는 `imports` 도 `root` 아래 경로로 풀어서 읽힙니다. 어느 쪽도 아니면 이 단계는 건너뛰고(skipped), 건너뛴 이유와 확인하는 방법을 알려 줍니다. 아무것도 쓰지 않습니다.

**왜:** 지금까지의 확인은 모두 우리 쪽 파서로 한 것입니다. 그런데 containerd 는 자리를 잘못 잡은 테이블과 오타 난 키를 경고 없이 버리고, `SystemdCgroup = "true"` 같은 문자열은 파드를 띄울 때까지 그대로 들고 있습니다. 파일이 "맞아 보이는" 것과 containerd 가 그렇게 읽는 것은 다른 문제이므로, 마지막 판단은 설정을 소비하는 프로그램에게 맡깁니다. containerd 가 파일을 거부하면 containerd 가 한 말을 그대로 보여 주고 실패합니다.

## Step 9 — Ask containerd itself

**What:** ask the program that consumes the config, containerd, how it reads the file (`containerd --config <config file> config dump`), and show what it reads for the runtime — `runtime_type`, `BinaryName`, `SystemdCgroup` (value and type) and the default runtime — next to what the runbook expects. containerd is asked only when it is there: on a real node (`root` is `/` and `containerd` is on PATH), or when the `containerd_bin` parameter names the binary. Under a sandbox `root` the `imports` are resolved under `root` too. Otherwise the step is skipped and says why, and how to run the check. It writes nothing.

**Why:** every check so far used our own parsers. containerd, however, silently drops misplaced tables and typo'd keys, and keeps a string such as `SystemdCgroup = "true"` until a pod starts. A file that looks right is not the same as a file containerd reads that way, so the last word goes to the consumer. When containerd rejects the file, the step fails with containerd's own words.""",
}

def _titled(n: int, md: str) -> str:
    """A step's narrative with its two headings made from the step's own title (the catalog's title.<id>), the
    one the records, the summary and the class page show: the heading line of each language, replaced."""
    step = next(st for st in STEP_LIST if st.number == n)
    lines = md.split("\n")
    for k, line in enumerate(lines):
        if line.startswith(f"## {n}단계 — "):
            lines[k] = f"## {n}단계 — {step.title.ko}"
        elif line.startswith(f"## Step {n} — "):
            lines[k] = f"## Step {n} — {step.title.en}"
    return "\n".join(lines)


STEPS = {n: _titled(n, md) for n, md in STEPS.items()}


RESTART_MD = """## containerd 재시작 — 실제 노드에서, 요청받았을 때만

**무엇을:** containerd 는 시작할 때 한 번만 설정을 읽습니다. 그래서 이번 실행에서 설정이 바뀌었다면, 재시작하기 전까지 새 런타임은 Kubernetes 에게 보이지 않습니다. 실제 노드(`root` 가 `/`)에서는 재시작이 필요한지 알려 주고, `restart_containerd` 를 `True` 로 주었을 때만 `systemctl restart containerd` 를 실행한 뒤 `systemctl is-active containerd`(그리고 `ctr` 이 있으면 `ctr version`)로 containerd 가 다시 동작하는지 확인합니다. 실습 루트에서는 재시작하지 않습니다. 실습 루트는 폴더일 뿐 노드가 아니기 때문입니다.

**왜:** 재시작은 운영자가 정할 일입니다. 실행 중인 컨테이너는 shim 아래에서 계속 돌지만, 그동안 CRI API 가 잠시 멈춥니다. 반대로 재시작을 잊으면 "설정은 맞는데 GPU 파드가 `no runtime for nvidia` 로 실패한다" 는 문제가 생깁니다. 그래서 필요 여부는 항상 알려 주고, 실제 재시작은 요청받았을 때만 하며, 재시작한 뒤에는 containerd 가 돌아왔는지 꼭 확인합니다.

## Restarting containerd — on a real node, and only when asked

**What:** containerd reads its config once, when it starts; if this run changed the config, the new runtime is invisible to Kubernetes until containerd restarts. On a real node (`root` is `/`) the runbook says whether a restart is needed, and only with `restart_containerd` set to `True` does it run `systemctl restart containerd`, then confirm with `systemctl is-active containerd` (and `ctr version` when `ctr` is there) that containerd is back. In a lab root nothing is restarted: a lab root is a folder, not a node.

**Why:** a restart is the operator's decision: running containers keep running under their shims, but the CRI API is away for a moment. Forgetting it gives "the config is right, yet GPU pods fail with `no runtime for nvidia`". So the runbook always says whether a restart is needed, restarts only when asked, and after a restart always checks that containerd came back."""

RESTART = """rb.restart()  # apply mode on a real node, with restart_containerd: systemctl restart, then confirm it is back"""

POD_MD = """## handler 로 띄운 파드 — GPU Operator 의 validator 처럼 증명합니다 (`smoke`)

**무엇을:** 파일이 맞고 containerd 가 그렇게 읽는다는 것까지 증명했습니다. 남은 질문은 "RuntimeClass 로 고른 파드가 정말 nvidia 바이너리로 시작하는가" 입니다. GPU Operator 도 노드를 준비됐다고 하기 전에 nvidia 런타임으로 파드를 띄워 봅니다. 이 단계는 `smoke` 파라미터에 따라 같은 일을 합니다.

- `off`(기본값): 건너뛰고, 무엇을 증명하는지와 켜는 방법을 알려 줍니다.
- `sandbox`(실습, 채점, CI, GPU 불필요): containerd 가 읽을 설정(check 모드에서는 학생의 설정)을 임시 폴더에 복사해, 그 사본으로 버리는 containerd 를 띄웁니다. 사본에서는 `BinaryName` 을 호출 방식을 기록한 뒤 `runc` 에 넘기는 대역으로 바꿉니다. 그리고 RuntimeClass 의 handler 로 파드를 시작합니다. 파드 이미지는 이 기계의 busybox 로 만들어 가져오며, 아무것도 내려받지 않습니다. `root` 아래에는 아무것도 쓰지 않습니다.
- `node`(GPU 노드, `root` 가 `/`): 노드에서 실행 중인 containerd 에 CRI 소켓(`cri_endpoint`, 비우면 배포판의 기본 소켓)으로 파드를 띄우고, 노드에 이미 있는 `smoke_image` 로 `smoke_command`(기본 `nvidia-smi -L`)를 실행합니다. 쓴 설정이 적용된 뒤에만 합니다 (재시작한 뒤이거나, 실행 중인 containerd 가 이미 handler 를 알 때). `enable_cdi` 가 켜져 있고 containerd 가 CDI 를 안다면(1.7, 2.x), 컨테이너는 스펙 kind 의 CDI 장치(`nvidia.com/gpu=all`)를 요청하고, 같은 파드의 확인 컨테이너가 스펙의 containerEdits(환경 변수, 마운트, 장치 노드)가 컨테이너 안에 들어왔는지 봅니다.

끝나면 파드와 컨테이너를 지웁니다. 실패했을 때도, `smoke_timeout` 을 넘겼을 때도, 커널을 중단했을 때도 지웁니다. `sandbox` 의 데몬과 shim 은 PID 로 멈추고, 마운트와 cgroup 도 남기지 않습니다.

**왜:** "드라이버도 설치했고 `nvidia-smi` 도 되는데 컨테이너가 GPU 를 못 본다" 는 이 실습이 다루는 바로 그 문제입니다. `SystemdCgroup = "true"` 같은 문자열, 런타임과 다른 handler 이름, 잘못된 `runtime_type` 은 설정을 읽을 때는 아무 말이 없다가 파드를 띄울 때 실패합니다. 그래서 파드를 직접 띄우고, 실패하면 containerd 가 한 말을 그대로 보여 주고 고치는 방법을 덧붙입니다.

**확인 셀:** `sandbox` 는 파드가 RuntimeClass 의 handler 로 시작했는지, containerd 의 shim 이 설정한 바이너리(의 대역)를 불렀는지, `SystemdCgroup = true` 일 때 `--systemd-cgroup` 이 전달됐는지, 기본 런타임 파드는 그 바이너리를 거치지 않았는지 확인합니다. `node` 는 종료 코드 0 과 출력의 `GPU n:` 줄을, CDI 를 요청했다면 스펙의 편집이 다 들어왔는지(`cdi_missing` 이 빈 목록)를 확인합니다. 둘 다 남은 것이 없어야 합니다.

**마지막 셀, 요약:** 요약 표는 단계마다 바뀜(changed), 그대로(unchanged), 통과(passed), 실패(failed), 막힘(blocked: 앞 단계의 실패에서만 따라 나온 것이라 "N단계를 먼저 고치세요"), 건너뜀(skipped) 가운데 하나를 보여 줍니다. 보관된 노트북에서 이 표가 보이면 실행이 끝까지 갔다는 증거입니다. 같은 루트에서 다시 실행하면 모든 단계가 unchanged 로 나와야 합니다. check 모드에서는 실패한 단계가 하나라도 있으면 이 셀이 실행을 실패로 끝냅니다.

## A pod through the handler — proved as the GPU Operator's validator proves a node (`smoke`)

**What:** the files are right, and containerd reads them that way. What is left is "does a pod that picks the RuntimeClass really start with the nvidia binary?" The GPU Operator starts a pod with the nvidia runtime before it calls a node ready; this step does the same, driven by the `smoke` parameter:

- `off` (the default): skipped, saying what it would prove and how to turn it on.
- `sandbox` (labs, grading, CI; no GPU needed): the config containerd would read (in check mode, the student's) is copied into a temp folder and a throw-away containerd started on the copy, whose `BinaryName` is a stand-in that records how it was called and hands over to `runc`; then a pod starts through the RuntimeClass's handler. The pod's image is built from this machine's busybox and imported: nothing is pulled. Nothing is written under `root`.
- `node` (a GPU node, `root` is `/`): the node's running containerd over its CRI socket (`cri_endpoint`, empty for the distribution's), a pod and a container from `smoke_image` (already on the node) running `smoke_command` (default `nvidia-smi -L`); only once the written config is in effect (after the restart, or when the running containerd already knows the handler). With `enable_cdi` on a containerd that knows CDI (1.7, 2.x), the container asks for the CDI device of the spec's kind (`nvidia.com/gpu=all`), and a probe container of the same pod shows whether the spec's containerEdits (env vars, mounts, device nodes) arrived inside.

The pod and its container are removed at the end, also after a failure, past `smoke_timeout` or when the kernel is interrupted; `sandbox`'s daemon and shims are stopped by PID, and no mount or cgroup is left.

**Why:** "the driver is installed and `nvidia-smi` works, but containers do not see the GPU" is the very problem this lab is about. A string `SystemdCgroup = "true"`, a handler that is not the runtime's name or a wrong `runtime_type` say nothing when containerd reads the file and fail when a pod starts. So the pod is started, and a failure shows containerd's own words with the fix.

**The check cell:** in `sandbox`, that the pod started through the RuntimeClass's handler, that containerd's shim called the configured binary (its stand-in), that `--systemd-cgroup` reached it when `SystemdCgroup = true`, and that a pod of the default runtime did not go through it; in `node`, exit code 0 and a `GPU n:` line in the output, and with a CDI request, that every edit of the spec arrived (`cdi_missing` is empty). Either way, nothing may be left behind.

**The last cell, the summary:** its table shows each step as changed, unchanged, passed, failed, blocked (it only follows from an earlier step's failure: "fix step N first") or skipped. In an archived notebook this table is the proof that the run reached the end; a second run on the same root shows every step unchanged. In check mode this cell fails the run when any step failed."""

POD = """plan = rb.plan("pod")        # smoke: off | sandbox (a throw-away containerd) | node (the node's containerd)
display(plan)
pod = rb.try_pod(plan)       # the pod through the handler; nothing is written under the root"""

POD_CHECK = pod_step.CHECK  # the pod step's check cell, with the step (runbook_lib/steps/pod.py)

# Each step: the action cell (the plan made before any write, then the write) and the check cell (the files
# read back with the parser a student would use, and the assertions the step makes, stated visibly).
ACTIONS = {
    "prepare": """plan = rb.plan("prepare")    # folders to create; the base config only when there is none
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "runtime": """plan = rb.plan("runtime")    # the version's table path, and the diff of config.toml
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "options": """plan = rb.plan("options")    # written together with the table in step 2 (one atomic edit)
display(plan)
rb.write(plan)               # nothing of its own to write: step 2 wrote the options""",
    "default": """plan = rb.plan("default")    # default.txt; the default runtime itself is never changed
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "parse": """plan = rb.plan("parse")      # parsed.txt, from the config as tomllib reads it
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "cdi": """plan = rb.plan("cdi")        # a missing spec is written; an existing one is kept byte for byte
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "runtimeclass": """plan = rb.plan("runtimeclass")
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "report": """plan = rb.plan("report")     # every value parsed back from the files, never from the parameters
display(plan)
rb.write(plan)               # apply: backup, then an atomic rename · check: writes nothing""",
    "containerd": """plan = rb.plan("containerd")  # containerd --config <file> config dump, when there is a containerd to ask
display(plan)
rb.write(plan)                # it only asks: nothing is written""",
}

CHECKS = {s.id: s.check for s in STEP_LIST if s.check}  # each step's check cell lives with its verdict (Step.check)

SUMMARY = """nb.summary(rb)
nb.finish(rb)"""


def build() -> nbformat.NotebookNode:
    cells = [new_markdown_cell(INTRO), new_markdown_cell(PARAMS_MD)]
    params = new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    # every cell costs plain papermill two saves of the whole notebook: one narrative for both code cells
    cells += [params, new_code_cell(VALIDATE)]
    for (n, md), step_id in zip(STEPS.items(), ACTIONS):
        cells += [new_markdown_cell(md), new_code_cell(ACTIONS[step_id]), new_code_cell(CHECKS[step_id])]
    # after the last step: the restart, then the pod through the handler, whose section the summary cell closes
    # (one narrative cell fewer to save)
    cells += [new_markdown_cell(RESTART_MD), new_code_cell(RESTART)]
    cells += [new_markdown_cell(POD_MD), new_code_cell(POD), new_code_cell(POD_CHECK), new_code_cell(SUMMARY)]
    return notebook_cells.notebook(cells, "cell")


def render() -> str:
    return notebook_cells.text(build())


def step_parts(md: str) -> dict[str, str]:
    """A step's narrative cut where it speaks: the two headings and the two "why" paragraphs (the student
    edition's), and the two "what" paragraphs (the runbook's own work, which the student does instead)."""
    ko, en = md.split("\n\n## ", 1)
    out = {}
    for lang, text, what, why in (("ko", ko, "**무엇을:**", "**왜:**"), ("en", "## " + en, "**What:**", "**Why:**")):
        heading, rest = text.split("\n\n", 1)
        assert rest.startswith(what) and why in rest, f"a step's narrative lost its {what} or {why}"
        out[f"heading_{lang}"], out[f"why_{lang}"] = heading, rest[rest.index(why):]
    return out


def lab_step(n: int) -> str:
    """The student edition's narrative of step n: the heading, the lab's task, and why."""
    parts, (task_ko, task_en) = step_parts(STEPS[n]), lab_tasks.TASKS[n]
    return (f"{parts['heading_ko']}\n\n**할 일:** {task_ko}\n\n{parts['why_ko']}\n\n"
            f"{parts['heading_en']}\n\n**Your task:** {task_en}\n\n{parts['why_en']}")


def build_lab() -> nbformat.NotebookNode:
    """notebooks/lab.ipynb: per step the task, an empty cell for the student's own work, and a check cell
    that judges that step alone (runbook_lib/lab/student.py); nothing in it writes or shows the solution."""
    params = new_code_cell(lab_tasks.PARAMS)
    params.metadata["tags"] = ["parameters"]
    cells = [new_markdown_cell(lab_tasks.INTRO), params, new_code_cell(lab_tasks.START)]
    for n, step_id in zip(lab_tasks.TASKS, ACTIONS):
        cells += [new_markdown_cell(lab_step(n)), new_code_cell(lab_tasks.WORK.format(n=n)),
                  new_code_cell(lab_tasks.CHECK.format(step=step_id))]
    cells.append(new_markdown_cell(lab_tasks.END))
    return notebook_cells.notebook(cells, "lab")


def render_lab() -> str:
    return notebook_cells.text(build_lab())


README = OUT.parents[1] / "README.md"
TABLE_START, TABLE_END = "<!-- parameters: tools/build_notebook.py -->", "<!-- /parameters -->"


def readme(text: str) -> str:
    """README.md with its parameter table written from the same definition."""
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    return f"{head}{TABLE_START}\n{markdown_table()}\n{TABLE_END}{tail}"


if __name__ == "__main__":
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(render())
    LAB_OUT.write_text(render_lab())
    README.write_text(readme(README.read_text()))
    print(f"wrote {OUT} and {LAB_OUT}", file=sys.stderr)
