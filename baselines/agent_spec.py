"""Agent specs as data: ``AgentSpec(name, params)``, read once from the text people type.

The text is a name with optional ``key=value`` parameters after a colon,
separated by commas: ``"random"``, ``"alphabeta:depth=2"``,
``"mcts:sims=400,c=1.4"``. Values are read as int, float, bool
(``true``/``false``), None (``none``/``null``) or else kept as strings. A
parameter that takes an agent (policy MCTS's ``policy``) holds an
``AgentSpec`` itself; in text its own parameters are separated by ``;``:
``"policy_mcts:policy=ppo:path=m.zip;sample=true,sims=50"``.

``AgentSpec`` is frozen and hashable (a key for the agents a worker has
built) and pickles as plain data; ``str(spec)`` is its canonical text, the
parameters sorted by name, which reads back as the same spec. A spec read
from text keeps that text in ``text`` (not part of its value: two specs that
differ only in it are equal), so that results name an agent as it was typed
(``spec.label``).
``tictacgo.baselines.registry.parse_agent_spec`` reads text with the
registry's knowledge of which parameters take agents; ``split_spec_text``
here is the syntax alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Separates a nested spec's own parameters in text (``policy=ppo:path=m.zip;sample=true``).
NESTED_SEPARATOR = ";"


@dataclass(frozen=True)
class AgentSpec:
    """A registered agent's name and its parameters.

    Args:
        name: the registry name (``"mcts"``), lower case.
        params: the parameters, a mapping or ``(key, value)`` pairs; values are
            numbers, bools, None, strings or ``AgentSpec`` s. Kept sorted by key,
            so two specs that differ only in the order of their parameters are equal.
        text: the text the spec was read from (None when it was built in code); not
            compared, hashed or shown by ``repr``.

    Raises:
        ValueError: an empty name, a key that is not a non-empty string, or a key given twice.
        TypeError: a value of another type (a list, a dict, ...).
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    text: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"an agent name is a non-empty string, got {self.name!r}")
        if self.text is not None and not isinstance(self.text, str):
            raise TypeError(f"an agent spec's text is a string or None, got {self.text!r}")
        items = list(self.params.items() if isinstance(self.params, Mapping) else self.params)
        seen = set()
        for item in items:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise TypeError(f"agent parameters are a mapping or (key, value) pairs, got {item!r}")
            key, value = item
            if not isinstance(key, str) or not key:
                raise ValueError(f"an agent parameter's name is a non-empty string, got {key!r}")
            if key in seen:
                raise ValueError(f"agent parameter {key!r} is given twice")
            seen.add(key)
            if value is not None and not isinstance(value, (bool, int, float, str, AgentSpec)):
                raise TypeError(f"agent parameter {key!r} must be a number, bool, None, string or "
                                f"AgentSpec, got {value!r} ({type(value).__name__})")
        object.__setattr__(self, "name", self.name.strip().lower())
        object.__setattr__(self, "params", tuple(sorted(items)))

    @property
    def label(self) -> str:
        """How results name this agent: the text it was read from, else its canonical text."""
        return self.text if self.text is not None else str(self)

    def kwargs(self) -> dict[str, Any]:
        """The parameters as a dict (the factory's keyword arguments)."""
        return dict(self.params)

    def replace(self, **params: Any) -> AgentSpec:
        """This spec with some parameters set (or added); the copy has no ``text``."""
        return AgentSpec(self.name, {**self.kwargs(), **params})

    def __str__(self) -> str:
        return self._text(",")

    def _text(self, separator: str) -> str:
        if not self.params:
            return self.name
        return f"{self.name}:" + separator.join(f"{k}={format_value(v)}" for k, v in self.params)


def format_value(value: Any) -> str:
    """A parameter value as spec text, read back by ``parse_value`` (a nested spec with ``;``)."""
    if isinstance(value, AgentSpec):
        return value._text(NESTED_SEPARATOR)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)  # a float's str always reads back as a float (2.0, 1e-05, inf)


def parse_value(text: str) -> Any:
    """``"3"`` -> 3, ``"1.5"`` -> 1.5, ``"true"`` -> True, ``"none"`` -> None, anything else as is."""
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


def split_spec_text(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """The syntax alone: ``"mcts:sims=400,c=1.4"`` -> ``("mcts", [("sims", 400), ("c", 1.4)])``.

    Values are read by ``parse_value``; nested specs stay text here.

    Raises:
        ValueError: not a non-empty string, a part that is not ``key=value``, a key given twice.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("an agent spec is a non-empty string like 'random' or 'mcts:sims=400', "
                         f"got {text!r}")
    name, _, rest = text.strip().partition(":")
    params: list[tuple[str, Any]] = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"agent parameter {part!r} in {text!r} is not of the form key=value")
        if any(k == key for k, _ in params):
            raise ValueError(f"agent parameter {key!r} is given twice in {text!r}")
        params.append((key, parse_value(value.strip())))
    return name.strip().lower(), params


def nested_text(value: str) -> str:
    """A nested spec's text with its ``;`` separators made commas (``ppo:path=m.zip;sample=true``)."""
    return value.replace(NESTED_SEPARATOR, ",")
