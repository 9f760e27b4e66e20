#!/usr/bin/env bash
# Runs .ci/run on a fresh clone of HEAD while other processes keep every core busy, as on a shared
# CI host, and records each run's result and duration. A test that passes only on an idle machine
# fails here.
#
#   scripts/ci-under-load.sh [RUNS] [COMMAND]
#
# RUNS (default 3) runs one after another; COMMAND (default `bash .ci/run`) runs in the clone, so
# one flaky test file can be hammered too, e.g.
#   scripts/ci-under-load.sh 10 'npx vitest run --project integration services/gateway/test/scale-out.test.ts'
# Results go to stdout and to .ci/under-load.log here: one line a run, then how many passed in a row.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
runs=${1:-3}
command=${2:-bash .ci/run}
log="$repo/.ci/under-load.log"
mkdir -p "$repo/.ci"

burners=()
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done
  burners=()
}
trap stop_burners EXIT

# One busy loop a core, each bounded to two hours so that none outlives an interrupted script.
start_burners() {
  for _ in $(seq 1 "$(nproc)"); do
    timeout 7200 sh -c 'while :; do :; done' &
    burners+=($!)
  done
}

# CI clones into a folder of its own with shared/ beside it.
work=$(mktemp -d /tmp/lode-ci-under-load.XXXXXX)
# mktemp's folder is 0700: the embedded Postgres, which runs as a user of its own, must pass through it.
chmod 0755 "$work"
git clone -q --no-hardlinks "$repo" "$work/main"
[ -d "$repo/../shared" ] && ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
# A COMMAND other than .ci/run (which installs by itself) needs the packages in place.
(cd "$work/main" && npm ci --no-audit --no-fund >"$work/npm-ci.log" 2>&1) || { echo "npm ci failed: $work/npm-ci.log" >&2; exit 1; }

in_a_row=0
best=0
echo "# $(date -u +%FT%TZ) $(git -C "$repo" rev-parse --short HEAD) under load on $(nproc) cores: $command" | tee -a "$log"
for run in $(seq 1 "$runs"); do
  rm -f "$work/main/.ci/test-results.json" "$work/main/.ci/fault-results.json"
  start_burners
  started=$(date +%s)
  (cd "$work/main" && CI=true bash -c "$command" </dev/null >"$work/run-$run.log" 2>&1)
  status=$?
  seconds=$(($(date +%s) - started))
  stop_burners
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/run-$run.log" | tail -n 1)
  if [ "$status" -eq 0 ]; then
    in_a_row=$((in_a_row + 1))
    verdict=pass
  else
    in_a_row=0
    verdict=FAIL
  fi
  best=$((in_a_row > best ? in_a_row : best))
  echo "run $run: $verdict in ${seconds}s, load $(cut -d' ' -f1-3 /proc/loadavg) ${summary:+($summary)} log $work/run-$run.log" | tee -a "$log"
done
echo "passed $in_a_row in a row at the end, $best at most, of $runs" | tee -a "$log"
[ "$in_a_row" -eq "$runs" ]
