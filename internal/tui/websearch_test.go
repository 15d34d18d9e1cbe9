package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// A search is a card like a tool's: the query while it runs, the results
// (folded) once in; citations put footnote marks in the answer, whose
// sources follow it.
func TestWebSearchCardAndCitations(t *testing.T) {
	now := time.Unix(1000, 0)
	timeNow = func() time.Time { return now }
	defer func() { timeNow = time.Now }()
	m := plainModel(Options{})
	defer m.Close()
	m.width = 70

	m.handleEvent(event.WebSearch{Turn: 1, ID: "s1", Query: "go 1.26", Status: event.SearchSearching})
	if got := m.Screen(); !strings.Contains(got, "● WebSearch(go 1.26) running 0.0s") {
		t.Fatalf("no running card:\n%s", got)
	}
	now = now.Add(1200 * time.Millisecond)
	m.handleEvent(event.WebSearch{Turn: 1, ID: "s1", Query: "go 1.26", Status: event.SearchDone, Results: []event.SearchResult{
		{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26"}, {URL: "https://go.dev/blog/"},
		{Title: "Three", URL: "https://3.example/"}, {Title: "Four", URL: "https://4.example/"},
	}})
	m.handleEvent(event.StreamText{Turn: 1, Text: "Go 1.26 is out.\n"})
	m.handleEvent(event.Citation{Turn: 1, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"})
	m.handleEvent(event.StreamText{Turn: 1, Text: "The blog says so"})
	m.handleEvent(event.Citation{Turn: 1, URL: "https://go.dev/blog/"})
	m.handleEvent(event.Citation{Turn: 1, URL: "https://go.dev/doc/go1.26"})
	m.handleEvent(event.StreamText{Turn: 1, Text: " too."})
	m.handleEvent(event.WebSearch{Turn: 1, ID: "s2", Query: "go 1.27", Status: event.SearchSearching})
	m.handleEvent(event.WebSearch{Turn: 1, ID: "s2", Query: "go 1.27", Status: event.SearchFailed, Error: "max_uses_exceeded"})
	m.handleEvent(event.WebSearch{Turn: 2, Status: event.SearchUnavailable, Error: "the endpoint does not take web search"})

	var got []string
	for _, b := range m.blocks {
		got = append(got, b.view(m.r, m.width, m.expanded, now, true))
	}
	want := []string{
		"● WebSearch(go 1.26) 1.2s\n  ⎿ Go 1.26 Release Notes — https://go.dev/doc/go1.26\n  ⎿ https://go.dev/blog/\n  ⎿ Three — https://3.example/\n  … 1 more lines (ctrl+o to expand)",
		"Go 1.26 is out.[1]\nThe blog says so[2][1] too.",
		"Sources:\n  [1] Go 1.26 Release Notes — https://go.dev/doc/go1.26\n  [2] https://go.dev/blog/",
		"● WebSearch(go 1.27) error 0.0s\n  ⎿ max_uses_exceeded",
		"the endpoint does not take web search",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// The session's question about web search is the permission dialog, about
// no call.
func TestWebSearchQuestion(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	reply := event.NewReply()
	m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "web_search", Name: "WebSearch", Input: json.RawMessage(`{}`),
		Reason:  "the model may search the web at the model provider for the rest of this session; the provider bills each search",
		Choices: []string{"allow_once", "allow_always", "deny"}}, reply))
	if got := m.Screen(); !strings.Contains(got, "Allow WebSearch()? the model may search the web") {
		t.Fatalf("dialog:\n%s", got)
	}
	press(m, key('2'), key(tea.KeyEnter))
	if d := <-reply.C(); d != (event.Decision{Behavior: event.Allow, Always: true}) {
		t.Errorf("decision %+v", d)
	}
}
