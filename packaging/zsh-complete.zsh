# Part of make test-pkg: drives a real interactive zsh (zpty) with compinit and the installed _readback, presses
# Tab after each typed line and checks what zsh shows.
#   zsh -f packaging/zsh-complete.zsh 'TYPED' 'EXPECTED' ['TYPED' 'EXPECTED' ...]
# EXPECTED is a fixed string that must appear on the screen (the completed line or the listed matches) within
# ten seconds. Exit 1 on the first miss, with the screen.
zmodload zsh/zpty || exit 2
zpty z 'TERM=dumb COLUMNS=200 LINES=100 zsh -f -i'
typeset screen=""
# Reads until EXPECTED shows up or 10 s pass.
await() {
  local chunk i
  for i in {1..100}; do
    while zpty -r -t z chunk; do screen+=${chunk//$'\r'/}; done
    [[ $screen == *"$1"* ]] && return 0
    sleep 0.1
  done
  return 1
}
zpty -w z 'autoload -Uz compinit; compinit -u -D; PS1="ready%% "; LISTMAX=1000; readback() { :; }'
await 'ready%' || { print -r -- "zsh did not start: $screen"; exit 1 }
while (( $# >= 2 )); do
  screen=""
  zpty -w -n z "$1"$'\t'
  if ! await "$2"; then
    print -r -- "zsh: after '$1<Tab>' expected '$2'; the screen shows:"
    print -r -- "$screen" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tail -20
    exit 1
  fi
  zpty -w -n z $'\C-e\C-u'
  shift 2
done
zpty -d z
exit 0
