package render

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/novacode/nova/third_party/chroma"
	chromastyles "github.com/novacode/nova/third_party/chroma/styles"

	gansi "github.com/novacode/nova/third_party/glamour/ansi"
	"github.com/novacode/nova/third_party/glamour/styles"
)

// Chroma style names registered by this package.
//
// Glamour registers its code-block colours in Chroma's global registry
// under the single name "charm", first come first served: once a light
// renderer has run, every dark renderer in the process highlights code in
// the light palette (and vice versa), and output depends on call order. We
// register one style per palette under our own names instead, before the
// first Markdown renderer exists (so that nothing is rendering yet), and
// point the code block at it.
const (
	chromaDark  = "novacode-dark"
	chromaLight = "novacode-light"
)

// registerChromaStyles runs once, from NewMarkdown rather than at init: a
// process that renders no Markdown (print mode) sets up none of it.
var registerChromaStyles = sync.OnceFunc(func() {
	chromastyles.Register(chromaStyleFrom(chromaDark, styles.DarkStyleConfig.CodeBlock.Chroma))
	chromastyles.Register(chromaStyleFrom(chromaLight, styles.LightStyleConfig.CodeBlock.Chroma))
	initialised.Store(true)
})

var initialised atomic.Bool

// Initialised reports whether this process has set up Markdown rendering
// (made a Markdown renderer). Print mode must not: it is what keeps the
// syntax-highlighting stack's set-up out of a one-shot run (tested in
// internal/cli).
func Initialised() bool { return initialised.Load() }

// chromaStyleFrom converts Glamour's Chroma rules to a Chroma style, the
// same way Glamour itself does.
func chromaStyleFrom(name string, c *gansi.Chroma) *chroma.Style {
	if c == nil {
		return chroma.MustNewStyle(name, chroma.StyleEntries{})
	}
	return chroma.MustNewStyle(name, chroma.StyleEntries{
		chroma.Text:                entry(c.Text),
		chroma.Error:               entry(c.Error),
		chroma.Comment:             entry(c.Comment),
		chroma.CommentPreproc:      entry(c.CommentPreproc),
		chroma.Keyword:             entry(c.Keyword),
		chroma.KeywordReserved:     entry(c.KeywordReserved),
		chroma.KeywordNamespace:    entry(c.KeywordNamespace),
		chroma.KeywordType:         entry(c.KeywordType),
		chroma.Operator:            entry(c.Operator),
		chroma.Punctuation:         entry(c.Punctuation),
		chroma.Name:                entry(c.Name),
		chroma.NameBuiltin:         entry(c.NameBuiltin),
		chroma.NameTag:             entry(c.NameTag),
		chroma.NameAttribute:       entry(c.NameAttribute),
		chroma.NameClass:           entry(c.NameClass),
		chroma.NameConstant:        entry(c.NameConstant),
		chroma.NameDecorator:       entry(c.NameDecorator),
		chroma.NameException:       entry(c.NameException),
		chroma.NameFunction:        entry(c.NameFunction),
		chroma.NameOther:           entry(c.NameOther),
		chroma.Literal:             entry(c.Literal),
		chroma.LiteralNumber:       entry(c.LiteralNumber),
		chroma.LiteralDate:         entry(c.LiteralDate),
		chroma.LiteralString:       entry(c.LiteralString),
		chroma.LiteralStringEscape: entry(c.LiteralStringEscape),
		chroma.GenericDeleted:      entry(c.GenericDeleted),
		chroma.GenericEmph:         entry(c.GenericEmph),
		chroma.GenericInserted:     entry(c.GenericInserted),
		chroma.GenericStrong:       entry(c.GenericStrong),
		chroma.GenericSubheading:   entry(c.GenericSubheading),
		chroma.Background:          entry(c.Background),
	})
}

func entry(p gansi.StylePrimitive) string {
	var parts []string
	if p.Color != nil {
		parts = append(parts, *p.Color)
	}
	if p.BackgroundColor != nil {
		parts = append(parts, "bg:"+*p.BackgroundColor)
	}
	if p.Italic != nil && *p.Italic {
		parts = append(parts, "italic")
	}
	if p.Bold != nil && *p.Bold {
		parts = append(parts, "bold")
	}
	if p.Underline != nil && *p.Underline {
		parts = append(parts, "underline")
	}
	return strings.Join(parts, " ")
}
