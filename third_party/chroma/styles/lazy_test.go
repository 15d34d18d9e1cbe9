package styles

import (
	"fmt"
	"os"
	"testing"

	"github.com/novacode/nova/third_party/chroma"
)

// NovaCode's copy: importing the package parses only the fallback style;
// the first Get parses the rest (see Registry). Checked before any test
// runs.
func TestMain(m *testing.M) {
	if n := len(Registry); n != 0 {
		fmt.Fprintf(os.Stderr, "%d styles in the registry at init, want none before the first Get\n", n)
		os.Exit(1)
	}
	if Fallback == nil || Fallback.Name != "swapoff" {
		fmt.Fprintf(os.Stderr, "Fallback is %v before the first Get, want swapoff\n", Fallback)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// A style registered before the load keeps its name over the embedded one,
// as upstream's registration after init replaced it.
func TestRegisteredBeforeTheLoadWins(t *testing.T) {
	mine := Register(chroma.MustNewStyle("monokai", chroma.StyleEntries{chroma.Text: "#123456"}))
	if got := Get("monokai"); got != mine {
		t.Errorf("Get(monokai) = %v, want the registered style", got)
	}
	if got := len(Names()); got < 60 {
		t.Errorf("Names() has %d styles after the load, want every embedded one", got)
	}
	if got := Get("dracula"); got == nil || got.Name != "dracula" {
		t.Errorf("Get(dracula) = %v, want the embedded style", got)
	}
	if Get("swapoff") != Fallback || Get("no such style") != Fallback {
		t.Error("swapoff or an unknown name does not give the fallback style")
	}
}
