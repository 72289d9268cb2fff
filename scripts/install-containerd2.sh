#!/bin/sh
# Installs the pinned real containerd 2.x releases (scripts/containerd2-versions.txt) that tests/real/ reads
# configs with, beside Debian's containerd 1.6: `go install` of containerd's own cmd/containerd module (and its
# cmd/containerd-shim-runc-v2, for the tests that start pods) from the Go module proxy, into
# $CONTAINERD2_PREFIX/containerd-v<version>/bin (default /opt, or ~/.cache/runbook when /opt is not writable).
# Idempotent: a binary that already says it is that version is kept.
# 테스트가 설정을 읽히는 실제 containerd 2.x 를 go install 로 설치합니다. 이미 있으면 아무것도 하지 않습니다.
set -eu
here=$(dirname "$0")
if [ -z "${CONTAINERD2_PREFIX:-}" ]; then
    if [ -w /opt ]; then CONTAINERD2_PREFIX=/opt; else CONTAINERD2_PREFIX="${XDG_CACHE_HOME:-$HOME/.cache}/runbook"; fi
fi
if ! command -v go >/dev/null 2>&1; then
    echo "install-containerd2: Go 가 없어 containerd 2.x 를 설치하지 않습니다 — 그 테스트는 건너뜁니다(CI 에서는 실패합니다)."
    echo "install-containerd2: no Go, not installing containerd 2.x — those tests will be skipped (and fail in CI)."
    exit 0
fi
for version in $(grep -v '^#' "$here/containerd2-versions.txt"); do
    bin="$CONTAINERD2_PREFIX/containerd-v$version/bin"
    # `containerd --version` prints "containerd github.com/containerd/containerd/v2 2.3.4+unknown"
    have=""
    if [ -x "$bin/containerd" ]; then
        have=$("$bin/containerd" --version 2>/dev/null | awk '{print $3}'); have=${have#v}; have=${have%%+*}
    fi
    if [ "$have" = "$version" ]; then
        echo "install-containerd2: 이미 설치되어 있습니다 / already installed: $bin/containerd ($version)"
    else
        echo "install-containerd2: 설치합니다 / installing containerd $version into $bin"
        mkdir -p "$bin"
        GOBIN="$bin" CGO_ENABLED=0 go install "github.com/containerd/containerd/v2/cmd/containerd@v$version"
    fi
    # the release's own runc shim beside it: the throw-away daemons put its folder first on PATH, and 2.3+
    # cannot start a pod with Debian's 1.6 shim ("type with url ... not found")
    # 그 릴리스의 runc shim 도 옆에 둡니다 (2.3 부터는 Debian 1.6 의 shim 으로 파드를 띄우지 못합니다)
    if [ ! -x "$bin/containerd-shim-runc-v2" ]; then
        echo "install-containerd2: shim 을 설치합니다 / installing containerd-shim-runc-v2 $version into $bin"
        GOBIN="$bin" CGO_ENABLED=0 go install "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@v$version"
    fi
done
echo "install-containerd2: 완료 / done"
