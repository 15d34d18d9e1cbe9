package tui

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/novacode/nova/third_party/bubbletea"
	"go.uber.org/goleak"

	"github.com/novacode/nova/event"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// chroma's regexp engine keeps a process-wide clock goroutine.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (-update to rewrite)\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("never got %s", what)
		panic("unreachable")
	}
}

func key(code rune, mod ...tea.KeyMod) tea.KeyPressMsg {
	k := tea.KeyPressMsg{Code: code}
	for _, m := range mod {
		k.Mod |= m
	}
	if len(mod) == 0 && code >= ' ' && code < tea.KeyExtended {
		k.Text = string(code)
	}
	return k
}

// TestScriptedSession drives the whole program: a prompt, streamed thinking
// and text, three tool calls, a permission dialog answered "always", and a
// cancel with Esc.
func TestScriptedSession(t *testing.T) {
	f := newFake()
	m := New(Options{Runner: f, Model: "claude-test", Mode: "default", NoColor: true, Dark: true})
	defer m.Close()
	tm := newTestProgram(t, m, 80, 24)

	tm.Type("look around")
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "always")
	tm.Send(key(tea.KeyDown))
	tm.Send(key(tea.KeyEnter))
	if d := recv(t, f.decision, "a decision"); d != (event.Decision{Behavior: event.Allow, Always: true}) {
		t.Errorf("decision = %+v, want allow always", d)
	}
	recv(t, f.waiting, "the fake waiting")
	tm.Send(key(tea.KeyEscape))
	recv(t, f.cancelled, "the cancel")
	waitFor(t, tm, "Cancelled.")
	tm.Type("/exit")
	tm.Send(key(tea.KeyEnter))
	final := tm.final(t)
	final.Close()

	if len(f.prompts) != 1 || f.prompts[0] != "look around" {
		t.Errorf("prompts = %q", f.prompts)
	}
	golden(t, "session.golden", ansi.Strip(final.Screen()))
}
