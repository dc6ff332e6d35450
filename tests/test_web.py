"""The web table (``agents.web``): the game through the environment, never more than the
seat sees, clear errors for bad requests; and in a real browser (headless Chromium) a
whole hand with a stacked deck, its payout checked against the engine's."""

from __future__ import annotations

import json
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
    for i, move in enumerate(MOVES):
        assert r.json["move"] == i
        r = client.post("/api/act", json={"table": table, "action": move, "move": i})
        assert r.status_code == 200, r.json
    assert r.json["over"] and r.json["result"]["won"] == engine_payout() == -2
    assert r.json["score"] == -2 and any("stands" in line for line in r.json["log"])
    # why: 5 + 1 = 6 against the banker's 7 (banker:6 stands on it)
    assert r.json["view"]["why"] == ["you stood on 6, the banker on 7: the higher total wins — you lose 2 chips"]
    assert r.json["view"]["why"][0] in r.json["log"] and r.json["view"]["hand_no"] == 1
    r = client.post("/api/next", json={"table": table, "move": 3})
    assert r.status_code == 200 and r.json["episode"] == 2 and not r.json["over"]
    assert r.json["view"]["hand_no"] == 2 and r.json["view"]["header"].startswith("hand 2 · ")
    assert any(line.startswith("— hand 2: ") for line in r.json["log"])


def test_favicon_and_the_pretrained_pair_named_without_a_role(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.data[:8] == b"\x89PNG\r\n\x1a\n"
    r = client.post("/api/new", json={"players": 2, "seat": 1, "seed": 0})
    assert r.status_code == 200, r.json
    other = next(s for s in r.json["view"]["seats"] if not s["you"])
    assert other["name"] == "pretrained agent"


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
        ({"players": 2.9}, "players must be a whole number"),
        ({"seat": True}, "seat must be a whole number"),
        ({"seat": 5}, "seat must be 0..1"),
        ({"opponents": "genius:9"}, "unknown agent spec"),
        ({"rules": "poker"}, "poker"),
        ({"rules": 0}, "rules must be a preset"),
        ({"rules": "/etc/passwd"}, "rules must be a preset"),
        ({"rules": {"preset": "spanish", "bogus": 1}}, "unknown rule option"),
        ({"opponents": "quattro:5"}, "does not play a stakes game"),
        ({"rules": "quattro_e_mezzo", "opponents": "smart:6"}, "does not play quattro e mezzo"),
        ({"opponents": "ppo:/nonexistent.zip"}, "a request names no file"),
        ({"opponents": "table:/etc/passwd"}, "a request names no file"),
        ({"opponents": "rllib:/tmp"}, "a request names no file"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"seed": -1}, "seed must be 0..9223372036854775807"),
        ({"opponents": "x" * 10_000}, "opponents: each is an agent spec string"),
        ({"rules": "y" * 10_000}, "rules must be a preset"),
        ({"deck": "5o 5o", "opponents": "smart:6"}, "listed twice"),
        ({"players": 3, "opponents": "pretrained:punter"}, "no pretrained agents for this table"),
        ({"players": 3, "opponents": "pretrained:punter smart:6"}, "no pretrained agents for this table"),
    ],
)
def test_bad_table_settings_are_refused_with_what_is_allowed(client, body, message):
    r = client.post("/api/new", json=body)
    assert r.status_code == 400 and message in r.json["error"], r.json
    assert len(r.data) < 1200  # a value is quoted cut short, never echoed whole


def test_bad_moves_and_unknown_tables(client):
    table = client.post("/api/new", json=SETTINGS).json["table"]
    r = client.post("/api/act", json={"table": table, "action": "STAND", "move": 0})
    assert r.status_code == 400 and "not one of your legal actions now: BET_1" in r.json["error"]
    r = client.post("/api/act", json={"table": "nope", "action": "BET_1", "move": 0})
    assert r.status_code == 400 and "no such table" in r.json["error"]
    r = client.post("/api/next", json={"table": table, "move": 0})
    assert r.status_code == 400 and "still being played" in r.json["error"]
    assert client.get("/cards/spanish/7o.png").data.startswith(b"\x89PNG")
    assert client.get("/cards/spanish/back.png").status_code == 200
    assert client.get("/cards/tarot/7o.png").status_code == 404
    assert client.get("/cards/spanish/13o.png").status_code == 404


# Every class of bad request the security review listed (issue 45): (path, body bytes,
# content type, status, a piece of the message, the field it names).
BAD_REQUESTS = [
    ("/api/new", b"{bad json", "application/json", 400, "not valid JSON", None),
    ("/api/new", b"[1, 2]", "application/json", 400, "a JSON object, got list", None),
    ("/api/new", b'"spanish"', "application/json", 400, "a JSON object, got str", None),
    ("/api/new", b"3", "application/json", 400, "a JSON object, got int", None),
    ("/api/new", b'{"players": 1e400}', "application/json", 400, "players must be a whole number", "players"),
    ("/api/new", b'{"players": NaN}', "application/json", 400, "not valid JSON", None),
    ("/api/new", b'{"players": 2.9}', "application/json", 400, "players must be a whole number", "players"),
    ("/api/new", b'{"seat": true}', "application/json", 400, "seat must be a whole number", "seat"),
    ("/api/new", b'{"rules": 0}', "application/json", 400, "rules must be a preset", "rules"),
    ("/api/new", b'{"opponents": "quattro:5"}', "application/json", 400, "does not play a stakes game", "opponents"),
    ("/api/new", b'{"tabel": 1}', "application/json", 400, "unknown field 'tabel'", "tabel"),
    ("/api/new", b'{"players": 2}', "text/plain", 400, "Content-Type: application/json", None),
    ("/api/new", b"players=2", "application/x-www-form-urlencoded", 400, "Content-Type: application/json", None),
    ("/api/new", b'{"opponents": "' + b"x" * 1_000_000 + b'"}', "application/json", 413, "over 16 KB", None),
    ("/api/act", b'{"table": "nope", "action": "BET_1"}', "application/json", 400, "no such table", "table"),
    (
        "/api/act",
        b'{"table": 5, "action": "BET_1", "move": 0}',
        "application/json",
        400,
        "table must be the id",
        "table",
    ),
    (
        "/api/act",
        b'{"table": "t", "action": "BET_1", "move": 0, "x": 1}',
        "application/json",
        400,
        "unknown field",
        "x",
    ),
    ("/api/next", b"{}", "application/json", 400, "table must be the id", "table"),
    # a number the rules cannot hold: a 400 naming the option and its range, never an OverflowError
    ("/api/new", b'{"rules": {"limit": 1e308}}', "application/json", 400, "limit must be 0..15 points", "rules"),
    ("/api/new", b'{"rules": {"limit": 1e400}}', "application/json", 400, "limit must be 0..15 points", "rules"),
    ("/api/new", b'{"rules": {"min_stand": -1e400}}', "application/json", 400, "min_stand must be 0..15", "rules"),
    (
        "/api/new",
        b'{"rules": {"preset": "quattro_e_mezzo", "declare": [4.5, 1e308]}}',
        "application/json",
        400,
        "declare must be 0..15 points",
        "rules",
    ),
    (
        "/api/new",
        b'{"rules": {"preset": "quattro_e_mezzo", "bank_totals": [1e400]}}',
        "application/json",
        400,
        "bank_totals must be 0..15 points",
        "rules",
    ),
    (
        "/api/new",
        b'{"rules": {"preset": "quattro_e_mezzo", "wild_loses_ties_at": [1e308]}}',
        "application/json",
        400,
        "wild_loses_ties_at must be 0..15 points",
        "rules",
    ),
    (
        "/api/new",
        b'{"rules": {"bet_levels": [1, ' + b"9" * 400 + b"]}}",
        "application/json",
        400,
        "bet_levels must be at most",
        "rules",
    ),
]


@pytest.mark.parametrize(("path", "data", "ctype", "status", "message", "field"), BAD_REQUESTS)
def test_every_bad_request_is_refused_with_a_short_json_message(client, path, data, ctype, status, message, field):
    r = client.post(path, data=data, content_type=ctype)
    assert r.status_code == status and message in r.json["error"], r.json
    assert r.json["field"] == field and len(r.data) < 1200


def test_a_move_is_played_once_replays_and_stale_moves_are_refused(client):
    table = client.post("/api/new", json=SETTINGS).json["table"]
    assert client.post("/api/act", json={"table": table, "action": "BET_2", "move": 0}).status_code == 200
    r = client.post("/api/act", json={"table": table, "action": "BET_2", "move": 0})  # the same request again
    assert r.status_code == 400 and r.json["field"] == "move" and "current move 1" in r.json["error"]
    r = client.post("/api/act", json={"table": table, "action": "HIT_UP", "move": True})
    assert r.status_code == 400 and r.json["field"] == "move"
    r = client.post("/api/act", json={"table": table, "action": "HIT_UP"})
    assert r.status_code == 400 and r.json["field"] == "move"
    assert client.post("/api/act", json={"table": table, "action": "HIT_UP", "move": 1}).json["move"] == 2


def test_only_the_tables_own_page_can_drive_it(client):
    """Cross-origin requests (another site's page, a rebound DNS name, a frame) cannot create,
    drive or see a table; every answer carries the headers that keep it out of frames."""
    r = client.post("/api/new", json=SETTINGS)
    table = r.json["table"]
    for h in (r.headers, client.get("/").headers):
        assert h["X-Frame-Options"] == "DENY" and h["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in h["Content-Security-Policy"]
        assert "default-src 'self'" in h["Content-Security-Policy"]
    assert "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    evil = [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:9999"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ]
    for headers in evil:
        for path, body in [
            ("/api/new", SETTINGS),
            ("/api/act", {"table": table, "action": "BET_2", "move": 0}),
            ("/api/next", {"table": table, "move": 0}),
        ]:
            r = client.post(path, json=body, headers=headers)
            assert r.status_code == 403 and "cross-origin" in r.json["error"], (headers, path)
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", "10.0.0.1:8000"):  # DNS rebinding
        for r in (
            client.get("/", headers={"Host": host}),
            client.post("/api/new", json=SETTINGS, headers={"Host": host}),
        ):
            assert r.status_code == 403 and "is not this server's" in r.json["error"]
    assert client.get("/api/defaults", headers={"Host": "evil.example"}).status_code == 403
    # the same origin: allowed, and the table was not touched by any of the above
    r = client.post("/api/act", json={"table": table, "action": "BET_2", "move": 0},
                    headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})  # fmt: skip
    assert r.status_code == 200, r.json
    # another browser (no cookie, or another one) cannot drive it
    other = client.application.test_client()
    r = other.post("/api/act", json={"table": table, "action": "HIT_UP", "move": 1})
    assert r.status_code == 400 and "no such table" in r.json["error"]


def test_no_one_else_can_evict_a_live_table():
    """Tables are capped per browser (its own oldest goes) and overall: past the cap a new
    table is refused with 503 while the others are live; idle ones make room."""
    from agents.web import Server

    server = Server(max_tables=4, per_browser=2, idle_seconds=3600)
    app = create_app(server)
    me = app.test_client()
    mine, mine2 = (me.post("/api/new", json=SETTINGS).json["table"] for _ in range(2))
    codes = [app.test_client().post("/api/new", json=SETTINGS).status_code for _ in range(5)]
    assert codes == [200, 200, 503, 503, 503]  # others fill the cap, then are refused: mine stay
    assert me.post("/api/act", json={"table": mine, "action": "BET_2", "move": 0}).status_code == 200
    # a browser's own tables: its third replaces its first (its own, never another's)
    third = me.post("/api/new", json=SETTINGS)
    assert third.status_code == 200
    assert me.post("/api/act", json={"table": mine, "action": "HIT_UP", "move": 1}).status_code == 400
    assert me.post("/api/act", json={"table": mine2, "action": "BET_2", "move": 0}).status_code == 200
    server.idle_seconds = 0  # every table idle now: a newcomer may close the oldest idle one
    assert app.test_client().post("/api/new", json=SETTINGS).status_code == 200
    assert len(app.config["TABLES"]) == 4


def test_the_servers_seed_is_private_and_tables_deal_differently():
    from agents.web import Server

    app = create_app(Server(seed=1234, opponents=["banker:6"]))
    c = app.test_client()
    d = c.get("/api/defaults").json
    assert "seed" not in d and "1234" not in str(d) and d["opponents"] == ["banker:6"]
    first = [c.post("/api/new", json={}).json["view"] for _ in range(6)]
    assert len({str(v) for v in first}) > 1  # not the same hand at every table
    again = create_app(Server(seed=1234, opponents=["banker:6"])).test_client()
    assert [again.post("/api/new", json={}).json["view"] for _ in range(6)] == first  # the server's seed: reproducible


# The rule options a request may set are capped (a session of agent-only hands would be
# played inside one request): (options, the piece of the message, accepted at the cap too).
WEB_CAPS = [
    ({"hands_per_episode": 101}, "hands_per_episode must be at most 100"),
    ({"hands_per_episode": 27_000}, "hands_per_episode must be at most 100"),
    ({"starting_chips": 1001}, "starting_chips must be at most 1000"),
    ({"bet_levels": [1, 2, 5000]}, "bet_levels must be at most 1000"),
    ({"side_bets": True, "side_bet_stake": 1001}, "side_bet_stake must be at most 1000"),
    ({"bank_auction": True, "auction_bids": [1, 2000]}, "auction_bids must be at most 1000"),
    ({"preset": "quattro_e_mezzo", "target_score": 500, "play_to_target": True}, "target_score must be at most 100"),
]


@pytest.mark.parametrize(("rules", "message"), WEB_CAPS)
def test_a_request_cannot_ask_for_an_endless_session(client, rules, message):
    body = {"rules": rules, "players": 3, "opponents": "random"}
    r = client.post("/api/new", json=body)
    assert r.status_code == 400 and message in r.json["error"] and r.json["field"] == "rules", r.json
    # at the cap: a table
    name = next(k for k in rules if k not in ("preset", "side_bets", "bank_auction", "play_to_target"))
    cap = int(message.rsplit(" ", 1)[1])
    body["rules"] = {**rules, name: [1, cap] if isinstance(rules[name], list) else cap}
    r = client.post("/api/new", json=body)
    assert r.status_code == 200, r.json


def test_the_operators_own_rules_are_not_capped():
    from agents.web import Server

    # (300 hands: above the visitors' cap of 100, within what the engine's int16 chips hold)
    app = create_app(Server(rules={"preset": "spanish", "hands_per_episode": 300}, opponents=["banker:6"]))
    r = app.test_client().post("/api/new", json={"seed": 0})
    assert r.status_code == 200, r.json


def test_a_seat_out_of_chips_ends_its_session_at_once():
    # before: the agents played the rest of the 100 hands inside that one request
    rules = {"preset": "spanish", "starting_chips": 2, "hands_per_episode": 100}
    t = Table(rules=rules, players=5, seat=1, opponents=["banker:6", "threshold:5"], seed=2)
    while not t.over:
        legal = t.legal()
        t.act("BET_1" if "BET_1" in legal else "STAND" if "STAND" in legal else legal[0])
    assert t.ended and t.env.agents  # the environment's episode would go on without you
    assert not t.env.game.active(1) and t.env.game.hand_no < 5
    assert "out of chips" in t.log[-1] and t.legal() == []
    assert t.results[-1]["won"] == -2
    t.new_hand()
    assert not t.over and not t.ended and t.legal()


def test_the_agents_moves_in_one_request_are_bounded(monkeypatch):
    import agents.web as web

    monkeypatch.setattr(web, "MAX_AGENT_STEPS", 3)
    t = Table(players=6, seat=5, banker=0, opponents=["banker:6", "threshold:5"], seed=0)
    assert t.over and t.ended and "without you" in t.log[-1]


def test_results_are_trimmed(monkeypatch):
    import agents.web as web

    monkeypatch.setattr(web, "MAX_RESULTS", 3)
    t = Table(players=2, seat=1, opponents=["banker:6"], seed=0)
    for _ in range(8):
        while not t.over:
            t.act(t.legal()[0])
        t.new_hand()
    assert len(t.results) == 3 and t.episode == 9


def test_the_pretrained_pair_is_loaded_once():
    a, b = Table(seed=0), Table(seed=1)
    assert a.agents[0].punter.policy is b.agents[0].punter.policy  # one copy shared by every table
    rules = {"preset": "spanish", "max_splits": 0}
    a, b = Table(rules, seed=0), Table(rules, seed=1)
    assert a.agents[0].punter.draw_p is b.agents[0].punter.draw_p


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
    """The app served as ``siete-table`` serves it: waitress (a short idle timeout here)."""
    waitress = pytest.importorskip("waitress")
    srv = waitress.create_server(create_app(), host="127.0.0.1", port=0, threads=2, channel_timeout=5)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.effective_port}"
    srv.close()


def test_half_sent_requests_hold_no_thread(server):
    """Requests that never finish (a header, a body cut short) do not stop the server answering."""
    import socket
    import urllib.request

    port = int(server.rsplit(":", 1)[1])
    stuck = []
    for i in range(6):  # more than the server's 2 threads
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + (b"Content-Length: 100\r\n\r\n{" if i % 2 else b""))  # fmt: skip
        stuck.append(s)
    with urllib.request.urlopen(f"{server}/api/defaults", timeout=10) as r:
        assert r.status == 200 and json.loads(r.read())["players"] == 2
    for s in stuck:
        s.close()


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
    ({"players": 2}, {"pretrained agent"}),  # not "pretrained:banker": it plays both roles
    ({"players": 2, "rules": {"preset": "spanish", "max_splits": 0}}, {"pretrained agent"}),
    ({"players": 4}, {"pretrained agent"}),
    ({"players": 4, "rules": "italian"}, {"pretrained agent"}),
    ({"players": 4, "rules": "quattro_e_mezzo"}, {"pretrained agent"}),
])  # fmt: skip
def test_default_opponents_are_the_pretrained_agents_where_they_can_sit(client, body, specs):
    r = client.post("/api/new", json={"seat": 1, "seed": 0, **body})
    assert r.status_code == 200, r.json
    names = {s["name"] for s in r.json["view"]["seats"] if not s["you"]}
    assert names == specs
    assert ("heuristics sit in" in " ".join(r.json["log"])) == ("pretrained agent" not in specs)
