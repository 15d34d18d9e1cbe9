package session_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

const someHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // sha256("abc")

func TestRoundTripEveryRecordType(t *testing.T) {
	dir := t.TempDir()
	recs := []session.Record{
		msg(1, user("fix the bug")),
		msg(1, assistant("looking", "c1")),
		{Type: session.TypeSnapshot, Turn: 1, Path: "/work/proj/a.go", Hash: someHash, Mode: 0o640},
		{Type: session.TypeSnapshot, Turn: 1, Path: "/work/proj/new.go"},
		msg(1, results("c1")),
		{Type: session.TypeUsage, Turn: 1, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 5}, CostUSD: 0.01},
		msg(2, assistant("done")),
		{Type: session.TypeUsage, Turn: 2, Usage: &llm.Usage{InputTokens: 250, OutputTokens: 40, CacheReadTokens: 5}, CostUSD: 0.025},
		{Type: session.TypeEnd, Turn: 2, Reason: "completed"},
	}
	path := writeSession(t, dir, "s1", recs...)
	for i := range recs {
		recs[i].Time = at(i + 1)
	}

	got := mustLoad(t, path)
	want := &session.State{
		Header: session.Record{
			Type: session.TypeHeader, Time: at(0), Version: session.FormatVersion, ID: "s1",
			Cwd: "/work/proj", Model: "claude-sonnet-4-5", Provider: "anthropic",
		},
		Messages:    vals(user("fix the bug"), assistant("looking", "c1"), results("c1"), assistant("done")),
		Turns:       2,
		Usage:       llm.Usage{InputTokens: 250, OutputTokens: 40, CacheReadTokens: 5},
		CostUSD:     0.025,
		LastCall:    llm.Usage{InputTokens: 150, OutputTokens: 20},
		Snapshots:   []session.Record{recs[2], recs[3]},
		Live:        []session.Record{recs[0], recs[1], recs[2], recs[3], recs[4], recs[6]},
		FirstPrompt: "fix the bug",
		Ended:       true,
		Updated:     at(len(recs)),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Load (-want +got):\n%s", d)
	}

	// Open yields the same state and appends after it.
	tr, st, err := session.Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("Open (-want +got):\n%s", d)
	}
	if tr.ID() != "s1" || tr.Path() != path {
		t.Errorf("ID, Path = %q, %q", tr.ID(), tr.Path())
	}
	if err := tr.Append(msg(3, user("and the tests"))); err != nil {
		t.Fatal(err)
	}
	if err := tr.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := tr.Append(msg(3, user("x"))); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Append after Close = %v, want os.ErrClosed", err)
	}
	got = mustLoad(t, path)
	if got.Ended || got.Turns != 3 || len(got.Messages) != 5 || got.Updated.IsZero() {
		t.Errorf("after appending: Ended %v, Turns %d, %d messages, Updated %v", got.Ended, got.Turns, len(got.Messages), got.Updated)
	}
	// Every line is a single JSON object ending in a newline.
	b := readFile(t, path)
	if !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != len(recs)+2 {
		t.Errorf("file has %d lines, want %d", bytes.Count(b, []byte("\n")), len(recs)+2)
	}
}

func TestRecordJSONNames(t *testing.T) {
	dir := t.TempDir()
	path := writeSession(t, dir, "s", session.Record{Type: session.TypeBoundary, Turn: 3, BoundaryID: "b1", Reason: "auto",
		TokensBefore: 150000, TokensAfter: 9000, Messages: vals(user("summary"))},
		session.Record{Type: session.TypeUsage, Turn: 3, Usage: &llm.Usage{}, CostUSD: 1.5},
		session.Record{Type: session.TypeSnapshot, Turn: 3, Path: "/a", Hash: someHash, Mode: 0o644},
		session.Record{Type: session.TypeRewind, Turn: 2})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, path)), "\n"), "\n")
	for i, want := range []string{
		`{"type":"header","time":"2025-06-01T12:00:00Z","version":1,"id":"s","cwd":"/work/proj","model":"claude-sonnet-4-5","provider":"anthropic"}`,
		`{"type":"boundary","time":"2025-06-01T12:00:01Z","turn":3,"boundary_id":"b1","reason":"auto","tokens_before":150000,"tokens_after":9000,"messages":[{"role":"user","content":[{"type":"text","text":"summary"}]}]}`,
		`{"type":"usage","time":"2025-06-01T12:00:02Z","turn":3,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"cost_usd":1.5}`,
		`{"type":"snapshot","time":"2025-06-01T12:00:03Z","turn":3,"path":"/a","hash":"` + someHash + `","mode":420}`,
		`{"type":"rewind","time":"2025-06-01T12:00:04Z","turn":2}`,
	} {
		if lines[i] != want {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], want)
		}
	}
}

func TestLoadConversation(t *testing.T) {
	summary := user("<summary>we fixed a.go</summary>")
	reinjected := user("contents of CLAUDE.md")
	boundary := func(turn int, ms ...*llm.Message) session.Record {
		return session.Record{Type: session.TypeBoundary, Turn: turn, BoundaryID: "b", Reason: "auto", TokensBefore: 1000, TokensAfter: 100, Messages: vals(ms...)}
	}
	rewind := func(turn int) session.Record { return session.Record{Type: session.TypeRewind, Turn: turn} }
	tests := []struct {
		name         string
		recs         []session.Record
		want         []llm.Message
		wantRepaired int
	}{
		{
			name: "plain",
			recs: []session.Record{msg(1, user("hi")), msg(1, assistant("hello"))},
			want: vals(user("hi"), assistant("hello")),
		},
		{
			name: "boundary then messages",
			recs: []session.Record{
				msg(1, user("hi")), msg(1, assistant("a", "c1")), msg(1, results("c1")), msg(2, assistant("b")),
				boundary(3, summary, reinjected),
				msg(3, user("next")), msg(3, assistant("ok")),
			},
			want: vals(summary, reinjected, user("next"), assistant("ok")),
		},
		{
			name: "the last boundary wins",
			recs: []session.Record{
				msg(1, user("hi")), boundary(2, user("first summary")), msg(2, user("more")),
				boundary(3, summary), msg(3, user("next")),
			},
			want: vals(summary, user("next")),
		},
		{
			name: "rewind forgets the turn and later ones",
			recs: []session.Record{
				msg(1, user("one")), msg(1, assistant("1", "c1")), msg(1, results("c1")),
				msg(2, assistant("2")), msg(3, user("three")), msg(3, assistant("3")),
				rewind(2),
				msg(4, user("four")), msg(4, assistant("4")),
			},
			want: vals(user("one"), assistant("1", "c1"), results("c1"), user("four"), assistant("4")),
		},
		{
			name: "rewinds apply in order",
			recs: []session.Record{
				msg(1, user("one")), msg(1, assistant("1")), msg(2, user("two")), msg(2, assistant("2")),
				rewind(2),
				msg(3, user("three")), msg(3, assistant("3")),
				rewind(1),
				msg(4, user("four")),
			},
			want: vals(user("four")),
		},
		{
			name: "rewind to before a boundary brings the history back",
			recs: []session.Record{
				msg(1, user("one")), msg(1, assistant("1")), msg(2, user("two")), msg(2, assistant("2")),
				boundary(3, summary), msg(3, user("three")),
				rewind(3),
			},
			want: vals(user("one"), assistant("1"), user("two"), assistant("2")),
		},
		{
			name: "rewind after a boundary keeps it",
			recs: []session.Record{
				msg(1, user("one")), boundary(2, summary), msg(2, user("two")), msg(3, user("three")),
				rewind(3),
			},
			want: vals(summary, user("two")),
		},
		{
			name:         "tool calls at the end get interrupted results",
			recs:         []session.Record{msg(1, user("hi")), msg(1, assistant("reading", "c1", "c2"))},
			want:         append(vals(user("hi"), assistant("reading", "c1", "c2")), interrupted("c1", "c2")),
			wantRepaired: 1,
		},
		{
			name: "tool calls followed by a prompt get results in between",
			recs: []session.Record{
				msg(1, user("hi")), msg(1, assistant("reading", "c1")),
				msg(2, user("go on")), msg(2, assistant("ok")),
			},
			want:         []llm.Message{*user("hi"), *assistant("reading", "c1"), interrupted("c1"), *user("go on"), *assistant("ok")},
			wantRepaired: 1,
		},
		{
			name: "only the missing results are added",
			recs: []session.Record{
				msg(1, user("hi")), msg(1, assistant("", "c1", "c2", "c3")), msg(1, results("c2")),
				msg(2, assistant("x", "c4")),
			},
			want: []llm.Message{
				*user("hi"), *assistant("", "c1", "c2", "c3"), interrupted("c1", "c3"), *results("c2"),
				*assistant("x", "c4"), interrupted("c4"),
			},
			wantRepaired: 2,
		},
		{
			name:         "repair inside boundary messages",
			recs:         []session.Record{boundary(1, summary, assistant("", "c9"))},
			want:         []llm.Message{*summary, *assistant("", "c9"), interrupted("c9")},
			wantRepaired: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustLoad(t, writeSession(t, t.TempDir(), "s", tt.recs...))
			if d := cmp.Diff(tt.want, st.Messages); d != "" {
				t.Errorf("Messages (-want +got):\n%s", d)
			}
			if st.Repaired != tt.wantRepaired {
				t.Errorf("Repaired = %d, want %d", st.Repaired, tt.wantRepaired)
			}
		})
	}
}

func TestFirstPromptSkipsRemindersAndToolResults(t *testing.T) {
	first := &llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockText, Text: "<system-reminder>\nthe date is today\n</system-reminder>\n"},
		{Type: llm.BlockText, Text: "  rename Foo  "},
	}}
	st := mustLoad(t, writeSession(t, t.TempDir(), "s",
		session.Record{Type: session.TypeBoundary, Turn: 1, Messages: vals(user("summary"))},
		msg(1, results("c0")), msg(1, first), msg(2, user("second"))))
	if st.FirstPrompt != "rename Foo" {
		t.Errorf("FirstPrompt = %q", st.FirstPrompt)
	}
	for _, tc := range []struct {
		m    llm.Message
		want string
	}{
		{*first, "rename Foo"},
		{*results("c0"), ""},
		{*user("<system-reminder>x</system-reminder>"), ""},
		{*user("one"), "one"},
	} {
		if got := session.PromptText(tc.m); got != tc.want {
			t.Errorf("PromptText(%v) = %q, want %q", tc.m.Content, got, tc.want)
		}
	}
}

// Prompts numbers what a person sent, not the model calls: each prompt
// with the files changed until the next one; the loop's own messages (tool
// results, reminders, the request to continue a cut answer) are no prompts.
func TestPrompts(t *testing.T) {
	snap := func(turn int, path string) session.Record {
		return session.Record{Type: session.TypeSnapshot, Turn: turn, Path: path}
	}
	withReminder := &llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		{Type: llm.BlockText, Text: "<system-reminder>\nenvironment\n</system-reminder>\n"},
		{Type: llm.BlockText, Text: "\n  fix the build\nand the tests"},
	}}
	st := mustLoad(t, writeSession(t, t.TempDir(), "s",
		msg(1, withReminder), msg(1, assistant("", "c1")), snap(1, "/a"), snap(1, "/b"), msg(1, results("c1")),
		msg(2, user("<system-reminder>todo list</system-reminder>")), msg(2, assistant("", "c2")), snap(2, "/a"), msg(2, results("c2")),
		msg(3, assistant("cut")), msg(3, user("Your previous response was cut off. Continue.")),
		msg(4, assistant("done")),
		session.Record{Type: session.TypeEnd, Turn: 4},
		msg(5, user("four")), msg(5, assistant("", "c3")), snap(5, "/c"), msg(5, results("c3")),
		msg(6, assistant("x")),
		msg(7, user("five")), msg(7, assistant("y")),
		session.Record{Type: session.TypeRewind, Turn: 5},
		msg(8, user("six")), snap(8, "/a"), snap(8, "/a"), msg(8, assistant("z")),
	))
	want := []session.Prompt{
		{N: 1, Turn: 1, Text: "fix the build\nand the tests", Files: []string{"/a", "/b"}},
		{N: 2, Turn: 8, Text: "six", Files: []string{"/a"}},
	}
	got := session.Prompts(st)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Prompts (-want +got):\n%s", d)
	}
	if l := got[0].Label(); l != "fix the build" {
		t.Errorf("Label = %q", l)
	}
	if len(st.Snapshots) != 6 {
		t.Errorf("Snapshots keeps rewound turns: got %d records, want 6", len(st.Snapshots))
	}
}

// validLine is a complete message record as Append writes it.
const validLine = `{"type":"message","time":"2025-06-01T12:00:09Z","turn":2,"message":{"role":"assistant","content":[{"type":"text","text":"tail"}]}}`

func TestTornLastLine(t *testing.T) {
	tests := []struct {
		name     string
		tail     string
		wantTorn bool
		wantMsgs int // messages loaded (the base file holds 2)
	}{
		{"half an object without newline", `{"type":"message","time":"2025-06-01T12:`, true, 2},
		{"complete object without newline is kept", validLine, false, 3},
		{"garbage after the last newline", "\x00\x00\x00\x00", true, 2},
		{"invalid JSON on the last line", `{"type":"mess` + "\n", true, 2},
		{"object without a type on the last line", "{}\n", true, 2},
		{"half a multi-byte character", validLine[:40] + "\xe2\x82", true, 2},
		{"trailing blank lines", "\n\n", false, 2},
		{"nothing", "", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeSession(t, dir, "s", msg(1, user("hi")), msg(1, assistant("hello")))
			base := readFile(t, path)
			if err := os.WriteFile(path, append(bytes.Clone(base), tt.tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			st := mustLoad(t, path)
			if st.Torn != tt.wantTorn || len(st.Messages) != tt.wantMsgs {
				t.Fatalf("Load: Torn %v, %d messages; want %v, %d", st.Torn, len(st.Messages), tt.wantTorn, tt.wantMsgs)
			}

			tr, st2, err := session.Open(dir, "s")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(st, st2); d != "" {
				t.Errorf("Open state differs from Load (-load +open):\n%s", d)
			}
			if err := tr.Append(msg(3, user("after"))); err != nil {
				t.Fatal(err)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, path)
			wantPrefix := base
			if !tt.wantTorn && strings.TrimSpace(tt.tail) != "" {
				wantPrefix = append(append(bytes.Clone(base), tt.tail...), '\n')
			}
			if !bytes.HasPrefix(got, wantPrefix) {
				t.Errorf("Open did not keep exactly the valid prefix:\n%q", got)
			}
			if n := bytes.Count(got[len(wantPrefix):], []byte("\n")); n != 1 || !bytes.HasSuffix(got, []byte("\n")) {
				t.Errorf("after the prefix: %q, want one appended line", got[len(wantPrefix):])
			}
			st3 := mustLoad(t, path)
			if st3.Torn || len(st3.Messages) != tt.wantMsgs+1 {
				t.Errorf("after Open+Append: Torn %v, %d messages, want false, %d", st3.Torn, len(st3.Messages), tt.wantMsgs+1)
			}
		})
	}
}

func TestCorruptionIsAnError(t *testing.T) {
	header := `{"type":"header","time":"2025-06-01T12:00:00Z","id":"s"}`
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"garbage in the middle", header + "\n" + validLine + "\n{garbage\n" + validLine + "\n", "line 3"},
		{"garbage before blank lines and a record", header + "\n{garbage\n\n" + validLine + "\n", "line 2"},
		{"no header", validLine + "\n", "line 1: first record is \"message\", not a header"},
		{"empty file", "", "empty file"},
		{"torn header", header[:20], "header line is torn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := session.Load(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Load error = %v, want one naming %s and %q", err, path, tt.want)
			}
			if _, _, err := session.Open(dir, "s"); err == nil {
				t.Error("Open succeeded on a corrupt file")
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	// Lines far longer than the read buffer, around a torn tail.
	big := strings.Repeat("x", 3<<20)
	dir := t.TempDir()
	path := writeSession(t, dir, "s", msg(1, user(big)), msg(1, assistant(big)))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"` + big)
	f.Close()
	st := mustLoad(t, path)
	if !st.Torn || len(st.Messages) != 2 || st.Messages[1].Text() != big {
		t.Errorf("Torn %v, %d messages", st.Torn, len(st.Messages))
	}
}

func TestCreateAndAppendErrors(t *testing.T) {
	dir := t.TempDir()
	tr, err := session.Create(dir, "s", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := session.Create(dir, "s", testHeader); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create of an existing session = %v, want ErrExist", err)
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`} {
		if _, err := session.Create(dir, id, testHeader); err == nil {
			t.Errorf("Create(%q) succeeded", id)
		}
		if _, _, err := session.Open(dir, id); err == nil {
			t.Errorf("Open(%q) succeeded", id)
		}
	}
	if _, err := session.Create(dir, "t", session.Record{ID: "other"}); err == nil {
		t.Error("Create with a header naming another id succeeded")
	}
	for _, r := range []session.Record{
		{},
		{Type: session.TypeHeader},
		{Type: session.TypeMessage},
		{Type: session.TypeUsage},
		{Type: session.TypeSnapshot},
		{Type: session.TypeSnapshot, Path: "/a", Hash: "../../etc/passwd"},
	} {
		if err := tr.Append(r); err == nil {
			t.Errorf("Append(%+v) succeeded", r)
		}
	}
	// Unknown types are accepted and skipped by Load, for newer writers.
	if err := tr.Append(session.Record{Type: "title", Reason: "Fix the bug"}); err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, tr.Path())
	if st.Torn || len(st.Live) != 0 || st.Header.ID != "s" {
		t.Errorf("state after invalid appends: %+v", st)
	}
	if _, _, err := session.Open(dir, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing session = %v", err)
	}
}

func TestListAndLatest(t *testing.T) {
	dir := t.TempDir()
	if _, err := session.Latest(dir); !errors.Is(err, session.ErrNoSession) || err.Error() != "no session to continue in "+dir {
		t.Errorf("Latest of an empty dir = %v", err)
	}
	missing := filepath.Join(dir, "nope")
	if l, err := session.List(missing); err != nil || l != nil {
		t.Errorf("List of a missing dir = %v, %v", l, err)
	}
	if _, err := session.Latest(missing); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("Latest of a missing dir = %v", err)
	}

	// Updated order differs from creation and name order.
	writeSession(t, dir, "a", msg(1, user("first")), session.Record{Type: session.TypeUsage, Turn: 1, Usage: &llm.Usage{}, CostUSD: 0.5, Time: at(50)})
	writeSession(t, dir, "b", msg(1, user("second")), msg(2, user("more")), session.Record{Type: session.TypeEnd, Turn: 2, Time: at(90)})
	writeSession(t, dir, "c", msg(1, user("third")))
	writeSession(t, dir, "empty") // a start that failed before its prompt (earlier versions)
	os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("{nope\n{}\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(dir, "a"), 0o700) // a snapshot directory

	got, err := session.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	info := func(id, prompt string, updated, turns int, cost float64) session.Info {
		return session.Info{ID: id, Path: filepath.Join(dir, id+".jsonl"), Created: at(0), Updated: at(updated),
			FirstPrompt: prompt, Turns: turns, CostUSD: cost, Model: "claude-sonnet-4-5", Cwd: "/work/proj"}
	}
	want := []session.Info{info("b", "second", 90, 2, 0), info("a", "first", 50, 1, 0.5), info("c", "third", 1, 1, 0)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	latest, err := session.Latest(dir)
	if err != nil || latest.ID != "b" {
		t.Errorf("Latest = %v, %v", latest.ID, err)
	}
}

func TestProjectDir(t *testing.T) {
	long1 := "/" + strings.Repeat("deep/", 60) + "one"
	long2 := "/" + strings.Repeat("deep/", 60) + "two"
	tests := []struct{ workspace, want string }{
		{"/home/ann/src/nova", "-home-ann-src-nova"},
		{"/home/ann/my project (v2)", "-home-ann-my-project--v2-"},
		{"/tmp/café", "-tmp-caf-"},
		{"/srv/a_b.c-d", "-srv-a_b.c-d"},
		{`C:\Users\ann`, "C--Users-ann"},
		{"/", "-"},
		{".", "-"},
		{"..", "--"},
		{"", "-"},
	}
	for _, tt := range tests {
		if got := session.ProjectDir("/data", tt.workspace); got != filepath.Join("/data", "projects", tt.want) {
			t.Errorf("ProjectDir(%q) = %q, want slug %q", tt.workspace, got, tt.want)
		}
	}
	a, b := filepath.Base(session.ProjectDir("/d", long1)), filepath.Base(session.ProjectDir("/d", long2))
	if len(a) > 200 || len(b) > 200 || a == b || !strings.HasPrefix(a, "-deep-deep-") {
		t.Errorf("long slugs %q and %q", a, b)
	}
}

func TestNewID(t *testing.T) {
	a, b := session.NewID(), session.NewID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Errorf("NewID = %q, %q", a, b)
	}
	if _, err := session.Create(t.TempDir(), a, testHeader); err != nil {
		t.Errorf("Create with NewID: %v", err)
	}
}

// Start creates nothing until the first record: a session that fails, or
// is left, before its first prompt leaves no file behind.
func TestStartCreatesTheFileWithTheFirstRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	tr, err := session.Start(dir, "s", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Sync(); err != nil {
		t.Fatalf("Sync before any record: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) || tr.Exists() {
		t.Fatalf("Start created %s before any record: %v", dir, err)
	}
	if err := tr.Append(msg(1, user("hi"))); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, tr.Path())
	if !tr.Exists() || st.Header.Cwd != testHeader.Cwd || st.Header.ID != "s" || st.FirstPrompt != "hi" {
		t.Fatalf("header %+v, first prompt %q", st.Header, st.FirstPrompt)
	}

	left, err := session.Start(dir, "left", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	if err := left.Close(); err != nil {
		t.Fatal(err)
	}
	if err := left.Append(msg(1, user("late"))); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Append after Close = %v", err)
	}
	if _, err := os.Stat(left.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a session closed before any record left %s: %v", left.Path(), err)
	}
	if _, err := session.Start(dir, "../x", testHeader); err == nil {
		t.Fatal("Start accepted an id with a path separator")
	}
}
