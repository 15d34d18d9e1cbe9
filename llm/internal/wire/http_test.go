package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

func TestHTTPDo(t *testing.T) {
	type seen struct {
		Method, Path, Query, Accept, Auth, Type, UA, Body string
	}
	var got seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Authorization"),
			r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), string(b)}
		if r.URL.Path == "/v1/fail" {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":"slow down"}`))
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	hc := &http.Client{}
	defer hc.CloseIdleConnections()

	tests := []struct {
		base, key, method, path string
		body                    []byte
		want                    seen
	}{
		{srv.URL + "/v1", "k", "POST", "responses", []byte(`{}`),
			seen{"POST", "/v1/responses", "", "text/event-stream", "Bearer k", "application/json", UserAgent, "{}"}},
		// A trailing slash, a longer prefix; a query of the base is not kept.
		{srv.URL + "/proxy/v1/?x=1", "", "GET", "models", nil,
			seen{"GET", "/proxy/v1/models", "", "text/event-stream", "", "", UserAgent, ""}},
		{srv.URL, "", "GET", "models", nil,
			seen{"GET", "/models", "", "text/event-stream", "", "", UserAgent, ""}},
	}
	for _, tt := range tests {
		base, err := ParseBaseURL(tt.base, "test")
		if err != nil {
			t.Fatal(err)
		}
		res, err := NewHTTP(hc, base, tt.key).Do(context.Background(), tt.method, tt.path, tt.body, "text/event-stream")
		if err != nil {
			t.Fatalf("%s: %v", tt.base, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if diff := cmp.Diff(tt.want, got); diff != "" || string(b) != "ok" {
			t.Errorf("%s %s: body %q (-want +got):\n%s", tt.base, tt.path, b, diff)
		}
	}

	base, _ := ParseBaseURL(srv.URL+"/v1", "test")
	_, err := NewHTTP(hc, base, "").Do(context.Background(), "POST", "fail", []byte(`{}`), "application/json")
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 429 || string(se.Body) != `{"error":"slow down"}` || se.Header.Get("Retry-After") != "3" {
		t.Errorf("error status: %#v", err)
	}
}

func TestParseBaseURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://api.example.com/v1": true, "http://localhost:8080": true,
		"://nope": false, "api.example.com/v1": false, "ftp://example.com": false, "http://": false,
	} {
		_, err := ParseBaseURL(raw, "Test")
		var le *llm.Error
		if ok != (err == nil) || (err != nil && (!errors.As(err, &le) || le.Kind != llm.ErrInvalid || le.Err == nil)) {
			t.Errorf("ParseBaseURL(%q) = %v", raw, err)
		}
	}
}
