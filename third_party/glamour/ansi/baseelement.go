package ansi

import (
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// BaseElement renders a styled primitive element.
type BaseElement struct {
	Token  string
	Prefix string
	Suffix string
	Style  StylePrimitive
}

// formatToken fills a style's Format in with the element's text.
//
// NovaCode's copy: upstream executes Format as a text/template with
// TemplateFuncMap. Executing any template makes the linker keep every
// exported method of every reachable type in the binary (text/template looks
// methods up by a name known only at run time), which doubled NovaCode's
// binary. Every stock style's Format is plain text or "{{.text}}", so this
// fills in only {{.text}} actions (spaces and trim markers allowed) and
// reports any other action as an error, as upstream reports a template that
// does not parse.
func formatToken(format string, token string) (string, error) {
	var b strings.Builder
	rest := format
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.Index(rest[open:], "}}")
		if end < 0 {
			return "", fmt.Errorf("glamour: error parsing template: unclosed action in %q", format)
		}
		end += open
		action := rest[open+2 : end]
		text := rest[:open]
		after := rest[end+2:]
		// "{{- " and " -}}" trim the space next to them, as text/template does.
		if a, ok := strings.CutPrefix(action, "- "); ok {
			action = a
			text = strings.TrimRight(text, " \t\r\n")
		}
		if a, ok := strings.CutSuffix(action, " -"); ok {
			action = a
			after = strings.TrimLeft(after, " \t\r\n")
		}
		if strings.TrimSpace(action) != ".text" {
			return "", fmt.Errorf("glamour: unsupported format action {{%s}} in %q: only {{.text}} is filled in", action, format)
		}
		b.WriteString(text)
		b.WriteString(token)
		rest = after
	}
}

func renderText(w io.Writer, rules StylePrimitive, s string) (int, error) { //nolint:unparam
	if len(s) == 0 {
		return 0, nil
	}

	// XXX: We're using [ansi.Style] instead of [lipgloss.Style] because
	// Lip Gloss has a weird bug where it adds spaces when rendering joined
	// strings. Needs further investigation.
	style := ansi.Style{}
	if rules.Upper != nil && *rules.Upper {
		s = cases.Upper(language.English).String(s)
	}
	if rules.Lower != nil && *rules.Lower {
		s = cases.Lower(language.English).String(s)
	}
	if rules.Title != nil && *rules.Title {
		s = cases.Title(language.English).String(s)
	}
	if rules.Color != nil {
		style = style.ForegroundColor(lipgloss.Color(*rules.Color))
	}
	if rules.BackgroundColor != nil {
		style = style.BackgroundColor(lipgloss.Color(*rules.BackgroundColor))
	}
	if rules.Underline != nil && *rules.Underline {
		style = style.Underline(true)
	}
	if rules.Bold != nil && *rules.Bold {
		style = style.Bold()
	}
	if rules.Italic != nil && *rules.Italic {
		style = style.Italic(true)
	}
	if rules.CrossedOut != nil && *rules.CrossedOut {
		style = style.Strikethrough(true)
	}
	if rules.Inverse != nil && *rules.Inverse {
		style = style.Reverse(true)
	}
	if rules.Blink != nil && *rules.Blink {
		style = style.Blink(true)
	}

	n, err := io.WriteString(w, style.Styled(s))
	if err != nil {
		return n, fmt.Errorf("glamour: error writing to writer: %w", err)
	}

	return n, nil
}

// StyleOverrideRender renders a BaseElement with an overridden style.
func (e *BaseElement) StyleOverrideRender(w io.Writer, ctx RenderContext, style StylePrimitive) error {
	bs := ctx.blockStack
	st1 := cascadeStylePrimitives(bs.Current().Style.StylePrimitive, style)
	st2 := cascadeStylePrimitives(bs.With(e.Style), style)

	return e.doRender(w, st1, st2)
}

// Render renders a BaseElement.
func (e *BaseElement) Render(w io.Writer, ctx RenderContext) error {
	bs := ctx.blockStack
	st1 := bs.Current().Style.StylePrimitive
	st2 := bs.With(e.Style)
	return e.doRender(w, st1, st2)
}

func (e *BaseElement) doRender(w io.Writer, st1, st2 StylePrimitive) error {
	_, _ = renderText(w, st1, e.Prefix)
	defer func() {
		_, _ = renderText(w, st1, e.Suffix)
	}()

	// render unstyled prefix/suffix
	_, _ = renderText(w, st1, st2.BlockPrefix)
	defer func() {
		_, _ = renderText(w, st1, st2.BlockSuffix)
	}()

	// render styled prefix/suffix
	_, _ = renderText(w, st2, st2.Prefix)
	defer func() {
		_, _ = renderText(w, st2, st2.Suffix)
	}()

	s := e.Token
	if len(st2.Format) > 0 {
		var err error
		s, err = formatToken(st2.Format, s)
		if err != nil {
			return err
		}
	}
	_, _ = renderText(w, st2, escapeReplacer.Replace(s))
	return nil
}

// https://www.markdownguide.org/basic-syntax/#characters-you-can-escape
var escapeReplacer = strings.NewReplacer(
	"\\\\", "\\",
	"\\`", "`",
	"\\*", "*",
	"\\_", "_",
	"\\{", "{",
	"\\}", "}",
	"\\[", "[",
	"\\]", "]",
	"\\<", "<",
	"\\>", ">",
	"\\(", "(",
	"\\)", ")",
	"\\#", "#",
	"\\+", "+",
	"\\-", "-",
	"\\.", ".",
	"\\!", "!",
	"\\|", "|",
)
