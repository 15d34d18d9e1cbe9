package permission

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/novacode/nova/permission/rules"
)

// webTool is the tool whose calls name a host (subject.host).
const webTool = "WebFetch"

// HostNamed reports whether an allow rule (from the settings, the command
// line or an "always" answer of this session) names host for WebFetch —
// WebFetch(domain:host) or a parent domain of it — and no deny rule does.
// WebFetch reaches a host at a private, loopback or link-local address, or
// over plain http, only then: a rule for the whole tool, bypass mode or a
// one-time approval is no statement about where a name may lead.
func (c *Checker) HostNamed(host string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	named := func(rs []rules.Rule) bool {
		return slices.ContainsFunc(rs, func(r rules.Rule) bool {
			return r.Kind == rules.KindDomain && r.Tool == webTool && r.MatchDomain(host)
		})
	}
	return !named(c.cfg.Deny) && (named(c.cfg.Allow) || named(c.always))
}

// FetchAllowed reports whether a WebFetch of rawURL would run without
// asking, as the chain decides a call; if not, why. WebFetch follows a
// redirect to another host only then.
func (c *Checker) FetchAllowed(rawURL string) (bool, string) {
	input, err := json.Marshal(map[string]string{"url": rawURL})
	if err != nil {
		return false, err.Error()
	}
	d := c.Check(Call{Tool: webTool, Input: input})
	if d.Behavior == Allow {
		return true, ""
	}
	return false, d.Reason
}

// fetchReason is why a fetch of host is asked. For a name that stands for
// this machine or an address literal in a private range it says what an
// approval of this one call will not do: only a rule naming the host lets
// WebFetch reach such an address.
func fetchReason(host string) string {
	reason := fmt.Sprintf("fetching %s needs approval", host)
	if local(host) {
		reason += fmt.Sprintf("; a private address is reached only with a rule naming it, WebFetch(domain:%s)", hostRule(host))
	}
	return reason
}

// local reports whether host is localhost or an address literal that is
// not public, as far as the name alone tells.
func local(host string) bool {
	h := strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

func hostRule(host string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]"
	}
	return host
}
