#!/bin/bash
# Runs in the cgroup v2 guest, as root, on this machine's files as its root (init.sh). Three
# runs, each writing <label>.log, .xml (JUnit), .rc and .seconds into /mnt (the results share):
#   root       the sandbox tests and the guest's grading checks, as root;
#   refusal    `grade` as an unprivileged user in a group NOT delegated to it: it must refuse;
#   delegated  the same tests as "root", as that user in a subtree delegated to it the way
#              systemd's Delegate= leaves one: the group's folder and its cgroup.procs,
#              cgroup.subtree_control and cgroup.threads chowned to the user, with memory and
#              pids offered by its parent.
#
# TIER_RUNS (default "root refusal delegated") and TIER_TESTS (default: the list below)
# choose what runs, to look at one part of the tier at a time.
set -u
OUT=/mnt
cd "$TIER_REPO"
export PATH="$TIER_REPO/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8 CGROUP2_RESULTS=$OUT CI=true
# no plugin the runs need: importing them over 9p took minutes of every run
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
TESTS=(
  tests/autograder/sandbox/test_limits_hold.py
  tests/autograder/sandbox/test_bubblewrap.py
  tests/autograder/sandbox/test_sockets_root.py
  verify/cgroup2/guest_grading.py
)
if [ -n "${TIER_TESTS:-}" ]; then read -r -a TESTS <<< "$TIER_TESTS"; fi
RUNS=" ${TIER_RUNS:-root refusal delegated} "
wanted() { [[ $RUNS == *" $1 "* ]]; }
cat /sys/fs/cgroup/cgroup.controllers > "$OUT/controllers"
chmod 1777 "$OUT"  # the unprivileged runs write their results there too
TA_HOME=/home/$TIER_USER
mkdir -p "$TA_HOME" && chown "$TIER_UID:$TIER_UID" "$TA_HOME"
as_ta=(setpriv "--reuid=$TIER_UID" "--regid=$TIER_UID" --clear-groups
       env "HOME=$TA_HOME" "USER=$TIER_USER" "LOGNAME=$TIER_USER")

# run LABEL PREFIX...: the tests, started through PREFIX (which ends by exec'ing its arguments)
run() {
  local label=$1 started
  shift
  started=$(date +%s)
  echo "in_guest: $label run started"
  "$@" env "TIER_LABEL=$label" python -m pytest -p no:xdist -q -rA \
    --junitxml="$OUT/$label.xml" "${TESTS[@]}" > "$OUT/$label.log" 2>&1
  echo $? > "$OUT/$label.rc"
  echo $(( $(date +%s) - started )) > "$OUT/$label.seconds"
  echo "in_guest: $label run done: exit $(cat "$OUT/$label.rc") after $(cat "$OUT/$label.seconds") s"
}

wanted root && run root env "HOME=/root"

# The refusal: no root, and this process's group (the tree's root) is not the user's.
if wanted refusal; then
  mkdir -p /tmp/refusal/class/someone
  "${as_ta[@]}" python -m autograder grade lesson03_window_buffer \
    --submissions /tmp/refusal/class --out /tmp/refusal/out --no-progress \
    > "$OUT/refusal.log" 2>&1
  echo $? > "$OUT/refusal.rc"
fi

if wanted delegated; then
  DELEGATED=/sys/fs/cgroup/delegated-$TIER_USER
  mkdir -p "$DELEGATED"
  echo "+memory +pids" > /sys/fs/cgroup/cgroup.subtree_control
  chown "$TIER_UID:$TIER_UID" "$DELEGATED" "$DELEGATED/cgroup.procs" \
    "$DELEGATED/cgroup.subtree_control" "$DELEGATED/cgroup.threads"
  run delegated sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$DELEGATED" "${as_ta[@]}"
fi
exit 0
