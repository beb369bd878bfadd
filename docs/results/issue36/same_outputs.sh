#!/usr/bin/env bash
# Seeded outputs of one checkout, for issue 36's "behaviour does not change" check: run it on the
# checkout before a change and on the one after, then compare the two folders with
# same_outputs.py. Usage: same_outputs.sh CHECKOUT OUT [old]  ("old": a checkout from before
# issue 36, whose package was agents/ and whose commands were python -m agents.X).
# About 12 minutes on the 2-core machine (the Quick start's run is most of it).
set -euo pipefail
checkout=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$checkout"; export PYTHONPATH="$checkout"
if [ "${3:-}" = old ]; then
    E="python -m agents.evaluate"; C="python -m agents.compare"; L="python -m agents.leaf"
else E="python -m cardagents evaluate"; C="python -m cardagents compare"; L="python -m cardagents leaf"
fi
$E dagong checkpoints/dagong_ppo.pt heuristic --deals 300 --quiet --out "$out/e1.json"
$E dabang checkpoints/dabang_ppo.pt heuristic --deals 100 --quiet --out "$out/e2.json"
$E dabang checkpoints/dabang_ppo.pt heuristic --deals 6 --match --max-hands 4 --quiet \
    --out "$out/e3.json"
$E dagong "pimc:worlds=4,top_k=2,prior=checkpoints/dagong_ppo.pt" random --deals 4 --quiet \
    --out "$out/e4.json"
$E dabang pimc heuristic --deals 1 --quiet --out "$out/e5.json"
$C dabang checkpoints/dabang_ppo.pt heuristic --deals 60 --json "$out/c1.json" >/dev/null 2>&1
$C dagong checkpoints/dagong_ppo.pt heuristic --deals 60 --json "$out/c2.json" >/dev/null 2>&1
python train.py run_dir="$out" run_name=quick >"$out/quick.log" 2>&1
stages="[{samples: 3000, lr_floor: 0.00001}, {samples: 3000, lr: 0.0002, lr_floor: 0.00005, opponents: {random: 1.0}}]"
python train.py --config configs/smoke.yaml "stages=$stages" run_dir="$out" run_name=staged \
    >"$out/staged.log" 2>&1
python train.py --config configs/smoke.yaml "stages=$stages" critic=global game=dabang \
    run_dir="$out" run_name=staged_global >"$out/staged_global.log" 2>&1
# matches with the match reward and score shaping (the hand ends inside a match), a distillation
# stage (search labels), the leaf value's heuristic hands (hand ends read from the engine's step)
python train.py --config configs/smoke.yaml game=dabang reward=match score_shaping=1.0 \
    "options=[{episode: match}]" imitation_samples=0 run_dir="$out" run_name=match \
    >"$out/match.log" 2>&1
distill="[{samples: 3000, kind: distill, labels: 3, select: uncertain, temperature: 0,
  search: 'pimc:worlds=2,depth=4,critic=checkpoints/dabang_leaf.npz'}]"
python train.py --config configs/smoke.yaml game=dabang "stages=$distill" imitation_samples=0 \
    opponents="{heuristic: 1.0}" run_dir="$out" run_name=distill >"$out/distill.log" 2>&1
$L train dabang --hands 40 --batch 32 --valid-hands 0 --eval-hands 0 --epochs 1 \
    --out "$out/leaf.npz" >"$out/leaf.log" 2>&1
