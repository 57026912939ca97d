#!/usr/bin/env python3
"""The studio's page in headless Chromium, driven by Selenium (Debian's
chromium, chromium-driver and python3-selenium): the overview's bars, an
edit typed into a cell reaching the file, an edit on disk showing without a
reload, a hostile value shown as text, and no error in the browser console.

Usage: studio_page.py URL BUNDLE [SCREENSHOTS]
Prints one line per check; exits 1 at the first that fails."""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

url, bundle = sys.argv[1], sys.argv[2]
shots = sys.argv[3] if len(sys.argv) > 3 else None
french = os.path.join(bundle, "fr.lproj", "Localizable.strings")

options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--user-data-dir=" + os.path.join(os.environ.get("TMPDIR", "/tmp"), "studio-chromium-%d" % os.getpid())]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 30)


def check(name, condition):
    if not condition:
        print("FAILED: " + name)
        driver.quit()
        sys.exit(1)
    print("ok: " + name)


def cell(key):
    return driver.find_element(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="%s"]' % key)


def text_of(key):
    try:
        return cell(key).find_element(By.CSS_SELECTOR, ".text").text
    except Exception:
        return None


try:
    driver.get(url)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'div.language[data-language="fr"][data-table="Localizable"] progress'))
    check("the token left the address bar", "token=" not in driver.current_url)
    bar = driver.find_element(By.CSS_SELECTOR, 'div.language[data-language="fr"][data-table="Localizable"] progress')
    check("fr's bar shows 2 of 3 translated", bar.get_attribute("value") == "2" and bar.get_attribute("max") == "3"
          and bar.get_attribute("aria-valuenow") == "2" and bar.get_attribute("aria-valuemax") == "3")
    english = driver.find_element(By.CSS_SELECTOR, 'div.language[data-language="en"][data-table="Localizable"] progress')
    check("en's bar is full", english.get_attribute("value") == "3")
    wait.until(lambda d: "following lprojd" in d.find_element(By.ID, "connection").text)
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-overview.png"))

    driver.find_element(By.CSS_SELECTOR, 'div.language[data-language="fr"][data-table="Localizable"] button').click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="cart"]'))
    check("the missing cell is marked", "missing" in cell("cart").get_attribute("class"))
    check("the table's count is in words", driver.find_element(By.ID, "table-status").text == "3 keys")
    check("the page says which keys it shows", driver.find_element(By.ID, "page").text == "1–3 of 3")
    # The search follows typing, without Enter; a search that finds nothing says so.
    search = driver.find_element(By.ID, "search")
    search.send_keys("cart")
    wait.until(lambda d: d.find_element(By.ID, "table-status").text == "1 key")
    search.send_keys("-nothing-matches")
    wait.until(lambda d: d.find_element(By.ID, "page").text == "no keys")
    # Emptied in one keystroke: one search, whose answer is the last render before the next step.
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    wait.until(lambda d: d.find_element(By.ID, "table-status").text == "3 keys")
    cell("cart").click()
    editor = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, 'td.value[data-key="cart"] textarea'))
    editor.send_keys("Panier")
    editor.send_keys(Keys.SHIFT, Keys.ENTER)
    editor.send_keys("d'achat")
    editor.send_keys(Keys.ENTER)
    wait.until(lambda d: '"cart" = "Panier\\nd\'achat";' in open(french, encoding="utf-8").read())
    check("an edit typed into a cell reached the file (Shift+Enter a newline)", True)
    wait.until(lambda d: text_of("cart") == "Panier\nd'achat")
    check("the page shows the saved text", True)

    # Escape cancels.
    cell("home").click()
    editor = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, 'td.value[data-key="home"] textarea'))
    editor.send_keys(" never saved")
    editor.send_keys(Keys.ESCAPE)
    wait.until(lambda d: text_of("home") == "Accueil")
    check("Escape cancels", "never saved" not in open(french, encoding="utf-8").read())

    # An edit on disk shows without a reload.
    marker = driver.execute_script("window.studioMarker = 42; return window.studioMarker;")
    text = open(french, encoding="utf-8").read().replace('"Accueil"', '"<img src=x onerror=alert(1)>"')
    with open(french + ".new", "w", encoding="utf-8") as new:
        new.write(text)
    os.rename(french + ".new", french)
    wait.until(lambda d: text_of("home") == "<img src=x onerror=alert(1)>")
    check("an edit on disk showed without a reload", driver.execute_script("return window.studioMarker;") == marker)
    check("a hostile value shows as text", not cell("home").find_elements(By.TAG_NAME, "img"))
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-table.png"))

    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check("no error in the browser console: %s" % errors, not errors)
except Exception:
    # Said on standard output, where the test reads.
    import traceback
    print("FAILED: " + traceback.format_exc())
    sys.exit(1)
finally:
    driver.quit()
