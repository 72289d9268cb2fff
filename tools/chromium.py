"""Debian's chromium, headless, driven over the DevTools protocol: what the browser tests (tests/real/
test_real_browser_views.py) and the screenshots of docs/GRADING.md (tools/grading_screenshots.py) open pages with.

One browser per `Chromium()`, with a profile folder of its own that is deleted on close, no network of its
own (no component updates, sync or first-run pages), and --no-sandbox only when run as root, which chromium
refuses to sandbox. The protocol is spoken over one WebSocket (websocket-client) in flattened-session mode:
every command carries the page's session id and waits for its own reply.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless=new", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
         "--remote-debugging-port=0", "--allow-file-access-from-files",
         "--disable-dev-shm-usage"]  # a container's small /dev/shm would crash the renderer


def find() -> str | None:
    """The chromium binary, if installed (scripts/install-system-deps.sh installs Debian's)."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    def __init__(self, binary: str, *, width: int = 1200, height: int = 900, timeout: float = 60):
        import websocket  # websocket-client

        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="runbook-chromium-")
        flags = FLAGS + [f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")
        self.process = subprocess.Popen([binary, *flags, "about:blank"], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = self._devtools_url()
        self.ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True)
        self._ids = itertools.count(1)
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _devtools_url(self) -> str:
        deadline = time.monotonic() + self.timeout
        seen = []
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                break
            seen.append(line)
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:
                return found.group(1)
        self.close()
        raise RuntimeError("chromium did not start:\n" + "".join(seen[-20:]))

    def call(self, method: str, session: str | None = None, **params) -> dict:
        """One protocol command; its result (an error reply raises, with the browser's message)."""
        msg_id = next(self._ids)
        msg = {"id": msg_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def send(self, method: str, **params) -> dict:
        """A command to the page."""
        return self.call(method, self.session, **params)

    def open(self, url: str) -> None:
        """Go to url and wait for its load event."""
        self.events.clear()
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load")
            self.events.append(json.loads(self.ws.recv()))

    def evaluate(self, expression: str):
        """A JavaScript expression's value in the page (JSON-serialisable)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: str, *, full_page: bool = True) -> None:
        """A PNG of the page (the whole page's height when full_page)."""
        params = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", **params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
