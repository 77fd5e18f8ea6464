# Bash completion of the bplace command (docs/cli.md "Completion (bash)").
# Installed by deploy/install.sh (into bash-completion's completions directory);
# or: source cli/bplace.bash
#
# Host and queue names come from the daemon (`bplace hosts --names`,
# `bplace queues --names`) with a 2 s timeout: a daemon that is down or slow
# costs at most that, and completes no names.

_bplace_names() {
  # $1: hosts or queues. The --url given on the line, if any, is used.
  local url=() i
  for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
    if [[ ${COMP_WORDS[i]} == --url ]]; then url=(--url "${COMP_WORDS[i + 1]}"); fi
  done
  "${COMP_WORDS[0]}" "${url[@]}" --timeout 2 "$1" --names 2>/dev/null
}

_bplace_complete_names() {
  # Fills COMPREPLY with the names of $1 (hosts or queues) that start with
  # $2. The names are data from the daemon: matched as plain strings, never
  # handed to compgen -W, which would expand $(...) in them.
  local names=() name
  mapfile -t names < <(_bplace_names "$1")
  COMPREPLY=()
  for name in "${names[@]}"; do
    [[ $name == "$2"* ]] && COMPREPLY+=("$name")
  done
}

_bplace() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local commands="hosts place submit queues jobs job kill status"
  local global="--url --timeout --json --version --help"
  local command="" command_at=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --url | --timeout) ((i++)) ;;
      -*) ;;
      *) command=${COMP_WORDS[i]}; command_at=$i; break ;;
    esac
  done
  COMPREPLY=()
  case $prev in
    --url) COMPREPLY=($(compgen -W "unix:/run/bplace/bplace.sock http://127.0.0.1:8080" -- "$cur")); return ;;
    --timeout | --limit | --cursor | --wait | --label | -l | -J | -n | -W | -M | -R | -P | -app | --idempotency-key) return ;;
    --host | -m) _bplace_complete_names hosts "$cur"; return ;;
    -q | --queues) _bplace_complete_names queues "$cur"; return ;;
    -o | -e | -cwd) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$global" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return
  fi
  case $command in
    hosts)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--names --help" -- "$cur"))
      else
        _bplace_complete_names hosts "$cur"
      fi ;;
    queues)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--names --help" -- "$cur"))
      else
        _bplace_complete_names queues "$cur"
      fi ;;
    place) COMPREPLY=($(compgen -W "--host -m -q --queues -n --slots --ib --no-ib --user -u --help" -- "$cur")) ;;
    submit)
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--host -m -q -n -J -R -o -e -cwd -W -M -P -app -G -B -N -E -x -sla -g --label --ib --no-ib --idempotency-key --help" -- "$cur"))
      elif ((COMP_CWORD == command_at + 1)); then
        # The seed's usage: HOST first.
        _bplace_complete_names hosts "$cur"
      else
        COMPREPLY=($(compgen -c -- "$cur"))
      fi ;;
    jobs) COMPREPLY=($(compgen -W "--user -u --status -s --label -l --limit --cursor --help" -- "$cur")) ;;
    job) COMPREPLY=($(compgen -W "--wait --help" -- "$cur")) ;;
    kill | status) COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
  esac
}

complete -F _bplace bplace
