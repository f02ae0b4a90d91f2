# bash completion for vmaptool (installed as
# share/bash-completion/completions/vmaptool).  Subcommands, their options
# and option values come from the binary itself (vmaptool help, COMMAND
# --help, and 'vmaptool __complete KIND' for the words of the tables:
# formats, profiles, kernels, gen patterns and --test cases, strategies,
# axes, compare's --metrics, the bundled traces replay and compare take by
# name), so they follow the argp tables and the registry; batched@ takes
# the patch digits 1-8 in increasing order, S+ an axis.
_vmaptool_complete() {	# the words of a table: formats, profiles, ...
	"${COMP_WORDS[0]}" __complete "$1" 2>/dev/null
}

_vmaptool_words() {	# the words of "vmaptool ARGS --help" that are options
	"${COMP_WORDS[0]}" "$@" --help 2>/dev/null |
		grep -oE -- '--[a-z0-9][a-z0-9-]*(\[?=)?' | sed 's/\[=$/=/' | sort -u
}

_vmaptool() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i w
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		cmd=$w
		break
	done
	# --opt=VALUE: split by bash at '=' (COMP_WORDBREAKS) or not
	local opt="" val=""
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*} val=${cur#*=}
	elif [[ $cur == = || ( $COMP_CWORD -ge 2 && ${COMP_WORDS[COMP_CWORD-1]} == = ) ]]; then
		[[ $cur == = ]] && { opt=${COMP_WORDS[COMP_CWORD-1]}; val=""; } ||
			{ opt=${COMP_WORDS[COMP_CWORD-2]}; val=$cur; }
	fi
	if [[ -n $opt ]]; then
		local words=""
		case $opt in
		--strategy)
			local head=${val%,*} last=${val##*,} names
			[[ $val == *,* ]] && head="$head," || head=""
			names=$(_vmaptool_complete strategies)
			if [[ $last == *+* ]]; then	# S+AXIS[+AXIS]
				local a
				for a in $(_vmaptool_complete axes); do words="$words ${last%+*}+$a"; done
			elif [[ $last == batched@* ]]; then
				local d=${last#batched@} n=0 k
				[[ -n $d ]] && n=${d: -1}
				for ((k = n + 1; k <= 8; k++)); do words="$words batched@$d$k"; done
				[[ -n $d ]] && words="$words batched@$d"
			else
				words="$names batched@"
			fi
			local c
			for c in $words; do
				[[ $c == "$last"* ]] && COMPREPLY+=("$head$c")
			done
			[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *@* ]] && compopt -o nospace 2>/dev/null
			[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
			return 0 ;;
		--format) words=$(_vmaptool_complete formats) ;;
		--kernel) words=$(_vmaptool_complete kernels) ;;
		--profile)	# a built-in profile's name, or a FILE.json (or a folder on the way)
			COMPREPLY=($(compgen -W "$(_vmaptool_complete profiles)" -- "$val")
				   $(compgen -d -- "$val")
				   $(compgen -f -X '!*.json' -- "$val"))
			[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
			return 0 ;;
		--test|--metrics)	# NAME[,NAME...]: gen's cases, compare's metrics
			local head=${val%,*} last=${val##*,} c kind=tests
			[[ $opt == --metrics ]] && kind=metrics
			[[ $val == *,* ]] && head="$head," || head=""
			for c in $(_vmaptool_complete $kind); do
				[[ $c == "$last"* ]] && COMPREPLY+=("$head$c")
			done
			[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
			return 0 ;;
		--output|--junit|--markdown|--baseline|--per-event|--vmlinux|--kconfig|--buddyinfo|--svg)
			COMPREPLY=($(compgen -f -- "$val"))
			[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
			return 0 ;;
		*)	# WORD|WORD of the option's --help line (the command's, else the
			# top-level one, which lists the options every command takes)
			words=$({ "${COMP_WORDS[0]}" ${cmd:+$cmd} --help; "${COMP_WORDS[0]}" --help; } 2>/dev/null |
				grep -oE -- "$opt\[?=[a-z0-9.|-]+" | head -1 | cut -d= -f2 | tr '|' ' ') ;;
		esac
		COMPREPLY=($(compgen -W "$words" -- "$val"))
		[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		return 0
	fi
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_vmaptool_words) -h" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" help 2>/dev/null |
				awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}')" -- "$cur"))
		fi
		return 0
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" help 2>/dev/null |
			awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}')" -- "$cur"))
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_vmaptool_words "$cmd")" -- "$cur"))
		[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	if [[ $cmd == gen ]]; then	# gen PATTERN: one pattern, no file
		for ((i++; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* || ${COMP_WORDS[i]} == = ||
			   ${COMP_WORDS[i-1]} == = || ${COMP_WORDS[i-1]} == -o ]] || return 0
		done
		COMPREPLY=($(compgen -W "$(_vmaptool_complete patterns)" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	if [[ $cmd == replay || $cmd == compare ]]; then	# a bundled trace by name
		COMPREPLY+=($(compgen -W "$(_vmaptool_complete traces)" -- "$cur"))
	fi
}
complete -F _vmaptool vmaptool
