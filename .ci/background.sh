# Background steps for .ci/run (sourced, bash). A step that leaves most of the machine idle (the container
# checks: downloads, debootstrap, podman builds) runs beside the steps that need the CPU, so CI's wall time is
# not the sum of both (P546). Its output goes to a file and is printed whole when the step is waited for; its
# exit code is the wait's, so a failed step still fails CI, with its output visible.
#
#   bg_start NAME CMD...   start CMD in the background (stdout and stderr to a file)
#   bg_wait NAME           wait for it, print its output, return its exit code; its own duration is then in
#                          BG_SECONDS[NAME]
#   bg_stop_all            on an early exit: stop every step not waited for (SIGTERM to the whole process tree,
#                          so the step's own cleanup runs), wait for it, print the end of its output

declare -A BG_PID=() BG_LOG=() BG_SECONDS=()

bg_start() {
  local name=$1 out
  shift
  out=$(mktemp "${TMPDIR:-/tmp}/ci-background.XXXXXX")
  BG_LOG[$name]=$out
  (
    # A stop (bg_stop_all) signals the command too; this shell then waits for the command's own cleanup to end
    # instead of dying at once. A handler, not an ignore: an ignored signal would stay ignored in the command.
    trap 'true' TERM
    started=$SECONDS
    rc=0
    "$@" || rc=$?
    printf '%d %d\n' "$rc" "$((SECONDS - started))" >"$out.rc"
    exit "$rc"
  ) >"$out" 2>&1 &
  BG_PID[$name]=$!
}

bg_wait() {
  local name=$1 rc=0 secs
  wait "${BG_PID[$name]}" || rc=$?
  unset "BG_PID[$name]"
  cat "${BG_LOG[$name]}"
  if read -r _ secs <"${BG_LOG[$name]}.rc" 2>/dev/null; then BG_SECONDS[$name]=$secs; fi
  rm -f "${BG_LOG[$name]}" "${BG_LOG[$name]}.rc"
  return "$rc"
}

# The process tree under PID, children before their parents' siblings (pgrep -P: procps, as the container
# script's own pkill).
bg_tree() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    bg_tree "$child"
  done
}

bg_stop_all() {
  local name pids
  for name in "${!BG_PID[@]}"; do
    # Every process of the tree, not only its process group: `timeout` (the container script's builds) puts
    # its command in a group of its own.
    pids=$(bg_tree "${BG_PID[$name]}")
    # shellcheck disable=SC2086
    [[ -z "$pids" ]] || kill -TERM $pids 2>/dev/null || true
    wait "${BG_PID[$name]}" 2>/dev/null || true
    printf '\n=== %s: stopped (CI ended before it was waited for); the end of its output:\n' "$name"
    tail -n 40 "${BG_LOG[$name]}"
    rm -f "${BG_LOG[$name]}" "${BG_LOG[$name]}.rc"
    unset "BG_PID[$name]"
  done
}
