package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func init() { addCommand(completionCommand) }

const bashCompletion = `# bash completion for contend: source <(contend completion bash)
_contend_complete() {
	local cur words
	cur="${COMP_WORDS[COMP_CWORD]}"
	if [[ "$cur" == -* ]]; then
		words=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" --generate-bash-completion 2>/dev/null)
	else
		words=$("${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" --generate-bash-completion 2>/dev/null)
	fi
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
	[[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
	return 0
}
complete -o filenames -F _contend_complete contend
`

const zshCompletion = `#compdef contend
# zsh completion for contend: source <(contend completion zsh)
_contend() {
	local -a opts
	local cur=${words[-1]}
	if [[ "$cur" == -* ]]; then
		opts=("${(@f)$(${words[1]} ${words[@]:1:#words[@]-2} $cur --generate-bash-completion 2>/dev/null)}")
	else
		opts=("${(@f)$(${words[1]} ${words[@]:1:#words[@]-2} --generate-bash-completion 2>/dev/null)}")
	fi
	if [[ -n "${opts[1]}" ]]; then
		_describe 'values' opts
	else
		_files
	fi
}
compdef _contend contend
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash or zsh)",
		ArgsUsage: "bash|zsh",
		Description: `Prints a script that completes contend's commands, workloads and flags.

Examples:
   source <(contend completion bash)      in ~/.bashrc
   source <(contend completion zsh)       in ~/.zshrc`,
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			default:
				return usagef("completion: which shell? accepted: bash, zsh")
			}
			return nil
		},
	}
}
