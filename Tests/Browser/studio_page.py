#!/usr/bin/env python3
"""The studio's page in headless Chromium, driven by Selenium (Debian's
chromium, chromium-driver and python3-selenium), as a translator works it:
the overview, the keyboard (a roving tab stop, Enter/F2, Ctrl+Enter to the
next text to translate, Alt+arrows, Escape, `?`), the editor pane (source
with placeholder chips, comment, other languages, the key's git history,
plural forms labelled, copy source, undo), per-key conflicts, a table that
stops parsing, bookmarkable addresses, a 390-pixel phone, axe-core's WCAG
A/AA rules and 2.2's target size on the overview, the table and an open
editor, and no error in the browser console.

Usage: studio_page.py URL BUNDLE AXE_SCRIPT [SCREENSHOTS]
Prints one line per check; exits 1 at the first that fails."""
import os
import subprocess
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

url, bundle, axe_path = sys.argv[1], sys.argv[2], sys.argv[3]
shots = sys.argv[4] if len(sys.argv) > 4 else None
french = os.path.join(bundle, "fr.lproj", "Localizable.strings")
french_rules = os.path.join(bundle, "fr.lproj", "Localizable.stringsdict")


def write(path, text):
    """Saved as editors do: a new file renamed over the old."""
    with open(path + ".new", "w", encoding="utf-8") as new:
        new.write(text)
    os.rename(path + ".new", path)


def read(path):
    with open(path, encoding="utf-8") as file:
        return file.read()


def git(*arguments, author="Alice"):
    environment = dict(os.environ, GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=author.lower() + "@example.com",
                       GIT_COMMITTER_NAME=author, GIT_COMMITTER_EMAIL=author.lower() + "@example.com")
    subprocess.run(["git", "-C", bundle] + list(arguments), check=True, env=environment, stdout=subprocess.DEVNULL)


# A plural rule in English (none in French yet), and the bundle's history in git: Alice wrote the French, Bob changed "home".
write(os.path.join(bundle, "en.lproj", "Localizable.stringsdict"), """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>posts</key><dict>
<key>NSStringLocalizedFormatKey</key><string>%#@n@</string>
<key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
<key>NSStringFormatValueTypeKey</key><string>d</string>
<key>one</key><string>%d post</string><key>other</key><string>%d posts</string></dict>
</dict></dict></plist>
""")
# Another table already translates "Cart": the translation memory offers it.
write(os.path.join(bundle, "en.lproj", "Other.strings"), '"basket" = "Cart";\n')
write(os.path.join(bundle, "fr.lproj", "Other.strings"), '"basket" = "Panier";\n')
git("init", "-q")
git("add", "-A")
git("commit", "-q", "-m", "First French")
write(french, read(french).replace('"Accueil"', '"Maison"'))
git("commit", "-q", "-am", "Home is Maison", author="Bob")
write(french, read(french).replace('"Maison"', '"Accueil"'))
git("commit", "-q", "-am", "Home is Accueil again", author="Bob")

options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--user-data-dir=" + os.path.join(os.environ.get("TMPDIR", "/tmp"), "studio-chromium-%d" % os.getpid())]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
# (A live update renders the table anew at any moment: an element found just before is then stale, and looked for again.)
wait = WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException])
axe = open(axe_path, encoding="utf-8").read()


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


def click_cell(key):
    """Clicks a cell; a live update may render the table anew between finding the cell and the click: then again."""
    def attempt(_):
        try:
            cell(key).click()
            return True
        except (StaleElementReferenceException, NoSuchElementException):
            return False
    wait.until(attempt)


def focused():
    return driver.switch_to.active_element


def focused_key():
    element = focused()
    return element.get_attribute("data-key") if element.tag_name == "td" else None


def keys(*sequence):
    ActionChains(driver).send_keys(*sequence).perform()


def chord(modifier, key):
    ActionChains(driver).key_down(modifier).send_keys(key).key_up(modifier).perform()


def editor_fields():
    return driver.find_elements(By.CSS_SELECTOR, "#editor textarea")


def editor_open():
    return driver.find_element(By.ID, "editor").is_displayed()


def accessible(view):
    """axe-core's WCAG 2.0/2.1 A and AA rules, and 2.2's target size (24 px, axe 4.4 has no rule for it)."""
    driver.execute_script(axe)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}}).then(done, e => done({error: String(e)}));")
    check("axe ran on the %s: %s" % (view, result.get("error")), "error" not in result)
    violations = ["%s: %s" % (v["id"], [node["target"] for node in v["nodes"]][:3]) for v in result["violations"]]
    check("no WCAG A/AA violation on the %s %s" % (view, violations), not violations)
    small = driver.execute_script("""
        return Array.from(document.querySelectorAll('button, a[href], input, select, textarea')).filter(node => {
          const box = node.getBoundingClientRect();
          return box.width > 0 && box.height > 0 && (box.width < 24 || box.height < 24);
        }).map(node => node.outerHTML.slice(0, 80));""")
    check("every target on the %s is at least 24 px (WCAG 2.2 2.5.8) %s" % (view, small), not small)


try:
    driver.get(url)
    row = 'li.table-row[data-language="fr"][data-table="Localizable"]'
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, row + " progress"))
    check("the token left the address bar", "token=" not in driver.current_url)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, row + " progress").get_attribute("max") == "4")
    bar = driver.find_element(By.CSS_SELECTOR, row + " progress")
    check("fr's bar shows 2 of 4 translated", bar.get_attribute("value") == "2")
    check("a language is named, with its code", driver.find_element(By.CSS_SELECTOR, 'li.language[data-language="fr"] h4').text.startswith("French fr"))
    check("each language says its percent, words left and issues",
          driver.find_element(By.CSS_SELECTOR, 'li.language[data-language="fr"] .summary').text.startswith("60% translated · "))
    english = driver.find_element(By.CSS_SELECTOR, 'li.table-row[data-language="en"][data-table="Localizable"] progress')
    check("en's bar is full", english.get_attribute("value") == "4")
    links = [link.get_attribute("aria-label") for link in driver.find_elements(By.CSS_SELECTOR, "li.table-row a")]
    check("every table's link has its own name %s" % links, len(set(links)) == len(links) and "Open Localizable in French" in links)
    wait.until(lambda d: "following lprojd" in d.find_element(By.ID, "connection").text)
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-overview.png"))
    accessible("overview")

    driver.find_element(By.CSS_SELECTOR, row + " a").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="cart"]'))
    check("the missing cell is marked", "missing" in cell("cart").get_attribute("class")
          and cell("cart").find_element(By.CSS_SELECTOR, ".badge").text == "missing")
    check("the table's count is in words", driver.find_element(By.ID, "table-status").text == "4 keys")
    check("the page says which keys it shows", driver.find_element(By.ID, "page").text == "1–4 of 4")
    check("the address names the view", "#/table?" in driver.current_url and "languages=fr" in driver.current_url)
    check("placeholders are chips in the source column",
          [chip.text for chip in driver.find_elements(By.CSS_SELECTOR, 'tr[data-key="welcome"] td.source .chip')] == ["%@"])
    # Keys apps asked for that no language has: listed with their counts and apps (not one only French lacks).
    unknown = wait.until(lambda d: d.find_element(By.ID, "unknown") if d.find_element(By.ID, "unknown").is_displayed() else None)
    check("a key apps missed that no table has is listed: %s" % unknown.text,
          driver.find_element(By.ID, "unknown-summary").text == "1 key apps asked for that no language has")
    driver.find_element(By.ID, "unknown-summary").click()
    listed = driver.find_elements(By.CSS_SELECTOR, "#unknown-keys tbody tr")
    check("with its count and app: %s" % [r.text for r in listed], len(listed) == 1 and listed[0].get_attribute("data-key") == "checkout.new"
          and "3×" in listed[0].text and "com.example.shop" in listed[0].text)

    # The search follows typing, without Enter; a search that finds nothing says so.
    search = driver.find_element(By.ID, "search")
    search.send_keys("cart")
    wait.until(lambda d: d.find_element(By.ID, "table-status").text == "1 key")
    search.send_keys("-nothing-matches")
    wait.until(lambda d: d.find_element(By.ID, "page").text == "no keys")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    wait.until(lambda d: d.find_element(By.ID, "table-status").text == "4 keys")

    # The keyboard: Tab reaches the table's one tab stop; arrows move; Enter edits.
    for _ in range(6):
        if focused_key():
            break
        keys(Keys.TAB)
    check("Tab reaches the translations", focused_key() == "cart")
    keys(Keys.ARROW_DOWN)
    check("↓ moves to the next key", focused_key() == "home")
    keys(Keys.ARROW_UP)
    keys(Keys.ENTER)
    wait.until(lambda d: editor_open() and d.switch_to.active_element.tag_name == "textarea")
    check("Enter opens the editor pane with the field focused", True)
    suggestion = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor-suggestions ol.suggestions li"))
    check("the memory suggests another table's translation of the same text: %s" % suggestion[0].text,
          "Panier" in suggestion[0].text and "same source" in suggestion[0].text and "Other · basket" in suggestion[0].text)
    ActionChains(driver).key_down(Keys.CONTROL).key_down(Keys.ALT).send_keys("1").key_up(Keys.ALT).key_up(Keys.CONTROL).perform()
    check("Ctrl+Alt+1 takes it", editor_fields()[0].get_attribute("value") == "Panier")
    chord(Keys.SHIFT, Keys.ENTER)
    keys("d'achat", Keys.ENTER)
    wait.until(lambda d: '"cart" = "Panier\\nd\'achat";' in read(french))
    check("an edit typed in the pane reached the file (Shift+Enter a newline)", True)
    wait.until(lambda d: text_of("cart") == "Panier\nd'achat")
    check("the page shows the saved text", True)
    wait.until(lambda d: focused_key() == "cart")
    check("after a save the focus is back on the cell", not editor_open())

    # Escape cancels, and gives the focus back.
    keys(Keys.ARROW_DOWN, Keys.F2)
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    keys(" never saved", Keys.ESCAPE)
    wait.until(lambda d: focused_key() == "home")
    check("Escape cancels", "never saved" not in read(french) and text_of("home") == "Accueil" and not editor_open())

    # Ctrl+Enter saves and opens the next text to translate: the plural rule French lacks, its forms labelled.
    keys(Keys.ENTER)
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    keys(Keys.END, " !")
    chord(Keys.CONTROL, Keys.ENTER)
    wait.until(lambda d: d.find_element(By.ID, "editor-title").text == "posts")
    check("Ctrl+Enter saved", '"home" = "Accueil !";' in read(french))
    labels = [label.text for label in driver.find_elements(By.CSS_SELECTOR, "#editor .field label")]
    check("every plural form is labelled, and the format key is a field %s" % labels,
          labels[:2] == ["one", "many"] and "other" in labels and labels[-1].startswith("Format"))
    check("the source shows every form", "%d posts" in driver.find_element(By.ID, "editor-source").text)
    check("a rule's variable is one chip", [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#editor-source .chip")] == ["%#@n@", "%d", "%d"])
    check("the focus is in the first form", focused().get_attribute("data-category") == "one")
    keys("%d article", Keys.TAB, "%d d'articles", Keys.TAB, "%d articles")
    check("Tab moves between the forms", focused().get_attribute("data-category") == "other")
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-editor.png"))
    accessible("table with an open editor")
    keys(Keys.ENTER)
    wait.until(lambda d: os.path.exists(french_rules) and "<string>%d articles</string>" in read(french_rules))
    check("the forms reached a new .stringsdict", "<string>%d article</string>" in read(french_rules))
    wait.until(lambda d: focused_key() == "posts")

    # The pane: comment, source chips, other languages, the key's history in git; a placeholder inserted from the keyboard.
    keys(Keys.ARROW_DOWN, Keys.ENTER)
    wait.until(lambda d: d.find_element(By.ID, "editor-title").text == "welcome")
    check("the comment is shown", driver.find_element(By.ID, "editor-comment").text == "Greeting")
    check("the source's placeholder is a chip", [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#editor-source .chip")] == ["%@"])
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor dl.others dd"))
    check("other languages are shown", "Welcome, %@!" in driver.find_element(By.CSS_SELECTOR, "#editor dl.others").text)
    history = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor ol.history li") or d.find_elements(By.CSS_SELECTOR, "#editor .history-none"))
    check("the key's history is its first commit, Alice's: %s" % [h.text for h in history], len(history) == 1 and "Alice" in history[0].text
          and "Bienvenue, %@ !" in history[0].text)
    chord(Keys.CONTROL, "a")
    keys("Salut ")
    ActionChains(driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("1").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
    check("Ctrl+Shift+1 inserts the first placeholder", editor_fields()[0].get_attribute("value") == "Salut %@")
    check("a used placeholder's chip says so", "used" in driver.find_element(By.CSS_SELECTOR, "#editor-chips button.chip").get_attribute("class"))
    keys(Keys.ESCAPE)
    wait.until(lambda d: focused_key() == "welcome")

    # "home"'s history: Alice's first text, Bob's two changes, newest first.
    click_cell("home")
    history = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#editor ol.history li"))
    check("a changed key's history lists each change, newest first: %s" % [h.text for h in history],
          len(history) == 3 and "Home is Accueil again" in history[0].text and "Maison" in history[1].text)
    # Copy source.
    driver.find_element(By.ID, "editor-copy").click()
    check("Copy source puts the source text in the field", editor_fields()[0].get_attribute("value") == "Home")
    keys(Keys.ESCAPE)

    # Another key changed on disk while an editor is open: no conflict, and that row updates.
    click_cell("welcome")
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    chord(Keys.CONTROL, "a")
    keys("Bonjour, %@ !")
    write(french, read(french).replace('"Accueil !"', '"Accueil"'))
    wait.until(lambda d: text_of("home") == "Accueil")
    check("other rows keep updating while an editor is open", editor_open() and editor_fields()[0].get_attribute("value") == "Bonjour, %@ !")
    keys(Keys.ENTER)
    wait.until(lambda d: '"welcome" = "Bonjour, %@ !";' in read(french))
    check("a change to another key is no conflict", True)
    wait.until(lambda d: focused_key() == "welcome")

    # Undo the last save.
    driver.find_element(By.ID, "undo").click()
    wait.until(lambda d: '"welcome" = "Bienvenue, %@ !";' in read(french))
    check("Undo writes the earlier text back", True)

    # The same key changed on disk meanwhile: the page says so, and saving asks which to keep.
    click_cell("home")
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    chord(Keys.CONTROL, "a")
    keys("Accueil (mine)")
    write(french, read(french).replace('"Accueil"', '"Accueil (theirs)"'))
    wait.until(lambda d: "changed on disk" in d.find_element(By.ID, "editor-message").text)
    keys(Keys.ENTER)
    wait.until(lambda d: "Accueil (theirs)" in d.find_element(By.ID, "editor-message").text)
    check("a conflict shows their text, nothing written", '"Accueil (theirs)"' in read(french))
    driver.find_element(By.XPATH, "//div[@id='editor-message']/button[text()='Keep mine']").click()
    wait.until(lambda d: '"home" = "Accueil (mine)";' in read(french))
    check("Keep mine writes mine", True)

    # A table that stops parsing: a banner with file:line:column, and the last good text stays.
    wait.until(lambda d: text_of("home") == "Accueil (mine)")
    good = read(french)
    write(french, good + '"broken" = "no semicolon"\n"x" = "y";\n')
    banner = wait.until(lambda d: d.find_element(By.ID, "invalid") if d.find_element(By.ID, "invalid").is_displayed() else None)
    check("a banner names the file, line and column: %s" % banner.text, "fr.lproj/Localizable.strings:" in banner.text and "last good text" in banner.text)
    check("the page keeps the last good text", text_of("home") == "Accueil (mine)")
    write(french, good.replace('"Accueil (mine)"', '"Accueil"'))
    wait.until(lambda d: not d.find_element(By.ID, "invalid").is_displayed() and text_of("home") == "Accueil")
    check("the banner goes when the file parses again", True)

    # An edit on disk shows without a reload; a hostile value as text.
    marker = driver.execute_script("window.studioMarker = 42; return window.studioMarker;")
    write(french, read(french).replace('"Accueil"', '"<img src=x onerror=alert(1)>"'))
    wait.until(lambda d: text_of("home") == "<img src=x onerror=alert(1)>")
    check("an edit on disk showed without a reload", driver.execute_script("return window.studioMarker;") == marker)
    check("a hostile value shows as text", not cell("home").find_elements(By.TAG_NAME, "img"))

    # Alt+↓ and Alt+↑ move the editor to the neighbouring key (saving first when the text changed).
    click_cell("cart")
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    ActionChains(driver).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(Keys.ALT).perform()
    wait.until(lambda d: d.find_element(By.ID, "editor-title").text == "home")
    ActionChains(driver).key_down(Keys.ALT).send_keys(Keys.ARROW_UP).key_up(Keys.ALT).perform()
    wait.until(lambda d: d.find_element(By.ID, "editor-title").text == "cart")
    check("Alt+arrows move the editor between keys", driver.switch_to.active_element.tag_name == "textarea")
    keys(Keys.ESCAPE)

    # A language the bundle lacks is written only once confirmed; a typo is no language at all.
    languages = driver.find_element(By.ID, "languages")
    languages.clear()
    languages.send_keys("fr,de,dee", Keys.ENTER)
    box = wait.until(lambda d: d.find_element(By.ID, "new-languages") if d.find_element(By.ID, "new-languages").is_displayed() else None)
    check("a new language asks to be added first: %s" % box.text, "German (de) is not a localization of this bundle yet" in box.text and "dee" not in box.text)
    headers = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#entries thead th")]
    check("until then it is read-only, and the typo is: %s" % headers, "German (de), read-only" in headers and "dee (dee), read-only" in headers)
    box.find_element(By.TAG_NAME, "button").click()
    wait.until(lambda d: "German (de)" in [h.text for h in d.find_elements(By.CSS_SELECTOR, "#entries thead th")])
    driver.find_element(By.CSS_SELECTOR, 'td.value[data-language="de"][data-key="cart"]').click()
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")
    keys("Warenkorb", Keys.ENTER)
    german = os.path.join(bundle, "de.lproj", "Localizable.strings")
    wait.until(lambda d: os.path.exists(german) and '"cart" = "Warenkorb";' in read(german))
    check("once added, its first save makes de.lproj", not os.path.exists(os.path.join(bundle, "dee.lproj")))
    languages = driver.find_element(By.ID, "languages")
    languages.clear()
    languages.send_keys("fr", Keys.ENTER)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#entries thead th")) == 4)

    # `?` lists the shortcuts.
    click_cell("cart")
    keys(Keys.ESCAPE)
    wait.until(lambda d: focused_key() == "cart")
    keys("?")
    dialog = wait.until(lambda d: d.find_element(By.ID, "shortcuts") if d.find_element(By.ID, "shortcuts").is_displayed() else None)
    check("? lists the shortcuts", "Ctrl+Enter" in dialog.text)
    keys(Keys.ESCAPE)
    wait.until(lambda d: not d.find_element(By.ID, "shortcuts").is_displayed())
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-table.png"))
    accessible("table")

    # A bookmark: the address opens the same view (filter and search) in a new load.
    driver.find_element(By.ID, "search").send_keys("ca")
    wait.until(lambda d: d.find_element(By.ID, "table-status").text == "1 key")
    bookmark = driver.current_url
    check("the address holds the search", "q=ca" in bookmark)
    driver.get("about:blank")
    driver.get(bookmark)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="cart"]'))
    check("a bookmark opens the same view", driver.find_element(By.ID, "search").get_attribute("value") == "ca"
          and driver.find_element(By.ID, "table-status").text == "1 key")
    driver.back()
    wait.until(lambda d: d.current_url == "about:blank")
    driver.forward()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-key="cart"]'))

    # "Add" makes the key in the source language, through the writer; it leaves the list.
    driver.find_element(By.ID, "unknown-summary").click()
    driver.find_element(By.CSS_SELECTOR, '#unknown-keys button[aria-label="Add checkout.new"]').click()
    field = wait.until(lambda d: d.switch_to.active_element if d.switch_to.active_element.tag_name == "input" else None)
    check("Add offers the key as the text to start from", field.get_attribute("value") == "checkout.new")
    field.send_keys("Check out", Keys.ENTER)
    english = os.path.join(bundle, "en.lproj", "Localizable.strings")
    wait.until(lambda d: '"checkout.new" = "Check out";' in read(english))
    wait.until(lambda d: not d.find_element(By.ID, "unknown").is_displayed())
    check("the added key reached the source table and left the list", True)

    # A catalog's review state: a badge, a filter, and "Mark reviewed" from the editor (the text kept).
    shop = os.path.join(bundle, "Shop.xcstrings")
    write(shop, """{
  "sourceLanguage" : "en",
  "strings" : {
    "pay" : { "localizations" : {
      "en" : { "stringUnit" : { "state" : "translated", "value" : "Pay" } },
      "fr" : { "stringUnit" : { "state" : "needs_review", "value" : "Payer" } } } },
    "ship" : { "localizations" : {
      "en" : { "stringUnit" : { "state" : "translated", "value" : "Ship" } },
      "fr" : { "stringUnit" : { "state" : "translated", "value" : "Expédier" } } } }
  },
  "version" : "1.0"
}
""")
    driver.get(bookmark.split("#")[0] + "#/table?bundle=" + bundle + "&table=Shop&languages=fr&filter=needs_review")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="pay"] .badge'))
    check("the needs-review filter shows only that key", [r.get_attribute("data-key") for r in driver.find_elements(By.CSS_SELECTOR, "#entries tbody tr")] == ["pay"]
          and cell("pay").find_element(By.CSS_SELECTOR, ".badge").text == "needs review")
    click_cell("pay")
    driver.find_element(By.ID, "editor-reviewed").click()
    wait.until(lambda d: '"state" : "translated",\n            "value" : "Payer"' in read(shop) or ('"needs_review"' not in read(shop)))
    check("Mark reviewed marks the text translated, the text kept", '"Payer"' in read(shop) and '"needs_review"' not in read(shop))
    wait.until(lambda d: d.switch_to.active_element.tag_name == "textarea")

    # A phone: key, source and translation stacked, each readable.
    driver.set_window_size(390, 844)
    driver.get(bookmark.split("#")[0] + "#/table?bundle=" + bundle + "&table=Localizable&languages=fr")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'td.value[data-language="fr"][data-key="welcome"]'))
    widths = driver.execute_script("""
        const row = document.querySelector('#entries tr[data-key="welcome"]');
        return Array.from(row.children).filter(c => getComputedStyle(c).display !== 'none').map(c => c.getBoundingClientRect().width);""")
    check("at 390 px the row's cells are stacked, each at least 300 px wide %s" % widths, widths and min(widths) >= 300)
    check("nothing scrolls sideways", driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))
    if shots:
        driver.save_screenshot(os.path.join(shots, "studio-phone.png"))

    # (The conflict above was answered 409 on purpose: Chromium logs any such answer.)
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
              and not (entry["source"] == "network" and "/api/entry" in entry["message"] and "409 (Conflict)" in entry["message"])]
    check("no error in the browser console: %s" % errors, not errors)
except Exception:
    # Said on standard output, where the test reads.
    import traceback
    shown = {}
    try:
        shown = {name: driver.find_element(By.ID, name).text for name in ["editor-message", "save-status", "table-status", "invalid", "editor-details"]}
        # Where the page is, and whether the studio answers the view's own request now (a page that did not ask, or a
        # studio that does not answer).
        shown["where"] = driver.execute_script(
            "return [location.hash, document.readyState, document.getElementById('search').value, document.getElementById('filter').value]")
        driver.set_script_timeout(15)
        shown["the view's request now"] = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const view = new URLSearchParams(location.hash.split('?')[1] || '');
            api('/api/table?' + new URLSearchParams({ bundle: view.get('bundle') || '', table: view.get('table') || '',
                filter: view.get('filter') || 'all', languages: view.get('languages') || '' }))
              .then(r => done([r.status, r.body.total, r.body.message]), e => done(String(e)));""")
        shown["console"] = driver.get_log("browser")[-5:]
    except Exception as error:
        shown = dict(shown) if isinstance(shown, dict) else {}
        shown["while asking"] = repr(error)
    print("FAILED: " + traceback.format_exc() + "\nthe page said: %s" % shown)
    sys.exit(1)
finally:
    driver.quit()
