package lexers

import (
	"github.com/novacode/nova/third_party/chroma"
	"regexp"
)

// TODO(moorereason): can this be factored away?
var zoneAnalyserRe = regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)

// analyseDNS is run once the embedded lexers are registered (see GlobalLexerRegistry).
func analyseDNS(get func(string) chroma.Lexer) {
	get("dns").SetAnalyser(func(text string) float32 {
		if zoneAnalyserRe.FindString(text) != "" {
			return 1.0
		}
		return 0.0
	})
}
