"""Command-line options generated from a settings dataclass: one option per field.

A settings dataclass (``TrainConfig``, a script's ``Args``) gives each field
its default and its help text once, with ``setting(default, help, ...)``
(``tictacgo.baselines.learning.training_config``): the field's
``metadata["help"]``, and optionally ``flags``, ``choices``, ``metavar`` and
``default_text``. ``add_options`` turns the fields into argparse options:

* a bool is ``--flag`` / ``--no-flag``;
* a list option may be repeated, the values of every use replacing the
  default in order; with one flag it takes one or more values a use
  (``--net-arch 64 64``), with several the first takes one value a use and
  the others several (``--opponent a --opponent b`` is ``--opponents a b``);
  numbers in a list may also be written ``64,64``;
* ``int | None`` and the like take the type without None (None: not given);
* every option's help ends with its default.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class _ListOption(argparse.Action):
    """A list option: the values of every use, in order, in place of the default."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = getattr(namespace, self.dest)
        current = [] if current is self.default else list(current)
        for value in (values if self.nargs is not None else [values]):
            current.extend(value if isinstance(value, list) else [value])  # 64,64 is a list
        setattr(namespace, self.dest, current)


def _numbers(kind: type) -> Callable[[str], list]:
    def parse(text: str) -> list:
        try:
            return [kind(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind.__name__}s such as 64 or 64,64, got {text!r}") \
                from None
    parse.__name__ = f"{kind.__name__} list"
    return parse


def _base_type(hint: Any) -> tuple[Any, bool]:
    """``(type, is_list)``: ``int | None`` -> ``(int, False)``, ``list[str]`` -> ``(str, True)``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _base_type(args[0]) if len(args) == 1 else (str, False)
    if origin is list:
        (item,) = typing.get_args(hint) or (str,)
        return item, True
    return hint, False


def _shown(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def add_options(parser: argparse.ArgumentParser, defaults: Any, positional: Sequence[str] = ()) -> None:
    """Add one option per field of the dataclass instance ``defaults``, with its values as defaults.

    Args:
        parser: the parser to add to.
        defaults: an instance of a settings dataclass (its values are the defaults).
        positional: fields taken as required positional arguments instead of options.

    Raises:
        TypeError: ``defaults`` is not a dataclass instance, or a field has no help text.
    """
    if not dataclasses.is_dataclass(defaults) or isinstance(defaults, type):
        raise TypeError(f"defaults must be a dataclass instance, got {defaults!r}")
    hints = typing.get_type_hints(type(defaults))
    for f in dataclasses.fields(defaults):
        meta = f.metadata
        if "help" not in meta:
            raise TypeError(f"field {f.name!r} of {type(defaults).__name__} has no help text (use setting())")
        kind, is_list = _base_type(hints[f.name])
        value = getattr(defaults, f.name)
        kw: dict[str, Any] = {"help": meta["help"]}
        for key in ("choices", "metavar"):
            if key in meta:
                kw[key] = meta[key]
        if f.name in positional:
            parser.add_argument(f.name, type=kind, **kw)
            continue
        flags = meta.get("flags", ("--" + f.name.replace("_", "-"),))
        if kind is bool:
            kw.update(action=argparse.BooleanOptionalAction)
        elif is_list:
            item = _numbers(kind) if kind in (int, float) else kind
            kw.update(action=_ListOption, type=item)
            if len(flags) > 1:  # the first flag one value a use; the others several (listed in the help)
                parser.add_argument(*flags[1:], dest=f.name, default=value, action=_ListOption, type=item,
                                    nargs="+", metavar=kw.get("metavar"), help=argparse.SUPPRESS)
                flags = flags[:1]
            else:
                kw["nargs"] = "+"
        else:
            kw.update(type=kind)
        action = parser.add_argument(*flags, dest=f.name, default=value, **kw)
        if "(default:" not in (action.help or ""):
            shown = meta.get("default_text", _shown(value))
            action.help = f"{action.help} (default: {shown.replace('%', '%%')})"


def parse_options(defaults: T, argv: Sequence[str] | None = None, description: str = "") -> T:
    """A settings dataclass from the command line, starting from ``defaults`` (``--help`` lists every field).

    Args:
        defaults: an instance of the settings dataclass (e.g. a script's recipe).
        argv: the arguments (None: ``sys.argv[1:]``).
        description: the parser's description.
    """
    parser = argparse.ArgumentParser(description=description)
    add_options(parser, defaults)
    return dataclasses.replace(defaults, **vars(parser.parse_args(argv)))
