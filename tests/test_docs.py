"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing page or a docstring
mkdocstrings cannot render fails), shows the API sections it promises, and its Python examples run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text()


def test_mkdocs_build_strict_builds_every_page_in_the_nav(site):
    for page in ("envs/tictactoe", "envs/littlego", "envs/single-agent", "envs/observations", "littlego",
                 "agents", "arena", "training", "course", "play", "architecture", "errors", "api/games",
                 "api/envs", "api/wrappers", "api/baselines", "api/arena", "api/protocol", "vector",
                 "api/vector", "api/learning", "api/alphazero", "api/solver", "api/proof"):
        assert (site / page / "index.html").is_file(), page


def test_the_env_pages_render_the_env_cards_from_the_module_docstrings(site):
    ttt = _page(site, "envs/tictactoe")
    assert 'id="tictacgo.envs.tictactoe_v0--observation-space"' in ttt
    assert "<code>from tictacgo.envs import tictactoe_v0</code>" in ttt      # the card's table
    assert '<code>gymnasium.make("tictacgo:TicTacToe-v0")</code>' in ttt
    go = _page(site, "envs/littlego")
    assert 'id="tictacgo.envs.littlego_v0--action-space"' in go and "LittleGo-v0" in go


def test_the_arena_page_documents_play_game_run_match_and_the_agents_page_register_agent(site):
    arena = _page(site, "arena")
    assert 'id="tictacgo.game_loop.play_game"' in arena
    for name in ("match.run_match", "round_robin.run_round_robin"):
        assert f'id="tictacgo.arena.{name}"' in arena, name
    assert "SeedSequence" in arena                        # run_match's Args rendered, not only its name
    agents = _page(site, "agents")
    assert 'id="tictacgo.baselines.registry.register_agent"' in agents and "replace=True" in agents


def test_the_api_reference_renders_the_mapped_subpackages(site):
    """envs/, wrappers/ and baselines/ are mapped into tictacgo by package-dir; the API pages must find them
    under their import names."""
    assert 'id="tictacgo.envs.gym_littlego.env"' in _page(site, "api/envs")
    assert 'id="tictacgo.envs.single_agent.TurnBasedEnv"' in _page(site, "api/envs")
    assert 'id="tictacgo.wrappers.illegal_move_penalty.IllegalMovePenalty"' in _page(site, "api/wrappers")
    assert 'id="tictacgo.baselines.mcts.MCTSAgent"' in _page(site, "api/baselines")
    assert 'id="tictacgo.games.littlego.place_bits"' in _page(site, "api/games")


# What a user imports, by the page of the API reference that must document it.
API_OBJECTS = {
    "api/games": ["tictacgo.games.make_game", "tictacgo.games.GAMES", "tictacgo.agent.Agent",
                  "tictacgo.game_loop.play_game"],
    "api/envs": ["tictacgo.envs.littlego_v0.raw_env", "tictacgo.envs.aec_base.TurnBasedAECEnv",
                 "tictacgo.envs.single_agent.TurnBasedEnv"],
    "api/vector": ["tictacgo.envs.vector_env.TurnBasedVectorEnv", "tictacgo.envs.vector_env.make_littlego",
                   "tictacgo.envs.vector_env.make_tictactoe", "tictacgo.envs.vector_masks.action_masks",
                   "tictacgo.baselines.learning.batched_vec_env.BatchedVecEnv",
                   "tictacgo.baselines.learning.batched_vec_env.make_sb3_vec_env",
                   "tictacgo.games.batched_engines.make_batched_engine",
                   "tictacgo.games.batched_littlego.BatchedLittleGo",
                   "tictacgo.games.batched_tictactoe.BatchedTicTacToe"],
    "api/baselines": ["tictacgo.baselines.registry.make_agent", "tictacgo.baselines.registry.register_agent",
                      "tictacgo.baselines.exact.solver_agent.SolverAgent",
                      "tictacgo.baselines.exact.perfect.PerfectAgent",
                      "tictacgo.baselines.exact.championship.ChampionshipAgent"],
    "api/arena": ["tictacgo.arena.match.run_match", "tictacgo.arena.round_robin.run_round_robin",
                  "tictacgo.arena.ratings.fit_bradley_terry"],
    "api/learning": ["tictacgo.baselines.learning.training.train",
                     "tictacgo.baselines.learning.training_config.TrainConfig",
                     "tictacgo.baselines.learning.networks.small_board_cnn",
                     "tictacgo.baselines.learning.policy_agent.PolicyAgent",
                     "tictacgo.baselines.learning.training.SnapshotPool"],
    "api/alphazero": ["tictacgo.baselines.learning.alphazero.train.AlphaZeroConfig",
                      "tictacgo.baselines.learning.alphazero.train.train",
                      "tictacgo.baselines.learning.alphazero.agent.AZAgent",
                      "tictacgo.baselines.learning.alphazero.network.save_model",
                      "tictacgo.baselines.learning.alphazero.network.load_model",
                      "tictacgo.baselines.learning.alphazero.modelfile"],
    "api/solver": ["tictacgo.solver.search.solve", "tictacgo.solver.search.move_values",
                   "tictacgo.solver.search.Solver"],
    "api/proof": ["tictacgo.proof.certificate.prove", "tictacgo.proof.checker.verify",
                  "tictacgo.proof.book.book_from_certificates", "tictacgo.proof.book.load_book"],
}


@pytest.mark.parametrize("page", sorted(API_OBJECTS))
def test_the_api_reference_documents_what_users_import(site, page):
    html = _page(site, page)
    missing = [name for name in API_OBJECTS[page] if f'id="{name}"' not in html]
    assert not missing, f"{page} does not document {missing}"


def test_each_module_of_an_api_page_has_its_own_heading(site):
    """Every ``::: module`` block renders under a heading naming the module (not only its members'
    names, which read "env, raw_env, env, raw_env" for the two AEC modules)."""
    for path in sorted((DOCS / "api").glob("*.md")):
        if path.name == "index.md":
            continue
        html = _page(site, f"api/{path.stem}")
        modules = re.findall(r"^::: ([\w.]+)", path.read_text(), flags=re.M)
        assert modules, path
        headed = [m for m in modules if re.search(rf'<h2 id="{re.escape(m)}"', html)]
        assert headed == modules, (path.name, sorted(set(modules) - set(headed)))


def test_the_agents_page_names_every_registered_agent():
    from tictacgo.baselines import available_agents

    text = (DOCS / "agents.md").read_text()
    missing = [name for name in available_agents() if f"| `{name}` |" not in text]
    assert not missing, f"docs/agents.md has no row for {missing}"


# Pages whose examples build on each other: they run in order, as one program.
TUTORIALS = ("selfplay.md",)


def _python_blocks() -> list:
    blocks = []
    for path in sorted(DOCS.rglob("*.md")):
        if path.relative_to(DOCS).as_posix() in TUTORIALS:
            continue
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)):
            blocks.append(pytest.param(block, id=f"{path.relative_to(DOCS)}-{i}"))
    return blocks


@pytest.mark.parametrize("block", _python_blocks())
def test_docs_python_example_runs(block, tmp_path, monkeypatch):
    if block in README_BLOCKS:
        pytest.skip("the same example is in the README, run by tests/test_readme.py")
    if "sb3_contrib" in block or 'opponent="ppo"' in block:
        pytest.importorskip("sb3_contrib")
    if "open_spiel" in block or "pyspiel" in block:
        pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    from tictacgo.baselines import registry

    registry._load_builtins()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))   # examples may register agents
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "docs python block", "exec"), {"__name__": "docs_example"})


@pytest.mark.parametrize("page", TUTORIALS)
def test_a_tutorial_runs_top_to_bottom(page, tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)
    assert len(blocks) >= 3, page
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_tutorial"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{page} python block {i}", "exec"), namespace)
    assert "past selves in the pool" in capsys.readouterr().out


def test_the_readme_links_only_to_files_that_exist():
    readme = (ROOT / "README.md").read_text()
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", readme) if "://" not in t]
    folders = "scripts|docs|tests|baselines|envs|wrappers|tictacgo"
    paths = re.findall(rf"(?<![\w/])((?:{folders})/[\w./-]+\.(?:py|md))", readme)
    assert targets, "the README links the docs"
    assert "scripts/bench.py" in paths
    missing = [t for t in targets + paths if not (ROOT / t).exists()]
    assert not missing, missing
