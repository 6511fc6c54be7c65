"""Agents by name: one registry for the envs' ``opponent=``, the arena and the CLI.

A spec is a name with optional ``key=value`` parameters after a colon,
separated by commas: ``"random"``, ``"minimax"``, ``"alphabeta:depth=2"``.
Values are parsed as int, float, bool (true/false) or left as strings.

    agent = make_agent("minimax", "tictactoe", rng=np.random.default_rng(0))

``register_agent`` adds a factory ``f(game_module, rng, **params) -> Agent``.
An unknown name or a bad parameter raises ValueError listing what exists.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tictacgo.agent import Agent, FunctionAgent
from tictacgo.games import game_entry, make_game
from tictacgo.games.spec import Game


@dataclass(frozen=True)
class AgentEntry:
    name: str
    factory: Callable
    games: tuple[str, ...]
    description: str


_REGISTRY: dict[str, AgentEntry] = {}


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")


def register_agent(name: str, factory: Callable, games: tuple[str, ...] = ("tictactoe", "littlego"),
                   description: str = "", replace: bool = False) -> None:
    """Make ``factory(game, rng, **params)`` available as the agent ``name``.

    Once registered, the name works wherever a spec does: ``make_agent``, the
    envs' ``opponent=`` and ``set_opponent``, ``play_game``, ``run_match`` and
    ``tictacgo agents``. The factory's keyword parameters (other than ``game``
    and ``rng``) become the spec's parameters, so ``"mine:depth=3"`` calls
    ``factory(game, rng=rng, depth=3)``; an unknown parameter is refused
    before the factory is called:

        from tictacgo.baselines import RandomAgent, register_agent

        def make_mine(game, rng, depth=1):
            return RandomAgent(game, rng)      # any Agent, or an object with act(state)

        register_agent("mine", make_mine, games=("tictactoe",), description="my agent")
        run_match("tictactoe", "mine:depth=3", "minimax", games=10, seed=0, workers=1)

    The registry lives in the process: the arena's worker processes (started
    with ``spawn``) do not see a registration made at run time, so play such
    agents in this process (``run_match(..., workers=1)``).

    Args:
        name: the spec name, lower case (letters, digits, ``_``, ``-``, ``.``),
            since specs are matched in lower case.
        factory: ``factory(game_module, rng, **params) -> Agent``.
        games: the games it plays (``"tictactoe"``, ``"littlego"``).
        description: one line for ``tictacgo agents``.
        replace: allow replacing an agent already registered under ``name``
            (a built-in one included); without it that is refused.

    Raises:
        ValueError: a bad name, an unknown game, or a name already taken.
        TypeError: ``factory`` is not callable.
    """
    if not isinstance(name, str) or not name or not set(name) <= _NAME_CHARS:
        raise ValueError(f"an agent name is a non-empty lower-case string of letters, digits, '_', '-' "
                         f"and '.', got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory must be callable as factory(game, rng, **params), got {factory!r}")
    if isinstance(games, str):
        games = (games,)
    names = tuple(game_entry(g).name for g in games)
    if not names:
        raise ValueError(f"games must name at least one game, got {games!r}")
    builtin = getattr(factory, "__module__", None) in _BUILTIN_MODULES
    if not builtin:
        _load_builtins()  # so that a user's name cannot silently lose to a built-in loaded later
        if name in _REGISTRY and not replace:
            raise ValueError(f"an agent named {name!r} is already registered "
                             f"({_REGISTRY[name].description!r}); pick another name or pass replace=True")
    _REGISTRY[name] = AgentEntry(name, factory, names, description)


def available_agents(game: str | None = None) -> list[str]:
    """Registered names, those that play ``game`` if given."""
    _load_builtins()
    if game is None:
        return sorted(_REGISTRY)
    g = game_entry(game).name
    return sorted(k for k, e in _REGISTRY.items() if g in e.games)


def agent_parameters(name: str) -> list[str]:
    """The parameter names an agent's spec accepts (``[]`` for an unknown name)."""
    _load_builtins()
    entry = _REGISTRY.get(name)
    if entry is None:
        return []
    return [p for p in inspect.signature(entry.factory).parameters if p not in ("game", "rng")]


def describe_agents(game: str | None = None) -> str:
    """One line per agent: name and description."""
    lines = []
    for n in available_agents(game):
        params = ", ".join(agent_parameters(n))
        lines.append(f"{n:14s} {_REGISTRY[n].description}" + (f" [params: {params}]" if params else ""))
    return "\n".join(lines)


def _parse_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mcts:sims=400,c=1.4"`` -> ``("mcts", {"sims": 400, "c": 1.4})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("an agent spec is a non-empty string like 'random' or 'mcts:sims=400', "
                         f"got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    params = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent parameter {part!r} in {spec!r} is not of the form key=value")
        if key.strip() in params:
            raise ValueError(f"agent parameter {key.strip()!r} is given twice in {spec!r}")
        params[key.strip()] = _parse_value(value.strip())
    return name.strip().lower(), params


def make_agent(spec, game: str | Game, rng: np.random.Generator | None = None) -> Agent:
    """An agent from a spec string, an Agent (returned as is) or a callable ``f(state) -> action``.

    Args:
        spec: e.g. ``"random"``, ``"minimax"``, ``"alphabeta:depth=2"``.
        game: a game object, or a game name (its default variant).
        rng: the agent's generator (a fresh unseeded one if None).
    """
    module = make_game(game)
    if isinstance(spec, Agent):
        return spec
    if callable(spec) and not isinstance(spec, str):
        return FunctionAgent(module, spec, rng)
    name, params = parse_spec(spec)
    _load_builtins()
    entry = _REGISTRY.get(name)
    game_name = module.spec.name
    if entry is None:
        raise ValueError(f"unknown agent {name!r}; available for {game_name}: "
                         f"{', '.join(available_agents(game_name))}")
    if game_name not in entry.games:
        raise ValueError(f"agent {name!r} does not play {game_name}; it plays {', '.join(entry.games)}. "
                         f"Available for {game_name}: {', '.join(available_agents(game_name))}")
    sig = inspect.signature(entry.factory)
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    allowed = [p for p in sig.parameters if p not in ("game", "rng")]
    unknown = [k for k in params if k not in allowed]
    if unknown and not accepts_any:
        raise ValueError(f"agent {name!r} has no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters are: {', '.join(allowed) or '(none)'}")
    try:
        return entry.factory(module, rng=rng if rng is not None else np.random.default_rng(), **params)
    except (TypeError, ValueError) as e:
        raise ValueError(f"bad parameters for agent {name!r}: {e}") from e


# Modules that register built-in agents when first needed (each calls
# ``register_agent`` at import). Lazy, so importing the registry stays cheap.
_BUILTIN_MODULES = (
    "tictacgo.baselines.random_agent",
    "tictacgo.baselines.minimax",
    "tictacgo.baselines.ttt_players",
    "tictacgo.baselines.course_ladder",
    "tictacgo.baselines.mcts",
    "tictacgo.baselines.policy_mcts",
    "tictacgo.baselines.qlearning",
    "tictacgo.baselines.model_agents",
)
_loaded = False  # set once the built-in modules are imported


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    import importlib

    for mod in _BUILTIN_MODULES:
        importlib.import_module(mod)  # a broken built-in module must fail loudly, every time
    _loaded = True
