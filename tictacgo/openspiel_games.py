"""Every registered game as an OpenSpiel game, through pyspiel's Python game API (the ``openspiel`` extra).

    from tictacgo.openspiel_games import register_openspiel_games
    import pyspiel

    register_openspiel_games()          # python_tictacgo_tictactoe, python_tictacgo_littlego, ...
    game = pyspiel.load_game("python_tictacgo_littlego(size=3)")

``register_openspiel_games()`` registers each game of tictacgo's registry
(``tictacgo.games.registry.GAMES``, a game of your own included once it is
registered) as ``python_tictacgo_<name>``: a sequential, deterministic,
perfect-information, zero-sum game with terminal rewards (+1 win, -1 loss,
0 draw), two players (OpenSpiel's player 0 is the first player, colour 1),
``num_distinct_actions`` the game's ``num_actions`` (Little-Go's pass is the
last action, ``size * size``) and ``max_game_length`` its action limit
(``spec.max_actions``; for a game without one whose every action fills a
point, its number of points). Its states play the game's own rules: legal
actions, terminal states and returns are tictacgo's (``game.legal_actions``,
``game.is_terminal``, ``game.returns``), actions are tictacgo's action numbers.

The game's variant parameters are OpenSpiel game parameters
(``python_tictacgo_littlego(size=7,komi=3.5,max_actions=40)``; a komi is
written with a decimal point, as OpenSpiel's parsing requires). A parameter
whose default depends on the others (Little-Go's komi, ``size / 2``, and
action limit, ``size * size - 1``) has a stand-in default in the parameter
specification (NaN for a number, -1 for an integer) that means "the
variant's own default"; the loaded game's parameters (``get_parameters()``,
``str(game)``) are the variant's actual ones, so a game string round-trips.

Observations: the default observation tensor is the game's ``planes``
observation of ``tictacgo.envs`` (``spec.planes``: own, opponent, legal, ...,
shaped ``(C, rows, cols)``) from the observing player's side, so that it
carries who is to move; ``make_observation(game, params={"format": "board"})``
(``open_spiel.python.observation``) gives the player-relative board of the
envs' default observation instead (+1 the observer's stones, -1 the other's),
and ``flat`` and ``planes_hwc`` work too. The observation string is the
game's ``render_ascii`` (the board and the status line); the information
state string is the action history (OpenSpiel's own choice for
perfect-information Python games, ``IIGObserverForPublicInfoGame``).

Both ways between OpenSpiel's bots and tictacgo's agents:
``OpenSpielAgent(game, bot)`` is a tictacgo agent that asks an OpenSpiel bot
(its MCTS, say) for each move, for ``play_game`` and the arena;
``make_openspiel_bot(agent)`` is an OpenSpiel bot that plays a tictacgo agent,
for ``open_spiel.python.algorithms.evaluate_bots``.

This module imports pyspiel only when asked (``register_openspiel_games``,
``load_openspiel_game``, ``make_openspiel_bot``), and says which extra to
install when it is missing. pyspiel's Python games are slower than its C++
games: each step calls into the rules from Python, and OpenSpiel clones a
Python state by building a new one and copying its attributes.
"""

from __future__ import annotations

import inspect
import math
from functools import cache
from typing import Any

import numpy as np

from tictacgo.agent import Agent
from tictacgo.games.base import Game
from tictacgo.games.features import FORMATS, PLANES
from tictacgo.games.registry import GAMES, game_class, make_game

__all__ = ["PREFIX", "openspiel_name", "register_openspiel_games", "load_openspiel_game", "openspiel_state",
           "tictacgo_position", "OpenSpielAgent", "make_openspiel_bot", "require_pyspiel"]

#: The prefix of the OpenSpiel short names: ``python_tictacgo_littlego``.
PREFIX = "python_tictacgo_"
#: What to install when pyspiel is missing.
INSTALL_HINT = ("the OpenSpiel games need the openspiel extra: pip install 'tictacgo[openspiel]' "
                "(pip install -e '.[openspiel]' in a clone)")

# A parameter whose constructor default is None (a default that depends on the other parameters) gets a
# stand-in default of its type in OpenSpiel's parameter specification, meaning "the variant's default".
_UNSET_FLOAT = float("nan")
_UNSET_INT = -1


def require_pyspiel() -> Any:
    """The ``pyspiel`` module.

    Raises:
        ImportError: OpenSpiel is not installed (the message names the ``openspiel`` extra).
    """
    try:
        import pyspiel
    except ImportError as error:
        raise ImportError(f"pyspiel (OpenSpiel) is not installed: {INSTALL_HINT}") from error
    return pyspiel


def openspiel_name(game: Any) -> str:
    """The OpenSpiel short name of a game (name, alias, class or game object): ``python_tictacgo_<name>``."""
    cls = game if isinstance(game, type) and issubclass(game, Game) else game_class(game)
    return PREFIX + cls.name


def _is_unset(value: Any) -> bool:
    return (isinstance(value, float) and math.isnan(value)) or (type(value) is int and value == _UNSET_INT)


def _parameter_specification(cls: type[Game]) -> dict[str, Any]:
    """OpenSpiel's parameter specification of a game class: its constructor's parameters, with their
    defaults (a stand-in where the default is None, typed by the default variant's value)."""
    default_params = cls().params
    spec: dict[str, Any] = {}
    for name, parameter in inspect.signature(cls).parameters.items():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            continue
        default = parameter.default
        if default is None or default is parameter.empty:
            value = default_params.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{cls.__name__}'s parameter {name!r} has no default OpenSpiel can hold "
                                f"(its default variant's value is {value!r})")
            default = _UNSET_FLOAT if isinstance(value, float) else _UNSET_INT
        if not isinstance(default, (bool, int, float, str)):
            raise TypeError(f"{cls.__name__}'s parameter {name!r} has a default OpenSpiel cannot hold: "
                            f"{default!r} (OpenSpiel's parameters are bool, int, float or str)")
        spec[name] = default
    return spec


def _max_game_length(game: Game) -> int:
    spec = game.spec
    if spec.max_actions is not None:
        return int(spec.max_actions)
    if spec.pass_action is None and not spec.captures:
        return spec.num_points  # every action fills a point for good
    raise ValueError(f"{spec.name} has no action limit (spec.max_actions), which OpenSpiel's "
                     "max_game_length needs")


class _Position:
    """A tictacgo game and one of its (immutable) states: what an OpenSpiel state holds.

    OpenSpiel clones a Python state by deep-copying its attributes; the position is immutable, so
    its copy is itself.
    """

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: Any):
        self.game = game
        self.state = state

    def __copy__(self) -> _Position:
        return self

    def __deepcopy__(self, memo: dict) -> _Position:
        return self

    def __reduce__(self):
        return (_Position, (self.game, self.state))


def tictacgo_position(state: Any) -> tuple[Game, Any]:
    """The tictacgo game and state that an OpenSpiel state of these games holds.

    Raises:
        TypeError: not a state of a ``python_tictacgo_*`` game.
    """
    position = getattr(state, "_position", None)
    if not isinstance(position, _Position):
        raise TypeError(f"not a state of a {PREFIX}* game: {state!r}")
    return position.game, position.state


class _Observer:
    """OpenSpiel's Python observer (``tensor``, ``dict``, ``set_from``, ``string_from``) of one variant."""

    def __init__(self, game: Game, params: dict | None):
        params = dict(params or {})
        fmt = params.pop("format", PLANES)
        if params:
            raise ValueError(f"the observer takes only the parameter 'format', got {sorted(params)}")
        if fmt not in FORMATS:
            raise ValueError(f"unknown observation format {fmt!r}; expected one of {FORMATS}")
        self.format = fmt
        shape = game.encoder.observation_shape(fmt)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: Any, player: int) -> None:
        game, position = tictacgo_position(state)
        self.dict["observation"][...] = game.encoder.observe(position, self.format, viewer=player + 1)

    def string_from(self, state: Any, player: int) -> str:
        game, position = tictacgo_position(state)
        return game.render_ascii(position)


@cache
def _classes() -> dict[str, type]:
    """The pyspiel base classes' subclasses (built once, when pyspiel is first needed)."""
    pyspiel = require_pyspiel()
    from open_spiel.python.observation import IIGObserverForPublicInfoGame

    class OpenSpielGame(pyspiel.Game):
        """A tictacgo game variant as a pyspiel game (one subclass per registered game)."""

        tictacgo_name: str = ""
        game_type: Any = None

        def __init__(self, params: dict | None = None):
            given = {k: (None if _is_unset(v) else v) for k, v in (params or {}).items()}
            game = make_game(self.tictacgo_name, **given)
            spec = self.game_type.parameter_specification
            actual = {k: type(spec[k])(v) for k, v in game.params.items() if k in spec}
            info = pyspiel.GameInfo(
                num_distinct_actions=game.num_actions, max_chance_outcomes=0, num_players=2,
                min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=_max_game_length(game))
            super().__init__(self.game_type, info, actual)
            self.tictacgo_game = game

        def new_initial_state(self, state: Any = None) -> OpenSpielState:
            """The initial state, or (``state``: a state of this variant) a state at that position."""
            if isinstance(state, (str, dict)) or hasattr(state, "to_dict"):
                raise NotImplementedError("tictacgo's OpenSpiel games build states from tictacgo states "
                                          "(openspiel_state) or from an action history, not from structs")
            return OpenSpielState(self, None if state is None else _Position(self.tictacgo_game, state))

        def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Any:
            if isinstance(iig_obs_type, dict):  # make_observer(params) without an observation type
                iig_obs_type, params = None, iig_obs_type
            if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
                return _Observer(self.tictacgo_game, params)
            return IIGObserverForPublicInfoGame(iig_obs_type, params)

    class OpenSpielState(pyspiel.State):
        """A state of a tictacgo game as a pyspiel state: it holds the game's immutable state."""

        def __init__(self, game: OpenSpielGame, position: _Position | None = None):
            super().__init__(game)
            tictacgo_game = game.tictacgo_game
            self._position = position or _Position(tictacgo_game, tictacgo_game.initial_state())

        @property
        def tictacgo_game(self) -> Game:
            return self._position.game

        @property
        def tictacgo_state(self) -> Any:
            return self._position.state

        def current_player(self) -> int:
            game, state = self._position.game, self._position.state
            return pyspiel.PlayerId.TERMINAL if game.is_terminal(state) else game.current_player(state) - 1

        def _legal_actions(self, player: int) -> list[int]:
            return self._position.game.legal_actions(self._position.state)

        def _apply_action(self, action: int) -> None:
            game = self._position.game
            self._position = _Position(game, game.play(self._position.state, int(action)))

        def _action_to_string(self, player: int, action: int) -> str:
            game = self._position.game
            return f"{game.spec.player_name(player + 1)} {game.point_label(int(action))}"

        def is_terminal(self) -> bool:
            return self._position.game.is_terminal(self._position.state)

        def returns(self) -> list[float]:
            return [float(r) for r in self._position.game.returns(self._position.state)]

        def __str__(self) -> str:
            return self._position.game.render_ascii(self._position.state)

    class AgentBot(pyspiel.Bot):
        """An OpenSpiel bot that plays a tictacgo agent (``make_openspiel_bot``)."""

        def __init__(self, agent: Any):
            pyspiel.Bot.__init__(self)
            self.agent = agent

        def restart_at(self, state: Any) -> None:
            self.agent.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

        def step(self, state: Any) -> int:
            return int(self.agent.act(tictacgo_position(state)[1]))

    classes = {"game": OpenSpielGame, "state": OpenSpielState, "bot": AgentBot}
    for cls in classes.values():  # module attributes (``__getattr__``), so that pickle finds them
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
    return classes


def _game_type(cls: type[Game]) -> Any:
    pyspiel = require_pyspiel()
    kinds = pyspiel.GameType
    return kinds(
        short_name=openspiel_name(cls), long_name=f"tictacgo {cls().spec.title}",
        dynamics=kinds.Dynamics.SEQUENTIAL, chance_mode=kinds.ChanceMode.DETERMINISTIC,
        information=kinds.Information.PERFECT_INFORMATION, utility=kinds.Utility.ZERO_SUM,
        reward_model=kinds.RewardModel.TERMINAL, max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_parameter_specification(cls))


# The pyspiel game class of each registered game, by class name (``OpenSpiel_littlego``).
_GAME_CLASSES: dict[str, type] = {}


def _class_name(cls: type[Game]) -> str:
    return f"OpenSpiel_{cls.name}"


def __getattr__(name: str) -> Any:
    """The pyspiel classes as module attributes, built when first asked for: pickle finds a pickled
    game or state's class here (pyspiel pickles them as their game string and history)."""
    if name in ("OpenSpielGame", "OpenSpielState", "AgentBot"):
        return _classes()[{"OpenSpielGame": "game", "OpenSpielState": "state", "AgentBot": "bot"}[name]]
    if name.startswith("OpenSpiel_"):
        if name not in _GAME_CLASSES:
            register_openspiel_games([cls for cls in GAMES.values() if _class_name(cls) == name])
        if name in _GAME_CLASSES:
            return _GAME_CLASSES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register_openspiel_games(names: Any = None) -> list[str]:
    """Register tictacgo's games with OpenSpiel (pyspiel) as ``python_tictacgo_<name>``.

    Safe to call again: a name pyspiel already knows is left as it is, and a game registered with
    tictacgo since the last call joins.

    Args:
        names: the games to register (names, aliases or classes); default: every game in
            ``tictacgo.games.registry.GAMES``.
    Returns:
        The OpenSpiel short names of those games, in order.
    Raises:
        ImportError: pyspiel is not installed (the ``openspiel`` extra).
        ValueError: an unknown game name.
    """
    pyspiel = require_pyspiel()
    base = _classes()["game"]
    classes = [game_class(n) if not isinstance(n, type) else n
               for n in (list(GAMES) if names is None else names)]
    known = set(pyspiel.registered_names())
    registered = []
    for cls in classes:
        short_name = openspiel_name(cls)
        if short_name not in known:
            game_type = _game_type(cls)
            subclass = type(_class_name(cls), (base,), {"tictacgo_name": cls.name, "game_type": game_type,
                                                      "__module__": __name__})
            pyspiel.register_game(game_type, subclass)
            _GAME_CLASSES[subclass.__name__] = subclass
            known.add(short_name)
        registered.append(short_name)
    return registered


def load_openspiel_game(game: Any, **params: Any) -> Any:
    """The OpenSpiel game of a tictacgo game and variant: ``load_openspiel_game("littlego", size=3)``.

    Registers the game with pyspiel first (``register_openspiel_games``). A game object stands for its
    variant (its ``params``).

    Raises:
        ImportError: pyspiel is not installed (the ``openspiel`` extra).
        ValueError: an unknown game; pyspiel's error for a parameter the game does not take.
    """
    pyspiel = require_pyspiel()
    if isinstance(game, Game):
        params = {**game.params, **params}
    cls = game_class(game) if not isinstance(game, type) else game
    short_name = register_openspiel_games([cls])[0]
    spec = _parameter_specification(cls)
    typed = {k: (type(spec[k])(v) if k in spec and not isinstance(v, bool) else v)
             for k, v in params.items() if v is not None}
    return pyspiel.load_game(short_name, typed)


def openspiel_state(openspiel_game: Any, state: Any) -> Any:
    """An OpenSpiel state of ``openspiel_game`` (a ``python_tictacgo_*`` game) at the tictacgo ``state``.

    Its OpenSpiel history is empty (the tictacgo state need not say how it was reached); search
    bots need none.

    Raises:
        TypeError: not a ``python_tictacgo_*`` game.
        ValueError: ``state`` is not a state of that game's variant.
    """
    game = getattr(openspiel_game, "tictacgo_game", None)
    if not isinstance(game, Game):
        raise TypeError(f"not a {PREFIX}* game: {openspiel_game!r}")
    carried = getattr(state, "game", game)  # Little-Go's states carry their variant
    if isinstance(carried, Game) and carried != game:
        raise ValueError(f"a state of {carried!r} is no state of {game!r}")
    return openspiel_game.new_initial_state(state)


class OpenSpielAgent(Agent):
    """A tictacgo agent that plays an OpenSpiel bot: ``OpenSpielAgent(game, bot)``.

    Each move, the bot's ``step`` gets an OpenSpiel state of the position (``openspiel_state``), so the
    bot must need no history: MCTS and other search bots are fine.

    Args:
        game: the tictacgo game object.
        bot: a ``pyspiel.Bot`` (``open_spiel.python.algorithms.mcts.MCTSBot``, ...), built for
            ``openspiel_game``; or a callable ``f(openspiel_game) -> bot``.
        openspiel_game: the OpenSpiel game of ``game`` (default: ``load_openspiel_game(game)``).
        rng: unused by the agent (a bot draws from its own generator).
        name: the agent's name (default ``"openspiel"``).
    """

    name = "openspiel"

    def __init__(self, game: Game, bot: Any, openspiel_game: Any = None,
                 rng: np.random.Generator | None = None, name: str | None = None):
        super().__init__(game, rng)
        self.openspiel_game = load_openspiel_game(game) if openspiel_game is None else openspiel_game
        self.bot = bot(self.openspiel_game) if callable(bot) and not hasattr(bot, "step") else bot
        if name:
            self.name = name

    def act(self, state: Any) -> int:
        return int(self.bot.step(openspiel_state(self.openspiel_game, state)))


def make_openspiel_bot(agent: Any) -> Any:
    """An OpenSpiel bot (``pyspiel.Bot``) that plays a tictacgo agent (an ``Agent``, say from
    ``tictacgo.baselines.make_agent``), for OpenSpiel's ``evaluate_bots`` and its other bot tools.

    Its ``step`` asks the agent for the move of the tictacgo state an OpenSpiel state of these games
    holds; ``restart_at`` resets the agent.

    Raises:
        ImportError: pyspiel is not installed (the ``openspiel`` extra).
    """
    return _classes()["bot"](agent)
