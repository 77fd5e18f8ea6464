#!/usr/bin/env python3
"""status_page_probe: loads bplaced's status page in headless Chromium and
prints what the page shows, as one JSON object on stdout.

Usage:
  status_page_probe.py URL --screenshot FILE [--timeout S] [--until JS]

It waits (at most --timeout seconds, default 60) until the page has drawn
the data at least once (body data-state "ready") and the JavaScript
expression --until, when given, is true; then it saves a screenshot of the
whole page and prints {"waited_out": false, "state", "updates", "banner",
"queues": [{name, pend, title}], "host_cells", "hosts": {name: {class,
text}}, "jobs": {STATE: text}, "legend": [...], "ages", "injected": bool,
"console": [browser log lines]}. When the deadline passes it prints the same
with "waited_out": true (what the page showed then) and exits 3. Exit 2:
bad usage or no Chromium/chromedriver/selenium (the message says which).

Chromium (Debian's `chromium`, `chromium-driver`, `python3-selenium`) runs
headless, with --no-sandbox (see below), and offline: every host name but the
loopback addresses fails to resolve and every other connection goes to a
closed proxy port, so the page can load nothing from outside.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# What the page shows, read in the page (no string from it is interpreted).
COLLECT = """
const q = (s) => [...document.querySelectorAll(s)];
const banner = document.getElementById('banner');
const hosts = {};
for (const c of q('#hostmap .h')) hosts[c.dataset.host] = {class: c.className, text: c.textContent};
const jobs = {};
for (const d of q('#jobs [data-status]')) jobs[d.dataset.status] = d.querySelector('dd').textContent;
return {
  state: document.body.dataset.state || null,
  updates: Number(document.body.dataset.updates || 0),
  banner: banner.hidden ? null : banner.textContent,
  queues: q('#queues .queue').map((li) => ({name: li.dataset.queue, pend: Number(li.dataset.pend),
                                            title: li.querySelector('.name').title})),
  host_cells: q('#hostmap .h').length,
  hosts: hosts,
  jobs: jobs,
  jobs_note: document.getElementById('jobs-note').textContent,
  legend: q('#legend li').map((li) => li.textContent),
  ages: document.getElementById('ages').textContent,
  injected: document.getElementById('injected') !== null,
};
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--until", default="true")
    args = parser.parse_args()
    try:
        from selenium import webdriver
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError as error:
        print(f"status_page_probe: python3-selenium is missing ({error})", file=sys.stderr)
        return 2
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            print(f"status_page_probe: {path} is missing (chromium, chromium-driver)", file=sys.stderr)
            return 2

    profile = tempfile.mkdtemp(prefix="bplace-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--disable-gpu", "--window-size=1600,1100",
                 f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-extensions", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]",
                 "--proxy-server=127.0.0.1:9"):
        options.add_argument(flag)
    # Chromium refuses root with its sandbox, and an ordinary user in a
    # container often has no user namespaces for it; the page is the
    # daemon's own, on loopback.
    options.add_argument("--no-sandbox")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = None
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(args.timeout)
        driver.set_script_timeout(args.timeout)
        driver.get(args.url)
        waited_out = False
        condition = (f"return document.body.dataset.state === 'ready' && Boolean({args.until});")
        try:
            WebDriverWait(driver, args.timeout, poll_frequency=0.2).until(
                lambda d: d.execute_script(condition))
        except TimeoutException:
            waited_out = True
        height = driver.execute_script("return document.documentElement.scrollHeight;")
        # The whole page (up to 6,000 px), not only the first screen.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1600, "height": max(1100, min(int(height), 6000)), "deviceScaleFactor": 1,
            "mobile": False})
        driver.save_screenshot(args.screenshot)
        result = driver.execute_script(COLLECT)
        result["waited_out"] = waited_out
        result["console"] = [entry.get("message", "") for entry in driver.get_log("browser")]
        print(json.dumps(result))
        return 3 if waited_out else 0
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
