#!/usr/bin/env bash
# The tool's generated man page and bash completion as installed: groff reads the man page
# without a warning (when groff is installed), and bash, with the completion loaded,
# completes `mfprio sprio --li` to --live, `mfprio wh` to whatif, a file after --conf and
# an option's listed values after it.
#
#   docs.sh MAN_PAGE COMPLETION
set -euo pipefail
man=${1:?usage: docs.sh MAN_PAGE COMPLETION}
completion=${2:?usage: docs.sh MAN_PAGE COMPLETION}
status=0
if command -v groff >/dev/null; then
    warnings=$(groff -ww -z -man "$man" 2>&1)
    if [[ -n $warnings ]]; then
        echo "docs: groff warns about $man:"
        echo "$warnings"
        status=1
    fi
else
    echo "docs: no groff here: the man page is not linted"
fi
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mfprio; printf "%s\n" "${COMPREPLY[@]}"' \
        -- "$completion" "$@"
}
check() {
    local want=$1
    shift
    local got
    got=$(complete_words "$@" | tr '\n' ' ')
    if [[ " $got " != *" $want "* ]]; then
        echo "docs: completing '$*' gives '$got', not $want"
        status=1
    fi
}
check --live mfprio sprio --li
check whatif mfprio wh
check "$man" mfprio sprio --conf "${man%/*}/mfprio."
check --maui-cfg mfprio lint --maui
check fair-tree mfprio sshare --algorithm fair-t
check computed mfprio sprio --fairshare c
exit $status
