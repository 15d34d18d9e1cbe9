package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/novacode/nova/llm"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestContextWindowOpenAI: the official models API reports no context
// length, so nothing is asked.
func TestContextWindowOpenAI(t *testing.T) {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request to %s", r.URL)
		return nil, errors.New("no network")
	})}
	for _, base := range []string{"", "https://api.openai.com/v1", "https://API.openai.com/v1/"} {
		n, err := New(Options{BaseURL: base, HTTPClient: hc}).ContextWindow(context.Background(), "gpt-4o")
		if n != 0 || err != nil {
			t.Errorf("base %q: %d, %v; want 0, nil", base, n, err)
		}
	}
}

const modelsList = `{"object":"list","data":[
	{"id":"qwen3-coder","object":"model","created":1,"owned_by":"vllm","max_model_len":262144},
	{"id":"openai/gpt-oss-120b","object":"model","created":1,"owned_by":"openrouter","context_length":131072},
	{"id":"glm-4.6","object":"model","created":1,"owned_by":"z","context_window":"200000"},
	{"id":"local","object":"model","created":1,"owned_by":"lmstudio","max_context_length":4096},
	{"id":"silent","object":"model","created":1,"owned_by":"x"},
	{"id":"weird","object":"model","created":1,"owned_by":"x","context_length":{"max":5},"max_model_len":-1}
]}`

func TestContextWindowFromModelsList(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(modelsList))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Options{APIKey: "sk-local"})
	tests := map[string]int{
		"qwen3-coder":         262144,
		"openai/gpt-oss-120b": 131072,
		"glm-4.6":             200000,
		"local":               4096,
		"silent":              0,
		"weird":               0,
		"not-listed":          0,
	}
	for model, want := range tests {
		n, err := c.ContextWindow(context.Background(), model)
		if n != want || err != nil {
			t.Errorf("%s: %d, %v; want %d, nil", model, n, err, want)
		}
	}
	if auth != "Bearer sk-local" {
		t.Errorf("Authorization = %q", auth)
	}
}

func TestContextWindowErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		kind    llm.ErrorKind // "" for 0, nil
	}{
		{"no models endpoint", errorHandler(404, nil, `{"error":{"message":"not found"}}`), ""},
		{"method not allowed", errorHandler(405, nil, ""), ""},
		{"bad key", errorHandler(401, nil, apiErrorBody("invalid_request_error", "invalid_api_key", "Incorrect API key")), llm.ErrAuth},
		{"server error", errorHandler(500, nil, ""), llm.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			n, err := newTestClient(t, srv.URL, Options{}).ContextWindow(context.Background(), "m")
			if tt.kind == "" {
				if n != 0 || err != nil {
					t.Errorf("%d, %v; want 0, nil", n, err)
				}
				return
			}
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != tt.kind || n != 0 {
				t.Errorf("%d, %v; want 0 and %s", n, err, tt.kind)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := httptest.NewServer(errorHandler(200, nil, modelsList))
	defer srv.Close()
	if _, err := newTestClient(t, srv.URL, Options{}).ContextWindow(ctx, "m"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
