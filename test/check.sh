# The shell tests' check: "ok - WHAT" when GOT equals WANT, else "not ok"
# with both, and fail=1 for the script's exit status.  Sourced:
# . "$(dirname "$0")/check.sh"; ...; exit $fail
fail=0
check() { if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got '$2', want '$3')"; fail=1; fi; }
