# bash completion for lprojd (installed as share/bash-completion/completions/lprojd)
_lprojd() {
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --root|--state) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --log-level) COMPREPLY=($(compgen -W "error warning info debug" -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "--config --root --socket --state --log-level --foreground --check-config --help --version" -- "$cur"))
}
complete -F _lprojd lprojd
