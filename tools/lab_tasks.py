"""The student edition's words (notebooks/lab.ipynb): the lab's task for each step, in both languages, and what
the student's cells say. A task says what to make, never the lines that make it: tests/lab/test_lab_notebook.py greps
the notebook for the runtime's table, the report's values and the RuntimeClass. The headings and the "why" of
every step come from tools/build_notebook.py's STEPS, the narrative run.ipynb has too."""

INTRO = """# 실습 — containerd 에 nvidia 런타임 등록하기 (학생용)

이 노트북은 여러분이 **직접** 하는 실습입니다. 단계마다 할 일이 있고, 그 아래 빈 셀에서 직접 한 뒤(파이썬, 또는 `!` 로 시작하는 터미널 명령), **이 단계 확인** 셀을 실행하면 채점(`runbook grade`)과 같은 규칙과 같은 문장으로 그 단계만 판정합니다. 이 노트북은 아무것도 쓰지 않습니다.

시작하기 전에 터미널에서 실습 폴더를 만드세요: `runbook lab-init ~/lab`. 이 명령이 알려 주는 `root = "..."` 줄을 아래 첫 코드 셀에 적습니다.

실습의 경로는 모두 `root` 아래에 있습니다. `/etc/containerd/config.toml` 은 이 컴퓨터에서 `{root}/etc/containerd/config.toml` 이고, 파이썬에서는 `rb.path("/etc/containerd/config.toml")` 이 그 경로를 알려 줍니다. 터미널 명령에서는 `!mkdir -p {root}/etc/containerd` 처럼 `{root}` 를 씁니다.

터미널에서도 같은 확인을 할 수 있습니다: `runbook check --step 3 ~/lab`.

---

# Lab — registering the nvidia runtime with containerd (student edition)

You do this lab **yourself**. Every step has a task; do it in the empty cell below it (Python, or terminal commands starting with `!`), then run the **check this step** cell: it judges that step alone, by the same rules and in the same words as grading (`runbook grade`). This notebook writes nothing.

Before you start, make your lab folder in a terminal: `runbook lab-init ~/lab`. Write the `root = "..."` line it prints into the first code cell below.

Every lab path is under `root`: `/etc/containerd/config.toml` is `{root}/etc/containerd/config.toml` on this machine, and in Python `rb.path("/etc/containerd/config.toml")` gives that path. In a terminal command, write `{root}`, as in `!mkdir -p {root}/etc/containerd`.

The same check works in a terminal: `runbook check --step 3 ~/lab`."""

PARAMS = 'root = ""  # str: runbook lab-init 이 알려 준 실습 폴더 / your lab folder, as runbook lab-init printed it'

START = "from runbook_lib.lab import student\n\nrb = student.start(root=root)"

WORK = "# {n}단계: 여기에서 직접 하세요 / step {n}: do it yourself here\n"

CHECK = 'rb.check_step("{step}")   # 이 단계 확인 / check this step'

TASKS = {
    1: ("`/etc/containerd` 폴더와 작업 폴더 `/root/toolkit` 을 만들고, 실습의 기본 설정 `/opt/fixtures/gpu-airgap/containerd/config.toml.base` 를 `/etc/containerd/config.toml` 로 복사하세요. 실제 노드에서는 이 기본 설정을 `containerd config default` 가 만듭니다.",
        "Create the folder `/etc/containerd` and the working folder `/root/toolkit`, and copy the lab's base config `/opt/fixtures/gpu-airgap/containerd/config.toml.base` to `/etc/containerd/config.toml`. On a real node, `containerd config default` makes that base config."),
    2: ("`config.toml` 에 이름이 `nvidia` 인 런타임의 테이블을 더하세요. 자리는 `runc` 의 테이블이 있는 곳, 즉 이 파일의 설정 버전(맨 위 `version` 줄)에서 CRI 플러그인이 런타임을 두는 `runtimes.<이름>` 입니다. `runtime_type` 은 `runc` 와 같은 값으로 적습니다. 헤더에 점이 든 이름은 따옴표로 감싸야 합니다.",
        "Add a table for a runtime named `nvidia` to `config.toml`. Its place is where `runc`'s table is: `runtimes.<name>` under the CRI plugin's path for this file's config version (the `version` line at the top). Give it the same `runtime_type` as `runc`. A name with dots in a header must be quoted."),
    3: ("방금 만든 런타임 테이블 아래에 `options` 하위 테이블을 더하고 두 키를 적으세요: `BinaryName` 은 NVIDIA 컨테이너 런타임의 절대 경로(`/usr/bin/nvidia-container-runtime`), `SystemdCgroup` 은 켜 둡니다. `SystemdCgroup` 은 TOML 불리언입니다.",
        "Add the `options` sub-table under the runtime table you just made, with two keys: `BinaryName`, the absolute path of the NVIDIA container runtime (`/usr/bin/nvidia-container-runtime`), and `SystemdCgroup`, switched on. `SystemdCgroup` is a TOML boolean."),
    4: ("설정에서 `default_runtime_name` 의 값을 확인하되 바꾸지 마세요. 그리고 `/root/toolkit/default.txt` 에 두 줄을 적습니다: `DEFAULT=` 뒤에 그 기본 런타임의 이름, `WHY=` 뒤에 GPU 파드가 nvidia 를 고르는 방법인 `runtimeclass`.",
        "Look up `default_runtime_name` in the config, and leave it as it is. Then write two lines to `/root/toolkit/default.txt`: `DEFAULT=` followed by that default runtime's name, and `WHY=` followed by `runtimeclass`, the way GPU pods choose nvidia."),
    5: ("`config.toml` 을 TOML 파서(파이썬 3.11 부터 표준 라이브러리의 `tomllib`)로 읽고, `/root/toolkit/parsed.txt` 에 두 줄을 적으세요: `VERSION=` 뒤에 파일의 `version` 값, `RUNTIMES=` 뒤에 등록된 런타임 이름들(쉼표로 구분, 공백 없이). 기본 런타임과 새 런타임이 둘 다 있어야 합니다. 파싱이 되면 문법이 맞다는 증거입니다.",
        "Read `config.toml` with a TOML parser (the standard library's `tomllib` from Python 3.11), and write two lines to `/root/toolkit/parsed.txt`: `VERSION=` followed by the file's `version`, and `RUNTIMES=` followed by the registered runtimes' names (comma-separated, no spaces). The default runtime and the new one must both be there. If it parses, the syntax is right."),
    6: ("`/etc/cdi/nvidia.yaml` 이 있고 `kind` 가 `nvidia.com/gpu` 인지 확인하세요. 없으면 만드세요: CDI 스펙의 최소 형태는 `cdiVersion`, `kind`, 장치 목록 `devices`(이름과 `containerEdits`), 공통 `containerEdits` 입니다. 그런 다음 스펙의 최상위 키를 파일 순서대로 한 줄에 하나씩 `/root/toolkit/cdi-keys.txt` 에 적으세요.",
        "Check that `/etc/cdi/nvidia.yaml` exists and that its `kind` is `nvidia.com/gpu`. If it is missing, make it: a minimal CDI spec has `cdiVersion`, `kind`, a list of `devices` (a name and their `containerEdits`) and common `containerEdits`. Then write the spec's top-level keys, in file order, one per line, to `/root/toolkit/cdi-keys.txt`."),
    7: ("`/root/toolkit/runtimeclass.yaml` 에 Kubernetes 의 RuntimeClass 를 적으세요. API 는 `node.k8s.io/v1` 이고, 이름(`metadata.name`)과 `handler` 는 둘 다 2단계에서 등록한 런타임의 이름입니다. `handler` 는 `spec` 아래가 아니라 최상위 키입니다.",
        "Write a Kubernetes RuntimeClass to `/root/toolkit/runtimeclass.yaml`. Its API is `node.k8s.io/v1`, and its name (`metadata.name`) and its `handler` are both the name of the runtime you registered in step 2. `handler` is a top-level key, not under `spec`."),
    8: ("`/root/toolkit/report.txt` 에 다섯 줄을 `이름=값` 으로 적으세요: `CONFIG_VERSION`, `RUNTIME`, `RUNTIME_TYPE`, `SYSTEMD_CGROUP`, `HANDLER`. 값은 모두 여러분이 쓴 파일(`config.toml` 과 `runtimeclass.yaml`)을 파서로 다시 읽어서 얻어야 합니다. 불리언은 TOML 처럼 소문자로 적습니다.",
        "Write five `NAME=value` lines to `/root/toolkit/report.txt`: `CONFIG_VERSION`, `RUNTIME`, `RUNTIME_TYPE`, `SYSTEMD_CGROUP` and `HANDLER`. Every value must come from parsing the files you wrote (`config.toml` and `runtimeclass.yaml`) again. Write a boolean in lowercase, as TOML does."),
}

END = """## 마무리

여덟 단계가 모두 통과하면 실습을 마친 것입니다. 강사는 같은 규칙으로 반 전체를 채점합니다(`runbook grade`). 여러분의 폴더에는 아무것도 쓰지 않습니다.

**파드로 증명하기:** 파일이 맞다는 것과 파드가 nvidia 바이너리로 시작한다는 것은 다릅니다. `SystemdCgroup = "true"` 같은 문자열이나 런타임과 다른 handler 는 containerd 가 설정을 읽을 때는 아무 말이 없다가, 파드를 띄울 때 실패합니다. root 권한이 있는 실습 기계라면 `runbook run --root <실습 폴더> --mode check --smoke sandbox` 로 여러분의 설정 사본에서 버리는 containerd 를 띄워, RuntimeClass 의 handler 로 파드가 시작하는지 보세요. 여러분의 폴더에는 아무것도 쓰지 않습니다. 실패하면 containerd 가 한 말과 고치는 방법이 나옵니다.

## Done

When all eight steps pass, you have finished the lab. The instructor grades the class by the same rules (`runbook grade`), writing nothing in your folder.

**Prove it with a pod:** right files are not the same as a pod that starts with the nvidia binary. A string such as `SystemdCgroup = "true"` or a handler that is not the runtime's name says nothing when containerd reads the config, and fails when a pod starts. On a lab machine where you are root, `runbook run --root <your lab folder> --mode check --smoke sandbox` starts a throw-away containerd on a copy of your config and a pod through the RuntimeClass's handler, writing nothing in your folder; a failure shows containerd's own words and the fix."""
