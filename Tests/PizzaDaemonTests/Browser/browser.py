"""What the browser tests share: headless Chromium (Debian's chromium and chromium-driver, python3-selenium),
pizzactl as an operator runs it, and waiting for what the page shows."""
import json
import subprocess
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def chromium(window):
    """Headless Chromium with a window of `window` (`1600,900`), as root in a container."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window}"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def pizzactl(program, socket):
    """`ctl(*args)`: pizzactl --json ARGS against `socket`, its answer parsed; exits the script when it fails."""
    def ctl(*args):
        out = subprocess.run([program, "--socket", socket, "--json", *args], capture_output=True, text=True,
                             timeout=30)
        if out.returncode != 0:
            raise SystemExit(f"pizzactl {' '.join(args)}: {out.stderr}")
        return json.loads(out.stdout)
    return ctl


def waiter(describe=lambda: ""):
    """`wait(what, condition, limit)`: how long until `condition()` held, polled every 20 ms; exits the script
    naming `what` (and `describe()`, what the page shows) when it did not within `limit` seconds."""
    def wait(what, condition, limit):
        started = time.monotonic()
        while time.monotonic() - started < limit:
            try:
                if condition():
                    return time.monotonic() - started
            except Exception:
                pass
            time.sleep(0.02)
        raise SystemExit(f"FAILED: {what} did not happen within {limit} s{describe()}")
    return wait
