#!/bin/sh
# A/A sweeps of the stand-in training script through the CLI, each judged by the sweep's own closing verdict:
# prints how many of SWEEPS sweeps at each repeat count said faster or slower (they should not, beyond ~5 %).
#   sh bench/verdictsCli.sh [SWEEPS] [RUN_SD] [STEP_SD]      (defaults 20, 0.02, 0.02; a throwaway database)
set -eu
sweeps=${1:-20}
run_sd=${2:-0.02}
step_sd=${3:-0.02}
here=$(cd "$(dirname "$0")/.." && pwd)
db=$(mktemp -d)/aa.db
for repeats in 2 3; do
  counts=""
  i=0
  while [ "$i" -lt "$sweeps" ]; do
    verdict=$(node "$here/bin/tuning-bench.js" --db "$db" --json sweep --vary tag=a,b --repeats "$repeats" --no-wait-idle \
      --cwd "$here/test/fixtures/standin" -- python3 train.py --batch 16 --steps 60 --run-sd "$run_sd" --step-sd "$step_sd" --tag {tag} 2>/dev/null \
      | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);process.stdout.write(j.configs[1].vs_baseline?.verdict??"none")})')
    counts="$counts $verdict"
    i=$((i + 1))
  done
  echo "repeats=$repeats run_sd=$run_sd step_sd=$step_sd:$(echo "$counts" | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | tr '\n' ' ')"
done
rm -rf "$(dirname "$db")"
