#!/usr/bin/python3
"""Drives the manager's day page (GET /v1/reports/today) in a real headless Chromium.

Usage: day_page.py URL PIZZACTL SOCKET TOKEN SCREENSHOT

The page holds no figures until a manager's token is typed in; then it shows the X report's takings by tender and by
VAT rate, and follows new payments within its 5 s refresh. Orders and payments are made with pizzactl. Prints one
line per check; exits 0 when all held.
"""
import sys

from selenium.webdriver.common.by import By

from browser import chromium, pizzactl, waiter

url, pizzactl_path, socket, token, screenshot = sys.argv[1:6]
ctl = pizzactl(pizzactl_path, socket)
wait = waiter(lambda: f": {driver.find_element(By.TAG_NAME, 'body').text!r}")


def money(cents):
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d} EUR"


def row(table, first):
    # Read in one script: the page replaces its rows every 5 s, and an element found before a refresh is stale after.
    rows = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(tr => [...tr.cells].map(td => td.textContent));",
        f"#{table} tr")
    return next((cells for cells in rows if cells and cells[0] == first), None)


def sign_in(value):
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(value)
    driver.find_element(By.ID, "show").click()


driver = chromium("1000,900")
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
