"""The viewer page in a real browser: headless Chromium opens a page of two known games at a wide and at
a narrow window, takes screenshots and dumps the page after its script ran.

The screenshots show the board square and filling the window (beside the move list on a wide window,
above it on a narrow one) and every coordinate label clear of the stones (a Little-Go game that ends
with stones on every edge line). The dumped page holds the move list, the players' names, captures and
scores, and the result the record gives, and marks Tic-Tac-Toe's winning line. The three browser runs
go at once, so the module takes a few seconds. A fourth browser is driven through the DevTools protocol
(over ``--remote-debugging-pipe``, so nothing but the standard library is needed): arrow keys, Home and
End, a swipe across the board and a click in the move list step through the game.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
from test_view import find_browser

from tictacgo.games import make_game
from tictacgo.protocol.viewer import ViewerGame, build_frames, page_html, read_page_data

pytestmark = pytest.mark.skipif(find_browser() is None, reason="no headless browser (chromium) is installed")

PASS = 25
# Black B5, White A5, Black A4 (takes A5), then Black fills the top and left edges, White the bottom and
# right ones, Black passing once it is done; both pass at the end. Black: 7 stones, 1 captured; White:
# 8 stones and komi 2.5, so White wins 10.5 to 7.
EDGES = [1, 0, 5, 20, 2, 21, 3, 22, 4, 23, 10, 24, 15, 9, PASS, 14, PASS, 19, PASS, PASS]
TTT_WIN = [0, 1, 4, 2, 8]  # X takes the diagonal 0 4 8
WIDE, NARROW = (1280, 800), (400, 800)
WOOD = (0xdb, 0xb0, 0x66)
SVG = "{http://www.w3.org/2000/svg}"


def _known_page() -> str:
    """The viewer page of the two known games: the Little-Go one with stones on the edges, then the
    Tic-Tac-Toe one."""
    games = [build_frames(ViewerGame("edges", make_game("littlego"), EDGES, ("Ann", "Bo"), "W+3.5")),
             build_frames(ViewerGame("line", make_game("tictactoe"), TTT_WIN, ("Cy", "Di")))]
    return page_html(games, "known games")


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """The page, its data, the two screenshots (RGB arrays) and the three dumped pages."""
    image = pytest.importorskip("PIL.Image", reason="reading the screenshots needs Pillow")
    folder = tmp_path_factory.mktemp("browser")
    html = _known_page()
    page = folder / "page.html"
    page.write_text(html)
    url = page.resolve().as_uri()
    runs = {"wide": (WIDE, f"#game=1&move={len(EDGES)}"), "narrow": (NARROW, f"#game=1&move={len(EDGES)}"),
            "ttt": (WIDE, f"#game=2&move={len(TTT_WIN)}")}
    started = {}
    for name, ((w, h), where) in runs.items():
        command = [find_browser(), "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={w},{h}",
                   f"--user-data-dir={folder / ('profile-' + name)}", f"--screenshot={folder / name}.png",
                   "--dump-dom", url + where]
        started[name] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dom, shots = {}, {}
    for name, process in started.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and 'data-check="ok"' in out, (name, err[-2000:], out[:300])
        dom[name] = out
        shots[name] = np.asarray(image.open(folder / f"{name}.png").convert("RGB")).astype(int)
    return {"data": read_page_data(html), "dom": dom, "shots": shots}


def _board_box(shot: np.ndarray) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the board's wood in a screenshot, in pixels, inclusive."""
    wood = np.all(np.abs(shot - np.array(WOOD)) <= 3, axis=2)
    ys, xs = np.nonzero(wood)
    assert len(xs), "no board in the screenshot"
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def test_the_board_is_square_and_fills_the_window_at_both_sizes(shown):
    sides = {}
    for name, (w, h) in (("wide", WIDE), ("narrow", NARROW)):
        shot = shown["shots"][name]
        assert shot.shape[:2] == (h, w)
        left, top, right, bottom = _board_box(shot)
        side = right - left + 1
        assert abs(side - (bottom - top + 1)) <= 2, (name, left, top, right, bottom)
        sides[name] = side
    # Wide: the window's height bounds the board, with room under it for the buttons.
    assert 0.75 * WIDE[1] <= sides["wide"] and _board_box(shown["shots"]["wide"])[3] + 45 < WIDE[1]
    # Narrow: the window's width bounds it.
    assert 0.85 * NARROW[0] <= sides["narrow"] <= NARROW[0]
    assert sides["wide"] > 1.5 * sides["narrow"]


def test_the_side_panel_is_beside_the_board_on_a_wide_window_and_under_it_on_a_narrow_one(shown):
    def white(region: np.ndarray) -> float:
        return float(np.all(region == 255, axis=2).mean()) if region.size else 0.0

    wide = shown["shots"]["wide"]
    left, top, right, bottom = _board_box(wide)
    assert white(wide[top:bottom, right + 10:]) > 0.2  # the players' boxes and the move list
    narrow = shown["shots"]["narrow"]
    left, top, right, bottom = _board_box(narrow)
    assert white(narrow[top:bottom, right + 10:]) == 0.0
    assert white(narrow[bottom + 60:]) > 0.2


def test_no_stone_covers_a_coordinate_label_in_the_screenshots(shown):
    game = shown["data"]["games"][0]
    assert set(range(1, 5)) | {5, 10, 15, 20, 21, 22, 23, 24, 9, 14, 19} <= {
        p for p, v in enumerate(game["frames"][-1]["board"]) if v != "0"}  # every edge line but A5 taken
    root = ET.fromstring(shown["data"]["boards"][game["board"]])
    width = float(root.attrib["viewBox"].split()[2])
    labels = [(el.text, float(el.attrib["x"]), float(el.attrib["y"]), float(el.attrib["font-size"]))
              for el in root.iter(SVG + "text")]
    assert len(labels) == 20
    for name in ("wide", "narrow"):
        shot = shown["shots"][name]
        left, top, right, _ = _board_box(shot)
        scale = (right - left + 1) / width
        for text, x, y, size in labels:
            half = size / 2 * scale
            cx, cy = left + x * scale, top + y * scale
            box = shot[int(cy - half):int(cy + half) + 1, int(cx - half):int(cx + half) + 1]
            spread = box.max(axis=2) - box.min(axis=2)
            white_stone = (box.min(axis=2) > 225) & (spread < 16)
            black_stone = (box.max(axis=2) < 35) & (spread < 10)
            assert not (white_stone | black_stone).any(), (name, text, x, y)
            ink = (box[..., 0] - box[..., 2] > 15) & (box[..., 0] < 150)  # the label's dark brown
            assert ink.sum() >= 3, (name, text, x, y)


class _Dom(HTMLParser):
    """The text of each element with an id (and of each span with a class inside one, as ``id.class``),
    the move list's buttons and the board's line marks."""

    VOID = {"meta", "input", "br", "img", "link", "path", "line", "circle", "rect"}

    def __init__(self):
        super().__init__()
        self.text, self.moves, self.lines, self.classes = {}, [], [], {}
        self._open = []  # (tag, id or None, move button index or None)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "line" and "data-points" in attrs:
            self.lines.append((attrs["data-points"], attrs["data-value"], attrs.get("visibility")))
        if tag in self.VOID:
            return
        key = attrs.get("id")
        if not key and tag == "span" and attrs.get("class"):
            inside = next((k for _, k, _ in reversed(self._open) if k and "." not in k), None)
            key = f"{inside}.{attrs['class']}" if inside else None
        if key:
            self.text[key] = ""
            self.classes[key] = attrs.get("class") or ""
        move = None
        if tag == "button" and "data-move" in attrs:
            self.moves.append({"text": "", "current": attrs.get("aria-current") == "true"})
            move = len(self.moves) - 1
        self._open.append((tag, key, move))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for _, element, move in self._open:
            if element:
                self.text[element] += data
            if move is not None:
                self.moves[move]["text"] += data


def _dom(text: str) -> _Dom:
    dom = _Dom()
    dom.feed(text)
    return dom


def test_the_page_lists_the_moves_and_shows_names_captures_scores_and_the_result(shown):
    for name in ("wide", "narrow"):
        dom = _dom(shown["dom"][name])
        texts = [m["text"] for m in dom.moves]
        assert len(texts) == len(EDGES) + 1 and texts[0] == "start"
        assert texts[1:4] == ["1Black B5", "2White A5", "3Black A4 \u00d71"]
        assert texts[-1] == f"{len(EDGES)}White pass"
        assert [k for k, m in enumerate(dom.moves) if m["current"]] == [len(EDGES)]
        black = {part: dom.text[f"player-1.{part}"] for part in ("colour", "name", "score", "facts")}
        assert black == {"colour": "Black", "name": "Ann", "score": "7",
                         "facts": "score: 7 stones on the board; captured 1"}
        white = {part: dom.text[f"player-2.{part}"] for part in ("colour", "name", "score", "facts")}
        assert white == {"colour": "White", "name": "Bo", "score": "10.5",
                         "facts": "score: 8 stones on the board + komi 2.5; captured 0"}
        assert "winner" in dom.classes["player-2"] and "winner" not in dom.classes["player-1"]
        assert dom.text["counter"] == f"move {len(EDGES)} of {len(EDGES)}"
        assert dom.text["result"] == ("result: Bo (White) wins, both players passed in a row; "
                                      "the record says W+3.5")


def test_the_finished_tictactoe_game_shows_its_winning_line_and_only_it(shown):
    dom = _dom(shown["dom"]["ttt"])
    shown_lines = [(points, value) for points, value, seen in dom.lines if seen == "visible"]
    assert shown_lines == [("0 4 8", "1")]
    assert len(dom.lines) == 16
    x = tuple(dom.text[f"player-1.{part}"] for part in ("colour", "name", "facts"))
    assert x == ("X", "Cy", "")  # no captures, no score in Tic-Tac-Toe
    assert dom.text["result"].startswith("result: Cy (X) wins")


class _DevTools:
    """Headless Chromium driven through the DevTools protocol over ``--remote-debugging-pipe``: JSON
    messages, each ended by a NUL byte, written to the browser's file descriptor 3 and read from its 4."""

    def __init__(self, browser: str, folder, size: tuple[int, int]):
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def as_fds_3_and_4():  # in the child, before exec
            r, w = os.dup(to_browser), os.dup(from_browser)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.process = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={folder}", f"--window-size={size[0]},{size[1]}", "about:blank"],
            close_fds=False, preexec_fn=as_fds_3_and_4, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._id, self._buffer, self.session = 0, b"", None

    def send(self, method: str, **params):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 30
        while True:
            while b"\0" not in self._buffer:
                ready, _, _ = select.select([self._read], [], [], max(0.0, deadline - time.monotonic()))
                chunk = os.read(self._read, 1 << 16) if ready else b""
                assert chunk, f"the browser did not answer {method}"
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                assert "error" not in reply, (method, reply["error"])
                return reply["result"]

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.navigate", url=url)
        for _ in range(200):
            if self.value("document.body && document.body.dataset.check") not in (None, "pending"):
                return
            time.sleep(0.05)

    def value(self, expression: str):
        return self.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def key(self, name: str, code: int) -> None:
        self.send("Input.dispatchKeyEvent", type="keyDown", key=name, code=name, windowsVirtualKeyCode=code)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=name, code=name, windowsVirtualKeyCode=code)

    def box(self, selector: str) -> dict:
        return self.value(f"JSON.parse(JSON.stringify(document.querySelector('{selector}')"
                          ".getBoundingClientRect()))")

    def swipe(self, selector: str, start: float, end: float) -> None:
        """A finger across the element from ``start`` to ``end`` of its width, at half its height."""
        box = self.box(selector)
        y = box["y"] + box["height"] / 2
        self.send("Input.dispatchTouchEvent", type="touchStart",
                  touchPoints=[{"x": box["x"] + start * box["width"], "y": y}])
        self.send("Input.dispatchTouchEvent", type="touchMove",
                  touchPoints=[{"x": box["x"] + end * box["width"], "y": y}])
        self.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    def click(self, selector: str) -> None:
        box = self.box(selector)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def close(self) -> None:
        try:
            self.send("Browser.close")
            self.process.wait(timeout=20)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            os.close(self._write)
            os.close(self._read)


@pytest.mark.skipif(os.name != "posix", reason="the pipe goes to the browser as descriptors 3 and 4")
def test_keys_a_swipe_and_a_click_in_the_move_list_step_through_the_games(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(_known_page())
    browser = _DevTools(find_browser(), tmp_path / "profile", WIDE)
    try:
        browser.open(page.resolve().as_uri())
        assert browser.value("document.body.dataset.check") == "ok"

        def where() -> str:
            return browser.value("document.getElementById('counter').textContent")

        assert where() == f"move 0 of {len(EDGES)}"
        for name, code in (("ArrowRight", 39), ("ArrowRight", 39), ("ArrowRight", 39), ("ArrowLeft", 37)):
            browser.key(name, code)
        assert where() == f"move 2 of {len(EDGES)}"
        browser.key("End", 35)
        assert where() == f"move {len(EDGES)} of {len(EDGES)}"
        browser.key("Home", 36)
        assert where() == f"move 0 of {len(EDGES)}"
        browser.click('#moves button[data-move="5"]')
        assert where() == f"move 5 of {len(EDGES)}"
        assert browser.value("document.querySelector('#moves [aria-current=\"true\"]').dataset.move") == "5"
        browser.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=1)
        browser.swipe("#board", 0.7, 0.3)  # right to left: the next move, as a page turns
        assert where() == f"move 6 of {len(EDGES)}"
        browser.swipe("#board", 0.3, 0.7)
        browser.swipe("#board", 0.3, 0.7)
        assert where() == f"move 4 of {len(EDGES)}"
        browser.click("#play")  # one move a second, until stopped
        deadline = time.monotonic() + 5
        while where() == f"move 4 of {len(EDGES)}" and time.monotonic() < deadline:
            time.sleep(0.1)
        browser.value("document.activeElement.blur()")  # the key goes to the page, not to the button
        browser.key(" ", 32)  # space stops it
        stopped = where()
        assert stopped in (f"move 5 of {len(EDGES)}", f"move 6 of {len(EDGES)}")
        assert browser.value("document.getElementById('play').getAttribute('aria-pressed')") == "false"
        time.sleep(1.2)
        assert where() == stopped
        browser.key("ArrowDown", 40)
        assert where() == f"move 0 of {len(TTT_WIN)}"
        assert browser.value("location.hash") == "#game=2&move=0"
    finally:
        browser.close()
