"""``--inference-precision auto``: bfloat16 where the CPU has AMX-BF16 or AVX512-BF16, float32 elsewhere
(``alphazero.precision``), as training, its log, model.json and the Ray actors use it.

The CPU is faked: ``precision.CPUINFO`` points at a file written here, so both branches run on any machine.
"""

from __future__ import annotations

import json

import pytest

from tictacgo.baselines.learning.alphazero import precision
from tictacgo.baselines.learning.alphazero.precision import PRECISION_CHOICES, resolve_precision

INTEL_AMX = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f amx_tile amx_bf16 amx_int8\n"
AVX512_BF16 = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16\n\nprocessor\t: 1\nflags\t: fpu\n"
PLAIN = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n"
ARM = "processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n"  # Arm's bf16 is not one of the x86 instruction sets


@pytest.fixture
def fake_cpu(tmp_path, monkeypatch):
    """``fake_cpu(text)``: /proc/cpuinfo reads ``text`` (None: the file does not exist)."""
    def use(text: str | None):
        path = tmp_path / "cpuinfo"
        if text is not None:
            path.write_text(text)
        monkeypatch.setattr(precision, "CPUINFO", path)
    return use


@pytest.mark.parametrize("cpuinfo, used, named", [
    (INTEL_AMX, "bfloat16", "AMX-BF16"),
    (AVX512_BF16, "bfloat16", "AVX512-BF16"),
    (PLAIN, "float32", "neither AMX-BF16 nor AVX512-BF16"),
    (ARM, "float32", "neither"),
])
def test_auto_picks_bfloat16_only_where_the_cpu_lists_amx_bf16_or_avx512_bf16(fake_cpu, cpuinfo, used, named):
    fake_cpu(cpuinfo)
    picked = resolve_precision("auto")
    assert picked.used == used
    assert picked.reason.startswith(f"inference precision auto: {used}") and named in picked.reason


def test_without_proc_cpuinfo_auto_keeps_float32_and_says_why(fake_cpu):
    fake_cpu(None)
    picked = resolve_precision("auto")
    assert picked.used == "float32"
    assert picked.reason.startswith("inference precision auto: float32, the CPU has neither")
    assert "absent" in picked.reason


def test_auto_keeps_float32_off_the_cpu_and_a_named_precision_is_kept_as_asked(fake_cpu):
    fake_cpu(INTEL_AMX)
    assert resolve_precision("auto", "cuda").used == "float32"
    assert resolve_precision("auto", "cuda:0").reason.startswith("inference precision auto: float32 on cuda")
    assert resolve_precision("auto", "cpu").used == "bfloat16"
    fake_cpu(PLAIN)
    assert resolve_precision("bfloat16").used == "bfloat16" and resolve_precision("float32").used == "float32"
    with pytest.raises(ValueError, match=r"one of \('float32', 'bfloat16', 'auto'\), got 'float16'"):
        resolve_precision("float16")
    assert PRECISION_CHOICES == ("float32", "bfloat16", "auto")


# -- where it is used: training, the Ray actors, the command line -----------------------------------------

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero import train as train_module  # noqa: E402
from tictacgo.baselines.learning.alphazero.actors import ActorSettings, SelfPlayWorker  # noqa: E402
from tictacgo.baselines.learning.alphazero.network import Architecture  # noqa: E402
from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig, train  # noqa: E402
from tictacgo.games import TicTacToe  # noqa: E402

TINY = {"channels": 8, "blocks": 1, "num_games": 8, "simulations": 2, "batch_size": 16, "min_buffer": 16,
        "buffer_size": 500, "max_positions": 32, "max_seconds": 0, "checkpoint_every": 1e9, "progress": False,
        "tensorboard": False, "device": "cpu"}


@pytest.mark.parametrize("cpuinfo, used", [(AVX512_BF16, "bfloat16"), (PLAIN, "float32")])
def test_a_training_run_with_auto_says_what_it_picked_in_its_log_and_model_json(tmp_path, fake_cpu,
                                                                                monkeypatch, cpuinfo, used):
    fake_cpu(cpuinfo)
    built = []

    class Recording(train_module.NetworkEvaluator):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self.precision)

    monkeypatch.setattr(train_module, "NetworkEvaluator", Recording)
    lines: list[str] = []
    train(AlphaZeroConfig(**TINY, out=str(tmp_path / "run"), inference_precision="auto"), log=lines.append)
    assert built == [used]
    assert any(line.startswith(f"inference precision auto: {used}") for line in lines), lines
    meta = json.loads((tmp_path / "run" / "model.json").read_text())
    assert meta["info"]["inference_precision"] == used
    assert meta["info"]["config"]["inference_precision"] == "auto"  # the setting as asked


def test_a_float32_run_logs_no_precision_line_and_records_float32(tmp_path, fake_cpu):
    fake_cpu(INTEL_AMX)  # a bfloat16 CPU: a named precision is still what runs
    lines: list[str] = []
    train(AlphaZeroConfig(**TINY, out=str(tmp_path / "run"), inference_precision="float32"), log=lines.append)
    assert not any("inference precision" in line for line in lines)
    meta = json.loads((tmp_path / "run" / "model.json").read_text())
    assert meta["info"]["inference_precision"] == "float32"


@pytest.mark.parametrize("cpuinfo, used", [(INTEL_AMX, "bfloat16"), (PLAIN, "float32")])
def test_a_ray_actor_resolves_auto_by_its_own_cpu(fake_cpu, cpuinfo, used):
    fake_cpu(cpuinfo)
    cfg = AlphaZeroConfig(**TINY, inference_precision="auto")
    settings = ActorSettings.of_run(cfg, Architecture.for_variant(TicTacToe(), channels=8, blocks=1))
    assert settings.precision == "auto"  # sent as asked; each actor resolves it where it runs
    worker = SelfPlayWorker(settings, (0, (1,)))
    assert worker.precision == used and worker.evaluator.precision == used


def test_the_command_line_takes_inference_precision_auto():
    import argparse

    from tictacgo.cli.train_alphazero import add_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cfg = config_from_args(parser.parse_args(["littlego", "--inference-precision", "auto"]))
    assert cfg.inference_precision == "auto"
    assert '"auto"' in parser.format_help()
    with pytest.raises(SystemExit):
        parser.parse_args(["littlego", "--inference-precision", "half"])


def test_auto_is_the_default_of_a_run_and_of_the_command_line():
    import argparse

    from tictacgo.cli.train_alphazero import add_arguments, config_from_args

    assert AlphaZeroConfig(**TINY).inference_precision == "auto"
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert config_from_args(parser.parse_args(["littlego"])).inference_precision == "auto"
