#!/usr/bin/env python3
"""Opens an HTML report in headless Chromium the way a reader would and checks it: every figure
the page says it holds is there, each one's SVG drew something visible (non-empty box, shapes
inside), nothing logged an error, nothing was fetched from the network; a screenshot is saved.

Drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe), so it needs
only the Python standard library and Debian's chromium-headless-shell (or chromium).

usage: html_render_check.py REPORT.html --screenshot OUT.png [--min-figures N]
"""
from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


class Browser:
    def __init__(self, exe: str):
        self.profile = tempfile.mkdtemp(prefix="gd-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # The protocol pipe is fds 3 (commands in) and 4 (replies out) of the browser. The child's
        # ends are first moved above 4 so that placing them cannot overwrite one another.
        low = (to_child_r, from_child_w)
        to_child_r, from_child_w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in low)
        for fd in low:
            os.close(fd)

        def wire():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             f"--user-data-dir={self.profile}", "--window-size=1200,900", "about:blank"],
            pass_fds=(3, 4, to_child_r, from_child_w), preexec_fn=wire,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 30) -> dict:
        deadline = time.time() + timeout
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            e = self._read_message(deadline)
            self.events.append(e)
            if e.get("method") == method:
                return e

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


FIGURE_CHECK = """(() => {
  const figs = [...document.querySelectorAll('figure.gd-figure')];
  return JSON.stringify({
    declared: Number(document.body.dataset.figures),
    figures: figs.map(f => {
      const svg = f.querySelector('svg');
      const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
      return {id: f.id, kind: f.dataset.kind, width: box.width, height: box.height,
              shapes: svg ? svg.querySelectorAll('path, rect, image, use').length : 0};
    }),
    external: [...document.querySelectorAll('script[src], link[href], img[src^="http"], iframe')].length,
  });
})()"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("html")
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--min-figures", type=int, default=1)
    ap.add_argument("--require-kind", action="append", default=[],
                    help="a figure kind the page must hold (roofline: the machine model's, on the first page)")
    args = ap.parse_args()
    exe = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if not exe:
        print("FAIL: no headless Chromium (apt-get install chromium-headless-shell; scripts/setup.sh does)")
        return 1
    b = Browser(exe)
    problems: list[str] = []
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.send(f"{domain}.enable", session=session)
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(args.html)}, session=session)
        b.wait_event("Page.loadEventFired", timeout=60)
        result = b.send("Runtime.evaluate", {"expression": FIGURE_CHECK, "returnByValue": True}, session=session)
        page = json.loads(result["result"]["value"])
        metrics = b.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 0, "y": 0, "width": 1200,
                                                          "height": min(metrics["height"], 6000), "scale": 1}},
                      session=session, timeout=60)
        png = base64.b64decode(shot["data"])
        with open(args.screenshot, "wb") as f:
            f.write(png)
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                problems.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append(f"console.{p.get('type')}: {p.get('args')}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append(f"log error: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.requestWillBeSent" and not p.get("request", {}).get("url", "").startswith(("file:", "data:", "about:")):
                problems.append(f"network request: {p['request']['url']}")
    finally:
        b.close()
    figs = page["figures"]
    if page["declared"] != len(figs):
        problems.append(f"the page says it holds {page['declared']} figures, {len(figs)} are in the DOM")
    if len(figs) < args.min_figures:
        problems.append(f"{len(figs)} figures rendered, at least {args.min_figures} expected")
    for f in figs:
        if f["width"] < 100 or f["height"] < 80 or f["shapes"] < 5:
            problems.append(f"figure {f['id']} ({f['kind']}) did not render: {f}")
    if page["external"]:
        problems.append(f"{page['external']} external resources (scripts, stylesheets, images, frames)")
    if len(png) < 10000:
        problems.append(f"screenshot is only {len(png)} bytes: a blank page?")
    kinds = sorted({f["kind"] for f in figs})
    for k in args.require_kind:
        if k not in kinds:
            problems.append(f"no {k} figure rendered")
    print(f"{len(figs)} figures rendered ({', '.join(kinds)}); screenshot {args.screenshot} ({len(png)} bytes)")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
