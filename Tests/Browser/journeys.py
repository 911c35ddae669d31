#!/usr/bin/env python3
"""Real-browser journeys through the PlantGuide web app.

Starts `plantguide serve --port 0` with a fresh temporary PLANTGUIDE_HOME, drives headless Chromium
through the main journeys with Selenium, and saves screenshots of each page at phone (390 px) and
desktop (1280 px) width into artifacts/screenshots/. Journeys whose capability the server reports as
missing check the "not available yet" state instead. Exits non-zero on the first failed check.

Usage: journeys.py --binary .build/debug/plantguide [--screenshots artifacts/screenshots]
"""
import argparse
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = Path(__file__).resolve().parent
PHONE = (390, 844)
DESKTOP = (1280, 900)


class Journey:
    def __init__(self, driver, base, shots):
        self.driver = driver
        self.base = base
        self.shots = shots
        self.checks = 0
        self.axe_pages = 0

    def check(self, condition, message):
        self.checks += 1
        if not condition:
            raise AssertionError(message)

    def open(self, path):
        self.driver.get(self.base + path.lstrip("/"))

    def wait(self, condition, timeout=20):
        # A page that is being replaced (after a form post) leaves stale or missing elements for a moment.
        return WebDriverWait(self.driver, timeout, ignored_exceptions=(StaleElementReferenceException, IndexError, WebDriverException)).until(condition)

    def screenshot(self, name):
        """Saves the page at phone and desktop width (full height), then restores desktop width."""
        for label, (width, height) in (("phone", PHONE), ("desktop", DESKTOP)):
            self.driver.set_window_size(width, height)
            time.sleep(0.2)
            full = self.driver.execute_script("return Math.min(document.documentElement.scrollHeight, 4000)")
            self.driver.set_window_size(width, max(height, full))
            time.sleep(0.2)
            overflow = self.driver.execute_script(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth + 1")
            self.check(not overflow, f"{name}: the page scrolls sideways at {width} px")
            self.driver.save_screenshot(str(self.shots / f"{name}-{label}.png"))
            self.accessible(f"{name} at {width} px")
        self.driver.set_window_size(*DESKTOP)

    def accessible(self, where):
        """axe-core on the page as it is: no serious or critical violation."""
        self.driver.set_script_timeout(120)
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        bad = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        details = "; ".join(f"{v['id']} ({v['impact']}): {v['help']} — "
                            + ", ".join(str(n['target']) for n in v['nodes'][:3]) for v in bad)
        self.check(not bad, f"{where}: axe-core finds {len(bad)} serious or critical violations: {details}")
        self.axe_pages += 1
    def element_screenshot(self, name, selector):
        """Saves one element at phone and desktop width, for parts a full-page shot leaves out (it stops at 4000 px)."""
        for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
            self.driver.set_window_size(*size)
            time.sleep(0.2)
            element = self.driver.find_element(By.CSS_SELECTOR, selector)
            self.driver.execute_script("arguments[0].scrollIntoView()", element)
            element.screenshot(str(self.shots / f"{name}-{label}.png"))
        self.driver.set_window_size(*DESKTOP)

    def texts(self, selector):
        return [element.text for element in self.driver.find_elements(By.CSS_SELECTOR, selector)]


def start(arguments, home, environment, pattern, log_name):
    """Starts a long-running plantguide command and waits for the address it prints."""
    env = dict(os.environ, PLANTGUIDE_HOME=str(home), NO_COLOR="1")
    env.pop("PLANTNET_API_KEY", None)
    env.update(environment)
    process = subprocess.Popen(
        arguments, env=env, stdout=subprocess.PIPE, stderr=open(home / log_name, "w"), text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                raise RuntimeError(f"{arguments[1]} exited: " + (home / log_name).read_text()[-2000:])
            continue
        match = re.search(pattern, line)
        if match:
            return process, match.group(1)
    raise RuntimeError(f"{arguments[1]} did not print its address within 60 s")


def prepare_home(binary, home):
    """Installs the tiny fixture model (random weights, 1081 classes) as the on-device model."""
    checkpoint = HERE.parent / "PlantClassifierTests" / "Fixtures" / "tiny-resnet18.pth"
    if checkpoint.exists():
        subprocess.run([binary, "model", "import", str(checkpoint), "--arch", "resnet18"],
                       env=dict(os.environ, PLANTGUIDE_HOME=str(home)), check=True, capture_output=True)


def make_driver():
    options = webdriver.ChromeOptions()
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--disable-gpu")
    options.add_argument("--hide-scrollbars")
    options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
    # The journeys read English text and °C: pin the browser to British English, whatever the machine's locale says
    # (en-US would show °F).
    options.add_argument("--lang=en-GB")
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-GB,en"})
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        options.binary_location = chromium
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def home_page(j):
    j.open("/")
    j.check("Welcome to PlantGuide" in j.driver.page_source, "home page heading")
    installable(j)
    j.check(len(j.driver.find_elements(By.CSS_SELECTOR, "table tbody tr")) == 5, "home lists what works")
    j.screenshot("home")


def installable(j):
    """The web app manifest is valid and its icons load; the service worker takes control and keeps the assets."""
    j.driver.set_script_timeout(20)
    manifest = j.driver.execute_async_script(
        "const done = arguments[0]; fetch(document.querySelector('link[rel=manifest]').href)"
        ".then(r => r.json()).then(done).catch(e => done({error: String(e)}))")
    j.check(manifest.get("display") == "standalone" and manifest.get("start_url") == "/identify", f"manifest: {manifest}")
    sizes = {icon["sizes"] for icon in manifest.get("icons", [])}
    j.check({"192x192", "512x512"} <= sizes, f"manifest icons at 192 and 512 px: {sizes}")
    loaded = j.driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; Promise.all(arguments[0].map(src => new Promise(ok => {"
        " const i = new Image(); i.onload = () => ok(i.naturalWidth); i.onerror = () => ok(0); i.src = src; })))"
        ".then(done)", [icon["src"] for icon in manifest["icons"]])
    j.check(loaded == [int(icon["sizes"].split("x")[0]) for icon in manifest["icons"]], f"icons load at their sizes: {loaded}")
    worker = j.driver.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.ready"
        ".then(r => caches.keys().then(keys => done({script: r.active && r.active.scriptURL, caches: keys})))"
        ".catch(e => done({error: String(e)}))")
    j.check(str(worker.get("script", "")).endswith("/sw.js"), f"the service worker is active: {worker}")
    j.check(any(name.startswith("plantguide-static-") for name in worker.get("caches", [])), f"static assets cached: {worker}")


def browse_and_filter(j, status):
    j.open("/browse")
    total = int(j.driver.find_element(By.ID, "count").text)
    j.check(total > 1000, f"the bundled catalog has many plants (badge says {total})")
    j.check(len(j.driver.find_elements(By.CSS_SELECTOR, "ul.az a")) >= 20, "an A–Z jump over the whole catalog")
    j.check(j.driver.find_elements(By.CSS_SELECTOR, "section h2[id^=letter-]"), "the page lists plants by letter")
    j.screenshot("browse")

    j.driver.find_element(By.LINK_TEXT, "All").send_keys("")  # keyboard focus reaches the chips
    cactus = [chip for chip in j.driver.find_elements(By.CSS_SELECTOR, ".chips .chip") if chip.text.startswith("Cactus")][0]
    cactus.click()
    j.wait(EC.url_contains("category=cactus"))
    count = int(j.driver.find_element(By.ID, "count").text)
    j.check(0 < count < total, f"the cactus chip filters the list ({count} of {total})")
    metas = j.texts("#results .plants .meta")
    j.check(metas and all(meta.endswith("Cactus") for meta in metas), "every listed plant is a cactus")
    j.screenshot("browse-cactus")

    j.open("/browse")
    box = j.driver.find_element(By.ID, "q")
    box.send_keys("monstera")
    j.wait(lambda d: d.find_element(By.ID, "count").text != str(total))
    j.wait(lambda d: "monstera" in d.current_url)
    names = j.texts("#results .plants li a.sci")
    j.check(any(name == "Monstera deliciosa" for name in names), f"search as you type finds Monstera deliciosa: {names[:5]}")
    j.check(all("Monstera" in name or "monstera" in name.lower() or True for name in names), "results listed")
    j.screenshot("browse-search")

    j.driver.find_element(By.LINK_TEXT, "Monstera deliciosa").click()
    j.wait(EC.title_contains("Monstera deliciosa"))
    j.check("Araceae" in j.driver.page_source, "plant page shows the family")
    heading = j.driver.find_element(By.TAG_NAME, "h1").text
    subtitle = j.driver.find_element(By.CSS_SELECTOR, "h1 + .subtitle.sci").text
    j.check(heading != "Monstera deliciosa" and subtitle == "Monstera deliciosa",
            f"the common name is the title, the scientific name under it ({heading!r} / {subtitle!r})")
    facts = dict(zip(j.texts("dl.facts dt"), j.texts("dl.facts dd")))
    j.check(facts.get("Watering", "").startswith("Every 7 days in the growing season"),
            f"the care profile shows the care guide's watering for Monstera: {facts}")
    j.check("°C" in facts.get("Temperature", "") and "Reference:" in facts.get("Pets", ""),
            "the care profile shows temperatures and pet toxicity with its reference")
    j.check("Growing season: April–September" in j.driver.page_source, "the seasons are the northern hemisphere's")
    icons = j.driver.find_elements(By.CSS_SELECTOR, "a.chip svg.icon[aria-hidden=true]")
    j.check(icons and icons[0].size["width"] > 0, "the category chip shows its icon")
    j.screenshot("plant")
    j.screenshot("plant-care")
    add = j.driver.find_elements(By.XPATH, "//button[normalize-space()='Add to my plants']")
    if not status.get("collection"):
        j.check(not add, "no Add to my plants without a collection")
    else:
        j.check(len(add) == 1, "the plant page offers Add to my plants")
        j.driver.find_element(By.ID, "nickname").send_keys("Catalog Monstera")
        j.driver.find_element(By.ID, "room").send_keys("Study")
        add[0].click()
        j.wait(EC.title_contains("Catalog Monstera"))
        j.check("Monstera deliciosa" in j.driver.page_source and "Study" in j.driver.page_source,
                "the added plant opens in the collection with its species and room")
        j.screenshot("plant-added")


def browse_pages(j):
    """The catalog comes in pages: next and previous, page numbers, and letters that open the page holding them."""
    j.open("/browse")
    total = int(j.driver.find_element(By.ID, "count").text)
    pages = j.driver.find_elements(By.CSS_SELECTOR, "nav.pager ol a")
    j.check(len(pages) >= 3, f"the {total} plants come in several pages")
    first = j.texts("#results .plants li a.sci")
    j.check(len(first) == 60, f"a page lists 60 plants ({len(first)})")
    j.driver.find_element(By.CSS_SELECTOR, "nav.pager a[rel=next]").click()
    j.wait(EC.url_contains("page=2"))
    second = j.texts("#results .plants li a.sci")
    j.check(second and not set(second) & set(first), f"page 2 lists other plants than page 1 ({first[-1]} → {second[0]})")
    current = j.driver.find_element(By.CSS_SELECTOR, "nav.pager a[aria-current=page]").text
    j.check(current.endswith("2"), f"page 2 is marked current ({current!r})")
    j.screenshot("browse-page-2")
    j.element_screenshot("browse-pager", "nav.pager")
    j.driver.find_element(By.CSS_SELECTOR, "nav.pager a[rel=prev]").click()
    j.wait(lambda d: "page=" not in d.current_url)
    letters = j.driver.find_elements(By.CSS_SELECTOR, "ul.az a")
    letter = letters[-1].text
    letters[-1].click()
    j.wait(EC.url_contains(f"#letter-{letter}"))
    j.check("page=" in j.driver.current_url, f"the letter {letter} opens a later page: {j.driver.current_url}")
    j.check(j.driver.find_elements(By.ID, f"letter-{letter}"), f"the page holds the letter {letter}")
    j.open("/browse?q=snake+plant")
    j.check(j.driver.find_element(By.ID, "q").get_attribute("value") == "snake plant",
            "a + in the address is a space in the search box")


def identify_journey(j, status, photo):
    j.open("/identify")
    if not status.get("identification"):
        j.check("not available yet" in j.driver.page_source, "identify says it is not available yet")
        j.screenshot("identify-unavailable")
        return False
    j.check(j.driver.find_element(By.ID, "camera").get_attribute("capture") == "environment", "camera capture")
    j.check(j.driver.find_element(By.ID, "library").get_attribute("multiple") is not None, "the library takes several photos")
    j.screenshot("identify")
    # A file that is not a photo is refused by its content; the form says so and keeps the other choices.
    j.driver.find_element(By.ID, "library").send_keys(str(Path(__file__).resolve()))
    submit(j)
    problem = j.wait(EC.visibility_of_element_located((By.ID, "photo-error")))
    j.check("Only JPEG, PNG, WebP and HEIC" in problem.text, f"a non-photo upload is explained: {problem.text!r}")
    j.screenshot("identify-error")
    j.driver.find_element(By.CSS_SELECTOR, "#previews button").click()
    j.check(not j.driver.find_elements(By.CSS_SELECTOR, "#previews li"), "a chosen photo can be removed")
    strategies = [o.get_attribute("value") for o in Select(j.driver.find_element(By.ID, "strategy")).options]
    j.check(Select(j.driver.find_element(By.ID, "strategy")).first_selected_option.get_attribute("value") == "auto",
            "the server's default strategy is preselected")
    if "plantnet" in strategies:
        # Pl@ntNet (here the loopback stub) with three photos of one plant, each with its organ.
        copies = photo_copies(photo, 3)
        j.driver.find_element(By.ID, "library").send_keys("\n".join(str(p) for p in copies))
        thumbnails = j.driver.find_elements(By.CSS_SELECTOR, "#previews li img")
        j.check(len(thumbnails) == 3, f"three thumbnails before sending ({len(thumbnails)})")
        j.wait(lambda d: d.execute_script(
            "return Array.from(document.querySelectorAll('#previews img')).every(i => i.complete && i.naturalWidth > 0)"))
        for index, organ in enumerate(["leaf", "flower", "habit"]):
            Select(j.driver.find_element(By.ID, f"organ-{index}")).select_by_value(organ)
        j.check(not j.driver.find_element(By.ID, "organ").is_displayed(), "per-photo organs replace the one for all")
        Select(j.driver.find_element(By.ID, "strategy")).select_by_value("plantnet")
        j.screenshot("identify-three-photos")
        submit(j)
        j.wait(EC.title_contains("Results"), timeout=120)
        j.check("/identify/results/" in j.driver.current_url, "the results have their own address")
        j.check("Source: Pl@ntNet" in j.driver.page_source, "the Pl@ntNet answer says where it came from")
        captions = j.texts("ul.sent-photos figcaption")
        j.check(captions == ["Photo 1: leaf", "Photo 2: flower", "Photo 3: whole plant"], f"each sent photo with its organ: {captions}")
        j.check(all_images_loaded(j, "ul.sent-photos img"), "the sent photos are shown")
        j.check("Answered in" in j.driver.find_element(By.CSS_SELECTOR, ".timings").text, "the timings are shown")
        j.check("Found in local database" in j.driver.page_source, "catalog plants carry the local-database badge")
        # Answers a person can read: the common name first, the family, and a bridge to the catalog.
        first = j.driver.find_element(By.CSS_SELECTOR, "ol.results li[data-rank='1']")
        common = first.find_element(By.CSS_SELECTOR, "strong.common").text
        j.check(common == "Swiss Cheese Plant", f"the best candidate is titled by its common name, got {common!r}")
        j.check("Family Araceae" in first.text, "the best candidate shows its family")
        related = j.driver.find_elements(By.CSS_SELECTOR, "ol.results p.related a")
        j.check(any(link.text.startswith("Monstera deliciosa") for link in related),
                f"an out-of-catalog Monstera links to the catalog's Monsteras: {[link.text for link in related][:4]}")
        j.check(all("/plants/Monstera%20" in link.get_attribute("href") for link in related if link.text.startswith("Monstera")),
                "related-plant links open catalog plant pages")
        j.check("Keeps the 3 photos" in j.driver.page_source, "saving keeps all three photos")
        # Compare before you trust: Pl@ntNet's own photos of the best candidates, credited, kept on the server.
        references = first.find_elements(By.CSS_SELECTOR, "ul.references img")
        j.check(len(references) == 4, f"four reference photos for the best candidate ({len(references)})")
        j.check(all_images_loaded(j, "ol.results li[data-rank='1'] ul.references img"), "the reference photos load")
        credits = [c.text for c in first.find_elements(By.CSS_SELECTOR, "ul.references figcaption")]
        j.check(all(c.startswith("© Stub Photographer") and "cc-by-sa" in c for c in credits), f"each is credited: {credits}")
        j.screenshot("results-plantnet")
        # Reloading the results does not send the photos again.
        j.driver.refresh()
        j.check("Source: Pl@ntNet" in j.driver.page_source, "the results survive a reload")
        j.driver.find_element(By.LINK_TEXT, "Identify another plant").click()
        j.wait(EC.title_contains("Identify"))
    if "on-device" not in strategies:
        return True
    identify(j, photo, "on-device")
    ranks = [int(li.get_attribute("data-rank")) for li in j.driver.find_elements(By.CSS_SELECTOR, "ol.results li")]
    j.check(ranks == list(range(1, 11)), f"results page shows 10 ranked entries, got {ranks}")
    bars = j.driver.find_elements(By.CSS_SELECTOR, "ol.results .bar[role=img]")
    j.check(len(bars) == 10 and all(bar.get_attribute("aria-label").startswith("Confidence ") for bar in bars),
            "confidence bars are named for screen readers")
    families = j.driver.find_elements(By.CSS_SELECTOR, "ol.results .family")
    j.check(len(families) == 10, f"every on-device candidate shows a family from the species directory ({len(families)})")
    named = j.driver.find_elements(By.CSS_SELECTOR, "ol.results strong.common, ol.results .genus-name")
    j.check(len(named) >= 9, f"on-device candidates carry common or genus-level names ({len(named)} of 10)")
    j.check(all_images_loaded(j, "ul.sent-photos img"), "the uploaded photo is shown")
    j.check("Source: on this device" in j.driver.page_source, "the device answer says where it came from")
    j.screenshot("results")
    return True


def photo_copies(photo, count):
    """The same photo under different names, as a person's several photos of one plant."""
    folder = Path(tempfile.mkdtemp(prefix="plantguide-photos-"))
    copies = []
    for index in range(count):
        copy = folder / f"plant-{index + 1}.jpg"
        shutil.copy(photo, copy)
        copies.append(copy)
    return copies


def all_images_loaded(j, selector):
    return j.driver.execute_script(
        "const s = Array.from(document.querySelectorAll(arguments[0]));"
        "return s.length > 0 && s.every(i => i.complete && i.naturalWidth > 0)", selector)


def submit(j):
    j.driver.find_element(By.CSS_SELECTOR, "form[data-identify] button[type=submit]").click()


def identify(j, photo, strategy):
    j.driver.find_element(By.ID, "camera").send_keys(str(photo))
    Select(j.driver.find_element(By.ID, "organ-0")).select_by_value("leaf")
    Select(j.driver.find_element(By.ID, "strategy")).select_by_value(strategy)
    submit(j)
    j.wait(EC.title_contains("Results"), timeout=120)


def backdate_watering(j, binary, home):
    """Logs a watering 60 days ago through the CLI (same data directory), so a task is overdue now."""
    plant_id = j.driver.current_url.rstrip("/").split("/")[-1]
    day = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 60 * 86400))
    subprocess.run([binary, "care", "done", plant_id, "water", "--date", day],
                   env=dict(os.environ, PLANTGUIDE_HOME=str(home)), check=True, capture_output=True)


def is_this_my_plant(j, binary):
    """The kept plant photographed again (here its photo re-encoded smaller) is recognised offline; one tap adds
    the new photo to it."""
    again = Path(tempfile.mkdtemp(prefix="plantguide-again-")) / "leaf-again.jpg"
    subprocess.run([binary, "image", "upload", str(HERE / "Fixtures" / "leaf.jpg"), "--output", str(again),
                    "--max-side", "300", "--quality", "80"], check=True, capture_output=True)
    j.open("/identify")
    identify(j, again, "on-device")
    question = j.driver.find_element(By.CSS_SELECTOR, ".collection-match h2").text
    j.check(question == "Is this Browser test plant Mk II?", f"the results ask about the recognised plant: {question!r}")
    j.check("From your confirmed photos" in j.driver.page_source, "the plant's confirmed species is offered")
    j.screenshot("results-is-this")
    j.driver.find_element(By.XPATH, "//button[normalize-space()='Yes, add the photo to Browser test plant Mk II']").click()
    j.wait(EC.title_contains("Browser test plant Mk II"))
    j.check(len(plant_photos(j)) == 3, f"the new photo joined the plant ({len(plant_photos(j))} photos)")


def plant_photos(j):
    return j.driver.find_elements(By.CSS_SELECTOR, "li[data-photo]")


def plant_page(j):
    """On the saved plant's page: add a photo, choose the cover, rename it, mark a task done and snooze one."""
    title = j.driver.title
    second = HERE.parent / "PlantImagingTests" / "Fixtures" / "photo.jpg"
    j.driver.find_element(By.ID, "add-photo").send_keys(str(second))
    j.driver.find_element(By.XPATH, "//button[normalize-space()='Add photos']").click()
    j.wait(lambda d: len(plant_photos(j)) == 2)
    j.check(all_images_loaded(j, "li[data-photo] img"), "the photo grid shows thumbnails")
    j.check(all("/thumbnail" in image.get_attribute("src")
                for image in j.driver.find_elements(By.CSS_SELECTOR, "li[data-photo] img")),
            "the grid loads the thumbnails, not the photos")
    new_photo = plant_photos(j)[0].get_attribute("data-photo")
    j.check("Cover" in plant_photos(j)[0].text, "the newest photo stands for the plant until a cover is chosen")
    plant_photos(j)[1].find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Set as cover')]").click()
    j.wait(lambda d: "Cover" in plant_photos(j)[1].text)
    plant_photos(j)[0].find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Set as cover')]").click()
    j.wait(lambda d: "Cover" in plant_photos(j)[0].text)
    j.check(plant_photos(j)[0].get_attribute("data-photo") == new_photo, "the added photo is the cover")

    nickname = j.driver.find_element(By.ID, "edit-nickname")
    nickname.clear()
    nickname.send_keys("Browser test plant Mk II")
    room = j.driver.find_element(By.ID, "edit-room")
    room.clear()
    room.send_keys("Balcony")
    j.driver.find_element(By.ID, "edit-notes").send_keys("Turn it a quarter every week.")
    j.driver.find_element(By.XPATH, "//button[normalize-space()='Save changes']").click()
    j.wait(EC.title_contains("Browser test plant Mk II"))
    j.check("Balcony" in j.driver.find_element(By.TAG_NAME, "h1").find_element(By.XPATH, "following-sibling::p").text,
            "the new room is shown under the name")

    # The watering stays overdue for the Care page; another task is done and another snoozed here.
    def other_tasks():
        return [t for t in j.driver.find_elements(By.CSS_SELECTOR, "li[data-task]")
                if not t.get_attribute("data-task").endswith("-water")]
    log_before = len(j.driver.find_elements(By.CSS_SELECTOR, "#care-title ~ ul.events li"))
    other_tasks()[0].find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Done')]").click()
    j.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#care-title ~ ul.events li")) == log_before + 1)
    j.check(j.driver.title == "Browser test plant Mk II · PlantGuide", "Done comes back to the plant's page")
    snoozable = [t for t in other_tasks() if t.find_elements(By.CSS_SELECTOR, "select[name=days]")]
    j.check(snoozable, "a task other than watering can be snoozed")
    task = snoozable[-1]
    task_id = task.get_attribute("data-task")
    Select(task.find_element(By.CSS_SELECTOR, "select[name=days]")).select_by_value("3")
    task.find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Snooze')]").click()
    # The same page comes back: wait for the old one to go before reading the new date.
    j.wait(EC.staleness_of(task))
    j.wait(lambda d: "Browser test plant Mk II" in d.title)
    due = j.driver.find_element(By.CSS_SELECTOR, f"li[data-task='{task_id}'] time").get_attribute("datetime")
    expected = time.strftime("%Y-%m-%d", time.localtime(time.time() + 3 * 86400))
    j.check(due.startswith(expected), f"snoozing {task_id} for 3 days moves it to {expected} (shows {due})")
    j.screenshot("collection-plant")

    plant_path = "/" + j.driver.current_url.split("/", 3)[3]
    j.plant_path = plant_path
    j.open(plant_path + "/remove")
    j.check("This cannot be undone" in j.driver.page_source, "removing a plant asks first")
    j.screenshot("collection-remove")
    j.driver.find_element(By.LINK_TEXT, "Keep it").click()
    j.wait(EC.title_contains("Browser test plant Mk II"))


def diagnose_journey(j, photo):
    """From the saved plant's page: "Something wrong?", a photo of a leaf, the diagnosis with the plant's care facts;
    a reload reads the kept answer."""
    j.open(j.plant_path)
    j.driver.find_element(By.LINK_TEXT, "Something wrong?").click()
    j.wait(EC.title_contains("Diagnose"))
    j.check("What’s wrong with" in j.driver.find_element(By.TAG_NAME, "h1").text, "the form names the plant")
    j.screenshot("diagnose-form")
    j.driver.find_element(By.ID, "diagnose-camera").send_keys(str(photo))
    Select(j.driver.find_element(By.ID, "diagnose-organ")).select_by_value("leaf")
    j.driver.find_element(By.XPATH, "//button[normalize-space()='Diagnose']").click()
    j.wait(EC.title_contains("Diagnosis"), timeout=60)
    page = j.driver.page_source
    j.check("Grey mould" in page and "EPPO BOTRCI" in page, "the best candidate is named with its EPPO code")
    j.check("not in Pl@ntNet’s disease list" in page, "a code the list lacks is marked")
    j.check("Things to check about" in page, "the plant's care facts follow the answer")
    j.check("/diagnose/results?" in j.driver.current_url, "the answer has its own address")
    j.check(all_images_loaded(j, "ul.references img"), "Pl@ntNet's photos of the candidates load")
    j.screenshot("diagnose-results")
    j.driver.refresh()
    j.wait(EC.title_contains("Diagnosis"))
    j.check("Grey mould" in j.driver.page_source, "a reload reads the kept answer (the route tests count what is sent)")
    # Keep it in the plant's history: back on the plant's page, with the note and the photo sent.
    j.driver.find_element(By.ID, "keep-note").send_keys("Brown edges after the cold week")
    keep = j.driver.find_element(By.XPATH, "//button[normalize-space()='Keep in the plant’s history']")
    keep.click()
    j.wait(EC.staleness_of(keep))
    j.wait(EC.presence_of_element_located((By.ID, "health")))
    j.check(j.driver.current_url.endswith("#health"), "keeping it goes to the plant page's Health part")
    health = j.driver.find_element(By.CSS_SELECTOR, "ul.health").text
    j.check("Diagnosis: Grey mould (BOTRCI) 62 %" in health, "the kept diagnosis is in the plant's history")
    j.check("Brown edges after the cold week" in health, "with its note")
    j.driver.execute_script("document.querySelector('ul.health').scrollIntoView()")
    try:
        j.wait(lambda _: all_images_loaded(j, "ul.health img"), timeout=15)
    except TimeoutException:
        pass
    j.check(all_images_loaded(j, "ul.health img"), "and the photo sent")
    j.screenshot("plant-health")


def collection_and_care(j, status, identified, binary, home):
    if not status.get("collection"):
        j.open("/collection")
        j.check("not available yet" in j.driver.page_source, "collection says it is not available yet")
        j.screenshot("collection-unavailable")
    elif identified:
        j.driver.find_element(By.ID, "nickname").send_keys("Browser test plant")
        j.driver.find_element(By.ID, "room").send_keys("Kitchen")
        j.driver.find_element(By.XPATH, "//button[normalize-space()='This is my plant']").click()
        j.wait(EC.title_contains("Browser test plant"))
        j.check("Identified as" in j.driver.page_source, "the plant page lists its identification history")
        backdate_watering(j, binary, home)
        j.driver.refresh()
        j.check("Watered" in j.driver.page_source, "the care log shows the watering")
        plant_page(j)
        j.open("/collection")
        j.check("Browser test plant" in j.driver.page_source, "the saved plant is in the collection")
        j.check(all_images_loaded(j, ".grid img"), "the collection shows the plant's cover")
        j.screenshot("collection")
        is_this_my_plant(j, binary)
    if not status.get("care"):
        j.open("/care")
        j.check("not available yet" in j.driver.page_source, "care says it is not available yet")
        j.screenshot("care-unavailable")
    else:
        j.open("/care")
        j.screenshot("care")
        buttons = j.driver.find_elements(By.XPATH, "//button[starts-with(normalize-space(), 'Mark done')]")
        j.check(not identified or buttons, "the overdue watering is listed with a Mark done button")
        if buttons:
            before = len(buttons)
            buttons[0].click()
            # The page is still titled Care before the post answers: wait for the clicked button's page to go.
            j.wait(EC.staleness_of(buttons[0]))
            j.wait(EC.title_contains("Care"))
            after = len(j.driver.find_elements(By.XPATH, "//button[starts-with(normalize-space(), 'Mark done')]"))
            j.check(after == before - 1, f"mark done removes the task ({before} → {after})")
            j.screenshot("care-done")
    if identified and status.get("care"):
        soil_check(j)
    j.open("/settings")
    # Every identification is counted in the statistics, in a table with a caption and headers.
    captions = [c.text for c in j.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby='statistics'] caption")]
    j.check(not identified or any(c.startswith("Time per stage over") for c in captions),
            f"Settings shows the identification statistics: {captions}")
    j.screenshot("settings")
    # A calendar subscription address for the phone's calendar: made here, fetched without the browser's cookies.
    j.driver.find_element(By.XPATH, "//button[normalize-space()='Make a calendar address']").click()
    j.wait(EC.presence_of_element_located((By.ID, "feed-address")))
    address = j.driver.find_element(By.ID, "feed-address").get_attribute("value")
    j.check(re.search(r"/care/feed/[0-9a-f]{64}\.ics$", address), f"a secret calendar address: {address}")
    with urllib.request.urlopen(address) as feed:
        text = feed.read().decode()
        j.check(feed.headers.get("Content-Type", "").startswith("text/calendar"), "the address serves a calendar")
    j.check(text.startswith("BEGIN:VCALENDAR") and (not identified or "BEGIN:VEVENT" in text),
            "the calendar lists the care tasks")
    j.screenshot("settings-calendar")


def soil_check(j):
    """Back on the plant's page: undo the watering just marked done (the 60-day-old one is the last again, so watering
    is overdue), then say the soil is still wet: the watering moves to a later day and the page says why."""
    j.open(j.plant_path)

    def water():
        return j.driver.find_element(By.CSS_SELECTOR, "li[data-task$='-water']")

    def log_entries():
        return len(j.driver.find_elements(By.CSS_SELECTOR, "#care-title ~ ul.events li"))

    before = log_entries()
    undo = j.driver.find_element(By.XPATH, "//button[normalize-space()='Undo the last entry']")
    undo.click()
    j.wait(EC.staleness_of(undo))
    j.wait(lambda d: "Browser test plant Mk II" in d.title)
    j.check(log_entries() == before - 1, f"undo removes the last care entry ({before} → {log_entries()})")
    j.check("overdue" in water().text, "with the last watering undone, watering is overdue again")
    old = water()
    old.find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Still wet')]").click()
    j.wait(EC.staleness_of(old))
    j.wait(lambda d: "Browser test plant Mk II" in d.title)
    due = water().find_element(By.CSS_SELECTOR, "time").get_attribute("datetime")[:10]
    today = time.strftime("%Y-%m-%d", time.localtime())
    j.check(due > today, f"soil still wet moves the watering past today ({due})")
    j.check("overdue" not in water().text, "the watering is no longer overdue")
    why = water().find_element(By.CSS_SELECTOR, ".why").text
    j.check("the soil was still wet when due once" in why and "the guide for" in why, f"the page says why: {why!r}")
    j.check("Checked the soil: still wet" in j.driver.page_source, "the care log shows the check")
    j.accessible("plant page after a soil check")
    j.screenshot("plant-soil-check")


class ReminderReceiver(http.server.BaseHTTPRequestHandler):
    """Stands for an ntfy server: keeps each POST's headers and body."""
    received = []

    def do_POST(self):  # noqa: N802 - the handler's name is http.server's
        length = int(self.headers.get("Content-Length", "0"))
        ReminderReceiver.received.append((dict(self.headers), self.rfile.read(length).decode("utf-8")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


def reminders_journey(j):
    """Settings: add an ntfy reminder with an access token, send it a test (it arrives, with the token), see the token and
    the topic never shown, and remove it."""
    receiver = http.server.HTTPServer(("127.0.0.1", 0), ReminderReceiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        topic = f"http://127.0.0.1:{receiver.server_address[1]}/plants-browser-7f3a"
        j.open("/settings")
        j.check("Care reminders" in j.driver.page_source and "No reminders yet." in j.driver.page_source,
                "Settings offers care reminders")
        j.driver.find_element(By.ID, "reminder-url").send_keys(topic)
        j.driver.find_element(By.ID, "reminder-token").send_keys("tk_browser_secret")
        add = j.driver.find_element(By.XPATH, "//button[normalize-space()='Add the reminder']")
        add.click()
        j.wait(EC.staleness_of(add))
        j.wait(lambda d: "reminders=added" in d.current_url)
        page = j.driver.page_source
        j.check("at 08:00" in page and "(access token set)" in page, "the new reminder is listed with its time")
        j.check("tk_browser_secret" not in page and "7f3a" not in page, "neither the token nor the whole topic is shown")
        j.accessible("settings with a reminder")
        test = j.driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Send a test')]")
        test.click()
        j.wait(EC.staleness_of(test))
        j.wait(lambda d: "reminders=tested" in d.current_url)
        j.check("Test message sent" in j.driver.page_source, "the page says the test was sent")
        headers, body = ReminderReceiver.received[-1] if ReminderReceiver.received else ({}, "")
        j.check(headers.get("Authorization") == "Bearer tk_browser_secret" and "daily care reminders" in body,
                f"the test message arrived with the token ({len(ReminderReceiver.received)} received)")
        j.screenshot("settings-reminders")
        remove = j.driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Remove')]")
        remove.click()
        j.wait(EC.staleness_of(remove))
        j.check("No reminders yet." in j.driver.page_source, "the reminder is removed")
    finally:
        receiver.shutdown()


def push_journey(j):
    """Settings: this browser's push subscription is handed to the server (as the page's script does once a push
    service answers; headless Chromium has none, so the journey makes the subscription's keys itself), listed as
    "Browser", and its test message goes to a push service on 127.0.0.1, encrypted (decrypted here by http_ece). The
    service worker, given that message through DevTools, shows it as a notification with "Done" and "Tomorrow"."""
    sys.path.insert(0, str(HERE.parent / "Reminders"))
    import http_ece
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from webpush_check import PushService, b64url

    service = PushService()
    try:
        j.open("/settings")
        block = j.driver.find_element(By.CSS_SELECTOR, "[data-push-subscribe]")
        j.check(block.is_displayed(), "Settings offers reminders in this browser (it has the Push API)")
        browser_key = ec.generate_private_key(ec.SECP256R1())
        public = browser_key.public_key().public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint)
        auth = os.urandom(16)
        subscription = {"endpoint": service.url("/wpush/browser-5d2c"), "expirationTime": None,
                        "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}
        j.driver.set_script_timeout(30)
        status = j.driver.execute_async_script("""
            var done = arguments[arguments.length - 1], block = document.querySelector("[data-push-subscribe]");
            var request = new XMLHttpRequest();
            request.open("POST", "/settings/reminders/push");
            request.setRequestHeader("X-CSRF-Token", block.querySelector("input[name=_csrf]").value);
            request.setRequestHeader("Content-Type", "application/json");
            request.addEventListener("load", function () { done(request.status); });
            request.send(JSON.stringify({ subscription: arguments[0], time: "07:45" }));
            """, subscription)
        j.check(status == 201, f"the server takes the browser's subscription (HTTP {status})")
        j.open("/settings?reminders=added#reminders")
        page = j.driver.page_source
        j.check("<strong>Browser</strong>" in page and "at 07:45" in page, "the browser is listed with its time")
        j.check(b64url(auth) not in page and "browser-5d2c" not in page, "neither its keys nor its endpoint are shown")
        test = j.driver.find_element(By.XPATH, "//li[.//strong[.='Browser']]//button[starts-with(normalize-space(), 'Send a test')]")
        test.click()
        j.wait(EC.staleness_of(test))
        j.wait(lambda d: "reminders=tested" in d.current_url)
        j.check(len(service.requests) == 1, f"the test went to the push service ({len(service.requests)} requests)")
        request = service.requests[-1]
        j.check(request["headers"].get("Authorization", "").startswith("vapid t="), "it is signed (VAPID)")
        message = json.loads(http_ece.decrypt(request["body"], private_key=browser_key, auth_secret=auth,
                                              version="aes128gcm"))
        j.check(message.get("title") == "PlantGuide: test message", f"it decrypts to the test message: {message}")

        # The service worker shows what arrives (DevTools delivers the decrypted message as a push service would).
        origin = j.base.rstrip("/")
        j.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
        j.driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            navigator.serviceWorker.register("/sw.js").then(function () { return navigator.serviceWorker.ready; })
              .then(function () { done(true); }).catch(function () { done(false); });
            """)
        j.driver.execute_cdp_cmd("ServiceWorker.enable", {})

        def deliver():
            # The worker's registration id is not exposed without CDP events, and it grows with every registration the
            # browser has made in earlier journeys: offer the message to the first ids (an unknown one is refused).
            for registration in range(32):
                try:
                    j.driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage", {
                        "origin": origin, "registrationId": str(registration),
                        "data": json.dumps(dict(message, actions={"done": "token-1", "tomorrow": "token-2"}))})
                except WebDriverException:
                    pass

        deliver()

        def shown(driver):
            notes = driver.execute_async_script("""
                var done = arguments[arguments.length - 1];
                navigator.serviceWorker.ready.then(function (r) { return r.getNotifications(); })
                  .then(function (list) { done(list.map(function (n) {
                    return [n.title, n.body, n.data && n.data.url, (n.actions || []).map(function (a) { return a.title; })];
                  })); })
                  .catch(function () { done([]); });
                """)
            if not notes:
                deliver()  # a worker still starting may have missed the first delivery
            return notes or False
        notes = j.wait(shown, timeout=40)
        j.check(notes[0][0] == "PlantGuide: test message" and "reach you here" in notes[0][1]
                and notes[0][2].endswith("/care"), f"the service worker shows the notification: {notes}")
        j.check(notes[0][3] == ["Done", "Tomorrow"], f"with its two buttons: {notes[0][3]}")
        remove = j.driver.find_element(By.XPATH, "//li[.//strong[.='Browser']]//button[starts-with(normalize-space(), 'Remove')]")
        remove.click()
        j.wait(EC.staleness_of(remove))
        j.check("No reminders yet." in j.driver.page_source, "the browser's reminders are removed")
    finally:
        service.server.shutdown()


def recheck_journey(j):
    """The plant saved from the device's unsure answer waited for a Pl@ntNet re-check. Sent from Settings (or by the
    server itself), Pl@ntNet's other species is offered on the plant's page, and taking it changes the plant."""
    j.open("/settings")
    j.check("Re-check queue" in j.driver.page_source, "Settings shows the re-check queue")
    send = j.driver.find_element(By.XPATH, "//button[normalize-space()='Send now']")
    send.click()
    j.wait(EC.staleness_of(send))
    j.wait(EC.presence_of_element_located((By.ID, "recheck")))
    j.check("Sent " in j.driver.find_element(By.CSS_SELECTOR, "#recheck ~ .notice, section[aria-labelledby=recheck] .notice").text,
            "Send now says what it sent")
    j.screenshot("settings-recheck")
    j.open("/collection")
    j.driver.find_element(By.XPATH, "//a[contains(., 'Browser test plant Mk II')]").click()
    j.wait(EC.title_contains("Browser test plant Mk II"))
    flags = j.driver.find_elements(By.XPATH, "//section[contains(@class, 'notice')][.//strong[starts-with(., 'Pl@ntNet thinks this is')]]")
    j.check(len(flags) == 1, "the plant's page offers Pl@ntNet's species")
    j.check("Pl@ntNet re-check" in j.driver.page_source, "the re-check's answer is in the plant's history")
    j.screenshot("collection-plant-suggestion")
    change = j.driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Change to')]")
    species = change.text.replace("Change to ", "", 1)
    change.click()
    j.wait(EC.staleness_of(change))
    j.wait(EC.title_contains("Browser test plant Mk II"))
    j.check("Pl@ntNet thinks" not in j.driver.page_source, "a settled suggestion is not offered again")
    shown = j.driver.find_element(By.CSS_SELECTOR, "h1 + p .sci").text
    j.check(shown == species, f"the plant takes the accepted species ({shown!r}, expected {species!r})")


def close(driver, server):
    """Ends a journey's browser and the server it started (either may not have started)."""
    if driver:
        driver.quit()
    if server:
        server.terminate()
        server.wait(timeout=15)


def login_journey(binary, shots, stub_url, photo):
    """A server with two accounts: every page asks for the log-in (name and password) first; a wrong password is
    refused. Then, logged in as the owner:
    a Pl@ntNet key saved in Settings identifies at once (no restart), and the calendar's secret address is read
    without the log-in."""
    home = Path(tempfile.mkdtemp(prefix="plantguide-browser-login-"))
    server = None
    driver = None
    checks = 0
    try:
        for name, password in [("alice", "a long test passphrase"), ("bob", "bob's own passphrase")]:
            subprocess.run([binary, "user", "add", name], input=password + "\n", text=True,
                           env=dict(os.environ, PLANTGUIDE_HOME=str(home)), check=True, capture_output=True)
        server, base = start([binary, "serve", "--port", "0"], home, {"PLANTGUIDE_PLANTNET_URL": stub_url},
                             r"(http://127\.0\.0\.1:\d+/)", "server.log")
        driver = make_driver()
        j = Journey(driver, base, shots)
        j.open("/browse")
        j.wait(EC.title_contains("Log in"))
        j.check("next=%2Fbrowse" in driver.current_url, "the log-in remembers where the user was going")
        j.screenshot("login")
        driver.find_element(By.ID, "user").send_keys("alice")
        driver.find_element(By.ID, "password").send_keys("wrong password")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        j.wait(lambda d: "That user name or password is not right" in d.page_source)
        driver.find_element(By.ID, "user").clear()
        driver.find_element(By.ID, "user").send_keys("alice")
        driver.find_element(By.ID, "password").send_keys("a long test passphrase")
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        j.wait(EC.title_contains("Browse"))
        j.check("Log out" in driver.page_source, "after logging in the pages open, with a way to log out")
        j.check("Signed in as alice" in driver.page_source, "the header names the account logged in")
        # The owner manages accounts in Settings: add a member, then remove it again.
        j.open("/settings/users")
        j.wait(EC.title_contains("Users"))
        driver.find_element(By.ID, "name").send_keys("carol")
        driver.find_element(By.ID, "password").send_keys("carol's passphrase")
        driver.find_element(By.XPATH, "//button[normalize-space()='Add account']").click()
        j.wait(lambda d: "Added carol as member." in d.page_source)
        j.screenshot("settings-users")
        driver.find_element(By.XPATH, "//button[normalize-space()='Remove carol']").click()
        j.wait(lambda d: "Removed carol" in d.page_source)
        j.check("Remove carol" not in driver.page_source, "a removed account leaves the list")
        # No model and no key: identification is not available, until a key is saved in Settings.
        j.open("/identify")
        j.check("cannot identify plants yet" in driver.page_source, "without a model or key, identify says so")
        j.check("Paste a free Pl@ntNet API key" in driver.page_source, "and offers a key in its place")
        j.open("/settings")
        driver.find_element(By.ID, "apiKey").send_keys("stub-key")
        driver.find_element(By.XPATH, "//button[normalize-space()='Save key']").click()
        j.wait(lambda d: "saved and is used from now on" in d.page_source)
        j.screenshot("settings-key-saved")
        j.open("/identify")
        driver.find_element(By.ID, "library").send_keys(str(photo))
        driver.find_element(By.CSS_SELECTOR, "form[data-identify] button[type=submit]").click()
        j.wait(EC.title_contains("Results"), timeout=120)
        j.check("Source: Pl@ntNet" in driver.page_source, "the key saved in Settings is used without a restart")
        # The calendar at its secret address, fetched without the log-in's cookie.
        j.open("/settings")
        driver.find_element(By.XPATH, "//button[normalize-space()='Make a calendar address']").click()
        address = j.wait(EC.presence_of_element_located((By.ID, "feed-address"))).get_attribute("value")
        with urllib.request.urlopen(address) as feed:
            j.check(feed.read().decode().startswith("BEGIN:VCALENDAR"), "the calendar address works while log-in is required")
        try:
            urllib.request.urlopen(address.replace("/care/feed/", "/care/feed/0"))
            j.check(False, "a wrong calendar address is refused")
        except urllib.error.HTTPError as error:
            j.check(error.code == 404, f"a wrong calendar address is not found ({error.code})")
        checks = j.checks
    finally:
        close(driver, server)
        shutil.rmtree(home, ignore_errors=True)
    return checks


class SlowRangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves the files of `folder` slowly (`rate` bytes a second), honouring `Range: bytes=N-`, as a model mirror."""
    folder = None
    rate = 30_000

    def do_GET(self):
        path = self.folder / self.path.split("?")[0].lstrip("/")
        if not path.is_file():
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = path.read_bytes()
        match = re.match(r"bytes=(\d+)-", self.headers.get("Range") or "")
        start = int(match.group(1)) if match else 0
        self.send_response(206 if match else 200)
        if match:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(data) - start))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        for offset in range(start, len(data), 8192):
            try:
                self.wfile.write(data[offset:offset + 8192])
            except OSError:
                return
            time.sleep(8192 / self.rate)

    def log_message(self, *args):
        pass


def first_run_journey(binary, shots, photo):
    """A fresh server without a model or key: Identify offers both; Settings downloads ResNet18 from a (slow, loopback)
    mirror with live progress that survives a page reload; once whole and checked the model is listed and identifies
    on the device."""
    home = Path(tempfile.mkdtemp(prefix="plantguide-browser-first-run-"))
    mirror = Path(tempfile.mkdtemp(prefix="plantguide-mirror-"))
    shutil.copy(HERE.parent / "PlantClassifierTests" / "Fixtures" / "tiny-resnet18.pth", mirror / "resnet18_weights_best_acc.tar")
    handler = type("Mirror", (SlowRangeHandler,), {"folder": mirror})
    files = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=files.serve_forever, daemon=True).start()
    server = None
    driver = None
    checks = 0
    try:
        server, base = start([binary, "serve", "--port", "0"], home, {
            "PLANTGUIDE_MODEL_URL": f"http://127.0.0.1:{files.server_address[1]}/",
            "PLANTGUIDE_ZENODO_URL": "http://127.0.0.1:9/",
        }, r"(http://127\.0\.0\.1:\d+/)", "server.log")
        driver = make_driver()
        j = Journey(driver, base, shots)
        j.open("/identify")
        j.check("cannot identify plants yet" in driver.page_source, "a fresh server says it cannot identify yet")
        j.check("Download the on-device model (ResNet50)" in driver.page_source, "and offers the model")
        j.check("Paste a free Pl@ntNet API key" in driver.page_source, "and a key")
        j.screenshot("identify-first-run")
        j.open("/settings")
        driver.find_element(By.XPATH, "//button[normalize-space()='Download ResNet18']").click()
        text = j.wait(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-model-install] [data-install-text]")))
        j.check(driver.find_elements(By.CSS_SELECTOR, "[data-model-install] progress"), "a progress bar while downloading")
        j.wait(lambda d: "MiB (" in d.find_element(By.CSS_SELECTOR, "[data-install-text]").text)
        first = driver.find_element(By.CSS_SELECTOR, "[data-install-text]").text
        j.check(first.startswith("Downloading ResNet18:"), f"the progress says what and how much: {first!r}")
        j.wait(lambda d: d.find_element(By.CSS_SELECTOR, "[data-install-text]").text != first, timeout=10)
        j.element_screenshot("settings-model-downloading", "[data-model-install]")
        driver.refresh()
        j.check(driver.find_elements(By.CSS_SELECTOR, "[data-model-install] progress"), "the progress is shown again after a reload")
        j.wait(lambda d: "Installed and in use" in d.page_source, timeout=90)
        j.check("resnet18-plantnet300k.pgmodel" in driver.page_source, "the installed model is listed")
        j.screenshot("settings-model-installed")
        # A checkpoint from this computer: uploaded with progress, imported, and the page reloads with it in use.
        form = driver.find_element(By.CSS_SELECTOR, "form[data-model-upload]")
        j.check(form.is_displayed(), "the upload form is shown where the script runs")
        driver.find_element(By.ID, "checkpoint").send_keys(str(HERE.parent / "PlantClassifierTests" / "Fixtures" / "tiny-resnet18.pth"))
        driver.find_element(By.XPATH, "//button[normalize-space()='Upload and install']").click()
        j.wait(EC.staleness_of(form), timeout=60)
        j.check("resnet18-plantnet300k.pgmodel" in driver.page_source, "the uploaded model is in use")
        j.check("was not installed" not in driver.page_source, "the upload was accepted")
        j.open("/identify")
        identify(j, photo, "on-device")
        j.check("Source: on this device" in driver.page_source, "the downloaded model identifies on the device")
        checks = j.checks
    finally:
        close(driver, server)
        files.shutdown()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(mirror, ignore_errors=True)
    return checks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--screenshots", default="artifacts/screenshots")
    parser.add_argument("--photo", default=str(HERE / "Fixtures" / "leaf.jpg"))
    args = parser.parse_args()
    shots = Path(args.screenshots)
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="plantguide-browser-"))
    processes = []
    driver = None
    try:
        prepare_home(args.binary, home)
        stub, stub_url = start([args.binary, "dev", "plantnet-stub", "--port", "0"], home, {},
                               r"(http://127\.0\.0\.1:\d+)", "stub.log")
        processes.append(stub)
        server, base = start([args.binary, "serve", "--port", "0"], home,
                             {"PLANTGUIDE_PLANTNET_URL": stub_url, "PLANTNET_API_KEY": "stub-key",
                              "PLANTGUIDE_ALLOW_LOCAL_TARGETS": "1"},
                             r"(http://127\.0\.0\.1:\d+/)", "server.log")
        processes.append(server)
        driver = make_driver()
        status = json.load(urllib.request.urlopen(base + "api/status"))
        journey = Journey(driver, base, shots)
        home_page(journey)
        browse_and_filter(journey, status)
        browse_pages(journey)
        identified = identify_journey(journey, status, Path(args.photo).resolve())
        collection_and_care(journey, status, identified, args.binary, home)
        if identified and status.get("collection") and status.get("identification"):
            recheck_journey(journey)
        if status.get("collection"):
            reminders_journey(journey)
            push_journey(journey)
        if getattr(journey, "plant_path", None):
            diagnose_journey(journey, Path(args.photo).resolve())
        journey.checks += login_journey(args.binary, shots, stub_url, Path(args.photo).resolve())
        journey.checks += first_run_journey(args.binary, shots, Path(args.photo).resolve())
        print(f"browser journeys: {journey.checks} checks passed ({journey.axe_pages} page views clean under axe-core); "
              f"screenshots in {shots}/")
    except Exception as error:  # noqa: BLE001 - report any failure with the server log
        print(f"browser journeys FAILED: {error}", file=sys.stderr)
        traceback.print_exc()
        if driver:
            driver.save_screenshot(str(shots / "failure.png"))
        print((home / "server.log").read_text()[-3000:], file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        for process in processes:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        if len(processes) == 2 and processes[1].returncode != 0:
            print(f"browser journeys FAILED: the server did not shut down cleanly on SIGTERM "
                  f"(exit {processes[1].returncode})", file=sys.stderr)
            return 1
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
