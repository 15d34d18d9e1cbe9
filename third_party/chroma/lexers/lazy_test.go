package lexers

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/novacode/nova/third_party/chroma"
)

// NovaCode's copy: importing the package parses no embedded lexer; the
// first lookup does (see GlobalLexerRegistry). Checked before any test
// looks a lexer up.
func TestMain(m *testing.M) {
	// The golden tests compare tokens: a rule timed out on a loaded
	// machine (a goroutine waiting for a CPU) is not what they test.
	chroma.MatchTimeout = time.Minute
	if n := len(GlobalLexerRegistry.Lexers); n != 0 {
		fmt.Fprintf(os.Stderr, "%d lexers registered at init, want none before the first lookup\n", n)
		os.Exit(1)
	}
	if Get("go") == nil || Get("dns") == nil || len(GlobalLexerRegistry.Lexers) < 200 {
		fmt.Fprintf(os.Stderr, "the first lookup registered %d lexers\n", len(GlobalLexerRegistry.Lexers))
		os.Exit(1)
	}
	os.Exit(m.Run())
}
