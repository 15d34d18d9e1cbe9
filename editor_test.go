package nova_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// bufferEditor is an editor with one unsaved buffer.
type bufferEditor struct {
	mu      sync.Mutex
	buffers map[string]string
}

func (e *bufferEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.buffers[path]; ok {
		return b, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (e *bufferEditor) WriteTextFile(_ context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buffers[path] = content
	return nil
}

// TestEditorFS: with Options.EditorFS the session's Read and Edit go
// through the editor: the model reads the unsaved buffer and its edit lands
// there, the disk untouched.
func TestEditorFS(t *testing.T) {
	srv := llmtest.NewServer(
		call("r", "Read", `{"file_path":"notes.txt"}`),
		call("e", "Edit", `{"file_path":"notes.txt","old_string":"unsaved","new_string":"edited"}`),
		text("done"),
	)
	defer srv.Close()
	o := testOptions(t, srv)
	o.PermissionMode = nova.ModeAcceptEdits
	notes := filepath.Join(o.Dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("saved text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ed := &bufferEditor{buffers: map[string]string{filepath.Join(ws, "notes.txt"): "unsaved text\n"}}
	o.EditorFS = ed
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := collect(t, s, "fix the notes")
	if err != nil {
		t.Fatal(err)
	}
	var results []string
	for _, e := range evs {
		if r, ok := e.(event.ToolResult); ok {
			results = append(results, r.Name+": "+strings.SplitN(r.Content, "\n", 2)[0])
		}
	}
	want := []string{"Read:      1\tunsaved text", "Edit: The file " + notes + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:"}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if got := ed.buffers[filepath.Join(ws, "notes.txt")]; got != "edited text\n" {
		t.Errorf("buffer = %q", got)
	}
	if data, _ := os.ReadFile(notes); string(data) != "saved text\n" {
		t.Errorf("the disk changed: %q", data)
	}
}

// TestSendWithImages: images follow the prompt's text in its message; a
// type the model cannot take ends the Send before anything is sent.
func TestSendWithImages(t *testing.T) {
	srv := llmtest.NewServer(text("a cat"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var lc event.LoopComplete
	var runErr error
	for e, err := range s.SendWith(ctx, "what is this?", []nova.Image{{MediaType: "image/bmp", Data: []byte("BM")}}) {
		if err != nil {
			runErr = err
			continue
		}
		if l, ok := e.(event.LoopComplete); ok {
			lc = l
		}
	}
	if runErr == nil || lc.Reason != event.ReasonError || !strings.Contains(lc.Error, `image 1 is "image/bmp"`) {
		t.Fatalf("a bmp: loop complete %+v, error %v", lc, runErr)
	}
	if n := len(modelCalls(srv)); n != 0 {
		t.Fatalf("%d model calls for a refused image", n)
	}

	for e, err := range s.SendWith(ctx, "what is this?", []nova.Image{{MediaType: "image/png", Data: []byte("\x89PNG")}}) {
		if err != nil {
			t.Fatal(err)
		}
		_ = e
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(modelCalls(srv)[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var got []string
	for _, c := range last.Content {
		got = append(got, string(c))
	}
	want := []string{
		`{"text":"what is this?","type":"text"}`,
		`{"source":{"data":"iVBORw==","media_type":"image/png","type":"base64"},"cache_control":{"type":"ephemeral"},"type":"image"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the prompt's message (-want +got):\n%s", diff)
	}
}
