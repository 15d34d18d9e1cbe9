package lexers

import (
	"github.com/novacode/nova/third_party/chroma"
	"strings"
)

// Zed lexer.
// analyseZed is run once the embedded lexers are registered (see GlobalLexerRegistry).
func analyseZed(get func(string) chroma.Lexer) {
	get("Zed").SetAnalyser(func(text string) float32 {
		if strings.Contains(text, "definition ") && strings.Contains(text, "relation ") && strings.Contains(text, "permission ") {
			return 0.9
		}
		if strings.Contains(text, "definition ") {
			return 0.5
		}
		if strings.Contains(text, "relation ") {
			return 0.5
		}
		if strings.Contains(text, "permission ") {
			return 0.25
		}
		return 0.0
	})
}
