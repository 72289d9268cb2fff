"""The distribution a run configures (containerd/distro.py decides the route) and what its steps read there.

On k3s, RKE2, microk8s and k0s every step reads the config that distribution's containerd is started with —
rendered from its template, as the distribution renders it, when there is one — and step 2 writes the
distribution's route, never its generated file.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace

from .errors import RunbookError
from .findings import Problem


def choose(run) -> tuple:
    """(route, refusal, params): the parameters follow the distribution's config when it is not plain containerd."""
    from .containerd import distro
    try:
        chosen = distro.choose(run.target, run.asked.distro)
        if isinstance(chosen, Problem):
            return None, chosen, run.asked
        found = distro.route(run.target, chosen, run.asked.runtime_name, config_path=run.asked.config_path)
    except RunbookError as exc:  # a folder or a FIFO where the config should be: the steps say it, with the fix
        return None, Problem.from_error(exc), run.asked
    params = run.asked if found.distro == distro.PLAIN else replace(run.asked, config_path=found.config)
    return found, None, params


def rendered(run) -> dict[str, bytes]:
    """The config the distribution will generate from its template, as an overlay for the steps to read (the
    generated file itself is rewritten from the template at the distribution's next start)."""
    from .containerd import distro, distro_render
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
    return {route.config: distro_render.render_rancher_template(template, generated).encode()}


def has_runtime(text: str, p) -> bool:
    from .containerd.tables import get_in
    from .containerd.versions import detect_version, runtime_path
    try:
        data = tomllib.loads(text)
        return get_in(data, runtime_path(detect_version(data, path=p.config_path, empty=not data), p.runtime_name)) is not None
    except (tomllib.TOMLDecodeError, RunbookError):
        return False
