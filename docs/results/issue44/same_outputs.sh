#!/usr/bin/env bash
# Seeded outputs of one checkout, for issue 44's "the kitchen changes no output" check: run it on
# the checkout before the change and on the one after, then compare the two folders with
# same_outputs.py. Usage: same_outputs.sh CHECKOUT OUT
# Everything single-threaded (torch_threads=1, one BLAS thread), fp32, niced; about 15 minutes on
# the 2-core machine while another job holds it.
set -euo pipefail
checkout=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$checkout"; export PYTHONPATH="$checkout" OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
    OPENBLAS_NUM_THREADS=1
P="nice -n 19 ${PYTHON:-python}"
E="$P -m cardagents evaluate"
T="$P train.py"
R="precision=fp32 torch_threads=1 run_dir=$out"
# (c) the batched engine: a seeded VectorGame run's checksum, both games, one and two option sets
$P "$here/vector_checksum.py" >"$out/vector.txt"
# (b) search decisions, every game recorded (--records): the default PIMC, Dabang's depth-limited
# search with the shipped leaf value, a PPO prior, PPO and random rollouts
$E dagong pimc heuristic --deals 4 --seed 5 --quiet --out "$out/e1.json" --records "$out/r1"
$E dabang "pimc:depth=8,critic=checkpoints/dabang_leaf.npz" heuristic --deals 2 --seed 5 \
    --quiet --out "$out/e2.json" --records "$out/r2"
$E dagong "pimc:worlds=4,top_k=2,prior=checkpoints/dagong_ppo.pt" random --deals 2 --seed 5 \
    --quiet --out "$out/e3.json" --records "$out/r3"
$E dagong "pimc:worlds=2,rollout=checkpoints/dagong_ppo.pt" heuristic --deals 1 --seed 5 \
    --quiet --out "$out/e4.json" --records "$out/r4"
$E dabang "pimc:worlds=4,rollout=random,margin=0" heuristic --deals 1 --seed 5 --quiet \
    --out "$out/e5.json" --records "$out/r5"
# (a) training: the smoke run (imitation, PPO, snapshots, checkpoints, final evaluations)
$T --config configs/smoke.yaml $R run_name=smoke >"$out/smoke.log" 2>&1
# resumed from its last checkpoint and extended (the checkpoint's draws, pool and seeds)
cp -r "$out/smoke" "$out/resumed"
$T --resume "$out/resumed/checkpoint.pt" total_samples=6000 $R run_name=resumed \
    >"$out/resumed.log" 2>&1
# init from its weights into a features head (the network surgery), no imitation; the start
# evaluation, and a learning curve against the random player
$T --config configs/smoke.yaml init="$out/smoke/final.pt" head=features imitation_samples=0 \
    eval_start=true curve_every=1 curve_deals=2 curve_opponent=random $R run_name=init \
    >"$out/init.log" 2>&1
# Dabang, a global critic, two stages changing the opponents and then the options; a learning
# curve under both option sets
stages="[{samples: 3000}, {samples: 3000, opponents: {random: 1.0}, options: {dealer: random}}]"
$T --config configs/smoke.yaml game=dabang critic=global "stages=$stages" curve_every=1 \
    curve_deals=2 $R run_name=staged_global >"$out/staged_global.log" 2>&1
# matches with the match reward and score shaping, two option sets
$T --config configs/smoke.yaml game=dabang reward=match score_shaping=1.0 \
    "options=[{episode: match}, {episode: match, max_hands: 3}]" imitation_samples=0 $R \
    run_name=match >"$out/match.log" 2>&1
# a distillation stage (search labels from the learner's games)
distill="[{samples: 3000, kind: distill, labels: 3, select: uncertain, temperature: 0,
  search: 'pimc:worlds=2,depth=4,critic=checkpoints/dabang_leaf.npz'}]"
$T --config configs/smoke.yaml game=dabang "stages=$distill" imitation_samples=0 \
    opponents="{heuristic: 1.0}" $R run_name=distill >"$out/distill.log" 2>&1
# two Ray workers collect (the [dist] extra): their shares, results and the float32 trip back
# and the learning curve as Ray tasks beside them
$T --config configs/smoke.yaml workers=2 imitation_samples=0 eval_deals=4 curve_every=1 \
    curve_deals=2 $R run_name=ray >"$out/ray.log" 2>&1
# the leaf value's heuristic hands and weights
$P -m cardagents leaf train dabang --hands 40 --batch 32 --valid-hands 0 --eval-hands 0 \
    --epochs 1 --out "$out/leaf.npz" >"$out/leaf.log" 2>&1
echo done >"$out/DONE"
