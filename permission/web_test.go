package permission_test

import (
	"testing"

	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/rules"
)

// TestWebFetchDecisions: a fetch is never "read-only inside the workspace",
// whatever the tool claims; rules decide per host, in every mode.
func TestWebFetchDecisions(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name             string
		mode             permission.Mode
		allow, ask, deny []string
		url              string
		readOnly         bool
		want             permission.Behavior
		wantReason       string
		wantSuggest      string
	}{
		{name: "no rule asks", url: "https://example.org/a", want: permission.Ask, wantReason: "fetching example.org needs approval", wantSuggest: "WebFetch(domain:example.org)"},
		{name: "a read-only claim changes nothing", url: "https://example.org/a", readOnly: true, want: permission.Ask},
		{name: "plan mode asks, not denies", mode: permission.ModePlan, url: "https://example.org/a", want: permission.Ask},
		{name: "acceptEdits asks", mode: permission.ModeAcceptEdits, url: "https://example.org/a", want: permission.Ask},
		{name: "bypass allows", mode: permission.ModeBypass, url: "https://example.org/a", want: permission.Allow},
		{name: "domain rule", allow: []string{"WebFetch(domain:example.org)"}, url: "https://docs.example.org/x", want: permission.Allow},
		{name: "domain rule, other host", allow: []string{"WebFetch(domain:example.org)"}, url: "https://example.com/x", want: permission.Ask},
		{name: "whole tool", allow: []string{"WebFetch"}, url: "https://example.com/x", want: permission.Allow},
		{name: "deny rule wins", allow: []string{"WebFetch"}, deny: []string{"WebFetch(domain:evil.example)"}, url: "https://a.evil.example/", want: permission.Deny},
		{name: "deny rule in bypass", mode: permission.ModeBypass, deny: []string{"WebFetch(domain:evil.example)"}, url: "https://evil.example/", want: permission.Deny},
		{name: "ask rule", allow: []string{"WebFetch"}, ask: []string{"WebFetch(domain:example.org)"}, url: "https://example.org/", want: permission.Ask},
		{name: "localhost says a rule is needed", url: "http://localhost:3000/", want: permission.Ask,
			wantReason: "fetching localhost needs approval; a private address is reached only with a rule naming it, WebFetch(domain:localhost)"},
		{name: "ipv6 loopback", url: "http://[::1]:3000/", want: permission.Ask,
			wantReason: "fetching ::1 needs approval; a private address is reached only with a rule naming it, WebFetch(domain:[::1])", wantSuggest: "WebFetch(domain:[::1])"},
		{name: "not a URL", url: "not a url", want: permission.Ask, wantReason: "WebFetch: its url is not a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			c := checker(t, e, mode, tt.allow, tt.ask, tt.deny)
			d := c.Check(permission.Call{Tool: "WebFetch", Input: input("url", tt.url, "prompt", "p"), ReadOnly: tt.readOnly})
			if d.Behavior != tt.want {
				t.Fatalf("decision %s (%s), want %s", d.Behavior, d.Reason, tt.want)
			}
			if tt.wantReason != "" && d.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", d.Reason, tt.wantReason)
			}
			if tt.wantSuggest != "" && (len(d.Suggest) != 1 || d.Suggest[0] != tt.wantSuggest) {
				t.Errorf("suggest %q, want [%s]", d.Suggest, tt.wantSuggest)
			}
		})
	}
}

// TestHostNamed: only a domain rule naming the host (or a parent domain)
// lets WebFetch reach it at a private address; a rule for the whole tool,
// bypass mode or a deny rule does not.
func TestHostNamed(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name        string
		mode        permission.Mode
		allow, deny []string
		always      []string
		host        string
		want        bool
	}{
		{name: "no rule", host: "localhost", want: false},
		{name: "whole tool", allow: []string{"WebFetch"}, host: "localhost", want: false},
		{name: "bypass", mode: permission.ModeBypass, host: "localhost", want: false},
		{name: "named", allow: []string{"WebFetch(domain:localhost)"}, host: "localhost", want: true},
		{name: "subdomain", allow: []string{"WebFetch(domain:dev.test)"}, host: "app.dev.test", want: true},
		{name: "look-alike", allow: []string{"WebFetch(domain:dev.test)"}, host: "evildev.test", want: false},
		{name: "ip", allow: []string{"WebFetch(domain:127.0.0.1)"}, host: "127.0.0.1", want: true},
		{name: "ip is not its suffix", allow: []string{"WebFetch(domain:0.0.1)"}, host: "127.0.0.1", want: false},
		{name: "ipv6", allow: []string{"WebFetch(domain:[::1])"}, host: "::1", want: true},
		{name: "other tool's rule", allow: []string{"Read(//etc/**)"}, host: "localhost", want: false},
		{name: "denied", allow: []string{"WebFetch(domain:localhost)"}, deny: []string{"WebFetch(domain:localhost)"}, host: "localhost", want: false},
		{name: "always answer", always: []string{"WebFetch(domain:localhost)"}, host: "localhost", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			c := checker(t, e, mode, tt.allow, nil, tt.deny)
			for _, a := range tt.always {
				c.AllowAlways(mustRule(t, a))
			}
			if got := c.HostNamed(tt.host); got != tt.want {
				t.Errorf("HostNamed(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestFetchAllowed(t *testing.T) {
	e := newEnv(t)
	c := checker(t, e, permission.ModeDefault, []string{"WebFetch(domain:example.org)"}, nil, []string{"WebFetch(domain:evil.example)"})
	tests := []struct {
		url    string
		ok     bool
		reason string
	}{
		{"https://www.example.org/next", true, ""},
		{"https://example.com/", false, "fetching example.com needs approval"},
		{"https://evil.example/", false, "denied by rule WebFetch(domain:evil.example)"},
	}
	for _, tt := range tests {
		ok, reason := c.FetchAllowed(tt.url)
		if ok != tt.ok || reason != tt.reason {
			t.Errorf("FetchAllowed(%s) = %v, %q; want %v, %q", tt.url, ok, reason, tt.ok, tt.reason)
		}
	}
}

func mustRule(t *testing.T, s string) rules.Rule {
	t.Helper()
	r, err := rules.Parse(s)
	if err != nil {
		t.Fatalf("rule %q: %v", s, err)
	}
	return r
}
