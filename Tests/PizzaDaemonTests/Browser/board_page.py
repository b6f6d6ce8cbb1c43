#!/usr/bin/python3
"""Drives pizzad's board page in a real headless Chromium (Debian's chromium and chromium-driver, python3-selenium).

Usage: board_page.py URL PIZZACTL SOCKET SCREENSHOT FOLDER

Orders are made and moved with pizzactl, as an operator would. Halfway, it writes FOLDER/restart-now and waits for
FOLDER/restarted (the test restarts pizzad meanwhile). Prints one line per check; exits 0 when all held.
"""
import os
import sys

from selenium.webdriver.common.by import By

from browser import chromium, pizzactl, waiter

url, pizzactl_path, socket, screenshot, folder = sys.argv[1:6]
ctl = pizzactl(pizzactl_path, socket)
wait = waiter()


def in_column(order_id, column):
    return len(driver.find_elements(By.CSS_SELECTOR, f"#column-{column} #ticket-{order_id}")) == 1


driver = chromium("1600,900")
try:
    driver.get(url)
    wait("the page going live", lambda: driver.find_element(By.ID, "status").text == "live", 15)
    print("loaded: live")

    first = ctl("order", "new", "--customer", "Ada", "--note", "no onions", "--place",
                "chicken:L,crust=thin,extra=olives,qty=2", "cheese")["id"]
    took = wait("a new ticket in placed", lambda: in_column(first, "placed"), 1.0)
    text = driver.find_element(By.ID, f"ticket-{first}").text
    assert "2× chicken L thin +olives" in text and "Ada" in text and "no onions" in text, text
    print(f"new ticket shown in {took * 1000:.0f} ms: {text!r}")

    ctl("order", "advance", str(first))
    took = wait("the ticket moving to preparing", lambda: in_column(first, "preparing"), 1.0)
    print(f"advance shown in {took * 1000:.0f} ms")

    # "86": an item taken off the menu is listed in the header at once, and gone when it is back.
    ctl("menu", "off", "olives")
    took = wait("the 86 list naming olives", lambda: driver.find_element(By.ID, "off").text == "86: olives", 1.0)
    ctl("menu", "on", "olives")
    wait("the 86 list empty again", lambda: driver.find_element(By.ID, "off").text == "", 1.0)
    print(f"86 shown in {took * 1000:.0f} ms, and cleared")

    # The ticket's class and colour in one call: read apart, a loaded machine let the ticket pass the next mark
    # between the two (yellow read as red).
    look = lambda: driver.execute_script(
        "const t = document.getElementById(arguments[0]);"
        "return [t.className, getComputedStyle(t).backgroundColor];", f"ticket-{first}")
    seen = {}

    def turned(mark, other):
        classes, colour = look()
        if mark in classes.split() and other not in classes.split():
            seen[mark] = colour
            return True
        return False

    wait("the ticket turning yellow", lambda: turned("warn", "late"), 5)
    wait("the ticket turning red", lambda: turned("late", "warn"), 8)
    yellow, red = seen["warn"], seen["late"]
    assert yellow != red, (yellow, red)
    header = driver.find_element(By.CSS_SELECTOR, "#column-preparing h2").text
    assert header.lower() == "preparing (1)", header
    allday = driver.find_element(By.ID, "allday").text
    assert "2× chicken" in allday and "1× cheese" in allday, allday
    print(f"colours past the marks: {yellow} then {red}; {allday}")
    driver.save_screenshot(screenshot)

    open(os.path.join(folder, "restart-now"), "w").close()
    wait("the daemon's restart", lambda: os.path.exists(os.path.join(folder, "restarted")), 90)
    wait("the page reconnecting", lambda: driver.find_element(By.ID, "status").text == "live", 15)
    second = ctl("order", "new", "--customer", "Bo", "--place", "seafood")["id"]
    took = wait("a ticket after the restart", lambda: in_column(second, "placed"), 1.0)
    assert in_column(first, "preparing"), "the first ticket was lost"
    tickets = [e.get_attribute("id") for e in driver.find_elements(By.CSS_SELECTOR, ".ticket")]
    assert len(tickets) == len(set(tickets)) == 2, tickets
    print(f"after the restart: reconnected, new ticket in {took * 1000:.0f} ms, tickets {tickets}")
    errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"
              and "board/events" not in entry.get("message", "")]
    assert not errors, errors
    print("ok")
finally:
    driver.quit()
