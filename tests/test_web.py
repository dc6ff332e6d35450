"""The web table (``agents.web``): the game through the environment, never more than the
seat sees, clear errors for bad requests; and in a real browser (headless Chromium) a
whole hand with a stacked deck, its payout checked against the engine's."""

from __future__ import annotations

import os
import shutil
import threading

import pytest

flask = pytest.importorskip("flask")

from agents.specs import make_agent  # noqa: E402
from agents.web import Table, create_app  # noqa: E402
from siete_env import raw_env  # noqa: E402

DECK = ["5o", "7c", "1b"]  # the punter's face-down 5, the banker's face-down 7, the punter's hit
MOVES = ["BET_2", "HIT_UP", "STAND"]
SETTINGS = {"players": 2, "seat": 1, "banker": 0, "opponents": "banker:6", "deck": " ".join(DECK), "seed": 0}


def engine_payout(deck=DECK, moves=MOVES, opponent="banker:6") -> int:
    """The punter's chips after ``moves`` in the engine itself, the banker played by ``opponent``."""
    e = raw_env(num_players=2, rules="spanish")
    e.reset(seed=0, options={"deck": deck, "banker": 0})
    banker = make_agent(opponent, e, seed=0)
    todo = list(moves)
    for agent in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
        elif e.seat_of(agent) == 0:
            e.step(banker(e.observe(agent)))
        else:
            e.step(e.action_id(todo.pop(0)))
    return e.game.chips[1]


@pytest.fixture
def client():
    return create_app().test_client()


def test_a_stacked_hand_through_the_api_pays_what_the_engine_pays(client):
    r = client.post("/api/new", json=SETTINGS)
    assert r.status_code == 200, r.json
    table = r.json["table"]
    assert [m["name"] for m in r.json["legal"]][:2] == ["BET_1", "BET_2"]
    me = next(s for s in r.json["view"]["seats"] if s["you"])
    assert me["hands"][0]["cards"][0] == {"id": "5o", "label": "5o", "name": "5 de oros", "face_down": True}
    banker = next(s for s in r.json["view"]["seats"] if s["role"] == "banker")
    assert banker["hands"][0]["cards"][0]["id"] is None and banker["name"] == "banker:6"  # a back
    for move in MOVES:
        r = client.post("/api/act", json={"table": table, "action": move})
        assert r.status_code == 200, r.json
    assert r.json["over"] and r.json["result"]["won"] == engine_payout() == -2
    assert r.json["score"] == -2 and any("stands" in line for line in r.json["log"])
    r = client.post("/api/next", json={"table": table})
    assert r.status_code == 200 and r.json["episode"] == 2 and not r.json["over"]


def test_the_page_never_shows_another_seats_face_down_card():
    """Two tables that differ only in the banker's face-down card: the same state, log included."""
    a = Table(players=2, seat=1, banker=0, opponents=["banker:6"], deck=["5o", "7c", "1b"], seed=0)
    b = Table(players=2, seat=1, banker=0, opponents=["banker:6"], deck=["5o", "6e", "1b"], seed=0)
    for t in (a, b):
        t.act("BET_2")
        t.act("HIT_UP")
    assert a.state() == b.state()
    assert "7c" not in str(a.state()) and "7 de copas" not in str(a.state())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": 13}, "players must be 2..12"),
        ({"players": "two"}, "players must be a whole number"),
        ({"seat": 5}, "seat must be 0..1"),
        ({"opponents": "genius:9"}, "unknown agent spec"),
        ({"rules": "poker"}, "poker"),
        ({"deck": "5o 5o", "opponents": "smart:6"}, "listed twice"),
        ({"players": 4, "opponents": "pretrained:punter"}, "pretrained agents play heads-up spanish"),
        ({"players": 4, "opponents": "pretrained:punter smart:6"}, "pretrained agents play heads-up spanish"),
    ],
)
def test_bad_table_settings_are_refused_with_what_is_allowed(client, body, message):
    r = client.post("/api/new", json=body)
    assert r.status_code == 400 and message in r.json["error"]


def test_bad_moves_and_unknown_tables(client):
    table = client.post("/api/new", json=SETTINGS).json["table"]
    r = client.post("/api/act", json={"table": table, "action": "STAND"})
    assert r.status_code == 400 and "not one of your legal actions now: BET_1" in r.json["error"]
    r = client.post("/api/act", json={"table": "nope", "action": "BET_1"})
    assert r.status_code == 400 and "no such table" in r.json["error"]
    r = client.post("/api/next", json={"table": table})
    assert r.status_code == 400 and "still being played" in r.json["error"]
    assert client.get("/cards/spanish/7o.png").data.startswith(b"\x89PNG")
    assert client.get("/cards/spanish/back.png").status_code == 200
    assert client.get("/cards/tarot/7o.png").status_code == 404
    assert client.get("/cards/spanish/13o.png").status_code == 404


def test_bad_command_line_is_refused_before_serving(capsys):
    from agents.web import main

    with pytest.raises(SystemExit):
        main(["--players", "3", "--seat", "7"])
    assert "seat must be 0..2" in capsys.readouterr().err


def _chromium() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture
def browser():
    found = _chromium()
    try:
        from selenium import webdriver
    except ImportError:
        found = None
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(
                "CI must run the browser test: Chromium, chromedriver and selenium are missing (make test installs them)"
            )
        pytest.skip("no Chromium / chromedriver / selenium: the browser test needs them (make test installs them)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = found[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(found[1]), options=opts)
    yield drv
    drv.quit()


@pytest.fixture
def server():
    from werkzeug.serving import make_server

    srv = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


def test_a_full_hand_in_a_real_browser(browser, server, tmp_path):
    """Headless Chromium plays a stacked hand through the page: the buttons, then the payout
    shown against the engine's; the page's screenshot is saved (docs/web.md shows one)."""
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 20)
    browser.get(f"{server}/?{urlencode(SETTINGS)}")
    for move in MOVES:
        button = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, f'#moves button[data-action="{move}"]')))
        button.click()
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")
    result = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#result[data-won]")))
    assert int(result.get_attribute("data-won")) == engine_payout() == -2
    assert "You lose 2 chips" in result.text
    assert browser.find_element(By.ID, "score").get_attribute("data-score") == "-2"
    shown = [img.get_attribute("data-card") for img in browser.find_elements(By.CSS_SELECTOR, ".seat img")]
    assert sorted(shown) == sorted(DECK)  # every card face-up at the end, drawn from the card faces
    assert all(img.get_attribute("naturalWidth") != "0" for img in browser.find_elements(By.CSS_SELECTOR, ".seat img"))
    browser.save_screenshot(str(tmp_path / "table.png"))
    if os.environ.get("SIETE_SCREENSHOT"):
        browser.save_screenshot(os.environ["SIETE_SCREENSHOT"])
    # the next hand, by the keyboard
    browser.find_element(By.TAG_NAME, "body").send_keys("\n")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '#moves button[data-action="BET_1"]'))


@pytest.mark.parametrize(("body", "specs"), [
    ({"players": 3}, {"smart:6", "bold:5.5"}),
    ({"players": 2, "rules": "quattro_e_mezzo"}, {"quattro:5"}),
    ({"players": 2}, {"pretrained:banker"}),
])  # fmt: skip
def test_default_opponents_are_the_pretrained_agents_where_they_can_sit(client, body, specs):
    r = client.post("/api/new", json={"seat": 1, "seed": 0, **body})
    assert r.status_code == 200, r.json
    names = {s["name"] for s in r.json["view"]["seats"] if not s["you"]}
    assert names == specs
    assert ("heuristics sit in" in " ".join(r.json["log"])) == ("pretrained:banker" not in specs)
