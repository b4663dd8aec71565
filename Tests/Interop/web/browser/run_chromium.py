#!/usr/bin/env python3
"""Runs page.html in headless Chromium against a running emulator (Python standard library only).

    run_chromium.py --port <firestore port> --project <id> --sdk <vendor dir> [--chromium path]
    run_chromium.py --page database.html --query mode=long-polling --port <database port> …

Serves the page and the vendored SDK bundles from a loopback HTTP server on another port (so every
Firestore request is cross-origin and credentialed, as from a real web app), starts Chromium with
--remote-debugging-pipe, opens the page over the DevTools protocol and waits for window.__result.
Exit 0 when every step passed; 1 with the steps, the error and the page's console otherwise.
"""

import argparse
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Handler(http.server.SimpleHTTPRequestHandler):
    """`/` is page.html, `/database.html` the RTDB page, `/sdk/<version>/<file>` the vendored bundles."""

    def __init__(self, *args, sdk, **kwargs):
        self.sdk = sdk
        super().__init__(*args, directory=HERE, **kwargs)

    def translate_path(self, path):
        path = path.split("?", 1)[0]
        if path in ("/", "/page.html"):
            return os.path.join(HERE, "page.html")
        if path == "/database.html":
            return os.path.join(HERE, "database.html")
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "sdk" and parts[3].endswith(".js") and ".." not in parts:
            return os.path.join(self.sdk, parts[2], parts[3])
        return os.path.join(HERE, "missing")

    def guess_type(self, path):
        return "text/javascript" if path.endswith(".js") else "text/html"

    def log_message(self, *args):
        pass


class DevTools:
    """CDP over --remote-debugging-pipe: NUL-terminated JSON messages on fds 3 (in) and 4 (out)."""

    def __init__(self, chromium, profile, log):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire():
            # Through fresh descriptors first: a pipe end may itself be 3 or 4.
            reader, writer = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(reader, 3)
            os.dup2(writer, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            # preexec_fn runs before the child closes descriptors; 3 and 4 must survive that.
            preexec_fn=wire, pass_fds=(3, 4, to_browser_r, from_browser_w))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def console_lines(events):
    lines = []
    for event in events:
        params = event.get("params", {})
        if event.get("method") == "Runtime.consoleAPICalled":
            lines.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif event.get("method") == "Runtime.exceptionThrown":
            lines.append(json.dumps(params.get("exceptionDetails", {}))[:2000])
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--sdk", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--timeout", type=float, default=90)
    parser.add_argument("--page", default="page.html", choices=["page.html", "database.html"])
    parser.add_argument("--query", default="", help="more query items for the page (a=b&c=d)")
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, sdk=args.sdk))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = f"http://127.0.0.1:{server.server_address[1]}/{args.page}?port={args.port}&project={args.project}"
    if args.query:
        page += f"&{args.query}"

    with tempfile.TemporaryDirectory() as profile:
        log = open(os.path.join(profile, "chromium.log"), "w+")
        tools = DevTools(args.chromium, profile, log)
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            tools.send("Runtime.enable", session=session)
            tools.send("Page.navigate", {"url": page}, session=session)
            deadline = time.monotonic() + args.timeout
            result = None
            while time.monotonic() < deadline:
                value = tools.send("Runtime.evaluate", {
                    "expression": "JSON.stringify(window.__result || null)", "returnByValue": True}, session=session)
                result = json.loads(value.get("result", {}).get("value") or "null")
                if result is not None:
                    break
                time.sleep(0.2)
        except Exception as error:
            result = {"ok": False, "error": f"DevTools: {error}"}
        finally:
            tools.close()
            server.shutdown()
            log.seek(0)
            chromium_log = log.read()[-4000:]
            log.close()

    if result and result.get("ok"):
        name = args.page + (f"?{args.query}" if args.query else "")
        print(f"chromium {name}: {len(result['steps'])} steps passed: {', '.join(result['steps'])}")
        return 0
    print(f"chromium: FAILED: {json.dumps(result, indent=2) if result else 'no result within the timeout'}", file=sys.stderr)
    for line in console_lines(tools.events)[-50:]:
        print(f"  console: {line}", file=sys.stderr)
    print(f"  chromium's stderr (end):\n{chromium_log}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
