package web

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNonPublic(t *testing.T) {
	tests := []struct {
		ip   string
		want string
	}{
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"2606:4700:4700::1111", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of a public address
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"}, // IPv4-mapped
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"172.32.0.1", ""},
		{"192.168.1.1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "cloud metadata"},
		{"::ffff:169.254.169.254", "cloud metadata"},
		{"fd00:ec2::254", "cloud metadata"},
		{"169.254.170.2", "cloud metadata"},
		{"100.100.100.200", "cloud metadata"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"0.1.2.3", `"this network"`},
		{"100.64.0.1", "shared (carrier-grade NAT)"},
		{"192.0.0.170", "IETF protocol"},
		{"198.18.0.1", "benchmarking"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.255", "reserved"},
		{"2001:db8::1", "documentation"},
		{"64:ff9b::7f00:1", "loopback (embedded in IPv6)"},
		{"64:ff9b::a9fe:a9fe", "cloud metadata (embedded in IPv6)"},
		{"2002:c0a8:101::1", "private (embedded in IPv6)"}, // 6to4 of 192.168.1.1
		{"2002:808:808::1", ""},
	}
	for _, tt := range tests {
		if got := NonPublic(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("NonPublic(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}

// site is a test server whose handler routes are set per test.
func site(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		fmt.Fprint(w, body)
	}
}

func redirect(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
}

// named allows exactly the given hosts by name.
func named(hosts ...string) func(string) bool {
	return func(h string) bool {
		for _, x := range hosts {
			if h == x {
				return true
			}
		}
		return false
	}
}

func hostPort(srv *httptest.Server) (host, port string) {
	u, _ := url.Parse(srv.URL)
	return u.Hostname(), u.Port()
}

// TestAddressRule: nothing reaches a loopback server unless its host is
// named, however the URL spells it; the check is on the dialled address, so
// a name that resolves to loopback (as a rebinding name would) is refused.
func TestAddressRule(t *testing.T) {
	srv := site(t, map[string]http.HandlerFunc{"/": serve("text/plain", "hello")})
	_, port := hostPort(srv)
	tests := []struct {
		name, url string
		named     []string
		wantErr   string
	}{
		{"ip literal", "http://127.0.0.1:" + port + "/", nil, "127.0.0.1 is a loopback address"},
		{"name resolving to loopback", "http://localhost:" + port + "/", nil, "localhost resolves to"},
		{"other name named", "http://localhost:" + port + "/", []string{"127.0.0.1"}, "localhost resolves to"},
		{"named ip", "http://127.0.0.1:" + port + "/", []string{"127.0.0.1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Fetcher{Named: named(tt.named...)}
			page, err := f.Fetch(context.Background(), tt.url)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if string(page.Body) != "hello" || page.Upgraded {
					t.Errorf("page = %q, upgraded %v", page.Body, page.Upgraded)
				}
				return
			}
			b, ok := errors.AsType[*BlockedError](err)
			if !ok {
				t.Fatalf("err = %v, want a BlockedError", err)
			}
			if !strings.Contains(b.Error(), tt.wantErr) || b.Why != "loopback" {
				t.Errorf("err = %q (%s), want %q", b, b.Why, tt.wantErr)
			}
		})
	}
}

// public treats every address as public, so test servers on 127.0.0.1
// stand for sites on the internet.
func public(netip.Addr) string { return "" }

func TestRedirects(t *testing.T) {
	var srv *httptest.Server
	srv = site(t, map[string]http.HandlerFunc{
		"/start": redirect("/next"),
		"/next":  redirect("/end#frag"),
		"/end":   serve("text/plain", "arrived"),
		"/loop":  redirect("/loop"),
		"/away": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/end", http.StatusMovedPermanently)
		},
		"/ftp":     redirect("ftp://127.0.0.1/file"),
		"/nowhere": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusFound) },
	})
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	tests := []struct {
		name      string
		path      string
		follow    func(*url.URL) (bool, string)
		wantURL   string
		redirects int
		wantErr   string
	}{
		{"same host", "/start", nil, srv.URL + "/end", 2, ""},
		{"too many", "/loop", nil, "", 0, "too many redirects: more than 5"},
		{"other host, no policy", "/away", nil, "", 0, "redirects (301) to " + local + "/end: another host needs its own approval"},
		{"other host, needs approval", "/away", func(*url.URL) (bool, string) { return false, "fetching localhost needs approval" }, "", 0, "fetching localhost needs approval"},
		{"other host, allowed", "/away", func(u *url.URL) (bool, string) { return u.Hostname() == "localhost", "" }, local + "/end", 1, ""},
		{"not http", "/ftp", nil, "", 0, "not an http or https URL"},
		{"no location", "/nowhere", nil, "", 0, "without saying where to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Fetcher{Named: named("127.0.0.1", "localhost"), Follow: tt.follow}
			page, err := f.Fetch(context.Background(), srv.URL+tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if page.URL.String() != tt.wantURL || page.Redirects != tt.redirects || string(page.Body) != "arrived" {
				t.Errorf("got %s after %d redirects: %q", page.URL, page.Redirects, page.Body)
			}
		})
	}
	_, err := (&Fetcher{Named: named("127.0.0.1")}).Fetch(context.Background(), srv.URL+"/away")
	re, ok := errors.AsType[*RedirectError](err)
	if !ok || re.To.String() != local+"/end" || re.Status != http.StatusMovedPermanently {
		t.Errorf("err = %#v, want a RedirectError naming %s/end", err, local)
	}
}

// TestUpgrade: http to a host nobody named is fetched over https, and a
// redirect back to http cannot undo it.
func TestUpgrade(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/down" {
			http.Redirect(w, r, "http://"+r.Host+"/page", http.StatusFound)
			return
		}
		fmt.Fprint(w, "secure")
	}))
	defer tlsSrv.Close()
	pool := tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	_, port := hostPort(tlsSrv)
	f := &Fetcher{nonPublic: public, roots: pool}
	page, err := f.Fetch(context.Background(), "http://127.0.0.1:"+port+"/down")
	if err != nil {
		t.Fatal(err)
	}
	if !page.Upgraded || page.URL.Scheme != "https" || string(page.Body) != "secure" {
		t.Errorf("page %s upgraded=%v body %q", page.URL, page.Upgraded, page.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"/down", "/page"}, seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	// A plain http server behind an upgraded URL fails, and says why.
	plain := site(t, map[string]http.HandlerFunc{"/": serve("text/plain", "x")})
	_, port = hostPort(plain)
	_, err = (&Fetcher{nonPublic: public}).Fetch(context.Background(), "http://127.0.0.1:"+port+"/")
	if err == nil || !strings.Contains(err.Error(), "http was upgraded to https") {
		t.Errorf("err = %v, want the upgrade explained", err)
	}
}

func TestBodies(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1024) // 16 KB
	srv := site(t, map[string]http.HandlerFunc{
		"/text":    serve("text/plain; charset=utf-8", "plain text"),
		"/json":    serve("application/json", `{"a":1}`),
		"/vnd":     serve("application/vnd.api+json", `{"b":2}`),
		"/png":     serve("image/png", "\x89PNG\r\n\x1a\n\x00\x00"),
		"/pdf":     serve("application/pdf", "%PDF-1.7\n"),
		"/sniffed": serve("application/octet-stream", "just text, mislabelled"),
		"/nul":     serve("text/plain", "looks like text\x00but is not"),
		"/latin1":  serve("text/plain; charset=ISO-8859-1", "caf\xe9 \x93quoted\x94"),
		"/big":     serve("text/plain", big),
		"/missing": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such page", http.StatusNotFound) },
	})
	tests := []struct {
		path      string
		kind      Kind
		mediaType string
		body      string
		truncated bool
		status    int
	}{
		{"/text", Text, "text/plain", "plain text", false, 200},
		{"/json", Text, "application/json", `{"a":1}`, false, 200},
		{"/vnd", Text, "application/vnd.api+json", `{"b":2}`, false, 200},
		{"/png", Binary, "image/png", "", false, 200},
		{"/pdf", Binary, "application/pdf", "", false, 200},
		{"/sniffed", Text, "text/plain", "just text, mislabelled", false, 200},
		{"/nul", Binary, "text/plain", "", false, 200},
		{"/latin1", Text, "text/plain", "café “quoted”", false, 200},
		{"/big", Text, "text/plain", big[:4096], true, 200},
		{"/missing", Text, "text/plain", "no such page\n", false, 404},
	}
	f := &Fetcher{Named: named("127.0.0.1"), MaxBytes: 4096}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			page, err := f.Fetch(context.Background(), srv.URL+tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%v %s %q truncated=%v %d", page.Kind, page.MediaType, page.Body, page.Truncated, page.Status)
			want := fmt.Sprintf("%v %s %q truncated=%v %d", tt.kind, tt.mediaType, tt.body, tt.truncated, tt.status)
			if tt.kind == Binary {
				want = fmt.Sprintf("%v %s %q truncated=%v %d", tt.kind, tt.mediaType, []byte(nil), tt.truncated, tt.status)
			}
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestTimeout: a server that never finishes its answer ends the fetch at
// the time limit, and the error says so.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := site(t, map[string]http.HandlerFunc{
		"/stall": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "the start")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
	})
	defer close(release)
	f := &Fetcher{Named: named("127.0.0.1"), Timeout: 50 * time.Millisecond}
	_, err := f.Fetch(context.Background(), srv.URL+"/stall")
	if _, ok := errors.AsType[*TimeoutError](err); !ok {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.org/a": "",
		"example.org/docs":      `"example.org/docs" has no scheme: give a full URL such as https://example.org/docs`,
		"ftp://example.org/x":   "not an http or https URL",
		"https:///path":         "names no host",
		"http://exa mple.org":   "is not a URL",
	} {
		_, err := ParseURL(raw)
		switch {
		case want == "" && err != nil:
			t.Errorf("ParseURL(%q) = %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("ParseURL(%q) = %v, want %q", raw, err, want)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	html, err := os.ReadFile(filepath.Join("testdata", "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://docs.example.org/guide/intro.html")
	got, err := Markdown(context.Background(), html, base)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "page.md")
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got+"\n"); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
