package render

import (
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/novacode/nova/third_party/glamour"
	gansi "github.com/novacode/nova/third_party/glamour/ansi"
	"github.com/novacode/nova/third_party/glamour/styles"
)

// maxCachedWidths bounds the renderer cache: a terminal being resized walks
// through many widths, but only the last few are ever needed again.
const maxCachedWidths = 4

// Markdown renders assistant answers with Glamour. Building a Glamour
// renderer parses a style sheet and sets up Goldmark, which costs far more
// than rendering a short answer, so renderers are cached per width (the
// theme is fixed per Markdown). It is safe for concurrent use.
type Markdown struct {
	theme Theme

	mu    sync.Mutex
	cache map[int]*glamour.TermRenderer
	order []int // widths in insertion order, for eviction
}

// NewMarkdown returns a Markdown renderer for theme t.
func NewMarkdown(t Theme) *Markdown {
	registerChromaStyles()
	return &Markdown{theme: t, cache: make(map[int]*glamour.TermRenderer)}
}

// Render renders src as Markdown at most width cells wide. It never fails:
// if Glamour errors the source is returned word-wrapped as plain text.
func (m *Markdown) Render(src string, width int) string {
	width = max(width, 1)
	m.mu.Lock()
	defer m.mu.Unlock() // a TermRenderer shares its Goldmark state between calls
	r, err := m.renderer(width)
	if err != nil {
		return Wrap(strings.TrimSpace(src), width)
	}
	// Tabs would be measured as zero cells but drawn as up to eight.
	src = strings.ReplaceAll(src, "\t", strings.Repeat(" ", tabWidth))
	out, err := r.Render(src)
	if err != nil {
		return Wrap(strings.TrimSpace(src), width)
	}
	if m.theme.NoColor {
		// The ASCII style still emits a few attribute resets; NO_COLOR
		// means none at all.
		out = ansi.Strip(out)
	}
	return clamp(trimBlankLines(out), width)
}

func (m *Markdown) renderer(width int) (*glamour.TermRenderer, error) {
	if r, ok := m.cache[width]; ok {
		return r, nil
	}
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(m.styleConfig()),
		glamour.WithWordWrap(width),
		// Chroma's 256-colour formatter picks the nearest palette entry by
		// ranging over a map, so a colour equidistant from two entries
		// (Glamour's comment grey is one) comes out differently from run
		// to run. True colour is exact and deterministic; Bubble Tea
		// downsamples it to what the terminal supports when drawing.
		glamour.WithChromaFormatter("terminal16m"),
	)
	if err != nil {
		return nil, err
	}
	if len(m.order) >= maxCachedWidths {
		delete(m.cache, m.order[0])
		m.order = m.order[1:]
	}
	m.cache[width] = r
	m.order = append(m.order, width)
	return r, nil
}

// styleConfig picks Glamour's stock style for the theme, without the
// document margin (the timeline decides its own indentation) and with code
// highlighted through our own Chroma style names (see chroma.go).
func (m *Markdown) styleConfig() gansi.StyleConfig {
	var cfg gansi.StyleConfig
	switch {
	case m.theme.NoColor:
		cfg = styles.ASCIIStyleConfig
	case m.theme.Dark:
		cfg = styles.DarkStyleConfig
		cfg.CodeBlock.Theme, cfg.CodeBlock.Chroma = chromaDark, nil
	default:
		cfg = styles.LightStyleConfig
		cfg.CodeBlock.Theme, cfg.CodeBlock.Chroma = chromaLight, nil
	}
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	return cfg
}

// trimBlankLines drops leading and trailing lines that show nothing, which
// Glamour adds around blocks, and each line's invisible padding (see
// trimPadding).
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = trimPadding(l)
	}
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

var sgrRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// trimPadding removes the spaces Glamour pads every line with up to the
// wrap width. Glamour wraps each padding space in its own colour sequence,
// so an empty 80-column line costs about a kilobyte; across a long session
// that is most of the memory the timeline holds. A space is only dropped
// when the colour in force has no background (it would be invisible), and a
// reset is appended so no attribute leaks past the cut.
func trimPadding(l string) string {
	if !strings.Contains(l, "\x1b") {
		return strings.TrimRight(l, " ")
	}
	locs := sgrRe.FindAllStringIndex(l, -1)
	cut := len(l)
	k := len(locs) - 1
	for cut > 0 {
		if k >= 0 && locs[k][1] == cut {
			cut = locs[k][0]
			k--
			continue
		}
		// locs[k] is now the last sequence before the space: the one in force.
		inForce := ""
		if k >= 0 {
			inForce = l[locs[k][0]:locs[k][1]]
		}
		if l[cut-1] == ' ' && !hasBackground(inForce) {
			cut--
			continue
		}
		break
	}
	switch cut {
	case len(l):
		return l
	case 0:
		return ""
	}
	return l[:cut] + "\x1b[m"
}

// hasBackground reports whether an SGR sequence may set a background or
// reverse video. It errs on the side of yes (a 256-colour index of 48 also
// matches), which only means a space is kept.
func hasBackground(sgr string) bool {
	params := strings.TrimSuffix(strings.TrimPrefix(sgr, "\x1b["), "m")
	for p := range strings.SplitSeq(params, ";") {
		switch {
		case p == "7", p == "48":
		case len(p) == 2 && p[0] == '4' && p[1] >= '0' && p[1] <= '7':
		case len(p) == 3 && p[0] == '1' && p[1] == '0':
		default:
			continue
		}
		return true
	}
	return false
}
