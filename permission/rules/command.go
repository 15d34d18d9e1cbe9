package rules

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// parseCommand parses a Bash specifier: shell-like words, optionally ending
// in `:*` or a lone `*` (prefix). Anything that a shell would treat as syntax
// (operators, expansions, comments) is an error rather than a literal word:
// the analyser hands us the words of one simple command after expansion, so
// such a rule could never match, and a deny rule that silently never matches
// is the worst kind of bug.
func parseCommand(tool, spec string) (Rule, error) {
	words, err := splitWords(spec)
	if err != nil {
		return Rule{}, err
	}
	prefix := false
	if n := len(words); n > 0 {
		last := &words[n-1]
		switch {
		case len(last.text) == 1 && last.text[0] == '*' && !last.quoted[0] && !last.hasQuote:
			prefix = true
			words = words[:n-1]
		case last.endsWithUnquoted(":*"):
			prefix = true
			last.text = last.text[:len(last.text)-2]
			last.quoted = last.quoted[:len(last.quoted)-2]
			if len(last.text) == 0 && !last.hasQuote {
				words = words[:n-1]
			}
		}
	}
	out := make([]string, len(words))
	for i, w := range words {
		for j, c := range w.text {
			if c == '*' && !w.quoted[j] {
				return Rule{}, errors.New("`*` only works at the end of a command rule, as in Bash(npm run:*) or Bash(npm run *); " +
					"quote it ('*') to match a literal star")
			}
		}
		out[i] = string(w.text)
	}
	if len(out) == 0 {
		return Rule{Tool: tool, Kind: KindTool}, nil
	}
	return newCommandRule(tool, out, prefix), nil
}

// newCommandRule builds a KindCommand rule with its canonical specifier.
func newCommandRule(tool string, words []string, prefix bool) Rule {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteWord(w)
	}
	spec := strings.Join(quoted, " ")
	if prefix {
		spec += ":*"
	}
	return Rule{Tool: tool, Specifier: spec, Kind: KindCommand, Words: words, Prefix: prefix}
}

// word is one word of a specifier; quoted[i] says whether text[i] came from
// inside quotes or after a backslash (and so is never special).
type word struct {
	text     []byte
	quoted   []bool
	hasQuote bool // any quoting at all: '' is a word, nothing is not
}

func (w *word) add(c byte, quoted bool) {
	w.text = append(w.text, c)
	w.quoted = append(w.quoted, quoted)
}

func (w *word) endsWithUnquoted(s string) bool {
	n := len(w.text) - len(s)
	if n < 0 || string(w.text[n:]) != s {
		return false
	}
	return !slices.Contains(w.quoted[n:], true)
}

// splitWords splits a specifier the way a POSIX shell splits a simple
// command: blanks separate words, single quotes keep everything, double
// quotes keep everything but `\`-escapes of $ ` " \ and newline, and a
// backslash outside quotes escapes the next character.
func splitWords(s string) ([]word, error) {
	var (
		words  []word
		cur    word
		inWord bool
	)
	flush := func() {
		if inWord {
			words = append(words, cur)
		}
		cur, inWord = word{}, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t':
			flush()
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote: close it, or write \\' for a literal quote")
			}
			inWord, cur.hasQuote = true, true
			for j := i + 1; j <= i+end; j++ {
				cur.add(s[j], true)
			}
			i += end + 1
		case '"':
			inWord, cur.hasQuote = true, true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				switch s[j] {
				case '\\':
					if j+1 < len(s) {
						switch s[j+1] {
						case '$', '`', '"', '\\':
							j++
							cur.add(s[j], true)
							continue
						case '\n':
							j++
							continue
						}
					}
					cur.add('\\', true)
				case '$', '`':
					return nil, expansionError(s[j])
				default:
					cur.add(s[j], true)
				}
			}
			if j >= len(s) {
				return nil, errors.New("unterminated double quote: close it, or write \\\" for a literal quote")
			}
			i = j
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a backslash ends the rule: it must escape a character (\\\\ for a literal backslash)")
			}
			i++
			if s[i] == '\n' {
				continue // line continuation
			}
			inWord = true
			cur.add(s[i], true)
		case '\n', '\r':
			return nil, errors.New("a newline separates commands in a shell, and a Bash rule matches one command: write one rule per command")
		case ';', '&', '|', '<', '>', '(', ')':
			return nil, fmt.Errorf("`%c` is shell syntax, and a Bash rule matches one simple command: write one rule per command, "+
				"or quote it ('%c') to match it literally", c, c)
		case '$', '`':
			return nil, expansionError(c)
		case '#':
			if !inWord {
				return nil, errors.New("`#` starts a comment in a shell: quote it ('#') to match it literally")
			}
			cur.add(c, false)
		default:
			inWord = true
			cur.add(c, false)
		}
	}
	flush()
	return words, nil
}

func expansionError(c byte) error {
	return fmt.Errorf("`%c` would expand in a shell, and rules match the words after expansion: "+
		"quote it with single quotes ('%c') to match it literally", c, c)
}

// quoteWord returns w as a specifier word that splitWords turns back into w.
func quoteWord(w string) string {
	if w != "" && strings.IndexFunc(w, func(c rune) bool { return !safeWordChar(c) }) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func safeWordChar(c rune) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.ContainsRune("-_./:=,+@%^~!?[]{}", c)
}

// MatchCommand reports whether a KindCommand rule matches a command given as
// its words (argv after quote removal). An exact rule needs the same words; a
// prefix rule needs the command's words to start with the rule's words, so
// Bash(git diff:*) matches `git diff` and `git diff HEAD` but not
// `git difftool`. Comparison is case-sensitive, as commands are.
func (r Rule) MatchCommand(words []string) bool {
	if r.Kind != KindCommand || len(r.Words) == 0 {
		return false
	}
	if r.Prefix {
		return len(words) >= len(r.Words) && slices.Equal(words[:len(r.Words)], r.Words)
	}
	return slices.Equal(words, r.Words)
}

// MatchCommandBroad is MatchCommand for deny and ask lists: when the rule's
// first word is a bare program name, it also matches that program invoked
// by path (Bash(rm:*) matches `/bin/rm -rf x` and `./rm`), since a deny rule
// must not be dodged by spelling the program differently. Do not use it for
// allow rules: `/tmp/evil/git status` is not `git status`.
func (r Rule) MatchCommandBroad(words []string) bool {
	if r.MatchCommand(words) {
		return true
	}
	if r.Kind != KindCommand || len(r.Words) == 0 || len(words) == 0 || strings.Contains(r.Words[0], "/") {
		return false
	}
	if !strings.Contains(words[0], "/") || path.Base(words[0]) != r.Words[0] {
		return false
	}
	w := slices.Clone(words)
	w[0] = r.Words[0]
	return r.MatchCommand(w)
}

// multiCommandTools are programs whose first argument is a subcommand, for
// which "allow always" remembers `tool subcommand:*` rather than one exact
// command line.
var multiCommandTools = map[string]bool{
	"git": true, "npm": true, "pnpm": true, "yarn": true, "go": true, "cargo": true,
	"make": true, "docker": true, "kubectl": true, "pip": true, "pip3": true, "uv": true,
	"bun": true, "deno": true, "dotnet": true, "mvn": true, "mvnw": true, "gradle": true,
	"gradlew": true,
}

// nestedSubcommands are subcommands whose own next word picks what actually
// runs (a script, a compose verb): the suggestion keeps that word too, so
// "allow always" for `npm run test` does not allow `npm run deploy`.
var nestedSubcommands = map[string][]string{
	"npm":    {"run", "run-script", "exec", "x"},
	"pnpm":   {"run", "exec", "dlx"},
	"yarn":   {"run", "exec", "dlx", "workspace"},
	"bun":    {"run", "x"},
	"uv":     {"run", "pip", "tool"},
	"deno":   {"run", "task"},
	"docker": {"compose", "container", "image", "network", "volume", "buildx", "system"},
	"go":     {"mod", "tool", "work"},
	"cargo":  {"run"},
	"dotnet": {"tool", "ef"},
	"git":    {"stash", "remote", "submodule", "worktree", "lfs"},
}

// isSubcommand reports whether w looks like a subcommand or script name
// rather than a flag, path or assignment.
func isSubcommand(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z' || w[0] >= 'A' && w[0] <= 'Z' || w[0] >= '0' && w[0] <= '9') {
		return false
	}
	for _, c := range w {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:@", c)
		if !ok {
			return false
		}
	}
	return true
}

// SuggestCommand returns the narrowest sensible rule for remembering an
// "allow always" answer to a command: its exact words, except for
// multi-command tools (git, npm, go, cargo, docker, …) where it is
// `tool subcommand:*` (`npm run script:*` for script runners), so that
// `go test ./...` gives Bash(go test:*). A command that is just
// `tool subcommand` stays exact: `git status` gives Bash(git status).
// Empty words give the zero Rule.
func SuggestCommand(words []string) Rule {
	if len(words) == 0 {
		return Rule{}
	}
	words = slices.Clone(words)
	prog := path.Base(words[0])
	n := 0 // number of words the prefix keeps
	if multiCommandTools[prog] && len(words) > 1 && isSubcommand(words[1]) {
		n = 2
		if slices.Contains(nestedSubcommands[prog], words[1]) && len(words) > 2 && isSubcommand(words[2]) {
			n = 3
		}
	}
	if n == 0 || n == len(words) {
		return newCommandRule("Bash", words, false)
	}
	return newCommandRule("Bash", words[:n], true)
}
