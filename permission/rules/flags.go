package rules

// ParseFlagList parses the values of a flag such as --allowedTools or
// --disallowedTools (flag is its name, for Source.File). Each value holds
// rules separated by commas or blanks; parentheses group, so
// "Bash(git diff:*),Read" is two rules and "Bash(npm run test:*)" one, and
// quotes inside parentheses keep their parentheses and commas
// (`Bash(echo "a)b")`). A rule's Source is the flag, the value's number
// (1-based) as Line and the rule's byte offset in the value (1-based) as
// Col. Malformed rules are reported and skipped; the others are returned.
func ParseFlagList(flag string, values []string) ([]Rule, []ParseError) {
	var (
		rules []Rule
		errs  []ParseError
	)
	for i, v := range values {
		for _, item := range splitFlagValue(v) {
			src := Source{File: flag, Line: i + 1, Col: item.off + 1}
			r, err := parse(item.text)
			if err != nil {
				errs = append(errs, ParseError{Source: src, Rule: item.text, Err: err})
				continue
			}
			r.Source = src
			rules = append(rules, r)
		}
	}
	return rules, errs
}

type flagItem struct {
	text string
	off  int
}

// splitFlagValue splits one flag value at commas and blanks outside
// parentheses. Inside parentheses, quotes are tracked as a shell would so
// that a quoted parenthesis does not close the group; an unclosed group
// runs to the end of the value and Parse reports it.
func splitFlagValue(v string) []flagItem {
	var (
		items []flagItem
		start = -1
		depth int
		quote byte
	)
	end := func(i int) {
		if start >= 0 {
			items = append(items, flagItem{text: v[start:i], off: start})
		}
		start = -1
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if depth > 0 {
			switch {
			case quote == '\'':
				if c == '\'' {
					quote = 0
				}
			case quote == '"':
				if c == '\\' {
					i++
				} else if c == '"' {
					quote = 0
				}
			case c == '\\':
				i++
			case c == '\'' || c == '"':
				quote = c
			case c == '(':
				depth++
			case c == ')':
				depth--
			}
			continue
		}
		switch c {
		case ',', ' ', '\t', '\n', '\r':
			end(i)
			continue
		case '(':
			depth++
		}
		if start < 0 {
			start = i
		}
	}
	end(len(v))
	return items
}
