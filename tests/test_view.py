"""tictacgo view: a self-contained HTML page that steps through the games of an SGF record or a results
file. The page's embedded positions are checked here against the rules core; a headless browser, where
one is installed, runs the page itself."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from html import unescape
from html.parser import HTMLParser

import pytest

from tictacgo.arena import run_match, run_round_robin
from tictacgo.cli import main
from tictacgo.games import make_game
from tictacgo.protocol.viewer import read_page_data

needs_sgf = pytest.mark.skipif(importlib.util.find_spec("sgfmill") is None, reason="needs the sgf extra")


class _Page(HTMLParser):
    """The page's tags, script bodies and any reference to another file."""

    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self.external = [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        for key in ("src", "href"):
            if attrs.get(key):
                self.external.append(attrs[key])
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def _view(tmp_path, source, capsys, *extra) -> tuple[str, dict]:
    out = tmp_path / "page.html"
    assert main(["view", str(source), "--html", str(out), *extra]) == 0, capsys.readouterr().err
    html = out.read_text()
    return html, read_page_data(html)


def check_against_the_rules(data: dict) -> None:
    """Every game's frames are what the rules core gives move by move (the page's own check, in Python,
    and more: captures, the last move)."""
    assert data["format"] == "tictacgo-viewer/1"
    for g in data["games"]:
        game = make_game(g["title"].lower().replace("-", ""))
        if g["points"] != game.spec.num_points:
            game = make_game("littlego", size=int(g["points"] ** 0.5))
        state = game.initial_state()
        frames = g["frames"]
        assert len(frames) == len(g["moves"]) + 1
        assert frames[0]["board"] == "0" * g["points"] and frames[0]["last"] == -1
        assert g["komi"] == (None if game.spec.komi is None else [0, game.spec.komi])
        check_counts(game, state, frames[0])
        for move, frame in zip(g["moves"], frames[1:], strict=True):
            before = game.to_board(state).ravel()
            mover = game.current_player(state)
            state = game.play(state, move)
            after = game.to_board(state).ravel()
            assert frame["board"] == "".join(str(int(v)) for v in after)
            assert frame["captured"] == [p for p in range(len(after)) if before[p] and not after[p]]
            assert frame["last"] == (move if move != game.spec.pass_action else -1)
            taken = f", captures {len(frame['captured'])}" if frame["captured"] else ""
            assert frame["mover"] == mover
            assert frame["text"].endswith(f"{g['names'][mover - 1]} {frame['move']}{taken}")
            check_counts(game, state, frame)
        assert "result" in frames[-1]


def check_counts(game, state, frame: dict) -> None:
    """The frame's turn, stones and scores are the game's own for ``state``."""
    assert frame["stones"] == [bits.bit_count() for bits in game.stone_bits(state)]
    if game.spec.komi is None:
        assert "score" not in frame
    else:
        assert frame["score"] == list(game.scores(state))
    if "winner" in frame:
        assert frame["turn"] == 0
    else:
        assert frame["turn"] == (0 if game.is_terminal(state) else game.current_player(state))


@pytest.fixture(scope="module")
def go_match(tmp_path_factory):
    folder = tmp_path_factory.mktemp("match")
    m = run_match("littlego", "greedy", "random", games=3, seed=1, workers=1, progress=False)
    path = folder / "results.json"
    path.write_text(json.dumps(m.to_json()))
    return path, m


def test_a_match_page_holds_every_game_with_the_positions_the_rules_give(tmp_path, capsys, go_match):
    path, match = go_match
    html, data = _view(tmp_path, path, capsys)
    assert [g["moves"] for g in data["games"]] == [g.record.moves for g in match.games]
    check_against_the_rules(data)
    for g, played in zip(data["games"], match.games, strict=True):
        winner = played.record.winner
        assert f"({g['names'][winner - 1]}) wins" in g["frames"][-1]["result"]
        assert any(f["captured"] for f in g["frames"]) == any(f["taken"] != [0, 0] for f in g["frames"])
    assert "move 1: Black " in data["games"][0]["frames"][1]["text"]
    for g, played in zip(data["games"], match.games, strict=True):
        assert g["frames"][-1]["winner"] == played.record.winner


def test_a_go_page_counts_each_players_stones_and_adds_the_komi_to_whites_score(tmp_path, capsys):
    from tictacgo.protocol.viewer import ViewerGame, build_frames, page_data

    game = make_game("littlego", komi=3.5)
    # Black B5, White A5, Black A4 takes A5; then both pass: Black 2 stones, White none and komi 3.5.
    vg = build_frames(ViewerGame("corner", game, [1, 0, 5, 25, 25], ("Ann", "Bo")))
    (g,) = page_data([vg])["games"]
    assert g["komi"] == [0, 3.5] and g["captures"]
    end = g["frames"][-1]
    assert end["stones"] == [2, 0] and end["score"] == [2.0, 3.5] and end["taken"] == [1, 0]
    assert end["winner"] == 2 and end["turn"] == 0 and "Bo (White) wins" in end["result"]
    assert [f["move"] for f in g["frames"]] == ["", "B5", "A5", "A4", "pass", "pass"]
    assert [f["mover"] for f in g["frames"]] == [0, 1, 2, 1, 2, 1]


def test_the_page_is_self_contained_with_buttons_keys_and_a_self_check(tmp_path, capsys, go_match):
    html, data = _view(tmp_path, go_match[0], capsys)
    page = _Page()
    page.feed(html)
    assert page.external == []  # nothing fetched: no src=, no href=
    assert {"button", "select", "input"} <= set(page.tags)
    code = page.scripts[-1]
    for needle in ("ArrowLeft", "ArrowRight", "Home", "End", "data-check", "checkData", "checkDrawing"):
        assert needle.replace("data-check", "dataset.check") in code, needle
    assert len(data["boards"]) == 1 and data["boards"][0].count("data-point=") == 25 * 4  # the board's SVG


class _Buttons(HTMLParser):
    """The content of each ``<button>`` with an id: its tags and its text."""

    def __init__(self):
        super().__init__()
        self.buttons, self._in = {}, None

    def handle_starttag(self, tag, attrs):
        if tag == "button":
            self._in = dict(attrs).get("id")
            self.buttons[self._in] = {"tags": [], "text": ""}
        elif self._in:
            self.buttons[self._in]["tags"].append(tag)

    def handle_endtag(self, tag):
        if tag == "button":
            self._in = None

    def handle_data(self, data):
        if self._in:
            self.buttons[self._in]["text"] += data


def test_the_step_buttons_draw_their_icons_as_svg_so_any_font_shows_them(tmp_path, capsys, go_match):
    html, _ = _view(tmp_path, go_match[0], capsys)
    parser = _Buttons()
    parser.feed(html)
    assert set(parser.buttons) == {"first", "prev", "play", "next", "last"}
    for name, content in parser.buttons.items():
        assert content["tags"][0] == "svg" and set(content["tags"][1:]) == {"path"}, name
        assert content["text"].strip() == "", name  # no character a font may lack


def test_a_tictactoe_round_robin_page_names_cells_and_counts_no_captures(tmp_path, capsys):
    rr = run_round_robin("tictactoe", ["random", "think1", "minimax"], games_per_pair=2, seed=0, workers=1,
                         progress=False)
    path = tmp_path / "rr.json"
    path.write_text(json.dumps(rr.to_json()))
    _, data = _view(tmp_path, path, capsys)
    assert len(data["games"]) == 6 and data["games"][0]["label"].startswith("random vs think1, game 1")
    assert not data["games"][0]["captures"] and data["games"][0]["komi"] is None
    assert data["games"][0]["frames"][1]["text"].startswith("move 1: X cell ")
    check_against_the_rules(data)
    _, one = _view(tmp_path, path, capsys, "--game", "4")
    assert [g["moves"] for g in one["games"]] == [data["games"][3]["moves"]]


def test_a_course_report_page_holds_each_opponents_games(tmp_path, capsys):
    from tictacgo.protocol.grading import run_course_report

    report = run_course_report("random", 0, games=2, workers=1, progress=False)
    path = tmp_path / "course.json"
    path.write_text(json.dumps(report.to_json()))
    _, data = _view(tmp_path, path, capsys)
    assert [g["label"].split(",")[0] for g in data["games"]] == [f"vs {o}" for o in report.matches
                                                                 for _ in range(2)]
    check_against_the_rules(data)


@needs_sgf
def test_an_sgf_page_shows_the_record_and_its_result(tmp_path, capsys):
    from tictacgo.protocol import sgf

    moves = [12, 13, 7, 8, 17, 18, 11, 25, 25]
    path = sgf.write_sgf(tmp_path / "g.sgf", moves, black="Ann", white="Bo")
    _, data = _view(tmp_path, path, capsys)
    (g,) = data["games"]
    assert g["moves"] == moves and g["players"] == ["Ann", "Bo"]
    check_against_the_rules(data)
    assert "both players passed in a row" in g["frames"][-1]["result"]
    assert "the record says " in g["frames"][-1]["result"]


@needs_sgf
def test_an_illegal_move_stops_the_page_there_and_says_so(tmp_path, capsys):
    path = tmp_path / "ko.sgf"
    path.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[cc])")  # White plays on Black's stone
    out = tmp_path / "page.html"
    assert main(["view", str(path), "--html", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("tictacgo view: note: game 1: move 2 (White C3) is illegal: occupied")
    (g,) = read_page_data(out.read_text())["games"]
    assert len(g["frames"]) == 2 and "the record stops here" in g["frames"][-1]["result"]


@needs_sgf
def test_names_from_a_file_cannot_end_the_script_that_holds_them(tmp_path, capsys):
    from tictacgo.protocol import sgf

    path = sgf.write_sgf(tmp_path / "g.sgf", [12], black="</script><script>alert(1)</script>", white="W")
    html, data = _view(tmp_path, path, capsys)
    assert html.count("</script>") == 2  # the data's and the code's own
    assert data["games"][0]["players"][0] == "</script><script>alert(1)</script>"


def test_bad_input_is_refused_in_one_line_with_status_2(tmp_path, capsys, go_match):
    not_results = tmp_path / "other.json"
    not_results.write_text('{"format": "something-else/1"}')
    cases = [(tmp_path / "missing.json", "missing.json"), (not_results, "not a results file"),
             (go_match[0], "game 9 is out of range")]
    for path, needle in cases:
        extra = ["--game", "9"] if path == go_match[0] else []
        assert main(["view", str(path), "--html", str(tmp_path / "p.html"), *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tictacgo view: error: ") and needle in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "p.html").exists()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_script_is_valid_javascript(tmp_path, capsys, go_match):
    html, _ = _view(tmp_path, go_match[0], capsys)
    page = _Page()
    page.feed(html)
    script = tmp_path / "page.js"
    script.write_text(page.scripts[-1])
    done = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def find_browser() -> str | None:
    """The path of a Chromium or Chrome on PATH, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@pytest.mark.skipif(find_browser() is None, reason="no headless browser (chromium) is installed")
def test_a_headless_browser_opens_the_page_at_a_move_and_its_self_check_passes(tmp_path, capsys, go_match):
    html, data = _view(tmp_path, go_match[0], capsys)
    page = tmp_path / "page.html"
    url = page.resolve().as_uri() + "#game=2&move=3"
    done = subprocess.run([find_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    dom = done.stdout
    assert 'data-check="ok"' in dom, (done.stderr[-2000:], dom[:500])
    assert f"move 3 of {len(data['games'][1]['frames']) - 1}" in dom
    assert data["games"][1]["frames"][3]["text"] in dom


@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed")
def test_the_arrow_keys_step_through_a_game_in_a_browser(tmp_path, capsys, go_match):
    from playwright.sync_api import Error, sync_playwright

    _, data = _view(tmp_path, go_match[0], capsys)
    url = (tmp_path / "page.html").resolve().as_uri()
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch()
        except Error as e:  # the package without its browser build
            pytest.skip(f"playwright has no browser here: {e}")
        page = browser.new_page()
        page.goto(url)
        assert page.get_attribute("body", "data-check") == "ok"
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        assert page.text_content("#move-text") == data["games"][0]["frames"][2]["text"]
        page.keyboard.press("End")
        assert page.text_content("#result") == data["games"][0]["frames"][-1]["result"]
        page.keyboard.press("ArrowDown")
        assert page.text_content("#counter").startswith("move 0 of")
        browser.close()


# --------------------------------------------------------------------------- hostile input


def _page_parts(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


class _Headings(HTMLParser):
    """The text of the page's ``<h1>`` and ``<title>``."""

    def __init__(self):
        super().__init__()
        self.text, self._in = {"h1": "", "title": ""}, None

    def handle_starttag(self, tag, attrs):
        self._in = tag if tag in self.text else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in:
            self.text[self._in] += data


_MARKUP = '<img src=x onerror="document.title=1">'


def _match_file(folder, name: str, go_match) -> tuple:
    """The module's match as a results file called ``name`` whose agents' names are ``_MARKUP``."""
    data = json.loads(go_match[0].read_text())
    data["agent_a"] = _MARKUP
    for g in data["games"]:
        g["first"] = g["second"] = _MARKUP
    path = folder / name
    path.write_text(json.dumps(data))
    return path


@needs_sgf
def test_a_file_named_like_a_template_field_cannot_put_markup_from_the_record_into_the_page(
        tmp_path, capsys, go_match):
    from tictacgo.protocol import sgf

    sources = [sgf.write_sgf(tmp_path / "@DATA@.sgf", [12], black=_MARKUP, white="W"),
               _match_file(tmp_path, "@DATA@.json", go_match)]
    for source in sources:
        html, data = _view(tmp_path, source, capsys)
        assert "img" not in _page_parts(html).tags
        headings = _Headings()
        headings.feed(html)
        assert headings.text == {"h1": source.name, "title": source.name}
        assert data["games"][0]["players"][0] == _MARKUP


def test_the_page_runs_only_its_own_script_and_fetches_nothing(tmp_path, capsys, go_match):
    import base64
    import hashlib
    import re

    html, _ = _view(tmp_path, go_match[0], capsys)
    (policy,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    policy = unescape(policy)
    rules = dict(rule.strip().split(" ", 1) for rule in policy.split(";"))
    code = _page_parts(html).scripts[-1]
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert rules["default-src"] == "'none'"
    assert rules["script-src"] == f"'sha256-{digest}'"  # no 'unsafe-inline': no handler in a name runs
    assert rules["style-src"].startswith("'sha256-") and "unsafe" not in policy
    assert html.index("Content-Security-Policy") < html.index("<style>") < html.index("<script")


@needs_sgf
@pytest.mark.parametrize("name", ["<!--", "<!--<script>", "</script><!--", "a & b > c", "\u2028\\<!--"])
def test_a_name_with_html_in_it_keeps_the_embedded_json_valid(tmp_path, capsys, name):
    from tictacgo.protocol import sgf

    path = sgf.write_sgf(tmp_path / "g.sgf", [12], black=name, white="W")
    html, data = _view(tmp_path, path, capsys)
    assert data["games"][0]["players"] == [name, "W"]
    embedded = html.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    assert not set("<>&") & set(embedded)
    assert html.count("</script>") == 2


def _same_file_spellings(tmp_path, source):
    link = tmp_path / "link.json"
    link.symlink_to(source)
    hard = tmp_path / "hard.json"
    os.link(source, hard)
    (tmp_path / "sub").mkdir()
    return [str(source), str(tmp_path / "sub" / ".." / source.name), str(link), str(hard)]


def test_view_refuses_to_write_the_page_over_its_own_input(tmp_path, capsys, go_match):
    source = tmp_path / "results.json"
    source.write_bytes(go_match[0].read_bytes())
    before = source.read_bytes()
    for html in _same_file_spellings(tmp_path, source):
        assert main(["view", str(source), "--html", html]) == 2, html
        err = capsys.readouterr().err
        assert err.startswith("tictacgo view: error: --html ") and "is the input file" in err, err
        assert len(err.splitlines()) == 1
    assert source.read_bytes() == before and os.path.islink(tmp_path / "link.json")
    assert main(["view", str(tmp_path / "link.json"), "--html", str(source)]) == 2


_DEEP = '{"format": "tictacgo-arena-match/1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"


def _results_with(go_match, change) -> str:
    data = json.loads(go_match[0].read_text())
    change(data)
    return json.dumps(data)


def _round_robin(data):
    data.clear()
    data["format"] = "tictacgo-arena-round-robin/1"


_MALFORMED = {
    "format-a-number": (lambda d: d.update(format=5), "format 5"),
    "round-robin-without-matches": (_round_robin, "'matches' is missing"),
    "round-robin-match-without-agent_a": (
        lambda d: (d.update(matches=[dict(d)]), d["matches"][0].pop("agent_a"),
                   d.update(format="tictacgo-arena-round-robin/1")),
        "matches[0]: 'agent_a' is missing"),
    "course-report-matches-a-list": (lambda d: d.update(format="tictacgo-arena-course-report/1", matches=[]),
                                     "course report maps each opponent"),
    "match-without-agent_a": (lambda d: d.pop("agent_a"), "'agent_a' is missing"),
    "games-an-object": (lambda d: d.update(games={"0": 1}), "'games' is an object; expected a list"),
    "a-game-a-number": (lambda d: d["games"].__setitem__(0, 7), "games[0] is the number 7"),
    "moves-a-string": (lambda d: d["games"][1].update(moves="C3"), "games[1].moves is the string"),
    "a-move-a-float": (lambda d: d["games"][0]["moves"].__setitem__(0, 1.5), "games[0].moves[0]"),
    "a-move-true": (lambda d: d["games"][0]["moves"].__setitem__(0, True), "the boolean true"),
    "index-negative": (lambda d: d["games"][2].update(index=-1), "games[2].index is the number -1"),
    "illegal-by-3": (lambda d: d["games"][0].update(illegal={"by": 3}), "games[0].illegal.by"),
    "first-a-list": (lambda d: d["games"][0].update(first=[1]), "games[0].first is an array"),
    "variant-a-list": (lambda d: d.update(variant=[5]), "'variant' is an array"),
    "variant-unknown": (lambda d: d.update(variant={"colour": "red"}), "cannot make"),
    "variant-bad-size": (lambda d: d.update(variant={"size": -5}), "cannot make"),
    "game-unknown": (lambda d: d.update(game="chess"), "'chess'"),
}


@pytest.mark.parametrize("case", [*_MALFORMED, "deep-nesting", "a-list", "not-utf8"])
def test_malformed_results_are_refused_in_one_line_naming_what_is_wrong(tmp_path, capsys, go_match, case):
    path = tmp_path / "bad.json"
    if case == "deep-nesting":
        text, needle = _DEEP, "nest 100001 deep"
    elif case == "a-list":
        text, needle = "[1, 2]", "a JSON array"
    elif case == "not-utf8":
        text, needle = None, "neither an SGF record nor a JSON results file"
        path.write_bytes(b'{"format": "\xff"}')
    else:
        change, needle = _MALFORMED[case]
        text = _results_with(go_match, change)
    if text is not None:
        path.write_text(text)
    assert main(["view", str(path), "--html", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tictacgo view: error: ") and len(err.splitlines()) == 1, err
    assert needle in err and "Traceback" not in err
    assert not (tmp_path / "p.html").exists()


@needs_sgf
def test_a_file_whose_name_is_not_utf8_still_gets_a_page_titled_with_a_replacement_character(
        tmp_path, capsys):
    record = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"g\xff.sgf"))
    with open(record, "wb") as f:
        f.write(b"(;GM[1]FF[4]SZ[5];B[cc])")
    html, data = _view(tmp_path, record, capsys)
    headings = _Headings()
    headings.feed(html)
    assert headings.text["h1"] == "g\ufffd.sgf" and data["games"][0]["moves"] == [12]
