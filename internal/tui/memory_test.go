package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// memoryFake proposes facts and records what is written.
type memoryFake struct {
	mu       sync.Mutex
	facts    []string
	err      error
	proposed int
	written  map[string][]string
}

func (f *memoryFake) options() Options {
	return Options{Mode: "default", Dir: "/ws",
		ProposeMemory: func(ctx context.Context) (MemoryProposal, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.proposed++
			return MemoryProposal{Facts: f.facts, Project: "/ws/NOVA.md", User: "/data/NOVA.md"}, f.err
		},
		WriteMemory: func(path string, facts []string) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.written == nil {
				f.written = map[string][]string{}
			}
			f.written[path] = append(f.written[path], facts...)
			return nil
		},
	}
}

// runEnds folds a run's end into m as the program would: loop_complete,
// then the end of the run, whose commands (the proposal among them) run
// and deliver their messages.
func runEnds(t *testing.T, m *Model, reason string) {
	t.Helper()
	m.busy = true
	m.handleEvent(event.LoopComplete{Reason: reason})
	deliver(m, m.finishRun())
}

// deliver runs cmd (and a batch's commands) and hands the messages to m.
func deliver(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			deliver(m, c)
		}
	case nil:
	default:
		m.Update(msg)
	}
}

// When a run the model finished ends, facts are proposed and shown; each
// answer does what it says, and only saving writes.
func TestMemorySuggestion(t *testing.T) {
	facts := []string{"Run the tests with go test ./...", "Answer in English"}
	tests := []struct {
		name     string
		keys     func(m *Model)
		want     map[string][]string
		wantNote string
	}{
		{"enter saves to the project", func(m *Model) { press(m, key(tea.KeyEnter)) },
			map[string][]string{"/ws/NOVA.md": facts}, "Saved to NOVA.md:\n- Run the tests with go test ./...\n- Answer in English"},
		{"2 saves to the user's", func(m *Model) { press(m, key('2'), key(tea.KeyEnter)) },
			map[string][]string{"/data/NOVA.md": facts}, "Saved to /data/NOVA.md"},
		{"esc declines", func(m *Model) { press(m, key(tea.KeyEscape)) }, nil, ""},
		{"4 declines", func(m *Model) { press(m, key('4'), key(tea.KeyEnter)) }, nil, ""},
		{"edit, then save", func(m *Model) {
			press(m, key('3'), key(tea.KeyEnter))
			if got := m.input.Value(); got != "- Run the tests with go test ./...\n- Answer in English" {
				t.Errorf("the input holds %q", got)
			}
			m.input.Reset()
			typeText(m, "- Run the tests with go test -race ./...")
			press(m, key(tea.KeyEnter)) // done editing: back to the choices
			if !strings.Contains(m.Screen(), "• Run the tests with go test -race ./...") {
				t.Errorf("edited facts not shown:\n%s", m.Screen())
			}
			press(m, key(tea.KeyEnter))
		}, map[string][]string{"/ws/NOVA.md": {"Run the tests with go test -race ./..."}}, "Saved to NOVA.md"},
		{"edit, esc goes back", func(m *Model) {
			press(m, key('3'), key(tea.KeyEnter), key(tea.KeyEscape))
			if m.input.Value() != "" || m.memory.open == nil {
				t.Errorf("input %q, suggestion open %v", m.input.Value(), m.memory.open != nil)
			}
			press(m, key(tea.KeyEscape))
		}, nil, ""},
		{"a prompt sent dismisses it", func(m *Model) {
			typeText(m, "next task")
			press(m, key(tea.KeyEnter))
		}, nil, "> next task"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &memoryFake{facts: facts}
			o := f.options()
			r := &recordingRunner{}
			o.Runner = r
			m := plainModel(o)
			defer m.Close()
			runEnds(t, m, event.ReasonDone)
			scr := m.Screen()
			for _, want := range []string{"Remember for next time?", "• Run the tests with go test ./...", "• Answer in English",
				"❯ 1. Yes, in the project's memory (NOVA.md)", "2. Yes, in my own memory (/data/NOVA.md)", "3. Edit them first", "4. No (esc)"} {
				if !strings.Contains(scr, want) {
					t.Errorf("screen lacks %q:\n%s", want, scr)
				}
			}
			if len(f.written) != 0 {
				t.Fatal("written before an answer")
			}
			tc.keys(m)
			if diff := cmp.Diff(tc.want, f.written); diff != "" {
				t.Errorf("written (-want +got):\n%s", diff)
			}
			if m.memory.open != nil {
				t.Error("the suggestion is still open")
			}
			if tc.wantNote != "" && !strings.Contains(m.Screen(), tc.wantNote) {
				t.Errorf("screen lacks %q:\n%s", tc.wantNote, m.Screen())
			}
		})
	}
}

// Facts declined are not suggested again; runs that did not finish, and
// sessions with suggestions off, propose nothing; a failure is said once.
func TestMemorySuggestionLimits(t *testing.T) {
	f := &memoryFake{facts: []string{"a fact"}}
	m := plainModel(f.options())
	defer m.Close()
	runEnds(t, m, event.ReasonDone)
	press(m, key(tea.KeyEscape))
	runEnds(t, m, event.ReasonDone)
	if f.proposed != 2 || m.memory.open != nil {
		t.Fatalf("proposed %d times, open %v: a declined fact came back", f.proposed, m.memory.open != nil)
	}
	f.facts = []string{"a fact", "another"}
	runEnds(t, m, event.ReasonDone)
	if m.memory.open == nil || !cmp.Equal(m.memory.open.facts, []string{"another"}) {
		t.Fatalf("suggestion %+v", m.memory.open)
	}
	// One on screen: no new proposal until it is answered.
	runEnds(t, m, event.ReasonDone)
	if f.proposed != 3 {
		t.Errorf("proposed %d times with a suggestion open", f.proposed)
	}
	press(m, key(tea.KeyEscape))
	for _, reason := range []string{event.ReasonCancelled, event.ReasonError, event.ReasonMaxTurns} {
		runEnds(t, m, reason)
	}
	if f.proposed != 3 {
		t.Errorf("proposed after runs that did not finish: %d", f.proposed)
	}
	f.err = errors.New("overloaded")
	runEnds(t, m, event.ReasonDone)
	runEnds(t, m, event.ReasonDone)
	if n := strings.Count(m.Screen(), "no memory suggestion: overloaded"); n != 1 {
		t.Errorf("the failure is said %d times:\n%s", n, m.Screen())
	}

	off := plainModel(Options{Mode: "default"})
	defer off.Close()
	runEnds(t, off, event.ReasonDone)
	if off.memory.open != nil || off.memory.inFlight {
		t.Error("a suggestion without ProposeMemory")
	}
}

// /memory shows the files the model reads, the first lines of each, and
// where accepted facts go.
func TestMemoryCommand(t *testing.T) {
	long := strings.Repeat("line\n", 25)
	m := plainModel(Options{Memory: func() (MemoryInfo, error) {
		return MemoryInfo{Files: []MemoryFile{{Path: "/data/NOVA.md", Scope: "user", Content: "Mine.\n"}, {Path: "/ws/AGENTS.md", Scope: "project", Content: long}},
			Project: "/ws/NOVA.md", User: "/data/NOVA.md"}, nil
	}})
	defer m.Close()
	m.width = 200
	typeText(m, "/memory")
	press(m, key(tea.KeyEnter))
	got := lastText(m)
	for _, want := range []string{"/data/NOVA.md (yours)\n  Mine.", "/ws/AGENTS.md (project)\n  line", "… 5 more lines",
		"go to /ws/NOVA.md (the project's) or /data/NOVA.md (yours)"} {
		if !strings.Contains(got, want) {
			t.Errorf("/memory lacks %q:\n%s", want, got)
		}
	}
	none := plainModel(Options{})
	defer none.Close()
	none.memoryCommand()
	if !strings.Contains(lastText(none), "not available") {
		t.Errorf("without Memory: %s", lastText(none))
	}
}

func TestParseFacts(t *testing.T) {
	got := parseFacts("- one\n\n* two\n•  three \n-\nfour")
	if diff := cmp.Diff([]string{"one", "two", "three", "four"}, got); diff != "" {
		t.Error(diff)
	}
}
