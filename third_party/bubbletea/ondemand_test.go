package tea

// Tests of the NovaCode patch: frames are flushed on demand, not by a
// free-running ticker (see startRenderer).

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
	"time"
)

// countingRenderer records how often the program renders and flushes and
// which view the last flush carried.
type countingRenderer struct {
	nilRenderer
	mu          sync.Mutex
	renders     int
	flushes     int
	pending     string
	lastFlushed string
}

func (r *countingRenderer) render(v View) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renders++
	r.pending = v.Content
}

func (r *countingRenderer) flush(bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushes++
	r.lastFlushed = r.pending
	return nil
}

func (r *countingRenderer) counts() (renders, flushes int, last string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renders, r.flushes, r.lastFlushed
}

type setViewMsg string

type viewModel struct{ content string }

func (m viewModel) Init() Cmd { return nil }

func (m viewModel) Update(msg Msg) (Model, Cmd) {
	if s, ok := msg.(setViewMsg); ok {
		m.content = string(s)
	}
	return m, nil
}

func (m viewModel) View() View { return NewView(m.content) }

// startCounting runs a program on a counting renderer at 120 fps and
// returns it with a function that stops it and waits for it to end.
func startCounting(t *testing.T) (*Program, *countingRenderer) {
	t.Helper()
	r := &countingRenderer{}
	p := NewProgram(viewModel{content: "start"},
		WithInput(&bytes.Buffer{}), WithOutput(&bytes.Buffer{}),
		WithWindowSize(80, 24), WithFPS(120))
	p.renderer = r
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	t.Cleanup(func() {
		p.Quit()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("program did not stop within 10 s")
		}
	})
	return p, r
}

// waitFlushed waits until a flush has carried want.
func waitFlushed(t *testing.T, r *countingRenderer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, _, last := r.counts(); last == want {
			return
		}
		time.Sleep(time.Millisecond)
	}
	_, _, last := r.counts()
	t.Fatalf("view %q never flushed; last flushed %q", want, last)
}

// TestIdleProgramDoesNotFlush: with nothing rendered, nothing is flushed.
// The free-running ticker flushed 120 times a second here. A window in which
// the program rendered (a late start-up message) proves nothing and is
// retried; a slow machine can only make the old behaviour flush less, never
// make the patched one flush at all, so the test cannot fail by load.
func TestIdleProgramDoesNotFlush(t *testing.T) {
	p, r := startCounting(t)
	p.Send(setViewMsg("ready"))
	waitFlushed(t, r, "ready")

	const window = 30 * time.Second / 120 // 30 frame intervals
	for attempt := 0; attempt < 20; attempt++ {
		renders0, flushes0, _ := r.counts()
		time.Sleep(window)
		renders1, flushes1, _ := r.counts()
		if renders1 != renders0 {
			continue // something rendered: not an idle window
		}
		if flushes1 != flushes0 {
			t.Fatalf("idle for %v with no render, yet %d flushes", window, flushes1-flushes0)
		}
		return
	}
	t.Fatal("no idle window in 20 attempts: the program keeps rendering")
}

// TestBurstIsCoalescedAndLastViewFlushed: many renders within a few frame
// intervals share frames (the fps ceiling holds), and the last view is the
// one on screen at the end.
func TestBurstIsCoalescedAndLastViewFlushed(t *testing.T) {
	p, r := startCounting(t)
	p.Send(setViewMsg("ready"))
	waitFlushed(t, r, "ready")

	renders0, flushes0, _ := r.counts()
	start := time.Now()
	const n = 500
	for i := range n {
		p.Send(setViewMsg("view " + strconv.Itoa(i)))
	}
	waitFlushed(t, r, "view "+strconv.Itoa(n-1))
	elapsed := time.Since(start)
	renders1, flushes1, _ := r.counts()

	if got := renders1 - renders0; got < n {
		t.Fatalf("%d renders for %d messages", got, n)
	}
	// One frame per interval at most, plus the leading frame and the one
	// that may be in flight at either end.
	ceiling := int(elapsed/(time.Second/120)) + 2
	if got := flushes1 - flushes0; got > ceiling {
		t.Fatalf("%d flushes in %v: more than one per frame interval (ceiling %d)", got, elapsed, ceiling)
	}
}

// TestRestartedRendererRedraws: RestoreTerminal restarts the renderer, which
// owes the terminal a frame even if the view did not change.
func TestRestartedRendererRedraws(t *testing.T) {
	p, r := startCounting(t)
	p.Send(setViewMsg("ready"))
	waitFlushed(t, r, "ready")
	if err := p.ReleaseTerminal(); err != nil {
		t.Fatalf("ReleaseTerminal: %v", err)
	}
	_, before, _ := r.counts()
	if err := p.RestoreTerminal(); err != nil {
		t.Fatalf("RestoreTerminal: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, after, _ := r.counts(); after > before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no frame after RestoreTerminal")
}
