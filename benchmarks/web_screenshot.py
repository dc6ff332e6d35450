"""The web table's screenshot in docs/ (docs/images/web-table.png): headless Chromium plays
a few moves of a heads-up hand against the pretrained agents and photographs the page.

    python benchmarks/web_screenshot.py [--out docs/images/web-table.png] [--seed 4]
    python benchmarks/web_screenshot.py --hands 3 --out docs/images/web-table-why.png   # after 3 hands:
        # the hand counter and the why of the last result (each hand: bet 1, hit once, stand)

Needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver) and
selenium (the dev extra).
"""

from __future__ import annotations

import argparse
import shutil
import threading


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/images/web-table.png")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--moves", nargs="*", default=["BET_3", "HIT_DOWN"], help="your moves before the picture")
    ap.add_argument(
        "--hands", type=int, default=0, help="play this many whole hands first (the picture: the last one's end)"
    )
    ap.add_argument("--url", default="/?players=2&seat=1&banker=0", help="the page and its table settings")
    args = ap.parse_args(argv)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    from werkzeug.serving import make_server

    from agents.web import create_app

    srv = make_server("127.0.0.1", 0, create_app(), threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or ""
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,620", "--hide-scrollbars"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        wait = WebDriverWait(drv, 30)
        drv.get(f"http://127.0.0.1:{srv.server_port}{args.url}&seed={args.seed}")
        ready = lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready"  # noqa: E731
        for hand in range(args.hands):
            for move in ("BET_1", "HIT_UP", "STAND"):
                wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button"))
                found = drv.find_elements(By.CSS_SELECTOR, f'#moves button[data-action="{move}"]')
                if found:
                    found[0].click()
                    wait.until(ready)
            wait.until(lambda d: d.find_elements(By.ID, "next-hand"))
            if hand < args.hands - 1:
                drv.find_element(By.ID, "next-hand").click()
                wait.until(ready)
        if args.hands:
            args.moves = []
        for move in args.moves:
            wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, f'#moves button[data-action="{move}"]'))).click()
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#moves button")))
        wait.until(ready)
        drv.save_screenshot(args.out)
        print(f"wrote {args.out}")
    finally:
        drv.quit()
        srv.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
