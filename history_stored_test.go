package nova_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// StoredHistory rereads the transcript: nothing before the first prompt,
// then the conversation as recorded; an in-memory session has none.
func TestStoredHistory(t *testing.T) {
	srv := llmtest.NewServer(text("first answer"))
	defer srv.Close()
	s, err := nova.Open(context.Background(), testOptions(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if h, err := s.StoredHistory(); h != nil || err != nil {
		t.Errorf("before the first prompt: %v, %v", h, err)
	}
	if _, err := collect(t, s, "first question"); err != nil {
		t.Fatal(err)
	}
	h, err := s.StoredHistory()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range h.Entries {
		switch ev := e.Event.(type) {
		case nil:
			got = append(got, "prompt:"+e.Prompt)
		case event.StreamText:
			got = append(got, "text:"+ev.Text)
		default:
			got = append(got, ev.Type())
		}
	}
	if diff := cmp.Diff([]string{"prompt:first question", "text:first answer", "turn_complete"}, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if h.Usage.Total.OutputTokens == 0 {
		t.Errorf("usage %+v", h.Usage)
	}

	o := testOptions(t, srv)
	o.InMemory = true
	m, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.StoredHistory(); err == nil {
		t.Error("an in-memory session has a stored history")
	}
}
