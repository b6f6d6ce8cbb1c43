#!/usr/bin/python3
"""Drives the manager's day page (GET /v1/reports/today) in a real headless Chromium.

Usage: day_page.py URL PIZZACTL SOCKET TOKEN SCREENSHOT

The page holds no figures until a manager's token is typed in; then it shows the X report's takings by tender and by
VAT rate, and follows new payments within its 5 s refresh. Orders and payments are made with pizzactl. Prints one
line per check; exits 0 when all held.
"""
import json
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

url, pizzactl, socket, token, screenshot = sys.argv[1:6]


def ctl(*args):
    out = subprocess.run([pizzactl, "--socket", socket, "--json", *args], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise SystemExit(f"pizzactl {' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)


def wait(what, condition, limit):
    started = time.monotonic()
    while time.monotonic() - started < limit:
        try:
            if condition():
                return time.monotonic() - started
        except Exception:
            pass
        time.sleep(0.05)
    raise SystemExit(f"FAILED: {what} did not happen within {limit} s: {driver.find_element(By.TAG_NAME, 'body').text!r}")


def money(cents):
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d} EUR"


def row(table, first):
    for tr in driver.find_elements(By.CSS_SELECTOR, f"#{table} tr"):
        cells = [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
        if cells and cells[0] == first:
            return cells
    return None


def sign_in(value):
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(value)
    driver.find_element(By.ID, "show").click()


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,900"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(url)
    wait("the page asking for a token", lambda: driver.find_element(By.ID, "status").text == "not signed in", 15)
    assert "EUR" not in driver.find_element(By.TAG_NAME, "body").text, "figures shown before a token"
    print("loaded: asks for a token, shows no figures")

    sign_in("not-a-token")
    wait("a wrong token refused", lambda: "refused" in driver.find_element(By.ID, "status").text, 10)
    print("a wrong token: refused")

    sign_in(token)
    wait("the day shown", lambda: driver.find_element(By.ID, "day").is_displayed(), 10)
    x = ctl("report", "x")
    gross = sum(t["gross"] for t in x["taxes"])
    wait("the X's gross", lambda: driver.find_element(By.ID, "gross").text == money(gross), 10)
    cash = next(t for t in x["tenders"] if t["tender"] == "cash")
    assert row("tenders", "cash")[1] == money(cash["payments"]), row("tenders", "cash")
    food = next(t for t in x["taxes"] if t["rate"] == "food")
    assert row("taxes", "food")[1:] == ["7.00", money(food["gross"]), money(food["net"]), money(food["tax"])], \
        row("taxes", "food")
    print(f"signed in: gross {money(gross)}, cash {money(cash['payments'])}, food {row('taxes', 'food')}")

    order = ctl("order", "new", "--place", "seafood:L")
    ctl("order", "pay", str(order["id"]), "cash", f"{order['total'] // 100}.{order['total'] % 100:02d}")
    expected = money(cash["payments"] + order["total"])
    took = wait("a new payment shown", lambda: row("tenders", "cash")[1] == expected, 12)
    print(f"a new cash payment shown within {took:.1f} s: {expected}")

    driver.save_screenshot(screenshot)
    print("ok")
finally:
    driver.quit()
