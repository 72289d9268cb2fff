#!/bin/sh
# Installs the real programs that tests/real/ runs (containerd 1.6, podman, runc, unshare, ip, busybox) and the
# browser the browser tests drive (Debian's chromium, headless, with a Korean font for its screenshots).
# Idempotent: apt-get runs only when a package is missing, and `apt-get update` only then.
# 실제 프로그램 테스트(tests/real)와 브라우저 테스트(chromium 과 한글 글꼴)에 필요한 시스템 패키지를 설치합니다. 이미 있으면 아무것도 하지 않습니다.
set -eu

# Asked of dpkg by package name (not by command on PATH): busybox-static must be the static build,
# since the tests copy it into an otherwise empty image (no registry is reachable for a real one).
NEEDED="containerd podman runc conmon util-linux iproute2 busybox-static chromium fonts-nanum"

missing=""
for pkg in $NEEDED; do
    case "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" in
        *"install ok installed"*) ;;
        *) missing="$missing $pkg" ;;
    esac
done

if [ -z "$missing" ]; then
    echo "install-system-deps: 모든 시스템 패키지가 이미 설치되어 있습니다 / all system packages already installed"
    exit 0
fi

if [ "$(id -u)" != "0" ]; then
    echo "install-system-deps: root가 아니어서 설치하지 않습니다:$missing — 실제 프로그램 테스트는 건너뜁니다(CI에서는 실패합니다)."
    echo "install-system-deps: not root, not installing:$missing — the real-program tests will be skipped (and fail in CI)."
    exit 0
fi

echo "install-system-deps: 설치합니다 / installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086  # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing
echo "install-system-deps: 완료 / done"
