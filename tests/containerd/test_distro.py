"""Distributions (runbook_lib/containerd/distro/): detected under a root; for each, the file really edited,
the service restarted and the check of containerd's view; a generated file never edited; a Go template never
parsed as TOML; microk8s placeholders kept; results rendered the way each distribution renders them and read
by tomllib, by our containerd-2.x merge, and by containerd 1.6 where it can read them (version 2)."""

import tomllib

import pytest

from distro_helpers import DISTRO, NVIDIA, WANTED, containerd_reads, distro_fixture, write_root
from runbook_lib.containerd.distro import detect as distro
from runbook_lib.containerd.distro.edit import TEMPLATE_HAS_RUNTIME, plan_dropin_file, plan_microk8s_template, plan_rancher_template, template_block
from runbook_lib.containerd.distro.render import placeholders, render_microk8s, render_rancher_template
from runbook_lib.containerd.effective import MERGE_2X, load_effective
from runbook_lib.containerd.owner import OTHER_BINARY, RuntimeOwnedElsewhere
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import runtime_path
from runbook_lib.findings.errors import ConfigError
from runbook_lib.fs.target import Target

K3S = "/var/lib/rancher/k3s/agent/etc/containerd"
RKE2 = "/var/lib/rancher/rke2/agent/etc/containerd"
MK8S = "/var/snap/microk8s/current/args"


def root_with(tmp_path, files):
    return Target(str(write_root(tmp_path, {k.lstrip("/"): v for k, v in files.items()})))


@pytest.mark.parametrize("files,found", [
    ({"/etc/containerd/config.toml": "version = 2\n"}, ["containerd"]),
    ({f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml")}, ["k3s"]),
    ({f"{RKE2}/config.toml": distro_fixture("rke2-v3/config.toml")}, ["rke2"]),
    ({f"{MK8S}/containerd-template.toml": distro_fixture("microk8s/containerd-template.toml")}, ["microk8s"]),
    ({"/etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml")}, ["k0s"]),
    ({f"{K3S}/config.toml": "", "/etc/k0s/containerd.toml": ""}, ["k3s", "k0s"]),
])
def test_detected_under_the_root(tmp_path, files, found):
    target = root_with(tmp_path, files)
    assert distro.detect(target) == found
    chosen = distro.choose(target)
    if len(found) == 1:
        assert chosen == found[0]
    else:
        assert chosen.code == distro.DISTRO_AMBIGUOUS and "k3s / k0s" in chosen.fix.en and "k3s / k0s" in chosen.fix.ko
    assert distro.choose(target, "rke2") == "rke2" and distro.choose(target, "nomad").code == distro.DISTRO_UNKNOWN


def test_each_route_names_the_file_the_service_and_the_check(tmp_path):
    t = root_with(tmp_path / "a", {f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml")})
    r = distro.route(t, "k3s", "nvidia")
    assert (r.edit, r.path, r.version, r.generated) == (distro.EDIT_GO_TEMPLATE, f"{K3S}/config-v3.toml.tmpl", 3, f"{K3S}/config.toml")
    assert r.restart == ("systemctl", "restart", "k3s") and r.verify[-2:] == ("config", "dump") and f"{K3S}/config.toml" in r.verify
    t = root_with(tmp_path / "b", {f"{K3S}/config.toml": distro_fixture("k3s-v3-dropin/config.toml"),
                                   "/etc/systemd/system/k3s-agent.service": ""})
    r = distro.route(t, "k3s", "nvidia")
    assert (r.edit, r.path) == (distro.EDIT_DROPIN_DIR, f"{K3S}/config-v3.toml.d/99-nvidia.toml") and r.restart[-1] == "k3s-agent"
    t = root_with(tmp_path / "c", {f"{K3S}/config.toml": distro_fixture("k3s-v2/config.toml")})
    assert distro.route(t, "k3s", "nvidia").path == f"{K3S}/config.toml.tmpl"
    t = root_with(tmp_path / "d", {f"{RKE2}/config.toml": distro_fixture("rke2-v3/config.toml")})
    r = distro.route(t, "rke2", "nvidia")
    assert r.restart[-1] == "rke2-server" and r.verify[0] == "/var/lib/rancher/rke2/bin/containerd"
    t = root_with(tmp_path / "e", {f"{MK8S}/containerd-template.toml": ""})
    r = distro.route(t, "microk8s", "nvidia")
    assert (r.edit, r.generated) == (distro.EDIT_PLACEHOLDER_TEMPLATE, f"{MK8S}/containerd.toml")
    assert r.restart == ("snap", "restart", "microk8s.daemon-containerd")
    t = root_with(tmp_path / "f", {"/etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml")})
    r = distro.route(t, "k0s", "nvidia")
    assert (r.edit, r.path, r.version, r.restart) == (distro.EDIT_DROPIN_DIR, "/etc/k0s/containerd.d/nvidia.toml", 3, ())
    t = root_with(tmp_path / "g", {"/etc/k0s/containerd.toml": "version = 2\n"})  # not k0s-managed: edited as it is
    r = distro.route(t, "k0s", "nvidia")
    assert (r.edit, r.path) == (distro.EDIT_CONFIG, "/etc/k0s/containerd.toml") and r.restart[-1] == "k0sworker"


def test_a_generated_file_is_never_edited_and_the_finding_names_the_route():
    f = distro.generated_finding(distro_fixture("k3s-v3/config.toml"), f"{K3S}/config.toml")
    assert f.code == distro.GENERATED_FILE and f.values["by"] == "k3s" and f.line == 1
    assert f"{K3S}/config-v3.toml.tmpl" in f.fix.en and f"{K3S}/config-v3.toml.tmpl" in f.fix.ko
    assert distro.generated_finding("version = 2\n", f"{MK8S}/containerd.toml").values["by"] == "microk8s"
    assert distro.generated_finding("version = 2\n", "/etc/containerd/config.toml") is None


def test_a_go_template_given_as_the_config_is_named_as_such_not_a_toml_error():
    text = distro_fixture("k3s-v3/config-v3.toml.tmpl")
    f = distro.generated_finding(text, "/etc/containerd/config.toml")
    assert f.code == distro.GO_TEMPLATE_AS_CONFIG and f.line == 1 and "distro=k3s" in f.fix.en
    assert "Go 템플릿" in f.what.ko and "quote" not in f.fix.en


@pytest.mark.parametrize("case,version", [("k3s-v3", 3), ("k3s-v2", 2), ("rke2-v3", 3)])
def test_the_template_gets_the_runtime_after_the_base_and_renders_as_the_distribution_renders(tmp_path, case, version):
    generated = distro_fixture(f"{case}/config.toml")
    dist = case.split("-")[0]
    folder = K3S if dist == "k3s" else RKE2
    target = root_with(tmp_path, {f"{folder}/config.toml": generated})
    route = distro.route(target, dist, "nvidia")
    existing = distro_fixture("k3s-v3/config-v3.toml.tmpl") if case == "k3s-v3" else None
    plan = plan_rancher_template(route, existing, generated, WANTED)
    text = plan.text
    first = existing if existing is not None else '{{ template "base" . }}'  # k3s's own template, else its base
    assert text.startswith(first) and text.endswith(template_block(version, WANTED))
    assert "SystemdCgroup = {{ .SystemdCgroup }}" in text  # follows k3s's choice for runc and the kubelet
    again = plan_rancher_template(route, text, generated, WANTED)
    assert again.text == text  # idempotent
    rendered = render_rancher_template(text, generated)
    data = tomllib.loads(rendered)
    assert get_in(data, runtime_path(version, "nvidia"))["options"] == {"BinaryName": NVIDIA, "SystemdCgroup": True}
    base = tomllib.loads(generated)
    assert get_in(data, runtime_path(version, "runc")) == get_in(base, runtime_path(version, "runc"))  # base kept
    if version == 2:  # containerd 1.6 reads version 2: ask it
        root = write_root(tmp_path / "rendered", {"etc/containerd/config.toml": rendered})
        seen = containerd_reads(root)
        assert seen["runtime"]["options"]["BinaryName"] == NVIDIA and {"runc", "nvidia"} <= set(seen["runtime_names"])


def test_a_runtime_the_base_already_defines_is_never_appended(tmp_path):
    generated = distro_fixture("k3s-v3-dropin/config.toml")  # k3s found the GPU Operator's binary
    route = distro.Route("k3s", distro.EDIT_GO_TEMPLATE, f"{K3S}/config-v3.toml.tmpl", f"{K3S}/config.toml", 3,
                         generated=f"{K3S}/config.toml")
    with pytest.raises(RuntimeOwnedElsewhere) as exc:
        plan_rancher_template(route, None, generated, WANTED)
    f = exc.value.finding
    assert f.code == TEMPLATE_HAS_RUNTIME and f.values["owner"] == "k3s" and "define it twice" in exc.value.what.en
    same = generated.replace("/usr/local/nvidia/toolkit/nvidia-container-runtime", NVIDIA)
    plan = plan_rancher_template(route, None, same, WANTED)  # registered by k3s as wanted: nothing to write
    assert plan.text == "" and "already registers" in plan.notes[0].en


def test_the_k3s_dropin_folder_route_merges_as_containerd_2_does(tmp_path):
    generated = distro_fixture("k3s-v3-dropin/config.toml")
    route = distro.route(root_with(tmp_path / "a", {f"{K3S}/config.toml": generated}), "k3s", "nvidia")
    with pytest.raises(RuntimeOwnedElsewhere) as exc:  # the GPU Operator's nvidia, found by k3s
        plan_dropin_file(route, generated, WANTED)
    assert exc.value.finding.code == OTHER_BINARY
    mine = generated[:generated.index("\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.'nvidia']")] + "\n"
    drop = plan_dropin_file(route, mine, WANTED)
    target = root_with(tmp_path / "b", {f"{K3S}/config.toml": mine, route.path: drop})
    eff = load_effective(target, f"{K3S}/config.toml")
    assert eff.merge == MERGE_2X and [f.lab_path for f in eff.files][-1] == route.path
    assert tomllib.loads(drop.decode())["version"] == 3
    assert get_in(eff.data, runtime_path(3, "nvidia"))["options"] == {"BinaryName": NVIDIA, "SystemdCgroup": True}
    assert get_in(eff.data, runtime_path(3, "runc"))["options"] == {"SystemdCgroup": True}  # nothing lost


def test_k0s_dropin_is_read_through_k0s_imports(tmp_path):
    main = distro_fixture("k0s/containerd.toml")
    route = distro.route(root_with(tmp_path / "a", {"/etc/k0s/containerd.toml": main}), "k0s", "nvidia")
    drop = plan_dropin_file(route, main, WANTED)
    target = root_with(tmp_path / "b", {"/etc/k0s/containerd.toml": main, route.path: drop,
                                        "/etc/k0s/containerd.d/gvisor.toml": distro_fixture("k0s/gvisor.toml")})
    eff = load_effective(target, "/etc/k0s/containerd.toml")
    runtimes = get_in(eff.data, runtime_path(3, "nvidia")[:-1])
    assert set(runtimes) == {"nvidia", "runsc"} and runtimes["nvidia"]["options"]["BinaryName"] == NVIDIA
    assert drop.decode().startswith("# runbook (layout=dropin)")  # remove.py recognises it


def test_microk8s_placeholders_are_kept_and_never_taken_for_names(tmp_path):
    text = distro_fixture("microk8s/containerd-template.toml")
    assert placeholders(text) == ["SNAPSHOTTER", "RUNTIME", "RUNTIME_TYPE", "SNAP_DATA"]
    plan = plan_microk8s_template(text, WANTED, lab_path=f"{MK8S}/containerd-template.toml")
    assert placeholders(plan.text) == placeholders(text) and "${RUNTIME}" in plan.text
    assert '."${RUNTIME}"' not in plan.text and "runtimes.nvidia]" in plan.text
    assert any("placeholders were kept" in n.en for n in plan.notes)
    again = plan_microk8s_template(plan.text, WANTED, lab_path="/t")
    assert again.text == plan.text  # idempotent
    rendered = render_microk8s(plan.text)
    data = tomllib.loads(rendered)
    runtimes = get_in(data, runtime_path(2, "x")[:-1])
    assert set(runtimes) == {"runc", "nvidia-container-runtime", "kata", "nvidia"}
    assert runtimes["nvidia"]["options"] == {"BinaryName": NVIDIA, "SystemdCgroup": True}
    root = write_root(tmp_path, {"etc/containerd/config.toml": rendered})
    seen = containerd_reads(root)  # containerd 1.6 reads microk8s's version-2 result
    assert seen["default_runtime_name"] == "runc" and seen["runtime"]["options"]["BinaryName"] == NVIDIA
    assert set(seen["runtime_names"]) == set(runtimes)


def test_a_template_with_a_differently_written_runtime_is_left_to_the_user():
    route = distro.Route("k3s", distro.EDIT_GO_TEMPLATE, f"{K3S}/config-v3.toml.tmpl", f"{K3S}/config.toml", 3)
    own = '{{ template "base" . }}\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]\n  runtime_type = "x"\n'
    with pytest.raises(ConfigError) as exc:
        plan_rancher_template(route, own, None, WANTED)
    assert exc.value.line == 2 and exc.value.path == route.path
    assert DISTRO.is_dir()


def test_loading_a_go_template_as_the_config_names_it_instead_of_a_toml_syntax_error():
    from runbook_lib.containerd.findings import FindingError
    from runbook_lib.containerd.load import load_toml
    with pytest.raises(FindingError) as exc:
        load_toml(distro_fixture("k3s-v3/config-v3.toml.tmpl").encode(), "/etc/containerd/config.toml")
    assert exc.value.finding.code == distro.GO_TEMPLATE_AS_CONFIG and exc.value.line == 1
    assert "Go template" in exc.value.what.en and "distro=k3s" in exc.value.fix.ko


@pytest.mark.parametrize("case", ["template-existing", "template-created", "k0s-dropin", "microk8s"])
def test_remove_on_each_route_gives_back_what_was_there(tmp_path, case):
    from runbook_lib.containerd.distro.remove import plan_remove_route
    from runbook_lib.containerd.remove import commit_remove
    from runbook_lib.fs.safe_write import commit, plan_write
    if case.startswith("template"):
        generated = distro_fixture("k3s-v3/config.toml")
        files = {f"{K3S}/config.toml": generated}
        if case == "template-existing":
            files[f"{K3S}/config-v3.toml.tmpl"] = distro_fixture("k3s-v3/config-v3.toml.tmpl")
        target = root_with(tmp_path, files)
        route = distro.route(target, "k3s", "nvidia")
        old = files.get(route.path)
        new = plan_rancher_template(route, old, generated, WANTED).text.encode()
    elif case == "k0s-dropin":
        main = distro_fixture("k0s/containerd.toml")
        target = root_with(tmp_path, {"/etc/k0s/containerd.toml": main, "/etc/k0s/containerd.d/.keep": ""})
        route = distro.route(target, "k0s", "nvidia")
        old, new = None, plan_dropin_file(route, main, WANTED)
    else:
        old = distro_fixture("microk8s/containerd-template.toml")
        target = root_with(tmp_path, {f"{MK8S}/containerd-template.toml": old})
        route = distro.route(target, "microk8s", "nvidia")
        new = plan_microk8s_template(old, WANTED, lab_path=route.path).text.encode()
    commit(plan_write(target, route.path, new))
    plan = plan_remove_route(target, route, WANTED)
    assert plan.changed and not plan.kept
    commit_remove(target, plan)
    now = target.resolve(route.path)
    assert (now.read_text() if now.exists() else None) == old
    assert not plan_remove_route(target, route, WANTED).changed  # idempotent


@pytest.mark.parametrize("files,dist", [
    ({f"{K3S}/config.toml": distro_fixture("k3s-v3/config.toml")}, "k3s"),
    ({f"{RKE2}/config.toml": distro_fixture("rke2-v3/config.toml")}, "rke2"),
    ({f"{MK8S}/containerd-template.toml": distro_fixture("microk8s/containerd-template.toml")}, "microk8s"),
    ({"/etc/k0s/containerd.toml": distro_fixture("k0s/containerd.toml")}, "k0s"),
])
def test_plan_route_writes_once_then_nothing(tmp_path, files, dist):
    from runbook_lib.containerd.distro.plan import plan_route
    from runbook_lib.fs.safe_write import commit, ensure_dir
    target = root_with(tmp_path, files)
    route = distro.route(target, distro.choose(target), "nvidia")
    assert route.distro == dist
    state = {p: target.resolve(p).read_bytes() for p in files}
    plan = plan_route(target, route, WANTED)
    assert plan.changed and [w.lab_path for w in plan.writes] == [route.path]
    assert {p: target.resolve(p).read_bytes() for p in files} == state  # planned in memory only
    if plan.folder:
        ensure_dir(target, plan.folder)
    for w in plan.writes:
        commit(w)
    assert not plan_route(target, route, WANTED).changed  # idempotent
    if route.generated and route.generated in files:
        assert target.resolve(route.generated).read_bytes() == state[route.generated]  # never edited


@pytest.mark.parametrize("head, line", [
    ("# File generated by k3s. DO NOT EDIT. Use config.toml.tmpl instead.\n", 1),  # a k3s config copied elsewhere
    ("#\n# Ansible managed: DO NOT EDIT, changes will be overwritten\n", 2),
])
def test_a_file_another_tool_marks_do_not_edit_is_said_with_its_mark_and_both_ways_out(head, line):
    """Outside a distribution's paths no one can tell which tool rewrites the file: the finding quotes the mark at
    its line, and the fix says both ways out (the tool's source, or the mark removed), naming no other file."""
    f = distro.generated_finding(head + "version = 2\n", "/etc/containerd/config.toml")
    mark = head.splitlines()[line - 1].strip()
    assert (f.code, f.path, f.line, f.values["mark"]) == (distro.MARKED_GENERATED, "/etc/containerd/config.toml", line, mark)
    assert f.what.en == (f"line {line} of this file marks it as written by another tool ({mark}); when that tool writes "
                         "it again, the runbook's edit would be lost: /etc/containerd/config.toml")
    assert f.what.ko.startswith(f"이 파일 {line}행에는 다른 도구가 만든 파일이니 고치지 말라는 표시가 있습니다 ({mark}).")
    assert f"delete the mark on line {line}" in f.fix.en and f"{line}행의 표시를 지우고" in f.fix.ko


def test_a_marked_file_under_microk8s_data_is_microk8s_generated_file():
    f = distro.generated_finding("# DO NOT EDIT\nversion = 2\n", f"{MK8S}/other.toml")
    assert (f.code, f.values["by"]) == (distro.GENERATED_FILE, "microk8s")
    assert f"{MK8S}/containerd-template.toml" in f.fix.en
