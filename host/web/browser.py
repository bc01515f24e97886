"""Headless Chromium driven through Selenium and chromedriver: what the page's tests
(tests/web) and benchmark (benchmarks/web_inference.py) open the site in."""

import shutil

BROWSER_INSTALL = "apt-get install -y chromium chromium-driver"
SELENIUM_INSTALL = "pip install -c constraints.txt selenium"


class BrowserMissing(RuntimeError):
    """Chromium, chromedriver or Selenium is not installed; the message says how to."""


def headless_chromium(page_load_timeout=60):
    """A Selenium WebDriver of headless Chromium (quit it when done); BrowserMissing with
    the install line when Chromium, chromedriver or Selenium is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        raise BrowserMissing("needs Chromium and chromedriver; install them with: "
                             + BROWSER_INSTALL)
    try:
        from selenium import webdriver
    except ImportError:
        raise BrowserMissing("needs Selenium; install it with: " + SELENIUM_INSTALL) from None
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu"):
        options.add_argument(arg)
    drv = webdriver.Chrome(options=options,
                           service=webdriver.ChromeService(executable_path=driver))
    drv.set_page_load_timeout(page_load_timeout)
    return drv
