package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// plainModel is a model on the plain renderer, for exact string checks.
func plainModel(o Options) *Model {
	m := New(o)
	m.r = plainRenderer{}
	return m
}

func press(m *Model, keys ...tea.KeyPressMsg) {
	for _, k := range keys {
		m.Update(k)
	}
}

func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, key(r))
	}
}

func lastText(m *Model) string {
	if len(m.blocks) == 0 {
		return ""
	}
	return m.blocks[len(m.blocks)-1].text.String()
}

func TestCtrlCTwiceQuits(t *testing.T) {
	now := time.Unix(1000, 0)
	timeNow = func() time.Time { return now }
	defer func() { timeNow = time.Now }()
	m := plainModel(Options{})
	defer m.Close()
	ctrlC := key('c', tea.ModCtrl)

	if cmd := m.key(ctrlC); cmd != nil {
		t.Fatal("first ctrl+c quit")
	}
	if !strings.Contains(m.Screen(), "press ctrl+c again to exit") {
		t.Error("no hint after first ctrl+c")
	}
	now = now.Add(3 * time.Second) // too late: counts as a first press again
	if cmd := m.key(ctrlC); cmd != nil {
		t.Fatal("ctrl+c after the window quit")
	}
	now = now.Add(time.Second)
	cmd := m.key(ctrlC)
	if cmd == nil {
		t.Fatal("second ctrl+c did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("second ctrl+c: not tea.Quit")
	}
}

// The first ctrl+c clears a non-empty input and a second one soon after
// quits; with an empty input the first only says how to quit. Typing in
// between starts over.
func TestCtrlCClearsTheInput(t *testing.T) {
	now := time.Unix(1000, 0)
	timeNow = func() time.Time { return now }
	defer func() { timeNow = time.Now }()
	ctrlC := key('c', tea.ModCtrl)
	tests := []struct {
		name     string
		steps    []string // "^C", "wait", or text to type
		wantQuit bool
		wantText string
		wantHint bool
	}{
		{"clears the input", []string{"half a prompt", "^C"}, false, "", true},
		{"then quits", []string{"half a prompt", "^C", "^C"}, true, "", true},
		{"empty: hint only", []string{"^C"}, false, "", true},
		{"empty: twice quits", []string{"^C", "^C"}, true, "", true},
		{"too slow: clears, then counts as a first press", []string{"abc", "^C", "wait", "^C"}, false, "", true},
		{"typing in between starts over", []string{"abc", "^C", "x", "^C"}, false, "", true},
		{"typing after the clear keeps the text", []string{"abc", "^C", "new"}, false, "new", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := plainModel(Options{})
			defer m.Close()
			quit := false
			for _, s := range tc.steps {
				switch s {
				case "^C":
					if cmd := m.key(ctrlC); cmd != nil {
						if _, ok := cmd().(tea.QuitMsg); ok {
							quit = true
						}
					}
				case "wait":
					now = now.Add(3 * time.Second)
				default:
					typeText(m, s)
				}
			}
			if quit != tc.wantQuit {
				t.Errorf("quit = %v, want %v", quit, tc.wantQuit)
			}
			if got := m.input.Value(); got != tc.wantText {
				t.Errorf("input = %q, want %q", got, tc.wantText)
			}
			if got := strings.Contains(m.Screen(), "press ctrl+c again to exit"); got != tc.wantHint {
				t.Errorf("hint shown = %v, want %v:\n%s", got, tc.wantHint, m.Screen())
			}
		})
	}
}

func TestShiftTabCyclesMode(t *testing.T) {
	modes := []string{"acceptEdits", "plan"}
	i := 0
	m := plainModel(Options{Mode: "default", ModeCycle: func() string { i++; return modes[i-1] }})
	defer m.Close()
	press(m, key(tea.KeyTab, tea.ModShift))
	if m.mode != "acceptEdits" || !strings.Contains(m.Screen(), "acceptEdits") {
		t.Errorf("mode = %q", m.mode)
	}
	press(m, key(tea.KeyTab, tea.ModShift))
	if m.mode != "plan" {
		t.Errorf("mode = %q", m.mode)
	}
}

func TestHistory(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	for _, p := range []string{"/model", "/cost"} {
		typeText(m, p)
		press(m, key(tea.KeyEnter))
	}
	press(m, key(tea.KeyUp))
	if got := m.input.Value(); got != "/cost" {
		t.Errorf("up: %q", got)
	}
	press(m, key(tea.KeyUp), key(tea.KeyUp)) // stays at the oldest
	if got := m.input.Value(); got != "/model" {
		t.Errorf("up up up: %q", got)
	}
	press(m, key(tea.KeyDown), key(tea.KeyDown))
	if got := m.input.Value(); got != "" {
		t.Errorf("back down: %q", got)
	}
	typeText(m, "x")
	press(m, key(tea.KeyUp)) // typed text: up belongs to the editor
	if got := m.input.Value(); got != "x" {
		t.Errorf("up with text: %q", got)
	}
}

func TestShiftEnterInsertsNewline(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	typeText(m, "a")
	press(m, key(tea.KeyEnter, tea.ModShift))
	typeText(m, "b")
	if got := m.input.Value(); got != "a\nb" {
		t.Errorf("input = %q", got)
	}
}

func TestSlashCommands(t *testing.T) {
	cleared := false
	m := plainModel(Options{Model: "m1", Mode: "plan", Clear: func() { cleared = true },
		Commands: map[string]string{"review": "Review $ARGUMENTS carefully."}})
	defer m.Close()
	run := func(s string) tea.Cmd {
		typeText(m, s)
		return m.key(key(tea.KeyEnter))
	}
	run("/model")
	if got := lastText(m); got != "Model: m1" {
		t.Errorf("/model: %q", got)
	}
	run("/permissions")
	if got := lastText(m); got != "Permission mode: plan" {
		t.Errorf("/permissions: %q", got)
	}
	run("/help")
	if got := lastText(m); !strings.Contains(got, "/compact") || !strings.Contains(got, "/review") {
		t.Errorf("/help: %q", got)
	}
	run("/nope")
	if got := lastText(m); got != "unknown command /nope (try /help)" {
		t.Errorf("/nope: %q", got)
	}
	run("/clear")
	if len(m.blocks) != 0 || !cleared {
		t.Errorf("/clear: %d blocks, cleared=%v", len(m.blocks), cleared)
	}
	// No runner: the expanded prompt is shown, then the error.
	run("/review main.go")
	if got := m.blocks[0].text.String(); got != "Review main.go carefully." {
		t.Errorf("user command: %q", got)
	}
	if cmd := run("/exit"); cmd == nil {
		t.Error("/exit did not quit")
	}
}

func TestCompactCommand(t *testing.T) {
	var focus string
	m := plainModel(Options{Compact: func(_ context.Context, f string) (event.Compact, error) {
		focus = f
		return event.Compact{TokensBefore: 9000, TokensAfter: 1200}, nil
	}})
	defer m.Close()
	typeText(m, "/compact the parser")
	cmd := m.key(key(tea.KeyEnter))
	m.Update(cmd())
	if focus != "the parser" || lastText(m) != "Compacted: 9000 → 1200 tokens" {
		t.Errorf("focus %q, shown %q", focus, lastText(m))
	}
}

func TestShellCommand(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	typeText(m, "!echo hi")
	cmd := m.key(key(tea.KeyEnter))
	m.Update(cmd())
	if got := lastText(m); got != "! echo hi\nhi" {
		t.Errorf("shell block %q", got)
	}
}

// TestShellCommandWithholdsCredentials: !cmd gets the environment the
// Bash tool's commands get.
func TestShellCommandWithholdsCredentials(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws_test")
	t.Setenv("NOVA_TEST_SETTING", "visible")
	const line = `!echo "gh=$GITHUB_TOKEN aws=$AWS_SECRET_ACCESS_KEY setting=$NOVA_TEST_SETTING"`
	tests := []struct {
		pass []string
		want string
	}{
		{nil, "gh= aws= setting=visible"},
		{[]string{"GITHUB_TOKEN"}, "gh=ghp_test aws= setting=visible"},
	}
	for _, tt := range tests {
		m := plainModel(Options{PassEnv: tt.pass})
		typeText(m, line)
		cmd := m.key(key(tea.KeyEnter))
		m.Update(cmd())
		if got, want := lastText(m), "! "+line[1:]+"\n"+tt.want; got != want {
			t.Errorf("PassEnv %v: shell block %q, want %q", tt.pass, got, want)
		}
		m.Close()
	}
}

func TestPermissionKeys(t *testing.T) {
	cases := []struct {
		name string
		keys func(m *Model)
		want event.Decision
	}{
		{"enter takes allow once", func(m *Model) { press(m, key(tea.KeyEnter)) }, event.Decision{Behavior: event.Allow}},
		{"2 is always", func(m *Model) { press(m, key('2'), key(tea.KeyEnter)) }, event.Decision{Behavior: event.Allow, Always: true}},
		{"up wraps to deny", func(m *Model) { press(m, key(tea.KeyUp), key(tea.KeyEnter)) }, event.Decision{Behavior: event.Deny}},
		{"deny with a note", func(m *Model) {
			press(m, key('3'))
			typeText(m, "use make")
			press(m, key(tea.KeyEnter))
		}, event.Decision{Behavior: event.Deny, Message: "use make"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := plainModel(Options{})
			defer m.Close()
			reply := event.NewReply()
			m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{Name: "Bash", Input: []byte(`{"command":"rm x"}`)}, reply))
			if !strings.Contains(m.Screen(), "❯ 1. Allow once") {
				t.Fatalf("dialog not shown:\n%s", m.Screen())
			}
			c.keys(m)
			select {
			case d := <-reply.C():
				if diff := cmp.Diff(c.want, d); diff != "" {
					t.Error(diff)
				}
			default:
				t.Fatal("no decision")
			}
			if m.perm != nil || m.input.Value() != "" {
				t.Error("dialog or note left behind")
			}
		})
	}
}

// TestStreamingCoalesced: deltas mark the answer dirty; only the frame tick
// re-renders it, so a burst of deltas costs one render.
func TestStreamingCoalesced(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	m.busy = true
	m.handleEvent(event.StreamText{Text: "Hello"})
	if !strings.Contains(m.Screen(), "Hello") {
		t.Fatal("first delta not shown")
	}
	m.handleEvent(event.StreamText{Text: ", world"})
	if strings.Contains(m.Screen(), "world") {
		t.Error("delta rendered before the frame tick")
	}
	m.Update(frameMsg{})
	if !strings.Contains(m.Screen(), "Hello, world") {
		t.Error("frame tick did not refresh")
	}
	if _, cmd := m.Update(frameMsg{}); cmd == nil {
		t.Error("tick stopped while an answer streams")
	}
	// Busy, nothing live, waiting for the model: the working indicator
	// moves (a slower tick) and says how long the run has been going.
	m.endStream()
	if _, cmd := m.Update(frameMsg{}); cmd == nil {
		t.Error("no tick for the working indicator while the model is awaited")
	}
	if !strings.Contains(m.Screen(), "working") {
		t.Errorf("no working indicator:\n%s", m.Screen())
	}
	// A dialog waits for the person: no tick at all.
	m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "p", Name: "Bash", Input: json.RawMessage(`{}`),
		Choices: []string{"allow_once", "allow_always", "deny"}}, event.NewReply()))
	if _, cmd := m.Update(frameMsg{}); cmd != nil {
		t.Error("tick continues while a dialog waits")
	}
	m.perm = nil
	m.busy = false
	if _, cmd := m.Update(frameMsg{}); cmd != nil {
		t.Error("tick continues while idle")
	}
}

func TestScrollAndExpand(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	for i := range 50 {
		m.addText(kindInfo, "line "+string(rune('A'+i%26)))
	}
	bottom := m.Screen()
	press(m, key(tea.KeyPgUp))
	if m.Screen() == bottom {
		t.Error("pgup did not scroll")
	}
	press(m, key(tea.KeyPgDown))
	if m.Screen() != bottom {
		t.Error("pgdown did not come back")
	}
	m.handleEvent(event.ThinkingText{Text: "deep thought"})
	m.endStream()
	if strings.Contains(m.Screen(), "deep thought") {
		t.Error("thinking expanded by default")
	}
	press(m, key('o', tea.ModCtrl))
	if !strings.Contains(m.Screen(), "deep thought") {
		t.Error("ctrl+o did not expand")
	}
}

// blockingRunner yields nothing until its ctx ends.
type blockingRunner struct{ done chan struct{} }

func (b blockingRunner) Run(ctx context.Context, _ string) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		<-ctx.Done()
		close(b.done)
		yield(event.LoopComplete{Reason: event.ReasonCancelled})
	}
}

func TestEscCancelsAndCloseWaits(t *testing.T) {
	r := blockingRunner{done: make(chan struct{})}
	m := plainModel(Options{Runner: r})
	typeText(m, "go")
	m.key(key(tea.KeyEnter))
	if !m.busy || !strings.Contains(m.Screen(), "esc to interrupt") {
		t.Fatal("not busy")
	}
	press(m, key(tea.KeyEscape))
	<-r.done  // the runner's ctx was cancelled
	m.Close() // returns only once the iterator goroutine has exited
}

func TestLoadCommands(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"review.md": "Review $ARGUMENTS", "notes.txt": "x", "fix.md": "Fix it"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadCommands(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"review": "Review $ARGUMENTS", "fix": "Fix it"}, got); diff != "" {
		t.Error(diff)
	}
	if got, err := LoadCommands(filepath.Join(dir, "missing")); err != nil || len(got) != 0 {
		t.Errorf("missing dir: %v %v", got, err)
	}
	if got := expand("Review $ARGUMENTS now", "a.go"); got != "Review a.go now" {
		t.Error(got)
	}
	if got := expand("Fix it", "fast"); got != "Fix it\n\nfast" {
		t.Error(got)
	}
}

func BenchmarkViewLongTimeline(b *testing.B) {
	m := New(Options{NoColor: true, Dark: true})
	defer m.Close()
	for i := range 2000 {
		if i%2 == 0 {
			m.addText(kindUser, "prompt number something")
		} else {
			m.addText(kindText, "An answer with **bold** and `code`, a few words long.")
		}
	}
	m.View() // first frame renders (and caches) the visible tail
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

func BenchmarkStreamingDelta(b *testing.B) {
	m := New(Options{NoColor: true, Dark: true})
	defer m.Close()
	m.busy = true
	m.handleEvent(event.StreamText{Text: strings.Repeat("Some streamed words. ", 50)})
	m.View()
	b.ResetTimer()
	for b.Loop() {
		m.Update(eventMsg{ev: event.StreamText{Text: "word "}, gen: m.gen})
		_ = m.View()
	}
}

func TestPlanCommand(t *testing.T) {
	var asked string
	m := plainModel(Options{Model: "m1", Mode: "default", SetMode: func(mode string) string { asked = mode; return mode }})
	defer m.Close()
	typeText(m, "/plan")
	press(m, key(tea.KeyEnter))
	if asked != "plan" || m.mode != "plan" || lastText(m) != "Permission mode: plan" {
		t.Errorf("asked %q, mode %q, shown %q", asked, m.mode, lastText(m))
	}
	lines := strings.Split(m.Screen(), "\n")
	if got := lines[len(lines)-1]; got != "m1 · plan" {
		t.Errorf("status line %q", got)
	}
	typeText(m, "/help")
	press(m, key(tea.KeyEnter))
	if !strings.Contains(lastText(m), "/plan") {
		t.Errorf("/help lacks /plan: %q", lastText(m))
	}

	m2 := plainModel(Options{Mode: "default"})
	defer m2.Close()
	typeText(m2, "/plan")
	press(m2, key(tea.KeyEnter))
	if m2.mode != "default" || lastText(m2) != "/plan is not available" {
		t.Errorf("nil SetMode: mode %q, shown %q", m2.mode, lastText(m2))
	}
}

// TestEvictFarCaches: blocks more than evictScreens screens above the
// viewport lose their rendering and render again when scrolled back to.
func TestEvictFarCaches(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	for i := range 200 {
		m.addText(kindInfo, fmt.Sprintf("block %d", i))
		m.Screen()
	}
	h := m.timelineHeight()
	cached := 0
	for _, b := range m.blocks {
		if b.cache != "" {
			cached++
		}
	}
	// Each block is one line plus a blank: the screen plus 3 screens above.
	if want := (h+1)/2 + evictScreens*h/2 + 1; cached > want+1 || cached < want-1 {
		t.Errorf("%d blocks cached, want about %d", cached, want)
	}
	if m.blocks[0].cache != "" {
		t.Error("first block still cached")
	}
	for range 50 {
		press(m, key(tea.KeyPgUp))
	}
	if s := m.Screen(); !strings.HasPrefix(s, "block 0\n\nblock 1\n") {
		t.Errorf("top of the timeline not re-rendered:\n%s", s)
	}
	if m.blocks[0].cache == "" {
		t.Error("scrolled to the top: the top is not cached")
	}
}

func TestQuestionKeys(t *testing.T) {
	cases := []struct {
		name string
		keys func(m *Model)
		want event.Answer
	}{
		{"enter takes the first option", func(m *Model) { press(m, key(tea.KeyEnter)) }, event.Answer{Option: "Postgres"}},
		{"down then enter", func(m *Model) { press(m, key(tea.KeyDown), key(tea.KeyEnter)) }, event.Answer{Option: "SQLite"}},
		{"digit picks", func(m *Model) { press(m, key('2'), key(tea.KeyEnter)) }, event.Answer{Option: "SQLite"}},
		{"typed answer wins", func(m *Model) {
			typeText(m, "MySQL 8")
			press(m, key(tea.KeyEnter))
		}, event.Answer{Text: "MySQL 8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := plainModel(Options{})
			defer m.Close()
			reply := event.NewAnswerReply()
			m.handleEvent(event.NewQuestion(event.Question{ID: "q", Question: "Which database?", Options: []string{"Postgres", "SQLite"}}, reply))
			scr := m.Screen()
			if !strings.Contains(scr, "? Which database?") || !strings.Contains(scr, "❯ 1. Postgres") {
				t.Fatalf("question not shown:\n%s", scr)
			}
			c.keys(m)
			select {
			case a := <-reply.C():
				if diff := cmp.Diff(c.want, a); diff != "" {
					t.Error(diff)
				}
			default:
				t.Fatal("no answer")
			}
			if m.ques != nil || m.input.Value() != "" {
				t.Error("question or text left behind")
			}
		})
	}
}

func TestSessionCommands(t *testing.T) {
	var got []string
	m := plainModel(Options{Session: func(ctx context.Context, name, args string) (string, *Past, error) {
		got = append(got, name+" "+args)
		if args == "bad" {
			return "", nil, errors.New("no such session")
		}
		return "done " + name, nil, nil
	}})
	defer m.Close()
	m.submit("/resume abc")
	m.submit("/rewind 3")
	m.submit("/resume bad")
	if diff := cmp.Diff([]string{"resume abc", "rewind 3", "resume bad"}, got); diff != "" {
		t.Fatal(diff)
	}
	scr := m.Screen()
	for _, want := range []string{"done resume", "done rewind", "/resume: no such session"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
}
