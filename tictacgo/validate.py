"""Argument checks with one wording, for every public function and class of the package.

    games = check_int("games", games, min=1)            # 'games must be a positive int, got 0'
    c = check_number("c", c, min=0)                      # a finite float >= 0
    limit = check_number("time_limit", limit, positive=True, allow_none=True)
    gamma = check_probability("gamma", gamma)            # a finite float in [0, 1]
    check_options(args, {"max_mb": {"positive": True}})  # a command's options, named by their flags

Each check returns the value as a plain ``int``, ``float`` or ``bool`` (numpy
scalars accepted) or raises an error that names the argument, says what was
expected and shows what came. A value of the wrong type raises
``ArgumentTypeError``, which is both a ``TypeError`` and a ``ValueError``: a
boundary that turns bad input into a message (the CLI, a config loader)
catches ``ValueError`` for every bad argument. ``True`` and ``False`` are
never numbers here.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Any

import numpy as np


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ``ValueError``, so one ``except ValueError`` catches
    every bad argument)."""


class MissingExtraError(ImportError, ValueError):
    """An optional dependency (an extra of the distribution) is missing; the message names the
    extra that brings it (``the solver needs numba: pip install 'tictacgo[fast]'``).

    Also a ``ValueError``, so that a boundary refusing bad arguments before any work (the CLI's
    exit status 2) refuses an agent that cannot be built here in the same one line.
    """


def check_installed(module: str, needed_by: str, extra: str) -> None:
    """Refuse a setting that needs an optional dependency that is not installed, naming its extra.

    Args:
        module: the module to find (``"ray"``); it is looked up, not imported.
        needed_by: what needs it, as the user wrote it (``"--actors 2"``).
        extra: the distribution's extra that installs it.

    Raises:
        MissingExtraError: ``module`` cannot be imported here
            (``--actors 2 needs ray, which is not installed: pip install 'tictacgo[ray]'``).
    """
    import importlib.util
    import sys

    try:
        found = sys.modules[module] is not None if module in sys.modules \
            else importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingExtraError(f"{needed_by} needs {module}, which is not installed: "
                                f"pip install 'tictacgo[{extra}]'")


def _bounds(kind: str, min: float | None, max: float | None) -> str:
    if min is not None and max is not None:
        return f"{kind} in [{min}, {max}]"
    if min == 0:
        return f"non-negative {kind}"
    if min == 1 and kind == "int":
        return "positive int"
    if min is not None:
        return f"{kind} >= {min}"
    if max is not None:
        return f"{kind} <= {max}"
    return kind


def _article(text: str) -> str:
    return ("an " if text[0] in "aeiou" else "a ") + text


def _expected(text: str, allow_none: bool) -> str:
    return text + (" or None" if allow_none else "")


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(name: str, value: Any, *, min: int | None = None, max: int | None = None,
              allow_none: bool = False, expected: str | None = None) -> int | None:
    """``value`` as an int in ``[min, max]`` (either bound optional), or None if ``allow_none``.

    Args:
        name: the argument's name, as the caller knows it.
        value: what was passed (Python or numpy integers; not bools).
        min: the smallest value allowed.
        max: the largest value allowed.
        allow_none: None passes (and is returned).
        expected: what to call a good value in the message (default: from the bounds,
            e.g. "a positive int", "an int in [0, 23]").

    Returns:
        ``int(value)``, or None.

    Raises:
        ArgumentTypeError: not an integer (bools included).
        ValueError: outside the bounds.
    """
    if value is None and allow_none:
        return None
    want = _expected(expected or _article(_bounds("int", min, max)), allow_none)
    if not _is_int(value):
        raise ArgumentTypeError(f"{name} must be {want}, got {value!r} ({type(value).__name__})")
    value = int(value)
    if (min is not None and value < min) or (max is not None and value > max):
        raise ValueError(f"{name} must be {want}, got {value!r}")
    return value


def check_number(name: str, value: Any, *, min: float | None = None, max: float | None = None,
                 positive: bool = False, allow_none: bool = False,
                 expected: str | None = None) -> float | None:
    """``value`` as a finite float in ``[min, max]`` (above 0 if ``positive``), or None if ``allow_none``.

    Args:
        name: the argument's name, as the caller knows it.
        value: what was passed (Python or numpy ints and floats; not bools).
        min: the smallest value allowed.
        max: the largest value allowed.
        positive: the value must be above 0 (0 itself is refused).
        allow_none: None passes (and is returned).
        expected: what to call a good value in the message (default: from the bounds,
            e.g. "a finite positive number", "a finite number in [0, 1]").

    Returns:
        ``float(value)``, or None.

    Raises:
        ArgumentTypeError: not a real number (bools and strings included).
        ValueError: infinite, NaN or outside the bounds.
    """
    if value is None and allow_none:
        return None
    bounds = "positive number" if positive and min is None and max is None else _bounds("number", min, max)
    want = _expected(expected or f"a finite {bounds}", allow_none)
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be {want}, got {value!r} ({type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        number = math.inf
    if not math.isfinite(number) or (positive and number <= 0) or (min is not None and number < min) \
            or (max is not None and number > max):
        raise ValueError(f"{name} must be {want}, got {value!r}")
    return number


def check_probability(name: str, value: Any) -> float:
    """``value`` as a float in ``[0, 1]``.

    Raises:
        ArgumentTypeError: not a real number.
        ValueError: outside ``[0, 1]`` or NaN.
    """
    return check_number(name, value, min=0, max=1)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool (Python or numpy; 0 and 1 are not bools).

    Raises:
        ArgumentTypeError: anything else.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ArgumentTypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")


def check_choice(name: str, value: Any, choices: Collection[Any]) -> Any:
    """``value`` if it is one of ``choices``.

    Raises:
        ValueError: it is not (the message lists the choices).
    """
    try:
        ok = value in choices
    except TypeError:  # an unhashable value asked of a set
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_options(args: Any, options: dict[str, dict[str, Any]]) -> None:
    """Check a command's numeric options in one place, each named by its flag (``max_mb`` as
    ``--max-mb``): an option parsed as a float must be a finite number in its bounds
    (``check_number``), one parsed as an int an int in them (``check_int``; ``positive`` means at
    least 1).

        check_options(args, {"max_mb": {"positive": True, "max": 1 << 20},
                             "max_actions": {"min": 1, "max": 127, "allow_none": True}})

    Args:
        args: the parsed arguments (an ``argparse.Namespace``).
        options: each option's ``dest`` -> its bounds (``min``, ``max``, ``positive``, ``allow_none``).
    Raises:
        ValueError: the first option refused (``--max-mb must be a finite positive number ..., got inf``).
    """
    for dest, bounds in options.items():
        value, flag = getattr(args, dest), "--" + dest.replace("_", "-")
        bounds = dict(bounds)
        if bounds.pop("allow_none", False) and value is None:  # the option was left out
            continue
        if isinstance(value, float):
            check_number(flag, value, **bounds)
        else:
            if bounds.pop("positive", False):
                bounds["min"] = max(1, bounds.get("min") or 1)
            check_int(flag, value, **bounds)


# -- settings dataclasses ----------------------------------------------------------------------
#
# A settings dataclass (a training run's configuration) declares each numeric
# field's bounds once, in the field's metadata (``min``, ``max``, ``positive``,
# ``expected``; ``choices`` for a field with a fixed set of values), and
# ``check_settings`` checks every field against them, naming the field as the
# command line knows it (``--min-buffer``), before anything is written.

def setting_flag(f: Any) -> str:
    """The command-line name of a settings field: its first ``flags`` entry, else ``--field-name``."""
    flags = f.metadata.get("flags")
    return flags[0] if flags else "--" + f.name.replace("_", "-")


def _field_kind(hint: Any) -> tuple[Any, bool, bool]:
    """``(type, is_list, allows_none)`` of a field's annotation: ``int | None`` -> ``(int, False, True)``."""
    import types
    import typing

    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        kind, is_list, _ = _field_kind(args[0]) if len(args) == 1 else (object, False, False)
        return kind, is_list, True
    if origin is list:
        (item,) = typing.get_args(hint) or (object,)
        return item, True, False
    return hint, False, False


def check_setting(f: Any, hint: Any, value: Any, name: str | None = None) -> None:
    """Check one settings field's ``value`` against the bounds in its metadata (see ``check_settings``).

    Args:
        f: the ``dataclasses.Field``.
        hint: its resolved annotation (``int``, ``float``, ``bool``, ``str``, ``list[int]``, ``X | None``).
        value: the value to check.
        name: what to call it in a message (default: ``setting_flag(f)``).

    Raises:
        ValueError: a value of the wrong type, not finite, out of bounds or not one of the choices.
    """
    name = name or setting_flag(f)
    meta = f.metadata
    kind, is_list, allow_none = _field_kind(hint)
    if value is None and allow_none:
        return
    if is_list:
        if not isinstance(value, list):
            raise ArgumentTypeError(f"{name} must be a list, got {value!r}")
        items = value
    else:
        items = [value]
    bounds = {k: meta[k] for k in ("min", "max", "expected") if k in meta}
    for item in items:
        if kind is bool:
            check_bool(name, item)
        elif kind is int:
            check_int(name, item, **bounds)
        elif kind is float:
            check_number(name, item, positive=meta.get("positive", False), **bounds)
        elif kind is str and not isinstance(item, str):
            raise ArgumentTypeError(f"{name} must be a string, got {item!r} ({type(item).__name__})")
        if "choices" in meta:
            check_choice(name, item, meta["choices"])


def check_settings(settings: Any, *, name: Any = setting_flag) -> None:
    """Check every field of the settings dataclass instance ``settings`` against its metadata's bounds.

    A field's metadata may hold ``min`` and ``max`` (inclusive bounds),
    ``positive`` (a float above 0), ``expected`` (the wording of a good value)
    and ``choices``. Its annotation says the type: an ``int`` field takes
    ints, a ``float`` field any finite real number (never NaN or infinity),
    ``X | None`` also None, ``list[X]`` a list whose items are each checked.

    Args:
        settings: a dataclass instance.
        name: called with a field to name it in a message (default: its command-line flag).

    Raises:
        ValueError: the first field whose value is refused; the message names the
            field, says what was expected and shows the value.
    """
    import dataclasses
    import typing

    hints = typing.get_type_hints(type(settings))
    for f in dataclasses.fields(settings):
        check_setting(f, hints[f.name], getattr(settings, f.name), name(f))


def check_path(name: str, value: Any, expected: str = "a file name") -> str:
    """``value`` as a non-empty path string (``path=`` with nothing after it is a mistake, not ``.``).

    Raises:
        ArgumentTypeError: not a string (a number, a bool).
        ValueError: an empty or blank string.
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be {expected}, got {value!r} ({type(value).__name__})")
    if not value.strip():
        raise ValueError(f"{name} is empty; it must be {expected}")
    return value
