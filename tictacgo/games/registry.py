"""The registry of games: a name (and its aliases) for each game class, and ``make_game`` to build one.

``register_game(TicTacToe, aliases=("ttt",))`` is all a game does to join:
each game module registers its class when it is imported, and a game of
your own (a test's Connect-Three, say) registers the same way. Code at the
edges (CLI, envs, arena) builds a game with ``make_game(name, **params)``
and passes the object down; everything else it needs (rules, batched
engine, drawings, playouts, words) it asks the object for. The layers above
build their own entries from this table: ``tictacgo.registration`` the
Gymnasium ids, ``tictacgo.envs`` the PettingZoo and vector env factories.

The registry names no module above ``tictacgo.games`` and imports no game:
the game modules import it.

**Games from outside the package** (``load_plugins``), as Gymnasium and
pytest find theirs: a distribution that declares an entry point in the
group ``tictacgo.games`` (``othello = "my_games.othello"`` or
``"my_games.othello:Othello"``: the module is imported, and a ``Game``
subclass it names is registered), and the modules named by the
``TICTACGO_GAME_MODULES`` environment variable (dotted module names or
paths of ``.py`` files, separated by the path separator; the command line's
``--game-module`` sets it, so worker processes, which inherit it, load the
same games). A name the registry does not know makes it load them (once)
before it refuses the name.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tictacgo.games.base import Game

#: The registered game classes by name (``GAMES["littlego"] is LittleGo``).
GAMES: dict[str, type[Game]] = {}
_ALIASES: dict[str, str] = {}


def register_game(cls: type[Game], aliases: tuple[str, ...] = (), replace: bool = False) -> type[Game]:
    """Make the game class ``cls`` known by its ``name`` and ``aliases`` (``make_game`` takes either).

    Args:
        cls: a ``Game`` subclass with a ``name`` (lower case).
        aliases: other names for it.
        replace: allow a name already taken by another class to be taken over.
    Returns:
        ``cls`` (so it can decorate the class).
    Raises:
        TypeError: ``cls`` is not a ``Game`` subclass.
        ValueError: a name already taken by another game (without ``replace``).
    """
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"register_game takes a Game subclass, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name or name != name.strip().lower():
        raise ValueError(f"{cls.__name__}.name must be a non-empty lower-case name, got {name!r}")
    names = [name, *(a.strip().lower() for a in aliases)]
    for n in names:
        owner = _ALIASES.get(n)
        if owner is not None and GAMES[owner] is not cls and not replace:
            raise ValueError(f"the game name {n!r} is taken by {GAMES[owner].__name__}; pick another "
                             "name or pass replace=True")
    GAMES[name] = cls
    for n in names:
        _ALIASES[n] = name
    _draw_states(cls)
    return cls


def _draw_states(cls: type[Game]) -> None:
    """Give the state class of ``cls`` a ``_repr_svg_`` (a notebook's picture) where it has none: the
    state's own ``game`` if it carries one, else the game's default variant, draws it (``svg``)."""
    try:
        default = cls()
        state_type = type(default.initial_state())
    except Exception:  # noqa: BLE001 - a game without a default variant: its states stay as they are
        return
    if hasattr(state_type, "_repr_svg_"):
        return

    def _repr_svg_(state) -> str:
        game = getattr(state, "game", None)
        return (game if isinstance(game, cls) else default).svg(state)

    try:
        state_type._repr_svg_ = _repr_svg_
    except (TypeError, AttributeError):  # a built-in type (tuple, dict) takes no new method
        pass


def unregister_game(name: str) -> None:
    """Forget the game ``name`` and its aliases (a test's game, once the test is over)."""
    cls = GAMES.pop(game_class(name).name)
    for alias in [a for a, n in _ALIASES.items() if n == cls.name]:
        del _ALIASES[alias]


def game_class(name: Any) -> type[Game]:
    """The game class of a name, alias or game object.

    Raises:
        TypeError: neither a name nor a registered game's object.
        ValueError: an unknown name.
    """
    if not isinstance(name, str):
        cls = type(name)
        if isinstance(name, Game) and GAMES.get(cls.name) is not cls:
            load_plugins()  # a plugin's game object, met before its plugin was loaded (a worker process)
        if not isinstance(name, Game) or GAMES.get(cls.name) is not cls:
            raise TypeError(f"expected a game name or game object, got {name!r}")
        return cls
    key = _ALIASES.get(name.strip().lower())
    if key is None and load_plugins():  # a game from outside the package, not loaded yet
        key = _ALIASES.get(name.strip().lower())
    if key is None:
        raise ValueError(f"unknown game {name!r}; expected one of {sorted(GAMES)} (a game of your own: "
                         f"--game-module FILE_OR_MODULE, ${MODULES_ENV}, or an entry point in the group "
                         f"{PLUGIN_GROUP!r})")
    return GAMES[key]


#: The entry-point group of games from other distributions.
PLUGIN_GROUP = "tictacgo.games"
#: The environment variable naming game modules to import (separated by ``os.pathsep``).
MODULES_ENV = "TICTACGO_GAME_MODULES"
_loaded: set[str] = set()  # the plugins imported so far (entry points and modules)


def load_plugins(modules: Iterable[str] = ()) -> list[str]:
    """Import the games from outside the package (see the module docstring): ``modules`` (added to
    ``$TICTACGO_GAME_MODULES`` for the processes this one starts), the variable's modules and the
    entry points of ``tictacgo.games``, each once. Returns what was loaded now.

    Raises:
        ValueError: a module or entry point that cannot be imported, named with the error.
    """
    modules = [m for m in modules if m]
    if modules:
        known = [m for m in os.environ.get(MODULES_ENV, "").split(os.pathsep) if m]
        os.environ[MODULES_ENV] = os.pathsep.join(dict.fromkeys([*known, *modules]))
    wanted = [m for m in os.environ.get(MODULES_ENV, "").split(os.pathsep) if m]
    done = []
    for spec in wanted:
        if spec not in _loaded:
            _loaded.add(spec)
            _import_module(spec)
            done.append(spec)
    from importlib.metadata import entry_points

    for ep in entry_points(group=PLUGIN_GROUP):
        key = f"entry point {ep.name} = {ep.value}"
        if key in _loaded:
            continue
        _loaded.add(key)
        try:
            obj = ep.load()
        except Exception as e:  # noqa: BLE001 - a broken plugin: one line naming it
            raise ValueError(f"the game plugin {ep.name!r} ({ep.value}) cannot be loaded: "
                             f"{type(e).__name__}: {e}") from None
        if isinstance(obj, type) and issubclass(obj, Game) and GAMES.get(getattr(obj, "name", "")) is not obj:
            register_game(obj)
        done.append(key)
    return done


def _import_module(spec: str) -> None:
    """Import a game module: a path of a ``.py`` file (as a module named after the file) or a dotted
    module name."""
    try:
        if spec.endswith(".py") or os.sep in spec:
            path = Path(spec).expanduser().resolve()
            if not path.is_file():
                raise FileNotFoundError(f"no file {path}")
            name = path.stem
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module  # so that its classes pickle by name in worker processes
            sys.path.insert(0, str(path.parent))  # and its own helper modules beside it import
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)
    except Exception as e:  # noqa: BLE001 - a module that fails to import: one line naming it
        raise ValueError(f"the game module {spec!r} cannot be imported: {type(e).__name__}: {e}") from None


def class_of(game: Any) -> type[Game]:
    """The game class of a ``Game`` subclass (itself, registered or not), a name, alias or game object.

    Raises:
        TypeError / ValueError: as ``game_class``.
    """
    return game if isinstance(game, type) and issubclass(game, Game) else game_class(game)


def versioned_name(game: Any) -> str:
    """The game's class name and version, ``LittleGo-v0``: its Gymnasium id."""
    cls = class_of(game)
    return f"{cls.__name__}-v{cls.version}"


def versioned_module(game: Any) -> str:
    """The game's name and version, ``littlego_v0``: its PettingZoo module (see ``tictacgo.envs``)."""
    cls = class_of(game)
    return f"{cls.name}_v{cls.version}"


#: ``game_entry`` was the name of ``game_class`` when entries were records; kept so old code runs.
game_entry = game_class
#: The type of a registry entry: a game class.
GameEntry = type


def make_game(game: Any, **params: Any) -> Game:
    """A game object from a name and its variant's parameters.

    ``make_game("littlego", size=7)`` is ``LittleGo(size=7)``; a game object
    is returned as it is (with no parameters) or rebuilt with them.

    Args:
        game: a game name (or alias), or a game object.
        **params: the variant (Little-Go: ``size``, ``komi``, ``max_actions``;
            Tic-Tac-Toe: none). None values mean the default.
    Raises:
        ValueError: an unknown game, or a parameter the game does not take.
    """
    if not isinstance(game, str):
        if not params:
            game_class(game)
            return game
        params = {**game.params, **params}
    cls = game_class(game)
    params = {k: v for k, v in params.items() if v is not None}
    accepted = list(inspect.signature(cls).parameters)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) if accepted else "no parameters"
        raise ValueError(f"{cls.name} takes {takes}; got unknown parameter(s) {', '.join(unknown)}")
    return cls(**params)
