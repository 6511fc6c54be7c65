"""The argument checks: what passes, what is refused, and what the message says."""

import math
import sys

import numpy as np
import pytest

from tictacgo.validate import (
    ArgumentTypeError,
    MissingExtraError,
    check_bool,
    check_choice,
    check_installed,
    check_int,
    check_number,
    check_probability,
)


def test_check_int_returns_a_plain_int_for_python_and_numpy_integers():
    assert check_int("games", 3, min=1) == 3
    value = check_int("games", np.int64(3), min=1)
    assert value == 3 and type(value) is int


@pytest.mark.parametrize("value", [True, 2.0, "2", None, [2]])
def test_check_int_refuses_what_is_not_an_integer_with_an_error_of_both_kinds(value):
    with pytest.raises(ArgumentTypeError, match=r"games must be a positive int, got .* \(") as e:
        check_int("games", value, min=1)
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)


@pytest.mark.parametrize(("kwargs", "value", "message"), [
    ({"min": 1}, 0, "n must be a positive int, got 0"),
    ({"min": 0}, -1, "n must be a non-negative int, got -1"),
    ({"min": 2}, 1, "n must be an int >= 2, got 1"),
    ({"min": 0, "max": 23}, 24, r"n must be an int in \[0, 23\], got 24"),
    ({"min": 1, "allow_none": True}, 0, "n must be a positive int or None, got 0"),
    ({"min": 8, "expected": "an int of 8 to 64 pixels"}, 4, "n must be an int of 8 to 64 pixels, got 4"),
])
def test_check_int_names_the_argument_the_bounds_and_the_value(kwargs, value, message):
    with pytest.raises(ValueError, match=message):
        check_int("n", value, **kwargs)


def test_none_passes_only_where_allowed():
    assert check_int("depth", None, min=1, allow_none=True) is None
    assert check_number("time_limit", None, positive=True, allow_none=True) is None
    with pytest.raises(ArgumentTypeError, match="depth must be a positive int, got None"):
        check_int("depth", None, min=1)


def test_check_number_returns_a_float_and_refuses_bools_strings_and_non_finite_values():
    assert check_number("c", np.float32(1.5), min=0) == 1.5
    assert type(check_number("c", 2, min=0)) is float
    for bad in (True, "1.0"):
        with pytest.raises(ArgumentTypeError, match="c must be a finite non-negative number"):
            check_number("c", bad, min=0)
    for bad in (math.inf, math.nan, 10**400):
        with pytest.raises(ValueError, match="z must be a finite positive number"):
            check_number("z", bad, positive=True)


def test_positive_refuses_zero_and_bounds_are_inclusive():
    with pytest.raises(ValueError, match="must be a finite positive number, got 0"):
        check_number("z", 0, positive=True)
    assert check_probability("p", 0) == 0.0 and check_probability("p", 1) == 1.0
    with pytest.raises(ValueError, match=r"p must be a finite number in \[0, 1\], got 1.5"):
        check_probability("p", 1.5)


def test_check_bool_takes_python_and_numpy_bools_only():
    assert check_bool("reuse", np.True_) is True
    with pytest.raises(ArgumentTypeError, match="reuse must be True or False, got 1"):
        check_bool("reuse", 1)


def test_check_choice_lists_the_choices():
    assert check_choice("backend", "ray", ("local", "ray")) == "ray"
    with pytest.raises(ValueError, match=r"backend must be one of \('local', 'ray'\), got 'jax'"):
        check_choice("backend", "jax", ("local", "ray"))
    with pytest.raises(ValueError, match="got"):
        check_choice("backend", ["local"], {"local", "ray"})


def test_check_path_calls_an_empty_path_empty_and_refuses_non_strings():
    from tictacgo.validate import check_path

    assert check_path("path", "runs/m") == "runs/m"
    for empty in ("", "   "):
        with pytest.raises(ValueError, match="path is empty; it must be a file name"):
            check_path("path", empty)
    with pytest.raises(ArgumentTypeError, match=r"path must be a model folder, got 3 \(int\)"):
        check_path("path", 3, "a model folder")


def test_check_installed_names_what_needs_the_module_and_the_extra_that_brings_it(monkeypatch):
    check_installed("numpy", "--anything", "base")  # installed: nothing happens
    with pytest.raises(MissingExtraError) as e:
        check_installed("no_such_module_here", "--actors 2", "ray")
    assert str(e.value) == ("--actors 2 needs no_such_module_here, which is not installed: "
                            "pip install 'tictacgo[ray]'")
    assert isinstance(e.value, ValueError) and isinstance(e.value, ImportError)
    monkeypatch.setitem(sys.modules, "numpy_blocked", None)  # an import blocked on purpose
    with pytest.raises(MissingExtraError, match="needs numpy_blocked"):
        check_installed("numpy_blocked", "--x", "y")
