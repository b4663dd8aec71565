"""Headless Chromium driven over its DevTools protocol on a pipe (`--remote-debugging-pipe`),
standard library only: shared by the UI's browser tests (test_ui_browser.py), their benchmark
(Tests/Interop/ui_bench.py) and the JS SDK's browser run (Tests/Interop/web/browser/run_chromium.py)."""

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path


def chromium_binary() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found or not shutil.which("apt-get") or os.geteuid() != 0:
        return found
    try:
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shutil.which("chromium")


class Browser:
    """One headless Chromium; `call` sends a DevTools command and returns its result."""

    def __init__(self, binary: str, profile: Path, log=None):
        """`log`: a file for Chromium's stderr (discarded when None)."""
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        # --remote-debugging-pipe reads commands on fd 3 and writes replies on fd 4.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{commands_read} 4>&{replies_write}', binary,
             "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(commands_read, replies_write), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=log if log is not None else subprocess.DEVNULL)
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(domain, session=self.session)

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 65536)
            if not chunk:
                raise AssertionError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                           session=self.session)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # An element is not serializable: report it as true.
            value = self.evaluate(f"(() => {{ const v = ({expression}); return v instanceof Node ? true : v; }})()")
            if value:
                return value
            time.sleep(0.1)
        page = self.evaluate("document.getElementById('notice').innerText + ' | ' + document.getElementById('view').innerText")
        raise AssertionError(f"never true: {expression}\npage: {page[-1500:]}\nconsole: {self.errors()}")

    def open(self, url: str):
        self.call("Page.navigate", {"url": url}, session=self.session)

    def screenshot(self, path: Path):
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=self.session)["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self, network: bool = True) -> list[str]:
        """JavaScript errors, console errors and (unless `network` is false: a test that expects
        a denial) failed network requests."""
        found = []
        for event in self.events:
            if not network and event.get("method") == "Log.entryAdded" and event["params"].get("entry", {}).get("source") == "network":
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", "")[:500])
        return found

    def close(self):
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._commands)
        os.close(self._replies)
