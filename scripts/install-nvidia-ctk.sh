#!/bin/sh
# Installs the real nvidia-ctk (the NVIDIA Container Toolkit's CLI, which `cdi generate`s a node's CDI spec) that
# tests/real/ generates specs with: `go install` of the toolkit's own cmd/nvidia-ctk module from the Go module
# proxy, pinned below, into $NVIDIA_CTK_PREFIX/nvidia-ctk-v<version>/bin (default /opt, or ~/.cache/runbook when
# /opt is not writable). cgo is needed (go-nvml). `go install` builds no version string into it ("version
# unknown"), so the pinned version is the folder's name. Idempotent: an installed binary is kept.
# 노드의 CDI 스펙을 만드는 실제 nvidia-ctk 를 go install 로 설치합니다. 이미 있으면 아무것도 하지 않습니다.
set -eu
version=1.20.2  # the newest of 1.18-1.20 that builds here (tests/real/test_real_nvidia_ctk.py reads this line)
if [ -z "${NVIDIA_CTK_PREFIX:-}" ]; then
    if [ -w /opt ]; then NVIDIA_CTK_PREFIX=/opt; else NVIDIA_CTK_PREFIX="${XDG_CACHE_HOME:-$HOME/.cache}/runbook"; fi
fi
bin="$NVIDIA_CTK_PREFIX/nvidia-ctk-v$version/bin"
if [ -x "$bin/nvidia-ctk" ]; then
    echo "install-nvidia-ctk: 이미 설치되어 있습니다 / already installed: $bin/nvidia-ctk ($version)"
    exit 0
fi
if ! command -v go >/dev/null 2>&1; then
    echo "install-nvidia-ctk: Go 가 없어 nvidia-ctk 를 설치하지 않습니다 — 그 테스트는 건너뜁니다(CI 에서는 실패합니다)."
    echo "install-nvidia-ctk: no Go, not installing nvidia-ctk — those tests will be skipped (and fail in CI)."
    exit 0
fi
echo "install-nvidia-ctk: 설치합니다 / installing nvidia-ctk $version into $bin"
mkdir -p "$bin"
GOBIN="$bin" CGO_ENABLED=1 go install "github.com/NVIDIA/nvidia-container-toolkit/cmd/nvidia-ctk@v$version"
echo "install-nvidia-ctk: 완료 / done"
