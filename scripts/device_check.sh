#!/usr/bin/env bash
# AlphaZero on a CUDA GPU with the same code as on the CPU: a short check for a lent GPU machine.
#
#   bash scripts/device_check.sh            # on a machine whose torch sees a GPU
#   DEVICE=cpu bash scripts/device_check.sh # the same steps on the CPU (to try the script here)
#
# Steps, each with its own time limit, each logged to $CHECK_DIR (default runs/device_check):
#   1. the machine: nvidia-smi, torch's view of the GPU, the CPU count;
#   2. the AlphaZero search bench (scripts/bench_alphazero.py): leaf evaluations a second at
#      B = 64, 256, 1024 and the self-play split at B = 256, on $DEVICE and, side by side, on one
#      CPU thread;
#   3. 60-second trainings (`tictacgo train GAME --algo alphazero --max-seconds 60`): Tic-Tac-Toe and
#      Little-Go with --device $DEVICE, and Tic-Tac-Toe with --device cpu beside them (run at once, one
#      process each); then the trained models play in the arena with az:device=$DEVICE;
#   4. the tests that touch torch (pytest -m "not slow"), where training's default device "auto"
#      picks the GPU.
# Where the machine cannot install from a registry, wheels of the pure-Python dependencies can sit
# in .whl/ (gymnasium, pettingzoo, farama-notifications, stable-baselines3, sb3-contrib): they are
# installed with --no-index first. Exit status: the number of steps that failed.
set -u
DEVICE=${DEVICE:-cuda}
DIR=${CHECK_DIR:-runs/device_check}
PY=${PYTHON:-python3}
mkdir -p "$DIR"
export PYTHONUNBUFFERED=1
failed=0

step() {  # step NAME SECONDS COMMAND...: run COMMAND with a time limit, log to $DIR/NAME.log
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "=== $name (limit ${limit} s): $*"
    timeout "$limit" "$@" >"$DIR/$name.log" 2>&1
    local rc=$?
    tail -n 25 "$DIR/$name.log"
    echo "=== $name: exit $rc in $((SECONDS - t0)) s"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
}

if ls .whl/*.whl >/dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --no-compile .whl/*.whl || exit 99
fi
# tictacgo.baselines, .envs and .wrappers live at the top level: only an install maps them in.
if ! $PY -c "import tictacgo.baselines" 2>/dev/null; then
    $PY -m pip install -q --no-deps --no-build-isolation -e . || exit 99
fi
TTG="$PY -m tictacgo.cli"

step machine 60 bash -c "(nvidia-smi || true); nproc; $PY -c 'import torch, numpy, numba; \
print(\"torch\", torch.__version__, \"numpy\", numpy.__version__, \"numba\", numba.__version__); \
print(\"cuda available:\", torch.cuda.is_available()); \
print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else \"no GPU\")'"

step bench_search 150 bash -c "$PY scripts/bench_alphazero.py --batches 64,256,1024 --sims 32 --device $DEVICE \
  && $PY scripts/bench_alphazero.py --batches 64,256 --repeats 2 --sims 32 --device cpu"
step bench_selfplay 150 bash -c "$PY scripts/bench_alphazero.py --selfplay --batches 256 --sims 32 --device $DEVICE \
  && $PY scripts/bench_alphazero.py --selfplay --batches 256 --sims 32 --device cpu"

# Three 60-second trainings at once, one process each (the machine has cores to spare).
train() {  # train GAME DEVICE NAME
    $TTG train "$1" --algo alphazero --seed 0 --max-seconds 60 --device "$2" --out "$DIR/$3" --force \
        --no-progress >"$DIR/train_$3.log" 2>&1
}
t0=$SECONDS
echo "=== train: three 60-second runs at once"
train tictactoe "$DEVICE" ttt_$DEVICE & p1=$!
train littlego "$DEVICE" go_$DEVICE & p2=$!
train tictactoe cpu ttt_cpu_beside & p3=$!
for p in $p1 $p2 $p3; do wait "$p" || failed=$((failed + 1)); done
for f in "$DIR"/train_*.log; do echo "--- $f"; tail -n 12 "$f"; done
echo "=== train: done in $((SECONDS - t0)) s"

step play_ttt 120 $TTG arena tictactoe "az:path=$DIR/ttt_$DEVICE,device=$DEVICE" minimax --games 20 --seed 0
step play_go 180 $TTG arena littlego "az:path=$DIR/go_$DEVICE,device=$DEVICE,sims=32" random --games 20 --seed 0

mapfile -t torch_tests < <(grep -l "torch" tests/test_*.py tests/games/test_*.py)
step tests 240 $PY -m pytest -q -m "not slow" -n 8 -p no:cacheprovider "${torch_tests[@]}"

echo "device_check: $failed step(s) failed"
exit "$failed"
