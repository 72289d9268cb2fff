"""The distribution a run configures (containerd/distro/detect.py decides the route; Run.choose_route calls
``choose``) and what its steps read there.

On k3s, RKE2, microk8s and k0s every step reads the config that distribution's containerd is started with —
rendered from its template, as the distribution renders it, when there is one — and step 2 writes the
distribution's route, never its generated file.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace

from runbook_lib.findings.errors import RunbookError
from runbook_lib.fs.tomldoc import loads as toml_loads
from runbook_lib.findings.problem import Problem
from runbook_lib.containerd import node
from runbook_lib.containerd.distro import detect as distro
from runbook_lib.containerd.ask import containerd_version
from runbook_lib.containerd.versions import EMPTY_FILE_VERSION, version_for_containerd
from runbook_lib.containerd.distro import render as distro_render
from runbook_lib.containerd.tables import get_in
from runbook_lib.containerd.versions import detect_version, runtime_path


def node_daemon(run):
    """On a real node, the running containerd Kubernetes uses (containerd/node.py: a distribution's first, never
    Docker's own), or None: in a lab root there is no daemon to look at."""
    if not run.target.is_host:
        return None
    try:
        return node.kubernetes_daemon(node.running_containerds())
    except OSError:
        return None


def choose(run) -> tuple:
    """(route, refusal, params): the parameters follow the distribution's config when it is not plain containerd,
    and, on a real node, the --config the running containerd was started with when config_path was left as it is."""
    asked = run.asked
    daemon = node_daemon(run)
    if daemon is not None and asked.distro == "auto" and daemon.owner in distro.DISTROS and daemon.owner != distro.PLAIN:
        asked = replace(asked, distro=daemon.owner)  # the distribution whose containerd is running
    elif daemon is not None and daemon.owner == distro.PLAIN and asked.config_path == "/etc/containerd/config.toml":
        asked = replace(asked, config_path=daemon.config)
    try:
        chosen = distro.choose(run.target, asked.distro)
        if isinstance(chosen, Problem):
            return None, chosen, run.asked
        found = distro.route(run.target, chosen, asked.runtime_name, config_path=asked.config_path)
    except RunbookError as exc:  # a folder or a FIFO where the config should be: the steps say it, with the fix
        return None, Problem.from_error(exc), asked
    params = asked if found.distro == distro.PLAIN else replace(asked, config_path=found.config)
    return found, None, params


def empty_config_version(run) -> int:
    """The version an empty or missing config is written in: the one the node's containerd writes with
    `config default` (asked with --version: containerd_bin, or containerd on PATH on a real node); without a
    containerd to ask, version 2, which every containerd from 1.3 on reads."""
    import shutil
    binary = run.p.containerd_bin or (shutil.which("containerd") if run.target.is_host else None)
    return version_for_containerd(containerd_version(binary)) if binary else EMPTY_FILE_VERSION


def rendered(run) -> dict[str, bytes]:
    """The config the distribution will generate from its template, as an overlay for the steps to read (the
    generated file itself is rewritten from the template at the distribution's next start)."""
    route = run.route
    if route is None or route.edit not in (distro.EDIT_GO_TEMPLATE, distro.EDIT_PLACEHOLDER_TEMPLATE):
        return {}
    template = run.read_text(route.path)
    if template is None:
        return {}
    if route.edit == distro.EDIT_PLACEHOLDER_TEMPLATE:
        return {route.config: distro_render.render_microk8s(template).encode()}
    generated = run.read_text(route.generated) or ""
    if has_runtime(generated, run.p):
        return {}  # restarted since: the generated file is the distribution's own rendering of the template
    text = distro_render.render_rancher_template(template, generated, path=route.path)
    try:
        toml_loads(text)
    except tomllib.TOMLDecodeError as exc:  # say it of the template's line, not of the generated file
        raise distro_render.rendered_error(exc, text, template, route.path, route.generated) from None
    return {route.config: text.encode()}


def has_runtime(text: str, p) -> bool:
    try:
        data = toml_loads(text)
        return get_in(data, runtime_path(detect_version(data, path=p.config_path, empty=not data), p.runtime_name)) is not None
    except (tomllib.TOMLDecodeError, RunbookError):
        return False
