package completion

// Shells are the shells Script writes a script for.
var Shells = []string{"bash", "zsh"}

// Script returns the completion script of shell (one of Shells).
func Script(shell string) (string, bool) {
	switch shell {
	case "bash":
		return bashCompletion, true
	case "zsh":
		return zshCompletion, true
	}
	return "", false
}

const bashCompletion = `# bash completion for contend: source <(contend completion bash)
_contend_complete() {
	local cur="${COMP_WORDS[COMP_CWORD]}" words IFS=$'\n'
	words=$("${COMP_WORDS[0]}" ` + Arg + ` "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	COMPREPLY=()
	if [[ "$words" == ` + FilesMarker + `* ]]; then
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		words="${words#` + FilesMarker + `}"
	fi
	COMPREPLY+=($(compgen -W "$words" -- "$cur"))
	return 0
}
complete -F _contend_complete contend
`

const zshCompletion = `#compdef contend
# zsh completion for contend: source <(contend completion zsh)
_contend() {
	local -a opts
	opts=("${(@f)$(${words[1]} ` + Arg + ` ${words[@]:1:$CURRENT-1} 2>/dev/null)}")
	if [[ "${opts[1]}" == ` + FilesMarker + ` ]]; then
		shift opts
		_files
	fi
	opts=(${opts:#})
	(( ${#opts} )) && compadd -- $opts
}
compdef _contend contend
`
