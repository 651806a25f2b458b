#!/bin/sh
# Runs `clanka run --json` for action.yml with the events saved to a file, then sets the step's
# outputs, appends `clanka summary` to the job summary and prepares the session transcript for
# upload. Exits with clanka's exit code. Environment (action.yml maps the inputs):
#   CLANKA_BIN                 the binary install.sh checked
#   INPUT_PROMPT | INPUT_PROMPT_FILE, INPUT_MODEL, INPUT_ARGS (split at white space, no quoting),
#   INPUT_SANDBOX, INPUT_SANDBOX_BACKEND, INPUT_MAX_BUDGET_USD, INPUT_WORKING_DIRECTORY
#   INPUT_RESUME               a session id; its transcript is in INPUT_RESUME_DIR (the artifact)
#   INPUT_ANTHROPIC_API_KEY, INPUT_OPENAI_API_KEY   exported only when set, masked first
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE, RUNNER_TEMP
set -eu

# A workflow command's message: %, CR and LF escaped as the runner reads them.
command_text() {
  printf '%s' "$1" | tr -d '\r' | sed 's/%/%25/g' | awk 'NR > 1 { printf "%%0A" } { printf "%s", $0 }'
}

fail() {
  echo "::error title=clanka action::$(command_text "$1")"
  exit 2
}

# Masked before anything else can print them; each line of a multi-line value on its own.
mask() {
  printf '%s\n' "$1" | while IFS= read -r line; do
    [ -n "$line" ] && echo "::add-mask::$line"
  done
  return 0
}
if [ -n "${INPUT_ANTHROPIC_API_KEY:-}" ]; then
  mask "$INPUT_ANTHROPIC_API_KEY"
  ANTHROPIC_API_KEY=$INPUT_ANTHROPIC_API_KEY
  export ANTHROPIC_API_KEY
fi
if [ -n "${INPUT_OPENAI_API_KEY:-}" ]; then
  mask "$INPUT_OPENAI_API_KEY"
  OPENAI_API_KEY=$INPUT_OPENAI_API_KEY
  export OPENAI_API_KEY
fi
unset INPUT_ANTHROPIC_API_KEY INPUT_OPENAI_API_KEY

[ -n "${CLANKA_BIN:-}" ] || fail "CLANKA_BIN is not set (the install step did not run)"
[ -n "${INPUT_PROMPT:-}" ] && [ -n "${INPUT_PROMPT_FILE:-}" ] && fail "give prompt or prompt-file, not both"
[ -z "${INPUT_PROMPT:-}" ] && [ -z "${INPUT_PROMPT_FILE:-}" ] && fail "no prompt: set the prompt or prompt-file input"

temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$temp/clanka-run.XXXXXX")
events="$work/events.ndjson"
directory=${INPUT_WORKING_DIRECTORY:-${GITHUB_WORKSPACE:-.}}
[ -d "$directory" ] || fail "working-directory $directory does not exist"

# Sessions of this job live in the runner's temporary directory, unless the job chose a place.
CLANKA_HOME=${CLANKA_HOME:-$temp/clanka-home}
export CLANKA_HOME
[ -n "${INPUT_SANDBOX_BACKEND:-}" ] && { CLANKA_SANDBOX_BACKEND=$INPUT_SANDBOX_BACKEND; export CLANKA_SANDBOX_BACKEND; }

if [ -n "${INPUT_RESUME:-}" ]; then
  case "$INPUT_RESUME" in
    *[!0-9a-fA-F-]*) fail "resume \"$INPUT_RESUME\" is not a session id" ;;
  esac
  found=
  for transcript in "${INPUT_RESUME_DIR:-$work/none}/$INPUT_RESUME"*.jsonl; do
    [ -f "$transcript" ] || continue
    mkdir -p "$CLANKA_HOME/sessions"
    chmod 700 "$CLANKA_HOME/sessions"
    cp "$transcript" "$CLANKA_HOME/sessions/"
    chmod 600 "$CLANKA_HOME/sessions/$(basename "$transcript")"
    found=yes
  done
  [ -n "$found" ] || fail "no transcript of session $INPUT_RESUME was downloaded (artifact clanka-session-$INPUT_RESUME of this run, or of resume-run-id)"
fi

if [ -n "${INPUT_PROMPT_FILE:-}" ]; then
  [ -f "$INPUT_PROMPT_FILE" ] || fail "prompt-file $INPUT_PROMPT_FILE does not exist"
  prompt=$INPUT_PROMPT_FILE
else
  prompt="$work/prompt.txt"
  printf '%s\n' "$INPUT_PROMPT" >"$prompt"
fi

# git for this script's own questions and config edits, which run nothing the config names: a
# checkout another user owns (a container job's root in the runner's workspace) is refused by git
# ("dubious ownership") unless safe.directory allows it, and the token would stay in place unseen.
sgit() {
  git -c safe.directory='*' "$@"
}

# The files the run changes are those that differ from where the work tree started.
base=$(sgit -C "$directory" rev-parse --verify -q HEAD 2>/dev/null || true)
in_git=$(sgit -C "$directory" rev-parse --is-inside-work-tree 2>/dev/null || true)
# The work tree's top, found now: after the run, git started in a working-directory below it would
# find the repository a script may have made there (git init), and run what its config names (a
# clean filter, while it compares files) outside the sandbox. The top's own .git is out of the
# scripts' reach (read-only above the working directory; its config protected at it).
top=$(sgit -C "$directory" rev-parse --show-toplevel 2>/dev/null || true)
[ -n "$top" ] || in_git=

# actions/checkout leaves the job's token where git finds it (persist-credentials, its default):
# an http.<url>.extraheader in the repository's config and, with submodules, in each submodule's
# (v4), or a file under RUNNER_TEMP that includeIf entries name (v6); given an ssh-key, the key in
# RUNNER_TEMP, which core.sshCommand names. The run's scripts may read them, and the model would
# see the secret (and could put it in its summary, which a later step may post). They are taken
# out for the run and put back when this script exits, for the steps after it (a push).
# Each line of $credentials: CONFIG-FILE<tab>KEY VALUE.
tab=$(printf '\t')
credentials=
if [ "$in_git" = true ]; then
  # Where --local writes (a linked worktree's is the main repository's), as an absolute path.
  common=$(cd "$directory" && cd "$(sgit rev-parse --git-common-dir 2>/dev/null)" 2>/dev/null && pwd -P || true)
  credentials=$(
    {
      [ -f "$common/config" ] && printf '%s\n' "$common/config"
      # The submodules' git directories (nested ones under their modules/ in turn).
      [ -d "$common/modules" ] && find "$common/modules" -type f -name config 2>/dev/null
    } | while IFS= read -r file; do
      [ "$file" = "$common/config" ] || [ -f "${file%/config}/HEAD" ] || continue
      sgit config --file "$file" --get-regexp '^(http\..*\.extraheader|includeif\..*\.path|core\.sshcommand)$' 2>/dev/null |
        while IFS= read -r line; do
          case "$line" in
            http.* | includeif.*" $temp/"* | core.sshcommand*" -i "*) printf '%s\t%s\n' "$file" "$line" ;;
          esac
        done
    done || true
  )
fi
# A file of RUNNER_TEMP that holds a credential is kept in this shell's memory for the run, not on
# disk: a mode cannot keep it from a script, which owns it as this step does (chmod is no write
# Landlock governs) and, as root, needs no capability to change it back.
held=0
hold_file() {
  case "$1" in "$temp"/*) ;; *) return 0 ;; esac
  [ -f "$1" ] && [ ! -L "$1" ] || return 0
  i=1
  while [ "$i" -le "$held" ]; do
    eval "[ \"\$held_path_$i\" = \"\$1\" ]" && return 0
    i=$((i + 1))
  done
  body=$(cat "$1" && echo .) || return 0
  held=$((held + 1))
  eval "held_path_$held=\$1; held_body_$held=\${body%.}"
  rm -f "$1"
}
put_back_files() {
  i=1
  while [ "$i" -le "$held" ]; do
    eval "path=\$held_path_$i; body=\$held_body_$i"
    (umask 077 && printf '%s' "$body" >"$path") || echo "::warning title=clanka action::$(command_text "could not put $path back")"
    i=$((i + 1))
  done
  return 0
}
# The file of ssh's -i in core.sshCommand ("$RUNNER_TEMP/…" as actions/checkout writes it).
ssh_key() {
  key=$(printf '%s\n' "$1" | sed -n 's/.* -i "\{0,1\}\([^" ]*\).*/\1/p')
  case "$key" in
    '$RUNNER_TEMP/'*) key="$temp/${key#'$RUNNER_TEMP/'}" ;;
    '${RUNNER_TEMP}/'*) key="$temp/${key#'${RUNNER_TEMP}/'}" ;;
  esac
  printf '%s\n' "$key"
}
# Each line: KEY VALUE; an includeIf's VALUE is the file, held meanwhile, as is the key that
# core.sshCommand names (the command itself stays: it is no secret).
put_back_credentials() {
  put_back_files
  printf '%s\n' "$credentials" | while IFS="$tab" read -r file line; do
    case "$line" in "" | core.sshcommand*) continue ;; esac
    sgit config --file "$file" --add "${line%% *}" "${line#* }"
  done
  return 0
}
if [ -n "$credentials" ]; then
  trap put_back_credentials EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  printf '%s\n' "$credentials" | while IFS="$tab" read -r file line; do
    case "$line" in core.sshcommand*) continue ;; esac
    sgit config --file "$file" --unset-all "${line%% *}" || true
  done
  while IFS="$tab" read -r file line; do
    case "$line" in
      includeif.*) hold_file "${line#* }" ;;
      core.sshcommand*) hold_file "$(ssh_key "${line#* }")" ;;
    esac
  done <<HELD
$credentials
HELD
fi

set -- run --json -C "$directory"
[ -n "${INPUT_MODEL:-}" ] && set -- "$@" --model "$INPUT_MODEL"
[ -n "${INPUT_SANDBOX:-}" ] && set -- "$@" --sandbox "$INPUT_SANDBOX"
[ -n "${INPUT_MAX_BUDGET_USD:-}" ] && set -- "$@" --max-budget-usd "$INPUT_MAX_BUDGET_USD"
[ -n "${INPUT_RESUME:-}" ] && set -- "$@" --resume "$INPUT_RESUME"
# Extra flags: split at white space, never globbed or expanded.
set -f
# shellcheck disable=SC2086
set -- "$@" ${INPUT_ARGS:-} -
set +f

# On one line: an input with a line of its own (a model taken from a comment) is no command.
printf '%s\n' "clanka $*" | awk '{ gsub(/\r/, "^M") } NR > 1 { printf "^J" } { printf "%s", $0 } END { print "" }'
# What clanka prints to the log (its stderr) can hold the repository's or the model's text (a file
# name, a warning): the runner must not read a line of it as a workflow command (::stop-commands::,
# ::add-mask::, ::error::, ...). Commands are off until the token that only this script knows.
token="clanka-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
# The markers go where clanka's messages go (stderr, the same pipe: read in order), not its output.
quiet() {
  echo "::stop-commands::$token" >&2
  rc=0
  "$@" || rc=$?
  # On a line of its own, also after a message that ended without a newline.
  printf '\n::%s::\n' "$token" >&2
  return "$rc"
}
code=0
quiet "$CLANKA_BIN" "$@" <"$prompt" >"$events" || code=$?

get() {
  "$CLANKA_BIN" summary "$events" --get "$1" 2>/dev/null || true
}

# GITHUB_OUTPUT's multi-line form, with a delimiter no value can hold.
output() {
  [ -n "${GITHUB_OUTPUT:-}" ] || return 0
  while :; do
    delimiter="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    case "$2" in *"$delimiter"*) ;; *) break ;; esac
  done
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
}

session=$(get sessionId)
output exit-code "$code"
output session-id "$session"
output cost-usd "$(get costUsd)"
output turns "$(get turns)"
output summary "$(get summary)"
output events-file "$events"

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  set -- summary "$events"
  [ "$in_git" = true ] && set -- "$@" --git "$top"
  [ "$in_git" = true ] && [ -n "$base" ] && set -- "$@" --since "$base"
  # Without the files changed when git cannot list them (a script may have broken the index).
  report="$work/summary.md"
  # The checkout, which git may refuse as another user's (above): its config is the checkout's own,
  # protected during the run; the command line (the environment) allows that one directory.
  if quiet env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$top" "$CLANKA_BIN" "$@" >"$report"; then
    cat "$report" >>"$GITHUB_STEP_SUMMARY"
  elif [ "$in_git" = true ] && quiet "$CLANKA_BIN" summary "$events" >"$report"; then
    cat "$report" >>"$GITHUB_STEP_SUMMARY"
    printf '_The files changed could not be listed: git failed (its message is in the log of this step)._\n' >>"$GITHUB_STEP_SUMMARY"
  else
    printf '## ❌ clanka failed (exit %s)\n\nIt wrote no events; its messages are in the log of this step.\n' "$code" >>"$GITHUB_STEP_SUMMARY"
  fi
fi

# The transcript a later job resumes from, with the events beside it.
if [ -n "$session" ] && [ -f "$CLANKA_HOME/sessions/$session.jsonl" ]; then
  mkdir -p "$work/artifact"
  cp "$CLANKA_HOME/sessions/$session.jsonl" "$events" "$work/artifact/"
  output artifact-dir "$work/artifact"
fi

[ "$code" = 0 ] || echo "::error title=clanka::$(command_text "clanka exited with $code: $(get summary)")"
exit "$code"
