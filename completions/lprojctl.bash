# bash completion for lprojctl (installed as share/bash-completion/completions/lprojctl)
_lprojctl() {
    local cur prev command
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    command=${COMP_WORDS[1]}
    local commands="lint check scan dump match get set rm mv coverage catalog status list tail select misses studio wait batch metrics rollback"
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case $prev in
        --format) COMPREPLY=($(compgen -W "gcc json" -- "$cur")); return ;;
        --bundle) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --max-bytes|--language|--table|--available|--prefer|--development|--default|--arg|--count|--app|--macro|--comment|--plural|--if-version|--limit|--listen|--states) return ;;
        --output) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    local options
    case $command in
        lint) options="--format --max-bytes --help" ;;
        check) options="--format --development --help" ;;
        scan) options="--bundle --macro --development --format --help" ;;
        dump) options="--language --max-bytes --help" ;;
        match) options="--available --prefer --development --help" ;;
        get) options="--bundle --language --table --development --default --fallback --arg --json --live --socket --help" ;;
        set) options="--bundle --language --table --comment --plural --if-version --force --json --help" ;;
        rm) options="--bundle --language --table --if-version --json --help" ;;
        mv) options="--bundle --table --json --help" ;;
        coverage) options="--development --json --socket --help" ;;
        misses) options="--bundle --language --app --limit --json --socket --help" ;;
        studio) options="--listen --port --new-token --socket --help" ;;
        wait) options="--bundle --generation --timeout --json --socket --help" ;;
        batch) options="--bundle --socket --help" ;;
        metrics) options="--socket --help" ;;
        rollback) options="--bundle --to --socket --help" ;;
        catalog) options="--output --states --table --catalog --bundle --macro --localizable --source-language --language --root --dry-run --check --explain --json --force --help" ;;
        status|list) options="--json --socket --help" ;;
        tail) options="--json --diagnostics --bundle --language --table --count --socket --help" ;;
        select) options="--app --socket --help" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    elif [[ $command == lint || $command == dump ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ $command == scan ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ $command == check || $command == coverage || $command == studio ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    elif [[ $command == select ]]; then
        COMPREPLY=($(compgen -W "system" -- "$cur"))
    fi
}
complete -F _lprojctl lprojctl
