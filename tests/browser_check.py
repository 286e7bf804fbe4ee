"""Open an HTML file in headless Chromium as a reader would: screenshot, console errors, requests.

Talks the Chrome DevTools protocol over ``--remote-debugging-pipe`` (null-separated JSON on
file descriptors 3 and 4), so nothing beyond the standard library and a Chromium binary
is needed. Command line::

    python tests/browser_check.py results/report/report.html report.png

exits with status 1 when the page logs an error or requests anything that is not a
local file or inline data.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


@dataclass
class PageCheck:
    """What the page did: its screenshot (PNG bytes), console errors and requested URLs."""

    screenshot: bytes
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def external_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(LOCAL_SCHEMES)]


def find_browser() -> str | None:
    """The path of a Chromium binary on PATH, or None."""
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


class DevTools:
    """A minimal DevTools client on a browser started with ``--remote-debugging-pipe``."""

    def __init__(self, browser: str, user_data_dir: str, timeout: float) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # Keep the browser's ends clear of 3 and 4, then put them there in the child.
        to_browser_high, from_browser_high = (
            fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)
        )
        os.close(to_browser)
        os.close(from_browser)

        def place_pipes() -> None:
            os.dup2(to_browser_high, 3)
            os.dup2(from_browser_high, 4)

        self.process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=place_pipes,
            pass_fds=(3, 4),
        )
        os.close(to_browser_high)
        os.close(from_browser_high)
        self.deadline = time.monotonic() + timeout
        self.events: list[dict[str, Any]] = []
        self._buffer = b""
        self._next_id = 0

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._read], [], [], remaining)[0]:
                raise TimeoutError("headless browser: no answer before the time limit")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError(f"headless browser exited (status {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        command = {"id": self._next_id, "method": method, "params": params}
        if session:
            command["sessionId"] = session
        os.write(self._write, json.dumps(command).encode() + b"\0")
        while True:
            message = self._message()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"headless browser: {method} failed: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str) -> None:
        """Read messages until the event ``method`` arrives."""
        while not any(event.get("method") == method for event in self.events):
            self.events.append(self._message())

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self._read)
        os.close(self._write)


def _console_errors(events: list[dict[str, Any]]) -> list[str]:
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            errors.append(
                f"{details.get('text', '')} {details.get('exception', {}).get('description', '')}".strip()
            )
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(
                " ".join(
                    str(arg.get("value", arg.get("description", ""))) for arg in params["args"]
                )
            )
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            errors.append(
                f"{params['entry'].get('text', '')} {params['entry'].get('url', '')}".strip()
            )
    return errors


def check_page(
    path: str | Path, width: int = 1280, timeout: float = 60.0, browser: str | None = None
) -> PageCheck:
    """Load ``path`` in headless Chromium; return a full-page screenshot, console errors and requests."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError(f"no Chromium binary on PATH (looked for {', '.join(BROWSERS)})")
    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="biocompact-browser-") as profile:
        tools = DevTools(browser, profile, timeout)
        try:
            target = tools.call("Target.createTarget", url="about:blank")["targetId"]
            session = tools.call("Target.attachToTarget", targetId=target, flatten=True)[
                "sessionId"
            ]
            for domain in ("Runtime", "Log", "Network", "Page"):
                tools.call(f"{domain}.enable", session)
            tools.call(
                "Emulation.setDeviceMetricsOverride",
                session,
                width=width,
                height=900,
                deviceScaleFactor=1,
                mobile=False,
            )
            tools.call("Page.navigate", session, url=url)
            tools.wait_for("Page.loadEventFired")
            size = tools.call("Page.getLayoutMetrics", session)["cssContentSize"]
            shot = tools.call(
                "Page.captureScreenshot",
                session,
                format="png",
                captureBeyondViewport=True,
                clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
            )
        finally:
            tools.close()
    requests = [
        event["params"]["request"]["url"]
        for event in tools.events
        if event.get("method") == "Network.requestWillBeSent"
    ]
    return PageCheck(base64.b64decode(shot["data"]), _console_errors(tools.events), requests)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("screenshot", type=Path)
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args(argv)
    result = check_page(args.html, args.width)
    args.screenshot.write_bytes(result.screenshot)
    for error in result.console_errors:
        print(f"console error: {error}", file=sys.stderr)
    for url in result.external_requests:
        print(f"external request: {url}", file=sys.stderr)
    print(
        f"{args.screenshot}: {len(result.requests)} requests, {len(result.console_errors)} console errors, "
        f"{len(result.external_requests)} external requests"
    )
    return 1 if result.console_errors or result.external_requests else 0


if __name__ == "__main__":
    sys.exit(main())
