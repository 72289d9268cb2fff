"""A tiny OCI image layout tar, built here: an air-gapped lab reaches no registry, so the pod sandbox ("pause")
image of the pod step's `sandbox` mode is made from the static busybox and imported into the throw-away
containerd with `ctr images import`.

The layout is the OCI image spec's: `oci-layout`, `index.json` and content-addressed `blobs/sha256/*` (an
uncompressed layer, the image config, the manifest). The index names the image with the
`io.containerd.image.name` annotation, which `ctr images import` uses as the image's name.
"""
from __future__ import annotations

import hashlib
import io
import json
import platform
import tarfile
from pathlib import Path

BUSYBOX = Path("/bin/busybox")
ARCH = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def busybox_static(path: Path | None = None) -> Path | None:
    """The static busybox (Debian's busybox-static, /bin/busybox), found on the PATH as every other program the pod
    step runs (containerd, runc, unshare), or at ``path``; None when there is none: a dynamic build names its
    loader near the start, and would not run in an otherwise empty rootfs."""
    import os

    if path is not None:
        candidates = [Path(path)]
    else:
        candidates = [Path(d) / BUSYBOX.name for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d]
    for found in candidates:
        try:
            with open(found, "rb") as f:
                head = f.read(8192)
        except OSError:
            continue
        if b"/ld-linux" not in head and b"/ld-musl" not in head:
            return found
    return None


def _tar_bytes(add) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        add(tar)
    return buf.getvalue()


def build_image_tar(dest: Path, name: str, entrypoint: list[str], busybox: Path, env: list[str] = (),
                    shell: bool = False) -> Path:
    """Write an OCI layout tar at `dest` holding one image `name`: /bin/busybox, running `entrypoint`; with
    `shell`, /bin/sh too (a link to busybox), as the images a node runs have one."""
    blobs: dict[str, bytes] = {}

    def blob(data: bytes, media_type: str) -> dict:
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        blobs[digest] = data
        return {"mediaType": media_type, "digest": digest, "size": len(data)}

    def rootfs(tar):
        info = tarfile.TarInfo("bin")
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(info)
        tar.add(busybox, arcname="bin/busybox")
        if shell:
            link = tarfile.TarInfo("bin/sh")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)

    layer = _tar_bytes(rootfs)
    config = {"architecture": ARCH, "os": "linux", "config": {"Entrypoint": entrypoint, "Env": list(env)},
              "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer).hexdigest()]}}
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": blob(json.dumps(config).encode(), "application/vnd.oci.image.config.v1+json"),
                "layers": [blob(layer, "application/vnd.oci.image.layer.v1.tar")]}
    index = {"schemaVersion": 2, "manifests": [{
        **blob(json.dumps(manifest).encode(), "application/vnd.oci.image.manifest.v1+json"),
        "platform": {"architecture": ARCH, "os": "linux"},
        "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": name.rsplit(":", 1)[-1]}}]}

    def layout(tar):
        files = {"oci-layout": json.dumps({"imageLayoutVersion": "1.0.0"}).encode(),
                 "index.json": json.dumps(index).encode()}
        files.update({f"blobs/sha256/{d.split(':', 1)[1]}": data for d, data in blobs.items()})
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))

    dest.write_bytes(_tar_bytes(layout))
    return dest
