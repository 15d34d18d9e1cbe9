package tui

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"go.uber.org/goleak"

	"github.com/novacode/nova/event"
)

// update is the -update flag, registered by the golden package that teatest
// imports; looked up rather than redefined.
func update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// teatest leaves one goroutine per test model waiting for SIGINT forever;
// it is teatest's, not ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
		// chroma's regexp engine keeps a process-wide clock goroutine.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update() {
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

// waitFor blocks until the program's output contains s. It is a
// synchronisation point, not a timed assertion: the long limit only stops
// a broken test from hanging.
func waitFor(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
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
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))

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
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	final.Close()

	if len(f.prompts) != 1 || f.prompts[0] != "look around" {
		t.Errorf("prompts = %q", f.prompts)
	}
	golden(t, "session.golden", ansi.Strip(final.Screen()))
}
