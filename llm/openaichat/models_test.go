package openaichat

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
)

func TestContextWindow(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		model   string
		want    int
		wantErr llm.ErrorKind
	}{
		{
			name:  "OpenRouter context_length",
			body:  `{"data":[{"id":"openai/gpt-4o","context_length":128000,"top_provider":{"context_length":128000}},{"id":"anthropic/claude-sonnet-4","context_length":200000}]}`,
			model: "anthropic/claude-sonnet-4", want: 200000,
		},
		{
			name:  "LM Studio max_context_length",
			body:  `{"object":"list","data":[{"id":"qwen2.5-7b","object":"model","max_context_length":32768},{"id":"other"}]}`,
			model: "qwen2.5-7b", want: 32768,
		},
		{
			name:  "vLLM max_model_len",
			body:  `{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model","owned_by":"vllm","max_model_len":131072}]}`,
			model: "meta-llama/Llama-3.1-8B-Instruct", want: 131072,
		},
		{
			name:  "Groq context_window",
			body:  `{"object":"list","data":[{"id":"llama-3.3-70b-versatile","object":"model","context_window":131072,"max_completion_tokens":32768},{"id":"x","context_window":8192}]}`,
			model: "llama-3.3-70b-versatile", want: 131072,
		},
		{
			name:  "llama.cpp n_ctx_train",
			body:  `{"object":"list","data":[{"id":"gpt-oss-20b.gguf","object":"model","owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":201088,"n_ctx_train":131072,"n_embd":2880}}]}`,
			model: "gpt-oss-20b.gguf", want: 131072,
		},
		{
			name:  "llama.cpp n_ctx is the server's limit",
			body:  `{"object":"list","data":[{"id":"m","meta":{"n_ctx":8192,"n_ctx_train":131072}}]}`,
			model: "m", want: 8192,
		},
		{
			name:  "the first field present wins",
			body:  `{"data":[{"id":"m","context_length":4096,"max_model_len":8192,"meta":{"n_ctx":2048}}]}`,
			model: "m", want: 4096,
		},
		{
			name:  "a single-model server answers for any name",
			body:  `{"object":"list","data":[{"id":"/models/gpt-oss-20b.gguf","meta":{"n_ctx_train":131072}}]}`,
			model: "gpt-oss", want: 131072,
		},
		{
			name:  "Google's models/ prefix",
			body:  `{"object":"list","data":[{"id":"models/gemini-2.5-pro","object":"model","context_length":1048576},{"id":"models/x","context_length":1}]}`,
			model: "gemini-2.5-pro", want: 1048576,
		},
		{
			name:  "OpenAI says nothing",
			body:  `{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1715367049,"owned_by":"system"},{"id":"gpt-4.1"}]}`,
			model: "gpt-4o", want: 0,
		},
		{
			name:  "unknown model",
			body:  `{"data":[{"id":"a","context_length":1},{"id":"b","context_length":2}]}`,
			model: "c", want: 0,
		},
		{
			name:  "bare array",
			body:  `[{"id":"m","context_length":65536}]`,
			model: "m", want: 65536,
		},
		{
			name:  "counts as strings or floats",
			body:  `{"data":[{"id":"m","context_length":"lots","max_model_len":32768.0}]}`,
			model: "m", want: 32768,
		},
		{name: "not a models list", body: `<html>hello</html>`, model: "m", want: 0},
		{name: "no models API", status: 404, body: `{"error":"not found"}`, model: "m", want: 0},
		{name: "auth error", status: 401, body: `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`, model: "m", wantErr: llm.ErrAuth},
		{name: "server error", status: 500, body: `oops`, model: "m", wantErr: llm.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
					t.Errorf("request %s %s", r.Method, r.URL.Path)
				}
				if r.Header.Get("Authorization") != "Bearer test-key" {
					t.Errorf("Authorization %q", r.Header.Get("Authorization"))
				}
				w.Header().Set("Content-Type", "application/json")
				if tt.status != 0 {
					w.WriteHeader(tt.status)
				}
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			// Close waits for handlers; a handler waiting for the client to hang
			// up may not notice it, so connections are cut first.
			defer srv.CloseClientConnections()
			c := newTestClient(t, srv.URL, Options{})
			for range 2 {
				got, err := c.ContextWindow(context.Background(), tt.model)
				if tt.wantErr != "" {
					var le *llm.Error
					if !errors.As(err, &le) || le.Kind != tt.wantErr {
						t.Fatalf("err = %v, want %s", err, tt.wantErr)
					}
					continue
				}
				if err != nil || got != tt.want {
					t.Fatalf("ContextWindow = %d, %v; want %d", got, err, tt.want)
				}
			}
			// Answers are cached; failures are not.
			want := int32(1)
			if tt.wantErr != "" {
				want = 2
			}
			if n := hits.Load(); n != want {
				t.Errorf("%d requests, want %d", n, want)
			}
		})
	}
}

func TestContextWindowTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	defer close(release)
	c := newTestClient(t, srv.URL, Options{RequestTimeout: 100 * time.Millisecond})
	_, err := c.ContextWindow(context.Background(), "m")
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.ErrTimeout {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ContextWindow(ctx, "m"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
