package serve

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// tokenProtocolPrefix marks the subprotocol a browser sends its token in:
// it cannot set an Authorization header on a WebSocket.
const tokenProtocolPrefix = "nova.token."

// Protocol is the subprotocol the server selects when the client offers it
// beside its token, so that no token is echoed in the handshake's answer.
const Protocol = "nova.v1"

// GenerateToken returns a random token: 32 bytes from crypto/rand, in
// unpadded base64url (43 characters, valid in a URL fragment and as a
// subprotocol).
func GenerateToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// minTokenLen keeps tokens a person chose out of guessing range.
const minTokenLen = 16

// ValidToken checks a token read from a file or the environment: at least
// 16 characters, only letters, digits and - . _ ~, so that it travels
// unchanged in a URL fragment and a WebSocket subprotocol.
func ValidToken(tok string) error {
	if len(tok) < minTokenLen {
		return fmt.Errorf("the token is %d characters long; use at least %d", len(tok), minTokenLen)
	}
	for _, r := range tok {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-._~", r):
		default:
			return fmt.Errorf("the token has the character %q; use only letters, digits and - . _ ~", r)
		}
	}
	return nil
}

// CheckListen refuses an address that other machines can reach unless
// the connection is encrypted (withTLS) or the person said the network is
// trusted (insecureRemote): the token travels in every handshake, and
// whoever holds it runs commands in the workspace.
func CheckListen(addr string, withTLS, insecureRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", addr, err)
	}
	if Loopback(host) || withTLS || insecureRemote {
		return nil
	}
	shown := host
	if shown == "" {
		shown = "every interface"
	}
	return fmt.Errorf("refusing to listen on %s (%s) without TLS: the token and everything the agent does would cross the network in clear; "+
		"give --tls-cert and --tls-key, or --insecure-remote if the network is trusted (an SSH tunnel to 127.0.0.1 needs neither)", addr, shown)
}

// Loopback reports whether host (of a listen address) reaches this machine
// only: localhost or a loopback IP. An empty host is every interface.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// auth checks a handshake's token: Authorization: Bearer, or the
// subprotocol nova.token.TOKEN. proto is the subprotocol to select (Protocol
// when offered, else the token's own, which a browser that offered only it
// needs in the answer).
type auth struct {
	sum [sha256.Size]byte // of the token: compared in constant time, whatever the length
}

func newAuth(token string) auth { return auth{sum: sha256.Sum256([]byte(token))} }

func (a auth) match(tok string) bool {
	got := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(got[:], a.sum[:]) == 1
}

// check returns the subprotocols to offer Accept, or ok false.
func (a auth) check(r *http.Request) (protos []string, ok bool) {
	var offered []string
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			offered = append(offered, strings.TrimSpace(p))
		}
	}
	tokenProto := ""
	for _, p := range offered {
		if tok, found := strings.CutPrefix(p, tokenProtocolPrefix); found && a.match(tok) {
			tokenProto = p
		}
	}
	if h := r.Header.Get("Authorization"); tokenProto == "" {
		tok, found := strings.CutPrefix(h, "Bearer ")
		if !found || !a.match(strings.TrimSpace(tok)) {
			return nil, false
		}
	}
	for _, p := range offered {
		if p == Protocol {
			return []string{Protocol}, true
		}
	}
	if tokenProto != "" {
		return []string{tokenProto}, true
	}
	return nil, true
}

// origins decides which browser pages may connect.
type origins struct {
	allowed []string // scheme://host[:port], lower case
}

// newOrigins parses --allow-origin values.
func newOrigins(list []string) (origins, error) {
	var o origins
	for _, s := range list {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return o, fmt.Errorf("--allow-origin %q: want scheme://host[:port], as a browser sends it in Origin", s)
		}
		o.allowed = append(o.allowed, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return o, nil
}

// ok: no Origin (not a browser), the server's own origin, or a listed one.
// A page elsewhere cannot read the token, but it could try guesses from a
// visitor's browser; and a listed origin is one the person vouched for.
func (o origins) ok(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	want := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, a := range o.allowed {
		if a == want {
			return true
		}
	}
	return false
}
