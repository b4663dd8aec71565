#!/usr/bin/env python3
"""Runs page.html in headless Chromium against a running emulator (Python standard library only).

    run_chromium.py --port <firestore port> --project <id> --sdk <vendor dir> [--chromium path]
    run_chromium.py --page database.html --query mode=long-polling --port <database port> …

Serves the page and the vendored SDK bundles from a loopback HTTP server on another port (so every
Firestore request is cross-origin and credentialed, as from a real web app), starts Chromium with
--remote-debugging-pipe (tests/chromium.py), opens the page over the DevTools protocol and waits for window.__result.
Exit 0 when every step passed; 1 with the steps, the error and the page's console otherwise.
"""

import argparse
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
from chromium import Browser  # noqa: E402  (Tests/Interop/tests/chromium.py)


class Handler(http.server.SimpleHTTPRequestHandler):
    """`/` is page.html, `/database.html` the RTDB page, `/steps.js` what both share, `/sdk/<version>/<file>` the vendored bundles."""

    def __init__(self, *args, sdk, **kwargs):
        self.sdk = sdk
        super().__init__(*args, directory=HERE, **kwargs)

    def translate_path(self, path):
        path = path.split("?", 1)[0]
        if path in ("/", "/page.html"):
            return os.path.join(HERE, "page.html")
        if path in ("/database.html", "/steps.js"):
            return os.path.join(HERE, path[1:])
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "sdk" and parts[3].endswith(".js") and ".." not in parts:
            return os.path.join(self.sdk, parts[2], parts[3])
        return os.path.join(HERE, "missing")

    def guess_type(self, path):
        return "text/javascript" if path.endswith(".js") else "text/html"

    def log_message(self, *args):
        pass


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
        browser = None
        try:
            browser = Browser(args.chromium, profile, log=log)
            browser.open(page)
            deadline = time.monotonic() + args.timeout
            result = None
            while time.monotonic() < deadline:
                result = json.loads(browser.evaluate("JSON.stringify(window.__result || null)") or "null")
                if result is not None:
                    break
                time.sleep(0.2)
        except Exception as error:
            result = {"ok": False, "error": f"DevTools: {error}"}
        finally:
            if browser is not None:
                browser.close()
            server.shutdown()
            log.seek(0)
            chromium_log = log.read()[-4000:]
            log.close()

    if result and result.get("ok"):
        name = args.page + (f"?{args.query}" if args.query else "")
        print(f"chromium {name}: {len(result['steps'])} steps passed: {', '.join(result['steps'])}")
        return 0
    print(f"chromium: FAILED: {json.dumps(result, indent=2) if result else 'no result within the timeout'}", file=sys.stderr)
    for line in console_lines(browser.events if browser is not None else [])[-50:]:
        print(f"  console: {line}", file=sys.stderr)
    print(f"  chromium's stderr (end):\n{chromium_log}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
