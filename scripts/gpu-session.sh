#!/usr/bin/env bash
# One prepared run for a GPU machine (issues 13 and 14), all parts bounded by one wall-clock budget.
#
#   OUT=results bash scripts/gpu-session.sh            # on a machine with a GPU and JAX
#   DRY=1 OUT=/tmp/dry bash scripts/gpu-session.sh     # a tiny rehearsal on CPU
#
# What it does, in this order (each part's output goes to $OUT/results.tgz, written even when a
# part fails or the budget runs out):
#   * on the CPU cores, in the background: the heads-up 1 s arena of issue 14,
#     `gonuts arena --players 2 --bots neural-mcts:1s,mcts:1s --games 96 --seed 1` with one job per
#     spare core (SIGINT at the deadline: the summary of the games finished is kept);
#   * on the GPU, alone: `gonuts bench --batch --device gpu` for 3 players at several batch sizes;
#   * on the GPU, then: two PPO runs side by side until the deadline — a heads-up specialist
#     resumed from weights/neural-2p.npz and the every-size network resumed from weights/neural.npz
#     (checkpoints every few iterations, so a stop at the deadline loses little).
# Needs the batch and train extras (JAX, flax, optax) and gymnasium; $WHEELS (a folder of wheels)
# is installed into /tmp/site first when given (a machine without network).
set -u
BUDGET=${BUDGET:-540}            # seconds from start to the final archive
DRY=${DRY:-0}
OUT=${OUT:?set OUT to a folder for the results}
START=$(date +%s)
RES=$(mktemp -d)
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if [ -n "${WHEELS:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$WHEELS"/*.whl && export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
PY=${PY:-python3}
left() { echo $((START + BUDGET - $(date +%s))); }
archive() {  # results.tgz: logs, figures, curves; weights-NAME.tgz: ten checkpoints per run
    for run in runs/gpu-*; do
        [ -d "$run" ] || continue
        name=$(basename "$run")
        mkdir -p "$RES/$name"
        cp "$run"/*.json "$run"/*.png "$RES/$name/" 2>/dev/null
        mapfile -t cks < <(ls "$run"/checkpoint-*.npz 2>/dev/null | sort)
        n=${#cks[@]}
        keep=()
        for i in 0 1 2 3 4 5 6 7 8 9; do
            [ "$n" -gt 0 ] && keep+=("${cks[$(( (n - 1) * i / 9 ))]}")
        done
        [ "$n" -gt 0 ] && tar -czf "$OUT/weights-$name.tgz" $(printf '%s\n' "${keep[@]}" | sort -u)
    done
    tar -C "$RES" -czf "$OUT/results.tgz" . && ls -la "$OUT"
}
trap archive EXIT

{ date -u; nproc; nvidia-smi -L 2>&1; $PY -c 'import jax, flax, optax; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())' 2>&1; } | tee "$RES/machine.txt"

if [ "$DRY" = 1 ]; then
    DEVICE=cpu; SIZES="256"; BENCH_S=2; ARENA_BOTS=neural-mcts:20,mcts:20; ARENA_GAMES=4; JOBS=1
    TRAIN_BATCH=16; MINIBATCH=256
else
    DEVICE=gpu; SIZES="65536 1048576"; BENCH_S=8; ARENA_BOTS=neural-mcts:1s,mcts:1s
    ARENA_GAMES=96; JOBS=$(( $(nproc) - 4 )); TRAIN_BATCH=2048; MINIBATCH=4096
fi

# 1. The arena on the CPU cores (JAX kept off the GPU there: the bots are NumPy only).
JAX_PLATFORMS=cpu CUDA_VISIBLE_DEVICES= $PY -m gonuts arena --players 2 --bots "$ARENA_BOTS" \
    --games "$ARENA_GAMES" --seed 1 --jobs "$JOBS" --quiet --save "$RES/arena-records" \
    --json "$RES/arena-nmcts1s-mcts1s-2p.json" >"$RES/arena.log" 2>&1 &
ARENA=$!

# 2. The benchmark, alone on the GPU.
for size in $SIZES; do
    [ "$(left)" -gt 200 ] || break
    timeout $(( $(left) - 150 )) $PY -m gonuts bench --batch --device "$DEVICE" --players 3 \
        --batch-size "$size" --seconds "$BENCH_S" --json "$RES/bench-gpu-3p-$size.json" \
        2>&1 | tee -a "$RES/bench.log"
done

# 3. Two training runs side by side until the deadline.
export XLA_PYTHON_CLIENT_MEM_FRACTION=0.35
common=(--batch "$TRAIN_BATCH" --minibatch "$MINIBATCH" --random-seat 0.05 --scripted-seat 0.15
        --past-seat 0.3 --snapshot-every 5 --iterations 100000 --quiet)
$PY -m gonuts.train "${common[@]}" --init src/gonuts/bots/weights/neural-2p.npz --players 2 \
    --eval-players 2 --eval-every 5 --seed 11 --out runs/gpu-2p >"$RES/train-2p.log" 2>&1 &
T2=$!
$PY -m gonuts.train "${common[@]}" --init src/gonuts/bots/weights/neural.npz \
    --players 2,4,3,2,4,5,6 --eval-players 2,4 --eval-every 7 --seed 12 --out runs/gpu-all \
    >"$RES/train-all.log" 2>&1 &
TA=$!

while [ "$(left)" -gt 25 ] && { kill -0 $T2 2>/dev/null || kill -0 $TA 2>/dev/null || kill -0 $ARENA 2>/dev/null; }; do
    sleep 5
done
kill -INT $ARENA 2>/dev/null
kill -TERM $T2 $TA 2>/dev/null
sleep 8
kill -KILL $ARENA $T2 $TA 2>/dev/null
nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv 2>&1 | tee -a "$RES/machine.txt"
echo "done after $(( $(date +%s) - START )) s"
