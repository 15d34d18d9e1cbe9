package rules

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"unicode"
)

// parseDomain parses a WebFetch specifier, which must be `domain:HOST`.
func parseDomain(tool, spec string) (Rule, error) {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		if kw, _, found := strings.Cut(spec, ":"); found && !strings.Contains(kw, "/") && kw != "http" && kw != "https" {
			return Rule{}, fmt.Errorf("unknown specifier `%s:` for %s: write %s(domain:example.org)", kw, tool, tool)
		}
		return Rule{}, fmt.Errorf("%s rules name a host: write %s(domain:example.org), which also covers its subdomains", tool, tool)
	}
	host = strings.TrimSpace(host)
	if host == "" {
		return Rule{}, fmt.Errorf("empty domain: write %s(domain:example.org)", tool)
	}
	norm, err := normalizeHostRule(host)
	if err != nil {
		return Rule{}, err
	}
	canon := norm
	if strings.Contains(norm, ":") {
		canon = "[" + norm + "]"
	}
	return Rule{Tool: tool, Specifier: "domain:" + canon, Kind: KindDomain, Pattern: norm}, nil
}

// normalizeHostRule validates a rule's host and returns it in lower case,
// without a trailing dot and, for IPv6, without brackets.
func normalizeHostRule(host string) (string, error) {
	switch {
	case strings.Contains(host, "://"):
		return "", fmt.Errorf("domain:%s is a URL: give the host alone, as in domain:example.org", host)
	case strings.HasPrefix(host, "*."):
		return "", fmt.Errorf("domain:%s: domain rules already cover subdomains, write domain:%s", host, host[2:])
	case strings.Contains(host, "*"):
		return "", fmt.Errorf("domain:%s: wildcards are not supported; domain:example.org covers example.org and its subdomains", host)
	}
	if strings.HasPrefix(host, "[") {
		inner, ok := strings.CutSuffix(host[1:], "]")
		ip := net.ParseIP(inner)
		if !ok || ip == nil || !strings.Contains(inner, ":") {
			return "", fmt.Errorf("domain:%s is not a valid IPv6 address in brackets", host)
		}
		return ip.String(), nil
	}
	if ip := net.ParseIP(host); ip != nil && strings.Contains(host, ":") {
		return "", fmt.Errorf("domain:%s: write an IPv6 address in brackets, as in domain:[::1]", host)
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" {
		return "", errors.New("empty domain: write domain:example.org")
	}
	for _, c := range h {
		switch {
		case c == ':':
			return "", fmt.Errorf("domain:%s: give the host without a port", host)
		case c == '/' || c == '?' || c == '#':
			return "", fmt.Errorf("domain:%s: give the host alone, without a path", host)
		case c == '.' || c == '-' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c):
		default:
			return "", fmt.Errorf("invalid character %q in domain:%s", c, host)
		}
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return "", fmt.Errorf("domain:%s has an empty label (`..` or a leading dot)", host)
		}
	}
	return h, nil
}

// MatchDomain reports whether a KindDomain rule matches host: the rule's host
// itself or any subdomain of it (case-insensitive; a trailing dot and a port
// are ignored), so domain:example.org matches api.example.org but not
// evilexample.org or example.org.evil.test. IP address rules match only that
// address.
func (r Rule) MatchDomain(host string) bool {
	if r.Kind != KindDomain || r.Pattern == "" {
		return false
	}
	h := strings.ToLower(strings.TrimSpace(host))
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return false
	}
	if h == r.Pattern {
		return true
	}
	if ip := net.ParseIP(r.Pattern); ip != nil {
		return ip.Equal(net.ParseIP(h))
	}
	if net.ParseIP(h) != nil {
		// An address has no subdomains: domain:0.0.1 is no rule for
		// 127.0.0.1.
		return false
	}
	return strings.HasSuffix(h, "."+r.Pattern)
}
