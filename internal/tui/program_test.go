package tui

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

// testProgram runs a model as a whole Bubble Tea program (our patched copy,
// third_party/bubbletea) on an empty input and an in-memory output of a
// fixed size, and lets a test send it messages and wait for its output.
// It does for these tests what charmbracelet/x/exp/teatest does, whose
// types are upstream Bubble Tea's and not the copy's.
type testProgram struct {
	p    *tea.Program
	out  *syncBuffer
	seen int // output before this was matched by an earlier waitFor

	done  chan struct{}
	model tea.Model
	err   error
}

// newTestProgram starts m at width × height. The program's goroutine ends
// when the model quits; final waits for it.
func newTestProgram(t *testing.T, m tea.Model, width, height int) *testProgram {
	t.Helper()
	tp := &testProgram{out: &syncBuffer{}, done: make(chan struct{})}
	tp.p = tea.NewProgram(m,
		tea.WithInput(&bytes.Buffer{}),
		tea.WithOutput(tp.out),
		tea.WithoutSignals(),
		tea.WithWindowSize(width, height))
	go func() {
		defer close(tp.done)
		tp.model, tp.err = tp.p.Run()
	}()
	tp.p.Send(tea.WindowSizeMsg{Width: width, Height: height})
	t.Cleanup(func() {
		select {
		case <-tp.done:
		default: // a test that failed before its model quit
			tp.p.Kill()
			<-tp.done
		}
	})
	return tp
}

// Send sends the program a message.
func (tp *testProgram) Send(msg tea.Msg) { tp.p.Send(msg) }

// Type sends s as key presses, one per rune.
func (tp *testProgram) Type(s string) {
	for _, c := range s {
		tp.p.Send(tea.KeyPressMsg{Code: c, Text: string(c)})
	}
}

// waitFor blocks until the output written since the last waitFor returned
// contains s. It is a synchronisation point, not a timed assertion: the long
// limit only stops a broken test from hanging.
func waitFor(t *testing.T, tp *testProgram, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := tp.out.String()
		if strings.Contains(out[tp.seen:], s) {
			tp.seen = len(out)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program never wrote %q; it wrote since the last wait:\n%s", s, out[tp.seen:])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// final waits for the program to end and returns its model.
func (tp *testProgram) final(t *testing.T) *Model {
	t.Helper()
	select {
	case <-tp.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not end within 30 s")
	}
	if tp.err != nil {
		t.Fatalf("the program failed: %v", tp.err)
	}
	m, ok := tp.model.(*Model)
	if !ok {
		t.Fatalf("the program ended with a %T, not a *Model", tp.model)
	}
	return m
}

// syncBuffer is the program's output, written by its renderer and read by
// the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
