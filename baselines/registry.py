"""Agents by name: one registry for the envs' ``opponent=``, the arena and the CLI.

A spec is a name with optional ``key=value`` parameters after a colon,
separated by commas: ``"random"``, ``"minimax"``, ``"alphabeta:depth=2"``.
``parse_agent_spec`` reads such text once into an ``AgentSpec(name, params)``
(``tictacgo.baselines.agent_spec``); ``make_agent`` builds an agent from either.

    spec = parse_agent_spec("alphabeta:depth=2")
    agent = make_agent(spec, "littlego", rng=np.random.default_rng(0))

``register_agent`` adds a factory ``f(game_module, rng, **params) -> Agent``,
or the factory's ``"module:attr"`` name, imported only when such an agent is
built (how agents that need an optional extra, such as the exact solver's
(numba), or live in a layer above this one, such as the course programs', are
named here without importing them).
An unknown name or a bad parameter raises ValueError listing what exists.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from tictacgo.agent import Agent, FunctionAgent
from tictacgo.baselines.agent_spec import AgentSpec, nested_text, split_spec_text
from tictacgo.games import game_class, make_game
from tictacgo.games.base import Game
from tictacgo.validate import MissingExtraError


@dataclass(frozen=True)
class AgentEntry:
    name: str
    factory: Callable | str  # a callable, or its "module:attr" name until first built
    games: tuple[str, ...] | None  # None: every registered game, one registered later included
    description: str
    #: The factory's parameters that take an agent (their default is an ``AgentSpec``).
    agent_params: tuple[str, ...] = ()
    #: ``"module:function"`` called with the game's initial state before the agent is built; it
    #: raises ValueError for a variant the agent cannot play (the solver's largest board, say).
    plays_check: str | None = None

    def plays(self, game: str) -> bool:
        """Whether the agent plays the game named ``game`` (the registry's name)."""
        return self.games is None or game in self.games

    @property
    def games_text(self) -> str:
        return "every game" if self.games is None else ", ".join(self.games)


_REGISTRY: dict[str, AgentEntry] = {}


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")


def register_agent(name: str, factory: Callable | str, games: tuple[str, ...] | None = None,
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

    A parameter whose default is an ``AgentSpec`` takes an agent
    (``policy: AgentSpec = AgentSpec("ppo")``): ``parse_agent_spec`` reads its
    value as a spec, and the factory builds that agent with ``make_agent``.
    The arena builds an agent once per worker and calls its ``seed(rng)`` and
    ``reset()`` before every game: the agent must then play as a new one built
    with ``rng`` would.

    The registry lives in the process: the arena's worker processes (started
    with ``spawn``) do not see a registration made at run time, so play such
    agents in this process (``run_match(..., workers=1)``).

    Args:
        name: the spec name, lower case (letters, digits, ``_``, ``-``, ``.``),
            since specs are matched in lower case.
        factory: ``factory(game_module, rng, **params) -> Agent``, or its name
            ``"package.module:function"``, imported when the agent is first built.
        games: the games it plays (``("tictactoe",)``); None (the default): every game.
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
    named = isinstance(factory, str) and all(factory.partition(":")[::2]) and " " not in factory
    if not named and not callable(factory):
        raise TypeError(f"factory must be callable as factory(game, rng, **params), or its name "
                        f"'package.module:function', got {factory!r}")
    if isinstance(games, str):
        games = (games,)
    names = None if games is None else tuple(game_class(g).name for g in games)
    if names == ():
        raise ValueError(f"games must name at least one game, got {games!r}")
    builtin = getattr(factory, "__module__", None) in _BUILTIN_MODULES
    if not builtin:
        _load_builtins()  # so that a user's name cannot silently lose to a built-in loaded later
        if name in _REGISTRY and not replace:
            raise ValueError(f"an agent named {name!r} is already registered "
                             f"({_REGISTRY[name].description!r}); pick another name or pass replace=True")
    # A factory named by "module:attr" is not imported here; its parameters are read as plain values.
    takes_agents = () if named else tuple(p.name for p in inspect.signature(factory).parameters.values()
                                          if isinstance(p.default, AgentSpec))
    _REGISTRY[name] = AgentEntry(name, factory, names, description, takes_agents)


def available_agents(game: str | None = None) -> list[str]:
    """Registered names, those that play ``game`` if given."""
    _load_builtins()
    if game is None:
        return sorted(_REGISTRY)
    g = game_class(game).name
    return sorted(k for k, e in _REGISTRY.items() if e.plays(g))


def agent_parameters(name: str) -> list[str]:
    """The parameter names an agent's spec accepts (``[]`` for an unknown name)."""
    _load_builtins()
    entry = _REGISTRY.get(name)
    if entry is None:
        return []
    try:
        factory = _factory(entry)
    except ImportError:
        return []  # an optional dependency is missing; make_agent says which
    return [p for p in inspect.signature(factory).parameters if p not in ("game", "rng")]


def describe_agents(game: str | None = None) -> str:
    """One line per agent: name, the games it plays (when no game is given), description, parameters."""
    lines = []
    width = max((len(e.games_text) for e in _REGISTRY.values()), default=0) if game is None else 0
    for n in available_agents(game):
        entry = _REGISTRY[n]
        plays = f"{entry.games_text:{width}s} " if game is None else ""
        params = ", ".join(agent_parameters(n))
        lines.append(f"{n:14s} {plays}{entry.description}" + (f" [params: {params}]" if params else ""))
    return "\n".join(lines)


def parse_agent_spec(spec: str | AgentSpec) -> AgentSpec:
    """An ``AgentSpec`` from the text people type (an ``AgentSpec`` is checked and returned).

    ``"mcts:sims=400,c=1.4"`` -> ``AgentSpec("mcts", {"c": 1.4, "sims": 400})``. A
    parameter that takes an agent (a factory parameter whose default is an
    ``AgentSpec``, such as policy MCTS's ``policy``) is read as a spec too, its
    own parameters separated by ``;``: ``"policy_mcts:policy=ppo:path=m.zip;sample=true"``
    -> ``AgentSpec("policy_mcts", {"policy": AgentSpec("ppo", {"path": "m.zip", "sample": True})})``.
    The name is not looked up here: ``make_agent`` says which agents exist.
    The spec keeps the text it was read from (``spec.text``, ``spec.label``).
    Read text once, at the edge (a command's arguments), and pass the ``AgentSpec``
    on: an ``AgentSpec`` given here is only checked, never read again.

    Raises:
        ValueError: text that is not a spec (empty, a part that is not ``key=value``,
            a key given twice), or a parameter that takes an agent and is not a spec.
    """
    if isinstance(spec, AgentSpec):
        name, params, text = spec.name, list(spec.params), spec.text
    else:
        (name, params), text = split_spec_text(spec), spec
    _load_builtins()
    entry = _REGISTRY.get(name)
    takes_agents = entry.agent_params if entry is not None else ()
    return AgentSpec(name, [(key, _nested_spec(key, value) if key in takes_agents else value)
                            for key, value in params], text=text)


def _nested_spec(key: str, value) -> AgentSpec:
    if isinstance(value, AgentSpec):
        return parse_agent_spec(value)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be an agent spec such as 'ppo' or 'ppo:path=model.zip', got {value!r}")
    try:
        return parse_agent_spec(nested_text(value))
    except ValueError as e:
        raise ValueError(f"{key} {value!r}: {e}") from None


def check_agent_spec(spec, game: str | Game) -> AgentSpec:
    """The spec (text or ``AgentSpec``) read and checked against the registry, without building the agent.

    Checks that the agent exists, that it plays ``game``, and that it takes the spec's parameters.
    When the agent's factory needs an optional dependency that is missing, its parameters cannot be
    read here and are not checked: ``make_agent`` then says what to install. For agents that build
    another agent later (``perfect``'s fallback), so a wrong spec is refused before the first move.

    Raises:
        ValueError: text that is not a spec, an unknown agent, one that does not play ``game``, or a
            parameter the agent does not take; the message names the value and what is expected.
    """
    game_name = make_game(game).spec.name
    spec = parse_agent_spec(spec)
    entry = _REGISTRY.get(spec.name)
    if entry is None:
        raise ValueError(f"unknown agent {spec.name!r}; available for {game_name}: "
                         f"{', '.join(available_agents(game_name))}")
    if not entry.plays(game_name):
        raise ValueError(f"agent {spec.name!r} does not play {game_name}; it plays {entry.games_text}. "
                         f"Available for {game_name}: {', '.join(available_agents(game_name))}")
    try:
        factory = _factory(entry)
    except ImportError:
        return spec  # an optional dependency is missing; make_agent says which
    sig = inspect.signature(factory)
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    allowed = [p for p in sig.parameters if p not in ("game", "rng")]
    unknown = [key for key, _ in spec.params if key not in allowed]
    if unknown and not accepts_any:
        raise ValueError(f"agent {spec.name!r} has no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters are: {', '.join(allowed) or '(none)'}")
    return spec


def make_agent(spec, game: str | Game, rng: np.random.Generator | None = None) -> Agent:
    """An agent from a spec (text or ``AgentSpec``), an Agent (as is) or a callable ``f(state) -> action``.

    Args:
        spec: e.g. ``"random"``, ``"minimax"``, ``"alphabeta:depth=2"``, or the
            ``AgentSpec`` that ``parse_agent_spec`` made of such text.
        game: a game object, or a game name (its default variant).
        rng: the agent's generator (a fresh unseeded one if None).
    """
    module = make_game(game)
    if isinstance(spec, Agent):
        return spec
    if callable(spec) and not isinstance(spec, str):
        return FunctionAgent(module, spec, rng)
    spec = check_agent_spec(spec, module)
    name, params = spec.name, spec.kwargs()
    entry = _REGISTRY[name]
    factory = _factory(entry)  # an optional dependency that is missing is reported here
    if entry.plays_check is not None:
        try:
            _named(entry, entry.plays_check)(module.initial_state())
        except ValueError as e:
            raise ValueError(f"agent {name!r} cannot play this {module.spec.name} variant: {e}") from None
    try:
        return factory(module, rng=rng if rng is not None else np.random.default_rng(), **params)
    except (TypeError, ValueError) as e:
        raise ValueError(f"cannot build agent {name!r}: {e}") from e
    except OSError as e:  # a model path the system refuses (a name too long, a device)
        where = f"{str(e.filename)[:200]!r}: " if e.filename is not None else ""
        raise ValueError(f"cannot build agent {name!r}: {where}{e.strerror or e}") from e


def _factory(entry: AgentEntry) -> Callable:
    """The entry's factory, imported on first use when it is named by a string."""
    if not isinstance(entry.factory, str):
        return entry.factory
    factory = _named(entry, entry.factory)
    _REGISTRY[entry.name] = replace(entry, factory=factory)
    return factory


def _named(entry: AgentEntry, name: str) -> Callable:
    """The function named ``"module:attr"``, imported now (for ``entry``'s messages)."""
    module, _, attr = name.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except MissingExtraError as e:  # its message already says what to install
        raise MissingExtraError(f"agent {entry.name!r} cannot be built: {e}") from e
    except ImportError as e:
        raise ImportError(f"agent {entry.name!r} cannot be built: importing {module} failed ({e})") from e
    except AttributeError:
        raise ValueError(f"agent {entry.name!r}: {module} has no {attr!r}") from None


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
    "tictacgo.baselines.learning.alphazero.agent",
)
# Built-in agents named so that this module never imports them: those built on the exact search need
# numba (tictacgo.baselines.exact), the course programs' live in a layer above (tictacgo.protocol).
_NAMED_BUILTINS = (
    AgentEntry("solver", "tictacgo.baselines.exact.solver_agent:make_solver_agent", ("littlego",),
               "exact play: its book's proved-best move where the book holds the position (the whole of "
               "3x3 and 4x4), else exact endgame search; another agent's move where no proof comes in time "
               "(fallback=, max_left=, time=, margin=, book=; needs numba)",
               plays_check="tictacgo.solver.search:kernel_position"),
    AgentEntry("perfect", "tictacgo.baselines.exact.perfect:make_perfect_agent", ("littlego",),
               "plays the proof: the proved strategy's move from its book (the course's 5x5 game is a "
               "proved Black win), else a move the exact solver proves wins within the time, else the "
               "fallback's; says which (fallback=, time=, max_left=, book=; needs numba)"),  # checks its
    # variant itself: a move from its book imports no solver (tictacgo my-player: one process a move)
    AgentEntry("championship", "tictacgo.baselines.exact.championship:make_championship_agent", ("littlego",),
               "strong classical player: iterative-deepening alpha-beta on stones, liberties, eyes and room "
               "(weights fitted to exact margins), "
               "the exact solver near the end, no network (time= seconds a move, nodes=, depth=, "
               "max_left=, solve_share=, opening=; needs numba)",
               plays_check="tictacgo.solver.search:kernel_position"),
    AgentEntry("program", "tictacgo.protocol.program_agent:make_program_agent", ("littlego",),
               "any course-protocol program (my_player3.py, a C++ or Java build), run once per move as the "
               "course's host runs it, in its own working folder (cmd= its command line, no commas; "
               "dir= its own folder, copied in first as the course does; time= seconds of wall clock a "
               "move, default 10)"),
)
_loaded = False  # set once the built-in modules are imported


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    for mod in _BUILTIN_MODULES:
        importlib.import_module(mod)  # a broken built-in module must fail loudly, every time
    for entry in _NAMED_BUILTINS:
        _REGISTRY.setdefault(entry.name, entry)
    _loaded = True
